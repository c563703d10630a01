//! Forked sessions (issue 18): Claude Code reports a fork as SessionStart source `fork` (since
//! 2.1.214; `resume` before). capn registers SessionStart without a matcher, so a fork gets the
//! contract; `init` upgrades capn 0.3's matcher and `doctor` names it; and a session whose first
//! hook is not SessionStart never takes another window's recovery (only one that writes the
//! compacted session's own transcript takes it).

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
        f.stderr
            .contains("does not write session win-a's transcript"),
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

/// The review's case (finding 4): A starts, compacts and leaves its recovery pending; B, another
/// window whose first hook is a prompt, is the only other session. B gets no recovery and no
/// handoff (before, it got A's, and `capn state show` in B showed A's state), and A keeps it.
#[test]
fn a_first_prompt_of_another_window_gets_no_recovery_even_when_alone() {
    let env = Env::git();
    env.run(&["init"]).ok();
    compact(&env, "win-a");
    let b = event(
        &env,
        "UserPromptSubmit",
        "win-b",
        json!({"prompt": "please add a logout button to the page"}),
    );
    assert_eq!(context(&b), None, "{b:?}");
    assert!(!env.session_dir("win-b").join("handoff.json").exists());
    let a = event(
        &env,
        "UserPromptSubmit",
        "win-a",
        json!({"prompt": "go on"}),
    );
    assert!(is_recovery(&context(&a)), "{a:?}");
}

/// A first prompt that writes A's transcript (the host continued A's conversation under a new
/// id) is A's continuation: it claims the recovery, once, and A does not get it again.
#[test]
fn a_first_prompt_in_the_compacted_transcript_takes_the_recovery_once() {
    let env = Env::git();
    compact(&env, "win-a");
    let same = json!({"prompt": "go on",
                      "transcript_path": "/home/user/.claude/projects/p/win-a.jsonl"});
    let b = event(&env, "UserPromptSubmit", "new-b", same.clone());
    let text = context(&b);
    assert!(is_recovery(&text), "{b:?}");
    assert!(text.unwrap().contains("win-a"));
    assert!(!env.session_dir("win-a").join("compacted.json").exists());
    let b = event(&env, "UserPromptSubmit", "new-b", same.clone());
    assert_eq!(context(&b), None, "delivered twice to B");
    let c = event(&env, "UserPromptSubmit", "new-c", same);
    assert_eq!(context(&c), None, "delivered to a third session");
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
