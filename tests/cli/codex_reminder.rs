//! The Codex context reminder (issue 8, point 7): UserPromptSubmit under `--host codex` reads
//! the rollout's token counts, reminds once per crossing, and is re-armed by a compaction. The
//! rollout lines are real Codex shapes (`tests/fixtures/conformance/transcripts/
//! codex-rollout-1.jsonl`, token figures set by hand there); the last case sets one by hand here.

use crate::util::{Env, Run};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn rollout_lines() -> Vec<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/conformance/transcripts/codex-rollout-1.jsonl");
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn prompt(env: &Env, rollout: &Path, sid: &str) -> Run {
    let v = json!({
        "session_id": sid,
        "turn_id": "t",
        "transcript_path": rollout,
        "cwd": env.root,
        "hook_event_name": "UserPromptSubmit",
        "model": "gpt-5.1-codex",
        "permission_mode": "default",
        "prompt": "next",
    });
    env.run_stdin(
        &["hook", "user-prompt-submit", "--host", "codex"],
        &serde_json::to_vec(&v).unwrap(),
    )
    .ok()
}

fn reminder(run: &Run) -> Option<String> {
    if run.stdout.is_empty() {
        return None;
    }
    let v: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    // Codex parses hook output strictly: the reply must pass its published schema.
    let schema = crate::schema::load("user-prompt-submit.command.output.schema.json");
    assert_eq!(crate::schema::validate(&schema, &v), Vec::<String>::new());
    Some(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

fn write(path: &PathBuf, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn codex_gets_the_context_reminder_once_per_crossing_and_again_after_a_compaction() {
    let env = Env::git();
    let lines = rollout_lines();
    let rollout = env.tmp.path().join("rollout.jsonl");
    // Up to line 15: 150,005 of 190,000 tokens (78%).
    write(&rollout, &lines[..15]);
    let text = reminder(&prompt(&env, &rollout, "codex-s")).expect("reminder at 78%");
    assert!(text.contains("has reached 78%"), "{text}");
    assert!(text.contains("warning threshold 60%"), "{text}");
    assert!(
        !text.contains("/compact-prep"),
        "Codex has no skill: {text}"
    );
    // Still above, next turn (line 25: 151,210 tokens): once per crossing.
    write(&rollout, &lines[..25]);
    assert_eq!(reminder(&prompt(&env, &rollout, "codex-s")), None);
    // The compaction (line 31) and the count after it (line 35: 6,416 tokens): re-armed.
    write(&rollout, &lines[..36]);
    assert_eq!(reminder(&prompt(&env, &rollout, "codex-s")), None);
    // Use climbs again past the threshold (a token_count of the real shape, figures by hand).
    let mut high: Value = serde_json::from_str(&lines[56]).unwrap();
    high["payload"]["info"]["last_token_usage"]["total_tokens"] = json!(123_500);
    let mut more = lines[..57].to_vec();
    more.push(high.to_string());
    write(&rollout, &more);
    let text = reminder(&prompt(&env, &rollout, "codex-s")).expect("reminder after re-arm");
    assert!(text.contains("has reached 65%"), "{text}");
    assert_eq!(reminder(&prompt(&env, &rollout, "codex-s")), None);
}

/// Below the threshold, a missing or special rollout file: nothing, exit 0.
#[cfg(unix)]
#[test]
fn codex_below_the_threshold_or_without_a_readable_rollout_gets_nothing() {
    let env = Env::git();
    let lines = rollout_lines();
    let rollout = env.tmp.path().join("rollout.jsonl");
    let mut low: Value = serde_json::from_str(&lines[13]).unwrap();
    low["payload"]["info"]["last_token_usage"]["total_tokens"] = json!(1_000);
    let mut some = lines[..13].to_vec();
    some.push(low.to_string());
    write(&rollout, &some);
    assert_eq!(reminder(&prompt(&env, &rollout, "codex-low")), None);
    assert_eq!(
        reminder(&prompt(
            &env,
            &env.tmp.path().join("missing.jsonl"),
            "codex-low"
        )),
        None
    );
    let fifo = env.tmp.path().join("fifo.jsonl");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    assert_eq!(reminder(&prompt(&env, &fifo, "codex-low")), None);
}
