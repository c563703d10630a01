//! Doctor check: the registered commands as a GUI launcher starts the host. An app opened from
//! the Dock or a desktop menu does not read the user's shell start-up files, so the hooks it runs
//! get a minimal `PATH` ([`LAUNCHER_PATH`]); a bare `capn` installed in `~/.cargo/bin` then fails
//! with exit 127 (command not found) on every hook, while a terminal-started host works.
//!
//! Each distinct registered capn command (hooks of the hosts checked and the statusline) is started
//! once with `PATH` set to [`LAUNCHER_PATH`] and an empty stdin (on which every capn hook does
//! nothing and exits 0). When some cannot start but `capn` is on the user's own `PATH`, the check
//! says that `capn` resolves only through the shell's `PATH` and how to fix it without changing
//! the committed settings, which keep the bare name so they work for every teammate.

use super::{
    collect, effective_statusline, invocation, run_captured, safe_run, Check, Loaded, OnPath,
};
use crate::hook::Host;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The `PATH` a GUI launcher gives the processes it starts (macOS launchd's default; desktop
/// sessions without a login shell are alike), unless [`LAUNCHER_PATH_ENV`] names another.
pub(super) const LAUNCHER_PATH: &str = "/usr/bin:/bin";

/// Environment variable naming the `PATH` your launcher gives (when it is not
/// [`LAUNCHER_PATH`]).
pub(super) const LAUNCHER_PATH_ENV: &str = crate::env::LAUNCHER_PATH;

/// The launcher `PATH` to test with: [`LAUNCHER_PATH_ENV`] when set, else [`LAUNCHER_PATH`] on
/// Unix. `None` on Windows without [`LAUNCHER_PATH_ENV`]: there every program, started from the
/// Start menu or a terminal, gets `PATH` from the user's and the system's environment in the
/// registry (no shell start-up file adds to it), so a launcher's `PATH` is the user's own and
/// the check has nothing to find.
fn launcher_path() -> Option<String> {
    crate::env::get(LAUNCHER_PATH_ENV).or_else(|| {
        if cfg!(windows) {
            None
        } else {
            Some(LAUNCHER_PATH.to_string())
        }
    })
}

/// Budget for one start (the hooks do nothing on empty stdin).
const BUDGET: Duration = Duration::from_secs(2);

/// Runs the check for the capn commands registered in `files` and the effective statusline;
/// `path` is where `capn` is on the user's `PATH`. `sandbox` receives the runs' state dir.
pub(super) fn check(
    files: &[Loaded],
    root: &Path,
    sandbox: &Path,
    path: &OnPath,
    checks: &mut Vec<Check>,
) {
    let on_path = match path {
        OnPath::Missing => None,
        OnPath::Same => std::env::current_exe().ok(),
        OnPath::Other(p) => Some(p.clone()),
    };
    let on_path = on_path.as_deref();
    let commands = registered_commands(files);
    if commands.is_empty() {
        return;
    }
    let Some(launcher) = launcher_path() else {
        return;
    };
    // A bare `capn` would be looked up on the launcher's PATH: never one inside the project.
    if let Some(found) = safe_run::first_on_path(Some(launcher.as_ref()))
        .filter(|found| crate::fsutil::lies_inside(found, root))
    {
        checks.push(Check::failed(
            format!("capn hooks with a launcher's PATH ({launcher})"),
            format!(
                "a bare `capn` there is {}, inside this project: the hooks would run the repository's own code; doctor does not start it",
                found.display()
            ),
            "take the project's folder off the launcher's PATH".to_string(),
        ));
        return;
    }
    let mut failing: Vec<String> = Vec::new();
    for (host, handler) in &commands {
        // Only capn's own command lines, without a shell (see safe_run).
        let Ok(inv) = invocation(*host, handler, root) else {
            continue;
        };
        let mut cmd = safe_run::command(&inv, Some(launcher.as_ref()));
        cmd.current_dir(root)
            .env(crate::session::STATE_DIR_ENV, sandbox)
            .env_remove("CLAUDE_ENV_FILE")
            .env_remove("CAPN_SESSION_ID");
        let out = run_captured(cmd, b"", BUDGET);
        if out.not_found() {
            failing.push(format!("`{}`", crate::install::command_line(handler)));
        }
    }
    let what = format!("capn hooks with a launcher's PATH ({launcher})");
    if failing.is_empty() {
        checks.push(Check::ok(format!(
            "{what}: all {} registered commands start",
            commands.len()
        )));
        return;
    }
    // Where the shell finds `capn` (not resolved through symlinks): its folder is the PATH
    // entry a launcher lacks; the resolved binary is no PATH entry.
    let found = crate::env::get_os(crate::env::PATH)
        .and_then(|p| super::path::find_on_path_in(&p).0)
        .or_else(|| on_path.map(Path::to_path_buf));
    let why = why_text(found.as_deref(), &launcher, &failing);
    let target = found
        .as_deref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "$(command -v capn)".to_string());
    checks.push(Check::warn(
        what,
        why,
        Some(format!(
            "keep the bare `capn` in committed settings (it works for every teammate) and make \
             it reachable where launchers look: sudo ln -sf {target} /usr/bin/capn; or give GUI \
             apps your PATH (macOS: sudo launchctl config user path \"$PATH\", then log out and \
             in; Linux desktops: a line PATH=... in ~/.config/environment.d/capn.conf); or start \
             the host from a terminal"
        )),
    ));
}

/// Each distinct capn command registered for a host whose settings doctor read (`files`), and
/// the effective statusline when it is ours (a shell command, run like a Codex handler).
fn registered_commands(files: &[Loaded]) -> Vec<(Host, Value)> {
    let mut commands: Vec<(Host, Value)> = Vec::new();
    for spec in crate::hosts::ALL.into_iter().filter(|s| !s.whole_file) {
        let found = collect(spec, files);
        for o in &found.ours {
            let h = (spec.host, o.handler.clone());
            if o.handler.get("type").and_then(Value::as_str) == Some("command")
                && !commands.contains(&h)
            {
                commands.push(h);
            }
        }
    }
    if let Some((_, sl)) = effective_statusline(files) {
        let cmd = sl.get("command").and_then(Value::as_str).unwrap_or("");
        if crate::install::is_our_statusline(cmd) {
            // The statusline is a shell command (Claude Code's status line docs): without
            // `args`, the host whose status line it is runs it as a shell line.
            let host = crate::hosts::always()
                .find(|s| s.context == crate::hosts::ContextSource::StatusLine);
            commands.extend(host.map(|s| (s.host, serde_json::json!({"command": cmd}))));
        }
    }
    commands
}

/// Why the commands in `failing` do not start with the launcher's `PATH`; `found` is where the
/// shell's `PATH` finds `capn`, and its folder is named as the PATH entry.
fn why_text(found: Option<&Path>, launcher: &str, failing: &[String]) -> String {
    match found {
        Some(p) => format!(
            "`capn` resolves only through your shell's PATH, by its entry {}; a host started \
             from a GUI launcher (Dock, desktop menu) runs hooks with PATH={launcher}, where {} \
             cannot start (exit 127: command not found)",
            p.parent().unwrap_or(p).display(),
            failing.join(", ")
        ),
        None => format!(
            "{} cannot start with PATH={launcher} (exit 127: command not found)",
            failing.join(", ")
        ),
    }
}
