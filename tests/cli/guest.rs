//! Install like a guest (issue 8): refusals come before any file is touched, a FIFO never makes
//! init, uninstall or doctor hang, `.gitignore` bytes stay bytes, and the registrations of older
//! capn versions that init replaced are put back by uninstall.

use crate::util::Env;
#[cfg(unix)]
use crate::util::Run;
use serde_json::json;
use std::fs;

/// Runs `capn args` and asserts it returned (a FIFO read would block forever).
#[track_caller]
#[cfg(unix)]
fn run_promptly(env: &Env, args: &[&str]) -> Run {
    env.run_unblocked(args)
}

#[cfg(unix)]
fn mkfifo(env: &Env, rel: &str) {
    let p = env.root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap()
        .success());
}

/// A FIFO in place of any host file init, uninstall or doctor reads: each returns (never
/// blocks), init and uninstall refuse naming it, a refused init created nothing, and doctor,
/// with the built `capn` on PATH (`Env::cmd`) so that it goes on to read the host files, fails
/// the check of the file the FIFO replaced.
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_host_file_is_refused_promptly() {
    for rel in [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".codex/hooks.json",
        ".gitignore",
        ".claude/skills/compact-prep/SKILL.md",
        ".git/hooks/post-commit",
    ] {
        let env = Env::git();
        mkfifo(&env, rel);
        let run = run_promptly(&env, &["init", "--git"]);
        // init reads .gitignore only to take back the line capn 0.3 added, where 0.3's install
        // record says it did: here it never touches it.
        if rel == ".gitignore" {
            assert_eq!(run.code, 0, "init with a FIFO at {rel}: {run:?}");
            continue;
        }
        assert_eq!(run.code, 1, "init with a FIFO at {rel}: {run:?}");
        assert!(
            run.stderr.contains(rel.rsplit('/').next().unwrap()),
            "{rel}: {}",
            run.stderr
        );
        assert!(!env.root.join(".capn").exists(), "{rel}: .capn/ created");
        let run = run_promptly(&env, &["doctor"]);
        assert_ne!(run.code, -1, "doctor with a FIFO at {rel}");
        // uninstall in a project set up before the FIFO appeared
        let env = Env::git();
        env.run(&["init", "--git"]).ok();
        let p = env.root.join(rel);
        let _ = fs::remove_file(&p);
        mkfifo(&env, rel);
        let run = run_promptly(&env, &["uninstall"]);
        // uninstall reads .gitignore only to take back capn 0.3's line: one it cannot read is
        // left alone.
        let expected = if rel == ".gitignore" { 0 } else { 1 };
        assert_eq!(
            run.code, expected,
            "uninstall with a FIFO at {rel}: {run:?}"
        );
        let run = run_promptly(&env, &["doctor"]);
        match rel {
            // uninstall went through (it leaves a .gitignore it cannot read alone), and doctor,
            // which does not read that file, finds the hooks gone.
            ".gitignore" => {
                assert_eq!(run.code, 1, "doctor with a FIFO at {rel}: {run:?}");
                assert!(
                    run.stdout.contains(
                        "FAILED Claude SessionStart hook: no `capn hook session-start` handler"
                    ),
                    "{run:?}"
                );
            }
            // The check of the file the FIFO replaced fails, naming it: doctor read that far.
            _ => {
                assert_eq!(run.code, 1, "doctor with a FIFO at {rel}: {run:?}");
                assert!(
                    run.stdout.contains("ok    capn on PATH: "),
                    "doctor did not find the built capn: {run:?}"
                );
                assert!(
                    run.stdout.lines().any(|l| l.starts_with("FAILED ")
                        && l.contains(rel)
                        && l.ends_with("is a FIFO, not a regular file")),
                    "doctor with a FIFO at {rel} did not fail its check: {}",
                    run.stdout
                );
            }
        }
    }
}

/// A read-only (0444) settings file is not rewritten: init refuses before creating `.capn/` or
/// editing `.gitignore`, and says why.
#[cfg(unix)]
#[test]
fn a_read_only_settings_file_is_refused_before_anything_is_touched() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::git();
    let p = env.write(".claude/settings.json", "{\n  \"model\": \"opus\"\n}\n");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o444)).unwrap();
    env.write(".gitignore", "dist\n");
    let run = env.run(&["init"]).code(1);
    assert!(
        run.stderr.contains(".claude/settings.json") && run.stderr.contains("read-only"),
        "{}",
        run.stderr
    );
    assert_eq!(
        env.read(".claude/settings.json"),
        "{\n  \"model\": \"opus\"\n}\n"
    );
    assert_eq!(env.read(".gitignore"), "dist\n");
    assert!(!env.root.join(".capn").exists());
    assert!(!env.root.join(".codex/hooks.json").exists());
}

/// `.gitignore` holding non-UTF-8 bytes keeps them: init does not edit it, and only the exact
/// line capn 0.3 added leaves it, where 0.3's install record says it ran (every other byte as
/// it was).
#[test]
fn a_non_utf8_gitignore_keeps_its_bytes() {
    let env = Env::git();
    let p = env.root.join(".gitignore");
    fs::write(&p, b"caf\xe9/\r\nbuild").unwrap();
    env.run(&["init"]).ok();
    assert_eq!(fs::read(&p).unwrap(), b"caf\xe9/\r\nbuild");
    fs::write(&p, b"caf\xe9/\r\n.capn/\r\nbuild").unwrap();
    crate::user_data::forge_0_3_record(&env);
    env.run(&["init"]).ok();
    assert_eq!(fs::read(&p).unwrap(), b"caf\xe9/\r\nbuild");
}

/// capn 0.1's split registration and its Stop `capn nudge` are replaced by init (so the contract
/// is not injected twice and no Stop hook fails) and put back by uninstall, even after the user
/// edited the file in between (then through the syntax tree, in place).
#[test]
fn older_registrations_are_replaced_and_put_back() {
    let original = json!({
        "model": "opus",
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "/usr/bin/env", "args": ["capn", "context"]}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify"}, {"type": "command", "command": "capn nudge"}]}]
        }
    });
    let text = serde_json::to_string_pretty(&original).unwrap() + "\n";
    for edit_between in [false, true] {
        let env = Env::git();
        env.write(".claude/settings.json", &text);
        let run = env.run(&["init"]).ok();
        assert!(run.stdout.contains("capn-hook 0.1"), "{}", run.stdout);
        let after = env.read(".claude/settings.json");
        assert!(
            !after.contains("nudge") && !after.contains("\"context\""),
            "{after}"
        );
        let expected = if edit_between {
            env.write(
                ".claude/settings.json",
                &after.replace("\"opus\"", "\"sonnet\""),
            );
            text.replace("\"opus\"", "\"sonnet\"")
        } else {
            text.clone()
        };
        let run = env.run(&["uninstall"]).ok();
        assert!(
            run.stdout.contains("put back") || !edit_between,
            "{}",
            run.stdout
        );
        if edit_between {
            // Put back in place through the syntax tree: the same JSON, the user's edit kept.
            let back: serde_json::Value =
                serde_json::from_str(&env.read(".claude/settings.json")).unwrap();
            let want: serde_json::Value = serde_json::from_str(&expected).unwrap();
            assert_eq!(back, want);
        } else {
            assert_eq!(env.read(".claude/settings.json"), expected);
        }
    }
}

/// A post-commit hook that ends early (`... || exit 0` before its last line) gets `capn prune`
/// right after its shebang, guarded and backgrounded, where running the hook reaches it; an
/// older capn's line appended after the early exit is reported by doctor and moved by
/// `init --git` (issue 8, point 4).
#[cfg(unix)]
#[test]
fn post_commit_prune_goes_where_the_hook_runs_it_and_doctor_checks_that() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::git();
    let early = "#!/bin/sh\nhas_hook_script postcommit || exit 0\necho done\n";
    let hook = env.write(".git/hooks/post-commit", &format!("{early}capn prune\n"));
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    env.run(&["init"]).ok();
    // The 0.3.0 placement: doctor says a commit may never reach it.
    let run = env.run(&["doctor"]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("FAILED .git/hooks/post-commit runs capn prune"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        line.contains("has_hook_script postcommit || exit 0"),
        "{line}"
    );
    // init --git moves it up, guarded and in the background.
    env.run(&["init", "--git"]).ok();
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        format!(
            "#!/bin/sh\n{}{}",
            crate::init::PRUNE_LINES,
            &early["#!/bin/sh\n".len()..]
        )
    );
    let run = env.run(&["doctor"]);
    assert!(
        run.stdout
            .contains("ok    .git/hooks/post-commit runs capn prune"),
        "{}",
        run.stdout
    );
    // Running the hook (has_hook_script is not defined: the early exit fires) still prunes.
    let (bin, log) = env.fake_capn();
    let status = std::process::Command::new(&hook)
        .current_dir(&env.root)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(crate::init::wait_for_log(&log), "prune --expired\n");
    // Without capn on PATH the guarded line is silent and the hook still succeeds (an empty
    // folder as PATH: /usr/bin may hold a capn on the machine running the tests).
    let empty = env.tmp.path().join("empty-path");
    fs::create_dir_all(&empty).unwrap();
    let status = std::process::Command::new(&hook)
        .current_dir(&env.root)
        .env("PATH", &empty)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    env.run(&["uninstall"]).ok();
    // Byte for byte as before init, its own `capn prune` line included.
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        format!("{early}capn prune\n")
    );
}
