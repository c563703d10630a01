//! `capn hook <event>`: the marker state machine. A compaction leaves a marker that exactly one
//! hook delivers as the recovery, once, whichever of PostCompact, SessionStart(compact) and the
//! next prompt runs first; the context warning fires once per crossing; sessions never see each
//! other's markers, and stale ones are collected.

use crate::hooks::{
    context, is_recovery, is_warning, payload, post, pre, prompt, run_event, start,
};
use crate::util::{Env, Run};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// PostCompact alone: the next prompt gets the recovery, once.
#[test]
fn post_compact_marker_is_delivered_once_by_the_next_prompt() {
    let env = Env::git();
    pre(&env, "a").ok();
    post(&env, "a").ok();
    assert!(env.session_dir("a").join("compacted.json").exists());
    let marker: Value = serde_json::from_str(
        &std::fs::read_to_string(env.session_dir("a").join("compacted.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(marker["trigger"], "manual");
    assert_eq!(marker["event"], "PostCompact");
    assert_eq!(marker["cwd"], "/home/user/project");
    assert!(marker["transcript_path"]
        .as_str()
        .unwrap()
        .ends_with("a.jsonl"));
    assert!(marker["at"].as_str().unwrap().ends_with('Z'));
    let text = context(prompt(&env, "a"), "UserPromptSubmit").unwrap();
    assert!(is_recovery(&text), "{text}");
    assert!(text.contains("No /compact-prep state was saved"), "{text}");
    assert!(text.contains(&env.session_dir("a").join("state.md").display().to_string()));
    assert_eq!(context(prompt(&env, "a"), "UserPromptSubmit"), None);
    assert!(!env.session_dir("a").join("compacted.json").exists());
}

/// SessionStart(compact) alone (no PostCompact registered): it delivers; prompts stay silent.
#[test]
fn session_start_compact_alone_delivers_the_recovery() {
    let env = Env::git();
    pre(&env, "b").ok();
    let text = context(start(&env, "b", "compact"), "SessionStart").unwrap();
    assert!(is_recovery(&text), "{text}");
    assert!(
        !text.contains("capn ask \""),
        "the full contract is not repeated"
    );
    assert_eq!(context(prompt(&env, "b"), "UserPromptSubmit"), None);
}

/// Both hooks, PostCompact first: SessionStart claims the marker, the prompt stays silent.
#[test]
fn post_compact_then_session_start_delivers_once() {
    let env = Env::git();
    pre(&env, "c").ok();
    post(&env, "c").ok();
    let text = context(start(&env, "c", "compact"), "SessionStart").unwrap();
    assert!(is_recovery(&text) && text.contains("(manual, "), "{text}");
    assert_eq!(context(prompt(&env, "c"), "UserPromptSubmit"), None);
}

/// Both hooks, SessionStart first (as in the real capture, 60 ms apart): PostCompact leaves no
/// marker behind, so the recovery is not delivered a second time.
#[test]
fn session_start_then_post_compact_delivers_once() {
    let env = Env::git();
    for round in 0..2 {
        pre(&env, "d").ok();
        let text = context(start(&env, "d", "compact"), "SessionStart").unwrap();
        assert!(is_recovery(&text), "round {round}");
        post(&env, "d").ok();
        assert!(!env.session_dir("d").join("compacted.json").exists());
        assert_eq!(
            context(prompt(&env, "d"), "UserPromptSubmit"),
            None,
            "round {round}"
        );
    }
    // A later compaction with PostCompact only is still delivered: the old record does not
    // cover it.
    std::thread::sleep(Duration::from_millis(5));
    pre(&env, "d").ok();
    post(&env, "d").ok();
    assert!(is_recovery(
        &context(prompt(&env, "d"), "UserPromptSubmit").unwrap()
    ));
}

/// SessionStart(compact) and PostCompact racing in parallel: exactly one delivery overall.
#[test]
fn racing_session_start_and_post_compact_deliver_exactly_once() {
    let env = Env::git();
    for i in 0..8 {
        let sid = format!("race-{i}");
        pre(&env, &sid).ok();
        let (s, _) = std::thread::scope(|sc| {
            let a = sc.spawn(|| start(&env, &sid, "compact"));
            let b = sc.spawn(|| post(&env, &sid));
            (a.join().unwrap(), b.join().unwrap().ok())
        });
        let delivered_by_start = context(s, "SessionStart").is_some_and(|t| is_recovery(&t));
        let delivered_by_prompt = context(prompt(&env, &sid), "UserPromptSubmit").is_some();
        assert!(delivered_by_start, "SessionStart(compact) always delivers");
        assert!(!delivered_by_prompt, "{sid}: delivered twice");
    }
}

#[test]
fn subagent_post_compact_is_ignored() {
    let env = Env::git();
    run_event(
        &env,
        "PostCompact",
        "e",
        json!({"trigger":"auto","agent_id":"agent-1","agent_type":"Explore"}),
    )
    .ok();
    run_event(
        &env,
        "PreCompact",
        "e",
        json!({"trigger":"auto","agent_id":"agent-1"}),
    )
    .ok();
    assert!(!env.session_dir("e").exists());
    assert_eq!(context(prompt(&env, "e"), "UserPromptSubmit"), None);
    // A sub-agent prompt never consumes the main conversation's marker.
    post(&env, "e").ok();
    let sub = run_event(
        &env,
        "UserPromptSubmit",
        "e",
        json!({"prompt":"x","agent_id":"a"}),
    );
    assert_eq!(context(sub, "UserPromptSubmit"), None);
    assert!(is_recovery(
        &context(prompt(&env, "e"), "UserPromptSubmit").unwrap()
    ));
}

#[test]
fn two_sessions_in_one_project_never_see_each_others_markers() {
    let env = Env::git();
    // A parallel session starts with SessionStart, so it is known and never takes over another
    // session's marker (a new id whose first event is a prompt may: see tests/cli/handoff.rs).
    start(&env, "two", "startup").ok();
    post(&env, "one").ok();
    assert_eq!(context(prompt(&env, "two"), "UserPromptSubmit"), None);
    assert_eq!(
        context(start(&env, "two", "startup"), "SessionStart").map(|t| is_recovery(&t)),
        Some(false)
    );
    assert!(is_recovery(
        &context(prompt(&env, "one"), "UserPromptSubmit").unwrap()
    ));
}

#[test]
fn clear_starts_a_new_session_id_with_nothing_pending() {
    let env = Env::git();
    let envfile = env.tmp.path().join("claude-env");
    post(&env, "before-clear").ok();
    let mut c = env.cmd(&["hook", "session-start"]);
    c.env("CLAUDE_ENV_FILE", &envfile);
    let text = context(
        env.run_cmd(
            c,
            &payload("SessionStart", "after-clear", json!({"source":"clear"})),
        ),
        "SessionStart",
    )
    .unwrap();
    assert!(!is_recovery(&text));
    assert!(std::fs::read_to_string(&envfile)
        .unwrap()
        .ends_with("export CAPN_SESSION_ID=after-clear\n"));
    assert_eq!(
        context(prompt(&env, "after-clear"), "UserPromptSubmit"),
        None
    );
    // The old session's marker is its own business.
    assert!(env
        .session_dir("before-clear")
        .join("compacted.json")
        .exists());
}

/// A status line payload at `percent`% for session `sid`.
fn status(env: &Env, sid: &str, percent: f64) -> Run {
    let p = json!({"session_id": sid, "cwd": env.root, "model": {"id": "claude-opus-4-6"},
                   "context_window": {"used_percentage": percent, "context_window_size": 200000}});
    env.run_stdin(&["statusline"], &serde_json::to_vec(&p).unwrap())
        .ok()
}

#[test]
fn warning_fires_once_per_crossing_and_rearms_after_compaction() {
    let env = Env::git();
    status(&env, "w", 59.9);
    assert_eq!(context(prompt(&env, "w"), "UserPromptSubmit"), None);
    status(&env, "w", 60.0);
    let text = context(prompt(&env, "w"), "UserPromptSubmit").unwrap();
    assert!(
        is_warning(&text) && text.contains("60%") && text.contains("/compact-prep"),
        "{text}"
    );
    status(&env, "w", 75.0);
    status(&env, "w", 80.0);
    assert_eq!(
        context(prompt(&env, "w"), "UserPromptSubmit"),
        None,
        "warned once"
    );
    // A compaction re-arms it; the recovery comes first.
    status(&env, "w", 85.0);
    pre(&env, "w").ok();
    post(&env, "w").ok();
    assert!(!env.session_dir("w").join("context-warn.json").exists());
    assert!(is_recovery(
        &context(prompt(&env, "w"), "UserPromptSubmit").unwrap()
    ));
    assert_eq!(context(prompt(&env, "w"), "UserPromptSubmit"), None);
    status(&env, "w", 20.0);
    assert_eq!(context(prompt(&env, "w"), "UserPromptSubmit"), None);
    status(&env, "w", 66.6);
    let text = context(prompt(&env, "w"), "UserPromptSubmit").unwrap();
    assert!(is_warning(&text) && text.contains("66%"), "{text}");
}

#[test]
fn an_undelivered_warning_is_withdrawn_when_use_drops_below_the_threshold() {
    let env = Env::git();
    status(&env, "d", 75.0);
    assert!(env.session_dir("d").join("context-warn.json").exists());
    // Before any prompt, use falls (a /clear or a compaction seen by the status line first).
    status(&env, "d", 3.0);
    assert_eq!(context(prompt(&env, "d"), "UserPromptSubmit"), None);
}

#[test]
fn pending_compaction_wins_over_pending_warning() {
    let env = Env::git();
    status(&env, "pw", 70.0);
    // Written by a statusline after PostCompact (the warning record was re-armed).
    post(&env, "pw").ok();
    status(&env, "pw", 70.0);
    assert!(is_recovery(
        &context(prompt(&env, "pw"), "UserPromptSubmit").unwrap()
    ));
    assert!(is_warning(
        &context(prompt(&env, "pw"), "UserPromptSubmit").unwrap()
    ));
    assert_eq!(context(prompt(&env, "pw"), "UserPromptSubmit"), None);
}

#[test]
fn recovery_names_the_saved_state_and_its_time() {
    let env = Env::git();
    let state = "# Compact Prep State\n## Active Plan\nplans/x.md\n## Current Phase\n## TaskList Summary\n## Session Decisions\n## Constraints and Blockers\n## Worker Topology\n## Editing Files\n## Recovery Notes\n";
    env.run_stdin(&["state", "save", "--session", "f"], state.as_bytes())
        .ok();
    pre(&env, "f").ok();
    post(&env, "f").ok();
    let text = context(prompt(&env, "f"), "UserPromptSubmit").unwrap();
    let path = env.session_dir("f").join("state.md");
    assert!(
        text.contains(&format!("is {}, saved 20", path.display())),
        "{text}"
    );
    assert!(text.contains("Active Plan") && text.contains("hypotheses"));
    assert!(!text.contains("no fresh"), "{text}");
    let pre_rec: Value = serde_json::from_str(
        &std::fs::read_to_string(env.session_dir("f").join("precompact.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(pre_rec["fresh_state"], true);
}

/// A state saved before the previous compaction is not fresh for the next one.
#[test]
fn recovery_says_when_the_compaction_came_without_fresh_prep() {
    let env = Env::git();
    let state = "# Compact Prep State\n## Active Plan\n## Current Phase\n## TaskList Summary\n## Session Decisions\n## Constraints and Blockers\n## Worker Topology\n## Editing Files\n## Recovery Notes\n";
    env.run_stdin(&["state", "save", "--session", "g"], state.as_bytes())
        .ok();
    pre(&env, "g").ok();
    post(&env, "g").ok();
    context(prompt(&env, "g"), "UserPromptSubmit").unwrap();
    std::thread::sleep(Duration::from_millis(5));
    pre(&env, "g").ok();
    post(&env, "g").ok();
    let text = context(prompt(&env, "g"), "UserPromptSubmit").unwrap();
    assert!(text.contains("no fresh /compact-prep"), "{text}");
}

#[test]
fn stale_sessions_are_garbage_collected_from_session_start() {
    let env = Env::git();
    post(&env, "old").ok();
    post(&env, "young").ok();
    // post-compact ran GC and stamped; make both the stamp and "old" look ancient.
    let old_time = SystemTime::now() - Duration::from_secs(20 * 24 * 3600);
    let age = |p: &Path| {
        std::fs::File::open(p)
            .unwrap()
            .set_modified(old_time)
            .unwrap()
    };
    let old = env.session_dir("old");
    age(&old.join("compacted.json"));
    age(&old);
    // A fresh stamp: nothing is collected yet.
    start(&env, "other", "startup").ok();
    assert!(old.exists(), "GC runs at most daily");
    age(&env.state_dir().join("gc-stamp"));
    start(&env, "other", "startup").ok();
    assert!(!old.exists(), "old session collected");
    assert!(env.session_dir("young").exists());
}
