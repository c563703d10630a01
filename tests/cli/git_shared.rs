//! Shared mode merges like code (issue 28), in real git repositories: identical charts are
//! identical bytes (a re-chart that changes nothing writes nothing; two clones charting the same
//! question on the same files write the same entry, so git merges it without a conflict); a
//! conflicted entry is reported with what resolves it and never served, and a re-chart resolves
//! it in place; whether a store is shared follows what git tracks, and a config capn cannot read
//! never turns into deletions.

use crate::git_scenarios::{answers, capn, chart, git, listed, pin_git, shared_repo, Q};
use std::path::Path;
use std::process::Command;

/// Runs git in `dir` and returns whether it succeeded (for a merge that may conflict).
fn git_status_of(env: &crate::util::Env, dir: &Path, args: &[&str]) -> bool {
    let mut c = Command::new("git");
    c.args(args).current_dir(dir);
    pin_git(env, &mut c);
    c.output().expect("run git").status.success()
}

/// The entry files of the store in `dir`.
fn entry_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join(".capn/entries"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn two_clones_charting_the_same_question_merge_without_a_conflict() {
    let (env, id) = shared_repo();
    let root = env.root.clone();
    // A re-chart that changes nothing writes nothing: no `at:` rewrite, no diff.
    assert_eq!(chart(&env, &root, Q, "src/webhooks.rs"), id);
    assert_eq!(git(&env, &root, &["status", "--porcelain"]), "");

    env.write("src/audit.rs", "// the audit log is written here\n");
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "audit"]);
    git(
        &env,
        env.tmp.path(),
        &["clone", "-q", root.to_str().unwrap(), "clone"],
    );
    let clone = env.tmp.path().join("clone").canonicalize().unwrap();
    let q = "Where is the audit log written?";
    let mine = chart(&env, &root, q, "src/audit.rs");
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "chart here"]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let theirs = chart(&env, &clone, q, "src/audit.rs");
    assert_eq!(mine, theirs);
    git(&env, &clone, &["add", "-A"]);
    git(&env, &clone, &["commit", "-q", "-m", "chart there"]);
    assert!(
        git_status_of(
            &env,
            &clone,
            &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"]
        ),
        "the same chart in two clones conflicted: {}",
        std::fs::read_to_string(clone.join(format!(".capn/entries/{mine}.md"))).unwrap()
    );
    assert_eq!(git(&env, &clone, &["status", "--porcelain"]), "");
    assert_eq!(answers(&env, &clone, q), vec![mine]);
}

/// A shared store from before `.capn/.gitattributes`: git merges its entries line by line
/// (and conflicts).
fn without_merge_attributes(env: &crate::util::Env, root: &Path) {
    if git_status_of(env, root, &["rm", "-q", ".capn/.gitattributes"]) {
        git(env, root, &["commit", "-q", "-m", "no attributes"]);
    }
    // The next capn write would put it back: an older capn, or a teammate without capn.
    std::fs::create_dir(root.join(".capn/.gitattributes")).unwrap();
}

/// In `root` without the merge attributes: `on_a` runs on a new branch `a`, `on_main` on
/// `main`, and merging `a` into `main` then conflicts (asserted).
fn conflicting_merge(
    env: &crate::util::Env,
    root: &Path,
    on_a: impl FnOnce(),
    on_main: impl FnOnce(),
) {
    without_merge_attributes(env, root);
    git(env, root, &["checkout", "-q", "-b", "a"]);
    on_a();
    git(env, root, &["checkout", "-q", "main"]);
    on_main();
    assert!(!git_status_of(
        env,
        root,
        &["merge", "-q", "--no-edit", "a"]
    ));
}

/// `capn chart <q> --like <id>` in `dir`, committed.
fn like(env: &crate::util::Env, dir: &Path, q: &str, id: &str, details: Option<&str>) {
    let mut args = vec!["chart", q, "--like", id];
    args.extend(details.iter().flat_map(|d| ["--details", *d]));
    capn(env, dir, &args).ok();
    git(env, dir, &["commit", "-q", "-am", q]);
}

/// The first answer's id and score for `q` in `dir`.
fn first_answer(env: &crate::util::Env, dir: &Path, q: &str) -> Option<(String, u64)> {
    let run = capn(env, dir, &["ask", q]);
    let hit = run.jsonl().into_iter().next()?;
    Some((hit["id"].as_str()?.to_string(), hit["score"].as_u64()?))
}

/// Two teammates each confirm another phrasing of one chart: plain git merges both (the union
/// driver `.capn/.gitattributes` names is built into git), and both answer at 100.
#[test]
fn two_teammates_phrasings_of_one_chart_merge_without_a_conflict() {
    let (env, id) = shared_repo();
    let root = env.root.clone();
    git(
        &env,
        env.tmp.path(),
        &["clone", "-q", root.to_str().unwrap(), "clone"],
    );
    let clone = env.tmp.path().join("clone").canonicalize().unwrap();
    let (mine, theirs) = (
        "Where do Stripe callbacks get processed?",
        "Which code receives the Stripe events?",
    );
    like(&env, &root, mine, &id, None);
    like(&env, &clone, theirs, &id, None);
    let merged = git_status_of(
        &env,
        &clone,
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    let text = std::fs::read_to_string(clone.join(format!(".capn/entries/{id}.md"))).unwrap();
    assert!(merged, "the phrasings conflicted: {text}");
    assert_eq!(git(&env, &clone, &["status", "--porcelain"]), "");
    for q in [Q, mine, theirs] {
        assert_eq!(
            first_answer(&env, &clone, q),
            Some((id.clone(), 100)),
            "{q}"
        );
    }
}

/// A conflict in a store without the attributes: the fix capn prints keeps both sides'
/// phrasings and both sides' details.
#[test]
fn the_printed_fix_for_a_conflict_keeps_both_sides_phrasings_and_details() {
    let (env, id) = shared_repo();
    let root = env.root.clone();
    let (mine, theirs) = (
        "Where do Stripe callbacks get processed?",
        "Which code receives the Stripe events?",
    );
    conflicting_merge(
        &env,
        &root,
        || {
            like(
                &env,
                &root,
                mine,
                &id,
                Some("Signature checks live in verify()."),
            )
        },
        || {
            like(
                &env,
                &root,
                theirs,
                &id,
                Some("The router hands events to handle()."),
            )
        },
    );
    let run = capn(&env, &root, &["ask", Q]).code(1);
    let fix = run
        .stderr
        .split("resolve it with ")
        .nth(1)
        .and_then(|t| t.split(" (re-charting").next())
        .unwrap_or_else(|| panic!("{}", run.stderr));
    let args = shell_words::split(fix).unwrap();
    assert_eq!(args[0], "capn");
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    capn(&env, &root, &args).ok();
    for q in [Q, mine, theirs] {
        assert_eq!(first_answer(&env, &root, q), Some((id.clone(), 100)), "{q}");
    }
    let hit = &capn(&env, &root, &["ask", Q]).jsonl()[0];
    let details = hit["details"].as_str().unwrap();
    assert!(
        details.contains("verify()") && details.contains("handle()"),
        "{details}"
    );
}

#[test]
fn a_conflicted_entry_is_reported_never_served_and_a_rechart_resolves_it() {
    let (env, id) = shared_repo();
    let root = env.root.clone();
    // `capn chart Q --files src/webhooks.rs --details <details>`.
    let chart = |details: &str| {
        let args = [
            "chart",
            Q,
            "--files",
            "src/webhooks.rs",
            "--details",
            details,
        ];
        capn(&env, &root, &args)
    };
    let charted = |details: &str| {
        chart(details).ok();
        git(&env, &root, &["commit", "-q", "-am", details]);
    };
    conflicting_merge(
        &env,
        &root,
        || charted("Signature checks live in verify()."),
        || charted("The router hands Stripe events to handle()."),
    );
    let before = entry_files(&root);
    let run = capn(&env, &root, &["ask", Q]).code(1);
    assert!(
        !run.stdout.contains("<<<<<<<") && !run.stdout.contains(&id),
        "{run:?}"
    );
    assert!(
        run.stderr.contains(&format!(".capn/entries/{id}.md: a git merge conflict"))
            && run.stderr.contains("capn chart \"Where are payment webhooks from Stripe handled?\" --files src/webhooks.rs"),
        "{}",
        run.stderr
    );
    // Re-charting meanwhile resolves it in place: no duplicate.
    let run = chart("Both, merged.").ok();
    assert!(
        run.stdout
            .starts_with(&format!("charted {id} (resolves the merge conflict")),
        "{run:?}"
    );
    assert_eq!(entry_files(&root), before);
    assert_eq!(answers(&env, &root, Q), vec![id]);
    // Details with conflict markers are refused: such a chart could never answer.
    let run = chart("<<<<<<< a\nx\n=======\ny\n>>>>>>> b");
    assert_ne!(run.code, 0, "{run:?}");
}

#[test]
fn a_config_capn_cannot_read_never_turns_into_deletions() {
    let (env, id) = shared_repo();
    let root = env.root.clone();
    env.write("src/webhooks.rs", "// changed\n");
    let n = listed(&env, &root).len();
    for config in [
        "{\"shared\": \"true\"}\n",
        "{\n<<<<<<< HEAD\n  \"shared\": true\n=======\n  \"shared\": true,\n  \"offer\": false\n>>>>>>> b\n}\n",
    ] {
        env.write(".capn/config.json", config);
        let run = capn(&env, &root, &["prune"]);
        assert_ne!(run.code, 0, "{run:?}");
        assert!(run.stderr.contains("could not tell whether this store is shared"), "{run:?}");
        capn(&env, &root, &["prune", "--expired"]).ok();
        assert_eq!(listed(&env, &root).len(), n, "{config}");
    }
    // A config that says local, or none at all, while git tracks the charts: still shared.
    for config in [Some("{\"shared\": false}\n"), None] {
        match config {
            Some(c) => {
                env.write(".capn/config.json", c);
            }
            None => std::fs::remove_file(root.join(".capn/config.json")).unwrap(),
        }
        let run = capn(&env, &root, &["prune"]).ok();
        assert!(
            run.stdout
                .starts_with("1 stale entry (kept: this store is shared"),
            "{run:?}"
        );
        assert!(listed(&env, &root).contains(&(id.clone(), true)));
    }
    // Not even .capn/.gitignore says so: what git tracks does.
    std::fs::remove_file(root.join(".capn/.gitignore")).unwrap();
    let run = capn(&env, &root, &["prune"]).ok();
    assert!(
        run.stdout
            .starts_with("1 stale entry (kept: this store is shared"),
        "{run:?}"
    );
    assert_eq!(listed(&env, &root).len(), n);
}

/// The one shape the line-by-line merge cannot take: both sides re-chart a question after
/// changing other lines of its file (git merges the file cleanly, each side's hash lands in the
/// entry). The entry is reported, never served, and the re-chart it names resolves it in place,
/// keeping both sides' phrasings.
#[test]
fn a_chart_re_charted_on_both_sides_is_reported_and_a_rechart_resolves_it() {
    let (env, _) = shared_repo();
    let root = env.root.clone();
    let q = "Where is the audit log written?";
    let body: String = (0..12).map(|i| format!("fn step{i}() {{}}\n")).collect();
    env.write("src/audit.rs", &format!("// the audit log\n{body}"));
    chart(&env, &root, q, "src/audit.rs");
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "audit"]);
    git(&env, &root, &["checkout", "-q", "-b", "a"]);
    // Each side: an edit of its own line of the file, a re-chart (in a shared store the version
    // before is kept for a teammate: the chart takes the next id, the same on both sides), and a
    // phrasing.
    let side = |from: &str, to: &str, phrasing: &str| {
        let text = env.read("src/audit.rs").replace(from, to);
        env.write("src/audit.rs", &text);
        let new = chart(&env, &root, q, "src/audit.rs");
        capn(&env, &root, &["chart", phrasing, "--like", &new]).ok();
        git(&env, &root, &["add", "-A"]);
        git(&env, &root, &["commit", "-q", "-m", phrasing]);
        new
    };
    let (mine, theirs) = (
        "Which file appends to the audit log?",
        "Where are audit events recorded?",
    );
    let ours = side("step0()", "first()", mine);
    git(&env, &root, &["checkout", "-q", "main"]);
    let id = side("step11()", "last()", theirs);
    assert_eq!(ours, id);
    assert!(git_status_of(
        &env,
        &root,
        &["merge", "-q", "--no-edit", "a"]
    ));
    let run = capn(&env, &root, &["ask", q]).code(1);
    assert!(
        run.stderr
            .contains("two versions of this chart were merged"),
        "{}",
        run.stderr
    );
    let before = entry_files(&root);
    assert_eq!(chart(&env, &root, q, "src/audit.rs"), id);
    assert_eq!(entry_files(&root), before);
    for asked in [q, mine, theirs] {
        assert_eq!(
            first_answer(&env, &root, asked),
            Some((id.clone(), 100)),
            "{asked}"
        );
    }
}
