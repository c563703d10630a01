//! `capn hook subagent-start`: SubagentStart on Claude Code and Codex.
//!
//! SessionStart does not fire for a sub-agent, and the parent's SessionStart context is not in
//! the sub-agent's requests, so the agents that do most of the searching (Claude Code's Explore
//! and general-purpose agents, Codex's spawned agents) never hear the ask-before-search contract.
//! SubagentStart's `additionalContext` reaches only the sub-agent's own requests: it gets
//! [`SUBAGENT_CONTRACT`], a short contract for a searching agent. The offers before a search
//! (PreToolUse) reach sub-agents already; the nudge to chart stays the parent's (a sub-agent's
//! exploration counts toward its parent's turn).

use super::Ctx;
use anyhow::Result;

/// The contract for a sub-agent, in factual wording (imperative text can trip prompt-injection
/// defences), under [`super::text::MAX_CHARS`].
pub(crate) const SUBAGENT_CONTRACT: &str =
    "[capn] Sub-agent contract: this repository has a project \
memory, capn. Before searching the code (grep, rg, find, Glob, or reading files to find where \
something is), `capn ask \"<question>\"` shows the charted answers: the files that answer the \
question, checked against their current content (exit 1 when there is none; then the search \
goes on as usual). The caller charts what sub-agents find, so the final report names, for each \
question searched for, the files that answered it (`question -> file, file`).";

/// Runs SubagentStart; returns the sub-agent contract. Writes nothing: the session id is the
/// parent's.
pub(crate) fn run(ctx: &Ctx) -> Result<Option<String>> {
    Ok(Some(ctx.contract(SUBAGENT_CONTRACT)))
}
