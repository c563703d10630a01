//! JSON capn did not write is bounded in what its parse may cost, not only in bytes: a project
//! settings file or a transcript line of nested brackets (or of a hundred thousand tiny values)
//! costs hundreds of megabytes parsed. The hooks leave such JSON unread and run under a small
//! address-space limit; `init` and `doctor` name the bound instead of parsing for seconds.
//! Linux only: the limit is `ulimit -v`.
#![cfg(target_os = "linux")]

use crate::util::{hook_payload, Env, Run};
use serde_json::json;

/// The address space a hook run gets here: what a debug build needs for these inputs with room
/// to spare (a release build stays near 25 MiB); the unbounded parses took 160 MiB to 2.5 GB.
const LIMIT_KIB: usize = 120 << 10;

/// `capn <args>` under [`LIMIT_KIB`] with `stdin`, in the project.
fn limited(env: &Env, args: &str, stdin: &[u8]) -> Run {
    let bin = env!("CARGO_BIN_EXE_capn");
    let mut c = env.sh(&format!("ulimit -v {LIMIT_KIB}; exec '{bin}' {args}"));
    c.current_dir(&env.root);
    env.run_cmd(c, stdin)
}

/// `n` bytes of JSON array items, each 120 brackets deep (`[[[…]]]`), joined by commas.
fn nested_items(n: usize) -> String {
    let item = format!("{}{}", "[".repeat(120), "]".repeat(120));
    vec![item; n / 241].join(",")
}

/// A settings file of 8 MB of nested brackets that also names the hook's subcommand (so a
/// reader cannot skip it on its bytes alone), beside an empty store: every `--user` hook and
/// the bare run stay within the limit and answer as if it registered nothing; `init` and
/// `doctor` name the bound.
#[test]
fn a_settings_file_of_nested_brackets_is_not_parsed() {
    let env = Env::git();
    env.run(&["init", "--user"]).ok();
    std::fs::create_dir_all(env.root.join(".capn/entries")).unwrap();
    let text = format!(
        "{{\"x\":[{}],\"y\":\"capn hook user-prompt-submit\"}}",
        nested_items(8 << 20)
    );
    env.write(".claude/settings.json", &text);
    let prompt = hook_payload(
        "UserPromptSubmit",
        "b1",
        &env.root,
        json!({"prompt": "where are payment webhooks handled?"}),
    );
    let run = limited(&env, "hook user-prompt-submit --user", &prompt);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let start = hook_payload(
        "SessionStart",
        "b2",
        &env.root,
        json!({"source": "startup"}),
    );
    let run = limited(&env, "hook session-start --user", &start);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("capn (project memory) is available"),
        "{}",
        run.stdout
    );
    // Copilot CLI's own hook file, read on every bare run.
    env.write(
        ".github/hooks/capn.json",
        &text.replace("user-prompt", "session"),
    );
    let run = limited(&env, "", &start);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("\"additionalContext\""),
        "{}",
        run.stdout
    );
    std::fs::remove_file(env.root.join(".github/hooks/capn.json")).unwrap();
    let init = env.run_within_5s(&["init"]);
    assert_ne!(init.code, 0);
    assert!(
        init.stderr
            .contains(".claude/settings.json: nested deeper than 64 levels"),
        "{}",
        init.stderr
    );
    assert_eq!(
        std::fs::read_to_string(env.root.join(".claude/settings.json")).unwrap(),
        text
    );
    let doctor = env.run_within_5s(&["doctor"]);
    assert!(
        doctor.stdout.contains("nested deeper than 64 levels"),
        "{}",
        doctor.stdout
    );
}

/// A Claude Code turn whose tool calls hold nested brackets, each line under the transcript's
/// line cap, and a Codex rollout whose last `token_count` line does: Stop and Codex's
/// UserPromptSubmit leave those lines unread and stay within the limit.
#[test]
fn transcript_lines_of_nested_brackets_are_left_unread() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let rows = nested_items((1 << 20) - 400);
    let call = format!(
        "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"mcp__db__query\",\"input\":{{\"rows\":[{rows}]}}}}]}}}}\n"
    );
    let prompt = json!({"type": "user", "message": {"role": "user", "content": "where is x?"}});
    let transcript = env.tmp.path().join("t.jsonl");
    std::fs::write(&transcript, format!("{prompt}\n{}", call.repeat(17))).unwrap();
    let stop = hook_payload(
        "Stop",
        "n1",
        &env.root,
        json!({"transcript_path": transcript, "stop_hook_active": false}),
    );
    let run = limited(&env, "hook stop", &stop);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    let rollout = env.tmp.path().join("r.jsonl");
    let line = format!(
        "{{\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"x\":[{rows}]}}}}\n"
    );
    std::fs::write(&rollout, line).unwrap();
    let ups = hook_payload(
        "UserPromptSubmit",
        "n2",
        &env.root,
        json!({"transcript_path": rollout, "prompt": "hi", "turn_id": "t", "model": "m"}),
    );
    let run = limited(&env, "hook user-prompt-submit --host codex", &ups);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// A `//` comment ended by a lone carriage return: JSONC parsers end the comment there, Gemini
/// CLI reads on to the next line feed. It must neither hide the brackets after it from the bound
/// (they cost gigabytes parsed) nor let capn read a file the host reads differently: init and
/// doctor refuse it naming why, and the hook stays within the limit.
#[test]
fn a_comment_ended_by_a_lone_carriage_return_hides_nothing() {
    let env = Env::git();
    env.run(&["init", "--user"]).ok();
    std::fs::create_dir_all(env.root.join(".capn/entries")).unwrap();
    let text = format!(
        "{{\"x\":\"capn hook session-start\", //\r \"a\":[{}]\n}}",
        nested_items(8 << 20)
    );
    env.write(".gemini/settings.json", &text);
    let start = hook_payload(
        "SessionStart",
        "c1",
        &env.root,
        json!({"source": "startup"}),
    );
    let run = limited(&env, "hook session-start --host gemini --user", &start);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let init = env.run_within_5s(&["init", "--host", "gemini"]);
    assert_ne!(init.code, 0);
    assert!(
        init.stderr
            .contains(".gemini/settings.json: has a // comment ended by a lone carriage return"),
        "{}",
        init.stderr
    );
    assert_eq!(
        std::fs::read_to_string(env.root.join(".gemini/settings.json")).unwrap(),
        text
    );
}
