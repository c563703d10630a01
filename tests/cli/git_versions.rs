//! No version is lost to a branch (issue 28), local mode, in real git repositories: a re-chart
//! on a branch adds a version beside the one main holds instead of replacing it, and `prune`
//! deletes only the versions no branch, worktree or stash holds, saying what it kept.

use crate::git_scenarios::{answers, capn, chart, charted_repo, git, listed, Q};

#[test]
fn a_branch_keeps_its_version_and_prune_deletes_only_what_no_branch_holds() {
    let (env, id) = charted_repo(&[]);
    let root = env.root.clone();
    git(&env, &root, &["checkout", "-q", "-b", "feature"]);
    env.write(
        "src/webhooks.rs",
        "// rewritten on the feature branch\nfn handle2() {}\n",
    );
    git(&env, &root, &["commit", "-q", "-am", "feature edit"]);
    // Re-charted on the branch: a version of its own; main's stays.
    let mine = chart(&env, &root, Q, "src/webhooks.rs");
    assert_ne!(mine, id);
    assert_eq!(answers(&env, &root, Q), vec![mine.clone()]);
    git(&env, &root, &["checkout", "-q", "main"]);
    assert_eq!(answers(&env, &root, Q), vec![id.clone()]);
    // Stale on main, held by the branch: prune keeps it and says so.
    let run = capn(&env, &root, &["prune"]).ok();
    assert!(
        run.stdout
            .contains("kept 1 stale chart that is current in another checkout, branch or stash"),
        "{run:?}"
    );
    assert!(listed(&env, &root).contains(&(mine.clone(), true)));
    git(&env, &root, &["checkout", "-q", "feature"]);
    assert_eq!(answers(&env, &root, Q), vec![mine.clone()]);
    git(&env, &root, &["checkout", "-q", "main"]);

    // A chart of work in progress, stashed: the stash holds it.
    env.write(
        "src/pdf.rs",
        "// work in progress on the certificate layout\n",
    );
    let wip = chart(
        &env,
        &root,
        "Where is the certificate layout work in progress?",
        "src/pdf.rs",
    );
    git(&env, &root, &["stash", "-q"]);
    capn(&env, &root, &["prune"]).ok();
    assert!(listed(&env, &root).contains(&(wip.clone(), true)));

    // Once nothing holds them, prune deletes them.
    git(&env, &root, &["branch", "-q", "-D", "feature"]);
    git(&env, &root, &["stash", "drop", "-q"]);
    let run = capn(&env, &root, &["prune"]).ok();
    assert!(
        run.stdout.starts_with("pruned 2 stale entries\n"),
        "{run:?}"
    );
    let ids: Vec<String> = listed(&env, &root).into_iter().map(|(i, _)| i).collect();
    assert!(
        ids.contains(&id) && !ids.contains(&mine) && !ids.contains(&wip),
        "{ids:?}"
    );
}

/// Whether a branch holds a stale chart is asked of two long-running `git cat-file`s for the
/// whole run: a prune of 40 stale charts (each on a shared file and one of its own, all held by
/// `HEAD`) starts a handful of git processes, where it used to start two per chart. Counted
/// with a `git` on `PATH` that logs each start and runs the real one.
#[cfg(unix)]
#[test]
fn prune_asks_git_about_branches_in_a_few_processes_not_per_chart() {
    use std::os::unix::fs::PermissionsExt;
    let (env, _) = charted_repo(&[]);
    let root = env.root.clone();
    for i in 0..40 {
        env.write(&format!("src/m{i}.rs"), &format!("// module {i}\n"));
        let q = format!("Where is the handler of module number {i} registered?");
        chart(&env, &root, &q, &format!("src/webhooks.rs,src/m{i}.rs"));
    }
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "modules"]);
    env.write("src/webhooks.rs", "// changed after the commit\n");
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bin = env.tmp.path().join("logging-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = env.tmp.path().join("git.log");
    let wrapper = bin.join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$1 $2\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.trim()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut c = env.cmd_in(&root, &["prune"]);
    crate::git_scenarios::pin_git(&env, &mut c);
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&crate::util::test_path())),
    )
    .unwrap();
    c.env("PATH", path);
    let run = env.run_cmd(c, b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("kept 41 stale charts that are current in another checkout, branch or stash"),
        "{}",
        run.stdout
    );
    let starts = std::fs::read_to_string(&log).unwrap();
    let cat_files = starts.lines().filter(|l| l.starts_with("cat-file")).count();
    assert!(cat_files <= 2, "{cat_files} cat-file runs:\n{starts}");
    assert!(starts.lines().count() <= 12, "{starts}");
}

/// A `git cat-file` that fails during a prune (here a corrupt object on the branch that holds
/// the charts) leaves every chart it could not judge in place: the long-running processes must
/// not turn one failure into "held by nothing" for the rest of the run.
#[test]
fn a_git_failure_during_prune_deletes_no_chart_it_could_not_check() {
    use crate::git_scenarios::repo;
    let mut files = vec![("bad.txt".to_string(), "x".repeat(20_000))];
    for i in 1..=6 {
        files.push((format!("good{i}.txt"), format!("good file {i}\n")));
    }
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let env = repo(&borrowed);
    let root = env.root.clone();
    capn(&env, &root, &["init", "--host", "claude"]).ok();
    git(&env, &root, &["branch", "keep"]);
    chart(&env, &root, "Where is the bad thing kept?", "bad.txt");
    for i in 1..=6 {
        chart(
            &env,
            &root,
            &format!("Where is good thing number {i} kept?"),
            &format!("good{i}.txt"),
        );
    }
    for (f, text) in &files {
        env.write(f, &format!("{text}changed\n"));
    }
    git(&env, &root, &["commit", "-q", "-am", "change all"]);
    // Corrupt the tail of bad.txt's loose object on `keep` (its header still reads).
    let oid = git(&env, &root, &["rev-parse", "keep:bad.txt"]);
    let oid = oid.trim();
    let object = root.join(".git/objects").join(&oid[..2]).join(&oid[2..]);
    let mut bytes = std::fs::read(&object).unwrap();
    let n = bytes.len();
    for b in &mut bytes[n - 60..n - 10] {
        *b ^= 0x55;
    }
    let mut perms = std::fs::metadata(&object).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&object, perms).unwrap();
    std::fs::write(&object, bytes).unwrap();
    let before = listed(&env, &root).len();
    assert_eq!(before, 7);
    capn(&env, &root, &["prune"]).ok();
    assert_eq!(
        listed(&env, &root).len(),
        7,
        "a chart git could not judge was deleted"
    );
}
