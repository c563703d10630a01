//! `capn hook post-compact`: PostCompact (Claude Code's hooks docs, Codex's hook schemas).
//!
//! Prints nothing (any `hookSpecificOutput` on PostCompact gets the whole reply rejected). It
//! writes the session's `compacted.json` marker (trigger, transcript path, cwd) for
//! UserPromptSubmit to deliver, and re-arms the context warning. Payloads with `agent_id` are a
//! sub-agent compacting, not the main conversation, and are ignored.
//!
//! When the payload carries the summary (`compact_summary`: Claude Code, Qwen Code) and
//! PreCompact carried a fresh state into it, the summary is checked for the state's active plan,
//! current phase and decisions ([`super::summary::missing`]); what it left out is recorded in
//! `summary-gaps.json`, which the next prompt turns into a note naming it and the state file
//! (SessionStart(compact) has already run by then on Claude Code). A summary that kept them
//! leaves nothing.
//!
//! When SessionStart(compact) already delivered the recovery for this compaction (its
//! `compact-delivered.json` is newer than this compaction's PreCompact record), no marker is
//! left behind; the check runs before and after writing the marker, so the two hooks cannot
//! both miss each other (see [`crate::hook`]).

use super::{summary, Ctx, HookEvent};
use crate::session::{self, SessionDir};
use anyhow::Result;
use std::time::SystemTime;

/// Runs PostCompact.
pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    if ctx.call.is_subagent() {
        return Ok(());
    }
    let Some(s) = ctx.session()? else {
        return Ok(());
    };
    super::rearm_warning(&s)?;
    if delivered_covers_this_compaction(&s) {
        s.remove(session::COMPACT_DELIVERED)?;
    } else {
        let marker = session::Marker {
            project: super::handoff::project_of(ctx),
            ..ctx.marker(HookEvent::PostCompact)
        };
        s.write_marker(session::COMPACTED, &marker)?;
        if delivered_covers_this_compaction(&s) {
            s.claim(session::COMPACTED)?;
            s.remove(session::COMPACT_DELIVERED)?;
        }
    }
    if let Err(e) = check_summary(ctx, &s) {
        diag!("capn: could not record what the summary left out: {e:#}");
    }
    super::gc_when_due(Some(&s.id));
    Ok(())
}

/// Checks the payload's summary against the fresh state PreCompact carried (module docs):
/// writes `summary-gaps.json` naming what it left out, or removes an earlier one. Does nothing
/// without a summary, or when this compaction had no fresh state.
///
/// Errors: the marker could not be written or removed.
fn check_summary(ctx: &Ctx, s: &SessionDir) -> anyhow::Result<()> {
    let Some(text) = ctx.call.compact_summary.as_deref() else {
        return Ok(());
    };
    s.remove(session::SUMMARY_GAPS)?;
    let fresh = super::precompact_for(s, None).and_then(|m| m.fresh_state) == Some(true);
    if !fresh {
        return Ok(());
    }
    let Some(state) = summary::read_state(&summary::state_owner(s)) else {
        return Ok(());
    };
    let missing = summary::missing(&state, text);
    if missing.is_empty() {
        return Ok(());
    }
    let marker = session::Marker {
        missing: Some(missing.iter().map(|m| m.to_string()).collect()),
        ..ctx.marker(HookEvent::PostCompact)
    };
    s.write_marker(session::SUMMARY_GAPS, &marker)
}

/// True when `compact-delivered.json` exists and belongs to the compaction being reported: it
/// is not older than this compaction's PreCompact record, or, without such a record, at most
/// [`super::DELIVERED_MAX_AGE`] old.
fn delivered_covers_this_compaction(s: &SessionDir) -> bool {
    let Some(d) = s
        .read_marker(session::COMPACT_DELIVERED)
        .and_then(|m| m.at_time())
    else {
        return false;
    };
    match super::precompact_for(s, None).and_then(|p| p.at_time()) {
        Some(p) => d >= p,
        None => SystemTime::now()
            .duration_since(d)
            .is_ok_and(|age| age <= super::DELIVERED_MAX_AGE),
    }
}
