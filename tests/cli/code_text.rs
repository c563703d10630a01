//! Issue 33: the charted files' own text as recall evidence, kept in the derived
//! `.capn/code.bin`. A miss shows the chart whose files say what is asked; the text follows a
//! re-chart; a damaged, hostile or symlinked `code.bin` is rebuilt, never read through or
//! written through; a backing file that leads out of the project adds no text.

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

#[test]
fn a_miss_shows_the_chart_whose_files_say_what_is_asked() {
    let (env, hook, _) = project();
    let run = env.run(&["ask", ASKED]).code(1);
    assert_eq!(
        candidates(&run),
        std::slice::from_ref(&hook),
        "{}",
        run.stderr
    );
    assert!(
        env.root.join(".capn/code.bin").is_file(),
        "the miss saved the text index"
    );
    // Loaded, not rebuilt, the next time: same answer.
    assert_eq!(candidates(&env.run(&["ask", ASKED]).code(1)), [hook]);
    // An unrelated question still shows nothing.
    let run = env
        .run(&["ask", "where is the kubernetes helm chart deployed?"])
        .code(1);
    assert!(candidates(&run).is_empty(), "{}", run.stderr);
}

#[test]
fn the_text_follows_a_re_chart_of_the_file() {
    let (env, hook, _) = project();
    assert_eq!(candidates(&env.run(&["ask", ASKED]).code(1)), [hook]);
    env.write(
        "src/webhook.ts",
        "// Hands each queued event to its handler.\nexport function handleEvent(e: unknown) {}\n",
    );
    chart(
        &env,
        "Where are payment webhooks verified and handled?",
        "src/webhook.ts",
    );
    let run = env.run(&["ask", ASKED]).code(1);
    assert!(
        candidates(&run).is_empty(),
        "the old text was dropped: {}",
        run.stderr
    );
}

#[test]
fn a_damaged_or_hostile_code_bin_is_rebuilt() {
    let (env, hook, _) = project();
    let code = env.root.join(".capn/code.bin");
    for bytes in [&b"garbage"[..], &[0xff; 4096][..], &[][..]] {
        std::fs::write(&code, bytes).unwrap();
        assert_eq!(
            candidates(&env.run(&["ask", ASKED]).code(1)),
            std::slice::from_ref(&hook)
        );
        assert_ne!(std::fs::read(&code).unwrap(), bytes, "rewritten");
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_code_bin_is_never_read_or_written_through() {
    let (env, hook, _) = project();
    let decoy = env.tmp.path().join("decoy.bin");
    std::fs::write(&decoy, b"decoy").unwrap();
    let code = env.root.join(".capn/code.bin");
    let _ = std::fs::remove_file(&code);
    std::os::unix::fs::symlink(&decoy, &code).unwrap();
    assert_eq!(candidates(&env.run(&["ask", ASKED]).code(1)), [hook]);
    assert_eq!(std::fs::read(&decoy).unwrap(), b"decoy");
    assert!(!std::fs::symlink_metadata(&code)
        .unwrap()
        .file_type()
        .is_symlink());
}

/// The index holds the text of the version that was charted: text the file held only while its
/// chart was stale never lets the chart answer once the file is back (the breaker's repro).
#[test]
fn only_the_charted_version_of_a_file_is_indexed() {
    let env = Env::new();
    let sealed =
        "// Seals a completed document and signs the PDF.\nexport function sealDocument() {}\n";
    env.write("src/seal.ts", sealed);
    env.run(&["init"]).ok();
    let id = chart(
        &env,
        "Where is a finished document sealed into its final PDF?",
        "src/seal.ts",
    );
    env.write(
        "src/seal.ts",
        &format!("{sealed}// stamps the certificate page\n"),
    );
    env.run(&["ask", "how is the kubernetes cluster deployed?"])
        .code(1);
    env.write("src/seal.ts", sealed);
    let run = env
        .run(&[
            "ask",
            "where is a finished document sealed into its final PDF page?",
        ])
        .code(1);
    assert_eq!(candidates(&run), [id], "{}", run.stderr);
}

/// Charts past one update's read budget get their text on the next misses, not never.
#[test]
fn charts_past_the_read_budget_get_their_text_later() {
    let env = Env::new();
    let filler = "filler words here\n".repeat(5 << 16); // about 5.6 MiB each
    env.write("src/a.ts", &format!("zonkalphamarker\n{filler}"));
    env.write("src/b.ts", &format!("zonkbetamarker\n{filler}"));
    env.write("src/c.ts", "export function palette() {}\n");
    env.run(&["init"]).ok();
    let a = chart(&env, "Where is the first big module?", "src/a.ts");
    let b = chart(&env, "Where is the second big module?", "src/b.ts");
    chart(&env, "How is the colour palette applied?", "src/c.ts");
    for _ in 0..2 {
        env.run(&["ask", "how is the kubernetes cluster deployed?"])
            .code(1);
    }
    for (word, id) in [("zonkalphamarker", &a), ("zonkbetamarker", &b)] {
        let run = env
            .run(&["ask", &format!("which module uses {word}?")])
            .code(1);
        assert_eq!(candidates(&run).first(), Some(id), "{word}: {}", run.stderr);
    }
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

/// Bytes appended to a valid `code.bin` are noticed: the file is rebuilt, not kept (a tester's
/// repro; postcard alone ignores trailing bytes).
#[test]
fn bytes_appended_to_code_bin_make_it_rebuilt() {
    let (env, hook, _) = project();
    env.run(&["ask", ASKED]).code(1);
    let code = env.root.join(".capn/code.bin");
    let good = std::fs::read(&code).unwrap();
    let mut bad = good.clone();
    bad.extend_from_slice(b"GARBAGE");
    std::fs::write(&code, &bad).unwrap();
    assert_eq!(candidates(&env.run(&["ask", ASKED]).code(1)), [hook]);
    assert_eq!(
        std::fs::read(&code).unwrap(),
        good,
        "rebuilt to the same bytes"
    );
}

/// With BM25 alone (`init --no-embedding`) the charts shown do not weigh the files' text, so a
/// miss never reads the charted files or builds `code.bin`.
#[test]
fn bm25_alone_never_reads_the_files_text() {
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
