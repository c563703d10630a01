//! `capn refresh` and the `capn refresh` line `init --git` puts in git's post-merge,
//! post-rewrite and post-checkout hooks: the index it leaves answers as a rebuild does (with the
//! delta folded), it is quiet and never waits for a held lock, a real `git pull` brings the
//! index up to date before the next `ask`, and `uninstall` gives the user's hooks back byte for
//! byte.

use crate::delta::{answers, chart, large_store, rebuilt_answers};
use crate::git_scenarios::{capn, git, shared_repo};
use crate::util::{make_executable, Env};
use std::fs;
use std::path::Path;

const REFRESH_COMMENT: &str =
    "# Added by capn init: bring capn's search index up to date with the charts git brought.";
const REFRESH_LINE: &str = "command -v capn >/dev/null 2>&1 && { capn refresh >/dev/null 2>&1 & }";

/// Writes entry `id` over `file` (created), as a pull brings one: straight into the folder.
fn pulled_entry(env: &Env, id: &str, topic: &str) {
    let file = format!("src/{topic}.ts");
    let text = format!("// {topic}\n");
    env.write(&file, &text);
    let hash = crate::delta::sha256_hex(text.as_bytes());
    env.write(
        &format!(".capn/entries/{id}.md"),
        &format!("---\ncapn: 1\nid: {id}\nat: 2026-01-01T00:00:00Z\nfiles:\n  {file}: {hash}\n---\n\n# Where is {topic} handled?\n\nIn the handler of {topic}.\n"),
    );
}

/// `index.bin`'s bytes and modification time: changed by any rewrite.
fn index_state(dir: &Path) -> (Vec<u8>, std::time::SystemTime) {
    let p = dir.join(".capn/index.bin");
    (
        fs::read(&p).unwrap(),
        fs::metadata(&p).unwrap().modified().unwrap(),
    )
}

#[test]
fn refresh_indexes_pulled_entries_folds_the_delta_and_answers_as_a_rebuild() {
    let env = large_store(&[], 520);
    chart(&env, "Where are giraffes fed?", "src/zoo.ts");
    assert!(env.root.join(".capn/delta.bin").is_file(), "no delta");
    for (i, topic) in ["okapis", "tapirs", "quokkas"].iter().enumerate() {
        pulled_entry(&env, &format!("{:08x}", 0x2000_0000 + i), topic);
    }
    let before = index_state(&env.root);
    let run = env.run(&["refresh"]).ok();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    assert!(
        !env.root.join(".capn/delta.bin").exists(),
        "the delta was not folded"
    );
    let after = index_state(&env.root);
    assert_ne!(after.0, before.0, "index.bin was not brought up to date");
    // Nothing changed since: a second refresh, and the asks, find it current and write nothing.
    env.run(&["refresh"]).ok();
    let mut got = answers(&env);
    let out = env.run(&["ask", "Where is tapirs handled?"]).ok().stdout;
    assert!(out.contains("20000001"), "{out}");
    got.push((Some(0), out));
    assert!(
        index_state(&env.root) == after,
        "index.bin was written again"
    );
    let mut want = rebuilt_answers(&env);
    want.push((
        Some(0),
        env.run(&["ask", "Where is tapirs handled?"]).ok().stdout,
    ));
    assert_eq!(got, want);
}

#[test]
fn refresh_exits_quietly_at_once_when_another_capn_holds_the_lock() {
    let env = Env::new();
    env.run(&["init", "--no-embedding"]).ok();
    chart(&env, "Where are giraffes fed?", "src/zoo.ts");
    pulled_entry(&env, "20000000", "okapis");
    let before = index_state(&env.root);
    let lock = crate::concurrency::hold_writers_lock(&env);
    // A writer that waited would say so on stderr after a second, then fail.
    let run = env.run(&["refresh"]).ok();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    assert!(
        index_state(&env.root) == before,
        "written under another's lock"
    );
    drop(lock);
    env.run(&["refresh"]).ok();
    assert_ne!(index_state(&env.root).0, before.0);
}

/// Waits until `capn refresh`, run in the background by a git hook, has rewritten the clone's
/// `index.bin` (it differs from `before`) and let the store's lock go. A guard against a hook
/// that never runs, not a measure of time.
fn wait_for_refresh(dir: &Path, before: &[u8]) {
    let deadline = std::time::Instant::now() + crate::util::HANG_GUARD;
    while std::time::Instant::now() < deadline {
        let changed = fs::read(dir.join(".capn/index.bin")).is_ok_and(|b| b != before);
        let lock = fs::File::options()
            .read(true)
            .write(true)
            .open(dir.join(".capn/lock"));
        let free = lock.is_ok_and(|l| l.try_lock().is_ok());
        if changed && free {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("no git hook brought {}'s index up to date", dir.display());
}

#[test]
fn after_git_pull_the_hooks_have_brought_the_index_up_to_date() {
    let (env, _) = shared_repo();
    let url = format!("file://{}", env.root.display());
    git(&env, env.tmp.path(), &["clone", "-q", &url, "clone"]);
    let clone = env.tmp.path().join("clone").canonicalize().unwrap();
    capn(&env, &clone, &["init", "--git"]).ok();
    capn(&env, &clone, &["ask", "Where are giraffes fed?"]);
    for (i, (pull, topic)) in [("--no-rebase", "refunds"), ("--rebase", "invoices")]
        .into_iter()
        .enumerate()
    {
        // A teammate charts and pushes; here, with a commit of the clone's own first on a
        // rebase (git then runs post-checkout and post-rewrite, not post-merge).
        let q = format!("Where are {topic} issued?");
        env.write(&format!("src/{topic}.rs"), &format!("// {topic}\n"));
        let id = crate::git_scenarios::chart(&env, &env.root, &q, &format!("src/{topic}.rs"));
        git(&env, &env.root, &["add", "-A"]);
        git(&env, &env.root, &["commit", "-q", "-m", topic]);
        fs::write(clone.join(format!("local{i}.txt")), "mine\n").unwrap();
        git(&env, &clone, &["add", &format!("local{i}.txt")]);
        git(&env, &clone, &["commit", "-q", "-m", "local"]);
        let (before, _) = index_state(&clone);
        git(&env, &clone, &["pull", "-q", "--no-edit", pull]);
        wait_for_refresh(&clone, &before);
        // The next ask finds the index current: it answers the pulled chart and rewrites
        // nothing.
        let after = index_state(&clone);
        assert_eq!(crate::git_scenarios::answers(&env, &clone, &q), vec![id]);
        assert!(
            index_state(&clone) == after,
            "the ask after {pull} rebuilt the index"
        );
    }
}

#[test]
fn init_git_adds_refresh_to_the_pull_hooks_and_uninstall_gives_them_back_byte_for_byte() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let hooks = env.root.join(".git/hooks");
    // A line of the user's with its own (CRLF) line end keeps it.
    let mine = "#!/bin/sh\nexec my-merge-hook \"$@\"\r\n";
    fs::write(hooks.join("post-merge"), mine).unwrap();
    make_executable(&hooks.join("post-merge"));
    let run = env.run(&["init", "--git"]).ok();
    for h in ["post-merge", "post-rewrite", "post-checkout"] {
        let said = format!("added capn refresh to .git/hooks/{h}");
        assert!(run.stdout.contains(&said), "{h}: {}", run.stdout);
    }
    let c = REFRESH_COMMENT;
    let l = REFRESH_LINE;
    assert_eq!(
        fs::read_to_string(hooks.join("post-merge")).unwrap(),
        format!("#!/bin/sh\n{c}\n{l}\nexec my-merge-hook \"$@\"\r\n")
    );
    assert_eq!(
        fs::read_to_string(hooks.join("post-checkout")).unwrap(),
        format!("#!/bin/sh\n{c}\n{l}\n")
    );
    // A second run changes nothing.
    let again = env.run(&["init", "--git"]).ok();
    assert!(!again.stdout.contains("capn refresh"), "{}", again.stdout);
    let doctor = env.run(&["doctor"]).stdout;
    for h in ["post-merge", "post-rewrite", "post-checkout"] {
        let ok = format!(
            "ok    .git/hooks/{h} runs capn refresh (reached before anything can end the hook)"
        );
        assert!(doctor.contains(&ok), "{h}: {doctor}");
    }
    // A hook that lost its line is reported.
    fs::write(hooks.join("post-rewrite"), "#!/bin/sh\n").unwrap();
    let doctor = env.run(&["doctor"]).stdout;
    assert!(
        doctor.contains("FAILED .git/hooks/post-rewrite runs capn refresh: the capn refresh line"),
        "{doctor}"
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(fs::read(hooks.join("post-merge")).unwrap(), mine.as_bytes());
    assert!(!hooks.join("post-checkout").exists());
    // The hook the user changed since stays as they left it.
    assert_eq!(
        fs::read_to_string(hooks.join("post-rewrite")).unwrap(),
        "#!/bin/sh\n"
    );
}

#[test]
fn uninstall_keeps_what_the_user_added_to_a_pull_hook_since() {
    let env = Env::git();
    env.run(&["init", "--git"]).ok();
    let hook = env.root.join(".git/hooks/post-merge");
    let mut text = fs::read_to_string(&hook).unwrap();
    text.push_str("echo mine\n");
    fs::write(&hook, &text).unwrap();
    env.run(&["uninstall"]).ok();
    assert_eq!(fs::read_to_string(&hook).unwrap(), "#!/bin/sh\necho mine\n");
    assert!(!env.root.join(".git/hooks/post-checkout").exists());
}

#[test]
fn init_git_leaves_a_pull_hook_that_cannot_take_a_shell_line_as_it_is_and_says_so() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let hooks = env.root.join(".git/hooks");
    // The user's own Python hook: a shell line would break it. The refresh only saves time, so
    // init --git goes on (post-commit and the other pull hooks) and names the hook it left.
    let mine = "#!/usr/bin/env python3\nprint('merged')\n";
    fs::write(hooks.join("post-merge"), mine).unwrap();
    make_executable(&hooks.join("post-merge"));
    let run = env.run(&["init", "--git"]).ok();
    assert!(
        run.stdout.contains("  left .git/hooks/post-merge as it is: it runs with `python3` (#!/usr/bin/env python3), not a POSIX shell, so it cannot run capn refresh (the first capn ask after a pull indexes what the pull brought instead)\n"),
        "{}",
        run.stdout
    );
    for h in ["post-rewrite", "post-checkout"] {
        let said = format!("added capn refresh to .git/hooks/{h}");
        assert!(run.stdout.contains(&said), "{h}: {}", run.stdout);
    }
    assert_eq!(fs::read_to_string(hooks.join("post-merge")).unwrap(), mine);
    assert!(fs::read_to_string(hooks.join("post-commit"))
        .unwrap()
        .contains("capn prune --expired"));
    let doctor = env.run(&["doctor"]).stdout;
    assert!(
        doctor.contains("warn  .git/hooks/post-merge runs capn refresh: .git/hooks/post-merge runs with `python3` (#!/usr/bin/env python3), not a POSIX shell; capn init --git left it as it is, so the first capn ask after a git pull reads every chart the pull brought\n  fix: have .git/hooks/post-merge run `capn refresh` itself (in the background), or leave it\n"),
        "{doctor}"
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(fs::read_to_string(hooks.join("post-merge")).unwrap(), mine);
}

#[test]
fn init_shared_without_git_points_at_the_pull_hooks_and_with_git_installs_them() {
    let tip = "  tip: capn init --git refreshes the index in the background after each git pull (post-merge, post-rewrite, post-checkout), so the first ask after one stays fast\n";
    let env = Env::git();
    let run = env.run(&["init", "--shared"]).ok();
    assert!(run.stdout.contains(tip), "{}", run.stdout);
    // Said when the store becomes shared, not on every run after.
    let again = env.run(&["init", "--shared"]).ok();
    assert!(!again.stdout.contains("tip: "), "{}", again.stdout);
    let env = Env::git();
    let run = env.run(&["init", "--shared", "--git"]).ok();
    assert!(!run.stdout.contains("tip: "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("added capn refresh to .git/hooks/post-merge"),
        "{}",
        run.stdout
    );
}

/// A pull hook linked into the user's scripts folder (capn never wrote to it, with or without
/// `--git`): uninstall leaves it as it is, with a note, instead of refusing the whole uninstall.
#[cfg(unix)]
#[test]
fn uninstall_leaves_a_symlinked_pull_hook_alone_and_goes_on() {
    for (git, recorded) in [(false, true), (true, true), (true, false)] {
        let env = Env::git();
        let scripts = env.root.join("scripts");
        fs::create_dir_all(&scripts).unwrap();
        let mine = "#!/bin/sh\necho hi\n";
        fs::write(scripts.join("post-merge"), mine).unwrap();
        make_executable(&scripts.join("post-merge"));
        let hook = env.root.join(".git/hooks/post-merge");
        std::os::unix::fs::symlink("../../scripts/post-merge", &hook).unwrap();
        let init: &[&str] = if git { &["init", "--git"] } else { &["init"] };
        env.run(init).ok();
        if !recorded {
            // Without a record, uninstall looks at every hook: this one is named and left.
            fs::remove_file(env.root.join(".capn/install.json")).unwrap();
        }
        let run = env.run(&["uninstall"]).ok();
        assert_eq!(
            run.stdout.contains("  left .git/hooks/post-merge alone: "),
            !recorded,
            "{}",
            run.stdout
        );
        assert!(fs::symlink_metadata(&hook)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::read_to_string(scripts.join("post-merge")).unwrap(),
            mine
        );
        assert!(
            !env.root.join(".claude/settings.json").exists() || {
                let v = fs::read_to_string(env.root.join(".claude/settings.json")).unwrap();
                !v.contains("capn hook")
            }
        );
    }
}
