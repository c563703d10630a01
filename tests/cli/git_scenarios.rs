//! Charts follow the code (issue 19): in real git repositories (temp dirs, git identity in a
//! temp `GIT_CONFIG_GLOBAL`), a chart is true wherever its files hash as charted: back on its
//! branch, after a stash or a revert, in a second worktree, in a teammate's clone, after a
//! merge, in a CRLF checkout. In every scenario a stale chart never answers and is never
//! offered, and it is never deleted by capn on its own.

use crate::util::{Env, Run};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The git config the scenarios use: identity, `main` as the first branch, no signing.
fn git_config(env: &Env) -> PathBuf {
    let p = env.tmp.path().join("gitconfig");
    if !p.exists() {
        std::fs::write(
            &p,
            "[user]\n\tname = capn test\n\temail = capn@example.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[advice]\n\tdetachedHead = false\n",
        )
        .unwrap();
    }
    p
}

/// Pins git's environment on `c`: the temp config, the temp HOME, no repository variables.
pub(crate) fn pin_git(env: &Env, c: &mut Command) {
    crate::util::pin_git_env(c, &env.home);
    c.env("GIT_CONFIG_GLOBAL", git_config(env))
        .env("PATH", crate::util::test_path());
}

/// Runs `git args...` in `dir`; fails the test unless it succeeds. Returns stdout.
#[track_caller]
pub(crate) fn git(env: &Env, dir: &Path, args: &[&str]) -> String {
    let mut c = Command::new("git");
    c.args(args).current_dir(dir);
    pin_git(env, &mut c);
    let out = c.output().expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `capn args...` in `dir` with the pinned environment (and git's).
pub(crate) fn capn(env: &Env, dir: &Path, args: &[&str]) -> Run {
    let mut c = env.cmd_in(dir, args);
    pin_git(env, &mut c);
    env.run_cmd(c, b"")
}

/// A git repository at `<tmp>/project` with a first commit of `files`.
pub(crate) fn repo(files: &[(&str, &str)]) -> Env {
    let env = Env::new();
    git(&env, &env.root, &["init", "-q"]);
    for (f, text) in files {
        env.write(f, text);
    }
    git(&env, &env.root, &["add", "-A"]);
    git(&env, &env.root, &["commit", "-q", "-m", "first"]);
    env
}

/// The ids `ask` answers `q` with in `dir` (empty on a miss).
pub(crate) fn answers(env: &Env, dir: &Path, q: &str) -> Vec<String> {
    let run = capn(env, dir, &["ask", q]);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    run.jsonl()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}

/// Charts `q` with `files` in `dir`; returns its id.
#[track_caller]
pub(crate) fn chart(env: &Env, dir: &Path, q: &str, files: &str) -> String {
    let run = capn(env, dir, &["chart", q, "--files", files]).ok();
    run.stdout
        .split_whitespace()
        .nth(1)
        .expect("charted <id>")
        .to_string()
}

/// The ids `list --json` prints in `dir`, with whether each is marked changed.
pub(crate) fn listed(env: &Env, dir: &Path) -> Vec<(String, bool)> {
    capn(env, dir, &["list", "--json"])
        .ok()
        .jsonl()
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_string(),
                v.get("changed").is_some(),
            )
        })
        .collect()
}

/// True when `hook user-prompt-submit` in `dir` offers the chart `q` (a new session each time).
pub(crate) fn offered(env: &Env, dir: &Path, q: &str) -> bool {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let sid = format!(
        "git-scenario-{}",
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let p = json!({"session_id": sid, "hook_event_name": "UserPromptSubmit",
                   "cwd": dir, "prompt": q});
    let mut c = env.cmd_in(dir, &["hook", "user-prompt-submit"]);
    pin_git(env, &mut c);
    let run = env.run_cmd(c, &serde_json::to_vec(&p).unwrap()).ok();
    run.stdout.contains(q)
}

/// Asserts the chart `id` for `q` answers and is offered in `dir`, and is listed fresh.
#[track_caller]
pub(crate) fn assert_fresh(env: &Env, dir: &Path, q: &str, id: &str) {
    assert_eq!(answers(env, dir, q), vec![id.to_string()], "{q} in {dir:?}");
    assert!(offered(env, dir, q), "not offered: {q} in {dir:?}");
    assert!(listed(env, dir).contains(&(id.to_string(), false)));
}

/// Asserts the chart `id` for `q` does not answer, is not offered and is listed stale in `dir`
/// (so it was kept).
#[track_caller]
pub(crate) fn assert_stale(env: &Env, dir: &Path, q: &str, id: &str) {
    let run = capn(env, dir, &["ask", q]).code(1);
    assert!(!run.stdout.contains(id), "{run:?}");
    assert!(
        run.stderr.contains("capn: hid 1 chart whose files changed"),
        "{run:?}"
    );
    assert!(!run.stderr.contains(&format!("\"id\":\"{id}\"")), "{run:?}");
    assert!(
        !offered(env, dir, q),
        "offered a stale chart: {q} in {dir:?}"
    );
    assert!(
        listed(env, dir).contains(&(id.to_string(), true)),
        "{:?}",
        listed(env, dir)
    );
}

/// Files of a small project; a few charts so that each one's words are its own.
pub(crate) const FILES: [(&str, &str); 4] = [
    (
        "src/webhooks.rs",
        "// stripe payment webhooks are verified and handled here\nfn handle() {}\n",
    ),
    (
        "src/pdf.rs",
        "// the pdf certificate page is rendered here\nfn render() {}\n",
    ),
    (
        "src/limits.rs",
        "// api rate limiting middleware\nfn limit() {}\n",
    ),
    (
        "src/invite.rs",
        "// team members are invited by email here\nfn invite() {}\n",
    ),
];

pub(crate) const Q: &str = "Where are payment webhooks from Stripe handled?";

/// A repository of [`FILES`] with capn set up (`init_args`) and four charts; returns the id of
/// the chart of [`Q`].
pub(crate) fn charted_repo(init_args: &[&str]) -> (Env, String) {
    let env = repo(&FILES);
    let mut args = vec!["init"];
    args.extend_from_slice(init_args);
    capn(&env, &env.root, &args).ok();
    let id = chart(&env, &env.root, Q, "src/webhooks.rs");
    chart(
        &env,
        &env.root,
        "How is the PDF certificate page rendered?",
        "src/pdf.rs",
    );
    chart(
        &env,
        &env.root,
        "How does API rate limiting work?",
        "src/limits.rs",
    );
    chart(
        &env,
        &env.root,
        "How are team members invited?",
        "src/invite.rs",
    );
    (env, id)
}

fn branch_round_trip(init_args: &[&str]) -> Env {
    let (env, id) = charted_repo(init_args);
    let root = env.root.clone();
    assert_fresh(&env, &root, Q, &id);
    git(&env, &root, &["checkout", "-q", "-b", "feature"]);
    env.write(
        "src/webhooks.rs",
        "// rewritten on the feature branch\nfn handle2() {}\n",
    );
    git(&env, &root, &["commit", "-q", "-am", "feature edit"]);
    assert_stale(&env, &root, Q, &id);
    git(&env, &root, &["checkout", "-q", "main"]);
    assert_fresh(&env, &root, Q, &id);
    env
}

#[test]
fn a_branch_round_trip_keeps_the_chart() {
    branch_round_trip(&[]);
}

#[test]
fn a_branch_round_trip_keeps_the_chart_with_the_post_commit_hook() {
    let env = branch_round_trip(&["--git"]);
    let hook = std::fs::read_to_string(env.root.join(".git/hooks/post-commit")).unwrap();
    assert!(hook.contains("capn prune --expired"), "{hook}");
    // The hook ran (in the background) after the feature commit: it recorded the stale chart
    // for the retention rule, and deleted nothing.
    let stale = env.root.join(".capn/stale.json");
    for _ in 0..100 {
        if stale.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        stale.exists(),
        "the post-commit hook did not run capn prune --expired"
    );
    assert_eq!(listed(&env, &env.root).len(), 4);
}

#[test]
fn the_retention_rule_deletes_only_charts_stale_for_longer_than_stale_days() {
    let (env, id) = charted_repo(&["--no-embedding"]);
    let root = env.root.clone();
    env.write("src/webhooks.rs", "// changed\n");
    // Committed: no branch holds the charted version any more (an uncommitted edit would
    // leave it in HEAD, and the chart with it).
    git(&env, &root, &["commit", "-q", "-am", "changed"]);
    capn(&env, &root, &["prune", "--expired"]).ok();
    assert_eq!(listed(&env, &root).len(), 4, "stale just now: kept");
    // Found stale 31 days ago (default retention 30 days): deleted.
    let since = std::fs::read_to_string(root.join(".capn/stale.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&since).unwrap();
    let now = v["since"][&id].as_i64().unwrap();
    std::fs::write(
        root.join(".capn/stale.json"),
        json!({"version": 1, "since": {&id: now - 31 * 86_400}}).to_string(),
    )
    .unwrap();
    // A config that cannot say whether the store is shared (a local one here): nothing goes,
    // and the line says why, not that the store is shared.
    std::fs::write(root.join(".capn/config.json"), "{{{\n").unwrap();
    let run = capn(&env, &root, &["prune", "--expired"]).ok();
    assert_eq!(
        run.stdout,
        "retention is off while capn cannot tell whether this store is shared (.capn/config.json does not say \"shared\": true or false); fix it, and capn prune --expired deletes the charts stale past the retention again\n"
    );
    assert_eq!(listed(&env, &root).len(), 4);
    // "stale_days": 0 turns the rule off.
    std::fs::write(
        root.join(".capn/config.json"),
        r#"{"embedding": false, "stale_days": 0}"#,
    )
    .unwrap();
    capn(&env, &root, &["prune", "--expired"]).ok();
    assert_eq!(listed(&env, &root).len(), 4, "stale_days 0: never");
    std::fs::write(root.join(".capn/config.json"), r#"{"embedding": false}"#).unwrap();
    let run = capn(&env, &root, &["prune", "--expired"]).ok();
    assert_eq!(
        run.stdout,
        format!("pruned 1 entry stale for over 30 days\n  \"{Q}\" (\"src/webhooks.rs\")\n")
    );
    assert_eq!(listed(&env, &root).len(), 3);
}

#[test]
fn an_old_post_commit_prune_line_is_upgraded_by_init_git() {
    let env = repo(&FILES);
    let hook = env.root.join(".git/hooks/post-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    let old = "#!/bin/sh\n# Added by capn init: drop charted answers whose files this commit changed.\ncommand -v capn >/dev/null 2>&1 && { capn prune >/dev/null 2>&1 & }\necho mine\n";
    std::fs::write(&hook, old).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A project an older capn set up has its store (doctor before any init says only to run
    // capn init).
    std::fs::create_dir_all(env.root.join(".capn/entries")).unwrap();
    let doctor = capn(&env, &env.root, &["doctor"]);
    assert!(doctor.stdout.contains("an older capn's line"), "{doctor:?}");
    capn(&env, &env.root, &["init", "--git"]).ok();
    let new = std::fs::read_to_string(&hook).unwrap();
    assert_eq!(
        new,
        "#!/bin/sh\n# Added by capn init: check the charts after each commit (deletes only charts stale past the retention).\ncommand -v capn >/dev/null 2>&1 && { capn prune --expired >/dev/null 2>&1 & }\necho mine\n"
    );
    capn(&env, &env.root, &["init", "--git"]).ok();
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), new, "idempotent");
}

#[test]
fn stash_pop_and_revert_bring_the_chart_back() {
    let (env, id) = charted_repo(&[]);
    let root = env.root.clone();
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "charts"]);
    env.write("src/webhooks.rs", "// one comment line added\n// stripe payment webhooks are verified and handled here\nfn handle() {}\n");
    assert_stale(&env, &root, Q, &id);
    git(&env, &root, &["stash", "-q"]);
    assert_fresh(&env, &root, Q, &id);
    git(&env, &root, &["stash", "pop", "-q"]);
    assert_stale(&env, &root, Q, &id);
    git(&env, &root, &["checkout", "--", "src/webhooks.rs"]);
    assert_fresh(&env, &root, Q, &id);
    // A committed change, then a revert of it.
    env.write("src/webhooks.rs", "// changed and committed\n");
    git(&env, &root, &["commit", "-q", "-am", "change"]);
    assert_stale(&env, &root, Q, &id);
    git(&env, &root, &["revert", "--no-edit", "HEAD"]);
    assert_fresh(&env, &root, Q, &id);
    // Deleted, then restored.
    std::fs::remove_file(root.join("src/webhooks.rs")).unwrap();
    assert_stale(&env, &root, Q, &id);
    git(&env, &root, &["checkout", "--", "src/webhooks.rs"]);
    assert_fresh(&env, &root, Q, &id);
}

/// Adds a linked worktree at `path` on a new branch `branch`; returns its canonical path.
fn add_worktree(env: &Env, path: &Path, branch: &str) -> PathBuf {
    let p = path.to_str().unwrap();
    git(env, &env.root, &["worktree", "add", "-q", "-b", branch, p]);
    path.canonicalize().unwrap()
}

#[test]
fn two_worktrees_share_one_memory_and_each_judges_its_own_files() {
    let (env, id) = charted_repo(&[]);
    let root = env.root.clone();
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "setup"]);
    let wt = add_worktree(&env, &env.tmp.path().join("wt2"), "wt2");
    // The chart made in the main checkout answers in the worktree: its files hash the same.
    assert_fresh(&env, &wt, Q, &id);
    assert!(!wt.join(".capn").exists(), "a second store in the worktree");
    // list, doctor and init say which store they use; init makes no second one.
    let main_store = format!("{}/.capn/ (the main checkout's", root.display());
    let run = capn(&env, &wt, &["list"]).ok();
    assert!(run.stderr.contains(&main_store), "{run:?}");
    let run = capn(&env, &wt, &["doctor"]);
    assert!(
        run.stdout.contains(&format!("ok    store {main_store}")),
        "{}",
        run.stdout
    );
    let run = capn(&env, &wt, &["init", "--no-nudge"]).ok();
    assert!(
        run.stdout.contains(&format!("store: {main_store}")),
        "{run:?}"
    );
    // The config file it names is the main checkout's, not one relative to the worktree.
    let config = format!("in {}/.capn/config.json", root.display());
    assert!(
        run.stdout.contains(&format!("set nudge off {config}")),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("in .capn/config.json"),
        "{}",
        run.stdout
    );
    assert!(!wt.join(".capn").exists(), "init made a second store");
    // Charted in the worktree: answers in the main checkout (same file there).
    // (Other files than the rate-limiting chart's, so it is a chart of its own, not a phrasing.)
    let q2 = "How does API rate limiting work in the middleware?";
    let id2 = chart(&env, &wt, q2, "src/limits.rs,src/invite.rs");
    assert!(answers(&env, &root, q2).contains(&id2));
    // An edit in the worktree makes the chart stale there only.
    std::fs::write(wt.join("src/webhooks.rs"), "// edited in wt2\n").unwrap();
    assert_stale(&env, &wt, Q, &id);
    assert_fresh(&env, &root, Q, &id);
    // Each checkout keeps its own stat cache.
    assert!(root.join(".capn/worktrees/wt2/stat.bin").is_file());
    // Removing the worktree loses nothing.
    git(
        &env,
        &root,
        &["worktree", "remove", "--force", wt.to_str().unwrap()],
    );
    assert_eq!(listed(&env, &root).len(), 5);
    assert!(answers(&env, &root, q2).contains(&id2));
    assert_fresh(&env, &root, Q, &id);
}

#[test]
fn a_worktree_inside_the_main_checkout_is_a_checkout_of_its_own() {
    let (env, id) = charted_repo(&[]);
    let root = env.root.clone();
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "setup"]);
    // Where Claude Code puts its worktrees.
    let wt = add_worktree(&env, &root.join(".claude/worktrees/agent-1"), "agent-1");
    assert_fresh(&env, &wt.join("src"), Q, &id);
    std::fs::write(wt.join("src/webhooks.rs"), "// edited by the agent\n").unwrap();
    // Judged against the worktree's files, from any folder in it.
    assert_stale(&env, &wt.join("src"), Q, &id);
    assert_fresh(&env, &root, Q, &id);
}

#[test]
fn a_planted_git_file_does_not_lead_to_another_store() {
    let (env, _id) = charted_repo(&["--no-embedding"]);
    // A folder elsewhere whose .git file names the repository's git dir as a worktree of it:
    // git never linked it (no worktrees/<name>/gitdir naming it back), so it keeps its own.
    let other = env.tmp.path().join("other");
    std::fs::create_dir_all(env.root.join(".git/worktrees/fake")).unwrap();
    std::fs::write(env.root.join(".git/worktrees/fake/commondir"), "../..\n").unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join(".git"),
        format!(
            "gitdir: {}\n",
            env.root.join(".git/worktrees/fake").display()
        ),
    )
    .unwrap();
    std::fs::write(other.join("a.rs"), "x").unwrap();
    let run = capn(&env, &other, &["list"]).ok();
    assert!(run.stdout.is_empty(), "{run:?}");
    assert!(run.stderr.contains("nothing charted yet"), "{run:?}");
}

#[test]
fn a_crlf_checkout_of_a_charted_file_still_answers() {
    let (env, id) = charted_repo(&[]);
    let root = env.root.clone();
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "setup"]);
    // A Windows teammate's checkout: core.autocrlf writes every line end as CRLF.
    git(&env, &root, &["config", "core.autocrlf", "true"]);
    std::fs::remove_file(root.join("src/webhooks.rs")).unwrap();
    git(&env, &root, &["checkout", "--", "src/webhooks.rs"]);
    let bytes = std::fs::read(root.join("src/webhooks.rs")).unwrap();
    assert!(
        bytes.windows(2).any(|w| w == b"\r\n"),
        "not a CRLF checkout"
    );
    assert_fresh(&env, &root, Q, &id);
    // A real change in the CRLF file is still one.
    std::fs::write(
        root.join("src/webhooks.rs"),
        "// stripe payment webhooks are verified and handled here\r\nfn handle() { todo!() }\r\n",
    )
    .unwrap();
    assert_stale(&env, &root, Q, &id);
    // Charted on CRLF, checked out with LF: fresh too.
    let crlf = "// the pdf certificate page is rendered here\r\nfn render() {}\r\n";
    std::fs::write(root.join("src/pdf.rs"), crlf).unwrap();
    let q = "How is the PDF certificate page rendered?";
    let id_pdf = chart(&env, &root, q, "src/pdf.rs");
    std::fs::write(root.join("src/pdf.rs"), crlf.replace("\r\n", "\n")).unwrap();
    assert_fresh(&env, &root, q, &id_pdf);
}

/// A shared store (`init --shared`) with the charts committed; returns it and the chart of [`Q`].
pub(crate) fn shared_repo() -> (Env, String) {
    let (env, id) = charted_repo(&["--shared"]);
    git(&env, &env.root, &["add", "-A"]);
    git(&env, &env.root, &["commit", "-q", "-m", "shared charts"]);
    (env, id)
}

#[test]
fn a_fresh_clone_of_a_shared_store_answers_on_its_first_ask() {
    let (env, id) = shared_repo();
    // Only the entries, config.json, .capn/.gitignore and .capn/.gitattributes are committed:
    // no derived file.
    let tracked = git(&env, &env.root, &["ls-files", ".capn"]);
    let mut files: Vec<&str> = tracked.lines().collect();
    files.retain(|f| !f.starts_with(".capn/entries/"));
    assert_eq!(
        files,
        vec![
            ".capn/.gitattributes",
            ".capn/.gitignore",
            ".capn/config.json"
        ]
    );
    assert_eq!(tracked.lines().count(), 7, "{tracked}");
    let clone = env.tmp.path().join("clone");
    git(
        &env,
        env.tmp.path(),
        &["clone", "-q", env.root.to_str().unwrap(), "clone"],
    );
    let clone = clone.canonicalize().unwrap();
    // First ask in the clone, with no derived file yet: it answers.
    assert!(!clone.join(".capn/index.bin").exists());
    assert_eq!(answers(&env, &clone, Q), vec![id.clone()]);
    assert_fresh(&env, &clone, Q, &id);
    let run = capn(&env, &clone, &["doctor"]);
    assert!(
        run.stdout
            .contains("ok    store .capn/ (4 charts, shared: entries committed to git)"),
        "{}",
        run.stdout
    );
    // The derived files it made stay out of git.
    let status = git(&env, &clone, &["status", "--porcelain"]);
    assert_eq!(status, "", "derived files show in git status");
    // Stale in the clone: hidden, and never deleted without --yes.
    std::fs::write(clone.join("src/webhooks.rs"), "// teammate's version\n").unwrap();
    assert_stale(&env, &clone, Q, &id);
    let run = capn(&env, &clone, &["prune"]).ok();
    assert!(
        run.stdout
            .starts_with("1 stale entry (kept: this store is shared"),
        "{run:?}"
    );
    capn(&env, &clone, &["prune", "--expired"]).ok();
    assert_eq!(listed(&env, &clone).len(), 4, "a shared chart was deleted");
    // --yes deletes a version no branch holds (committed over: HEAD no longer has it).
    git(&env, &clone, &["commit", "-q", "-am", "teammate's version"]);
    let run = capn(&env, &clone, &["prune", "--yes"]).ok();
    assert!(run.stdout.starts_with("pruned 1 stale entry\n"), "{run:?}");
    assert_eq!(listed(&env, &clone).len(), 3);
}

#[test]
fn a_rechart_in_a_shared_store_keeps_a_version_that_is_not_fresh_here() {
    let (env, id) = shared_repo();
    let root = env.root.clone();
    std::fs::write(root.join("src/webhooks.rs"), "// this branch's version\n").unwrap();
    // The teammate's version (stale here) is kept; this one takes the next id.
    let mine = chart(&env, &root, Q, "src/webhooks.rs");
    assert_ne!(mine, id);
    assert!(
        mine.starts_with(&id),
        "{mine} is not the next prefix of {id}"
    );
    assert_eq!(answers(&env, &root, Q), vec![mine.clone()]);
    assert!(listed(&env, &root).contains(&(id.clone(), true)));
    // Back to the charted version: the old one answers, and a re-chart replaces it in place.
    git(&env, &root, &["checkout", "--", "src/webhooks.rs"]);
    assert_eq!(answers(&env, &root, Q), vec![id.clone()]);
    assert_eq!(chart(&env, &root, Q, "src/webhooks.rs"), id);
    assert_eq!(listed(&env, &root).len(), 5);
}

#[test]
fn two_branches_that_chart_merge_without_a_conflict() {
    let (env, id) = shared_repo();
    let root = env.root.clone();
    git(&env, &root, &["checkout", "-q", "-b", "a"]);
    env.write("src/a.rs", "// the audit log writer\n");
    let qa = "Where is the audit log written?";
    let ida = chart(&env, &root, qa, "src/a.rs");
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "a"]);
    git(&env, &root, &["checkout", "-q", "main"]);
    // Branch a's chart is not on main: its file is not either, so it is gone with it.
    assert!(!answers(&env, &root, qa).contains(&ida));
    git(&env, &root, &["checkout", "-q", "-b", "b"]);
    env.write("src/b.rs", "// the backup scheduler\n");
    let qb = "How are nightly backups scheduled?";
    let idb = chart(&env, &root, qb, "src/b.rs");
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "b"]);
    git(&env, &root, &["merge", "-q", "--no-edit", "a"]);
    assert_eq!(git(&env, &root, &["status", "--porcelain"]), "");
    assert_eq!(answers(&env, &root, qa), vec![ida]);
    assert_eq!(answers(&env, &root, qb), vec![idb]);
    assert_fresh(&env, &root, Q, &id);
}

#[test]
fn switching_a_store_to_shared_and_back() {
    let (env, _id) = charted_repo(&["--no-embedding"]);
    let root = env.root.clone();
    // Local: the store ignores itself; the project's .gitignore is not created.
    assert!(!root.join(".gitignore").exists());
    let status = git(&env, &root, &["status", "--porcelain"]);
    assert!(
        !status.contains(".capn") && !status.contains(".gitignore"),
        "{status}"
    );
    let run = capn(&env, &root, &["init", "--shared"]).ok();
    assert!(run.stdout.contains("git add .capn"), "{run:?}");
    assert!(!root.join(".gitignore").exists());
    assert!(env.read(".capn/.gitignore").contains("!/entries/*.md"));
    let run = capn(&env, &root, &["init"]).ok();
    assert!(run.stdout.contains("nothing changed"), "{run:?}");
    capn(&env, &root, &["init", "--local"]).ok();
    assert!(env.read(".capn/.gitignore").ends_with("\n*\n"));
    assert!(!root.join(".gitignore").exists());
    let config = env.read(".capn/config.json");
    assert!(config.contains("\"shared\": false"), "{config}");
    let status = git(&env, &root, &["status", "--porcelain"]);
    assert!(
        !status.contains(".capn") && !status.contains(".gitignore"),
        "{status}"
    );
}

/// Issue 28: a stale best match is reported, not replaced. The stale chart is the best match
/// for its own question: `ask` names it (and how to get it back) and answers with no other
/// chart, and the hook offers none; the other chart still answers and is offered for its own.
#[test]
fn a_stale_best_match_is_not_replaced_by_a_fresh_chart_ranked_below_it() {
    let (env, id) = charted_repo(&[]);
    let root = env.root.clone();
    env.write("src/stripe.rs", "// stripe webhooks again\n");
    let near = "Where are Stripe payment webhooks handled?";
    let near_id = chart(&env, &root, near, "src/stripe.rs");
    env.write("src/webhooks.rs", "// changed\n");
    let run = capn(&env, &root, &["ask", Q]).code(1);
    assert_eq!(run.stdout, "", "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "capn: hid 1 chart whose files changed since it was charted: {id} \"{Q}\" (\"src/webhooks.rs\")"
        )),
        "{run:?}"
    );
    assert!(!run.stderr.contains(&near_id), "{run:?}");
    assert!(listed(&env, &root).contains(&(id.clone(), true)));
    assert!(
        !offered(&env, &root, Q),
        "offered a chart in the stale one's place"
    );
    assert_eq!(answers(&env, &root, near), vec![near_id]);
    assert!(offered(&env, &root, near));
    // Back as charted: it answers again.
    git(&env, &root, &["checkout", "--", "src/webhooks.rs"]);
    assert_eq!(answers(&env, &root, Q)[0], id);
}

#[test]
fn the_retention_rule_keeps_a_chart_fresh_in_another_worktree() {
    let (env, id) = charted_repo(&["--no-embedding"]);
    let root = env.root.clone();
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "setup"]);
    let wt = add_worktree(&env, &env.tmp.path().join("long-lived"), "long-lived");
    // Stale in the main checkout for 31 days, fresh in the worktree: kept.
    env.write("src/webhooks.rs", "// main moved on\n");
    capn(&env, &root, &["prune", "--expired"]).ok();
    let old = json!({"version": 1, "since": {&id: 1_000_000_000}}).to_string();
    std::fs::write(root.join(".capn/stale.json"), &old).unwrap();
    let run = capn(&env, &root, &["prune", "--expired"]).ok();
    assert_eq!(run.stdout, "", "deleted a chart fresh in a worktree");
    assert_eq!(answers(&env, &wt, Q), vec![id.clone()]);
    // Stale there too, and in no branch: the rule applies.
    std::fs::write(wt.join("src/webhooks.rs"), "// and so did the branch\n").unwrap();
    git(&env, &wt, &["commit", "-q", "-am", "branch moved on"]);
    git(&env, &root, &["commit", "-q", "-am", "main moved on"]);
    std::fs::write(root.join(".capn/stale.json"), &old).unwrap();
    let run = capn(&env, &root, &["prune", "--expired"]).ok();
    assert!(
        run.stdout
            .starts_with("pruned 1 entry stale for over 30 days"),
        "{run:?}"
    );
}

/// A new user's case: `capn prune` in a linked worktree on a branch that changed a charted file
/// deleted the chart for every checkout, although it was current in the main checkout (one
/// memory per repository). Prune now keeps a chart that is current in another checkout, and
/// says so; a chart stale in every checkout is still deleted.
#[test]
fn prune_in_a_worktree_keeps_charts_current_in_another_checkout() {
    let (env, id) = charted_repo(&[]);
    let root = env.root.clone();
    git(&env, &root, &["add", "-A"]);
    git(&env, &root, &["commit", "-q", "-m", "setup"]);
    git(&env, &root, &["checkout", "-q", "-b", "feat"]);
    env.write("src/webhooks.rs", "// edited on feat\nfn handle3() {}\n");
    git(&env, &root, &["commit", "-q", "-am", "edit on feat"]);
    git(&env, &root, &["checkout", "-q", "main"]);
    let wt = env.tmp.path().join("wt-feat");
    git(
        &env,
        &root,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "feat"],
    );
    let wt = wt.canonicalize().unwrap();
    assert_stale(&env, &wt, Q, &id);
    let run = capn(&env, &wt, &["prune"]).ok();
    assert_eq!(
        run.stdout,
        format!("kept 1 stale chart that is current in another checkout, branch or stash of this repository:\n  \"{Q}\" (\"src/webhooks.rs\")\n")
    );
    assert_fresh(&env, &root, Q, &id);
    // Stale in every checkout and no branch holds it: deleted.
    env.write("src/webhooks.rs", "// edited on main too\n");
    git(&env, &root, &["commit", "-q", "-am", "edit on main"]);
    let run = capn(&env, &wt, &["prune"]).ok();
    assert_eq!(
        run.stdout,
        format!("pruned 1 stale entry\n  \"{Q}\" (\"src/webhooks.rs\")\n")
    );
    assert_eq!(listed(&env, &root).len(), 3);
}

/// A new user's case: in a shared store, where `capn prune` only lists stale charts, the notes
/// of `ask` and `list` said "capn prune deletes" them; `list` names `capn prune --yes` there,
/// and `ask` names no deleting command.
#[test]
fn a_shared_store_names_prune_yes_as_what_deletes_a_stale_chart() {
    let (env, id) = charted_repo(&["--shared"]);
    let root = env.root.clone();
    env.write("src/webhooks.rs", "// edited\n");
    // `ask` no longer names a deleting command at all (issue 28): how to get it back instead.
    let run = capn(&env, &root, &["ask", Q]).code(1);
    let first = run.stderr.lines().next().unwrap_or_default();
    assert!(!first.contains("prune"), "{}", run.stderr);
    assert!(
        first.contains("check out or restore the version it was charted on"),
        "{}",
        run.stderr
    );
    let list = capn(&env, &root, &["list"]).ok();
    assert!(
        list.stdout
            .contains("(hidden until they are back as charted; `capn prune --yes` deletes it)"),
        "{}",
        list.stdout
    );
    assert!(listed(&env, &root).contains(&(id, true)));
}
