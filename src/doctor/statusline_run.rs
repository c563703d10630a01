//! Doctor check 5 (hook runs), the status line: capn's Claude Code status line run once as the
//! host runs it, and the command it wraps looked for (never run).

use super::*;
use safe_run::SafeRun as Invocation;

/// Runs the effective Claude Code status line (the last settings file that sets one) when it
/// is capn's, the way Claude Code would (the payload on stdin, a state dir under `dir`, within
/// [`STATUSLINE_BUDGET`]), and adds a check: one line with capn's segment, or why not. A status
/// line that is not capn's, or that doctor will not run ([`safe_run::check`]), adds a warning or
/// nothing; a `--wrap`ped command is never run, only looked for ([`missing_program`]).
pub(super) fn run_statusline(
    root: &Path,
    dir: &Path,
    files: &[Loaded],
    path: &OnPath,
    checks: &mut Vec<Check>,
) {
    let Some((rel, command, inv)) = our_statusline(root, files, path, checks) else {
        return;
    };
    judge_run(root, dir, rel, &command, &inv, checks);
    warn_missing_wrapped(root, rel, &command, checks);
}

/// The file that sets the status line, its command and how doctor runs it, when the status line
/// is capn's and doctor can run it; otherwise `None` (with a check saying why, where there is
/// something to say).
fn our_statusline<'a>(
    root: &Path,
    files: &'a [Loaded],
    path: &OnPath,
    checks: &mut Vec<Check>,
) -> Option<(&'a str, String, Invocation)> {
    let (rel, sl) = effective_statusline(files)?;
    let command = sl.get("command").and_then(Value::as_str)?;
    if !install::is_our_statusline(command) {
        return None;
    }
    let checked = safe_run::split_shell(command)
        .ok_or_else(|| format!("not run by capn doctor: `{command}` does not parse"))
        .and_then(|argv| safe_run::check(&argv, root));
    let inv = match checked {
        Ok(inv) => inv,
        Err(why) => {
            checks.push(Check::warn("Claude statusline", why, None));
            return None;
        }
    };
    if matches!(path, OnPath::Missing) && inv.by_name() {
        checks.push(Check::failed(
            "Claude statusline",
            format!("`{command}` not run: it starts `capn` by name and it is not on PATH"),
            path_fix(),
        ));
        return None;
    }
    Some((rel, command.to_string(), inv))
}

/// Runs the status line once and adds the check on its exit and its one line.
fn judge_run(
    root: &Path,
    dir: &Path,
    rel: &str,
    command: &str,
    inv: &Invocation,
    checks: &mut Vec<Check>,
) {
    let what = format!("Claude statusline runs `{command}`");
    // Without a shell, and without `--wrap`: the wrapped command is the repository's own.
    let mut cmd = safe_run::command(inv, None);
    cmd.current_dir(root)
        .env(session::STATE_DIR_ENV, dir.join("state"))
        .env_remove("CAPN_SESSION_ID")
        .env_remove("CLAUDE_ENV_FILE")
        .env_remove("CLAUDE_PROJECT_DIR");
    let payload = statusline_payload(SESSION_ID, root, &dir.join("transcript.jsonl")).to_string();
    let out = run_captured(cmd, payload.as_bytes(), STATUSLINE_BUDGET);
    let fix = if out
        .spawn_error
        .as_ref()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        || out.status.and_then(|s| s.code()) == Some(127)
    {
        path_fix()
    } else {
        format!(
            "in {rel}, set statusLine.command to \"{}\" (or run: capn uninstall && capn init)",
            install::STATUSLINE_COMMAND
        )
    };
    if let Some(why) = exit_problem(Runs::Statusline, "sh", &out, STATUSLINE_BUDGET, 1.0) {
        checks.push(Check::failed(what, why, fix));
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let wraps = install::wrapped_statusline(command).is_some();
    match statusline_line(&stdout, wraps) {
        Err(why) => checks.push(Check::failed(what, why, fix)),
        Ok(last) => {
            let shown = crate::present::quote(last, 80);
            checks.push(Check::ok(format!(
                "{what}: one line, {shown} ({} ms)",
                out.elapsed.as_millis()
            )));
        }
    }
}

/// The wrapped command is the repository's and never run; its program can still be looked for,
/// so a status line whose wrapped half fails on every refresh is not reported as fine.
fn warn_missing_wrapped(root: &Path, rel: &str, command: &str, checks: &mut Vec<Check>) {
    if let Some(wrapped) = install::wrapped_statusline(command) {
        if let Some(missing) = missing_program(&wrapped, root) {
            checks.push(Check::warn(
                "Claude statusline",
                format!(
                    "the command it wraps, `{wrapped}`, starts `{missing}`, which is not found: the status line shows capn's part only and the wrapped command fails on every refresh"
                ),
                Some(format!(
                    "fix the path after --wrap in statusLine.command in {rel}, or drop --wrap and what follows"
                )),
            ));
        }
    }
}

/// The first word of the shell command `command` when it names a program that is not there: a
/// path (with `/`, or `~/` for the home folder; relative to `root`) that is not a file, or a
/// bare name found in no absolute `PATH` directory and not a shell builtin. `None` when it is
/// found, or the command is not a simple one doctor can judge without running it.
fn missing_program(command: &str, root: &Path) -> Option<String> {
    const BUILTINS: &[&str] = &[
        ".", ":", "[", "alias", "break", "cd", "command", "continue", "echo", "eval", "exec",
        "exit", "export", "false", "printf", "pwd", "read", "readonly", "return", "set", "shift",
        "source", "test", "times", "trap", "true", "type", "ulimit", "umask", "unset", "wait",
    ];
    let words = safe_run::split_shell(command)?;
    let first = words.first()?;
    if first.contains('=') || first.contains('$') || first.contains('`') {
        return None;
    }
    let found = if let Some(rest) = first.strip_prefix("~/") {
        let home = crate::env::home_dir()?;
        Path::new(&home).join(rest).is_file()
    } else if first.contains('/') {
        root.join(first).is_file()
    } else if BUILTINS.contains(&first.as_str()) {
        true
    } else {
        let path = crate::env::get_os(crate::env::PATH).unwrap_or_default();
        let found = safe_run::path_dirs(&path).any(|d| crate::fsutil::program_in(&d, first));
        found
    };
    (!found).then(|| first.clone())
}

/// The status line capn printed (the last line of `stdout`), or why Claude Code would not show
/// it: nothing printed, more than one line (unless ours wraps another command's output), or no
/// capn segment (`ctx …`).
fn statusline_line(stdout: &str, wraps: bool) -> std::result::Result<&str, String> {
    let text = stdout.strip_suffix('\n').unwrap_or(stdout);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.last().copied().unwrap_or("");
    if text.trim().is_empty() {
        Err("printed nothing: Claude Code shows an empty status line".to_string())
    } else if lines.len() != 1 && !wraps {
        Err(format!("printed {} lines, not one", lines.len()))
    } else if !last.contains("ctx ") {
        Err(format!(
            "the capn segment (ctx …) is missing from {}",
            crate::present::quote(last, crate::present::MAX_QUESTION_CHARS)
        ))
    } else {
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_command_s_missing_program_is_named_without_running_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/status.sh"), "").unwrap();
        assert_eq!(missing_program("bin/status.sh --short", root), None);
        assert_eq!(
            missing_program("bin/gone.sh --short", root),
            Some("bin/gone.sh".into())
        );
        assert_eq!(
            missing_program("/nonexistent/dir/status.sh", root),
            Some("/nonexistent/dir/status.sh".into())
        );
        assert_eq!(missing_program("echo hi", root), None);
        #[cfg(unix)]
        assert_eq!(missing_program("sh -c 'exit 0'", root), None);
        assert_eq!(
            missing_program("no-such-program-capn-test x", root),
            Some("no-such-program-capn-test".into())
        );
        assert_eq!(missing_program("FOO=1 bin/gone.sh", root), None);
        assert_eq!(missing_program("'unclosed", root), None);
    }
}
