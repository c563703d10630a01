//! `capn hook session-start`: SessionStart on Claude Code and Codex (Claude Code's
//! hooks docs, Codex's hook schemas).
//!
//! - `startup`, `resume`, `clear` (and anything newer, such as `fork`, or a missing source):
//!   inject the ask-before-search contract ([`crate::contract::CONTRACT`]); except a Codex
//!   `resume` of a session capn has already seen, whose history holds the contract already
//!   (Codex re-injects context on every `codex exec resume`, so copies would pile up). A
//!   project whose store folder is a symlink gets a fixed note that capn cannot be used there
//!   instead ([`Ctx::contract`]).
//! - `compact`: inject the recovery instructions, claim the session's compaction marker if
//!   PostCompact already wrote it (or, for a new session id continuing the conversation, the
//!   previous id's: [`super::handoff`]), and leave `compact-delivered.json` so a PostCompact that
//!   comes after does not leave a second one (see the state machine in [`crate::hook`]).
//!
//! Every source also appends `export CAPN_SESSION_ID=<id>` to `$CLAUDE_ENV_FILE` when that is
//! set (Claude Code sources that file before each Bash command), so the `/compact-prep` skill and
//! `capn state` know the session. The file belongs to the host, so it is appended to (`O_APPEND`),
//! not atomically replaced.

use super::{Ctx, HookEvent};
use crate::session::{self, SessionDir};
use anyhow::{Context, Result};
use std::io::Write;

/// Runs SessionStart; returns the `additionalContext` to inject, if any.
///
/// Bookkeeping (the `seen` stamp, `compact-delivered.json`, claiming the compaction marker,
/// re-arming the warning) never suppresses the injected text: a failure is reported on stderr
/// and the contract or recovery is still returned. A recovery whose `compact-delivered.json`
/// could not be written may be delivered a second time by UserPromptSubmit; twice beats never.
pub(crate) fn run(ctx: &Ctx) -> Result<Option<String>> {
    let source = ctx.call.source.as_deref().unwrap_or("startup");
    if ctx.call.is_subagent() {
        // Not the main conversation: its id is the parent's, so touch nothing of the session.
        return Ok((source != "compact").then(|| ctx.contract(crate::contract::CONTRACT)));
    }
    let session = ctx.session();
    if source != "compact" {
        // Codex keeps the contract of a session in its history and injects every SessionStart's
        // context again on each `codex exec resume`: copies pile up turn after turn. A resumed
        // Codex session that capn has already seen gets no second copy.
        let repeat = ctx.host.spec().resume_repeats_context
            && source == "resume"
            && matches!(&session, Ok(Some(s)) if s.has(session::SEEN));
        match &session {
            Ok(Some(s)) => {
                if let Err(e) = export_session_id(s) {
                    diag!("capn: {e:#}");
                }
                if let Err(e) = s.mark_seen() {
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
        return Ok((!repeat).then(|| ctx.contract(crate::contract::CONTRACT)));
    }
    let Some(s) = session? else {
        return Ok(None);
    };
    if let Err(e) = export_session_id(&s) {
        diag!("capn: {e:#}");
    }
    let mut delivered = ctx.marker(HookEvent::SessionStart);
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
    // A new id continuing a compacted conversation: the marker and state are the old id's.
    let (owner, compacted) = match compacted {
        Some(m) => (s.clone(), Some(m)),
        None if super::precompact_for(&s, None).is_none() => {
            match super::handoff::take_over(ctx, &s, super::handoff::Arrival::SessionStartCompact) {
                Some((owner, m)) => (owner, Some(m)),
                None => (s.clone(), None),
            }
        }
        None => (s.clone(), None),
    };
    let text = super::recovery_text(ctx.host, &owner, compacted.as_ref());
    super::gc_when_due(Some(&s.id));
    Ok(Some(text))
}

/// Appends `export CAPN_SESSION_ID=<id>` to `$CLAUDE_ENV_FILE` when it is set and non-empty,
/// unless that exact line is already there (one line per session id, however many times
/// SessionStart runs: startup, resume, compact). The id is validated, so it needs no quoting.
///
/// Errors: the path exists and cannot be read as capn reads host files (not a regular file: a
/// FIFO would block the hook; a symlink; over the size bound), or `could not append to
/// CLAUDE_ENV_FILE: <path>: <cause>`.
fn export_session_id(s: &SessionDir) -> Result<()> {
    let Some(path) = crate::env::get_os(crate::env::CLAUDE_ENV_FILE) else {
        return Ok(());
    };
    let path = std::path::PathBuf::from(path);
    // Read without blocking or following a symlink: a FIFO would block until a writer comes.
    let existing = crate::fsutil::read_host_file(&path, "CLAUDE_ENV_FILE")
        .context("CLAUDE_ENV_FILE not appended to")?
        .unwrap_or_default();
    let line = format!("export CAPN_SESSION_ID={}", s.id);
    if existing
        .split(|b| *b == b'\n')
        .any(|l| l.strip_suffix(b"\r").unwrap_or(l) == line.as_bytes())
    {
        return Ok(());
    }
    // A last line without its newline (`printf 'export X=1' >>`) must not get ours glued on.
    let glue = existing.last().is_some_and(|b| *b != b'\n');
    let mut opts = std::fs::OpenOptions::new();
    opts.append(true).create(true);
    // Swapped for a FIFO or a symlink since the read: fail at once (ENXIO, ELOOP) instead of
    // waiting for a reader or writing where the link points.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut opts,
        (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW).bits() as i32,
    );
    let mut f = opts
        .open(&path)
        .with_context(|| format!("could not append to CLAUDE_ENV_FILE: {}", path.display()))?;
    let text = if glue {
        format!("\n{line}\n")
    } else {
        format!("{line}\n")
    };
    f.write_all(text.as_bytes())
        .with_context(|| format!("could not append to CLAUDE_ENV_FILE: {}", path.display()))
}
