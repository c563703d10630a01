//! Hook subcommands (`capn hook <event> [--host claude|codex]`): read the payload on stdin
//! ([`stdin`]: bounded, and never waiting on a host that keeps the pipe open), parse it
//! leniently, act on the session's markers, and print nothing or exactly one JSON object.
//!
//! The rules every path here keeps (what the hosts accept from a hook: Claude Code's hooks docs,
//! <https://docs.anthropic.com/en/docs/claude-code/hooks>, and Codex's hook schemas in
//! `assets/codex-schemas/`):
//! - **exit 0 whatever happens**: [`guard`] turns errors and panics into a stderr note and exit 0,
//!   because Claude Code reads exit 2 as "block" on UserPromptSubmit and PreCompact;
//! - **stdout is nothing or one JSON object** in the envelope the host accepts for the event
//!   (`hookSpecificOutput.hookEventName` + `additionalContext`, on SessionStart,
//!   UserPromptSubmit, PreToolUse and SubagentStart only; never any output on PostCompact;
//!   on PreCompact plain text (the instructions for the summary) where the host makes stdout
//!   part of the summary request, and nothing where it does not ([`pre_compact`]);
//!   `{"decision":"block","reason"}` on Stop, [`stop`]), with only keys that
//!   Codex's strict schemas allow, so one shape serves both hosts;
//! - **the payload is read** even when there is nothing to do (up to EOF, or shortly after one
//!   complete JSON value when the host keeps stdin open; see [`stdin`]);
//! - the session id comes **only from stdin** and must match format.md ([`crate::session`]);
//! - diagnostics go to stderr only; injected text stays under [`text::MAX_CHARS`].
//!
//! The marker state machine (one session dir per session id, see [`crate::session`]):
//!
//! ```text
//! PreCompact        -> precompact.json {at, trigger, fresh_state}; prints the instructions
//!                      for the summary ([`summary`]) where the host takes them
//! PostCompact       -> summary-gaps.json when the summary left out what the fresh state holds;
//!                      re-arm the warning (rm context-warn.json, context-warned.json);
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
//!                      else nothing (three failed renames: the whole cost of the hot path);
//!                      beside any of these, claim summary-gaps.json => the note on it
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

pub(crate) mod bare;
pub(crate) mod call;
pub(crate) mod codex_context;
pub(crate) mod context_warn;
pub(crate) mod entry;
pub(crate) mod handoff;
pub(crate) mod json;
pub(crate) mod learn;
pub(crate) mod offer;
pub(crate) mod post_compact;
pub(crate) mod post_tool_use;
pub(crate) mod pre_compact;
pub(crate) mod pre_tool_use;
pub(crate) mod qwen_context;
pub(crate) mod reply;
pub(crate) mod session_start;
pub(crate) mod statusline;
pub(crate) mod stdin;
pub(crate) mod stop;
pub(crate) mod subagent_start;
pub(crate) mod summary;
pub(crate) mod text;
pub(crate) mod transcript;
pub(crate) mod turn;
pub(crate) mod turn_tools;
pub(crate) mod user_prompt_submit;
pub(crate) mod wire;

pub(crate) use crate::events::HookEvent;
pub(crate) use crate::hosts::Host;
use crate::session::{self, Marker, SessionDir, SessionId};
use anyhow::{Context, Result};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};
use wire::HookInput;

/// A PreCompact record older than this (relative to the compaction it is matched with) belongs
/// to an earlier compaction and is not used.
pub(crate) const PRECOMPACT_MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// Without a matching PreCompact record, a compact-delivered.json at most this old is taken to
/// cover the compaction PostCompact reports.
pub(crate) const DELIVERED_MAX_AGE: Duration = Duration::from_secs(10 * 60);

/// Runs `f` and exits 0 whatever happens: errors and panics are reported on stderr only, and a
/// stderr that cannot be written (closed, a broken pipe, `/dev/full`) changes nothing.
///
/// While `f` runs, a panic hook that ignores write errors replaces the previous one (restored
/// afterwards), so a panic is reported in one line and nothing on the way can panic again outside
/// [`std::panic::catch_unwind`].
pub(crate) fn guard(f: impl FnOnce() -> anyhow::Result<()>) -> ExitCode {
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
pub(crate) fn drain_stdin() {
    drop(stdin::read_payload());
}

/// Reads the host's payload from stdin as bytes ([`stdin::read_payload`]: bounded in size and
/// time, never waiting for a host that keeps stdin open).
pub(crate) fn read_stdin_bytes() -> Vec<u8> {
    stdin::read_payload()
}

/// Injected instead of the contract when the project's store folder is a symlink or not a
/// folder. Fixed text: the folder's target or contents are never shown.
pub(crate) const STORE_REFUSED: &str = "capn (project memory) is installed but cannot be used in \
this repository: its store folder .capn (or .capn/entries) is a symlink or not a folder, and capn \
never reads or writes its store through one. capn ask and capn chart refuse to run until it is \
replaced with a real folder (capn doctor names the cause), so searches go on as usual.\n";

/// What one hook run works with.
#[derive(Debug)]
pub(crate) struct Ctx {
    /// Which host's vocabulary and shapes to use.
    pub host: Host,
    /// The call, converted once from the wire payload ([`call::Call`]).
    pub call: call::Call,
}

impl Ctx {
    /// The call's `cwd` when absolute, else the process's; `None` when neither is known.
    pub(crate) fn cwd(&self) -> Option<std::path::PathBuf> {
        self.call
            .cwd
            .as_deref()
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::current_dir().ok())
    }

    /// The contract `text` to inject at the start of a session or sub-agent, or, when the
    /// project's store cannot be used ([`crate::store::Store::check_dirs`]: `.capn/` or
    /// `.capn/entries/` is a symlink or not a folder), [`STORE_REFUSED`] instead: the contract
    /// would send the agent to commands that refuse to run here.
    pub(crate) fn contract(&self, text: &str) -> String {
        let refused = self.cwd().is_some_and(|cwd| {
            crate::store::Store::at(crate::store::hook_root(&cwd))
                .check_dirs()
                .is_err()
        });
        if refused {
            STORE_REFUSED.to_string()
        } else {
            text.to_string()
        }
    }

    /// The session dir named by the payload's `session_id`, or `None` when there is no id or
    /// it does not match format.md (reported on stderr; nothing is written for such a payload).
    ///
    /// Errors: the state dir cannot be determined ([`session::state_dir`]).
    pub(crate) fn session(&self) -> Result<Option<SessionDir>> {
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
    pub(crate) fn marker(&self, event: HookEvent) -> Marker {
        Marker {
            trigger: self.call.trigger.clone(),
            transcript_path: self.call.transcript_path.clone(),
            cwd: self.call.cwd.clone(),
            ..Marker::now(event.name())
        }
    }
}

/// How a reply carries its `additionalContext` (see [`envelope`] and [`guest_envelope`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyShape {
    /// `hookSpecificOutput` only: what Claude Code and Codex accept (and what `--host` runs).
    Nested,
    /// A host that ran a Claude Code registration without its `args` ([`bare`]): GitHub Copilot
    /// CLI reads a top-level `additionalContext`, Cursor the nested one.
    Guest,
}

/// Runs one hook event: reads the payload ([`stdin`]), parses it, runs the event, and prints the host
/// envelope when the event has something to inject. Empty or non-JSON stdin does nothing.
/// A payload whose `hook_event_name` names a different event does nothing either (a
/// mis-registered hook must not answer in the wrong envelope).
///
/// `user`: the hook was registered for every project (`capn init --user`, the `--user` flag).
/// It then does nothing, printing nothing, in a folder without a store and in a project whose
/// own settings register capn's hook for this event ([`user_hook_answers`]; that one answers:
/// Claude Code runs an identical handler once, but these differ by the flag).
pub(crate) fn run(event: HookEvent, host: Host, user: bool) -> Result<()> {
    let bytes = read_stdin_bytes();
    let Some(input) = HookInput::parse(&bytes) else {
        if bytes.len() >= stdin::MAX_STDIN_BYTES {
            // Cut at the bound: say so, not that the (unread) rest was no JSON.
            diag!(
                "capn: hook stdin is over {} MiB, more than any payload; nothing to do",
                stdin::MAX_STDIN_BYTES >> 20
            );
        } else if !bytes.iter().all(u8::is_ascii_whitespace) {
            diag!("capn: hook stdin is not a JSON object; nothing to do");
        }
        return Ok(());
    };
    drop(bytes);
    if let Some(sent) = input.hook_event_name.as_deref() {
        if crate::hosts::event_from_wire_name(sent) != Some(event) {
            diag!(
                "capn: `capn hook` was run for {event} but the payload is for {}; nothing to do",
                crate::present::quote(sent, 64)
            );
            return Ok(());
        }
    }
    run_input(event, host, input, ReplyShape::Nested, user)
}

/// Runs `event` on a parsed payload and prints its reply in `shape` (nothing when the event has
/// nothing to inject); `user` as for [`run`].
///
/// Errors: the session state or the store could not be read or written (the caller, [`guard`],
/// reports them on stderr and exits 0).
pub(crate) fn run_input(
    event: HookEvent,
    host: Host,
    input: HookInput,
    shape: ReplyShape,
    user: bool,
) -> Result<()> {
    let ctx = Ctx {
        host,
        call: input.into(),
    };
    if user && !user_hook_answers(&ctx.call, event, host) {
        return Ok(());
    }
    let context = match event {
        HookEvent::SessionStart => session_start::run(&ctx)?,
        HookEvent::PreCompact => {
            let wanted = shape == ReplyShape::Nested
                && crate::hosts::of(host).pre_compact != crate::hosts::PreCompactReply::Nothing;
            let text = pre_compact::run(&ctx, wanted)?;
            if host.spec().pre_compact_arms_recovery {
                // No post-compact event (Copilot CLI): its preCompact is the only sign of a
                // compaction, so it also arms the recovery the next prompt delivers.
                post_compact::run(&ctx)?;
            }
            pre_compact_reply(host, shape, text)?
        }
        HookEvent::SubagentStart => subagent_start::run(&ctx)?,
        HookEvent::PostCompact => {
            post_compact::run(&ctx)?;
            None
        }
        HookEvent::UserPromptSubmit => user_prompt_submit::run(&ctx)?,
        HookEvent::PreToolUse => pre_tool_use::run(&ctx)?,
        HookEvent::PostToolUse => post_tool_use::run(&ctx)?,
        HookEvent::Stop => {
            if host.spec().context == crate::hosts::ContextSource::StopPayload {
                // No status line (Qwen Code): its Stop carries the context use.
                qwen_context::run(&ctx)?;
            }
            if let Some(reason) = stop::run(&ctx)? {
                emit(block(&reason))?;
            }
            None
        }
    };
    if let Some(text) = context {
        let reply = match shape {
            ReplyShape::Nested => host_envelope(host, event, &text),
            ReplyShape::Guest => guest_envelope(event, &text),
        };
        emit(reply)?;
    }
    let turn_over = match event {
        HookEvent::Stop => true,
        // Not Qwen Code's mid-turn repeat of the prompt event: the turn goes on.
        HookEvent::UserPromptSubmit => !user_prompt_submit::is_continuation(&ctx),
        _ => false,
    };
    if turn_over {
        // After the reply, which learning never changes: the turn's reads become phrasings.
        learn::settle(&ctx, event == HookEvent::Stop);
    }
    Ok(())
}

/// Prints PreCompact's instructions where the host takes plain text
/// ([`crate::hosts::PreCompactReply::PlainText`]: Claude Code makes them the summary request's
/// "Additional Instructions", and rejects `hookSpecificOutput` there), or returns them for the
/// envelope ([`crate::hosts::PreCompactReply::Envelope`]: capn's OpenCode plugin); nothing
/// elsewhere, nor to a host running a Claude Code registration without its `args`
/// ([`ReplyShape::Guest`]).
fn pre_compact_reply(
    host: Host,
    shape: ReplyShape,
    text: Option<String>,
) -> Result<Option<String>> {
    if shape == ReplyShape::Guest {
        return Ok(None);
    }
    match crate::hosts::of(host).pre_compact {
        crate::hosts::PreCompactReply::Nothing => Ok(None),
        crate::hosts::PreCompactReply::Envelope => Ok(text),
        crate::hosts::PreCompactReply::PlainText => {
            if let Some(t) = text {
                crate::present::print(&t).context("could not write the hook's output to stdout")?;
            }
            Ok(None)
        }
    }
}

/// Whether a hook registered with `--user` runs for this payload: the payload's folder (its
/// `cwd`, else the process's) belongs to a project with a capn store (a `.capn/` there or
/// above, or, in a linked git worktree, the main checkout's: [`crate::store::Store::discover`],
/// a few `stat` calls), and that project's settings files for `host` do not register capn's
/// hook for `event` themselves. A settings file that cannot be read counts as not registering.
fn user_hook_answers(call: &call::Call, event: HookEvent, host: Host) -> bool {
    let cwd = match call.cwd.as_deref() {
        Some(c) => std::path::PathBuf::from(c),
        None => match std::env::current_dir() {
            Ok(c) => c,
            Err(_) => return false,
        },
    };
    let store = crate::store::Store::discover(&cwd);
    if !store.usable() {
        return false;
    }
    let spec = crate::hosts::of(host);
    !spec
        .files
        .iter()
        .any(|rel| crate::install::registers_hook(&store.root.join(rel), event))
}

/// The one JSON object a hook prints: `{"hookSpecificOutput":{"hookEventName":<event>,
/// "additionalContext":<text>}}`, accepted by Claude Code and by Codex's strict schemas for
/// SessionStart, UserPromptSubmit and PreToolUse (no other keys, no nulls). `text` is cut below
/// [`text::MAX_CHARS`].
pub(crate) fn envelope(event_name: &str, text: &str) -> String {
    let v = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": event_name,
            "additionalContext": text::truncate(text.to_string()),
        }
    });
    crate::present::json_line(&v).unwrap_or_default()
}

/// The Stop reply that blocks the stop: `{"decision":"block","reason":<reason>}`, accepted by
/// Claude Code (its hooks docs, Stop) and by Codex's `stop.command.output` schema (a block needs
/// a non-blank `reason`). `reason` is cut below [`text::MAX_CHARS`].
pub(crate) fn block(reason: &str) -> String {
    let v = serde_json::json!({
        "decision": "block",
        "reason": text::truncate(reason.to_string()),
    });
    v.to_string()
}

/// The reply `host` reads for `event` ([`crate::hosts::HostSpec::reply`]): [`envelope`] with the
/// host's name for the event (Gemini CLI: `BeforeAgent`, `AfterTool`), or, for GitHub Copilot
/// CLI's own hook files, `{"additionalContext": <text>}` alone. `text` is cut below
/// [`text::MAX_CHARS`].
pub(crate) fn host_envelope(host: Host, event: HookEvent, text: &str) -> String {
    let spec = crate::hosts::of(host);
    match spec.reply {
        crate::hosts::ReplyField::Nested => envelope(spec.event_name(event), text),
        crate::hosts::ReplyField::TopLevel => {
            serde_json::json!({ "additionalContext": text::truncate(text.to_string()) }).to_string()
        }
    }
}

/// The reply to a host that ran a Claude Code registration without its `args`
/// ([`ReplyShape::Guest`]): [`envelope`] plus a top-level `additionalContext`, which is where
/// GitHub Copilot CLI reads context on sessionStart and userPromptSubmitted (it ignores
/// `hookSpecificOutput` there; docs/hosts.md, "Copilot CLI and hosts that drop `args`"),
/// while Cursor reads the nested one. On PreToolUse Copilot reads `hookSpecificOutput` and would
/// show a top-level copy as a second message, so that event gets [`envelope`] alone. Claude Code
/// never sees this shape: it always passes `args`.
pub(crate) fn guest_envelope(event: HookEvent, text: &str) -> String {
    let text = text::truncate(text.to_string());
    let nested = serde_json::json!({
        "hookEventName": event.name(),
        "additionalContext": text,
    });
    let v = if event == HookEvent::PreToolUse {
        serde_json::json!({ "hookSpecificOutput": nested })
    } else {
        serde_json::json!({ "additionalContext": text, "hookSpecificOutput": nested })
    };
    v.to_string()
}

/// Prints `reply` and a newline on stdout in one write.
fn emit(mut line: String) -> Result<()> {
    line.push('\n');
    crate::present::print(&line).context("could not write the hook's output to stdout")?;
    Ok(())
}

/// PreCompact's record for a compaction that happened at `compaction` (or now): `None` when
/// there is none, or when it is from an earlier compaction (older than [`PRECOMPACT_MAX_AGE`]
/// before it, or later than it).
pub(crate) fn precompact_for(s: &SessionDir, compaction: Option<SystemTime>) -> Option<Marker> {
    let m = s.read_marker(session::PRECOMPACT)?;
    let at = m.at_time()?;
    let when = compaction.unwrap_or_else(SystemTime::now);
    let age = when.duration_since(at).ok()?;
    (age <= PRECOMPACT_MAX_AGE).then_some(m)
}

/// The recovery text for a compaction of session `owner` (the session itself, or the one it
/// took over, see [`handoff`]): its state file and PreCompact record.
pub(crate) fn recovery_text(host: Host, owner: &SessionDir, compacted: Option<&Marker>) -> String {
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
pub(crate) fn rearm_warning(s: &SessionDir) -> Result<()> {
    offer::forget(s);
    s.remove(session::CONTEXT_WARN)?;
    s.remove(session::CONTEXT_WARNED)
}

/// Runs garbage collection when due (at most daily), reporting failures on stderr only.
pub(crate) fn gc_when_due(keep: Option<&SessionId>) {
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
