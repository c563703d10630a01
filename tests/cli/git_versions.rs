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
