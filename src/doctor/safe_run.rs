//! Which registered command lines `doctor` may start: capn's own, and nothing else.
//!
//! Settings files come with the repository. The hosts ask before they run a project's hooks
//! (Claude Code's and Codex's trust dialogs, Gemini CLI's warning); `doctor` must not be the way
//! around that. So a handler is run only when its command line is exactly one of the forms
//! `capn init` registers (or capn 0.2's), and it is started as an argument vector, never through
//! a shell:
//!
//! - `capn hook …` (whatever follows: `capn hook` judges its own arguments, always exits 0 and
//!   writes only in the state dir, which doctor points at a sandbox);
//! - `capn statusline [--warn-at N] [--wrap CMD]`, run **without** `--wrap`: the wrapped command
//!   is the repository's own and is never started by `doctor`;
//! - `capn context` (capn 0.2's SessionStart registration).
//!
//! The program is `capn` found on `PATH`, `/usr/bin/env capn`, or an absolute path to a file
//! named `capn` outside the project (a `capn` shipped inside the repository is the repository's
//! code). Anything else (`capn hook session-start && …`, `./tools/capn …`, `$(…)`) is reported as
//! not run. "Outside" is judged on the resolved file, not the text of the path: an absolute path
//! is canonicalised (symlinks, `..`, and `/proc/self/cwd/…`, which names the project itself when
//! the hook runs there) and the resolved path is what runs; a `capn` found by name must resolve
//! outside too, and the runs search only the absolute directories of `PATH` (a relative one, `.`
//! or `bin`, would resolve inside the project, where the hooks run).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A command line `doctor` may start: the program and its arguments, to be run without a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SafeRun {
    /// `capn` (found on `PATH`) or an absolute path to a capn binary outside the project.
    pub program: String,
    /// The arguments (without `--wrap` and its value).
    pub args: Vec<String>,
}

impl SafeRun {
    /// True when the program is found on `PATH` by name (not an absolute path).
    pub(super) fn by_name(&self) -> bool {
        !self.program.contains('/')
    }
}

/// The safe form of the command line `argv` (already split: the exec form's command and args,
/// or a shell-form string split by [`split_shell`]), or why it is not run.
pub(super) fn check(argv: &[String], root: &Path) -> Result<SafeRun, String> {
    let not_ours = || {
        format!(
            "not run by capn doctor: `{}` is not one of capn's own command lines, and doctor never starts a repository's commands",
            argv.join(" ")
        )
    };
    let (program, rest) = match argv {
        [env, capn, rest @ ..] if env == "/usr/bin/env" && capn == "capn" => ("capn", rest),
        [program, rest @ ..] => (program.as_str(), rest),
        [] => return Err(not_ours()),
    };
    let named_capn = Path::new(program).file_name().is_some_and(|n| n == "capn");
    // What a path under /proc or /dev names depends on the process that opens it
    // (`/proc/self/cwd` is the project once the hook runs there, whatever doctor's own working
    // directory): no capn is installed there.
    let per_process = ["/proc/", "/dev/"]
        .iter()
        .any(|p| Path::new(program).starts_with(p));
    let allowed_program = program == "capn"
        || (named_capn
            && !per_process
            && Path::new(program).is_absolute()
            && !Path::new(program).starts_with(root));
    if !allowed_program {
        return Err(not_ours());
    }
    let inside = |resolved: &Path| {
        format!(
            "not run by capn doctor: `{}` resolves to {}, inside the project: a capn shipped with the repository is the repository's code",
            argv.join(" "),
            resolved.display()
        )
    };
    let program = if program == "capn" {
        match first_on_path(crate::env::get_os(crate::env::PATH).as_deref()) {
            Some(found) if crate::fsutil::lies_inside(&found, root) => return Err(inside(&found)),
            _ => program.to_string(),
        }
    } else {
        match std::fs::canonicalize(program) {
            Ok(resolved) if crate::fsutil::lies_inside(&resolved, root) => {
                return Err(inside(&resolved))
            }
            Ok(resolved) => resolved.to_string_lossy().into_owned(),
            // Missing: starting it fails the same way, and doctor reports that.
            Err(_) => program.to_string(),
        }
    };
    let args: Vec<String> = match rest {
        // Any arguments: `capn hook` itself judges them (a wrong event is reported by it, exit
        // 0), and it writes only in the state dir, which doctor points at a sandbox.
        [hook, more @ ..] if hook == "hook" && more.iter().all(|a| plain_word(a)) => rest.to_vec(),
        [context] if context == "context" => rest.to_vec(),
        // The bare `capn` a host that drops `args` runs: a hook run on the payload it is given.
        [] => Vec::new(),
        [statusline, opts @ ..] if statusline == "statusline" => {
            statusline_args(opts).ok_or_else(not_ours)?
        }
        _ => return Err(not_ours()),
    };
    Ok(SafeRun { program, args })
}

/// The directories of `path` (a `PATH` value) that doctor looks programs up in: the absolute
/// ones. A relative one (`.`, `bin`) names another folder in every working directory, and in
/// the project's, where the hooks run, it would be the repository's own code.
pub(super) fn path_dirs(path: &OsStr) -> impl Iterator<Item = PathBuf> + '_ {
    std::env::split_paths(path).filter(|d| d.is_absolute())
}

/// `path` with only its [`path_dirs`], for a child's `PATH`.
fn absolute_dirs(path: &OsStr) -> OsString {
    std::env::join_paths(path_dirs(path)).unwrap_or_default()
}

/// The first executable `capn` in the [`path_dirs`] of `path`, canonicalised.
pub(super) fn first_on_path(path: Option<&OsStr>) -> Option<PathBuf> {
    super::path::find_on_path_in(path?)
        .0
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// The command that starts `run` (no shell), looking a program given by name up in the
/// absolute directories of `path` (the child's `PATH`; the current one when `None`).
pub(super) fn command(run: &SafeRun, path: Option<&OsStr>) -> Command {
    let mut cmd = Command::new(&run.program);
    cmd.args(&run.args);
    let path = path
        .map(OsStr::to_os_string)
        .or_else(|| crate::env::get_os(crate::env::PATH));
    if let Some(path) = path {
        cmd.env("PATH", absolute_dirs(&path));
    }
    cmd
}

/// True for a word with no shell syntax in it: a host running the line through a shell would
/// treat `;`, `&`, `|`, `<`, `>`, `$`, a backquote, parentheses or braces as more than a word,
/// so a line holding them is not one of capn's and is not run at all.
fn plain_word(w: &str) -> bool {
    !w.chars().any(|c| {
        matches!(
            c,
            ';' | '&' | '|' | '<' | '>' | '$' | '`' | '(' | ')' | '{' | '}'
        )
    })
}

/// `statusline` and its options without `--wrap CMD`; `None` for anything but `--warn-at N`
/// (N a whole number 1..=100) and one `--wrap CMD`.
fn statusline_args(opts: &[String]) -> Option<Vec<String>> {
    let mut args = vec!["statusline".to_string()];
    let mut i = 0;
    while i < opts.len() {
        match (opts[i].as_str(), opts.get(i + 1)) {
            ("--warn-at", Some(n)) if n.parse::<u8>().is_ok_and(|n| (1..=100).contains(&n)) => {
                args.push("--warn-at".into());
                args.push(n.clone());
            }
            ("--wrap", Some(_)) => {}
            _ => return None,
        }
        i += 2;
    }
    Some(args)
}

/// Splits a shell-form command line into words the way a POSIX shell would for a simple
/// command; `None` when it does not split (an unclosed quote). Operators such as `&&` stay
/// inside words, so [`check`] refuses them.
pub(super) fn split_shell(command: &str) -> Option<Vec<String>> {
    shell_words::split(command).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: &str) -> Result<SafeRun, String> {
        check(&split_shell(line).unwrap(), Path::new("/work/project"))
    }

    #[test]
    fn capn_s_own_lines_run_without_the_wrapped_command() {
        assert_eq!(
            run("capn hook session-start --host codex").unwrap().args,
            ["hook", "session-start", "--host", "codex"]
        );
        let s = run("capn statusline --warn-at 50 --wrap 'touch /tmp/x; echo hi'").unwrap();
        assert_eq!(s.args, ["statusline", "--warn-at", "50"]);
        assert!(s.by_name());
        assert_eq!(run("/usr/bin/env capn context").unwrap().args, ["context"]);
        // An absolute path as each system spells one.
        let abs = if cfg!(windows) {
            "C:/Users/u/.cargo/bin/capn"
        } else {
            "/home/u/.cargo/bin/capn"
        };
        assert!(!run(&format!("{abs} hook pre-compact")).unwrap().by_name());
    }

    #[test]
    fn anything_else_is_not_run() {
        for line in [
            "capn hook session-start && touch /tmp/pwned",
            "capn hook session-start; touch x",
            "capn hook session-start $(touch x)",
            "./tools/capn hook session-start",
            "/work/project/bin/capn hook session-start",
            "/proc/self/cwd/bin/capn hook session-start",
            "/proc/self/root/work/project/bin/capn hook session-start",
            "/dev/fd/3/capn hook session-start",
            "capn statusline --warn-at $(touch x)",
            "capn statusline --theme x",
            "sh -c 'capn hook session-start'",
            "capnx hook session-start",
        ] {
            assert!(run(line).is_err(), "{line}");
        }
    }

    #[test]
    #[cfg(unix)] // symlinks need a privilege on Windows
    fn a_capn_is_judged_where_it_resolves() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/capn"), "#!/bin/sh\n").unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(root.join("bin/capn"), outside.join("capn")).unwrap();
        let argv = |p: &Path| vec![p.display().to_string(), "hook".into(), "stop".into()];
        for p in [outside.join("capn"), outside.join("../project/bin/capn")] {
            let why = check(&argv(&p), &root).unwrap_err();
            assert!(why.contains("inside the project"), "{why}");
        }
        // A real capn outside runs as resolved (its symlinks followed).
        std::fs::write(outside.join("real-capn"), "").unwrap();
        std::fs::create_dir_all(tmp.path().join("bin2")).unwrap();
        std::os::unix::fs::symlink(outside.join("real-capn"), tmp.path().join("bin2/capn"))
            .unwrap();
        let run = check(&argv(&tmp.path().join("bin2/capn")), &root).unwrap();
        assert_eq!(
            Path::new(&run.program),
            std::fs::canonicalize(outside.join("real-capn")).unwrap()
        );
    }

    #[test]
    fn relative_path_directories_are_dropped() {
        #[cfg(unix)]
        let (given, kept) = (".:bin:/usr/bin::/opt/x/bin", "/usr/bin:/opt/x/bin");
        #[cfg(windows)]
        let (given, kept) = (r".;bin;C:\Windows;;D:\x\bin", r"C:\Windows;D:\x\bin");
        assert_eq!(absolute_dirs(OsStr::new(given)), OsString::from(kept));
    }
}
