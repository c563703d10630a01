//! `capn hook pre-compact`: PreCompact (hooks reference, sections 1.4 and 5).
//!
//! Never blocks and prints nothing (exit 2 or a `decision` would block compaction; PreCompact
//! accepts no `additionalContext`). It records in the session dir whether a fresh
//! `/compact-prep` state exists, so the recovery can say when a compaction came without one.
//! "Fresh" means saved at most [`crate::session::FRESH_STATE_MAX_AGE`] ago and after the
//! previous PreCompact of the session.

use super::{Ctx, HookEvent};
use crate::session::{self, rfc3339};
use anyhow::Result;
use std::time::SystemTime;

/// Runs PreCompact: writes `precompact.json`. Sub-agent compactions are ignored.
pub fn run(ctx: &Ctx) -> Result<()> {
    if ctx.call.is_subagent() {
        return Ok(());
    }
    let Some(s) = ctx.session()? else {
        return Ok(());
    };
    let now = SystemTime::now();
    let previous = s.read_marker(session::PRECOMPACT).and_then(|m| m.at_time());
    let saved = s.state_saved_at();
    let fresh = saved.is_some_and(|t| {
        let recent = now
            .duration_since(t)
            .map_or(true, |age| age <= session::FRESH_STATE_MAX_AGE);
        recent && previous.is_none_or(|p| t > p)
    });
    let mut m = ctx.marker(HookEvent::PreCompact);
    m.fresh_state = Some(fresh);
    m.state_saved_at = saved.map(rfc3339);
    s.write_marker(session::PRECOMPACT, &m)
}
