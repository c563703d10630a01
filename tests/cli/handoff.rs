//! Recovery follows the conversation (issue 8, point 8): a new session id continuing a compacted
//! conversation in the same project takes over the old id's marker and state; parallel sessions
//! never see each other's markers.

use crate::util::{hook_payload, hook_subcommand, Env, Run};
use serde_json::{json, Value};
use std::path::Path;

const STATE: &str = "# Compact Prep State\n## Active Plan\nplans/handoff.md\n## Current Phase\n## TaskList Summary\n## Session Decisions\n## Constraints and Blockers\n## Worker Topology\n## Editing Files\n## Recovery Notes\n";

fn event(env: &Env, cwd: &Path, name: &str, sid: &str, extra: Value) -> Run {
    env.run_stdin(
        &["hook", hook_subcommand(name).unwrap(), "--host", "claude"],
        &hook_payload(name, sid, cwd, extra),
    )
    .ok()
}

fn context(run: &Run) -> Option<String> {
    let v: Value = serde_json::from_str(run.stdout.trim()).ok()?;
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(str::to_string)
}

/// Session `sid` saves its state, compacts (PreCompact, PostCompact) and leaves the marker.
fn save_and_compact(env: &Env, cwd: &Path, sid: &str) {
    event(env, cwd, "SessionStart", sid, json!({"source": "startup"}));
    env.run_stdin(&["state", "save", "--session", sid], STATE.as_bytes())
        .ok();
    event(env, cwd, "PreCompact", sid, json!({"trigger": "auto"}));
    event(env, cwd, "PostCompact", sid, json!({"trigger": "auto"}));
    assert!(env.session_dir(sid).join("compacted.json").exists());
}

fn state_show(env: &Env, sid: &str) -> Run {
    let mut c = env.cmd(&["state", "show"]);
    c.env("CAPN_SESSION_ID", sid);
    env.run_cmd(c, b"")
}

#[test]
fn session_start_compact_under_a_new_id_takes_over_the_old_ids_marker_and_state() {
    let env = Env::git();
    let root = env.root.clone();
    save_and_compact(&env, &root, "old-a");
    let run = event(
        &env,
        &root,
        "SessionStart",
        "new-b",
        json!({"source": "compact"}),
    );
    let text = context(&run).expect("recovery injected");
    let old_state = env.session_dir("old-a").join("state.md");
    assert!(text.contains(&old_state.display().to_string()), "{text}");
    assert!(!text.contains("No /compact-prep state was saved"), "{text}");
    assert!(!env.session_dir("old-a").join("compacted.json").exists());
    // Delivered once: neither id's next prompt repeats it.
    let b = event(
        &env,
        &root,
        "UserPromptSubmit",
        "new-b",
        json!({"prompt": "go"}),
    );
    assert_eq!(context(&b), None);
    let a = event(
        &env,
        &root,
        "UserPromptSubmit",
        "old-a",
        json!({"prompt": "go"}),
    );
    assert_eq!(context(&a), None);
    // capn state show under the new id finds the old id's state.
    let show = state_show(&env, "new-b").ok();
    assert_eq!(show.stdout, STATE);
}

/// Without a SessionStart, the first prompt under a new id takes over only when it writes the
/// compacted session's transcript (the host continued that conversation: `handoff.rs`).
#[test]
fn the_first_prompt_under_a_new_id_takes_over_when_no_session_start_came() {
    let env = Env::git();
    let root = env.root.clone();
    save_and_compact(&env, &root, "old-a");
    let run = event(
        &env,
        &root,
        "UserPromptSubmit",
        "new-c",
        json!({"prompt": "go on",
               "transcript_path": "/home/user/.claude/projects/p/old-a.jsonl"}),
    );
    let text = context(&run).expect("recovery injected");
    assert!(text.contains("old-a"), "{text}");
    assert_eq!(state_show(&env, "new-c").ok().stdout, STATE);
}

/// A parallel session in the same project (it started normally, so it is known) never takes
/// another session's marker, neither on its prompts nor on its own compaction; a session in
/// another project never does either.
#[test]
fn parallel_sessions_never_see_each_others_markers() {
    let env = Env::git();
    let root = env.root.clone();
    event(
        &env,
        &root,
        "SessionStart",
        "par-p",
        json!({"source": "startup"}),
    );
    save_and_compact(&env, &root, "old-a");
    let p = event(
        &env,
        &root,
        "UserPromptSubmit",
        "par-p",
        json!({"prompt": "x"}),
    );
    assert_eq!(context(&p), None);
    // P compacts itself: SessionStart(compact) first (as captured), then its own PostCompact.
    event(
        &env,
        &root,
        "PreCompact",
        "par-p",
        json!({"trigger": "auto"}),
    );
    let p = event(
        &env,
        &root,
        "SessionStart",
        "par-p",
        json!({"source": "compact"}),
    );
    assert!(!context(&p).unwrap().contains("old-a"));
    assert!(env.session_dir("old-a").join("compacted.json").exists());
    // A session in another project, never seen before.
    let other = env.tmp.path().join("elsewhere");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    let d = event(
        &env,
        &other,
        "UserPromptSubmit",
        "other-d",
        json!({"prompt": "x"}),
    );
    assert_eq!(context(&d), None);
    assert!(env.session_dir("old-a").join("compacted.json").exists());
    // The marker is still old-a's own.
    let a = event(
        &env,
        &root,
        "UserPromptSubmit",
        "old-a",
        json!({"prompt": "x"}),
    );
    assert!(context(&a).is_some());
    assert_eq!(state_show(&env, "par-p").code, 1);
}

/// Two sessions compacted in the project: which one a new id continues is not known, so it takes
/// neither.
#[test]
fn two_candidate_markers_are_left_alone() {
    let env = Env::git();
    let root = env.root.clone();
    save_and_compact(&env, &root, "old-a");
    save_and_compact(&env, &root, "old-b");
    let run = event(
        &env,
        &root,
        "UserPromptSubmit",
        "new-n",
        json!({"prompt": "go"}),
    );
    assert_eq!(context(&run), None);
    assert!(env.session_dir("old-a").join("compacted.json").exists());
    assert!(env.session_dir("old-b").join("compacted.json").exists());
}
