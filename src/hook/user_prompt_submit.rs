//! `capn hook user-prompt-submit`: UserPromptSubmit (hooks reference, sections 1.4 and 5).
//!
//! Runs on every prompt, so the path with nothing to deliver is two failed `rename` calls and
//! nothing else: no store scan, no directory creation.
//!
//! - a compaction marker: inject the recovery instructions, once (the claim is a rename, so if
//!   SessionStart(compact) or another copy of this hook got there first, this one stays silent);
//! - else a context-warning marker: inject the one-paragraph reminder, once;
//! - else nothing.

use super::{text, text::Recovery, Ctx};
use crate::session;
use anyhow::Result;

/// Runs UserPromptSubmit; returns the `additionalContext` to inject, if any.
pub fn run(ctx: &Ctx) -> Result<Option<String>> {
    if ctx.input.is_subagent() {
        return Ok(None);
    }
    let Some(s) = ctx.session()? else {
        return Ok(None);
    };
    if let Some(m) = s.claim(session::COMPACTED)? {
        let pre = super::precompact_for(&s, m.at_time());
        let state_file = s.state_file();
        return Ok(Some(
            Recovery {
                host: ctx.host,
                state_file: &state_file,
                state_saved_at: s.state_saved_at(),
                precompact: pre.as_ref(),
                compacted: Some(&m),
            }
            .render(),
        ));
    }
    if let Some(w) = s.claim(session::CONTEXT_WARN)? {
        return Ok(Some(text::context_warning(
            ctx.host,
            w.percent,
            w.threshold,
        )));
    }
    Ok(None)
}
