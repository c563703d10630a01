//! The charted files' own text as recall evidence: a strong candidate answers when its files,
//! as charted, hold the minor words it lacks. A miss reads no index of every chart's text (it
//! cost every miss, and the first miss after new charts, and did not show better charts).

use crate::util::{Env, Run};

/// The chart's id from `charted <id> ...`.
fn chart(env: &Env, q: &str, file: &str) -> String {
    let run = env.run(&["chart", q, "--files", file]).ok();
    run.stdout.split_whitespace().nth(1).unwrap().to_string()
}

/// A project with two charts: webhooks (its file names the Stripe signature check) and a
/// colour palette.
fn project() -> (Env, String, String) {
    let env = Env::new();
    env.write(
        "src/webhook.ts",
        "// Verifies the Stripe signature and dispatches the event to a handler.\nexport function handleStripeWebhook(body: string, signature: string) {\n  dispatchEvent(verifySignature(body, signature));\n}\n",
    );
    env.write(
        "src/theme.ts",
        "// Applies the user's colour preferences.\nexport function applyPalette(palette: string) {}\n",
    );
    env.run(&["init"]).ok();
    let hook = chart(
        &env,
        "Where are payment webhooks verified and handled?",
        "src/webhook.ts",
    );
    let theme = chart(&env, "How is the colour palette applied?", "src/theme.ts");
    (env, hook, theme)
}

const ASKED: &str = "where is the stripe signature checked?";

/// The ids of the `candidate`/`related` lines of a miss, in order.
fn candidates(run: &Run) -> Vec<String> {
    run.stderr
        .lines()
        .filter_map(|l| {
            l.strip_prefix("related ")
                .or_else(|| l.strip_prefix("candidate "))
        })
        .map(|j| {
            serde_json::from_str::<serde_json::Value>(j).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// A miss, in either search mode, neither reads nor writes an index of the charted files'
/// text: `.capn/code.bin` is never created, and one left there is not touched.
#[test]
fn a_miss_keeps_no_index_of_the_files_text() {
    let (env, _, _) = project();
    let code = env.root.join(".capn/code.bin");
    env.run(&["ask", ASKED]).code(1);
    env.run(&["ask", "where is the kubernetes helm chart deployed?"])
        .code(1);
    assert!(!code.exists());
    std::fs::write(&code, b"left by an earlier build").unwrap();
    env.run(&["ask", ASKED]).code(1);
    assert_eq!(std::fs::read(&code).unwrap(), b"left by an earlier build");
    let env = Env::new();
    env.write(
        "src/webhook.ts",
        "export function handleStripeWebhook() {}\n",
    );
    env.run(&["init", "--no-embedding"]).ok();
    chart(
        &env,
        "Where are payment webhooks verified and handled?",
        "src/webhook.ts",
    );
    env.run(&["ask", "where is the kubernetes helm chart deployed?"])
        .code(1);
    assert!(!env.root.join(".capn/code.bin").exists());
}

/// A chart the gate stopped only for a common word answers when its charted files hold that
/// word; the JSONL answer is the contract. In a short question the lacking word is what it
/// asks: "deleted" against a chart of how stale charts are detected stays a candidate even
/// though its files say "delete" (a tester's repro).
#[test]
fn a_strong_candidate_answers_when_its_files_hold_a_minor_word_it_lacks() {
    let env = Env::new();
    env.write(
        "src/seal.ts",
        "// Seals a completed document: stamps the certificate page and signs the PDF.\nexport function addCertificatePage() {}\n",
    );
    env.write(
        "src/stale.rs",
        "// Detects stale charts; never deletes them (prune does).\npub fn detect() {}\n",
    );
    env.write("src/theme.ts", "export function applyPalette() {}\n");
    env.write("src/invite.ts", "export function inviteMember() {}\n");
    env.run(&["init"]).ok();
    let seal = chart(
        &env,
        "Where is a finished document sealed into its final PDF with its certificate and audit trail?",
        "src/seal.ts",
    );
    let stale = chart(&env, "How are stale charts detected?", "src/stale.rs");
    chart(&env, "How is the colour palette applied?", "src/theme.ts");
    chart(
        &env,
        "Where are organisation members invited?",
        "src/invite.ts",
    );
    let run = env
        .run(&[
            "ask",
            "where is a finished document sealed into its final PDF page with its certificate?",
        ])
        .ok();
    let hits = run.jsonl();
    assert_eq!(hits.len(), 1, "{}", run.stdout);
    assert_eq!(hits[0]["id"], seal.as_str());
    assert_eq!(hits[0]["files"], serde_json::json!(["src/seal.ts"]));
    assert!(
        hits[0]["score"].as_u64().unwrap() < 100,
        "not an exact re-ask"
    );
    let run = env.run(&["ask", "How are stale charts deleted?"]).code(1);
    assert_eq!(candidates(&run), [stale], "{}", run.stderr);
}
