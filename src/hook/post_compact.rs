//! `capn hook post-compact`: PostCompact (hooks reference, sections 1.4 and 5).
//!
//! Prints nothing (any `hookSpecificOutput` on PostCompact gets the whole reply rejected). It
//! writes the session's `compacted.json` marker (trigger, transcript path, cwd) for
//! UserPromptSubmit to deliver, and re-arms the context warning. Payloads with `agent_id` are a
//! sub-agent compacting, not the main conversation, and are ignored.
//!
//! When SessionStart(compact) already delivered the recovery for this compaction (its
//! `compact-delivered.json` is newer than this compaction's PreCompact record), no marker is
//! left behind; the check runs before and after writing the marker, so the two hooks cannot
//! both miss each other (see [`crate::hook`]).

use super::{Ctx, HookEvent};
use crate::session::{self, SessionDir};
use anyhow::Result;
use std::time::SystemTime;

/// Runs PostCompact.
pub fn run(ctx: &Ctx) -> Result<()> {
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
    super::gc_when_due(Some(&s.id));
    Ok(())
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
