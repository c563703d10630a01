//! `capn hook pre-compact`: PreCompact (Claude Code's hooks docs, Codex's hook schemas).
//!
//! Never blocks (exit 2 or a `decision` would block compaction). It records in the session dir
//! whether a fresh `/compact-prep` state exists, so the recovery can say when a compaction came
//! without one, and returns the instructions for the summarizer ([`super::summary`]), which the
//! caller prints as the host takes them ([`crate::hosts::PreCompactReply`]: plain text on Claude
//! Code, the envelope for capn's OpenCode plugin, nothing where no output reaches the summary).
//! "Fresh" means saved at most [`crate::session::FRESH_STATE_MAX_AGE`] ago and after the
//! previous PreCompact of the session.

use super::summary::{self, Saved};
use super::{Ctx, HookEvent};
use crate::session::{self, rfc3339};
use anyhow::Result;
use std::time::SystemTime;

/// Runs PreCompact: writes `precompact.json` and, when `want_text` (the host takes them),
/// returns the instructions for the summary. Sub-agent compactions are ignored (no record, no
/// instructions: the state is the parent's). A record that cannot be written is reported on
/// stderr and the instructions still returned.
pub(crate) fn run(ctx: &Ctx, want_text: bool) -> Result<Option<String>> {
    if ctx.call.is_subagent() {
        return Ok(None);
    }
    let Some(s) = ctx.session()? else {
        return Ok(want_text.then(|| summary::instructions(ctx, None, &[])));
    };
    let now = SystemTime::now();
    let previous = s.read_marker(session::PRECOMPACT).and_then(|m| m.at_time());
    let owner = summary::state_owner(&s);
    let saved = owner.state_saved_at();
    let fresh = saved.is_some_and(|t| {
        let recent = now
            .duration_since(t)
            .map_or(true, |age| age <= session::FRESH_STATE_MAX_AGE);
        recent && previous.is_none_or(|p| t > p)
    });
    let mut m = ctx.marker(HookEvent::PreCompact);
    m.fresh_state = Some(fresh);
    m.state_saved_at = saved.map(rfc3339);
    if let Err(e) = s.write_marker(session::PRECOMPACT, &m) {
        diag!("capn: could not record the compaction's start: {e:#}");
    }
    if !want_text {
        return Ok(None);
    }
    let path = owner.state_file();
    let text = saved.and_then(|_| summary::read_state(&owner));
    let carried = match (saved, text.as_deref()) {
        (Some(at), Some(text)) => Some(Saved {
            path: &path,
            at,
            text,
            fresh,
        }),
        _ => None,
    };
    let questions = if fresh {
        Vec::new()
    } else {
        summary::session_questions(ctx, &s)
    };
    Ok(Some(summary::instructions(
        ctx,
        carried.as_ref(),
        &questions,
    )))
}
