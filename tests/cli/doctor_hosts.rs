//! `capn doctor` checks the hosts set up in the project (the install record, or their
//! registrations), and expects of a bare `capn` (a host that drops `args`) what that run does
//! in the project: silence while Copilot CLI's own hook file registers capn's hooks.

use crate::doctor::{doctor, failed_count, failure, read_json, write_json};
use crate::util::{Env, Run};
use serde_json::{json, Value};
#[cfg(unix)]
use std::path::Path;

const COPILOT_FILE: &str = ".github/hooks/capn.json";

/// The line of the bare-run check (`doctor/args_dropped.rs`).
const BARE: &str = "Claude Code hooks run without their args (as Copilot CLI runs them)";

#[track_caller]
fn line<'a>(run: &'a Run, prefix: &str) -> &'a str {
    run.stdout
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in:\n{}", run.stdout))
}

/// Doctor with `dir` first on `PATH` (a fake `capn`), then the test's own `PATH`.
#[cfg(unix)]
fn doctor_with_first_on_path(env: &Env, dir: &Path) -> Run {
    let mut c = env.cmd(&["doctor"]);
    let path = crate::util::test_path();
    let dirs = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&path));
    c.env("PATH", std::env::join_paths(dirs).unwrap());
    env.run_bounded(c, b"", false, crate::util::HANG_GUARD).0
}

/// A folder holding a `capn` that runs `bare` (a shell body) when given no arguments and the
/// built binary otherwise.
#[cfg(unix)]
fn fake_bare_capn(env: &Env, name: &str, bare: &str) -> std::path::PathBuf {
    let dir = env.tmp.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let real = env!("CARGO_BIN_EXE_capn");
    std::fs::write(
        dir.join("capn"),
        format!("#!/bin/sh\nif [ \"$#\" -eq 0 ]; then cat >/dev/null; {bare}; exit 0; fi\nexec '{real}' \"$@\"\n"),
    )
    .unwrap();
    crate::util::make_executable(&dir.join("capn"));
    dir
}

/// With Copilot CLI's own hook file, the bare `capn` stays silent (Copilot runs that file, and
/// its run answers): doctor expects that silence and says why, instead of failing for "no
/// contract". A bare run that answers there fails (Copilot would get it twice), and so does a
/// silent one without that file.
#[cfg(unix)]
#[test]
fn with_copilot_s_own_file_doctor_expects_the_bare_run_to_be_silent() {
    let env = Env::git();
    env.run(&[
        "init", "--host", "claude", "--host", "codex", "--host", "copilot",
    ])
    .ok();
    let run = doctor(&env);
    assert_eq!(failed_count(&run), 0, "{}", run.stdout);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        line(&run, &format!("ok    {BARE}")),
        format!("ok    {BARE}: exit 0 and silent, as they should be: {COPILOT_FILE} registers capn's own GitHub Copilot CLI hooks, whose run answers")
    );
    assert_eq!(
        line(&run, "ok    Copilot hooks"),
        format!("ok    Copilot hooks: {COPILOT_FILE} is capn's (GitHub Copilot CLI runs it)")
    );
    // A bare capn that answers although the file is there: failed.
    let loud = fake_bare_capn(&env, "loud", r#"echo '{"additionalContext":"x"}'"#);
    let run = doctor_with_first_on_path(&env, &loud);
    let (line, _) = failure(&run, &[BARE, "SessionStart: printed", COPILOT_FILE]);
    assert!(line.contains("which answer too"), "{line}");
    // Without the file, a silent bare capn is still a failure.
    std::fs::remove_file(env.root.join(COPILOT_FILE)).unwrap();
    let quiet = fake_bare_capn(&env, "quiet", "true");
    let run = doctor_with_first_on_path(&env, &quiet);
    failure(&run, &[BARE, "SessionStart: printed nothing"]);
}

/// A Copilot hook file Copilot cannot run capn from (not JSON) answers nothing: the bare `capn`
/// answers then (Copilot still gets the contract through `.claude/settings.json`), and doctor
/// fails the file itself, with the fix.
#[test]
fn a_broken_copilot_file_leaves_the_bare_run_answering_and_doctor_names_the_file() {
    let env = Env::git();
    env.run(&["init", "--host", "claude", "--host", "copilot"])
        .ok();
    let payload = |sid: &str| {
        json!({"hook_event_name": "SessionStart", "source": "startup", "session_id": sid,
               "cwd": env.root, "transcript_path": env.root.join("t.jsonl")})
        .to_string()
    };
    let bare = env.run_stdin(&[], payload("s-valid").as_bytes()).ok();
    assert_eq!(bare.stdout, "", "capn's own file answers instead");
    env.write(COPILOT_FILE, "garbage\n");
    let bare = env.run_stdin(&[], payload("s-garbage").as_bytes()).ok();
    let v: Value = serde_json::from_str(&bare.stdout).unwrap();
    assert!(
        v["additionalContext"]
            .as_str()
            .is_some_and(|c| !c.is_empty()),
        "{}",
        bare.stdout
    );
    let run = doctor(&env);
    assert_eq!(
        line(&run, &format!("ok    {BARE}")),
        format!("ok    {BARE}: exit 0, the contract at session start, no tool denied")
    );
    let (l, fix) = failure(
        &run,
        &[&format!("Copilot hooks in {COPILOT_FILE}"), "not JSON"],
    );
    assert!(l.contains("runs nothing of capn's from it"), "{l}");
    assert!(fix.contains("capn init --host copilot"), "{fix}");
    assert_eq!(failed_count(&run), 1, "{}", run.stdout);
    // An edited file without one of capn's hooks: that hook is named.
    let mut table: Value =
        serde_json::from_str(include_str!("../../hooks-config/copilot.json")).unwrap();
    table["hooks"].as_object_mut().unwrap().remove("preCompact");
    write_json(&env, COPILOT_FILE, &table);
    let run = doctor(&env);
    failure(
        &run,
        &[
            "Copilot hooks in",
            "`capn hook pre-compact --host copilot` under preCompact",
        ],
    );
}

/// `init --host gemini` sets up Gemini CLI alone: doctor checks its registrations (timeouts in
/// milliseconds) and fails nothing of Claude Code's or Codex's, which were never set up; it
/// says which hosts it checks and how to add one. The install record keeps Gemini checked after
/// its settings lost capn's hooks.
#[test]
fn doctor_checks_the_hosts_init_set_up_and_no_other() {
    let env = Env::git();
    env.run(&["init", "--host", "gemini"]).ok();
    let run = doctor(&env);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(failed_count(&run), 0, "{}", run.stdout);
    assert_eq!(
        line(&run, "ok    hosts checked:"),
        "ok    hosts checked: Gemini CLI (set up in this project: named in .capn/install.json or registered in their settings); not set up here, so not checked: Claude Code, Codex, Qwen Code, GitHub Copilot CLI, OpenCode (capn init --host <host> adds one: claude, codex, qwen, copilot, opencode)"
    );
    for needle in [
        "ok    .gemini/settings.json parses",
        "ok    Gemini SessionStart hook registered in .gemini/settings.json: capn hook session-start --host gemini (sh -c, timeout 10000 ms)",
        "ok    Gemini BeforeAgent hook registered in .gemini/settings.json",
        "ok    Gemini AfterTool hook registered in .gemini/settings.json",
    ] {
        assert!(run.stdout.contains(needle), "{needle}:\n{}", run.stdout);
    }
    let others = run
        .stdout
        .lines()
        .filter(|l| !l.starts_with("ok    hosts checked:"))
        .filter(|l| l.contains("Claude") || l.contains("Codex"));
    assert_eq!(others.count(), 0, "{}", run.stdout);
    // A hook taken out of the settings: that one fails, still nothing of the other hosts.
    let mut settings = read_json(&env, ".gemini/settings.json");
    settings["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("AfterTool");
    write_json(&env, ".gemini/settings.json", &settings);
    let run = doctor(&env);
    let (_, fix) = failure(
        &run,
        &[
            "Gemini AfterTool hook",
            "capn hook post-tool-use --host gemini",
        ],
    );
    assert_eq!(fix, "  fix: capn init");
    assert_eq!(failed_count(&run), 1, "{}", run.stdout);
    // All of them gone: .capn/install.json still names the file, so Gemini is still checked.
    settings.as_object_mut().unwrap().remove("hooks");
    write_json(&env, ".gemini/settings.json", &settings);
    let run = doctor(&env);
    assert_eq!(failed_count(&run), 3, "{}", run.stdout);
    assert!(line(&run, "ok    hosts checked:").starts_with("ok    hosts checked: Gemini CLI ("));
}

/// Qwen Code's registrations and OpenCode's plugin are checked when they are set up; an edited
/// plugin is a warning (doctor cannot tell what a script runs).
#[test]
fn qwen_and_opencode_set_ups_are_checked() {
    let env = Env::git();
    env.run(&["init", "--host", "qwen", "--host", "opencode"])
        .ok();
    let run = doctor(&env);
    assert_eq!(failed_count(&run), 0, "{}", run.stdout);
    for needle in [
        "ok    hosts checked: Qwen Code, OpenCode (",
        "ok    Qwen SessionStart hook registered in .qwen/settings.json: capn hook session-start --host qwen (sh -c, timeout 10 s)",
        "ok    OpenCode hooks: .opencode/plugins/capn.js is capn's (OpenCode runs it)",
    ] {
        assert!(run.stdout.contains(needle), "{needle}:\n{}", run.stdout);
    }
    env.write(".opencode/plugins/capn.js", "// mine\n");
    let run = doctor(&env);
    assert!(
        line(&run, "warn  OpenCode hooks").contains("edited since capn init wrote it"),
        "{}",
        run.stdout
    );
}
