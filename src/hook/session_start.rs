//! `capn hook session-start`: SessionStart on Claude Code and Codex (hooks reference, sections
//! 1.4 and 5).
//!
//! - `startup`, `resume`, `clear` (and anything newer, such as `fork`, or a missing source):
//!   inject the ask-before-search contract ([`crate::contract::CONTRACT`]).
//! - `compact`: inject the recovery instructions, claim the session's compaction marker if
//!   PostCompact already wrote it, and leave `compact-delivered.json` so a PostCompact that comes
//!   after does not leave a second one (see the state machine in [`crate::hook`]).
//!
//! Every source also appends `export CAPN_SESSION_ID=<id>` to `$CLAUDE_ENV_FILE` when that is
//! set (section 1.6), so the `/compact-prep` skill and `capn state` know the session. The file
//! belongs to the host, so it is appended to (`O_APPEND`), not atomically replaced.

use super::{text::Recovery, Ctx};
use crate::session::{self, SessionDir};
use anyhow::{Context, Result};
use std::io::Write;

/// Runs SessionStart; returns the `additionalContext` to inject, if any.
///
/// Bookkeeping (the `seen` stamp, `compact-delivered.json`, claiming the compaction marker,
/// re-arming the warning) never suppresses the injected text: a failure is reported on stderr
/// and the contract or recovery is still returned. A recovery whose `compact-delivered.json`
/// could not be written may be delivered a second time by UserPromptSubmit; twice beats never.
pub fn run(ctx: &Ctx) -> Result<Option<String>> {
    let source = ctx.input.source.as_deref().unwrap_or("startup");
    if ctx.input.is_subagent() {
        // Not the main conversation: its id is the parent's, so touch nothing of the session.
        return Ok((source != "compact").then(|| crate::contract::CONTRACT.to_string()));
    }
    let session = ctx.session();
    if source != "compact" {
        match &session {
            Ok(Some(s)) => {
                if let Err(e) = export_session_id(s) {
                    diag!("capn: {e:#}");
                }
                if let Err(e) = s.touch_if_exists() {
                    diag!("capn: could not mark the session as seen: {e:#}");
                }
            }
            Ok(None) => {}
            Err(e) => diag!("capn: {e:#}"),
        }
        super::gc_when_due(
            session
                .as_ref()
                .ok()
                .and_then(|s| s.as_ref())
                .map(|s| &s.id),
        );
        return Ok(Some(crate::contract::CONTRACT.to_string()));
    }
    let Some(s) = session? else {
        return Ok(None);
    };
    if let Err(e) = export_session_id(&s) {
        diag!("capn: {e:#}");
    }
    let mut delivered = ctx.marker("SessionStart");
    delivered.source = Some("compact".into());
    if let Err(e) = s.write_marker(session::COMPACT_DELIVERED, &delivered) {
        diag!("capn: could not record the delivered recovery (it may be delivered again): {e:#}");
    }
    let compacted = s.claim(session::COMPACTED).unwrap_or_else(|e| {
        diag!("capn: {e:#}");
        None
    });
    if let Err(e) = super::rearm_warning(&s) {
        diag!("capn: could not re-arm the context warning: {e:#}");
    }
    let compaction = compacted.as_ref().and_then(|m| m.at_time());
    let pre = super::precompact_for(&s, compaction);
    let state_file = s.state_file();
    let text = Recovery {
        host: ctx.host,
        state_file: &state_file,
        state_saved_at: s.state_saved_at(),
        precompact: pre.as_ref(),
        compacted: compacted.as_ref(),
    }
    .render();
    super::gc_when_due(Some(&s.id));
    Ok(Some(text))
}

/// Appends `export CAPN_SESSION_ID=<id>` to `$CLAUDE_ENV_FILE` when it is set and non-empty.
/// The id is validated, so it needs no quoting.
///
/// Errors: the path exists and is not a regular file (a FIFO would block the hook), or
/// `could not append to CLAUDE_ENV_FILE: <path>: <cause>`.
fn export_session_id(s: &SessionDir) -> Result<()> {
    let Some(path) = std::env::var_os("CLAUDE_ENV_FILE").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = std::path::PathBuf::from(path);
    // Only a regular file (or none yet): opening a FIFO for writing blocks until a reader comes.
    if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
        anyhow::bail!(
            "CLAUDE_ENV_FILE is not a regular file, not appended to: {}",
            path.display()
        );
    }
    // A last line without its newline (`printf 'export X=1' >>`) must not get ours glued on.
    let glue = ends_without_newline(&path);
    let mut opts = std::fs::OpenOptions::new();
    opts.append(true).create(true);
    // Swapped for a FIFO since the check: fail at once (ENXIO) instead of waiting for a reader.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut opts,
        rustix::fs::OFlags::NONBLOCK.bits() as i32,
    );
    let mut f = opts
        .open(&path)
        .with_context(|| format!("could not append to CLAUDE_ENV_FILE: {}", path.display()))?;
    let line = format!("export CAPN_SESSION_ID={}\n", s.id);
    let text = if glue { format!("\n{line}") } else { line };
    f.write_all(text.as_bytes())
        .with_context(|| format!("could not append to CLAUDE_ENV_FILE: {}", path.display()))
}

/// True when the file at `path` is non-empty and its last byte is not a newline (a file that
/// cannot be read: false).
fn ends_without_newline(path: &std::path::Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok((mut f, _)) =
        crate::fsutil::open_regular(path, u64::MAX, crate::fsutil::Follow::Anywhere)
    else {
        return false;
    };
    if f.seek(SeekFrom::End(-1)).is_err() {
        return false; // empty
    }
    let mut last = [0u8; 1];
    f.read_exact(&mut last).is_ok() && last[0] != b'\n'
}
