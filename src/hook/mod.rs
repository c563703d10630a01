//! Hook subcommands (`capn hook <event> [--host claude|codex]`): read the payload on stdin
//! ([`stdin`]: bounded, and never waiting on a host that keeps the pipe open), parse it
//! leniently, act on the session's markers, and print nothing or exactly one JSON object.
//!
//! The rules every path here keeps (hooks reference, section 7):
//! - **exit 0 whatever happens**: [`guard`] turns errors and panics into a stderr note and exit 0,
//!   because Claude Code reads exit 2 as "block" on UserPromptSubmit and PreCompact;
//! - **stdout is nothing or one JSON object** in the envelope the host accepts for the event
//!   (`hookSpecificOutput.hookEventName` + `additionalContext`, on SessionStart,
//!   UserPromptSubmit and PreToolUse only; never any output on PreCompact/PostCompact), with only keys that
//!   Codex's strict schemas allow, so one shape serves both hosts;
//! - **the payload is read** even when there is nothing to do (up to EOF, or shortly after one
//!   complete JSON value when the host keeps stdin open; see [`stdin`]);
//! - the session id comes **only from stdin** and must match format.md ([`crate::session`]);
//! - diagnostics go to stderr only; injected text stays under [`text::MAX_CHARS`].
//!
//! The marker state machine (one session dir per session id, see [`crate::session`]):
//!
//! ```text
//! PreCompact        -> precompact.json {at, trigger, fresh_state}            (no output)
//! PostCompact       -> re-arm the warning (rm context-warn.json, context-warned.json);
//!                      unless SessionStart(compact) already delivered this compaction
//!                      (compact-delivered.json newer than precompact.json): compacted.json
//! SessionStart(compact) -> compact-delivered.json, claim compacted.json if there (else, for a
//!                      new id continuing the conversation, another session's: [`handoff`]),
//!                      re-arm the warning, inject the recovery instructions
//! UserPromptSubmit  -> claim compacted.json    => inject recovery
//!                      else claim context-warn.json => inject the reminder
//!                      else (Codex) context use from the rollout crosses the threshold =>
//!                      the reminder ([`codex_context`])
//!                      else, for a session never seen, another session's marker ([`handoff`])
//!                      else nothing (two failed renames: the whole cost of the hot path)
//! statusline        -> use >= threshold and no context-warned.json => context-warn.json +
//!                      context-warned.json
//! ```
//!
//! SessionStart(compact) and PostCompact fire within milliseconds of each other, in either order
//! (a real capture has SessionStart 60 ms first), possibly in parallel. Each writes its own record
//! and then looks for the other's: SessionStart writes compact-delivered.json and then claims the
//! marker; PostCompact checks compact-delivered.json, writes the marker, and checks again,
//! claiming its own marker back if SessionStart delivered in between. Whatever the interleaving,
//! the recovery is delivered exactly once.

pub mod call;
pub mod codex_context;
pub mod handoff;
pub mod json;
pub mod offer;
pub mod post_compact;
pub mod pre_compact;
pub mod pre_tool_use;
pub mod reply;
pub mod session_start;
pub mod statusline;
pub mod stdin;
pub mod text;
pub mod transcript;
pub mod user_prompt_submit;
pub mod wire;

pub use crate::events::HookEvent;
pub use crate::hosts::Host;
use crate::session::{self, Marker, SessionDir, SessionId};
use anyhow::{Context, Result};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};
use wire::HookInput;

/// A PreCompact record older than this (relative to the compaction it is matched with) belongs
/// to an earlier compaction and is not used.
pub const PRECOMPACT_MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// Without a matching PreCompact record, a compact-delivered.json at most this old is taken to
/// cover the compaction PostCompact reports.
pub const DELIVERED_MAX_AGE: Duration = Duration::from_secs(10 * 60);

/// Runs `f` and exits 0 whatever happens: errors and panics are reported on stderr only, and a
/// stderr that cannot be written (closed, a broken pipe, `/dev/full`) changes nothing.
///
/// While `f` runs, a panic hook that ignores write errors replaces the previous one (restored
/// afterwards), so a panic is reported in one line and nothing on the way can panic again outside
/// [`std::panic::catch_unwind`].
pub fn guard(f: impl FnOnce() -> anyhow::Result<()>) -> ExitCode {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        diag!("capn: internal error (panic) in a hook; ignored: {info}");
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    match outcome {
        Ok(Ok(())) | Err(_) => {}
        Ok(Err(e)) if crate::error::is_broken_pipe(&e) => {}
        Ok(Err(e)) => diag!("capn: {e:#}"),
    }
    ExitCode::SUCCESS
}

/// Reads and discards the host's payload (the host may otherwise see a broken pipe), with
/// [`stdin::read_payload`]'s bounds.
pub fn drain_stdin() {
    drop(stdin::read_payload());
}

/// Reads the host's payload from stdin as bytes ([`stdin::read_payload`]: bounded in size and
/// time, never waiting for a host that keeps stdin open).
pub fn read_stdin_bytes() -> Vec<u8> {
    stdin::read_payload()
}

/// What one hook run works with.
#[derive(Debug)]
pub struct Ctx {
    /// Which host's vocabulary and shapes to use.
    pub host: Host,
    /// The call, converted once from the wire payload ([`call::Call`]).
    pub call: call::Call,
}

impl Ctx {
    /// The session dir named by the payload's `session_id`, or `None` when there is no id or
    /// it does not match format.md (reported on stderr; nothing is written for such a payload).
    ///
    /// Errors: the state dir cannot be determined ([`session::state_dir`]).
    pub fn session(&self) -> Result<Option<SessionDir>> {
        let Some(raw) = self.call.session_id.as_deref() else {
            return Ok(None);
        };
        let Some(id) = SessionId::parse(raw) else {
            diag!(
                "capn: refusing session_id {}: it does not match ^[A-Za-z0-9][A-Za-z0-9._-]{{0,127}}$",
                crate::present::Foreign::new(raw).quoted(64)
            );
            return Ok(None);
        };
        Ok(Some(SessionDir::new(&session::state_dir()?, &id)))
    }

    /// A marker for `event` stamped now, carrying the payload's trigger, transcript and cwd.
    pub fn marker(&self, event: HookEvent) -> Marker {
        Marker {
            trigger: self.call.trigger.clone(),
            transcript_path: self.call.transcript_path.clone(),
            cwd: self.call.cwd.clone(),
            ..Marker::now(event.name())
        }
    }
}

/// Runs one hook event: reads the payload ([`stdin`]), parses it, runs the event, and prints the host
/// envelope when the event has something to inject. Empty or non-JSON stdin does nothing.
/// A payload whose `hook_event_name` names a different event does nothing either (a
/// mis-registered hook must not answer in the wrong envelope).
pub fn run(event: HookEvent, host: Host) -> Result<()> {
    let bytes = read_stdin_bytes();
    let Some(input) = HookInput::parse(&bytes) else {
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            diag!("capn: hook stdin is not a JSON object; nothing to do");
        }
        return Ok(());
    };
    drop(bytes);
    let name = event.name();
    if let Some(sent) = input.hook_event_name.as_deref() {
        if sent != name {
            diag!(
                "capn: `capn hook` was run for {name} but the payload is {sent:?}; nothing to do"
            );
            return Ok(());
        }
    }
    let ctx = Ctx {
        host,
        call: input.into(),
    };
    let context = match event {
        HookEvent::SessionStart => session_start::run(&ctx)?,
        HookEvent::PreCompact => {
            pre_compact::run(&ctx)?;
            None
        }
        HookEvent::PostCompact => {
            post_compact::run(&ctx)?;
            None
        }
        HookEvent::UserPromptSubmit => user_prompt_submit::run(&ctx)?,
        HookEvent::PreToolUse => pre_tool_use::run(&ctx)?,
    };
    if let Some(text) = context {
        emit(name, &text)?;
    }
    Ok(())
}

/// The one JSON object a hook prints: `{"hookSpecificOutput":{"hookEventName":<event>,
/// "additionalContext":<text>}}`, accepted by Claude Code and by Codex's strict schemas for
/// SessionStart, UserPromptSubmit and PreToolUse (no other keys, no nulls). `text` is cut below
/// [`text::MAX_CHARS`].
pub fn envelope(event_name: &str, text: &str) -> String {
    let v = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": event_name,
            "additionalContext": text::truncate(text.to_string()),
        }
    });
    crate::present::json_line(&v).unwrap_or_default()
}

/// Prints [`envelope`] and a newline on stdout in one write.
fn emit(event_name: &str, text: &str) -> Result<()> {
    let mut line = envelope(event_name, text);
    line.push('\n');
    crate::present::print(&line).context("could not write the hook's output to stdout")?;
    Ok(())
}

/// PreCompact's record for a compaction that happened at `compaction` (or now): `None` when
/// there is none, or when it is from an earlier compaction (older than [`PRECOMPACT_MAX_AGE`]
/// before it, or later than it).
pub fn precompact_for(s: &SessionDir, compaction: Option<SystemTime>) -> Option<Marker> {
    let m = s.read_marker(session::PRECOMPACT)?;
    let at = m.at_time()?;
    let when = compaction.unwrap_or_else(SystemTime::now);
    let age = when.duration_since(at).ok()?;
    (age <= PRECOMPACT_MAX_AGE).then_some(m)
}

/// The recovery text for a compaction of session `owner` (the session itself, or the one it
/// took over, see [`handoff`]): its state file and PreCompact record.
pub fn recovery_text(host: Host, owner: &SessionDir, compacted: Option<&Marker>) -> String {
    let pre = precompact_for(owner, compacted.and_then(Marker::at_time));
    let state_file = owner.state_file();
    text::Recovery {
        host,
        state_file: &state_file,
        state_saved_at: owner.state_saved_at(),
        precompact: pre.as_ref(),
        compacted,
    }
    .render()
}

/// After a compaction: removes the context-warning marker and record, so the next crossing warns
/// again (a compaction brings the context use down), and forgets what was offered (the context
/// the offers were made in is gone: [`offer::forget`]).
pub fn rearm_warning(s: &SessionDir) -> Result<()> {
    offer::forget(s);
    s.remove(session::CONTEXT_WARN)?;
    s.remove(session::CONTEXT_WARNED)
}

/// Runs garbage collection when due (at most daily), reporting failures on stderr only.
pub fn gc_when_due(keep: Option<&SessionId>) {
    let r = session::state_dir().and_then(|d| session::maybe_gc(&d, keep));
    if let Err(e) = r {
        diag!("capn: garbage collection skipped: {e:#}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_turns_errors_and_panics_into_exit_0() {
        assert_eq!(guard(|| Ok(())), ExitCode::SUCCESS);
        assert_eq!(guard(|| anyhow::bail!("boom")), ExitCode::SUCCESS);
        assert_eq!(guard(|| panic!("boom")), ExitCode::SUCCESS);
    }

    #[test]
    fn envelope_has_exactly_the_accepted_keys() {
        let v: serde_json::Value =
            serde_json::from_str(&envelope("UserPromptSubmit", "hello")).unwrap();
        let obj = v.as_object().unwrap();
        assert_eq!(obj.keys().collect::<Vec<_>>(), ["hookSpecificOutput"]);
        let h = obj["hookSpecificOutput"].as_object().unwrap();
        assert_eq!(
            h.keys().collect::<Vec<_>>(),
            ["hookEventName", "additionalContext"]
        );
        assert_eq!(h["hookEventName"], "UserPromptSubmit");
    }

    #[test]
    fn envelope_cuts_long_text() {
        let v: serde_json::Value =
            serde_json::from_str(&envelope("SessionStart", &"x".repeat(10_000))).unwrap();
        let t = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(t.chars().count() < text::MAX_CHARS);
    }

    #[test]
    fn precompact_record_is_matched_by_age() {
        let tmp = tempfile::tempdir().unwrap();
        let s = SessionDir::new(tmp.path(), &SessionId::parse("p").unwrap());
        assert!(precompact_for(&s, None).is_none());
        s.write_marker(session::PRECOMPACT, &Marker::now("PreCompact"))
            .unwrap();
        assert!(precompact_for(&s, None).is_some());
        let later = SystemTime::now() + Duration::from_secs(2 * 3600);
        assert!(precompact_for(&s, Some(later)).is_none());
        let earlier = SystemTime::now() - Duration::from_secs(60);
        assert!(precompact_for(&s, Some(earlier)).is_none());
    }
}
