//! The session's `/compact-prep` state file (`sessions/<id>/state.md`): which session `capn
//! state` means ([`resolve`]), its save ([`save_from`], [`save`]) and its read ([`read`]).
//!
//! The session id comes from `--session` (an empty value counts as absent, so a skill can pass
//! an unexpanded `"${CLAUDE_SESSION_ID}"` safely), else `$CAPN_SESSION_ID` (exported by the
//! SessionStart hook through `CLAUDE_ENV_FILE`). With neither, or with an id that does not match
//! format.md, [`resolve`] refuses with a message that says how to get one: this is the skill's
//! hard stop.
//!
//! A save checks the nine headings of format.md ("State file", [`super::headings`]); on any
//! problem it lists every one of them and writes nothing; otherwise it writes `state.md`
//! atomically and durably.

use super::headings::check_headings;
use super::{state_dir, SessionDir, SessionId, STATE_HEADINGS};
use crate::error::Refused;
use anyhow::{Context, Result};
use std::io::Read;

/// The largest state file a save accepts and a read returns, in bytes.
pub(crate) const MAX_STATE_BYTES: usize = 1024 * 1024;

/// Environment variable that names the session for `capn state`.
pub(crate) const SESSION_ENV: &str = crate::env::SESSION_ID;

/// The session dir named by `session` (`--session`), else `$CAPN_SESSION_ID`; an empty value
/// counts as absent.
///
/// Errors: [`Refused`] when neither is set (with how to get one) or the id does not match
/// format.md; the state dir cannot be determined.
pub(crate) fn resolve(session: Option<&str>) -> Result<SessionDir> {
    let from_env = crate::env::get(SESSION_ENV);
    let raw = session
        .filter(|s| !s.is_empty())
        .or(from_env.as_deref().filter(|s| !s.is_empty()));
    let Some(raw) = raw else {
        return Err(Refused(
            "no session id: CAPN_SESSION_ID is not set and --session was not given. The \
             SessionStart hook exports CAPN_SESSION_ID through CLAUDE_ENV_FILE: run `capn init` \
             and restart the session, or pass --session <id>"
                .into(),
        )
        .into());
    };
    let Some(id) = SessionId::parse(raw) else {
        return Err(Refused(format!(
            "invalid session id {:?}: it must match ^[A-Za-z0-9][A-Za-z0-9._-]{{0,127}}$",
            raw.chars().take(64).collect::<String>()
        ))
        .into());
    };
    Ok(SessionDir::new(&state_dir()?, &id))
}

/// Reads the markdown of a save from `input` (at most [`MAX_STATE_BYTES`], UTF-8, a BOM
/// removed), then [`save`]s it as `s`'s state file. Returns what to print: `saved <path>: all 9
/// headings present, in order`.
///
/// Errors: [`Refused`] for input that is too large or not UTF-8, and [`save`]'s; `input`
/// cannot be read.
pub(crate) fn save_from(s: &SessionDir, input: impl Read) -> Result<String> {
    let mut buf = Vec::new();
    input
        .take(MAX_STATE_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .context("could not read the state from stdin")?;
    if buf.len() > MAX_STATE_BYTES {
        return Err(Refused(format!(
            "refusing to save the state: it is larger than {MAX_STATE_BYTES} bytes; nothing was written"
        ))
        .into());
    }
    let text = String::from_utf8(buf).map_err(|_| {
        Refused("refusing to save the state: stdin is not valid UTF-8; nothing was written".into())
    })?;
    save(s, text.strip_prefix('\u{feff}').unwrap_or(&text))?;
    Ok(format!(
        "saved {}: all {} headings present, in order",
        s.state_file().display(),
        STATE_HEADINGS.len()
    ))
}

/// Checks `text` and writes it as the session's state file (a trailing newline is added when
/// missing).
///
/// Errors: [`Refused`] when `text` holds what looks like a secret ([`crate::secret`]) or
/// listing every heading problem (nothing written); the write failed.
pub(crate) fn save(s: &SessionDir, text: &str) -> Result<()> {
    crate::secret::refuse("refusing to save the state", &[("the state", text)])?;
    let problems = check_headings(text);
    if !problems.is_empty() {
        // One line, as every refusal is printed (a line break would show as `\n`).
        let msg = format!(
            "refusing to save the state: its headings do not match the state file format ({}); expected exactly these headings, in this order: {}; nothing was written",
            problems.join("; "),
            STATE_HEADINGS.join(", ")
        );
        return Err(Refused(msg).into());
    }
    s.ensure()?;
    let mut body = text.to_string();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    crate::fsutil::write_atomic(&s.state_file(), body.as_bytes())
        .with_context(|| format!("could not save state file: {}", s.state_file().display()))
}

/// A state file as [`read`] found it.
#[derive(Debug)]
pub(crate) struct SavedState {
    /// Its text (invalid UTF-8 replaced), at most [`MAX_STATE_BYTES`].
    pub text: String,
    /// The session it was saved under, when that is not the session asked for: the one whose
    /// compacted conversation the asked-for session continues ([`SessionDir::continued_from`]).
    pub continued: Option<SessionId>,
}

/// The state saved for `s`; for a session that continues a compacted conversation under a new
/// id (it took over the old id's marker) and has no state of its own, the old id's.
///
/// Errors: [`Refused`] when no state was saved (naming the file and `/compact-prep`); the file
/// cannot be read (too large, a symlink, unreadable), naming it.
pub(crate) fn read(s: &SessionDir) -> Result<SavedState> {
    let mut from = None;
    if !s.state_file().exists() {
        from = s.continued_from().filter(|f| f.state_file().exists());
    }
    let at = from.as_ref().unwrap_or(s);
    let path = at.state_file();
    let read =
        crate::fsutil::read_limited(&path, MAX_STATE_BYTES as u64, crate::fsutil::Follow::Never);
    let text = match read {
        Ok(t) => t,
        Err(crate::fsutil::ReadError::NotFound) => {
            return Err(Refused(format!(
                "no state saved for session {} yet: {} does not exist (run /compact-prep)",
                at.id,
                path.display()
            ))
            .into())
        }
        Err(e) => {
            return Err(e).with_context(|| format!("could not read state file: {}", path.display()))
        }
    };
    Ok(SavedState {
        text: String::from_utf8_lossy(&text).into_owned(),
        continued: from.map(|f| f.id),
    })
}
