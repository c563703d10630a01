//! Qwen Code's context reminder: Qwen has no status line, but its Stop payload
//! carries the context use (`context_usage`, a fraction of `context_limit`; the captured
//! `payloads/qwen/Stop-1.json`). At the end of a turn whose use reached the threshold (`warn_at`
//! in `.capn/config.json`, default 60%), this leaves the same context-warning marker the Claude
//! Code status line leaves, once per crossing, and the next prompt carries the reminder
//! ([`super::context_warn`], the rule's one owner; [`super::user_prompt_submit`]). Use back
//! under the threshold (after a compaction) withdraws an undelivered one. The cost: the
//! payload's number and, at most, two small files.

use super::context_warn::{self, Delivery};
use super::{Ctx, HookEvent};
use crate::session::Marker;
use anyhow::Result;

/// Runs the reminder check for a Qwen Code Stop payload; prints nothing.
///
/// Errors: the state dir cannot be determined or a marker cannot be written.
pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let Some(fraction) = ctx
        .call
        .context_usage
        .filter(|u| u.is_finite() && *u >= 0.0)
    else {
        return Ok(());
    };
    if ctx.call.is_subagent() {
        return Ok(());
    }
    let Some(s) = ctx.session()? else {
        return Ok(());
    };
    let threshold = context_warn::threshold(ctx.call.project_root());
    let m = Marker {
        transcript_path: ctx.call.transcript_path.clone(),
        cwd: ctx.call.cwd.clone(),
        ..Marker::now(HookEvent::Stop.name())
    };
    context_warn::on_use(&s, fraction * 100.0, threshold, m, Delivery::NextPrompt).map(drop)
}
