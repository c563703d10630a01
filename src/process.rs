//! Child-process helpers shared by the commands that run other programs (the wrapped status
//! line, doctor's hook runs, the few `git` questions of `init`, `uninstall` and `prune`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// Ends a child started in its own process group (`process_group(0)`): SIGKILL to the whole
/// group on Unix (a shell's children may hold the output pipe open); on Windows, which has no
/// process groups to signal, `taskkill /T /F` ends the child's whole tree; then the child
/// itself, and reaps it. Errors are ignored: the child may already be gone.
pub(crate) fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(windows)]
    {
        let _ = Command::new("taskkill")
            .args(["/T", "/F", "/PID", &child.id().to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs `git args...` in `dir` (the repository found from there, as git finds it when it runs a
/// hook: `GIT_DIR` and friends removed), stdin closed, stderr discarded. Returns stdout when git
/// ran and succeeded; `None` when it could not be started or failed (no repository, no `HEAD`,
/// a path not in the tree). For commands only (`init`, `uninstall`, `prune`): never on a hook's
/// or `ask`'s path.
pub(crate) fn git_output(dir: &std::path::Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = git_command(dir, args).output().ok()?;
    out.status.success().then_some(out.stdout)
}

/// `git <args>` run in `dir` as git would run there on its own: stdin empty, stdout piped,
/// stderr dropped, and none of the variables that point git at another repository or index
/// (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_COMMON_DIR`, `GIT_INDEX_FILE`, `GIT_CEILING_DIRECTORIES`:
/// a hook or a host may have set them for its own repository). Callers change stdin as needed.
pub(crate) fn git_command(dir: &std::path::Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_COMMON_DIR",
        "GIT_INDEX_FILE",
        "GIT_CEILING_DIRECTORIES",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// `CLAUDE_CODE_GIT_BASH_PATH`: the Git Bash Claude Code runs commands with on Windows.
pub(crate) const GIT_BASH_PATH: &str = "CLAUDE_CODE_GIT_BASH_PATH";

/// How a shell command line is run: the program and the arguments before the line, and whether
/// the line goes as one raw argument (`cmd.exe` parses its own command line, not argv).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shell {
    /// The shell program.
    pub program: OsString,
    /// Its arguments before the command line (`-c`, `/d /s /c`).
    pub args: Vec<&'static str>,
    /// True for `cmd.exe`: the line is passed unquoted, as `cmd /c` expects.
    pub raw: bool,
}

/// The shell for a command line the user wrote (a status line command capn wraps), by the
/// host's own rule. Unix: `sh -c`. Windows (`windows`), where Claude Code runs such commands
/// with Git Bash: `git_bash` (the host's [`GIT_BASH_PATH`]) when it is a file, else `bash` or
/// `sh` when `on_path` finds them, else `cmd /d /s /c` (so a command still runs on a machine
/// without Git Bash, as far as cmd understands it).
pub(crate) fn pick_shell(
    windows: bool,
    git_bash: Option<PathBuf>,
    on_path: impl Fn(&str) -> bool,
) -> Shell {
    let posix = |program: OsString| Shell {
        program,
        args: vec!["-c"],
        raw: false,
    };
    if !windows {
        return posix("sh".into());
    }
    if let Some(p) = git_bash.filter(|p| p.is_file()) {
        return posix(p.into_os_string());
    }
    for name in ["bash", "sh"] {
        if on_path(name) {
            return posix(name.into());
        }
    }
    Shell {
        program: "cmd".into(),
        args: vec!["/d", "/s", "/c"],
        raw: true,
    }
}

/// A [`Command`] running `line` with this system's [`pick_shell`].
pub(crate) fn shell_command(line: &str) -> Command {
    let path = crate::env::get_os(crate::env::PATH).unwrap_or_default();
    let on_path = |name: &str| {
        std::env::split_paths(&path)
            .filter(|d| d.is_absolute())
            .any(|d| crate::fsutil::program_in(&d, name))
    };
    let git_bash = crate::env::get_os(GIT_BASH_PATH).map(PathBuf::from);
    let shell = pick_shell(cfg!(windows), git_bash, on_path);
    let mut cmd = Command::new(&shell.program);
    cmd.args(&shell.args);
    if shell.raw {
        #[cfg(windows)]
        std::os::windows::process::CommandExt::raw_arg(&mut cmd, line);
        #[cfg(not(windows))]
        cmd.arg(line);
    } else {
        cmd.arg(line);
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapped_command_runs_in_the_host_s_shell() {
        assert_eq!(pick_shell(false, None, |_| false).program, "sh");
        let tmp = tempfile::tempdir().unwrap();
        let bash = tmp.path().join("bash.exe");
        std::fs::write(&bash, "").unwrap();
        let s = pick_shell(true, Some(bash.clone()), |_| true);
        assert_eq!(
            (s.program, s.args, s.raw),
            (bash.into_os_string(), vec!["-c"], false)
        );
        // A Git Bash path that is not there: the next one found.
        let gone = Some(tmp.path().join("gone.exe"));
        assert_eq!(pick_shell(true, gone.clone(), |n| n == "sh").program, "sh");
        assert_eq!(pick_shell(true, gone, |n| n == "bash").program, "bash");
        let cmd = pick_shell(true, None, |_| false);
        assert_eq!((cmd.program.to_str(), cmd.raw), (Some("cmd"), true));
        assert_eq!(cmd.args, ["/d", "/s", "/c"]);
    }
}
