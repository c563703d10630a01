//! `capn hook user-prompt-submit`: UserPromptSubmit (Claude Code's hooks docs, Codex's hook
//! schemas).
//!
//! Runs on every prompt, so the path with nothing to deliver is three failed `rename` calls and
//! nothing else: no store scan, no directory creation.
//!
//! - a compaction marker: inject the recovery instructions, once (the claim is a rename, so if
//!   SessionStart(compact) or another copy of this hook got there first, this one stays silent);
//! - else a context-warning marker: inject the one-paragraph reminder, once;
//! - else, for a session id never seen before (no session dir: one `stat`), the undelivered
//!   compaction marker of the session it continues, copied, when nothing else in the project
//!   could be the continuation ([`super::handoff`]);
//! - else, under `--host codex`, the context reminder computed from the rollout file
//!   ([`super::codex_context`]), once per crossing;
//! - else nothing.
//!
//! Beside any of these: the note on what the last compaction's summary left out of the saved
//! state (`summary-gaps.json`, written by PostCompact; [`super::summary`]), once.
//!
//! Beside any of these, in the same object: charted answers offered for the prompt
//! ([`super::offer`]), unless it is a slash command or very short.

use super::offer::{self, Moment};
use super::Ctx;
use crate::session::{self, SessionDir};
use anyhow::Result;

/// Runs UserPromptSubmit; returns the `additionalContext` to inject, if any.
pub(crate) fn run(ctx: &Ctx) -> Result<Option<String>> {
    if ctx.call.is_subagent() || is_continuation(ctx) {
        return Ok(None);
    }
    let Some(s) = ctx.session()? else {
        return Ok(None);
    };
    let notice = notice(ctx, &s)?;
    let offers = match ctx.call.prompt.as_deref() {
        Some(p) => offer::offers(ctx, Moment::Prompt, p).unwrap_or_else(|e| {
            diag!("capn: no offers for this prompt: {e:#}");
            None
        }),
        None => None,
    };
    Ok(match (notice, offers) {
        (Some(n), Some(o)) => Some(format!("{n}\n\n{o}")),
        (n, o) => n.or(o),
    })
}

/// True for a second UserPromptSubmit of a turn on a host that fires it again with
/// `prompt: ""` on each tool-result continuation
/// ([`crate::hosts::HostSpec::repeats_empty_prompt`]: Qwen Code). Answering it would inject
/// mid-turn, again.
pub(super) fn is_continuation(ctx: &Ctx) -> bool {
    ctx.host.spec().repeats_empty_prompt && ctx.call.prompt.as_deref() == Some("")
}

/// The recovery or reminder due for this prompt, if any (the list in the module docs), with
/// the note on what the last compaction's summary left out after it, if any.
fn notice(ctx: &Ctx, s: &SessionDir) -> Result<Option<String>> {
    let gaps = s
        .claim(session::SUMMARY_GAPS)?
        .and_then(|m| m.missing)
        .map(|m| super::summary::gaps_note(&m, &super::summary::state_owner(s).state_file()))
        .filter(|n| !n.is_empty());
    let main = main_notice(ctx, s)?;
    Ok(match (main, gaps) {
        (Some(m), Some(g)) => Some(format!("{m}\n\n{g}")),
        (m, g) => m.or(g),
    })
}

/// The recovery or reminder due for this prompt, if any (the list in the module docs).
fn main_notice(ctx: &Ctx, s: &SessionDir) -> Result<Option<String>> {
    if let Some(m) = s.claim(session::COMPACTED)? {
        return Ok(Some(super::recovery_text(ctx.host, s, Some(&m))));
    }
    if let Some(w) = s.claim(session::CONTEXT_WARN)? {
        return Ok(Some(super::context_warn::reminder(
            ctx.host,
            w.percent,
            w.threshold,
        )));
    }
    if !s.path.exists() {
        // A session never seen: maybe a new id continuing a compacted conversation.
        if let Some((owner, m)) =
            super::handoff::take_over(ctx, s, super::handoff::Arrival::FirstPrompt)
        {
            return Ok(Some(super::recovery_text(ctx.host, &owner, Some(&m))));
        }
        s.mark_seen()?;
    }
    if ctx.host.spec().context == crate::hosts::ContextSource::Rollout {
        // No status line to write the warning marker (Codex): the rollout has the numbers.
        return super::codex_context::check(ctx, s);
    }
    Ok(None)
}
