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
//! **A first hook that is not SessionStart.** SessionStart(compact)
//! under a new id is the host saying "this continues a compacted conversation"; a first
//! UserPromptSubmit says nothing of the kind: it is as likely another window (one whose
//! SessionStart never ran, a fork under capn 0.3's matcher, a host that sends none). Knowing no
//! other session of the project proves nothing (the other window may simply never have had a
//! SessionStart), so such a session B takes A's recovery only when the payload proves B
//! continues A's conversation: B's `transcript_path` is the one A's PostCompact marker recorded
//! (the host writes the continued conversation to the same file). Then the marker is claimed by
//! rename as on SessionStart(compact), so it is delivered once. In every other case B gets
//! nothing: two windows never swap or share recoveries.
//!
//! On SessionStart(compact) the marker is claimed by rename ([`SessionDir::claim`]), so A's own
//! next prompt and B cannot both deliver it. B records `handoff.json` (`from_session: A`), which
//! `capn state show` uses to find A's state while B has none of its own.

use super::{Ctx, HookEvent};
use crate::session::{self, Marker, SessionDir};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The oldest a PostCompact marker may be for another session id to take it over.
pub(crate) const HANDOFF_MAX_AGE: Duration = Duration::from_secs(10 * 60);

/// How a session comes to look for another's recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// SessionStart(compact) under an id new to the compaction: the marker is claimed.
    SessionStartCompact,
    /// The first prompt of a session no SessionStart ran for: the marker is claimed only when the
    /// prompt's `transcript_path` is the one the marker recorded (module docs).
    FirstPrompt,
}

/// The project root of a hook payload (see [`crate::store::hook_root`]), as a string.
pub(crate) fn project_of(ctx: &Ctx) -> Option<String> {
    Some(ctx.call.project_root()?.display().to_string())
}

/// Finds, claims and records the takeover of another session's
/// undelivered compaction marker for session `s` (see the module docs for the rules; the caller
/// checks that `s` is new). Returns the session taken over and its marker.
pub(crate) fn take_over(
    ctx: &Ctx,
    s: &SessionDir,
    arrival: Arrival,
) -> Option<(SessionDir, Marker)> {
    let project = project_of(ctx)?;
    let state_dir = s.path.parent()?.parent()?;
    let mut found = candidates(state_dir, s, &project);
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
    let (other, marker) = found.pop()?;
    let (marker, event) = match arrival {
        Arrival::SessionStartCompact => {
            let m = other.claim(session::COMPACTED).ok()??;
            (m, HookEvent::SessionStart)
        }
        Arrival::FirstPrompt => {
            if !same_transcript(ctx.call.transcript_path.as_deref(), &marker) {
                diag!(
                    "capn: session {} did not start with SessionStart and does not write session {}'s transcript; its recovery is left for it",
                    s.id,
                    other.id
                );
                return None;
            }
            let m = other.claim(session::COMPACTED).ok()??;
            (m, HookEvent::UserPromptSubmit)
        }
    };
    let record = Marker {
        from_session: Some(other.id.to_string()),
        cwd: ctx.call.cwd.clone(),
        ..Marker::now(event.name())
    };
    if let Err(e) = s.write_marker(session::HANDOFF, &record) {
        diag!("capn: could not record the session handoff: {e:#}");
    }
    Some((other, marker))
}

/// True when a first prompt's `transcript_path` is the one a PostCompact marker recorded (both
/// present and non-empty): the payload proves it continues that conversation.
fn same_transcript(transcript: Option<&str>, m: &Marker) -> bool {
    match (transcript, m.transcript_path.as_deref()) {
        (Some(a), Some(b)) => !a.is_empty() && a == b,
        _ => false,
    }
}

/// The sessions other than `s` with an undelivered, recent PostCompact marker for `project`,
/// with it.
fn candidates(state_dir: &Path, s: &SessionDir, project: &str) -> Vec<(SessionDir, Marker)> {
    let now = SystemTime::now();
    let mut found = Vec::new();
    // Only the sessions that compacted lately are listed there, whatever the sessions kept.
    for id in session::recently_compacted(state_dir, HANDOFF_MAX_AGE) {
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
            && m.event.as_deref() == Some(HookEvent::PostCompact.name())
            && marker_project(&m)
                .is_some_and(|p| crate::pathcmp::same(Path::new(&p), Path::new(&project)))
        {
            found.push((other, m));
        }
    }
    found
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
