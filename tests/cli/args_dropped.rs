//! Hosts that run capn's Claude Code registrations without their `args` (issue 31): GitHub
//! Copilot CLI runs the hooks in `.claude/settings.json` as the bare `command`, and a preToolUse
//! hook that fails denies the tool call. A bare `capn` with a hook payload on stdin is a hook
//! run: exit 0 whatever the payload, and the reply in the shape those hosts read (a top-level
//! `additionalContext`, plus the nested one; PreToolUse: the nested one only).
//!
//! The payloads follow what Copilot CLI 1.0.102 sends to `.claude/settings.json` hooks
//! (../shared/reference/hosts-offline.md, "GitHub Copilot CLI": PascalCase event names,
//! snake_case fields, Claude Code's tool names, `source: "new"`, `initial_prompt`).

use crate::util::{Env, Run};
use serde_json::{json, Value};

/// Every handler `capn init` wrote into `.claude/settings.json`, as (event, command) where the
/// command is what a host that drops `args` runs.
fn registered_commands(env: &Env) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(env.root.join(".claude/settings.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let mut all = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                all.push((event.clone(), h["command"].as_str().unwrap().to_string()));
            }
        }
    }
    all
}

/// Runs the bare `capn` (no arguments) with `payload` on stdin.
fn bare(env: &Env, payload: &Value) -> Run {
    env.run_stdin(&[], &serde_json::to_vec(payload).unwrap())
}

/// What Copilot CLI sends a `.claude/settings.json` hook for `event`, in session `sid`.
fn copilot_payload(env: &Env, event: &str, sid: &str) -> Value {
    let mut p = json!({"session_id": sid, "hook_event_name": event, "cwd": env.root,
                       "transcript_path": null, "timestamp": 1_764_849_600_000_u64});
    let extra = match event {
        "SessionStart" => json!({"source": "new", "initial_prompt": "fix the webhook retries"}),
        "UserPromptSubmit" => json!({"prompt": "fix the webhook retries"}),
        "PreToolUse" => json!({"tool_name": "Grep", "tool_input": {"pattern": "webhook"}}),
        "PostToolUse" => json!({"tool_name": "Grep", "tool_input": {"pattern": "webhook"},
                                "tool_response": {"resultType": "success"}}),
        "PreCompact" => json!({"trigger": "manual", "custom_instructions": ""}),
        _ => json!({"stop_hook_active": false}),
    };
    for (k, x) in extra.as_object().unwrap() {
        p[k] = x.clone();
    }
    p
}

fn contract(env: &Env) -> String {
    env.run(&["context"]).ok().stdout
}

#[test]
fn every_registration_run_without_its_args_exits_0_and_never_denies() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let commands = registered_commands(&env);
    assert!(commands.len() >= 5, "{commands:?}");
    for (event, command) in commands {
        assert_eq!(
            command, "capn",
            "{event}: a host that drops args runs {command:?}"
        );
        let run = bare(&env, &copilot_payload(&env, &event, "s1")).ok();
        assert!(!run.stdout.contains("deny"), "{event}: {}", run.stdout);
        assert!(
            !run.stdout.contains("\"decision\""),
            "{event}: {}",
            run.stdout
        );
    }
}

#[test]
fn copilot_gets_the_contract_at_session_start_where_it_reads_it() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let run = bare(&env, &copilot_payload(&env, "SessionStart", "s2")).ok();
    let text = contract(&env);
    let want = json!({
        "additionalContext": text,
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text},
    });
    assert_eq!(run.stdout, format!("{want}\n"));
    assert_eq!(run.stderr, "");
}

#[test]
fn a_search_gets_its_offer_in_the_nested_field_only() {
    let env = Env::git();
    env.run(&["init"]).ok();
    crate::other_hosts::chart_webhooks(&env);
    let mut p = copilot_payload(&env, "PreToolUse", "s3");
    p["tool_input"] = json!({"pattern": "stripe.*webhook|handleStripeWebhook", "path": "src/api"});
    let run = bare(&env, &p).ok();
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        v.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hookSpecificOutput"],
        "{}",
        run.stdout
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("\"src/api/stripe-webhooks.ts\""),
        "{context}"
    );
    // The same search again in the session is not offered twice.
    assert_eq!(bare(&env, &p).ok().stdout, "");
}

#[test]
fn events_capn_does_not_handle_and_odd_input_get_nothing_and_exit_0() {
    let env = Env::git();
    env.run(&["init"]).ok();
    for event in [
        "PostToolUse",
        "Stop",
        "SessionEnd",
        "agentStop",
        "postToolUse",
        "",
    ] {
        let run = bare(&env, &copilot_payload(&env, event, "s4")).ok();
        assert_eq!(run.stdout, "", "{event}");
    }
    // A camelCase payload without an event name cannot be placed: nothing.
    let run = bare(
        &env,
        &json!({"sessionId": "s5", "toolName": "bash", "toolArgs": "{}"}),
    )
    .ok();
    assert_eq!(run.stdout, "");
    for junk in [
        &b"not json"[..],
        b"[1,2]",
        b"{\"hook_event_name\":",
        b"\xff\xfe",
    ] {
        let run = env.run_stdin(&[], junk).ok();
        assert_eq!(run.stdout, "", "{junk:?}");
    }
    // A hostile event name is not echoed anywhere.
    let mut p = copilot_payload(&env, "Stop", "s6");
    p["hook_event_name"] = json!(format!("\u{1b}]0;x\u{7}{}", "A".repeat(5000)));
    let run = bare(&env, &p).ok();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
}

#[test]
fn a_bare_capn_in_a_project_without_capn_is_silent() {
    let env = Env::git();
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PreCompact",
    ] {
        let run = bare(&env, &copilot_payload(&env, event, "s7")).ok();
        assert!(!run.stdout.contains("deny"), "{event}: {}", run.stdout);
    }
}

/// The payloads Copilot CLI 1.0.102 sent to `.claude/settings.json` hooks, captured
/// (tests/fixtures/conformance/PROVENANCE.md), replayed into the bare `capn` of an initialised
/// project: exit 0 for every one, the contract at session start, nothing for the events capn
/// does not answer, and never a denial.
#[test]
fn the_captured_copilot_payloads_replayed() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/conformance/payloads/copilot-claude");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut p: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        p["cwd"] = json!(env.root);
        let run = bare(&env, &p).ok();
        seen += 1;
        if name.starts_with("SessionStart") {
            let text = contract(&env);
            let want = json!({
                "additionalContext": text,
                "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text},
            });
            assert_eq!(run.stdout, format!("{want}\n"), "{name}");
        } else {
            // No chart matches these: nothing to inject, and no event is ever denied.
            assert_eq!(run.stdout, "", "{name}");
        }
        assert_eq!(run.stderr, "", "{name}");
    }
    assert_eq!(seen, 6);
}

/// Cursor (not installable here) also runs `.claude/settings.json` hooks. Its documented payload
/// fields (cursor.com/docs/agent/hooks, "third-party hooks"; documented, not captured):
/// `conversation_id` for the session, `workspace_roots` instead of `cwd`. Whether it passes the
/// `args` or not, the session-start contract arrives in the nested field it reads, and a tool
/// call is never denied.
#[test]
fn cursor_s_documented_payloads_with_and_without_args() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let start = json!({"conversation_id": "cursor-conv-1", "generation_id": "g1",
                       "hook_event_name": "SessionStart", "workspace_roots": [env.root],
                       "transcript_path": null});
    let text = contract(&env);
    let nested = json!({"hookEventName": "SessionStart", "additionalContext": text});
    let with_args = env
        .run_stdin(
            &["hook", "session-start"],
            &serde_json::to_vec(&start).unwrap(),
        )
        .ok();
    assert_eq!(
        with_args.stdout,
        format!("{}\n", json!({"hookSpecificOutput": nested}))
    );
    let bare_run = bare(&env, &start).ok();
    let v: Value = serde_json::from_str(&bare_run.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"], nested);
    let tool = json!({"conversation_id": "cursor-conv-1", "hook_event_name": "PreToolUse",
                      "workspace_roots": [env.root], "tool_name": "Grep",
                      "tool_input": {"pattern": "webhook"}});
    for run in [
        bare(&env, &tool).ok(),
        env.run_stdin(
            &["hook", "pre-tool-use"],
            &serde_json::to_vec(&tool).unwrap(),
        )
        .ok(),
    ] {
        assert!(!run.stdout.contains("deny"), "{}", run.stdout);
    }
}

/// Copilot CLI also runs its own hook file: the bare run stands back only for the events whose
/// job that file registers capn for. A file holding only capn's sessionStart leaves the search
/// offers to the bare PreToolUse; one holding postToolUse (where Copilot's own file gives the
/// search offers) silences the bare PreToolUse too. Doctor expects exactly that.
#[test]
fn the_bare_run_stands_back_only_for_the_jobs_copilot_s_own_file_does() {
    let env = Env::git();
    env.run(&["init", "--host", "claude", "--host", "copilot"])
        .ok();
    crate::other_hosts::chart_webhooks(&env);
    let search = |sid: &str| {
        let mut p = copilot_payload(&env, "PreToolUse", sid);
        p["tool_input"] = json!({"pattern": "stripe.*webhook|handleStripeWebhook"});
        p
    };
    let table: Value =
        serde_json::from_str(include_str!("../../hooks-config/copilot.json")).unwrap();
    let only = |events: &[&str]| {
        let mut t = table.clone();
        t["hooks"]
            .as_object_mut()
            .unwrap()
            .retain(|k, _| events.contains(&k.as_str()));
        env.write(".github/hooks/capn.json", &t.to_string());
    };
    let bare_line = "Claude Code hooks run without their args (as Copilot CLI runs them)";
    let doctor_line = |env: &Env| {
        let run = env.run(&["doctor"]);
        run.stdout
            .lines()
            .find(|l| l.contains(bare_line))
            .unwrap_or_else(|| panic!("{}", run.stdout))
            .to_string()
    };
    // Only sessionStart: the contract comes from Copilot's own file, the offer from the bare run.
    only(&["sessionStart"]);
    let start = bare(&env, &copilot_payload(&env, "SessionStart", "g1")).ok();
    assert_eq!(start.stdout, "");
    let offer = bare(&env, &search("g1")).ok();
    assert!(
        offer.stdout.contains("src/api/stripe-webhooks.ts"),
        "{}",
        offer.stdout
    );
    assert_eq!(
        doctor_line(&env),
        format!("ok    {bare_line}: exit 0, no tool denied; silent for SessionStart as they should be (.github/hooks/capn.json registers capn's own GitHub Copilot CLI hook for it, whose run answers), answering the rest")
    );
    // Its postToolUse gives the search offers: the bare PreToolUse stands back, the bare
    // SessionStart answers with the contract.
    only(&["postToolUse"]);
    assert_eq!(bare(&env, &search("g2")).ok().stdout, "");
    let start = bare(&env, &copilot_payload(&env, "SessionStart", "g2")).ok();
    let v: Value = serde_json::from_str(&start.stdout).unwrap();
    assert_eq!(v["additionalContext"], contract(&env));
    // The whole file: silent for both.
    env.write(".github/hooks/capn.json", &table.to_string());
    assert_eq!(bare(&env, &search("g3")).ok().stdout, "");
    assert_eq!(
        bare(&env, &copilot_payload(&env, "SessionStart", "g3"))
            .ok()
            .stdout,
        ""
    );
    assert!(
        doctor_line(&env).contains("exit 0 and silent, as they should be"),
        "{}",
        doctor_line(&env)
    );
}
