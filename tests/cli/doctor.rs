//! `capn doctor`: a healthy install, a missing one, broken hook commands, capn missing from
//! PATH, Codex schema failures, and the promise to write and run nothing (what it reads in the
//! registrations, skill, config and entries: `doctor_files.rs`).
//!
//! The built binary is not on PATH in tests: each doctor run gets a temp dir holding a `capn`
//! symlink to it first on PATH (or, for the PATH tests, a PATH without any `capn`).

use crate::util::{Env, Run};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The PATH directories of the test process that hold no `capn` (so a real install on the
/// machine cannot leak into a test).
fn base_path() -> Vec<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|d| !d.join("capn").exists())
        .collect()
}

/// A folder with `capn` -> the built binary.
fn capn_dir(env: &Env) -> PathBuf {
    let dir = env.tmp.path().join("bin");
    if !dir.exists() {
        crate::util::install_capn_in(&dir);
    }
    dir
}

fn path_with(first: &Path) -> OsString {
    let mut dirs = vec![first.to_path_buf()];
    dirs.extend(base_path());
    std::env::join_paths(dirs).unwrap()
}

fn path_with_capn(env: &Env) -> OsString {
    path_with(&capn_dir(env))
}

fn path_without_capn() -> OsString {
    std::env::join_paths(base_path()).unwrap()
}

/// A temp dir for doctor's own temporary files (so tests can see it cleans up).
fn tmpdir(env: &Env) -> PathBuf {
    let d = env.tmp.path().join("tmp");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn doctor_in(env: &Env, dir: &Path, path: OsString) -> Run {
    let mut c = env.cmd_in(dir, &["doctor"]);
    // The launcher's PATH is the test's own here (capn cannot be put in /usr/bin); the
    // launcher check with the default PATH has its own test.
    c.env("CAPN_LAUNCHER_PATH", &path);
    c.env("PATH", path).env("TMPDIR", tmpdir(env));
    env.run_bounded(c, b"", false, crate::util::HANG_GUARD).0
}

pub(crate) fn doctor(env: &Env) -> Run {
    doctor_in(env, &env.root, path_with_capn(env))
}

pub(crate) fn init(env: &Env) {
    let mut c = env.cmd(&["init"]);
    c.env("PATH", path_with_capn(env));
    env.run_cmd(c, b"").ok();
}

/// The FAILED line holding every needle, and its fix. Panics with the whole report otherwise.
#[track_caller]
pub(crate) fn failure(run: &Run, needles: &[&str]) -> (String, String) {
    let lines: Vec<&str> = run.stdout.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("FAILED ") && needles.iter().all(|n| l.contains(n)) {
            let fix = lines.get(i + 1).copied().unwrap_or("");
            assert!(
                fix.starts_with("  fix: "),
                "no fix after {l:?}:\n{}",
                run.stdout
            );
            return (l.to_string(), fix.to_string());
        }
    }
    panic!("no FAILED line with {needles:?} in:\n{}", run.stdout);
}

pub(crate) fn failed_count(run: &Run) -> usize {
    run.stdout
        .lines()
        .filter(|l| l.starts_with("FAILED "))
        .count()
}

pub(crate) fn read_json(env: &Env, rel: &str) -> Value {
    serde_json::from_str(&env.read(rel)).unwrap()
}

pub(crate) fn write_json(env: &Env, rel: &str, v: &Value) {
    env.write(rel, &serde_json::to_string_pretty(v).unwrap());
}

/// Writes an executable script (a fake `capn`) and returns its path.
pub(crate) fn script(env: &Env, name: &str, body: &str) -> PathBuf {
    let dir = env.tmp.path().join("fake").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("capn");
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
    crate::util::make_executable(&p);
    p
}

/// Every file, folder and symlink under the project and the home dir, with contents (a
/// symlink's target) and modification time.
fn snapshot(env: &Env) -> Vec<(PathBuf, Vec<u8>, Option<SystemTime>)> {
    let mut out = Vec::new();
    let mut stack = vec![env.root.clone(), env.home.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let mtime = meta.modified().ok();
            let bytes = if meta.is_dir() {
                stack.push(p.clone());
                Vec::new()
            } else if meta.is_symlink() {
                std::fs::read_link(&p)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                std::fs::read(&p).unwrap()
            };
            out.push((p, bytes, mtime));
        }
    }
    out.sort();
    out
}

/// Asserts two snapshots are equal, naming the paths that differ.
#[track_caller]
fn assert_same(
    before: &[(PathBuf, Vec<u8>, Option<SystemTime>)],
    after: &[(PathBuf, Vec<u8>, Option<SystemTime>)],
) {
    let differing: Vec<&PathBuf> = before
        .iter()
        .chain(after)
        .filter(|x| !before.contains(x) || !after.contains(x))
        .map(|(p, _, _)| p)
        .collect();
    assert!(differing.is_empty(), "changed by doctor: {differing:?}");
}

/// Hooks started by a GUI launcher get PATH=/usr/bin:/bin: a `capn` found only through the
/// user's PATH is named, with the fix, as a warning (issue 8, point 6).
#[test]
fn capn_found_only_through_the_shell_path_is_a_launcher_warning() {
    let env = Env::git();
    init(&env);
    let mut c = env.cmd(&["doctor"]);
    c.env("PATH", path_with_capn(&env))
        .env("TMPDIR", tmpdir(&env))
        .env_remove("CAPN_LAUNCHER_PATH");
    let run = env.run_cmd(c, b"").ok();
    // The default launcher PATH is the machine's own: where a capn is installed there (as this
    // warning's fix says to do), every command starts.
    if ["/usr/bin/capn", "/bin/capn"]
        .iter()
        .any(|p| Path::new(p).exists())
    {
        assert!(
            run.stdout
                .contains("ok    capn hooks with a launcher's PATH (/usr/bin:/bin)"),
            "{}",
            run.stdout
        );
        return;
    }
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("warn  capn hooks with a launcher's PATH (/usr/bin:/bin)"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    // The PATH entry named is the folder on PATH, never the binary it resolves to.
    let entry = format!("by its entry {};", capn_dir(&env).display());
    assert!(
        line.contains("resolves only through your shell's PATH") && line.contains(&entry),
        "{line}"
    );
    assert!(!line.contains(env!("CARGO_BIN_EXE_capn")), "{line}");
    assert!(
        line.contains("`capn hook session-start --host codex`"),
        "{line}"
    );
    assert!(line.contains("`capn statusline`"), "{line}");
    assert!(line.contains("exit 127"), "{line}");
    let fix = run
        .stdout
        .lines()
        .skip_while(|l| *l != line)
        .nth(1)
        .unwrap();
    assert!(
        fix.contains("/usr/bin/capn") && fix.contains("launchctl"),
        "{fix}"
    );
    // With the launcher's PATH holding capn, the same project is all ok.
    let run = doctor_in(&env, &env.root, path_with_capn(&env)).ok();
    assert!(
        run.stdout
            .contains("ok    capn hooks with a launcher's PATH"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_fresh_init_is_all_ok_from_anywhere_in_the_project() {
    let env = Env::git();
    init(&env);
    let sub = env.root.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let run = doctor_in(&env, &sub, path_with_capn(&env)).ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("capn doctor in {}", env.root.display()),
        "{}",
        run.stdout
    );
    let body = &lines[1..lines.len() - 1];
    assert!(
        body.iter().all(|l| l.starts_with("ok    ")),
        "{}",
        run.stdout
    );
    assert_eq!(
        lines.last().unwrap(),
        &format!("capn doctor: all {} checks ok", body.len())
    );
    for needle in [
        "capn on PATH: ",
        "(this binary",
        "store .capn/ (0 charts)",
        ".claude/settings.json parses",
        ".codex/hooks.json parses",
        "Claude SessionStart hook registered in .claude/settings.json: capn hook session-start (exec form, timeout 10 s)",
        "Claude statusLine is capn statusline in .claude/settings.json",
        "Claude SessionStart(startup) runs `capn hook session-start`: ",
        "Claude SessionStart(compact) runs `capn hook session-start`: ",
        "Claude PreCompact(manual) runs `capn hook pre-compact`: ",
        "Codex PreCompact(manual) runs `capn hook pre-compact --host codex`: no output",
        "Claude SubagentStart runs `capn hook subagent-start`: 507 characters of context",
        "Codex SubagentStart runs `capn hook subagent-start --host codex`: 507 characters of context, valid for Codex",
        "Claude PostCompact(manual) runs `capn hook post-compact`: no output",
        "Claude UserPromptSubmit runs `capn hook user-prompt-submit`: ",
        "Codex UserPromptSubmit hook registered in .codex/hooks.json: capn hook user-prompt-submit --host codex (sh -c, timeout 10 s)",
        "Codex SessionStart(startup) runs `capn hook session-start --host codex`: ",
        "Claude statusline runs `capn statusline`: one line, ",
        "/compact-prep skill installed (.claude/skills/compact-prep/SKILL.md)",
    ] {
        assert!(run.stdout.contains(needle), "{needle}\n{}", run.stdout);
    }
    // Every host-event run happened, each named: the scenario steps on each host, and the
    // recovery was delivered by UserPromptSubmit after the synthetic compaction.
    for (host, suffix) in [("Claude", ""), ("Codex", " --host codex")] {
        for (step, sub) in [
            ("SessionStart(startup)", "session-start"),
            ("PreToolUse", "pre-tool-use"),
            ("PreCompact(manual)", "pre-compact"),
            ("PostCompact(manual)", "post-compact"),
            ("UserPromptSubmit", "user-prompt-submit"),
            ("SessionStart(compact)", "session-start"),
            ("Stop", "stop"),
        ] {
            let line = format!("ok    {host} {step} runs `capn hook {sub}{suffix}`: ");
            assert!(
                body.iter().any(|l| l.starts_with(&line)),
                "{line}\n{}",
                run.stdout
            );
        }
    }
    let ups = body
        .iter()
        .find(|l| l.starts_with("ok    Codex UserPromptSubmit runs"))
        .unwrap();
    assert!(
        ups.contains("characters of context, valid for Codex"),
        "{ups}"
    );
}

/// Before `init`, doctor prints one line that says what to run (it printed 13 FAILED checks),
/// and after `init --user` it names `capn init` for this project.
#[test]
fn before_init_doctor_says_what_to_run_in_one_line() {
    let env = Env::git();
    let run = doctor(&env).code(1);
    assert_eq!(
        run.stdout,
        format!(
            "capn doctor in {}\ncapn is not set up here: run capn init in this project (or capn init --user once, for every project, then capn init here), then capn doctor again\n",
            env.root.display()
        )
    );
    env.run(&["init", "--user"]).ok();
    let run = doctor(&env).code(1);
    assert!(!run.stdout.contains("FAILED"), "{}", run.stdout);
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("not set up in this project yet")
            && run.stdout.contains("run capn init here"),
        "{}",
        run.stdout
    );
}

#[test]
fn capn_missing_from_path_fails_with_the_install_fix() {
    let env = Env::git();
    init(&env);
    let run = doctor_in(&env, &env.root, path_without_capn()).code(1);
    let (line, fix) = failure(&run, &["capn on PATH", "no executable capn"]);
    assert!(line.contains("run `capn` by name"), "{line}");
    assert!(fix.contains("cargo install --path ."), "{fix}");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_capn")).parent().unwrap();
    assert!(
        fix.contains(&format!("export PATH=\"{}:$PATH\"", bin_dir.display())),
        "{fix}"
    );
    for what in ["Claude hooks", "Codex hooks", "Claude statusline"] {
        let (line, fix2) = failure(&run, &[what, "not on PATH"]);
        assert!(line.contains("not run"), "{line}");
        assert_eq!(fix2, fix);
    }
    // The registrations themselves are fine.
    assert!(run
        .stdout
        .contains("ok    Claude SessionStart hook registered"));
}

#[test]
fn a_capn_on_path_that_is_not_this_binary_is_a_warning() {
    let env = Env::git();
    init(&env);
    let wrapper = script(
        &env,
        "wrapper",
        &format!("exec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_capn")),
    );
    let run = doctor_in(&env, &env.root, path_with(wrapper.parent().unwrap())).ok();
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("warn  capn on PATH"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains(&wrapper.display().to_string()), "{line}");
    assert!(line.contains("not this binary"), "{line}");
    assert!(
        line.contains(&format!("capn {}", env!("CARGO_PKG_VERSION"))),
        "{line}"
    );
    // That warning is the only one, nothing failed, and the summary counts what was printed
    // (checks by name, not a count read off one run: every check added later keeps this true).
    let count = |prefix: &str| run.stdout.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(
        (count("warn  "), count("FAILED ")),
        (1, 0),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout.lines().last().unwrap(),
        format!(
            "capn doctor: all {} checks ok, 1 warning",
            count("ok    ") + count("warn  ")
        ),
        "{}",
        run.stdout
    );
    for needle in [
        "ok    store .capn/",
        "ok    Claude SessionStart hook registered in .claude/settings.json",
        "ok    Codex Stop hook registered in .codex/hooks.json",
        "ok    Claude UserPromptSubmit runs `capn hook user-prompt-submit`",
        "ok    capn hooks with a launcher's PATH",
    ] {
        assert!(run.stdout.contains(needle), "{needle}\n{}", run.stdout);
    }
}

#[test]
fn hook_commands_that_block_print_junk_or_answer_the_wrong_event_fail() {
    let env = Env::git();
    init(&env);
    let fake = script(
        &env,
        "bad",
        r#"cat >/dev/null
case "$2" in
  pre-compact) echo "no compaction today" >&2; exit 2 ;;
  session-start) echo "Welcome back!" ;;
  user-prompt-submit) echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}' ;;
  post-compact) echo '{"systemMessage":"compacted"}' ;;
esac
"#,
    );
    let mut s = read_json(&env, ".claude/settings.json");
    for event in [
        "SessionStart",
        "PreCompact",
        "PostCompact",
        "UserPromptSubmit",
    ] {
        s["hooks"][event][0]["hooks"][0]["command"] = json!(fake.display().to_string());
    }
    write_json(&env, ".claude/settings.json", &s);
    let run = doctor(&env).code(1);
    let (line, fix) = failure(
        &run,
        &[
            "Claude PreCompact(manual) runs",
            "exit 2",
            "blocks the compaction",
        ],
    );
    assert!(line.contains("no compaction today"), "{line}");
    assert!(fix.contains("replace that handler with"), "{fix}");
    failure(
        &run,
        &[
            "Claude SessionStart(startup) runs",
            "not one JSON object",
            "Welcome back!",
        ],
    );
    failure(
        &run,
        &[
            "Claude UserPromptSubmit runs",
            "hookEventName is \"SessionStart\", not \"UserPromptSubmit\"",
        ],
    );
    failure(
        &run,
        &["Claude PostCompact(manual) runs", "must print nothing"],
    );
    // The registrations still count as capn's (the script is named capn) and are well formed.
    assert!(run
        .stdout
        .contains("ok    Claude PreCompact hook registered"));
    // Codex is untouched and fine.
    assert!(run.stdout.contains("ok    Codex PreCompact(manual) runs"));
}

#[test]
fn codex_replies_are_checked_against_codex_schemas_and_registrations_need_host_codex() {
    let env = Env::git();
    init(&env);
    let fake = script(
        &env,
        "claude-keys",
        r#"cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x","sessionTitle":"t"}}'
"#,
    );
    let mut s = read_json(&env, ".codex/hooks.json");
    s["hooks"]["SessionStart"][0]["hooks"][0]["command"] = json!(format!(
        "{} hook session-start --host codex",
        fake.display()
    ));
    s["hooks"]["PreCompact"][0]["hooks"][0]["command"] = json!("capn hook pre-compact");
    write_json(&env, ".codex/hooks.json", &s);
    let run = doctor(&env).code(1);
    let (line, _) = failure(
        &run,
        &[
            "Codex SessionStart(startup) runs",
            "does not match Codex's session-start.command.output schema",
        ],
    );
    assert!(line.contains("sessionTitle"), "{line}");
    let (_, fix) = failure(
        &run,
        &[
            "Codex PreCompact hook in .codex/hooks.json",
            "no --host codex",
        ],
    );
    assert!(
        fix.contains(
            r#"{"type":"command","command":"capn hook pre-compact --host codex","timeout":10}"#
        ),
        "{fix}"
    );
    // Claude Code accepts sessionTitle, so the same reply there would pass; Claude is fine.
    assert!(run
        .stdout
        .contains("ok    Claude SessionStart(startup) runs"));
}

#[test]
fn a_hook_that_hangs_is_stopped_within_its_budget() {
    let env = Env::git();
    init(&env);
    // Far longer than the hang guard: a doctor that waited for it fails the test.
    let fake = script(&env, "slow", "exec sleep 600\n");
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"]["PostCompact"][0]["hooks"][0]["command"] = json!(fake.display().to_string());
    s["hooks"]["PostCompact"][0]["hooks"][0]["timeout"] = json!(1);
    write_json(&env, ".claude/settings.json", &s);
    let run = doctor(&env).code(1);
    failure(
        &run,
        &[
            "Claude PostCompact(manual) runs",
            "no answer within 500 ms (registered timeout 1 s); the host discards a late reply",
        ],
    );
    // Under a long registered timeout, doctor's own bound (2 s) stops it: the host would wait,
    // and the reason says so.
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"]["PostCompact"][0]["hooks"][0]["timeout"] = json!(30);
    write_json(&env, ".claude/settings.json", &s);
    let run = doctor(&env).code(1);
    failure(
        &run,
        &[
            "Claude PostCompact(manual) runs",
            "no answer within 2000 ms (registered timeout 30 s); the host would wait, but a hook this slow holds up every event",
        ],
    );
}

#[test]
fn doctor_writes_nothing_in_the_project_home_or_state_dir() {
    let env = Env::git();
    init(&env);
    // Charts whose words the synthetic prompt and search share, so the offer path runs whole.
    env.write("src/doctor.rs", "// synthetic\n");
    env.run(&[
        "chart",
        "Where does capn doctor build its synthetic prompt?",
        "--files",
        "src/doctor.rs",
    ])
    .ok();
    env.write("src/search.rs", "// search\n");
    env.run(&[
        "chart",
        "How is the capnDoctorSyntheticSearch pattern searched?",
        "--files",
        "src/search.rs",
    ])
    .ok();
    // Real state for a real session: doctor's hook runs must not touch it.
    env.run_stdin(
        &["hook", "post-compact"],
        br#"{"session_id":"real-session","hook_event_name":"PostCompact","trigger":"auto"}"#,
    )
    .ok();
    assert!(env.state_dir().join("sessions/real-session").is_dir());
    let tmp = tmpdir(&env);
    let before = snapshot(&env);
    doctor(&env).ok();
    assert_same(&before, &snapshot(&env));
    // A failing run (a hook that blocks) leaves everything as it was too.
    let fake = script(&env, "exit2", "cat >/dev/null; exit 2\n");
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"]["PreCompact"][0]["hooks"][0]["command"] = json!(fake.display().to_string());
    write_json(&env, ".claude/settings.json", &s);
    let before = snapshot(&env);
    doctor(&env).code(1);
    assert_same(&before, &snapshot(&env));
    assert!(
        std::fs::read_dir(&tmp).unwrap().next().is_none(),
        "doctor left temporary files"
    );
}

/// doctor never starts a repository's own commands: the statusline `init` wraps, a hook line
/// with shell syntax after capn's words, and a `capn` shipped inside the repository are reported
/// as not run; none of their decoy files appears.
#[test]
fn doctor_never_runs_commands_from_the_repository() {
    let env = Env::git();
    let decoy = env.tmp.path().join("decoy");
    std::fs::create_dir_all(&decoy).unwrap();
    let pwned = |n: u8| decoy.join(format!("PWNED{n}"));
    env.write(
        ".claude/settings.json",
        &json!({"statusLine": {"type": "command",
                               "command": format!("touch {}", pwned(1).display())}})
        .to_string(),
    );
    init(&env);
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"]["SessionStart"][0]["hooks"][0] = json!({"type": "command",
        "command": format!("capn hook session-start && touch {}", pwned(2).display())});
    env.write(
        "tools/capn",
        &format!("#!/bin/sh\ntouch {}\n", pwned(3).display()),
    );
    crate::util::make_executable(&env.root.join("tools/capn"));
    s["hooks"]["PreCompact"][0]["hooks"][0] = json!({"type": "command",
        "command": "${CLAUDE_PROJECT_DIR}/tools/capn", "args": ["hook", "pre-compact"]});
    write_json(&env, ".claude/settings.json", &s);
    let run = doctor(&env);
    for n in 1..=3 {
        assert!(
            !pwned(n).exists(),
            "doctor ran the repository's command {n}"
        );
    }
    assert!(
        run.stdout.contains("not run by capn doctor"),
        "{}",
        run.stdout
    );
}

/// A `capn` inside the repository reached by a path that does not start with the project's:
/// `/proc/self/cwd/…` (the project itself when the hook runs there), a symlink outside that
/// leads back in, and a relative `PATH` directory that a bare `capn` would be looked up in. None
/// of them is started (a breaker found the first one running the repository's script).
#[cfg(target_os = "linux")]
#[test]
fn doctor_never_runs_a_repository_capn_reached_another_way() {
    let env = Env::git();
    let decoy = env.tmp.path().join("decoy");
    std::fs::create_dir_all(&decoy).unwrap();
    let pwned = |n: u8| decoy.join(format!("PWNED{n}"));
    for (n, dir) in [(1u8, "bin"), (2, "tools"), (3, "relbin")] {
        env.write(
            &format!("{dir}/capn"),
            &format!("#!/bin/sh\ntouch {}\n", pwned(n).display()),
        );
        std::fs::set_permissions(
            env.root.join(format!("{dir}/capn")),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
    }
    let outside = env.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(env.root.join("tools/capn"), outside.join("capn")).unwrap();
    init(&env);
    let mut s = read_json(&env, ".claude/settings.json");
    s["hooks"]["SessionStart"][0]["hooks"][0] = json!({"type": "command",
        "command": "/proc/self/cwd/bin/capn", "args": ["hook", "session-start"]});
    s["hooks"]["PreCompact"][0]["hooks"][0] = json!({"type": "command",
        "command": format!("{} hook pre-compact", outside.join("capn").display())});
    s["statusLine"] = json!({"type": "command", "command": "/proc/self/cwd/bin/capn statusline"});
    write_json(&env, ".claude/settings.json", &s);
    // A relative PATH directory first: a bare `capn` started in the project would be relbin's.
    let mut path = OsString::from("relbin:");
    path.push(path_with_capn(&env));
    let run = doctor_in(&env, &env.root, path.clone());
    // From a subdirectory, where `/proc/self/cwd/bin/capn` names nothing for doctor itself but
    // the project's script for a hook started in the root (a second breaker's find).
    std::fs::create_dir_all(env.root.join("sub")).unwrap();
    let from_sub = doctor_in(&env, &env.root.join("sub"), path.clone());
    // A launcher's PATH holding the project's bin (absolute).
    let mut launcher = OsString::from(env.root.join("bin"));
    launcher.push(":");
    launcher.push(path_with_capn(&env));
    let mut c = env.cmd(&["doctor"]);
    c.env("CAPN_LAUNCHER_PATH", &launcher)
        .env("PATH", path_with_capn(&env))
        .env("TMPDIR", tmpdir(&env));
    let with_launcher = env.run_cmd(c, b"");
    for n in 1..=3 {
        assert!(
            !pwned(n).exists(),
            "doctor ran the repository's capn {n}\n{}\n{}\n{}",
            run.stdout,
            from_sub.stdout,
            with_launcher.stdout
        );
    }
    assert!(
        run.stdout.contains("not run by capn doctor"),
        "{}",
        run.stdout
    );
    assert!(
        with_launcher.stdout.contains("inside this project"),
        "{}",
        with_launcher.stdout
    );
}

/// Copilot CLI runs the Claude Code registrations without their args: doctor runs the bare
/// `capn` too, and fails a `capn` that exits 1 there (as 0.3 did), naming the fix.
#[cfg(unix)]
#[test]
fn doctor_runs_the_registrations_as_a_host_that_drops_args() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::git();
    init(&env);
    let run = doctor(&env);
    assert!(
        run.stdout.lines().any(|l| l
            == "ok    Claude Code hooks run without their args (as Copilot CLI runs them): exit 0, the contract at session start, no tool denied"),
        "{}",
        run.stdout
    );
    // A capn that is 0.3 when bare: usage on stderr, exit 1.
    let dir = env.tmp.path().join("bin03");
    std::fs::create_dir_all(&dir).unwrap();
    let wrapper = dir.join("capn");
    let real = env!("CARGO_BIN_EXE_capn");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nif [ \"$#\" -eq 0 ]; then cat >/dev/null; echo 'Usage: capn <COMMAND>' >&2; exit 1; fi\nexec '{real}' \"$@\"\n"),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = doctor_in(&env, &env.root, path_with(&dir));
    let (line, fix) = failure(&run, &["without their args", "SessionStart: exit 1"]);
    assert!(line.contains("Usage: capn <COMMAND>"), "{line}");
    assert!(
        fix.contains("Copilot CLI then denies every tool call"),
        "{fix}"
    );
}
