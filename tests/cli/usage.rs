//! The small CLI items of issue 8, point 9.

use crate::util::Env;

#[test]
fn bare_capn_is_a_usage_error_with_help_on_stderr() {
    let env = Env::new();
    let run = env.run(&[]).code(1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains("Usage: capn <COMMAND>"),
        "{}",
        run.stderr
    );
    env.run(&["--help"]).ok();
}

#[test]
fn a_swapped_subcommand_gets_a_did_you_mean() {
    let env = Env::new();
    let run = env.run(&["aks", "where is x"]).code(1);
    assert!(
        run.stderr
            .contains("tip: a similar subcommand exists: 'ask'"),
        "{}",
        run.stderr
    );
    let run = env.run(&["lsit"]).code(1);
    assert!(run.stderr.contains("'list'"), "{}", run.stderr);
}

#[test]
fn an_unquoted_question_gets_a_hint_to_quote_it() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let run = env.run(&["ask", "how", "is", "x"]).code(1);
    assert_eq!(
        run.stderr,
        "capn: unexpected argument \"is\": quote the question: capn ask \"how is x\"\n"
    );
}

#[test]
fn busting_a_missing_file_says_it_does_not_exist() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let run = env.run(&["bust", "src/nope.ts"]).ok();
    assert_eq!(run.stdout, "busted 0 entries\n");
    assert_eq!(
        run.stderr,
        "capn: src/nope.ts does not exist (check the path: it is relative to the current directory)\n"
    );
    env.write("src/here.ts", "x");
    let run = env.run(&["bust", "src/here.ts"]).ok();
    assert_eq!(run.stderr, "");
}

#[test]
fn help_lists_the_state_headings_and_the_statusline_default() {
    let env = Env::new();
    let run = env.run(&["state", "save", "--help"]).ok();
    for h in [
        "# Compact Prep State",
        "## Active Plan",
        "## Current Phase",
        "## TaskList Summary",
        "## Session Decisions",
        "## Constraints and Blockers",
        "## Worker Topology",
        "## Editing Files",
        "## Recovery Notes",
    ] {
        assert!(
            run.stdout.contains(&format!("  {h}\n")),
            "{h}: {}",
            run.stdout
        );
    }
    let run = env.run(&["statusline", "--help"]).ok();
    assert!(run.stdout.contains("[default: 60"), "{}", run.stdout);
}

/// `capn hook -h` and `--help` list every event's subcommand, in the event table's order, from
/// the one table (no hand-written list to fall behind).
#[test]
fn hook_help_lists_every_event() {
    let env = Env::new();
    let subs: Vec<&str> = capn_hook::events::HookEvent::ALL
        .iter()
        .map(|e| e.subcommand())
        .collect();
    let want = subs.join(", ");
    for flag in ["-h", "--help"] {
        let run = env.run(&["hook", flag]).ok();
        assert!(
            run.stdout.lines().any(|l| l.trim_end().ends_with(&want)),
            "{flag}: no line ending {want:?}\n{}",
            run.stdout
        );
    }
}

/// Outside any project (no `.capn/`, not a git repository), `unchart` and `bust` say so, as `ask`,
/// `list` and `prune` do, instead of "unknown id" or "busted 0 entries".
#[test]
fn unchart_and_bust_outside_a_project_say_so() {
    let env = Env::new();
    let outside = env.tmp.path().join("nowhere");
    std::fs::create_dir_all(&outside).unwrap();
    let run = env.run_cmd(env.cmd_in(&outside, &["unchart", "abcdef12"]), b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("not inside a project"),
        "{}",
        run.stderr
    );
    let run = env
        .run_cmd(env.cmd_in(&outside, &["bust", "x.ts"]), b"")
        .ok();
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("not inside a project"),
        "{}",
        run.stderr
    );
    assert!(!outside.join(".capn").exists());
}
