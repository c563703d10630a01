//! Learning from use must never teach a wrong answer (a tester's sequences after a miss that
//! showed two candidates): each sequence below once made the chart it touched answer the
//! question; now nothing answers, nothing ranks, and the control (the candidate's file read
//! alone, nothing after it) ranks the chart first without answering.

use crate::learn::{
    answer, ask_shown, bash, entry, hook, hook_in, learned, read, shown_two, stop, stop_after,
    transcript, Shown, Q, SID,
};
use crate::util::{hook_payload, Env};
use serde_json::{json, Value};

/// Neither an answer nor a chart moved up by learned words.
#[track_caller]
fn nothing_learned(env: &Env, what: &str) {
    assert_eq!(answer(env, Q), None, "{what}: answered");
    assert_eq!(learned(env, Q), None, "{what}: ranked as learned");
}

/// The control: asked again, the candidate's file read alone, then the turn's end: the chart is
/// the first line shown, marked learned, and still no answer.
#[track_caller]
fn control(env: &Env, a: &Shown) {
    ask_shown(env, Q);
    read(env, &a.files[0]);
    stop(env);
    assert_eq!(answer(env, Q), None);
    assert_eq!(learned(env, Q), Some(a.id.clone()));
}

#[test]
fn one_shell_call_that_reads_a_candidate_and_more_is_exploring() {
    for form in [
        "cat {f} && git show HEAD:lib/retry.ts",
        "cat {f}; ls lib",
        "cat {f} | xargs cat",
        "cat {f} && node -e \"require('fs').readFileSync('lib/retry.ts')\"",
        "cat {f} $(ls lib/*.ts)",
    ] {
        let (env, a, _) = shown_two();
        let cmd = form.replace("{f}", &a.files[0]);
        hook_in(&env, SID, &bash(&cmd));
        stop(&env);
        nothing_learned(&env, &cmd);
    }
    let (env, a, _) = shown_two();
    stop(&env);
    control(&env, &a);
}

#[test]
fn an_ask_closes_at_its_turns_end() {
    let (env, a, _) = shown_two();
    // The agent explores elsewhere and rejects the candidates; the turn ends.
    hook_in(
        &env,
        SID,
        &json!({"tool_name": "Grep", "tool_input": {"pattern": "verify"}}),
    );
    stop(&env);
    // A later, unrelated turn reads the candidate's file to edit it.
    let prompt = json!({"prompt": "Rename the verify helper"});
    hook(&env, "UserPromptSubmit", "user-prompt-submit", prompt);
    read(&env, &a.files[0]);
    stop(&env);
    nothing_learned(&env, "a read in a later turn");
    control(&env, &a);
}

#[test]
fn searches_counts_and_empty_reads_are_no_reads() {
    let (env, a, _) = shown_two();
    let f = &a.files[0];
    let dir = std::path::Path::new(f).parent().unwrap().to_str().unwrap();
    let calls: Vec<Value> = vec![
        json!({"tool_name": "Grep", "tool_input": {"pattern": "verify", "path": f, "output_mode": "count"}}),
        json!({"tool_name": "Grep", "tool_input": {"pattern": "verify", "path": f}}),
        json!({"tool_name": "Glob", "tool_input": {"pattern": "*.ts", "path": f}}),
        json!({"tool_name": "Glob", "tool_input": {"pattern": "*.ts", "path": dir}}),
        bash(&format!("sed -n 0p {f}")),
        bash(&format!("sed -n q {f}")),
        bash(&format!("cat {f} | wc -c")),
        bash(&format!("head -0 {f}")),
        bash(&format!("tail -f {f}")),
    ];
    for call in calls {
        ask_shown(&env, Q);
        hook_in(&env, SID, &call);
        stop(&env);
        nothing_learned(&env, &call.to_string());
    }
    control(&env, &a);
}

/// A tool the registered matchers never show the hook (an MCP tool, Claude Code's `LS`, a web
/// fetch; Codex's `list_dir`) may have looked at anything: the turn teaches nothing. So does a
/// turn whose transcript cannot be read.
#[test]
fn a_tool_the_hooks_never_see_keeps_the_turn_from_teaching() {
    for unseen in ["mcp__fs__read_file", "LS", "WebFetch"] {
        let (env, a, _) = shown_two();
        read(&env, &a.files[0]);
        stop_after(&env, &["Bash", "Read", unseen]);
        nothing_learned(&env, unseen);
    }
    // No transcript at all.
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    hook(&env, "Stop", "stop", json!({"stop_hook_active": false}));
    nothing_learned(&env, "no transcript");
    // Codex: its `list_dir` never reaches the hook (its matcher is Bash).
    let (env, a, _) = shown_two();
    let rollout = env.tmp.path().join("rollout.jsonl");
    let item = |p: Value| json!({"type": "response_item", "payload": p}).to_string() + "\n";
    let text = [
        item(json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "where?"}]})),
        item(
            json!({"type": "function_call", "name": "shell", "call_id": "c1",
            "arguments": json!({"command": ["bash", "-lc", "cat x"]}).to_string()}),
        ),
        item(
            json!({"type": "function_call", "name": "list_dir", "call_id": "c2",
            "arguments": "{\"path\": \"lib\"}"}),
        ),
    ]
    .concat();
    std::fs::write(&rollout, text).unwrap();
    let cat = bash(&format!("cat {}", a.files[0]));
    let codex = |event: &str, extra: Value| hook_payload(event, SID, &env.root, extra);
    env.run_stdin(
        &["hook", "pre-tool-use", "--host", "codex"],
        &codex("PreToolUse", cat),
    )
    .ok();
    let end = json!({"stop_hook_active": false, "transcript_path": rollout});
    env.run_stdin(&["hook", "stop", "--host", "codex"], &codex("Stop", end))
        .ok();
    nothing_learned(&env, "codex list_dir");
    control(&env, &a);
    // The transcript helper is the one the controls use.
    assert!(transcript(&["Read"]).contains("\"name\":\"Read\""));
}

/// A phrasing the agent confirmed is never evicted by a learned one: the chart keeps its eight
/// confirmed phrasings, each answering at 100, and the learned words only rank it.
#[test]
fn a_confirmed_phrasing_is_never_evicted_by_a_learned_one() {
    let (env, a, _) = shown_two();
    let confirmed: Vec<String> = (0..8)
        .map(|i| format!("where is the stripe webhook signature check number {i}"))
        .collect();
    for p in &confirmed {
        env.run(&["chart", p, "--like", &a.id]).ok();
    }
    let before = entry(&env, &a.id);
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(entry(&env, &a.id), before);
    for p in &confirmed {
        assert_eq!(answer(&env, p), Some((a.id.clone(), 100)), "{p}");
    }
    assert_eq!(answer(&env, Q), None);
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}
