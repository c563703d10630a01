//! Recovery follows the conversation: when the host continues a compacted conversation under a
//! new session id (PostCompact arrives with id A, then SessionStart(compact) and the prompts with
//! id B, seconds later, in the same project), the compaction marker and the `/compact-prep` state
//! saved under A are what B needs.
//!
//! A session B takes over the marker of a session A when all of these hold:
//! - B is new to the compaction: on SessionStart(compact), B has no compaction marker and no
//!   PreCompact record of its own; on UserPromptSubmit, B has no session dir at all (no
//!   SessionStart ever ran for it: every SessionStart writes `seen`, so a parallel session that
//!   started normally never takes anything);
//! - A's `compacted.json` is an undelivered PostCompact marker written at most
//!   [`HANDOFF_MAX_AGE`] ago, for the same project root (the marker's `project`, else the root
//!   of its `cwd`) as B's payload;
//! - it is the only such marker (two candidates: nothing is taken, as the conversation is not
//!   known).
//!
//! The marker is claimed by rename ([`SessionDir::claim`]), so A's own next prompt and B cannot
//! both deliver it. B records `handoff.json` (`from_session: A`), which `capn state show` uses to
//! find A's state while B has none of its own.

use super::Ctx;
use crate::session::{self, Marker, SessionDir, SessionId};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The oldest a PostCompact marker may be for another session id to take it over.
pub const HANDOFF_MAX_AGE: Duration = Duration::from_secs(10 * 60);

/// The project root of a hook payload (see [`crate::store::hook_root`]), as a string.
pub fn project_of(ctx: &Ctx) -> Option<String> {
    Some(ctx.call.project_root()?.display().to_string())
}

/// Finds, claims and records the takeover of another session's undelivered compaction marker
/// for session `s` (see the module docs for the rules; the caller checks that `s` is new).
/// Returns the session taken over and its marker.
pub fn take_over(ctx: &Ctx, s: &SessionDir, event: &str) -> Option<(SessionDir, Marker)> {
    let project = project_of(ctx)?;
    let state_dir = s.path.parent()?.parent()?;
    let now = SystemTime::now();
    let mut found: Vec<SessionDir> = Vec::new();
    for entry in std::fs::read_dir(session::sessions_dir(state_dir))
        .ok()?
        .flatten()
    {
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(SessionId::parse) else {
            continue;
        };
        if id == s.id {
            continue;
        }
        let other = SessionDir::new(state_dir, &id);
        let Some(m) = other.read_marker(session::COMPACTED) else {
            continue;
        };
        let recent = m
            .at_time()
            .and_then(|at| now.duration_since(at).ok())
            .is_some_and(|age| age <= HANDOFF_MAX_AGE);
        if recent
            && m.event.as_deref() == Some("PostCompact")
            && marker_project(&m)
                .is_some_and(|p| crate::pathcmp::same(Path::new(&p), Path::new(&project)))
        {
            found.push(other);
        }
    }
    if found.len() != 1 {
        if found.len() > 1 {
            diag!(
                "capn: {} sessions compacted in this project in the last {} minutes; not guessing which one session {} continues",
                found.len(),
                HANDOFF_MAX_AGE.as_secs() / 60,
                s.id
            );
        }
        return None;
    }
    let other = found.pop()?;
    let m = other.claim(session::COMPACTED).ok()??;
    let record = Marker {
        from_session: Some(other.id.to_string()),
        cwd: ctx.call.cwd.clone(),
        ..Marker::now(event)
    };
    if let Err(e) = s.write_marker(session::HANDOFF, &record) {
        diag!("capn: could not record the session handoff: {e:#}");
    }
    Some((other, m))
}

/// The project root a PostCompact marker names: its `project`, else the root of its `cwd`.
fn marker_project(m: &Marker) -> Option<String> {
    if let Some(p) = &m.project {
        return Some(p.clone());
    }
    let cwd = m.cwd.as_deref().filter(|c| !c.is_empty())?;
    Some(
        crate::store::find_root(Path::new(cwd))
            .display()
            .to_string(),
    )
}

/// The session whose state `s` continues, when `s` took over another's marker
/// (`handoff.json`).
pub fn continued_from(s: &SessionDir) -> Option<SessionDir> {
    let m = s.read_marker(session::HANDOFF)?;
    let id = SessionId::parse(m.from_session.as_deref()?)?;
    Some(SessionDir::new(s.path.parent()?.parent()?, &id))
}
