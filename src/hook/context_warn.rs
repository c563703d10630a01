//! The context-warning rule, one owner for every host: when a session's context use reaches the
//! threshold (`warn_at` of `.capn/config.json`, default 60%), the model is reminded once that
//! the user may want to run `/compact-prep` (or write the plan down) before `/compact`.
//!
//! Once per crossing: the session's `context-warned.json` records that it was warned; a
//! compaction removes it ([`super::rearm_warning`]), and so the next crossing warns again. The
//! use is read where each host reports it: the Claude Code status line ([`super::statusline`]),
//! Qwen Code's Stop payload ([`super::qwen_context`]) and the Codex rollout
//! ([`super::codex_context`]); the reminder's words are [`super::text::context_warning`].

use super::Host;
use crate::session::{self, Marker, SessionDir};
use anyhow::Result;
use std::path::PathBuf;

/// How a host's reminder reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// A `context-warn.json` marker that the next prompt claims and delivers
    /// (`super::user_prompt_submit`): the status line and Qwen's Stop hook, which run outside a
    /// prompt. Use back under the threshold withdraws an undelivered marker.
    NextPrompt,
    /// Given by the prompt hook that read the use (Codex). Use back under the threshold (only a
    /// compaction or a new conversation brings it down) re-arms the warning.
    Now,
}

/// The threshold in percent (1..=100) for the project at `root`: its `warn_at`, else
/// [`crate::config::DEFAULT_WARN_AT`] (also without a project). The config is read under the
/// store's rules (a symlinked `.capn/` or a FIFO `config.json` gives the default).
pub(crate) fn threshold(root: Option<PathBuf>) -> u8 {
    root.map_or(crate::config::DEFAULT_WARN_AT, |root| {
        crate::store::Store::at(root).config().warn_at
    })
}

/// True when `percent` of context use has reached `threshold` percent.
pub(crate) fn reached(percent: f64, threshold: u8) -> bool {
    percent >= f64::from(threshold)
}

/// The reminder text for `host` ([`super::text::context_warning`]): `percent` is the use when
/// it was read, `threshold` the one crossed (`None` when not known).
pub(crate) fn reminder(host: Host, percent: Option<f64>, threshold: Option<u8>) -> String {
    super::text::context_warning(host, percent, threshold)
}

/// Applies the rule for session `s` at `percent` of use (finite, ≥ 0) against `threshold`:
/// under it, the undelivered marker is withdrawn ([`Delivery::NextPrompt`]) or the warning
/// re-armed ([`Delivery::Now`]); at or over it, when the session was not warned since its last
/// compaction, it is recorded as warned (`marker` with the use and threshold filled in) and, for
/// [`Delivery::NextPrompt`], the marker for the next prompt is written. Returns true when the
/// session is warned now (for [`Delivery::Now`] the caller gives [`reminder`]).
///
/// Errors: a marker cannot be written or removed.
pub(crate) fn on_use(
    s: &SessionDir,
    percent: f64,
    threshold: u8,
    marker: Marker,
    delivery: Delivery,
) -> Result<bool> {
    if !reached(percent, threshold) {
        below(s, delivery)?;
        return Ok(false);
    }
    if s.has(session::CONTEXT_WARNED) {
        return Ok(false);
    }
    let m = Marker {
        percent: Some(percent),
        threshold: Some(threshold),
        ..marker
    };
    if delivery == Delivery::NextPrompt {
        s.write_marker(session::CONTEXT_WARN, &m)?;
    }
    s.write_marker(session::CONTEXT_WARNED, &m)?;
    Ok(true)
}

/// Use found under the threshold (or a compaction seen in the host's own record): see
/// [`on_use`].
///
/// Errors: a marker cannot be removed.
pub(crate) fn below(s: &SessionDir, delivery: Delivery) -> Result<()> {
    match delivery {
        // One failed unlink when none waits.
        Delivery::NextPrompt => s.remove(session::CONTEXT_WARN),
        Delivery::Now => s.remove(session::CONTEXT_WARNED),
    }
}
