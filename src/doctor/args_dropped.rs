//! Doctor check: capn's Claude Code registrations still work when a host runs them without their
//! exec-form `args`, as GitHub Copilot CLI does (and, per its docs, Cursor may): the bare `capn`
//! must exit 0, put the contract where Copilot reads it at session start, and never deny a tool
//! (a failing preToolUse hook denies the tool call in Copilot; see [`crate::hook::bare`]).
//! Except for the events whose job the project's Copilot CLI hook file registers capn's hook for
//! ([`crate::install::more_hosts::guest_file`]): Copilot runs that file too, so the bare `capn`
//! must print nothing for them (its file's run answers), and a reply is a failure.

use super::hook_runs::{exit_problem, payload, run_captured, Runs};
use super::registrations::Found;
use super::{safe_run, Check};
use crate::hook::HookEvent;
use crate::hosts::HostSpec;
use crate::install::more_hosts::{guest_file, GuestFile};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// How long one bare run may take.
const BUDGET: Duration = Duration::from_secs(5);

/// Runs the `command` of the first exec-form registration of `spec`'s (Claude Code's: the bare
/// `capn`, no arguments) with a SessionStart and a PreToolUse payload, as `guest` (the host that
/// runs them without `args`: [`crate::hosts::HostSpec::runs_hooks_of`]) would, in `dir` as the
/// state dir; one check. It expects what [`crate::hook::bare`] does in this project: silence for
/// an event whose job Copilot's own file registers capn's hook for, a reply (at session start,
/// the contract) otherwise.
pub(super) fn check(
    (spec, guest): (&HostSpec, &HostSpec),
    root: &Path,
    dir: &Path,
    found: &Found,
    checks: &mut Vec<Check>,
) {
    let Some(command) = found
        .ours
        .iter()
        .filter(|o| o.handler.get("args").is_some_and(Value::is_array))
        .find_map(|o| o.handler.get("command").and_then(Value::as_str))
    else {
        return;
    };
    let what = "Claude Code hooks run without their args (as Copilot CLI runs them)";
    let guest_events = match guest_file(root) {
        GuestFile::Registers(rel, events) => Some((rel, events)),
        GuestFile::Absent | GuestFile::Unusable(..) => None,
    };
    // The file whose run answers an event in the bare run's place, if any.
    let stands_back = |event: HookEvent| {
        guest_events
            .as_ref()
            .filter(|(_, events)| events.iter().any(|e| e.same_duty(event)))
            .map(|(rel, _)| rel.as_str())
    };
    let mut silent = Vec::new();
    let run = match safe_run::check(&[command.to_string()], root) {
        Ok(run) => run,
        Err(why) => return checks.push(Check::warn(what, why, None)),
    };
    for (event, detail) in [
        (HookEvent::SessionStart, "startup"),
        (HookEvent::PreToolUse, ""),
    ] {
        let bytes = payload(
            spec.host,
            event,
            Some(detail),
            "capn-doctor-bare",
            root,
            &dir.join("t.jsonl"),
        );
        let mut cmd = safe_run::command(&run, None);
        cmd.current_dir(root)
            .env(crate::session::STATE_DIR_ENV, dir);
        if let Some(var) = spec.project_dir_var {
            cmd.env_remove(var);
        }
        let out = run_captured(cmd, bytes.to_string().as_bytes(), BUDGET);
        let secs = BUDGET.as_secs_f64();
        let problem = exit_problem(
            Runs::Hook(guest.host, event),
            &run.program,
            &out,
            BUDGET,
            secs,
        )
        .or_else(|| match stands_back(event) {
            Some(rel) => silence_problem(rel, &out.stdout),
            None => reply_problem(event, &out.stdout),
        });
        if stands_back(event).is_some() {
            silent.push(event.name());
        }
        if let Some(why) = problem {
            let fix =
                "upgrade capn (0.3 exits 1 here, and Copilot CLI then denies every tool call)";
            return checks.push(Check::failed(what, format!("{event}: {why}"), fix));
        }
    }
    let rel = guest_events.as_ref().map_or("", |(rel, _)| rel.as_str());
    checks.push(Check::ok(ok_line(what, &silent, rel, guest.name)));
}

/// The ok line of [`check`]: `silent` names the events of the two checked (SessionStart,
/// PreToolUse) for which the bare run stood back, as the host's file `rel` registers capn's
/// own hook for them (`guest`: that host's name).
fn ok_line(what: &str, silent: &[&str], rel: &str, guest: &str) -> String {
    match silent.len() {
        0 => format!("{what}: exit 0, the contract at session start, no tool denied"),
        2 => format!(
            "{what}: exit 0 and silent, as they should be: {rel} registers capn's own {guest} hooks, whose run answers"
        ),
        _ => format!(
            "{what}: exit 0, no tool denied; silent for {} as they should be ({rel} registers capn's own {guest} hook for it, whose run answers), answering the rest",
            silent.join(", ")
        ),
    }
}

/// What is wrong with a bare run's stdout where the host's own file `rel` registers capn's
/// hooks: anything at all (the host would get it twice).
fn silence_problem(rel: &str, stdout: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stdout);
    (!text.trim().is_empty()).then(|| {
        format!(
            "printed {} bytes although {rel} registers capn's own hooks, which answer too",
            stdout.len()
        )
    })
}

/// What is wrong with a bare run's stdout for `event`: not one JSON object, a denial or block,
/// or (SessionStart) no top-level `additionalContext`.
fn reply_problem(event: HookEvent, stdout: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stdout);
    if text.trim().is_empty() {
        return (event == HookEvent::SessionStart)
            .then(|| "printed nothing: Copilot CLI gets no contract".to_string());
    }
    let Ok(v) = serde_json::from_str::<Value>(text.trim()) else {
        return Some("stdout is not one JSON object".to_string());
    };
    let denies = v
        .pointer("/hookSpecificOutput/permissionDecision")
        .and_then(Value::as_str)
        == Some("deny")
        || v.get("decision").and_then(Value::as_str) == Some("block");
    if denies {
        return Some("the reply denies or blocks".to_string());
    }
    let top = v.get("additionalContext").and_then(Value::as_str);
    (event == HookEvent::SessionStart && top.is_none_or(str::is_empty))
        .then(|| "no top-level additionalContext: Copilot CLI gets no contract".to_string())
}
