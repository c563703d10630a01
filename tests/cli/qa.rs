//! QA regression tests: each one reproduces a defect found while trying to break capn. They are
//! expected to FAIL until the defect is fixed (see the QA report for the reasoning).

use crate::util::Env;
use std::fs;
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn chart_id(env: &Env, args: &[&str]) -> String {
    let run = env.run(args).ok();
    run.stdout
        .trim()
        .strip_prefix("charted ")
        .unwrap_or_else(|| panic!("unexpected chart output: {}", run.stdout))
        .to_string()
}

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

/// Contract: hooks exit 0 ALWAYS. Today a hook that writes a diagnostic to a broken stderr
/// panics inside `eprintln!` (outside `catch_unwind`) and exits 101.
#[test]
fn qa_hook_exits_zero_when_stderr_is_a_broken_pipe() {
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
}

/// Contract: the status line always prints one line and exits 0.
#[test]
fn qa_statusline_prints_a_line_when_stderr_is_a_broken_pipe() {
    let env = Env::git();
    let (code, stdout) = run_with_broken_stderr(&env, &["statusline", "--warn-at", "0"], b"{}");
    assert_eq!(code, 0, "statusline exited {code}");
    assert_eq!(stdout.lines().count(), 1, "stdout: {stdout:?}");
}

/// Contract: the status line always prints one line and exits 0 (here: an argument that looks
/// like --help after `--` sends the run down the non-hook path and nothing is printed).
#[test]
fn qa_statusline_prints_a_line_for_a_dash_dash_help_usage_error() {
    let env = Env::git();
    let run = env.run_stdin(&["statusline", "--", "--help"], b"{}");
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout.lines().count(), 1, "stdout: {:?}", run.stdout);
}

/// Contract: the status line always prints one line. A transcript_path naming a FIFO makes it
/// block forever in open().
#[cfg(unix)]
#[test]
fn qa_statusline_does_not_hang_on_a_fifo_transcript() {
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
    let mut c = env.cmd(&["statusline"]);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("statusline still running after 5 s with a FIFO transcript_path");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Staleness: a backing file must be inside the project root. Chart refuses `sub/f.txt` when
/// `sub` is a symlink to a folder outside the root, but an entry charted before `sub` was
/// swapped for such a symlink keeps answering.
#[cfg(unix)]
#[test]
fn qa_backing_file_reached_through_a_symlinked_dir_outside_the_root_is_stale() {
    let env = Env::git();
    env.write("sub/f.txt", "secret");
    chart_id(
        &env,
        &["chart", "where is the secret file", "--files", "sub/f.txt"],
    );
    env.run(&["ask", "where is the secret file"]).ok();
    let outside = env.tmp.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("f.txt"), "secret").unwrap();
    fs::remove_dir_all(env.root.join("sub")).unwrap();
    std::os::unix::fs::symlink(&outside, env.root.join("sub")).unwrap();
    // chart agrees it is outside:
    env.run(&["chart", "another question", "--files", "sub/f.txt"])
        .code(1);
    let run = env.run(&["ask", "where is the secret file"]);
    assert_eq!(
        run.code, 1,
        "an entry backed by a file outside the root answered: {}",
        run.stdout
    );
}

/// Staleness: an entry whose path key climbs out of the root (`../x`, e.g. hand-edited or written
/// by another tool) must never answer; today it is hashed outside the root and answers.
#[test]
fn qa_entry_with_a_dotdot_key_never_answers() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let outside = env.tmp.path().join("outside.txt");
    fs::write(&outside, "secret").unwrap();
    let text = format!(
        "---\ncapn: 1\nid: aaaaaaaa\nat: 2026-01-01T00:00:00.000Z\nfiles:\n  ../outside.txt: {}\n---\n\n# where is the outside secret\n",
        sha256_hex(b"secret")
    );
    fs::write(env.root.join(".capn/entries/aaaaaaaa.md"), text).unwrap();
    let run = env.run(&["ask", "where is the outside secret"]);
    assert!(
        !run.stdout.contains("aaaaaaaa"),
        "entry backed by ../outside.txt answered: {}",
        run.stdout
    );
}

/// `uninstall` removes exactly what `init` added. A hand-written registration (the one
/// docs/compaction-survival.md tells users to write) made init add nothing to
/// .claude/settings.json, yet uninstall deletes the user's whole file.
#[test]
fn qa_uninstall_keeps_a_registration_init_did_not_add() {
    let env = Env::git();
    let original = r#"{
  "hooks": {
    "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "capn", "args": ["hook", "session-start"]}]}],
    "PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "capn", "args": ["hook", "pre-compact"]}]}],
    "PostCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "capn", "args": ["hook", "post-compact"]}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "capn", "args": ["hook", "user-prompt-submit"]}]}]
  },
  "statusLine": {"type": "command", "command": "capn statusline --warn-at 70"}
}
"#;
    env.write(".claude/settings.json", original);
    env.run(&["init"]).ok();
    assert_eq!(
        env.read(".claude/settings.json"),
        original,
        "init changed a file it had nothing to add to"
    );
    env.run(&["uninstall"]).ok();
    assert!(
        env.root.join(".claude/settings.json").exists(),
        "uninstall deleted the user's hand-written .claude/settings.json"
    );
}

/// A symlinked .claude/settings.json (dotfiles), dangling or not, is refused before anything is
/// touched: capn never writes through a symlink and never reads outside the project through one.
/// The message names the file and says how to register by hand; no `.capn/` is created and
/// `.gitignore` is not edited.
#[cfg(unix)]
#[test]
fn qa_init_refuses_a_symlinked_settings_file_before_touching_anything() {
    for dangling in [false, true] {
        let env = Env::git();
        let target = env.tmp.path().join("dotfiles/settings.json");
        if !dangling {
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(&target, "{\"model\": \"opus\"}\n").unwrap();
        }
        env.write(".gitignore", "dist\n");
        fs::create_dir_all(env.root.join(".claude")).unwrap();
        std::os::unix::fs::symlink(&target, env.root.join(".claude/settings.json")).unwrap();
        let run = env.run(&["init"]).code(1);
        assert!(
            run.stderr.contains(".claude/settings.json")
                && run.stderr.contains("symlink")
                && run.stderr.contains("Registering by hand"),
            "{}",
            run.stderr
        );
        let meta = fs::symlink_metadata(env.root.join(".claude/settings.json")).unwrap();
        assert!(meta.file_type().is_symlink());
        assert!(
            !env.root.join(".capn").exists(),
            ".capn/ created before refusing"
        );
        assert_eq!(env.read(".gitignore"), "dist\n");
        if !dangling {
            assert_eq!(
                fs::read_to_string(&target).unwrap(),
                "{\"model\": \"opus\"}\n"
            );
        }
    }
}

/// `init --git` appends `capn prune` after the existing hook's `exit 0`, so it never runs.
#[cfg(unix)]
#[test]
fn qa_post_commit_prune_runs_when_the_existing_hook_ends_with_exit() {
    let env = Env::git();
    let hook = env.write(
        ".git/hooks/post-commit",
        "#!/bin/sh\necho committed\nexit 0\n",
    );
    {
        // Executable, as git needs it to run the hook (init refuses a non-executable one).
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    }
    env.run(&["init", "--git"]).ok();
    // Run the hook with a fake `capn` first on PATH that records its arguments.
    let bin = env.tmp.path().join("fakebin");
    fs::create_dir_all(&bin).unwrap();
    let log = env.tmp.path().join("capn-called");
    let fake = bin.join("capn");
    fs::write(
        &fake,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\n", log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = std::process::Command::new("sh")
        .arg(env.root.join(".git/hooks/post-commit"))
        .current_dir(&env.root)
        .env("PATH", path)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let called = crate::init::wait_for_log(&log);
    assert!(
        called.contains("prune"),
        "post-commit never ran capn prune:\n{}",
        env.read(".git/hooks/post-commit")
    );
}

/// A derived file that cannot be written must not hide answers: with `.capn/index.bin` a
/// directory (stands in for disk full / EIO on the cache write), `ask` prints nothing and exits 1
/// although the entry is fresh.
#[test]
fn qa_ask_answers_when_a_derived_file_cannot_be_written() {
    let env = Env::git();
    env.write("a.txt", "a");
    let id = chart_id(&env, &["chart", "alpha question here", "--files", "a.txt"]);
    let idx = env.root.join(".capn/index.bin");
    let _ = fs::remove_file(&idx);
    fs::create_dir_all(&idx).unwrap();
    let run = env.run(&["ask", "alpha question here"]);
    assert!(
        run.code == 0 && run.stdout.contains(&id),
        "ask hid a fresh entry: code {} stdout {:?} stderr {:?}",
        run.code,
        run.stdout,
        run.stderr
    );
}

/// An entry edited in place (same inode, e.g. by an editor that writes in place) is listed with
/// its new question but not found by it: the index is trusted because name and inode match.
#[test]
fn qa_entry_edited_in_place_is_found_by_its_new_words() {
    let env = Env::git();
    env.write("a.txt", "a");
    let id = chart_id(
        &env,
        &[
            "chart",
            "question about the alpha module",
            "--files",
            "a.txt",
        ],
    );
    env.run(&["ask", "alpha module"]).ok(); // builds the index
    let p = env.root.join(format!(".capn/entries/{id}.md"));
    let text = fs::read_to_string(&p)
        .unwrap()
        .replace("question about the alpha module", "where do zebras graze");
    let mut f = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&p)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
    drop(f);
    assert!(env
        .run(&["list"])
        .ok()
        .stdout
        .contains("where do zebras graze"));
    let run = env.run(&["ask", "zebras graze"]);
    assert!(
        run.stdout.contains(&id),
        "in-place edited entry not found by its new question: code {} stderr {}",
        run.code,
        run.stderr
    );
}

/// Best first: asking the exact charted question must rank that entry first. One-character
/// tokens (digits) are dropped, so questions that differ only in them tie and are ordered by id.
#[test]
fn qa_exact_question_ranks_first() {
    let env = Env::git();
    let mut ids = Vec::new();
    for i in 1..=3 {
        env.write(&format!("f{i}.txt"), &format!("file {i}"));
        ids.push(chart_id(
            &env,
            &[
                "chart",
                &format!("question about file number {i}"),
                "--files",
                &format!("f{i}.txt"),
            ],
        ));
    }
    for (i, id) in ids.iter().enumerate() {
        let run = env
            .run(&["ask", &format!("question about file number {}", i + 1)])
            .ok();
        let first = &run.jsonl()[0];
        assert_eq!(
            first["id"],
            id.as_str(),
            "exact question {} did not rank first:\n{}",
            i + 1,
            run.stdout
        );
    }
}

/// Path keys round-trip with spaces, and format.md quotes keys with trailing white space, but
/// chart trims every --files value, so a file whose name ends in a space cannot be charted.
#[test]
fn qa_file_name_with_trailing_space_can_be_charted() {
    let env = Env::git();
    env.write("trail.txt ", "x");
    let run = env.run(&[
        "chart",
        "where is the trailing file",
        "--files",
        "trail.txt ",
    ]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let ask = env.run(&["ask", "where is the trailing file"]).ok();
    assert_eq!(ask.jsonl()[0]["files"][0], "trail.txt ");
}
