//! A bare `capn` with a hook payload on stdin: a host ran one of capn's Claude Code registrations
//! without its `args`.
//!
//! `capn init` registers Claude Code hooks in the exec form (`"command": "capn", "args": ["hook",
//! "session-start"]`; Claude Code's hooks docs). Hosts that also run `.claude/settings.json` hooks
//! but do not know `args` run the bare `capn`: GitHub Copilot CLI does (and treats a failing
//! preToolUse hook as a denial of the tool call), Gemini CLI and Qwen Code ignore `args` in their
//! own files too (docs/hosts.md). So a bare `capn` whose stdin is a JSON
//! object is a hook run: the event comes from the payload's `hook_event_name` (any host's
//! spelling, [`crate::hosts::event_from_wire_name`]) and the reply takes the [`ReplyShape::Guest`] shape
//! the hosts that drop `args` read. Whatever the payload holds, the run exits 0 (the caller
//! wraps it in [`super::guard`]): an event capn does not handle, or a payload it cannot place,
//! gets no output. Nor does a folder without a capn store (no `.capn/` there or above, nor a
//! main checkout's for a linked worktree): the bare `capn` may be a registration of
//! `capn init --user` that lost its `--user` with its `args`, and those are silent there. Nor
//! does an event whose job the project's Copilot CLI hook file registers a capn hook for
//! ([`crate::install::more_hosts::guest_file`], [`HookEvent::same_duty`]): Copilot runs that
//! file too, and its run answers.

use super::wire::HookInput;
use super::{HookEvent, ReplyShape};
use anyhow::Result;

/// Runs the hook a bare `capn` was given `bytes` (its whole stdin) for: prints the reply, or
/// nothing for a payload that is not a JSON object or names no event capn handles.
///
/// Errors: as [`super::run_input`] (reported on stderr by [`super::guard`], exit 0).
pub(crate) fn run(bytes: &[u8]) -> Result<()> {
    let Some(input) = HookInput::parse(bytes) else {
        diag!("capn: no command given, and stdin is not a hook payload; nothing to do (capn --help lists the commands)");
        return Ok(());
    };
    // An event capn does not answer (SessionEnd, Notification, ...) gets nothing, not
    // even a note: the host runs every registration it finds, and a note on each would be noise.
    let Some(event) = event_of(&input).filter(|e| *e != HookEvent::Stop) else {
        // Stop too: the nudge blocks the stop, and whether a host that drops args (Copilot CLI's
        // agentStop) continues the agent on a block, or reads the turn from a transcript capn
        // knows, is not established; the nudge runs where it is (Claude Code, Codex).
        return Ok(());
    };
    // No store, no answer: a user registration that lost its `--user` stays silent where
    // there is no store, as it does with it ([`super::run`]).
    let cwd = match input.cwd.as_deref() {
        Some(c) => std::path::PathBuf::from(c),
        None => match std::env::current_dir() {
            Ok(c) => c,
            Err(_) => return Ok(()),
        },
    };
    if !crate::store::Store::discover(&cwd).exists() {
        return Ok(());
    }
    // Copilot CLI runs capn's own file too when the project has one that registers capn's
    // hook for this event's job: that run answers. A file it cannot run capn from (not JSON, no
    // `capn hook` line), or one without this job, answers nothing for it, so this run does.
    let root = super::call::Call::from(input.clone()).project_root();
    let guest = root.map(|r| crate::install::more_hosts::guest_file(&r));
    if let Some(crate::install::more_hosts::GuestFile::Registers(_, events)) = guest {
        if events.iter().any(|e| e.same_duty(event)) {
            return Ok(());
        }
    }
    // The payloads of hosts that run another host's registrations are shaped as that host's
    // (Claude Code's: snake_case fields, its tool names), so its vocabulary reads them.
    let host = crate::hosts::ALL
        .iter()
        .find_map(|s| s.runs_hooks_of)
        .unwrap_or_default();
    super::run_input(event, host, input, ReplyShape::Guest, false)
}

/// The event a payload is for: its `hook_event_name`; without one, the event whose own field it
/// carries (`source`: SessionStart, `prompt`: UserPromptSubmit). A tool payload without a name
/// is left alone: it could be a PostToolUse, which capn does not answer.
pub(crate) fn event_of(input: &HookInput) -> Option<HookEvent> {
    match input.hook_event_name.as_deref() {
        Some(name) => crate::hosts::event_from_wire_name(name),
        None if input.source.is_some() => Some(HookEvent::SessionStart),
        None if input.prompt.is_some() && input.tool_name.is_none() => {
            Some(HookEvent::UserPromptSubmit)
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(json: &str) -> Option<HookEvent> {
        event_of(&HookInput::parse(json.as_bytes()).unwrap())
    }

    #[test]
    fn the_event_comes_from_the_name_in_any_spelling_or_from_its_field() {
        assert_eq!(
            event(r#"{"hook_event_name":"PreToolUse","tool_name":"Grep"}"#),
            Some(HookEvent::PreToolUse)
        );
        assert_eq!(
            event(r#"{"hook_event_name":"userPromptSubmitted"}"#),
            Some(HookEvent::UserPromptSubmit)
        );
        assert_eq!(
            event(r#"{"hook_event_name":"AfterTool"}"#),
            Some(HookEvent::PostToolUse)
        );
        assert_eq!(event(r#"{"hook_event_name":"Notification"}"#), None);
        assert_eq!(event(r#"{"hook_event_name":"SessionEnd"}"#), None);
        assert_eq!(event(r#"{"source":"new"}"#), Some(HookEvent::SessionStart));
        assert_eq!(
            event(r#"{"prompt":"hi"}"#),
            Some(HookEvent::UserPromptSubmit)
        );
        assert_eq!(event(r#"{"tool_name":"Grep","tool_input":{}}"#), None);
        assert_eq!(event(r#"{}"#), None);
    }
}
