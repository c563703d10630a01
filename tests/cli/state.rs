//! `capn state path|save|show`: the session id rules and the nine-heading check.

use crate::util::Env;

const VALID: &str = "# Compact Prep State\n\
## Active Plan\n~/.claude/plans/refactor.md, plan mode off\n\
## Current Phase\nverification; nothing deployed\n\
## TaskList Summary\n- [x] a\n- [ ] b\n\
## Session Decisions\nadopted B; rejected A (breaks the cache)\n\
## Constraints and Blockers\nedit the source repo, not the target\n\
## Worker Topology\nnone\n\
## Editing Files\nsrc/x.rs (untested)\n\
## Recovery Notes\n```sh\n# rerun the tests first\ncargo test\n```\n";

fn state_file(env: &Env, sid: &str) -> std::path::PathBuf {
    env.state_dir().join("sessions").join(sid).join("state.md")
}

#[test]
fn without_a_session_id_it_stops_and_says_how_to_get_one() {
    let env = Env::git();
    for action in ["path", "save", "show"] {
        let r = env.run_stdin(&["state", action], VALID.as_bytes()).code(1);
        assert!(r.stdout.is_empty());
        for needle in ["CAPN_SESSION_ID", "capn init", "--session", "SessionStart"] {
            assert!(r.stderr.contains(needle), "{action}: {}", r.stderr);
        }
    }
    // An empty --session (an unexpanded skill variable) counts as absent.
    env.run(&["state", "path", "--session", ""]).code(1);
    assert!(!env.state_dir().exists(), "nothing written");
}

#[test]
fn session_comes_from_the_flag_else_the_environment() {
    let env = Env::git();
    let r = env.run(&["state", "path", "--session", "abc"]).ok();
    assert_eq!(
        r.stdout.trim_end(),
        state_file(&env, "abc").display().to_string()
    );
    assert!(std::path::Path::new(r.stdout.trim_end()).is_absolute());
    let mut c = env.cmd(&["state", "path"]);
    c.env("CAPN_SESSION_ID", "from-env");
    let r = env.run_cmd(c, b"").ok();
    assert_eq!(
        r.stdout.trim_end(),
        state_file(&env, "from-env").display().to_string()
    );
    let mut c = env.cmd(&["state", "path", "--session", ""]);
    c.env("CAPN_SESSION_ID", "from-env");
    let r = env.run_cmd(c, b"").ok();
    assert!(r.stdout.contains("from-env"));
    let mut c = env.cmd(&["state", "path", "--session", "flag"]);
    c.env("CAPN_SESSION_ID", "from-env");
    assert!(env.run_cmd(c, b"").ok().stdout.contains("/flag/"));
    // CAPN_STATE_DIR overrides the platform dir.
    let mut c = env.cmd(&["state", "path", "--session", "s"]);
    c.env("CAPN_STATE_DIR", env.tmp.path().join("custom"));
    let r = env.run_cmd(c, b"").ok();
    assert_eq!(
        r.stdout.trim_end(),
        env.tmp
            .path()
            .join("custom/sessions/s/state.md")
            .display()
            .to_string()
    );
}

#[test]
fn invalid_session_ids_are_refused() {
    let env = Env::git();
    for bad in ["../../x", "..", "/etc", "a/b", ".x", "a b"] {
        let r = env
            .run_stdin(&["state", "save", "--session", bad], VALID.as_bytes())
            .code(1);
        assert!(
            r.stderr.contains("invalid session id"),
            "{bad}: {}",
            r.stderr
        );
    }
    assert!(!env.state_dir().exists());
    assert!(!env.tmp.path().join("x").exists());
}

#[test]
fn save_then_show_round_trips() {
    let env = Env::git();
    let r = env
        .run_stdin(&["state", "save", "--session", "s1"], VALID.as_bytes())
        .ok();
    assert!(r.stdout.contains("all 9 headings present"), "{}", r.stdout);
    assert!(r
        .stdout
        .contains(&state_file(&env, "s1").display().to_string()));
    assert_eq!(
        std::fs::read_to_string(state_file(&env, "s1")).unwrap(),
        VALID
    );
    let r = env.run(&["state", "show", "--session", "s1"]).ok();
    assert_eq!(r.stdout, VALID);
    // Saving again replaces it; no temp files are left behind.
    let v2 = VALID.replace("nothing deployed", "deployed to staging");
    env.run_stdin(&["state", "save", "--session", "s1"], v2.as_bytes())
        .ok();
    assert_eq!(std::fs::read_to_string(state_file(&env, "s1")).unwrap(), v2);
    let names: Vec<_> = std::fs::read_dir(state_file(&env, "s1").parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["state.md"]);
}

#[test]
fn bad_headings_are_refused_with_the_full_list_and_nothing_written() {
    let env = Env::git();
    env.run_stdin(&["state", "save", "--session", "s2"], VALID.as_bytes())
        .ok();
    let bad = VALID
        .replace("## Worker Topology\nnone\n", "")
        .replace("## Current Phase", "## Phase")
        .replace("## Session Decisions", "## TMP")
        .replace("## TaskList Summary", "## Session Decisions")
        .replace("## TMP", "## TaskList Summary");
    let r = env
        .run_stdin(&["state", "save", "--session", "s2"], bad.as_bytes())
        .code(1);
    for needle in [
        "missing: ## Worker Topology",
        "missing: ## Current Phase",
        "unexpected heading at line 4: \"## Phase\"",
        "out of order:",
        "nothing was written",
    ] {
        assert!(
            r.stderr.contains(needle),
            "missing {needle:?} in\n{}",
            r.stderr
        );
    }
    // One line, as every refusal: no escaped line break shows in it.
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(!r.stderr.contains("\\n"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(state_file(&env, "s2")).unwrap(),
        VALID,
        "the previous state is untouched"
    );
    let r = env
        .run_stdin(&["state", "save", "--session", "s3"], b"")
        .code(1);
    assert_eq!(r.stderr.matches("missing: ").count(), 9);
    assert!(!state_file(&env, "s3").exists());
    assert!(!state_file(&env, "s3").parent().unwrap().exists());
}

#[test]
fn show_without_a_saved_state_exits_1() {
    let env = Env::git();
    let r = env.run(&["state", "show", "--session", "none"]).code(1);
    assert!(r.stderr.contains("no state saved"), "{}", r.stderr);
}
