//! `capn init --git` with a real git: the post-commit line goes where git runs hooks
//! (`core.hooksPath`, a linked worktree's main checkout, a submodule's hooks in the
//! superproject), never outside the project, and never into a hook in another language.

#[cfg(unix)]
use crate::init::{wait_for_log, PRUNE_GUARDED};
use crate::init::{write_hook, PRUNE_LINES};
use crate::util::Env;
#[cfg(unix)]
use std::fs;

/// Writes an executable file at an absolute path (a decoy hook outside the project).
#[cfg(unix)]
fn write_hook_at(path: &std::path::Path, content: &str) {
    use std::os::unix::fs::PermissionsExt;
    fs::write(path, content).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs git in `dir` with the test's HOME and no system config; `None` when git is unavailable.
#[cfg(unix)]
fn git(env: &Env, dir: &std::path::Path, args: &[&str], path: Option<&str>) -> Option<()> {
    let mut c = env.git_cmd(
        dir,
        &[
            "-c",
            "user.name=capn",
            "-c",
            "user.email=capn@example.invalid",
        ],
    );
    c.args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(p) = path {
        c.env("PATH", p);
    }
    let status = c.status().ok()?;
    assert!(status.success(), "git {args:?} failed in {}", dir.display());
    Some(())
}

/// A fake `capn` first on PATH that logs its arguments; returns (PATH value, log file).
#[cfg(unix)]
fn fake_capn(env: &Env) -> (String, std::path::PathBuf) {
    let (bin, log) = env.fake_capn();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (path, log)
}

/// A real repository (`git init`) in the project; `None` when git is unavailable.
#[cfg(unix)]
fn real_repo(env: &Env) -> Option<()> {
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("git not found; skipped");
        return None;
    }
    git(env, &env.root, &["init", "-q"], None)?;
    git(
        env,
        &env.root,
        &["commit", "-q", "--allow-empty", "-m", "init"],
        None,
    )
}

/// With `core.hooksPath` set (husky and friends) git never looks in .git/hooks: the line goes
/// where git looks, a commit runs it, and uninstall takes it out of the same file.
#[cfg(unix)]
#[test]
fn git_hook_goes_where_core_hooks_path_points() {
    let env = Env::new();
    if real_repo(&env).is_none() {
        return;
    }
    git(
        &env,
        &env.root,
        &["config", "core.hooksPath", ".husky"],
        None,
    );
    env.run(&["init", "--git"]).ok();
    assert!(!env.root.join(".git/hooks/post-commit").exists());
    let hook = env.read(".husky/post-commit");
    assert_eq!(
        hook.lines().filter(|l| *l == PRUNE_GUARDED).count(),
        1,
        "{hook}"
    );
    let (path, log) = fake_capn(&env);
    git(
        &env,
        &env.root,
        &["commit", "-q", "--allow-empty", "-m", "x"],
        Some(&path),
    );
    assert_eq!(wait_for_log(&log), "prune --expired\n");
    env.run(&["uninstall"]).ok();
    assert!(!env.root.join(".husky/post-commit").exists());
}

/// In a linked worktree git runs the main checkout's hooks, which lie outside the worktree:
/// `init --git` there is refused with the line to add by hand, and nothing is written; in the
/// main checkout it adds the line for every worktree.
#[cfg(unix)]
#[test]
fn git_hook_in_a_linked_worktree_is_left_to_the_main_checkout() {
    let env = Env::new();
    if real_repo(&env).is_none() {
        return;
    }
    let wt = env.tmp.path().join("wt");
    git(
        &env,
        &env.root,
        &["worktree", "add", "-q", wt.to_str().unwrap()],
        None,
    );
    let wt = wt.canonicalize().unwrap();
    let run = env.run_cmd(env.cmd_in(&wt, &["init", "--git"]), b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("main checkout"), "{}", run.stderr);
    assert!(run.stderr.contains(PRUNE_GUARDED), "{}", run.stderr);
    let shared = env.root.join(".git/hooks/post-commit");
    assert!(!shared.exists());
    assert!(!wt.join(".capn").exists(), "a refusal writes nothing");
    env.run(&["init", "--git"]).ok();
    let (path, log) = fake_capn(&env);
    git(
        &env,
        &wt,
        &["commit", "-q", "--allow-empty", "-m", "x"],
        Some(&path),
    );
    assert_eq!(wait_for_log(&log), "prune --expired\n");
    env.run_cmd(env.cmd_in(&wt, &["uninstall"]), b"").ok();
    assert!(
        shared.exists(),
        "the worktree's uninstall keeps the main checkout's hook"
    );
}

/// A submodule's hooks live in the superproject's `.git/modules/<name>/hooks`, inside the
/// project that holds it: `init --git` there adds the line where git runs it, and a commit in
/// the submodule runs it.
#[cfg(unix)]
#[test]
fn git_hook_in_a_submodule_goes_to_its_hooks_in_the_superproject() {
    let env = Env::new();
    if real_repo(&env).is_none() {
        return;
    }
    let lib = env.tmp.path().join("lib");
    fs::create_dir_all(&lib).unwrap();
    git(&env, &lib, &["init", "-q"], None);
    git(
        &env,
        &lib,
        &["commit", "-q", "--allow-empty", "-m", "lib"],
        None,
    );
    git(
        &env,
        &env.root,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "sub",
        ],
        None,
    );
    let sub = env.root.join("sub");
    let run = env.run_cmd(env.cmd_in(&sub, &["init", "--git"]), b"").ok();
    let hook = env.root.join(".git/modules/sub/hooks/post-commit");
    assert!(
        fs::read_to_string(&hook)
            .unwrap_or_default()
            .contains(PRUNE_GUARDED),
        "{}",
        run.stdout
    );
    let (path, log) = fake_capn(&env);
    git(
        &env,
        &sub,
        &["commit", "-q", "--allow-empty", "-m", "x"],
        Some(&path),
    );
    assert_eq!(wait_for_log(&log), "prune --expired\n");
}

/// A repository cannot steer the hook write out of the project: not through a symlinked folder
/// on `core.hooksPath` (husky's layout with a committed `.husky` link), nor through a `.git` file
/// git does not accept. Nothing is written outside; the decoy hook keeps its bytes.
#[cfg(unix)]
#[test]
fn git_hook_is_never_written_outside_the_project() {
    let env = Env::new();
    if real_repo(&env).is_none() {
        return;
    }
    let decoy = env.tmp.path().join("decoy");
    fs::create_dir_all(decoy.join("_")).unwrap();
    let precious = "#!/bin/sh\necho precious\n";
    write_hook_at(&decoy.join("_/post-commit"), precious);
    std::os::unix::fs::symlink(&decoy, env.root.join(".husky")).unwrap();
    git(
        &env,
        &env.root,
        &["config", "core.hooksPath", ".husky/_"],
        None,
    );
    let run = env.run(&["init", "--git"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("symlink"), "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(decoy.join("_/post-commit")).unwrap(),
        precious
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(
        fs::read_to_string(decoy.join("_/post-commit")).unwrap(),
        precious
    );

    // A `.git` file naming a place outside, which git rejects.
    let other = env.tmp.path().join("other");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join(".git"), "gitdir: ../decoy2/not/yet\n").unwrap();
    let run = env.run_cmd(env.cmd_in(&other, &["init", "--git"]), b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!env.tmp.path().join("decoy2").exists());
}

/// A post-commit hook in another language is refused: exit 1, a message naming the
/// interpreter, and nothing written anywhere.
#[test]
fn git_hook_in_python_is_refused_and_nothing_is_written() {
    let env = Env::git();
    let hook = "#!/usr/bin/env python3\nprint('committed')\n";
    write_hook(&env, ".git/hooks/post-commit", hook);
    let run = env.run(&["init", "--git"]).code(1);
    assert!(run.stderr.contains("python3"), "{}", run.stderr);
    assert_eq!(env.read(".git/hooks/post-commit"), hook);
    for rel in [".capn", ".gitignore", ".claude", ".codex"] {
        assert!(!env.root.join(rel).exists(), "{rel} written");
    }
}

/// An existing hook that ends with `exec` gets the line before it (right after the shebang).
#[test]
fn git_hook_line_goes_before_a_trailing_exec() {
    let env = Env::git();
    write_hook(
        &env,
        ".git/hooks/post-commit",
        "#!/bin/sh\nexec .git/hooks/post-commit.local \"$@\"\n",
    );
    env.run(&["init", "--git"]).ok();
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        format!("#!/bin/sh\n{PRUNE_LINES}exec .git/hooks/post-commit.local \"$@\"\n")
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        "#!/bin/sh\nexec .git/hooks/post-commit.local \"$@\"\n"
    );
}

/// A hook whose `#!` line ends in CRLF cannot run on Unix (the system looks for `/bin/sh\r`):
/// `init --git` refuses such a post-commit hook and leaves such a pull hook as it is, naming
/// each with the reason, and doctor says a capn line in one never runs.
#[cfg(unix)]
#[test]
fn a_hook_whose_shebang_ends_in_crlf_is_left_as_it_is_and_doctor_says_it_cannot_run() {
    let env = Env::git();
    let crlf = "#!/bin/sh\r\necho committed\r\n";
    write_hook(&env, ".git/hooks/post-commit", crlf);
    let why = "has a #! line ending in a carriage return (Windows line ends), so the system \
               looks for an interpreter whose name ends in \\r and git cannot start it (bad \
               interpreter)";
    let run = env.run(&["init", "--git"]).code(1);
    let said = format!("post-commit {why}; a `capn prune` line in it would never run");
    assert!(run.stderr.contains(&said), "{}", run.stderr);
    assert_eq!(env.read(".git/hooks/post-commit"), crlf);
    assert!(!env.root.join(".capn").exists());
    // A pull hook like it is left as it is; the rest goes on.
    write_hook(
        &env,
        ".git/hooks/post-commit",
        "#!/bin/sh\necho committed\n",
    );
    write_hook(&env, ".git/hooks/post-merge", crlf);
    let run = env.run(&["init", "--git"]).ok();
    let left =
        format!("  left .git/hooks/post-merge as it is: it {why}, so it cannot run capn refresh");
    assert!(run.stdout.contains(&left), "{}", run.stdout);
    assert_eq!(env.read(".git/hooks/post-merge"), crlf);
    let doctor = env.run(&["doctor"]).stdout;
    let warn =
        format!("warn  .git/hooks/post-merge runs capn refresh: .git/hooks/post-merge {why}");
    assert!(doctor.contains(&warn), "{doctor}");
    assert!(
        doctor.contains("ok    .git/hooks/post-commit runs capn prune"),
        "{doctor}"
    );
    // capn's line in a hook that cannot start never runs: doctor says so, with the reason.
    let text = env
        .read(".git/hooks/post-commit")
        .replacen("#!/bin/sh\n", "#!/bin/sh\r\n", 1);
    write_hook(&env, ".git/hooks/post-commit", &text);
    let doctor = env.run(&["doctor"]).stdout;
    let failed = format!(
        "FAILED .git/hooks/post-commit runs capn prune: .git/hooks/post-commit cannot run: it \
         {why}, so capn prune never runs\n  fix: dos2unix "
    );
    assert!(doctor.contains(&failed), "{doctor}");
}

/// capn's comment line left alone in a hook after the user deleted only capn's line below it:
/// `init --git` puts the line back under one comment (no second one), and `uninstall` takes the
/// comment out too, so the hook comes back as it was before capn (a hook `init` created goes).
#[test]
fn a_lone_capn_comment_is_not_doubled_by_init_nor_left_by_uninstall() {
    let comment = PRUNE_LINES.lines().next().unwrap();
    let line_gone = |env: &Env| {
        let text = env.read(".git/hooks/post-commit");
        let kept: String = text
            .split_inclusive('\n')
            .filter(|l| !l.contains("capn prune --expired"))
            .collect();
        write_hook(env, ".git/hooks/post-commit", &kept);
    };
    let env = Env::git();
    let mine = "#!/bin/sh\necho mine\n";
    write_hook(&env, ".git/hooks/post-commit", mine);
    env.run(&["init", "--git"]).ok();
    line_gone(&env);
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        format!("#!/bin/sh\n{comment}\necho mine\n")
    );
    env.run(&["init", "--git"]).ok();
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        format!("#!/bin/sh\n{PRUNE_LINES}echo mine\n")
    );
    // Uninstall gives back the hook as it was before capn, without the comment.
    env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".git/hooks/post-commit"), mine);
    // The line gone and uninstall next: the comment goes with what capn left.
    env.run(&["init", "--git"]).ok();
    line_gone(&env);
    let run = env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".git/hooks/post-commit"), mine, "{}", run.stdout);
    let said = "removed capn's comment from .git/hooks/post-commit (its capn prune line was \
                already gone)";
    assert!(run.stdout.contains(said), "{}", run.stdout);
    // A hook init created, holding nothing but capn's comment now: it goes.
    let env = Env::git();
    env.run(&["init", "--git"]).ok();
    line_gone(&env);
    env.run(&["uninstall"]).ok();
    assert!(!env.root.join(".git/hooks/post-commit").exists());
}
