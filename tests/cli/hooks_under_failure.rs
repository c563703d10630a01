//! Hooks and the status line when the world around them fails: a broken stderr, a FIFO as
//! transcript, a usage error, a state dir whose markers cannot be written, an env file without a
//! final newline. Whatever happens they exit 0 and still deliver what they can.

use crate::util::{Env, Run};
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs capn with stderr connected to a pipe whose read end is already closed (EPIPE on every
/// write to stderr). Returns (exit code, stdout).
fn run_with_broken_stderr(env: &Env, args: &[&str], stdin: &[u8]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut c = env.cmd(args);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(writer));
    let mut child = c.spawn().unwrap();
    let mut sin = child.stdin.take().unwrap();
    let _ = sin.write_all(stdin);
    drop(sin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Makes `path` a non-empty directory with an old mtime, so a marker write that replaces it by
/// rename fails (as it does on a full disk or a read-only state dir), without needing root.
fn block_with_old_dir(path: &Path) {
    fs::create_dir_all(path.join("x")).unwrap();
    let ok = Command::new("touch")
        .args(["-d", "2020-01-01 00:00:00"])
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

fn additional_context(run: &Run) -> Option<String> {
    let v: Value = serde_json::from_str(run.stdout.trim()).ok()?;
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(str::to_string)
}

/// Contract: hooks exit 0 ALWAYS, also when a diagnostic meets a broken stderr (capn 0.3 before
/// its fix panicked inside `eprintln!`, outside `catch_unwind`, and exited 101).
#[test]
fn hook_exits_zero_when_stderr_is_a_broken_pipe() {
    let env = Env::git();
    for (args, stdin) in [
        (&["hook", "user-prompt-submit"][..], &b"not json"[..]),
        (
            &["hook", "pre-compact"][..],
            &br#"{"session_id":"../x"}"#[..],
        ),
        (&["hook", "bogus"][..], &b"{}"[..]),
    ] {
        let (code, _) = run_with_broken_stderr(&env, args, stdin);
        assert_eq!(code, 0, "capn {args:?} exited {code} with a broken stderr");
    }
    // Every event's subcommand has the diagnostic of a payload that is not JSON to write.
    for sub in crate::util::hook_subcommands() {
        let (code, _) = run_with_broken_stderr(&env, &["hook", sub], b"not json");
        assert_eq!(
            code, 0,
            "capn hook {sub} exited {code} with a broken stderr"
        );
    }
}

/// Contract: the status line always prints one line and exits 0.
#[test]
fn statusline_prints_a_line_when_stderr_is_a_broken_pipe() {
    let env = Env::git();
    let (code, stdout) = run_with_broken_stderr(&env, &["statusline", "--warn-at", "0"], b"{}");
    assert_eq!(code, 0, "statusline exited {code}");
    assert_eq!(stdout.lines().count(), 1, "stdout: {stdout:?}");
}

/// Contract: the status line always prints one line and exits 0 (here: an argument that looks
/// like --help after `--` sends the run down the non-hook path and nothing is printed).
#[test]
fn statusline_prints_a_line_for_a_dash_dash_help_usage_error() {
    let env = Env::git();
    let run = env.run_stdin(&["statusline", "--", "--help"], b"{}");
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout.lines().count(), 1, "stdout: {:?}", run.stdout);
}

/// Contract: the status line always prints one line. A transcript_path naming a FIFO makes it
/// block forever in open().
#[cfg(unix)]
#[test]
fn statusline_does_not_hang_on_a_fifo_transcript() {
    let env = Env::git();
    let fifo = env.root.join("transcript.jsonl");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo failed");
    let payload = format!(
        r#"{{"session_id":"s1","model":{{"id":"claude-x"}},"transcript_path":"{}"}}"#,
        fifo.display()
    );
    // A status line blocked on the FIFO hangs: the hang guard fails the test then.
    env.run_bounded(
        env.cmd(&["statusline"]),
        payload.as_bytes(),
        false,
        crate::util::HANG_GUARD,
    );
}

/// SessionStart(startup) must inject the ask-before-search contract. When refreshing the
/// session's `seen` stamp fails (disk full, read-only or foreign-owned state dir: reproduced on
/// a 300 KB tmpfs and a read-only bind mount), the hook prints NOTHING: the error of a GC
/// bookkeeping write aborts the whole hook and the session starts without the contract.
#[test]
fn session_start_injects_the_contract_when_the_seen_stamp_cannot_be_written() {
    let env = Env::git();
    env.run(&["init"]).ok();
    block_with_old_dir(&env.session_dir("sess-seen").join("seen"));
    for host in ["claude", "codex"] {
        let run = env
            .run_stdin(
                &["hook", "session-start", "--host", host],
                br#"{"session_id":"sess-seen","hook_event_name":"SessionStart","source":"startup"}"#,
            )
            .ok();
        let ctx = additional_context(&run);
        assert!(
            ctx.as_deref().is_some_and(|c| c.contains("capn ask")),
            "--host {host}: no contract injected\nstdout: {:?}\nstderr: {}",
            run.stdout,
            run.stderr
        );
    }
}

/// SessionStart(compact) is the documented way to re-inject context after a compaction. When
/// its own `compact-delivered.json` record cannot be written (disk full: reproduced on a tmpfs,
/// where PostCompact's marker could not be written either, so UserPromptSubmit had nothing to
/// deliver), it prints nothing and the recovery instructions are lost for good.
#[test]
fn session_start_compact_delivers_the_recovery_when_its_record_cannot_be_written() {
    let env = Env::git();
    env.run(&["init"]).ok();
    block_with_old_dir(&env.session_dir("sess-cmp").join("compact-delivered.json"));
    let run = env
        .run_stdin(
            &["hook", "session-start"],
            br#"{"session_id":"sess-cmp","hook_event_name":"SessionStart","source":"compact"}"#,
        )
        .ok();
    let ctx = additional_context(&run);
    assert!(
        ctx.as_deref()
            .is_some_and(|c| c.contains("compaction recovery")),
        "no recovery injected\nstdout: {:?}\nstderr: {}",
        run.stdout,
        run.stderr
    );
}

/// SessionStart appends `export CAPN_SESSION_ID=...` to `$CLAUDE_ENV_FILE`, a file the host and
/// other hooks write too. When its last line has no trailing newline (`printf 'export X=1' >>`),
/// capn glues its export onto that line: `export FOO=barexport CAPN_SESSION_ID=...`, which
/// silently changes FOO to "barexport".
#[test]
fn session_start_does_not_corrupt_an_env_file_without_a_trailing_newline() {
    let env = Env::git();
    let envfile = env.tmp.path().join("claude-env.sh");
    fs::write(&envfile, "export FOO=bar").unwrap();
    let mut c = env.cmd(&["hook", "session-start"]);
    c.env("CLAUDE_ENV_FILE", &envfile);
    env.run_cmd(
        c,
        br#"{"session_id":"sess-env","hook_event_name":"SessionStart","source":"startup"}"#,
    )
    .ok();
    let text = fs::read_to_string(&envfile).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&"export FOO=bar") && lines.contains(&"export CAPN_SESSION_ID=sess-env"),
        "CLAUDE_ENV_FILE is now {text:?}"
    );
}
