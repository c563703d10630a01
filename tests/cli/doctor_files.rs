//! `capn doctor` on what it reads: hook registrations (malformed, legacy, duplicated, at user
//! level, not capn's), the bundled skill, `.capn/config.json`'s offer switches, PreToolUse
//! matchers, a wrapped status line, and the entries it counts.

use crate::doctor::{doctor, failed_count, failure, init, read_json, write_json};
use crate::util::{Env, Run};
use serde_json::json;

#[test]
fn a_registered_command_that_is_not_a_capn_hook_is_named() {
    let env = Env::git();
    init(&env);
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"]["UserPromptSubmit"][0]["hooks"][0]["args"] = json!(["hook", "nonsense"]);
    write_json(&env, ".claude/settings.json", &s);
    let run = doctor(&env).code(1);
    failure(
        &run,
        &[
            "Claude UserPromptSubmit hook:",
            "no `capn hook user-prompt-submit`",
        ],
    );
    let (_, fix) = failure(
        &run,
        &[
            "Claude UserPromptSubmit hook in .claude/settings.json runs `capn hook nonsense`",
            "`nonsense` is not a capn hook",
        ],
    );
    assert!(
        fix.contains("remove that handler from .claude/settings.json"),
        "{fix}"
    );
    // Run as Claude Code would: capn reports the bad subcommand on stderr and prints nothing,
    // so the recovery after the synthetic compaction never arrives.
    let (line, fix) = failure(
        &run,
        &[
            "Claude UserPromptSubmit runs `capn hook nonsense`",
            "the recovery is not delivered",
        ],
    );
    assert!(line.contains("stderr: "), "{line}");
    assert!(
        fix.contains(r#"replace that handler with {"type":"command","command":"capn","args":["hook","user-prompt-submit"],"timeout":10}"#),
        "{fix}"
    );
    assert_eq!(failed_count(&run), 3, "{}", run.stdout);
}

#[test]
fn malformed_registrations_legacy_and_duplicates_are_reported() {
    let env = Env::git();
    init(&env);
    let mut s = read_json(&env, ".claude/settings.json");
    let ss = &mut s["hooks"]["SessionStart"][0];
    ss["matcher"] = json!("startup");
    ss["hooks"][0] = json!({"type": "command", "command": "capn hook session-start"});
    s["hooks"]["Stop"] =
        json!([{"hooks": [{"type": "command", "command": "/usr/bin/env capn context"}]}]);
    write_json(&env, ".claude/settings.json", &s);
    // The same UserPromptSubmit hook, slightly different, in the local settings: it runs twice.
    write_json(
        &env,
        ".claude/settings.local.json",
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "capn", "args": ["hook", "user-prompt-submit"], "timeout": 5}
        ]}]}}),
    );
    let run = doctor(&env).code(1);
    let (line, fix) = failure(&run, &["Claude SessionStart hook in .claude/settings.json"]);
    for needle in [
        "shell form",
        "no explicit \"timeout\"",
        "matcher \"startup\" does not select every source: a forked session (source \"fork\")",
    ] {
        assert!(line.contains(needle), "{needle}: {line}");
    }
    assert!(fix.contains("capn uninstall && capn init"), "{fix}");
    let (_, fix) = failure(
        &run,
        &["Claude Stop hook in .claude/settings.json", "capn-hook 0.2"],
    );
    assert_eq!(fix, "  fix: capn init (replaces it)");
    let (line, _) = failure(
        &run,
        &[
            "Claude UserPromptSubmit hook registered once",
            "registered 2 times",
        ],
    );
    assert!(line.contains(".claude/settings.local.json"), "{line}");
    // Both copies run, and each is still a working hook.
    let ups_runs = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("ok    Claude UserPromptSubmit runs"))
        .count();
    assert_eq!(ups_runs, 2, "{}", run.stdout);
}

#[test]
fn user_level_registrations_are_read_and_copies_that_differ_are_named() {
    let env = Env::git();
    init(&env);
    // An identical copy in the user's settings runs once: fine.
    let project = read_json(&env, ".claude/settings.json");
    let user = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    let same = json!({"hooks": {"PreCompact": project["hooks"]["PreCompact"].clone()}});
    std::fs::write(&user, same.to_string()).unwrap();
    let run = doctor(&env).ok();
    assert!(
        run.stdout.contains("ok    ~/.claude/settings.json parses"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("ok    Claude PreCompact hook registered in ~/.claude/settings.json"),
        "{}",
        run.stdout
    );
    let pre_runs = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("ok    Claude PreCompact(manual) runs"))
        .count();
    assert_eq!(pre_runs, 1, "{}", run.stdout);
    // A different copy runs as well: twice.
    let other = json!({"hooks": {"PreCompact": [{"hooks": [
        {"type": "command", "command": "capn", "args": ["hook", "pre-compact"], "timeout": 30}
    ]}]}});
    std::fs::write(&user, other.to_string()).unwrap();
    let run = doctor(&env).code(1);
    let (line, fix) = failure(&run, &["Claude PreCompact hook registered once", "2 times"]);
    assert!(
        line.contains("~/.claude/settings.json: capn hook pre-compact"),
        "{line}"
    );
    assert!(
        fix.contains(".claude/settings.json and ~/.claude/settings.json"),
        "{fix}"
    );
    // A user-level file that does not parse is named, with its path.
    std::fs::write(&user, "{").unwrap();
    let run = doctor(&env).code(1);
    let (line, fix) = failure(
        &run,
        &["~/.claude/settings.json", "could not parse settings"],
    );
    assert!(line.contains(&user.display().to_string()), "{line}");
    assert!(!fix.contains("capn init"), "{fix}");
}

#[test]
fn broken_files_and_a_changed_skill() {
    let env = Env::git();
    init(&env);
    env.write(".claude/settings.local.json", "{ \"hooks\": ");
    env.write(
        ".capn/config.json",
        "{\"embedding\": true, \"warn_at\": 150}",
    );
    let skill = ".claude/skills/compact-prep/SKILL.md";
    let mut text = env.read(skill);
    text.push_str("\nMy own note.\n");
    env.write(skill, &text);
    let run = doctor(&env).code(1);
    let (line, fix) = failure(
        &run,
        &[".claude/settings.local.json", "could not parse settings"],
    );
    assert!(line.contains(&env.root.display().to_string()), "{line}");
    assert!(fix.contains("fix the JSON of"), "{fix}");
    let (line, _) = failure(&run, &[".capn/config.json", "\"warn_at\" is 150"]);
    assert!(line.contains("config.json"), "{line}");
    let warn = run
        .stdout
        .lines()
        .find(|l| l.starts_with("warn  /compact-prep skill"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(warn.contains("differs from the bundled skill"), "{warn}");
    assert_eq!(failed_count(&run), 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("checks failed, 1 warning"),
        "{}",
        run.stdout
    );
}

/// doctor says which offer moments `.capn/config.json` leaves on, and a bad `"offer"` value is
/// a failed config check with the keys in its fix (the hooks then keep both moments on).
#[test]
fn the_offer_switches_are_reported_and_a_bad_value_fails() {
    let env = Env::git();
    init(&env);
    let line = |run: &Run| {
        run.stdout
            .lines()
            .find(|l| l.contains("offers of charted answers"))
            .unwrap_or_else(|| panic!("{}", run.stdout))
            .to_string()
    };
    let run = doctor(&env).ok();
    assert_eq!(
        line(&run),
        "ok    offers of charted answers: at the prompt on, before a search on (\"offer\": false in .capn/config.json switches both off)"
    );
    let mut c = read_json(&env, ".capn/config.json");
    c["offer"] = json!({"search": false});
    write_json(&env, ".capn/config.json", &c);
    let run = doctor(&env).ok();
    assert_eq!(
        line(&run),
        "ok    offers of charted answers: at the prompt on, before a search off (set in .capn/config.json \"offer\")"
    );
    c["embedding"] = json!(false);
    c["offer"] = json!(true);
    write_json(&env, ".capn/config.json", &c);
    let run = doctor(&env).ok();
    assert_eq!(
        line(&run),
        "ok    offers of charted answers: off, since embedding is off in .capn/config.json (offers need it; capn init --embedding turns it on)"
    );
    c["embedding"] = json!(true);
    c["offer"] = json!("sometimes");
    write_json(&env, ".capn/config.json", &c);
    let run = doctor(&env).code(1);
    let (why, fix) = failure(&run, &[".capn/config.json", "\"offer\" must be"]);
    assert!(why.contains("(offers stay on)"), "{why}");
    assert!(
        fix.contains("\"offer\": true|false|{\"prompt\": bool, \"search\": bool}"),
        "{fix}"
    );
    assert_eq!(failed_count(&run), 1, "{}", run.stdout);
}

/// A PreToolUse matcher narrower than the table's leaves some searches without offers: doctor
/// warns and names the tools it misses (Claude Code); a matcher that selects none of them (Codex
/// without its shell tool) means the hook never runs for a search, which fails.
#[test]
fn a_pre_tool_use_matcher_that_misses_tools_is_named() {
    let env = Env::git();
    init(&env);
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"]["PreToolUse"][0]["matcher"] = json!("Grep|Glob");
    write_json(&env, ".claude/settings.json", &s);
    let mut s = read_json(&env, ".codex/hooks.json");
    s["hooks"]["PreToolUse"][0]["matcher"] = json!("apply_patch");
    write_json(&env, ".codex/hooks.json", &s);
    let run = doctor(&env).code(1);
    assert!(
        run.stdout.contains("warn  Claude PreToolUse hook in .claude/settings.json: matcher \"Grep|Glob\" does not select Read, Bash, Task, Agent: the hook does not run for them\n  fix: in .claude/settings.json, set the matcher to \"Grep|Glob|Read|Bash|Task|Agent\"\n"),
        "{}",
        run.stdout
    );
    failure(
        &run,
        &[
            "Codex PreToolUse hook in .codex/hooks.json",
            "does not select Bash",
        ],
    );
    assert_eq!(failed_count(&run), 1, "{}", run.stdout);
}

/// With search offers switched off, a PreToolUse entry removed on purpose is not a failure.
#[test]
fn a_pre_tool_use_hook_removed_with_search_offers_off_is_fine() {
    let env = Env::git();
    init(&env);
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"].as_object_mut().unwrap().remove("PreToolUse");
    write_json(&env, ".claude/settings.json", &s);
    let run = doctor(&env).code(1);
    failure(
        &run,
        &["Claude PreToolUse hook: no `capn hook pre-tool-use`"],
    );
    let mut c = read_json(&env, ".capn/config.json");
    c["offer"] = json!({"search": false});
    write_json(&env, ".capn/config.json", &c);
    let run = doctor(&env).ok();
    assert!(
        run.stdout.contains("ok    Claude PreToolUse hook not registered; search offers are off in .capn/config.json, so it would offer nothing\n"),
        "{}",
        run.stdout
    );
    // A misspelt moment is reported, not taken as "on" in silence.
    c["offer"] = json!({"serach": false});
    write_json(&env, ".capn/config.json", &c);
    let run = doctor(&env).code(1);
    failure(&run, &[".capn/config.json", "unknown key \"serach\""]);
}

/// A status line init wrapped whose own program is gone (a new user's `~/my-status.sh`) is a
/// warning, found without running it; once the script exists, the warning goes.
#[test]
fn a_wrapped_status_line_whose_program_is_missing_is_a_warning() {
    let env = Env::git();
    env.write(
        ".claude/settings.json",
        r#"{"statusLine":{"type":"command","command":"~/my-status.sh"}}"#,
    );
    init(&env);
    let run = doctor(&env);
    assert!(
        run.stdout.contains(
            "the command it wraps, `~/my-status.sh`, starts `~/my-status.sh`, which is not found"
        ),
        "{}",
        run.stdout
    );
    std::fs::write(env.home.join("my-status.sh"), "#!/bin/sh\necho mine\n").unwrap();
    let run = doctor(&env);
    assert!(!run.stdout.contains("which is not found"), "{}", run.stdout);
}

/// A malformed entry file is not a chart: doctor counts only the entries that parse and warns
/// about the others (a new user saw "8 charts" for 7 and a garbage file).
#[test]
fn doctor_counts_only_entries_that_parse_and_warns_about_the_rest() {
    let env = Env::git();
    init(&env);
    env.write("a.ts", "a\n");
    env.run(&["chart", "Where is a?", "--files", "a.ts"]).ok();
    env.write(".capn/entries/deadbeef.md", "garbage\n");
    let run = doctor(&env);
    assert!(
        run.stdout.contains("ok    store .capn/ (1 chart)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("warn  malformed entries in .capn/entries: 1: deadbeef.md: "),
        "{}",
        run.stdout
    );
}

/// A config.json starting with a UTF-8 BOM is read by capn (and edited by init), so doctor
/// accepts it too.
#[test]
fn doctor_accepts_a_config_with_a_bom() {
    let env = Env::git();
    init(&env);
    env.write(".capn/config.json", "\u{feff}{\n  \"embedding\": true\n}\n");
    let run = doctor(&env);
    assert!(
        run.stdout.contains("ok    .capn/config.json parses"),
        "{}",
        run.stdout
    );
}
