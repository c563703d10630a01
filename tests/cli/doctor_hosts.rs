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

/// `line` with its run's figures replaced by `N` (the milliseconds, and the characters of
/// context), so a line compares exactly whatever the machine's speed.
fn figures_out(line: &str) -> String {
    let mut s = line.to_string();
    if s.ends_with(" ms)") {
        if let Some(i) = s.rfind(" (") {
            s.truncate(i);
            s.push_str(" (N ms)");
        }
    }
    if let Some(j) = s.find(" characters of context") {
        let start = s[..j].rfind(' ').map_or(0, |k| k + 1);
        s.replace_range(start..j, "N");
    }
    s
}

/// The lines of the hook runs of the host labelled `label` (`Gemini`), in report order, with
/// [`figures_out`]; a failed run's fix line follows it.
fn run_lines(run: &Run, label: &str) -> Vec<String> {
    let ok = format!("ok    {label} ");
    let failed = format!("FAILED {label} ");
    let mut out = Vec::new();
    let mut lines = run.stdout.lines().peekable();
    while let Some(l) = lines.next() {
        if (l.starts_with(&ok) || l.starts_with(&failed)) && l.contains(" runs `") {
            out.push(figures_out(l));
            if let Some(fix) = lines.next_if(|f| f.starts_with("  fix: ")) {
                out.push(fix.to_string());
            }
        }
    }
    out
}

/// The characters of the contract SessionStart injects (`capn context`).
fn contract_chars(env: &Env) -> usize {
    env.run(&["context"]).ok().stdout.chars().count()
}

/// After `init --host gemini --host qwen`, doctor runs every hook each host registers, with the
/// payload that host sends (Gemini CLI's names: BeforeAgent, AfterTool; no SessionStart after a
/// compression on Gemini CLI, which fires none; Qwen Code's compaction, prompt and Stop), and
/// each answers as its host accepts: the contract at session start, the recovery after the
/// compaction, nothing elsewhere.
#[test]
fn doctor_runs_the_hooks_gemini_and_qwen_register_as_they_run_them() {
    let env = Env::git();
    env.run(&["init", "--host", "gemini", "--host", "qwen"])
        .ok();
    let run = doctor(&env);
    assert_eq!(failed_count(&run), 0, "{}", run.stdout);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run_lines(&run, "Gemini"),
        [
            "ok    Gemini SessionStart(startup) runs `capn hook session-start --host gemini`: N characters of context (N ms)",
            "ok    Gemini AfterTool runs `capn hook post-tool-use --host gemini`: no output (N ms)",
            "ok    Gemini BeforeAgent runs `capn hook user-prompt-submit --host gemini`: no output (N ms)",
        ]
    );
    assert_eq!(
        run_lines(&run, "Qwen"),
        [
            "ok    Qwen SessionStart(startup) runs `capn hook session-start --host qwen`: N characters of context (N ms)",
            "ok    Qwen PostToolUse runs `capn hook post-tool-use --host qwen`: no output (N ms)",
            "ok    Qwen PreCompact(manual) runs `capn hook pre-compact --host qwen`: no output (N ms)",
            "ok    Qwen PostCompact(manual) runs `capn hook post-compact --host qwen`: no output (N ms)",
            "ok    Qwen UserPromptSubmit runs `capn hook user-prompt-submit --host qwen`: N characters of context (N ms)",
            "ok    Qwen SessionStart(compact) runs `capn hook session-start --host qwen`: N characters of context (N ms)",
            "ok    Qwen Stop runs `capn hook stop --host qwen`: no output (N ms)",
        ]
    );
    // The context at session start is the whole contract, on both hosts.
    let n = contract_chars(&env);
    for host in ["gemini", "qwen"] {
        let want = format!(": {n} characters of context (");
        let l = line(
            &run,
            &format!(
                "ok    {} SessionStart(startup) runs",
                if host == "gemini" { "Gemini" } else { "Qwen" }
            ),
        );
        assert!(l.contains(&want), "{want}: {l}");
    }
}

/// The handler `capn init` registers for `event` in `host`'s table (`hooks-config/`), as doctor
/// prints it in a fix.
#[cfg(unix)]
fn table_handler(table: &str, event: &str) -> String {
    let t: Value = serde_json::from_str(table).unwrap();
    t["hooks"][event][0]["hooks"][0].to_string()
}

/// Sets the command of `host`'s `event` registration in `rel` to `fake` with capn's arguments.
#[cfg(unix)]
fn register_fake(env: &Env, rel: &str, event: &str, fake: &Path, sub: &str, host: &str) -> String {
    let command = format!("{} hook {sub} --host {host}", fake.display());
    let mut s = read_json(env, rel);
    s["hooks"][event][0]["hooks"][0]["command"] = json!(command);
    write_json(env, rel, &s);
    command
}

/// The fix doctor gives for a handler of `event` in `rel`: the one `table` registers.
#[cfg(unix)]
fn fix_line(rel: &str, table: &str, event: &str) -> String {
    format!(
        "  fix: in {rel}, replace that handler with {}",
        table_handler(table, event)
    )
}

/// A Gemini CLI hook that prints junk, answers under Claude Code's event name or exits 2: each
/// is FAILED with the reason as Gemini CLI sees it, and the fix; the registrations still count
/// as capn's.
#[cfg(unix)]
#[test]
fn gemini_hooks_that_print_junk_answer_another_event_or_exit_2_fail() {
    let env = Env::git();
    env.run(&["init", "--host", "gemini"]).ok();
    let gemini = crate::doctor::script(
        &env,
        "bad-gemini",
        r#"cat >/dev/null
case "$2" in
  session-start) echo "Welcome back!" ;;
  user-prompt-submit) echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"x"}}' ;;
  post-tool-use) echo "no tools today" >&2; exit 2 ;;
esac
"#,
    );
    let g = ".gemini/settings.json";
    let start = register_fake(&env, g, "SessionStart", &gemini, "session-start", "gemini");
    let agent = register_fake(
        &env,
        g,
        "BeforeAgent",
        &gemini,
        "user-prompt-submit",
        "gemini",
    );
    let after = register_fake(&env, g, "AfterTool", &gemini, "post-tool-use", "gemini");
    let run = doctor(&env).code(1);
    let gt = include_str!("../../hooks-config/gemini.json");
    assert_eq!(
        run_lines(&run, "Gemini"),
        [
            format!("FAILED Gemini SessionStart(startup) runs `{start}`: stdout is not one JSON object: \"Welcome back!\" (plain text or a stray line before the JSON)"),
            fix_line(g, gt, "SessionStart"),
            format!("FAILED Gemini AfterTool runs `{after}`: exit 2: Gemini CLI reads it as a block and gives the agent stderr instead of the tool's result (stderr: no tools today)"),
            fix_line(g, gt, "AfterTool"),
            format!("FAILED Gemini BeforeAgent runs `{agent}`: hookSpecificOutput.hookEventName is \"UserPromptSubmit\", not \"BeforeAgent\": the reply is rejected"),
            fix_line(g, gt, "BeforeAgent"),
        ]
    );
    // The registrations still count as capn's (the script is named capn) and are well formed.
    assert!(run
        .stdout
        .contains("ok    Gemini BeforeAgent hook registered in .gemini/settings.json"));
    assert_eq!(failed_count(&run), 3, "{}", run.stdout);
}

/// A Qwen Code hook that prints on PreCompact, exits 2, blocks a tool's result or hangs: each is
/// FAILED with the reason as Qwen Code sees it, and the fix; the hooks left alone still pass.
#[cfg(unix)]
#[test]
fn qwen_hooks_that_print_on_pre_compact_exit_2_block_or_hang_fail() {
    let env = Env::git();
    env.run(&["init", "--host", "qwen"]).ok();
    let real = env!("CARGO_BIN_EXE_capn");
    let qwen = crate::doctor::script(
        &env,
        "bad-qwen",
        &format!(
            r#"case "$2" in
  pre-compact) cat >/dev/null; echo "keep the plan" ;;
  user-prompt-submit) cat >/dev/null; echo "no prompts today" >&2; exit 2 ;;
  post-tool-use) cat >/dev/null; echo '{{"decision":"block","reason":"chart it"}}' ;;
  stop) sleep 30 ;;
  *) exec '{real}' "$@" ;;
esac
"#
        ),
    );
    let q = ".qwen/settings.json";
    let pre = register_fake(&env, q, "PreCompact", &qwen, "pre-compact", "qwen");
    let prompt = register_fake(
        &env,
        q,
        "UserPromptSubmit",
        &qwen,
        "user-prompt-submit",
        "qwen",
    );
    let post = register_fake(&env, q, "PostToolUse", &qwen, "post-tool-use", "qwen");
    let stop = register_fake(&env, q, "Stop", &qwen, "stop", "qwen");
    // A short registered timeout: doctor waits half of it for the hanging Stop.
    let mut s = read_json(&env, q);
    s["hooks"]["Stop"][0]["hooks"][0]["timeout"] = json!(1);
    write_json(&env, q, &s);
    let run = doctor(&env).code(1);
    let qt = include_str!("../../hooks-config/qwen.json");
    let session = "capn hook session-start --host qwen";
    assert_eq!(
        run_lines(&run, "Qwen"),
        [
            format!("ok    Qwen SessionStart(startup) runs `{session}`: N characters of context (N ms)"),
            format!("FAILED Qwen PostToolUse runs `{post}`: \"decision\": \"block\" blocks PostToolUse"),
            fix_line(q, qt, "PostToolUse"),
            format!("FAILED Qwen PreCompact(manual) runs `{pre}`: printed \"keep the plan\" on PreCompact, where Qwen Code takes nothing (the output is ignored or rejected)"),
            fix_line(q, qt, "PreCompact"),
            "ok    Qwen PostCompact(manual) runs `capn hook post-compact --host qwen`: no output (N ms)".to_string(),
            format!("FAILED Qwen UserPromptSubmit runs `{prompt}`: exit 2: Qwen Code reads it as \"block\" and drops the prompt (stderr: no prompts today)"),
            fix_line(q, qt, "UserPromptSubmit"),
            format!("ok    Qwen SessionStart(compact) runs `{session}`: N characters of context (N ms)"),
            format!("FAILED Qwen Stop runs `{stop}`: no answer within 500 ms (registered timeout 1 s); the host discards a late reply"),
            fix_line(q, qt, "Stop"),
        ]
    );
    assert_eq!(failed_count(&run), 4, "{}", run.stdout);
}
