//! Gemini CLI, Qwen Code and GitHub Copilot CLI (issue 31): the payloads captured from each real
//! client (tests/fixtures/conformance/PROVENANCE.md) through the command `capn init` registers
//! for its event, in the host's own reply shape; `init --host` and `uninstall` byte for byte.

use crate::util::{Env, Run};
use serde_json::{json, Value};
use std::path::Path;

fn fixture(host: &str, name: &str, env: &Env) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/conformance/payloads")
        .join(host)
        .join(name);
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["cwd"] = json!(env.root);
    v
}

/// Runs `command` (a registered shell string, `capn hook ... --host ...`) with `payload`.
fn run_registered(env: &Env, command: &str, payload: &Value) -> Run {
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    assert!(command.starts_with("capn hook "), "{command}");
    env.run_stdin(&args, &serde_json::to_vec(payload).unwrap())
        .ok()
}

/// The command registered for `event` in the groups-shaped settings file `rel`.
fn registered(env: &Env, rel: &str, event: &str) -> String {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(env.root.join(rel)).unwrap()).unwrap();
    v["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no {event} hook in {rel}: {v}"))
        .to_string()
}

/// Charts "Where are payment webhooks from Stripe handled?" on `src/api/stripe-webhooks.ts`.
pub(crate) fn chart_webhooks(env: &Env) {
    env.write("src/api/stripe-webhooks.ts", "// stripe webhooks\n");
    env.run(&[
        "chart",
        "Where are payment webhooks from Stripe handled?",
        "--files",
        "src/api/stripe-webhooks.ts",
    ])
    .ok();
}

fn contract(env: &Env) -> String {
    env.run(&["context"]).ok().stdout
}

const OFFER_LINE: &str = r#"capn: \"Where are payment webhooks from Stripe handled?\" -> \"src/api/stripe-webhooks.ts\""#;

#[test]
fn gemini_gets_the_contract_and_offers_after_a_search_in_its_shape() {
    let env = Env::git();
    env.run(&["init", "--host", "gemini"]).ok();
    assert!(!env.root.join(".claude").exists());
    chart_webhooks(&env);
    let start = registered(&env, ".gemini/settings.json", "SessionStart");
    let run = run_registered(
        &env,
        &start,
        &fixture("gemini", "SessionStart-1.json", &env),
    );
    let want = json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                             "additionalContext": contract(&env)}});
    assert_eq!(run.stdout, format!("{want}\n"));
    let after = registered(&env, ".gemini/settings.json", "AfterTool");
    let mut p = fixture("gemini", "AfterTool-1.json", &env);
    p["tool_input"] = json!({"pattern": "stripe.*webhook", "dir_path": "src/api"});
    let run = run_registered(&env, &after, &p);
    assert!(run.stdout.starts_with(r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"capn: a charted answer"#), "{}", run.stdout);
    assert!(run.stdout.contains(OFFER_LINE), "{}", run.stdout);
    // Every other captured payload through every registered command: exit 0, never a block.
    for name in [
        "BeforeAgent-1.json",
        "BeforeTool-1.json",
        "AfterAgent-1.json",
        "PreCompress-1.json",
        "SessionEnd-1.json",
    ] {
        for event in ["SessionStart", "BeforeAgent", "AfterTool"] {
            let cmd = registered(&env, ".gemini/settings.json", event);
            let run = run_registered(&env, &cmd, &fixture("gemini", name, &env));
            assert!(!run.stdout.contains("\"decision\""), "{name} via {event}");
        }
    }
}

#[test]
fn qwen_offers_after_a_search_and_skips_the_empty_continuation_prompt() {
    let env = Env::git();
    env.run(&["init", "--host", "qwen"]).ok();
    chart_webhooks(&env);
    let post = registered(&env, ".qwen/settings.json", "PostToolUse");
    let mut p = fixture("qwen", "PostToolUse-1.json", &env);
    p["tool_input"]["command"] = json!("grep -rn 'stripe.*webhook' src/api");
    let run = run_registered(&env, &post, &p);
    assert!(run.stdout.starts_with(r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"capn: a charted answer"#), "{}", run.stdout);
    // A compaction, then Qwen's two UserPromptSubmit payloads of the next turn: the continuation
    // (prompt "") delivers nothing, the real prompt the recovery, once.
    let sid = p["session_id"].as_str().unwrap().to_string();
    let pre = registered(&env, ".qwen/settings.json", "PreCompact");
    let postc = registered(&env, ".qwen/settings.json", "PostCompact");
    let compact = json!({"session_id": sid, "cwd": env.root, "hook_event_name": "PreCompact", "trigger": "manual"});
    assert_eq!(run_registered(&env, &pre, &compact).stdout, "");
    let mut pc = compact.clone();
    pc["hook_event_name"] = json!("PostCompact");
    assert_eq!(run_registered(&env, &postc, &pc).stdout, "");
    let prompt = registered(&env, ".qwen/settings.json", "UserPromptSubmit");
    let empty = run_registered(
        &env,
        &prompt,
        &fixture("qwen", "UserPromptSubmit-2.json", &env),
    );
    assert_eq!(empty.stdout, "");
    let real = run_registered(
        &env,
        &prompt,
        &fixture("qwen", "UserPromptSubmit-1.json", &env),
    );
    assert!(real.stdout.contains("compact"), "{}", real.stdout);
    let again = run_registered(
        &env,
        &prompt,
        &fixture("qwen", "UserPromptSubmit-1.json", &env),
    );
    assert!(!again.stdout.contains("compact"), "{}", again.stdout);
}

#[test]
fn copilot_s_own_file_gets_top_level_context_and_recovery_after_pre_compact() {
    let env = Env::git();
    env.run(&["init", "--host", "copilot"]).ok();
    let file = env.root.join(".github/hooks/capn.json");
    let table: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let cmd = |event: &str| {
        table["hooks"][event][0]["bash"]
            .as_str()
            .unwrap()
            .to_string()
    };
    chart_webhooks(&env);
    let run = run_registered(
        &env,
        &cmd("sessionStart"),
        &fixture("copilot", "sessionStart-1.json", &env),
    );
    assert_eq!(
        run.stdout,
        format!("{}\n", json!({"additionalContext": contract(&env)}))
    );
    let mut p = fixture("copilot", "postToolUse-1.json", &env);
    p["toolName"] = json!("grep");
    p["toolArgs"] = json!({"pattern": "stripe.*webhook", "path": "src/api"});
    let run = run_registered(&env, &cmd("postToolUse"), &p);
    assert!(
        run.stdout
            .starts_with(r#"{"additionalContext":"capn: a charted answer"#),
        "{}",
        run.stdout
    );
    // toolArgs as the JSON text of an object reads the same.
    p["sessionId"] = json!("copilot-text-args");
    p["toolArgs"] = json!(json!({"pattern": "stripe.*webhook", "path": "src/api"}).to_string());
    assert!(run_registered(&env, &cmd("postToolUse"), &p)
        .stdout
        .contains(OFFER_LINE));
    // No post-compact event: preCompact arms the recovery the next prompt delivers, once.
    let sid = "copilot-compact";
    let pre =
        json!({"sessionId": sid, "cwd": env.root, "trigger": "manual", "customInstructions": ""});
    assert_eq!(run_registered(&env, &cmd("preCompact"), &pre).stdout, "");
    let prompt = json!({"sessionId": sid, "cwd": env.root, "prompt": "go on"});
    let first = run_registered(&env, &cmd("userPromptSubmitted"), &prompt);
    let v: Value = serde_json::from_str(&first.stdout).unwrap();
    assert!(
        v["additionalContext"].as_str().unwrap().contains("compact"),
        "{v}"
    );
    assert_eq!(v.as_object().unwrap().len(), 1);
    let second = run_registered(&env, &cmd("userPromptSubmitted"), &prompt);
    assert_eq!(second.stdout, "");
    // With capn's own file in place, the .claude/settings.json hooks Copilot also runs stand back.
    env.run(&["init", "--host", "claude"]).ok();
    let bare = env
        .run_stdin(
            &[],
            &serde_json::to_vec(&fixture("copilot-claude", "SessionStart-1.json", &env)).unwrap(),
        )
        .ok();
    assert_eq!(bare.stdout, "");
}

#[test]
fn init_per_host_and_uninstall_give_every_byte_back() {
    let env = Env::git();
    // The user's own files of each host, in their own formatting.
    let gemini = "{\n    \"theme\": \"GitHub\",\n    \"hooks\": {}\n}\n";
    let qwen = "{\r\n  \"model\": {\"name\": \"qwen3-coder\"}\r\n}";
    env.write(".gemini/settings.json", gemini);
    env.write(".qwen/settings.json", qwen);
    env.run(&[
        "init", "--host", "gemini", "--host", "qwen", "--host", "copilot",
    ])
    .ok();
    assert!(env.root.join(".github/hooks/capn.json").is_file());
    // A second run changes nothing.
    let again = env
        .run(&[
            "init", "--host", "gemini", "--host", "qwen", "--host", "copilot",
        ])
        .ok();
    assert!(again.stdout.contains("nothing changed"), "{}", again.stdout);
    env.run(&["uninstall"]).ok();
    assert_eq!(
        std::fs::read_to_string(env.root.join(".gemini/settings.json")).unwrap(),
        gemini
    );
    assert_eq!(
        std::fs::read_to_string(env.root.join(".qwen/settings.json")).unwrap(),
        qwen
    );
    assert!(!env.root.join(".github").exists());
}

#[test]
fn plain_init_adds_the_hosts_whose_folder_it_finds_and_leaves_a_broken_one_alone() {
    let env = Env::git();
    env.write(".qwen/settings.json", "{}\n");
    let run = env.run(&["init"]).ok();
    assert!(
        run.stdout
            .contains("registered the PostToolUse hook in .qwen/settings.json"),
        "{}",
        run.stdout
    );
    assert!(!env.root.join(".gemini").exists());
    assert!(!env.root.join(".github").exists());
    // A Gemini file that does not parse, which no run of init touched, never stops uninstall.
    env.write(".gemini/settings.json", "{ not json");
    let out = env.run(&["uninstall"]).ok();
    assert!(
        out.stdout.contains("left .gemini/settings.json alone"),
        "{}",
        out.stdout
    );
    assert_eq!(
        std::fs::read_to_string(env.root.join(".gemini/settings.json")).unwrap(),
        "{ not json"
    );
}

/// Qwen Code has no status line, but its Stop payload carries the context use: a turn that ends
/// at or over 60% leaves the reminder, which the next real prompt carries once; a turn under it
/// leaves nothing.
#[test]
fn qwen_s_stop_reports_the_context_use_and_the_next_prompt_carries_the_reminder() {
    let env = Env::git();
    env.run(&["init", "--host", "qwen"]).ok();
    let stop = registered(&env, ".qwen/settings.json", "Stop");
    let prompt = registered(&env, ".qwen/settings.json", "UserPromptSubmit");
    let mut p = fixture("qwen", "Stop-1.json", &env);
    // The captured turn used 0.005% of the window: nothing.
    assert_eq!(run_registered(&env, &stop, &p).stdout, "");
    let ask = fixture("qwen", "UserPromptSubmit-1.json", &env);
    assert!(!run_registered(&env, &prompt, &ask)
        .stdout
        .contains("Context use"));
    p["context_usage"] = json!(0.65);
    assert_eq!(run_registered(&env, &stop, &p).stdout, "");
    let first = run_registered(&env, &prompt, &ask);
    assert!(
        first
            .stdout
            .contains("Context use in this session has reached 65%"),
        "{}",
        first.stdout
    );
    assert!(!run_registered(&env, &prompt, &ask)
        .stdout
        .contains("Context use"));
    // Still over the threshold at the next Stop: warned once per crossing, so nothing more.
    run_registered(&env, &stop, &p);
    assert!(!run_registered(&env, &prompt, &ask)
        .stdout
        .contains("Context use"));
}

/// One line of a Qwen Code chat record (its own format: Gemini-style `parts`) in session `q1`.
fn qwen_line(env: &Env, kind: &str, prov: &str, role: &str, part: Value) -> String {
    json!({"uuid": "u", "sessionId": "q1", "type": kind, "provenance": prov,
           "cwd": env.root, "message": {"role": role, "parts": [part]}})
    .to_string()
}

/// A Qwen Code chat record of a turn that explored hard: a prompt, two searches and three reads
/// (each a `functionCall` and its `functionResponse`, the shape of the captured one), an answer.
fn qwen_exploring_turn(env: &Env) -> Vec<String> {
    let call = |i: usize, name: &str, args: Value| {
        qwen_line(
            env,
            "assistant",
            "assistant_output",
            "model",
            json!({"functionCall": {"id": format!("c{i}"), "name": name, "args": args}}),
        )
    };
    let result = |i: usize| {
        qwen_line(
            env,
            "tool_result",
            "tool_result",
            "user",
            json!({"functionResponse": {"id": format!("c{i}"), "name": "x",
                                         "response": {"output": "ok"}}}),
        )
    };
    let root = env.root.display().to_string();
    let read = |rel: &str| json!({"file_path": format!("{root}/{rel}")});
    let mut lines = vec![qwen_line(
        env,
        "user",
        "real_user",
        "user",
        json!({"text": "how are shipping rates computed?"}),
    )];
    let calls = [
        ("grep_search", json!({"pattern": "rate", "dir_path": "src"})),
        ("run_shell_command", json!({"command": "grep -rn zone src"})),
        ("read_file", read("src/ship/rates.ts")),
        ("read_file", read("src/ship/zones.ts")),
        ("read_file", read("src/ship/carriers.ts")),
    ];
    for (i, (name, args)) in calls.into_iter().enumerate() {
        lines.push(call(i, name, args));
        lines.push(result(i));
    }
    lines.push(qwen_line(
        env,
        "assistant",
        "assistant_output",
        "model",
        json!({"text": "Rates are computed in rates.ts."}),
    ));
    lines
}

/// A Qwen Code chat record of a turn that explored hard gets the chart nudge at its Stop, once;
/// a cheap turn does not.
#[test]
fn qwen_s_stop_nudges_an_exploring_turn_read_from_its_own_transcript() {
    let env = Env::git();
    env.run(&["init", "--host", "qwen"]).ok();
    for f in [
        "src/ship/rates.ts",
        "src/ship/zones.ts",
        "src/ship/carriers.ts",
    ] {
        env.write(f, "// shipping\n");
    }
    let stop = registered(&env, ".qwen/settings.json", "Stop");
    env.write(
        "transcript.jsonl",
        &(qwen_exploring_turn(&env).join("\n") + "\n"),
    );
    let mut p = fixture("qwen", "Stop-1.json", &env);
    p["session_id"] = json!("q1");
    p["transcript_path"] = json!(env.root.join("transcript.jsonl"));
    let run = run_registered(&env, &stop, &p);
    let v: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.stdout));
    assert_eq!(v["decision"], "block", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("src/ship/rates.ts"), "{reason}");
    assert!(reason.contains("capn chart"), "{reason}");
    // stop_hook_active: the turn goes on to its end.
    p["stop_hook_active"] = json!(true);
    assert_eq!(run_registered(&env, &stop, &p).stdout, "");
    // A cheap turn: one prompt, one answer.
    let cheap = [
        qwen_line(&env, "user", "real_user", "user", json!({"text": "hi"})),
        qwen_line(
            &env,
            "assistant",
            "assistant_output",
            "model",
            json!({"text": "hello"}),
        ),
    ];
    env.write("cheap.jsonl", &(cheap.join("\n") + "\n"));
    p["stop_hook_active"] = json!(false);
    p["session_id"] = json!("q2");
    p["transcript_path"] = json!(env.root.join("cheap.jsonl"));
    assert_eq!(run_registered(&env, &stop, &p).stdout, "");
}
