//! Nothing of the user's is lost: details a re-chart does not replace, allow rules and folders
//! that were there before `init`, a `.gitignore` capn never wrote, comments in a host's settings.

use crate::git_scenarios::{capn, git, repo};
use crate::util::Env;
use std::path::Path;

/// The details `ask` prints with its answer to `q` in `dir`, or `None` on a miss.
fn answer_details(env: &Env, dir: &Path, q: &str) -> Option<String> {
    let run = capn(env, dir, &["ask", q]);
    let hits = run.jsonl();
    let hit = hits.first()?;
    Some(hit["details"].as_str().unwrap_or("").to_string())
}

#[test]
fn a_rechart_without_details_keeps_the_newest_versions_details() {
    let env = repo(&[("src/retry.rs", "fn retry() { /* v1 */ }\n")]);
    let q = "where is the retry loop?";
    let chart = |details: Option<&str>| {
        let mut args = vec!["chart", q, "--files", "src/retry.rs"];
        if let Some(d) = details {
            args.extend(["--details", d]);
        }
        capn(&env, &env.root, &args).ok();
    };
    chart(Some("the loop is in retry(), backoff doubles"));
    // The file changes (committed: the first version stays in no branch's way).
    env.write("src/retry.rs", "fn retry() { /* v2 */ }\n");
    chart(None);
    assert_eq!(
        answer_details(&env, &env.root, q).as_deref(),
        Some("the loop is in retry(), backoff doubles"),
        "a re-chart without --details keeps the details"
    );
    // Newer details, then another change: the newest ones are kept, never an older version's.
    git(&env, &env.root, &["commit", "-qam", "v2"]);
    env.write("src/retry.rs", "fn retry() { /* v3 */ }\n");
    chart(Some("retry() now caps the backoff at 30 s"));
    env.write("src/retry.rs", "fn retry() { /* v4 */ }\n");
    chart(None);
    assert_eq!(
        answer_details(&env, &env.root, q).as_deref(),
        Some("retry() now caps the backoff at 30 s")
    );
}
