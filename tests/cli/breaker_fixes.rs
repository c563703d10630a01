//! What an outside round found after learning, secrets and the compaction instructions landed:
//! a value that starts with `-` (every PEM key) reached clap, whose usage error printed it back;
//! a `capn ask` whose question held a secret was kept in the session's record and repeated to
//! the summarizer; the summary's question list kept the oldest asks and dropped the newest; and
//! words learned for a chart outlived `capn unchart`, so the same question charted again on
//! other files came back marked learned.

use crate::learn::{ask_in, bash, hook_in, learned, read, stop, Q, SID};
use crate::secrets::{never_printed, project_with_a_file};
use crate::util::{files_under, holding, hook_payload, Env};
use serde_json::json;

/// A PEM private key block: it starts with `-`, as a flag does.
fn pem() -> String {
    let body = "MIIEpAIBAAKCAQEA7bq98xKzS1H2rQbNUaV3y3p9GvHq5qvC0jQm0pCk8F9E1cW2";
    format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----")
}

/// A GitHub token in the classic format (`ghp_` and 36 letters and digits).
const GHP: &str = "ghp_R2d2C3p0L1ukeSkyw4lkerAbCdEfGh12345q";

#[test]
fn details_starting_with_a_dash_are_checked_and_never_printed() {
    let env = project_with_a_file();
    let key = pem();
    let chart = |details: &str| {
        let q = "Where is a handled?";
        env.run(&["chart", q, "--files", "src/a.ts", "--details", details])
    };
    let run = chart(&key);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr
            .contains("--details holds what looks like a private key"),
        "{}",
        run.stderr
    );
    never_printed(&run.stderr, &key, "--details");
    assert!(!env.root.join(".capn/entries").exists() || env.run(&["list"]).ok().stdout.is_empty());
    // Details that start with a dash are details, not a flag.
    let run = chart("- near line 1");
    assert_eq!(run.code, 0, "{run:?}");
    let hit = env.run(&["ask", "Where is a handled?"]).ok().jsonl();
    assert_eq!(hit[0]["details"], "- near line 1");
}

#[test]
fn a_usage_error_never_repeats_an_argument_holding_a_secret() {
    let env = project_with_a_file();
    let key = pem();
    for args in [
        vec!["list", GHP],
        vec!["list", key.as_str()],
        vec!["chart", "Where is a handled?", "--files", "src/a.ts", GHP],
        vec!["ask", "where is a handled", GHP],
        vec!["bust", "--force", GHP],
    ] {
        let run = env.run(&args);
        assert_eq!(run.code, 1, "{args:?}: {run:?}");
        assert!(
            run.stderr.contains("holds what looks like "),
            "{args:?}: {}",
            run.stderr
        );
        never_printed(&run.stderr, GHP, &format!("{args:?}"));
        never_printed(&run.stderr, &key, &format!("{args:?}"));
    }
    // A usage error without a secret still reads as clap's.
    let run = env.run(&["list", "--bogus"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--bogus"), "{}", run.stderr);
}

/// What session [`SID`]'s PreCompact (an automatic compaction) prints.
fn pre_compact(env: &Env) -> String {
    let extra = json!({"trigger": "auto", "custom_instructions": ""});
    env.run_stdin(
        &["hook", "pre-compact"],
        &hook_payload("PreCompact", SID, &env.root, extra),
    )
    .ok()
    .stdout
}

#[test]
fn an_asked_secret_is_never_kept_nor_repeated_to_the_summarizer() {
    let env = crate::phrasings::three_charts();
    let secret = "AKIAIOSFODNN7EXAMPLE";
    let q = format!("where is the {secret} key used by the Stripe webhooks");
    ask_in(&env, SID, &q);
    // The control: an ask without one is listed for the summary.
    ask_in(&env, SID, Q);
    let out = pre_compact(&env);
    assert!(out.contains(Q), "the control is listed: {out}");
    assert!(!out.contains(secret), "repeated to the summarizer: {out}");
    let mut files = Vec::new();
    files_under(&env.state_dir(), &mut files);
    files_under(&env.root.join(".capn"), &mut files);
    let held = holding(&files, secret, false);
    assert!(held.is_empty(), "{held:?} keep the secret");
}

#[test]
fn the_summary_lists_the_newest_asks() {
    let env = crate::phrasings::three_charts();
    let asked: Vec<String> = (1..=12)
        .map(|n| format!("where does the nightly export number {n} write its files"))
        .collect();
    for q in &asked {
        hook_in(&env, SID, &bash(&format!("capn ask '{q}'")));
    }
    let out = pre_compact(&env);
    assert!(out.contains(&asked[11]), "the newest ask is kept: {out}");
    assert!(
        !out.contains(&format!("{}\"", asked[0])),
        "the oldest makes room: {out}"
    );
}

#[test]
fn words_learned_for_a_chart_go_when_it_is_uncharted() {
    let (env, _a, b) = crate::learn::shown_two();
    read(&env, &b.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), Some(b.id.clone()));
    env.run(&["unchart", &b.id]).ok();
    let file = std::fs::read_to_string(env.root.join(".capn/learned.json")).unwrap_or_default();
    assert!(!file.contains(&b.id), "learned.json keeps {}: {file}", b.id);
}
