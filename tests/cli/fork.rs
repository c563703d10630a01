//! Forked sessions (issue 18): Claude Code reports a fork as SessionStart source `fork` (since
//! 2.1.214; `resume` before). capn registers SessionStart without a matcher, so a fork gets the
//! contract; `init` upgrades capn 0.3's matcher and `doctor` names it; and a session whose first
//! hook is not SessionStart never takes another window's recovery.

use crate::util::{hook_payload, hook_subcommand, Env, Run};
use serde_json::{json, Value};

fn event(env: &Env, name: &str, sid: &str, extra: Value) -> Run {
    env.run_stdin(
        &["hook", hook_subcommand(name).unwrap()],
        &hook_payload(name, sid, &env.root, extra),
    )
    .ok()
}

fn context(run: &Run) -> Option<String> {
    let v: Value = serde_json::from_str(run.stdout.trim()).ok()?;
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(str::to_string)
}

/// Session `sid` starts, compacts, and leaves its recovery pending (no prompt yet).
fn compact(env: &Env, sid: &str) {
    event(env, "SessionStart", sid, json!({"source": "startup"}));
    event(env, "PreCompact", sid, json!({"trigger": "auto"}));
    event(env, "PostCompact", sid, json!({"trigger": "auto"}));
    assert!(env.session_dir(sid).join("compacted.json").exists());
}

fn is_recovery(text: &Option<String>) -> bool {
    text.as_deref()
        .is_some_and(|t| t.starts_with("[capn] Context compaction recovery."))
}

#[test]
fn a_fork_gets_the_contract_and_leaves_the_other_window_its_recovery() {
    let env = Env::git();
    env.run(&["init"]).ok();
    // Registered for every source: no matcher on SessionStart, in both hosts' files.
    for rel in [".claude/settings.json", ".codex/hooks.json"] {
        let s: Value = serde_json::from_str(&env.read(rel)).unwrap();
        let group = &s["hooks"]["SessionStart"][0];
        assert_eq!(group.get("matcher"), None, "{rel}: {s}");
    }
    compact(&env, "win-a");
    event(&env, "SessionStart", "win-w", json!({"source": "startup"}));
    // W is forked: the fork's SessionStart(fork) gets the contract, as a startup does.
    let contract = env.run(&["context"]).ok().stdout;
    let fork = event(&env, "SessionStart", "fork-f", json!({"source": "fork"}));
    assert_eq!(
        context(&fork).as_deref().map(str::trim_end),
        Some(contract.trim_end())
    );
    let p = event(
        &env,
        "UserPromptSubmit",
        "fork-f",
        json!({"prompt": "go on"}),
    );
    assert_eq!(context(&p), None);
    // A's recovery stayed A's.
    let a = event(
        &env,
        "UserPromptSubmit",
        "win-a",
        json!({"prompt": "go on"}),
    );
    assert!(is_recovery(&context(&a)), "{a:?}");
}

#[test]
fn a_first_prompt_without_session_start_never_takes_another_windows_recovery() {
    let env = Env::git();
    compact(&env, "win-a");
    event(&env, "SessionStart", "win-w", json!({"source": "startup"}));
    // A fork of W under capn 0.3's matcher: no SessionStart, its first hook is a prompt. W could
    // as well be where it comes from, so A's recovery is not its to take.
    let f = event(
        &env,
        "UserPromptSubmit",
        "fork-f",
        json!({"prompt": "go on"}),
    );
    assert_eq!(context(&f), None, "{f:?}");
    assert!(
        f.stderr.contains("win-w of this project could as well be"),
        "{}",
        f.stderr
    );
    let a = event(
        &env,
        "UserPromptSubmit",
        "win-a",
        json!({"prompt": "go on"}),
    );
    assert!(is_recovery(&context(&a)), "{a:?}");
}

#[test]
fn a_first_prompt_copies_the_recovery_when_nothing_else_could_continue() {
    let env = Env::git();
    compact(&env, "win-a");
    // Only A in the project: B continues A's conversation or copies it; either way A's recovery
    // is B's, and A keeps it too in case it is still a live window.
    let b = event(
        &env,
        "UserPromptSubmit",
        "new-b",
        json!({"prompt": "go on"}),
    );
    let text = context(&b);
    assert!(is_recovery(&text), "{b:?}");
    assert!(text.unwrap().contains("win-a"));
    assert!(env.session_dir("win-a").join("compacted.json").exists());
    let b = event(
        &env,
        "UserPromptSubmit",
        "new-b",
        json!({"prompt": "go on"}),
    );
    assert_eq!(context(&b), None, "delivered twice to B");
    let a = event(
        &env,
        "UserPromptSubmit",
        "win-a",
        json!({"prompt": "go on"}),
    );
    assert!(is_recovery(&context(&a)), "{a:?}");
    // A third session finds B in the project: nothing more is copied.
    let c = event(
        &env,
        "UserPromptSubmit",
        "new-c",
        json!({"prompt": "go on"}),
    );
    assert_eq!(context(&c), None);
}

#[test]
fn doctor_names_the_old_matcher_and_init_upgrades_it() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let p = env.root.join(".claude/settings.json");
    let mut s: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    s["hooks"]["SessionStart"][0]["matcher"] = json!("startup|resume|clear|compact");
    std::fs::write(&p, serde_json::to_string_pretty(&s).unwrap()).unwrap();
    let run = env.run(&["doctor"]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("Claude SessionStart hook"))
        .unwrap_or_default()
        .to_string();
    assert!(
        line.contains("matcher \"startup|resume|clear|compact\" is capn 0.3's: a forked session (source \"fork\") and any later source get no contract; capn init removes it"),
        "{}",
        run.stdout
    );
    env.run(&["init"]).ok();
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    assert_eq!(s["hooks"]["SessionStart"][0].get("matcher"), None, "{s}");
    let run = env.run(&["doctor"]);
    assert!(!run.stdout.contains("capn 0.3's"), "{}", run.stdout);
}
