//! Test harness: a temp project dir and a builder that runs the built `capn` binary in it with
//! HOME, XDG_* and CAPN_STATE_DIR pinned inside the temp dir, Claude/Codex variables cleared,
//! the built `capn` first on PATH and git's machine config shut out ([`pin_git_env`]), so that
//! no run depends on what the machine has installed.

#![allow(dead_code)]

use capn_hook::events::HookEvent;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Gives `p` the execute bits (0755) where files have them; off Unix nothing to do.
pub(crate) fn make_executable(p: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = p;
}

/// Puts the built binary in `dir` as `capn` (a symlink on Unix; a copy as `capn.exe` on
/// Windows, where symlinks need a privilege) and returns its path.
pub(crate) fn install_capn_in(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_capn"));
    #[cfg(unix)]
    {
        let p = dir.join("capn");
        std::os::unix::fs::symlink(exe, &p).unwrap();
        p
    }
    #[cfg(not(unix))]
    {
        let p = dir.join("capn.exe");
        std::fs::copy(exe, &p).unwrap();
        p
    }
}

/// How long a run may take before a test calls it hung and kills it: a guard against blocking
/// (on a FIFO, a held lock, an open stdin), never a measure of speed, so it is generous enough
/// for a debug build on a loaded 2-core machine. Speed is measured by the benchmarks (`bench/`).
pub(crate) const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(60);

/// The `PATH` every run gets: the built binary's folder first, then the test process's own
/// `PATH`. A bare `capn` (the registered hooks, git's post-commit hook, doctor's checks) is then
/// always the binary under test, whether or not the machine has a `capn` installed. A test about
/// a `PATH` without capn (or with another one) sets its own.
pub(crate) fn test_path() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_capn")).parent().unwrap();
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&inherited));
    std::env::join_paths(dirs).unwrap()
}

/// Pins what git reads from the machine on `c`, for git run by a test or by capn: HOME and the
/// XDG config dir under the test's temp `home` (so no global `~/.gitconfig`), no system config,
/// and none of the test process's `GIT_*` variables (a `GIT_DIR` or `GIT_INDEX_FILE` set by a
/// git hook running `cargo test`, a `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_PARAMETERS`...), but
/// `GIT_EXEC_PATH`, which only says where git's own programs are.
pub(crate) fn pin_git_env(c: &mut Command, home: &Path) {
    for (var, _) in std::env::vars_os() {
        let name = var.to_string_lossy();
        if name.starts_with("GIT_") && name != "GIT_EXEC_PATH" {
            c.env_remove(&var);
        }
    }
    c.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1");
}

/// A temp project: `root` is the project dir (a git repo when made with `Env::git`), `home` the
/// pinned HOME.
pub(crate) struct Env {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    #[track_caller]
    pub(crate) fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "expected exit 0\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }
    #[track_caller]
    pub(crate) fn code(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }
    /// stdout parsed as JSON lines.
    pub(crate) fn jsonl(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
            .collect()
    }
}

impl Env {
    /// A fresh temp dir with an empty project folder (not a git repo).
    pub(crate) fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let root = root.canonicalize().unwrap();
        Env { tmp, root, home }
    }

    /// A fresh temp project that is a git repository (`git init`).
    pub(crate) fn git() -> Env {
        let env = Env::new();
        // A real repository: `init --git` asks git where the hooks are and refuses a `.git` git
        // does not accept.
        let ok = env
            .git_cmd(&env.root, &["init", "-q"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git init failed in {}", env.root.display());
        std::fs::create_dir_all(env.root.join(".git/hooks")).unwrap();
        env
    }

    /// `git args...` in `dir`, with git's environment pinned as [`pin_git_env`] says.
    pub(crate) fn git_cmd(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = Command::new("git");
        c.args(args).current_dir(dir);
        pin_git_env(&mut c, &self.home);
        c
    }

    /// The per-user state dir the runs use.
    pub(crate) fn state_dir(&self) -> PathBuf {
        self.home.join(".local/state/capn-hook")
    }

    /// Session `sid`'s folder under the state dir (markers, `state.md`).
    pub(crate) fn session_dir(&self, sid: &str) -> PathBuf {
        self.state_dir().join("sessions").join(sid)
    }

    /// Writes a file under the project root (parents created).
    pub(crate) fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// A command for the built binary in the project root.
    pub(crate) fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_in(&self.root, args)
    }

    /// A command for the built binary in `dir`.
    pub(crate) fn cmd_in(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_capn"));
        c.args(args).current_dir(dir);
        for var in [
            "CLAUDE_PROJECT_DIR",
            "CLAUDE_ENV_FILE",
            "CAPN_SESSION_ID",
            "CLAUDE_CODE_SESSION_ID",
            "XDG_STATE_HOME",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
            "CAPN_STATE_DIR",
        ] {
            c.env_remove(var);
        }
        // What the machine has installed never reaches a run: `PATH` finds the built `capn`
        // first, doctor's launcher check gets the same `PATH` (its default, /usr/bin:/bin,
        // depends on the machine), and git reads no config of the machine's.
        pin_git_env(&mut c, &self.home);
        let path = test_path();
        c.env("PATH", &path).env("CAPN_LAUNCHER_PATH", &path);
        // A hook's read of stdin may last 10 min instead of 2 s (debug builds only): one that
        // waited for a held-open stdin to close hits the hang guard, however busy the machine.
        c.env("CAPN_TEST_MAX_READ_MS", "600000");
        // capn's state dir is pinned by name: `directories` puts it under `~/Library` on macOS
        // and under the real `%LOCALAPPDATA%` on Windows, whatever HOME says.
        c.env("HOME", &self.home)
            .env("USERPROFILE", &self.home)
            .env("CAPN_STATE_DIR", self.state_dir())
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"));
        c
    }

    /// A `sh -c <body>` command in the project root with the same pinned environment.
    pub(crate) fn sh(&self, body: &str) -> Command {
        let template = self.cmd(&[]);
        let mut sh = Command::new("sh");
        sh.arg("-c").arg(body).current_dir(&self.root);
        for (k, v) in template.get_envs() {
            match v {
                Some(v) => sh.env(k, v),
                None => sh.env_remove(k),
            };
        }
        sh
    }

    /// Runs `capn args...` in the project root with empty stdin.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        self.run_cmd(self.cmd(args), b"")
    }

    /// Runs `capn args...` in the project root with `stdin`.
    pub(crate) fn run_stdin(&self, args: &[&str], stdin: &[u8]) -> Run {
        self.run_cmd(self.cmd(args), stdin)
    }

    /// Runs a prepared command, feeding `stdin` and then closing it, or keeping it open while the
    /// command runs when `hold_open` (as a host may). Fails the test when the command has not
    /// exited within `limit` (it is killed first); returns what it printed and how long it took.
    #[track_caller]
    pub(crate) fn run_bounded(
        &self,
        mut c: Command,
        stdin: &[u8],
        hold_open: bool,
        limit: std::time::Duration,
    ) -> (Run, std::time::Duration) {
        use std::io::Read;
        let start = std::time::Instant::now();
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn capn");
        let mut sin = child.stdin.take().unwrap();
        let _ = sin.write_all(stdin);
        let held = if hold_open {
            Some(sin)
        } else {
            drop(sin);
            None
        };
        let mut so = child.stdout.take().unwrap();
        let mut se = child.stderr.take().unwrap();
        let out_t = std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = so.read_to_end(&mut b);
            b
        });
        let err_t = std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = se.read_to_end(&mut b);
            b
        });
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{:?} did not exit within {limit:?} (killed)",
                    c.get_args().collect::<Vec<_>>()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        let took = start.elapsed();
        drop(held);
        let stdout = out_t.join().unwrap();
        let stderr = err_t.join().unwrap();
        let run = Run {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        };
        (run, took)
    }

    /// A fake `capn` in `<tmp>/fakebin` that appends its arguments to a log file, for running a
    /// git hook as git would. Returns (its folder, the log file). Unix only.
    #[cfg(unix)]
    pub(crate) fn fake_capn(&self) -> (PathBuf, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.tmp.path().join("fakebin");
        std::fs::create_dir_all(&bin).unwrap();
        let log = self.tmp.path().join("capn-called");
        let fake = bin.join("capn");
        std::fs::write(
            &fake,
            format!("#!/bin/sh\necho \"$@\" >> '{}'\n", log.display()),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        (bin, log)
    }

    /// Runs `capn args...` with empty stdin, failing the test when it has not exited within
    /// [`HANG_GUARD`] (it blocked).
    #[track_caller]
    pub(crate) fn run_unblocked(&self, args: &[&str]) -> Run {
        self.run_bounded(self.cmd(args), b"", false, HANG_GUARD).0
    }

    /// [`Env::run_unblocked`] under its former name (the guard is [`HANG_GUARD`] now, not 5 s).
    #[track_caller]
    pub(crate) fn run_within_5s(&self, args: &[&str]) -> Run {
        self.run_unblocked(args)
    }

    /// Runs a prepared command, feeding `stdin`.
    pub(crate) fn run_cmd(&self, mut c: Command, stdin: &[u8]) -> Run {
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn capn");
        let mut sin = child.stdin.take().unwrap();
        let data = stdin.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = sin.write_all(&data);
        });
        let out: Output = child.wait_with_output().unwrap();
        let _ = writer.join();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// The `capn hook` subcommand for a host event name (`SessionStart` -> `session-start`), if capn
/// handles it (the library's one table, `capn_hook::events`).
pub(crate) fn hook_subcommand(event: &str) -> Option<&'static str> {
    HookEvent::from_name(event).map(HookEvent::subcommand)
}

/// The opening of PreCompact's instructions for the summary (src/hook/summary.rs), which Claude
/// Code takes as plain text on stdout.
pub(crate) const INSTRUCTIONS_HEAD: &str = "[capn] Instructions for this summary, from capn-hook";

/// True when `stdout` of `capn hook <args>` is PreCompact's plain-text reply on Claude Code (the
/// instructions for the summary: plain text, never JSON).
pub(crate) fn is_pre_compact_text(args: &[&str], stdout: &str) -> bool {
    let other_host = ["codex", "gemini", "qwen", "copilot", "opencode"];
    args.get(1) == Some(&"pre-compact")
        && !args.iter().any(|a| other_host.contains(a))
        && stdout.starts_with(INSTRUCTIONS_HEAD)
}

/// Every `capn hook` subcommand, one per event capn handles.
pub(crate) fn hook_subcommands() -> Vec<&'static str> {
    HookEvent::ALL.iter().map(|e| e.subcommand()).collect()
}

/// Every `capn hook` command line, one per event and host, with the event's host name:
/// `(["hook", "pre-compact", "--host", "codex"], "PreCompact")`. Both hosts register all five
/// events (`hooks-config/`); Claude Code's lines carry no `--host`, as `capn init` writes them.
pub(crate) fn hook_command_lines() -> Vec<(Vec<&'static str>, &'static str)> {
    let mut all = Vec::new();
    for host in [&[][..], &["--host", "codex"][..]] {
        for e in HookEvent::ALL {
            let mut args = vec!["hook", e.subcommand()];
            args.extend_from_slice(host);
            all.push((args, e.name()));
        }
    }
    all
}

/// A Claude Code hook payload for `event` in session `sid` run from `cwd`, plus `extra` fields
/// (the common fields as the hooks reference lists them).
pub(crate) fn hook_payload(
    event: &str,
    sid: &str,
    cwd: &Path,
    extra: serde_json::Value,
) -> Vec<u8> {
    let mut v = serde_json::json!({
        "session_id": sid,
        "transcript_path": format!("/home/user/.claude/projects/p/{sid}.jsonl"),
        "cwd": cwd,
        "hook_event_name": event,
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::to_vec(&v).unwrap()
}

/// Every regular file under `dir`, recursively, with its bytes (symlinks are not followed; a
/// folder that cannot be read adds nothing).
pub(crate) fn files_under(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let ty = e.file_type().unwrap();
        if ty.is_dir() {
            files_under(&e.path(), out);
        } else if ty.is_file() {
            out.push((e.path(), std::fs::read(e.path()).unwrap()));
        }
    }
}

/// The paths of the `files` ([`files_under`]) whose bytes hold `needle`, ASCII case ignored when
/// `fold_case`.
pub(crate) fn holding<'a>(
    files: &'a [(PathBuf, Vec<u8>)],
    needle: &str,
    fold_case: bool,
) -> Vec<&'a Path> {
    let fold = |b: &[u8]| {
        if fold_case {
            b.to_ascii_lowercase()
        } else {
            b.to_vec()
        }
    };
    let needle = fold(needle.as_bytes());
    files
        .iter()
        .filter(|(_, bytes)| fold(bytes).windows(needle.len()).any(|w| w == needle))
        .map(|(path, _)| path.as_path())
        .collect()
}
