//! The per-user state dir and per-session state: the `/compact-prep` state file, the markers the
//! hooks pass to each other, and garbage collection of old sessions.
//!
//! Layout (format.md, "Per-user state dir"), all under [`state_dir`]:
//!
//! ```text
//! sessions/<id>/state.md               the /compact-prep state (written by `capn state save`,
//!                                      [`state_file`])
//! sessions/<id>/compacted.json         marker: a compaction happened, recovery not yet delivered
//! sessions/<id>/context-warn.json      marker: context use crossed the threshold, not yet delivered
//! sessions/<id>/context-warned.json    record: warned since the last compaction (keeps the warning
//!                                      to once per crossing; removed by a compaction to re-arm it)
//! sessions/<id>/precompact.json        record: PreCompact ran; whether a fresh state existed
//! sessions/<id>/compact-delivered.json record: SessionStart(compact) delivered the recovery
//! sessions/<id>/seen                   written by SessionStart (GC age; and the session is known,
//!                                      so its first prompt never takes over another's marker)
//! sessions/<id>/handoff.json           record: this session took over the compaction marker of
//!                                      the session it continues (`from_session`), see
//!                                      [`crate::hook::handoff`]
//! sessions/<id>/learn.json             the session's asks, its turn's reads and searches, and
//!                                      phrasings to learn ([`learning`]; learning from use)
//! gc-stamp                             when garbage collection last ran
//! shown/<key>.json                     what `capn ask` showed on its recent misses in one
//!                                      project ([`shown`]; learning from use)
//! ```
//!
//! Every file is written atomically (temp file + rename): the state file durably
//! ([`crate::fsutil::write_atomic`]), markers and stamps without `fsync`
//! ([`crate::fsutil::Durability::Transient`]: losing one to a crash loses a notice, nothing more,
//! and the compaction hooks stay within their 2 ms budget). A marker is *claimed* by renaming it
//! to a name unique to the claiming process; only the process whose rename succeeds delivers it,
//! so two hooks racing for one marker deliver it once (a host may run
//! hooks of one session at the same time).
//!
//! A session id reaches a path only as a [`SessionId`], which can only be made from a string that
//! matches `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$` (format.md): no separators, no `..`, no absolute
//! paths, so nothing is ever written outside the state dir.

pub(crate) mod headings;
pub(crate) mod learning;
pub(crate) mod shown;
pub(crate) mod state_file;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Environment variable that overrides the state dir.
pub(crate) const STATE_DIR_ENV: &str = crate::env::STATE_DIR;

/// Name of the state dir under the platform's state (or local data) dir.
pub(crate) const APP_DIR: &str = "capn-hook";

/// The state file's name inside a session dir.
pub(crate) const STATE_FILE: &str = "state.md";
/// Marker: a compaction happened and the recovery instructions were not delivered yet.
pub(crate) const COMPACTED: &str = "compacted.json";
/// Marker: context use crossed the warning threshold and the reminder was not delivered yet.
pub(crate) const CONTEXT_WARN: &str = "context-warn.json";
/// Record: the session was warned since its last compaction (no new warning until one happens).
pub(crate) const CONTEXT_WARNED: &str = "context-warned.json";
/// Record written by PreCompact: when it ran and whether a fresh `/compact-prep` state existed.
pub(crate) const PRECOMPACT: &str = "precompact.json";
/// Record written by SessionStart(compact) when it delivered the recovery, so a PostCompact that
/// arrives after it does not leave a second marker behind.
pub(crate) const COMPACT_DELIVERED: &str = "compact-delivered.json";
/// Written by SessionStart, so GC sees the session as alive and a first prompt knows the
/// session is not new.
pub(crate) const SEEN: &str = "seen";
/// Record: this session continues another one whose compaction marker it took over.
pub(crate) const HANDOFF: &str = "handoff.json";
/// Marker: the last compaction's summary left out what the saved state holds; the next prompt
/// names it (PostCompact writes it, UserPromptSubmit claims it).
pub(crate) const SUMMARY_GAPS: &str = "summary-gaps.json";

/// Sessions whose dir and files are all older than this are removed by [`gc`] (format.md: 14 days).
pub(crate) const GC_MAX_AGE: Duration = Duration::from_secs(14 * 24 * 3600);
/// [`maybe_gc`] runs a collection at most this often.
pub(crate) const GC_INTERVAL: Duration = Duration::from_secs(24 * 3600);
/// A state file saved at most this long before PreCompact (and after the previous compaction)
/// counts as a fresh `/compact-prep`.
pub(crate) const FRESH_STATE_MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// The per-user state dir, always absolute: `$CAPN_STATE_DIR` when set and non-empty (a relative
/// value is taken relative to the working directory), else the platform state dir for
/// `capn-hook` (Linux `$XDG_STATE_HOME/capn-hook`, default `~/.local/state/capn-hook`; macOS and
/// Windows: the local data dir), per format.md. Nothing is created.
///
/// Errors: no home directory can be found and `CAPN_STATE_DIR` is unset, or the working
/// directory cannot be read for a relative `CAPN_STATE_DIR`.
pub(crate) fn state_dir() -> Result<PathBuf> {
    if let Some(dir) = crate::env::get_os(STATE_DIR_ENV) {
        let dir = PathBuf::from(dir);
        if dir.is_absolute() {
            return Ok(dir);
        }
        let cwd = std::env::current_dir()
            .context("could not read the working directory to resolve CAPN_STATE_DIR")?;
        return Ok(cwd.join(dir));
    }
    let base = directories::BaseDirs::new()
        .context("could not find the home directory for the state dir (set CAPN_STATE_DIR)")?;
    let root = base
        .state_dir()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| base.data_local_dir().to_path_buf());
    Ok(root.join(APP_DIR))
}

/// True when `id` matches `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$` (format.md, "Per-user state
/// dir"). Checked by hand: compiling a regex would cost more than the whole hot path.
pub(crate) fn is_valid_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

/// A session id that passed [`is_valid_session_id`]; the only way a session id reaches a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionId(String);

impl SessionId {
    /// Validates `id`; `None` when it does not match the format.
    pub(crate) fn parse(id: &str) -> Option<SessionId> {
        is_valid_session_id(id).then(|| SessionId(id.to_string()))
    }

    /// The id as a string.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A small JSON record in a session dir: a marker or one of the hooks' records. Every field is
/// optional so an older or hand-edited file still reads; unknown fields are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Marker {
    /// When it was written: RFC 3339 UTC with milliseconds (`2026-07-03T18:00:00.000Z`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The event that wrote it (`PostCompact`, `SessionStart`, `PreCompact`, `statusline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Compaction trigger as the host sent it (`manual`, `auto`, or anything newer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// SessionStart source as the host sent it (`compact`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Context use in percent when the warning was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
    /// The warning threshold in percent that was crossed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u8>,
    /// The host's transcript path, as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// The host's working directory, as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// PreCompact only: whether a fresh `/compact-prep` state existed when compaction began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fresh_state: Option<bool>,
    /// PreCompact only: when the state file it found was saved (RFC 3339 UTC), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_saved_at: Option<String>,
    /// PostCompact only: the project root of the session (absolute path), so another session
    /// id continuing the conversation in the same project can find the marker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// `handoff.json` only: the session id whose marker and state this session continues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_session: Option<String>,
    /// `summary-gaps.json` only: the state file's sections the compaction summary left out
    /// (`Active Plan`, `Current Phase`, `Session Decisions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
}

/// The longest text field a marker keeps (4,096 bytes, PATH_MAX on Linux): a longer
/// `transcript_path`, `cwd` or `trigger` from a payload is not a real one and is dropped, so
/// every marker stays well within [`crate::fsutil::limits::MARKER`].
pub(crate) const MAX_MARKER_FIELD: usize = 4096;

impl Marker {
    /// This marker without text fields longer than [`MAX_MARKER_FIELD`].
    pub(crate) fn bounded(&self) -> Marker {
        let keep = |f: &Option<String>| f.clone().filter(|s| s.len() <= MAX_MARKER_FIELD);
        Marker {
            at: keep(&self.at),
            event: keep(&self.event),
            trigger: keep(&self.trigger),
            source: keep(&self.source),
            transcript_path: keep(&self.transcript_path),
            cwd: keep(&self.cwd),
            ..self.clone()
        }
    }

    /// A marker stamped now, for `event`.
    pub(crate) fn now(event: &str) -> Marker {
        Marker {
            at: Some(rfc3339(SystemTime::now())),
            event: Some(event.to_string()),
            ..Marker::default()
        }
    }

    /// `at` parsed, if present and valid.
    pub(crate) fn at_time(&self) -> Option<SystemTime> {
        self.at.as_deref().and_then(parse_rfc3339)
    }
}

pub(crate) use crate::clock::{parse_rfc3339, rfc3339};

/// The `/compact-prep` state file's headings, in order (format.md, "State file"): `capn state
/// save` checks them, the bundled skill lists them.
pub(crate) const STATE_HEADINGS: [&str; 9] = [
    "# Compact Prep State",
    "## Active Plan",
    "## Current Phase",
    "## TaskList Summary",
    "## Session Decisions",
    "## Constraints and Blockers",
    "## Worker Topology",
    "## Editing Files",
    "## Recovery Notes",
];

/// One session's dir under the state dir. Creating it touches nothing on disk.
#[derive(Debug, Clone)]
pub(crate) struct SessionDir {
    /// The validated session id.
    pub id: SessionId,
    /// `<state dir>/sessions/<id>`.
    pub path: PathBuf,
}

impl SessionDir {
    /// The dir of session `id` under `state_dir`.
    pub(crate) fn new(state_dir: &Path, id: &SessionId) -> SessionDir {
        SessionDir {
            id: id.clone(),
            path: sessions_dir(state_dir).join(id.as_str()),
        }
    }

    /// `<dir>/<name>`.
    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The `/compact-prep` state file, `<dir>/state.md`.
    pub(crate) fn state_file(&self) -> PathBuf {
        self.file(STATE_FILE)
    }

    /// The session whose state this one continues, when it took over another's compaction
    /// marker (its `handoff.json` names `from_session`; see `hook::handoff`).
    pub(crate) fn continued_from(&self) -> Option<SessionDir> {
        let m = self.read_marker(HANDOFF)?;
        let id = SessionId::parse(m.from_session.as_deref()?)?;
        Some(SessionDir::new(self.path.parent()?.parent()?, &id))
    }

    /// Creates the session dir (and its parents). The state dir itself may be reached through
    /// symlinks (the user's own layout); below it, `sessions/` and the session dir are created
    /// without following one.
    ///
    /// Errors: `could not create session dir: <path>: <cause>`.
    pub(crate) fn ensure(&self) -> Result<()> {
        let state = self.path.parent().and_then(Path::parent);
        let made = match state {
            Some(state) => fs::create_dir_all(state)
                .map_err(anyhow::Error::new)
                .and_then(|()| crate::fsutil::ensure_dir_inside(state, &self.path)),
            None => fs::create_dir_all(&self.path).map_err(anyhow::Error::new),
        };
        made.with_context(|| format!("could not create session dir: {}", self.path.display()))
    }

    /// Writes `marker` as `<dir>/<name>` atomically, creating the dir first. A [`COMPACTED`]
    /// marker is also listed in `<state dir>/compacted/` ([`recently_compacted`]).
    pub(crate) fn write_marker(&self, name: &str, marker: &Marker) -> Result<()> {
        self.ensure()?;
        let marker = marker.bounded();
        let mut text = serde_json::to_string(&marker)?;
        text.push('\n');
        crate::fsutil::write_atomic_with(
            &self.file(name),
            text.as_bytes(),
            crate::fsutil::Durability::Transient,
        )?;
        match self.path.parent().and_then(Path::parent) {
            Some(state) if name == COMPACTED => list_compacted(state, &self.id),
            _ => Ok(()),
        }
    }

    /// Reads `<dir>/<name>` as a marker (at most [`crate::fsutil::limits::MARKER`] bytes, which
    /// every marker written through [`SessionDir::write_marker`] fits). `None` when the file does
    /// not exist; a file that exists
    /// but does not parse reads as an empty marker (its existence is what matters).
    pub(crate) fn read_marker(&self, name: &str) -> Option<Marker> {
        use crate::fsutil::{limits, read_limited, Follow, ReadError};
        match read_limited(&self.file(name), limits::MARKER, Follow::Never) {
            Ok(bytes) => Some(serde_json::from_slice(&bytes).unwrap_or_default()),
            Err(ReadError::NotFound) => None,
            // There but not readable as a marker (too large, a symlink, a FIFO): it exists.
            Err(_) => Some(Marker::default()),
        }
    }

    /// True when `<dir>/<name>` exists.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.file(name).exists()
    }

    /// Removes `<dir>/<name>`; a file that is already gone is not an error.
    pub(crate) fn remove(&self, name: &str) -> Result<()> {
        crate::fsutil::remove_if_exists(&self.file(name))
    }

    /// Claims the marker `<dir>/<name>`: renames it to a name unique to this process, reads it,
    /// and deletes it. Returns `Some(marker)` only to the one caller whose rename succeeded;
    /// `None` when there is no marker (the common case: one failed `rename`, no other syscall)
    /// or another process claimed it first.
    ///
    /// Errors: the rename failed for a reason other than the marker being absent.
    pub(crate) fn claim(&self, name: &str) -> Result<Option<Marker>> {
        let from = self.file(name);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let to = self.file(&format!(".claimed-{}-{}-{nanos}", name, std::process::id()));
        match fs::rename(&from, &to) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("could not claim marker: {}", from.display()))
            }
        }
        let marker = crate::fsutil::read_limited(
            &to,
            crate::fsutil::limits::MARKER,
            crate::fsutil::Follow::Never,
        )
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
        let _ = fs::remove_file(&to);
        Ok(Some(marker))
    }

    /// When the state file was last written (its mtime), if it exists.
    pub(crate) fn state_saved_at(&self) -> Option<SystemTime> {
        fs::metadata(self.state_file())
            .and_then(|m| m.modified())
            .ok()
    }

    /// Marks the session as alive and known: creates the dir when missing and writes
    /// `<dir>/seen` when it is missing or older than [`GC_INTERVAL`] (so a SessionStart
    /// normally costs one `stat`).
    ///
    /// Errors: the dir or the stamp cannot be written.
    pub(crate) fn mark_seen(&self) -> Result<()> {
        self.refresh_seen(true)
    }

    /// Rewrites `<dir>/seen` when it is missing or older than [`GC_INTERVAL`]; creates the dir
    /// first when `create`, else does nothing without one.
    fn refresh_seen(&self, create: bool) -> Result<()> {
        let seen = self.file(SEEN);
        let now = SystemTime::now();
        let fresh = fs::metadata(&seen)
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < GC_INTERVAL));
        if fresh {
            return Ok(());
        }
        if create {
            self.ensure()?;
        } else if !self.path.is_dir() {
            return Ok(());
        }
        crate::fsutil::write_atomic_with(
            &seen,
            rfc3339(now).as_bytes(),
            crate::fsutil::Durability::Transient,
        )
    }
}

/// `<state dir>/sessions`.
pub(crate) fn sessions_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("sessions")
}

/// `<state dir>/compacted`: one empty file per session (named by its id) that wrote a
/// [`COMPACTED`] marker lately, so finding the sessions that compacted costs what they are, not
/// one open per session dir ever kept.
pub(crate) fn compacted_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("compacted")
}

/// Lists session `id` in [`compacted_dir`] (its file's mtime is when).
fn list_compacted(state_dir: &Path, id: &SessionId) -> Result<()> {
    let dir = compacted_dir(state_dir);
    fs::create_dir_all(state_dir)
        .map_err(anyhow::Error::new)
        .and_then(|()| crate::fsutil::ensure_dir_inside(state_dir, &dir))
        .with_context(|| format!("could not create folder: {}", dir.display()))?;
    crate::fsutil::write_atomic_with(
        &dir.join(id.as_str()),
        b"",
        crate::fsutil::Durability::Transient,
    )
}

/// The sessions listed in [`compacted_dir`] less than `max_age` ago whose [`COMPACTED`] marker
/// is still there (undelivered). Listings older than that, or whose marker is gone, are
/// removed on the way. Only regular files named by a valid session id count.
pub(crate) fn recently_compacted(state_dir: &Path, max_age: Duration) -> Vec<SessionId> {
    let Ok(rd) = fs::read_dir(compacted_dir(state_dir)) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut found = Vec::new();
    for entry in rd.flatten() {
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(SessionId::parse) else {
            continue;
        };
        let Ok(meta) = fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let recent = meta
            .modified()
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age <= max_age));
        if !meta.is_file() {
            continue;
        }
        if recent && SessionDir::new(state_dir, &id).has(COMPACTED) {
            found.push(id);
        } else {
            let _ = fs::remove_file(entry.path());
        }
    }
    found
}

/// Runs [`gc`] when the last collection (the mtime of `<state dir>/gc-stamp`) is more than
/// [`GC_INTERVAL`] ago or unknown, then restamps. Meant for SessionStart and PostCompact, never
/// for the per-prompt path. Returns how many session dirs were removed (0 when skipped).
///
/// Errors: the stamp could not be written; failures to remove one session are reported on
/// stderr and do not stop the others.
pub(crate) fn maybe_gc(state_dir: &Path, keep: Option<&SessionId>) -> Result<usize> {
    let stamp = state_dir.join("gc-stamp");
    let now = SystemTime::now();
    if let Ok(m) = fs::metadata(&stamp).and_then(|m| m.modified()) {
        if now.duration_since(m).is_ok_and(|age| age < GC_INTERVAL) {
            return Ok(0);
        }
    }
    let sessions = sessions_dir(state_dir);
    if !sessions.is_dir() {
        return Ok(0);
    }
    crate::fsutil::write_atomic_with(
        &stamp,
        rfc3339(now).as_bytes(),
        crate::fsutil::Durability::Transient,
    )?;
    Ok(gc(state_dir, now, GC_MAX_AGE, keep))
}

/// Removes every session dir under `<state dir>/sessions` whose dir and direct children were all
/// last modified more than `max_age` before `now`, except `keep`. Only real directories with a
/// valid session id as their name are considered (symlinks and stray files are left alone).
/// Returns how many were removed; a failure on one is reported on stderr and skipped.
pub(crate) fn gc(
    state_dir: &Path,
    now: SystemTime,
    max_age: Duration,
    keep: Option<&SessionId>,
) -> usize {
    let Ok(rd) = fs::read_dir(sessions_dir(state_dir)) else {
        return 0;
    };
    let mut removed = 0;
    for entry in rd.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_valid_session_id(name) || keep.is_some_and(|k| k.as_str() == name) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let newest = newest_mtime(&path, &meta);
        let old = newest.is_some_and(|t| now.duration_since(t).is_ok_and(|age| age > max_age));
        if !old {
            continue;
        }
        match fs::remove_dir_all(&path) {
            Ok(()) => removed += 1,
            Err(e) => diag!(
                "capn: could not remove old session dir: {}: {e}",
                path.display()
            ),
        }
    }
    removed
}

/// The newest mtime of a dir and its direct children (not following symlinks).
fn newest_mtime(dir: &Path, meta: &fs::Metadata) -> Option<SystemTime> {
    let mut newest = meta.modified().ok();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            if let Ok(t) = fs::symlink_metadata(e.path()).and_then(|m| m.modified()) {
                newest = Some(newest.map_or(t, |n| n.max(t)));
            }
        }
    }
    newest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_id_format() {
        for ok in [
            "abc123",
            "6bd73c2b-242e-4e14-b4c8-ca6596546ac5",
            "abc123...",
            "A",
            "a.b_c-d",
            &"a".repeat(128),
        ] {
            assert!(is_valid_session_id(ok), "{ok:?} should be valid");
        }
        for bad in [
            "",
            "..",
            "../../x",
            "...",
            ".hidden",
            "-x",
            "_x",
            "a/b",
            "a\\b",
            "/abs",
            "a b",
            "a\0b",
            "é",
            &"a".repeat(129),
        ] {
            assert!(!is_valid_session_id(bad), "{bad:?} should be refused");
        }
    }

    #[test]
    fn claim_delivers_once_and_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let s = SessionDir::new(tmp.path(), &SessionId::parse("s1").unwrap());
        assert_eq!(s.claim(COMPACTED).unwrap(), None);
        let mut m = Marker::now("PostCompact");
        m.trigger = Some("manual".into());
        s.write_marker(COMPACTED, &m).unwrap();
        assert_eq!(s.claim(COMPACTED).unwrap(), Some(m));
        assert_eq!(s.claim(COMPACTED).unwrap(), None);
        let left: Vec<_> = fs::read_dir(&s.path).unwrap().flatten().collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn claim_races_deliver_exactly_once() {
        let tmp = tempfile::tempdir().unwrap();
        let s = SessionDir::new(tmp.path(), &SessionId::parse("race").unwrap());
        for _ in 0..20 {
            s.write_marker(COMPACTED, &Marker::now("PostCompact"))
                .unwrap();
            let wins: usize = std::thread::scope(|sc| {
                let hs: Vec<_> = (0..4)
                    .map(|_| sc.spawn(|| s.claim(COMPACTED).unwrap().is_some() as usize))
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).sum()
            });
            assert_eq!(wins, 1);
        }
    }

    #[test]
    fn corrupt_marker_still_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let s = SessionDir::new(tmp.path(), &SessionId::parse("s").unwrap());
        s.ensure().unwrap();
        fs::write(s.file(COMPACTED), b"not json").unwrap();
        assert_eq!(s.read_marker(COMPACTED), Some(Marker::default()));
        assert_eq!(s.claim(COMPACTED).unwrap(), Some(Marker::default()));
    }

    #[test]
    fn rfc3339_round_trips_to_the_millisecond() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_780_000_000_123);
        let s = rfc3339(t);
        assert!(s.ends_with(".123Z"), "{s}");
        assert_eq!(parse_rfc3339(&s), Some(t));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    fn age(path: &Path, by: Duration) {
        #[cfg(unix)]
        let f = fs::File::open(path).unwrap();
        // Windows sets times only through a handle with write-attributes access, and opens a
        // folder only with FILE_FLAG_BACKUP_SEMANTICS.
        #[cfg(windows)]
        let f = {
            use std::os::windows::fs::OpenOptionsExt;
            fs::OpenOptions::new()
                .access_mode(0x100) // FILE_WRITE_ATTRIBUTES
                .custom_flags(0x0200_0000) // FILE_FLAG_BACKUP_SEMANTICS
                .open(path)
                .unwrap()
        };
        f.set_modified(SystemTime::now() - by).unwrap();
    }

    #[test]
    fn gc_removes_only_old_sessions() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path();
        let old = SessionDir::new(state, &SessionId::parse("old").unwrap());
        let fresh = SessionDir::new(state, &SessionId::parse("fresh").unwrap());
        let kept = SessionDir::new(state, &SessionId::parse("kept").unwrap());
        let mixed = SessionDir::new(state, &SessionId::parse("mixed").unwrap());
        let fifteen = Duration::from_secs(15 * 24 * 3600);
        for s in [&old, &fresh, &kept, &mixed] {
            s.write_marker(COMPACTED, &Marker::now("PostCompact"))
                .unwrap();
        }
        for s in [&old, &kept, &mixed] {
            age(&s.file(COMPACTED), fifteen);
            age(&s.path, fifteen);
        }
        // A recent file inside an otherwise old dir keeps it alive.
        fs::write(mixed.file(SEEN), b"x").unwrap();
        age(&mixed.path, fifteen);
        // A stray file and an invalid name are never touched.
        fs::write(sessions_dir(state).join("stray"), b"x").unwrap();
        let n = gc(state, SystemTime::now(), GC_MAX_AGE, Some(&kept.id));
        assert_eq!(n, 1);
        assert!(!old.path.exists());
        assert!(fresh.path.exists() && kept.path.exists() && mixed.path.exists());
        assert!(sessions_dir(state).join("stray").exists());
    }

    #[test]
    fn maybe_gc_runs_at_most_once_per_interval() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path();
        let fifteen = Duration::from_secs(15 * 24 * 3600);
        let mk = |name: &str| {
            let s = SessionDir::new(state, &SessionId::parse(name).unwrap());
            s.write_marker(COMPACTED, &Marker::now("x")).unwrap();
            age(&s.file(COMPACTED), fifteen);
            age(&s.path, fifteen);
            s
        };
        let a = mk("a");
        assert_eq!(maybe_gc(state, None).unwrap(), 1);
        assert!(!a.path.exists());
        let b = mk("b");
        assert_eq!(maybe_gc(state, None).unwrap(), 0, "stamp is fresh");
        assert!(b.path.exists());
        age(&state.join("gc-stamp"), Duration::from_secs(25 * 3600));
        assert_eq!(maybe_gc(state, None).unwrap(), 1);
        assert!(!b.path.exists());
    }
}
