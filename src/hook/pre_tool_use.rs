//! `capn hook pre-tool-use`: PreToolUse (Claude Code: Grep, Glob, Read, Task/Agent, Bash; Codex: its
//! shell tool, `tool_name` "Bash"; Codex's pre-tool-use schemas).
//!
//! Offers charted answers at the moment the agent searches ([`super::offer`]): the search's
//! intent (pattern words, paths, a sub-agent's prompt: [`crate::recall::intent`]) is recalled
//! over and what passes the injection gate goes into `additionalContext`. Never denies, never
//! changes the tool input, prints nothing for a tool call that is not a search.
//!
//! `capn init` registers it on every Bash call (Claude Code matcher `Grep|Glob|Read|Bash|Task|Agent`,
//! Codex `Bash`), so the common case is a build or a listing: the tool call is classified from
//! the payload alone and a non-search returns before the session dir, the store or its config is
//! looked at (`tests/cli/offers.rs` checks that no config is read; `bench/pretooluse_bench.py`
//! times it). A call that asks (`capn ask`), reads files (Read, registered for this, `cat`...) or searches
//! is also seen by [`super::learn::observe`] (the session's record, not the store), which never
//! changes the reply.

use super::offer::{self, Moment};
use super::Ctx;
use anyhow::Result;

/// Runs PreToolUse; returns the `additionalContext` to inject, if any.
pub(crate) fn run(ctx: &Ctx) -> Result<Option<String>> {
    run_at(ctx, false)
}

/// Runs PreToolUse, or PostToolUse standing in for it (`post`: the call already ran); returns
/// the `additionalContext` to inject, if any.
pub(crate) fn run_at(ctx: &Ctx, post: bool) -> Result<Option<String>> {
    let Some((tool, input)) = &ctx.call.tool else {
        return Ok(None);
    };
    // The session's asks, reads and searches, for learning from use; prints nothing.
    super::learn::observe(ctx, tool, input, post);
    let Some(intent) = crate::recall::intent::from_tool_call(tool, input) else {
        return Ok(None);
    };
    offer::offers(ctx, Moment::Search, &intent.text)
}
