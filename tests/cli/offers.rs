//! Proactive offers (issue 11, experimental, opt-in): `capn hook pre-tool-use` and the offer
//! block of `capn hook user-prompt-submit`. Output is compared exactly: it is a contract.

use crate::schema;
use crate::util::{Env, Run};
use serde_json::{json, Value};

/// A store of eight charts (enough that a chart's own words are specific to it) with offers
/// switched on or left at the default.
fn store(offers_on: bool) -> Env {
    let env = Env::git();
    env.run(&["init"]).ok();
    let charts = [
        (
            "Where are payment webhooks from Stripe handled?",
            "src/api/stripe-webhooks.ts",
        ),
        (
            "How is the PDF certificate page rendered?",
            "src/pdf/certificate.tsx",
        ),
        (
            "How does API rate limiting work?",
            "src/middleware/ratelimit.ts",
        ),
        (
            "Where are invoices emailed to customers?",
            "src/billing/invoice-mail.ts",
        ),
        ("How are team members invited?", "src/teams/invite.ts"),
        (
            "Where is the OAuth login callback?",
            "src/auth/oauth-callback.ts",
        ),
        (
            "How are uploaded files scanned for viruses?",
            "src/uploads/scan.ts",
        ),
        (
            "Where are feature flags evaluated?",
            "src/flags/evaluate.ts",
        ),
    ];
    for (q, f) in charts {
        env.write(f, &format!("// {q}\n"));
        env.run(&["chart", q, "--files", f]).ok();
    }
    if offers_on {
        let p = env.root.join(".capn/config.json");
        let mut c: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        c["offer"] = json!(true);
        std::fs::write(&p, c.to_string()).unwrap();
    }
    env
}

fn grep(env: &Env, sid: &str, host: &str) -> Run {
    let p = json!({"session_id": sid, "hook_event_name": "PreToolUse", "cwd": env.root,
    "tool_name": if host == "codex" { "Bash" } else { "Grep" },
    "tool_input": if host == "codex" {
        json!({"command": "rg -n 'stripe.*webhook|handleStripeWebhook' src/api"})
    } else {
        json!({"pattern": "stripe.*webhook|handleStripeWebhook", "path": "src/api"})
    }});
    env.run_stdin(
        &["hook", "pre-tool-use", "--host", host],
        &serde_json::to_vec(&p).unwrap(),
    )
    .ok()
}

const OFFER: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"capn: charted answers that match this search (from this project's capn chart, files checked unchanged just now; they may make the search unnecessary):\ncapn: \"Where are payment webhooks from Stripe handled?\" -> src/api/stripe-webhooks.ts"}}"#;

#[test]
fn a_search_gets_its_chart_once_per_session_and_again_after_a_compaction() {
    let env = store(true);
    assert_eq!(grep(&env, "s1", "claude").stdout.trim_end(), OFFER);
    assert_eq!(
        grep(&env, "s1", "claude").stdout,
        "",
        "offered twice in one session"
    );
    assert_eq!(grep(&env, "s2", "claude").stdout.trim_end(), OFFER);
    let post = json!({"session_id": "s1", "hook_event_name": "PostCompact", "trigger": "manual"});
    env.run_stdin(
        &["hook", "post-compact"],
        &serde_json::to_vec(&post).unwrap(),
    )
    .ok();
    assert_eq!(grep(&env, "s1", "claude").stdout.trim_end(), OFFER);
}

#[test]
fn codex_s_shell_search_gets_the_offer_in_a_shape_its_schema_accepts() {
    let env = store(true);
    let run = grep(&env, "c1", "codex");
    assert_eq!(run.stdout.trim_end(), OFFER);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let errors = schema::validate(&schema::load("pre-tool-use.command.output.schema.json"), &v);
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn offers_are_off_by_default_and_never_for_a_stale_chart_or_a_non_search() {
    let env = store(false);
    assert_eq!(
        grep(&env, "d1", "claude").stdout,
        "",
        "offered with offers off"
    );
    let env = store(true);
    env.write("src/api/stripe-webhooks.ts", "changed\n");
    assert_eq!(
        grep(&env, "d2", "claude").stdout,
        "",
        "offered a stale chart"
    );
    let edit = json!({"session_id": "d3", "hook_event_name": "PreToolUse", "cwd": env.root,
                      "tool_name": "Edit", "tool_input": {"file_path": "src/api/stripe-webhooks.ts"}});
    let run = env
        .run_stdin(
            &["hook", "pre-tool-use"],
            &serde_json::to_vec(&edit).unwrap(),
        )
        .ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn a_prompt_gets_the_offer_beside_nothing_else_and_a_slash_command_gets_none() {
    let env = store(true);
    let prompt = |sid: &str, text: &str| {
        let p = json!({"session_id": sid, "hook_event_name": "UserPromptSubmit",
                       "cwd": env.root, "prompt": text});
        env.run_stdin(
            &["hook", "user-prompt-submit"],
            &serde_json::to_vec(&p).unwrap(),
        )
        .ok()
    };
    let run = prompt(
        "p1",
        "the stripe payment webhook handler drops retries, fix it",
    );
    assert_eq!(
        run.stdout.trim_end(),
        r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"capn: charted answers that match this prompt (from this project's capn chart, files checked unchanged just now; read them before searching):\ncapn: \"Where are payment webhooks from Stripe handled?\" -> src/api/stripe-webhooks.ts"}}"#
    );
    assert_eq!(
        prompt("p2", "/compact keep the stripe webhook details").stdout,
        ""
    );
    assert_eq!(prompt("p3", "yes").stdout, "");
    assert_eq!(prompt("p4", "run the tests and commit").stdout, "");
}
