//! `capn init --user` and `capn uninstall --user` (issue 30): one install for every project and
//! worktree of the user, silent where there is no store, removed byte for byte; and the allow
//! rules for `capn ask` and `capn chart` that project and user installs add and remove.

use crate::util::Env;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Every handler registered in a settings file, as (event, argv after the program name).
fn registered(settings: &Value) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (event, groups) in settings["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let command = h["command"].as_str().unwrap();
                let mut words: Vec<String> =
                    command.split_whitespace().map(str::to_string).collect();
                if let Some(args) = h["args"].as_array() {
                    words.extend(args.iter().map(|a| a.as_str().unwrap().to_string()));
                }
                assert_eq!(words[0], "capn", "{command}");
                out.push((event.clone(), words[1..].to_vec()));
            }
        }
    }
    out
}

/// A payload for `event` as the hosts send it, with `cwd`.
fn payload(event: &str, cwd: &Path) -> String {
    json!({
        "session_id": "user-install-1",
        "transcript_path": null,
        "cwd": cwd.to_str().unwrap(),
        "hook_event_name": event,
        "source": "startup",
        "trigger": "manual",
        "prompt": "where are payment webhooks handled?",
        "tool_name": "Grep",
        "tool_input": {"pattern": "webhook"}
    })
    .to_string()
}

/// Runs every handler `init --user` registered for both hosts, in `dir`, with payloads naming
/// `dir`; returns (event, argv, stdout) for each, all having exited 0.
fn run_user_hooks(env: &Env, dir: &Path) -> Vec<(String, Vec<String>, String)> {
    let mut out = Vec::new();
    for file in [".claude/settings.json", ".codex/hooks.json"] {
        for (event, argv) in registered(&read_json(&env.home.join(file))) {
            let args: Vec<&str> = argv.iter().map(String::as_str).collect();
            let run = env.run_cmd(env.cmd_in(dir, &args), payload(&event, dir).as_bytes());
            assert_eq!(run.code, 0, "{event} {argv:?}: {}", run.stderr);
            out.push((event, argv, run.stdout));
        }
    }
    out
}

#[test]
fn init_user_registers_everything_and_a_project_without_a_store_hears_nothing() {
    let env = Env::git();
    let run = env.run(&["init", "--user"]).ok();
    assert!(run.stdout.contains("capn init"), "{}", run.stdout);
    assert!(!env.root.join(".capn").exists(), "init --user made a store");
    let claude = read_json(&env.home.join(".claude/settings.json"));
    let hooks = registered(&claude);
    let events: Vec<&str> = hooks.iter().map(|(e, _)| e.as_str()).collect();
    for e in [
        "SessionStart",
        "PreCompact",
        "PostCompact",
        "UserPromptSubmit",
        "PreToolUse",
        "Stop",
        "SubagentStart",
    ] {
        assert!(events.contains(&e), "{e} missing: {events:?}");
    }
    assert!(
        hooks.iter().all(|(_, a)| a.last().unwrap() == "--user"),
        "{hooks:?}"
    );
    assert_eq!(claude["statusLine"]["command"], "capn statusline");
    assert_eq!(
        claude["permissions"]["allow"],
        json!(["Bash(capn ask:*)", "Bash(capn chart:*)"])
    );
    assert_eq!(
        registered(&read_json(&env.home.join(".codex/hooks.json"))).len(),
        7
    );
    let rules = std::fs::read_to_string(env.home.join(".codex/rules/capn.rules")).unwrap();
    assert!(
        rules.contains(r#"pattern = ["capn", ["ask", "chart"]]"#),
        "{rules}"
    );
    assert!(env
        .home
        .join(".claude/skills/compact-prep/SKILL.md")
        .is_file());
    // A second run changes nothing.
    let again = env.run(&["init", "--user"]).ok();
    assert!(again.stdout.contains("nothing changed"), "{}", again.stdout);

    // A git project without .capn/, and a folder that is no project at all: every hook, as
    // registered, exits 0 and prints nothing.
    let plain = env.tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    for dir in [env.root.clone(), plain.canonicalize().unwrap()] {
        for (event, argv, stdout) in run_user_hooks(&env, &dir) {
            assert_eq!(stdout, "", "{event} {argv:?} printed in {}", dir.display());
        }
    }
    assert!(!env.root.join(".capn").exists(), "a hook made a store");
    // `capn ask` there says how to start one.
    let ask = env
        .run(&["ask", "where are payment webhooks handled?"])
        .code(1);
    assert!(ask.stderr.contains("capn init"), "{}", ask.stderr);
}

/// Adds a linked worktree of `env.root` at `path`; returns its canonical path.
fn add_worktree(env: &Env, path: &Path) -> PathBuf {
    let git = |args: &[&str]| {
        let ok = env
            .git_cmd(&env.root, args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "start"]);
    git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        path.to_str().unwrap(),
    ]);
    path.canonicalize().unwrap()
}

#[test]
fn a_linked_worktree_of_a_project_with_a_store_works_without_a_second_init() {
    let env = Env::git();
    env.run(&["init", "--user"]).ok();
    env.write("src/webhooks.rs", "// webhooks\n");
    let init = env.run(&["init"]).ok();
    // The user-level registrations count: the project gets no second copy of the hooks.
    assert!(!init.stdout.contains("registered the"), "{}", init.stdout);
    env.run(&[
        "chart",
        "Where are payment webhooks handled?",
        "--files",
        "src/webhooks.rs",
    ])
    .ok();
    let wt = add_worktree(&env, &env.tmp.path().join("wt"));
    assert!(!wt.join(".capn").exists());
    let contract = env.run(&["context"]).ok().stdout;
    let outputs = run_user_hooks(&env, &wt);
    let starts: Vec<&String> = outputs
        .iter()
        .filter(|(e, _, _)| e == "SessionStart")
        .map(|(_, _, out)| out)
        .collect();
    assert_eq!(starts.len(), 2, "{outputs:?}");
    for out in starts {
        let v: Value = serde_json::from_str(out).unwrap();
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            contract.as_str()
        );
    }
    let hit = env
        .run_cmd(
            env.cmd_in(&wt, &["ask", "where are payment webhooks handled?"]),
            b"",
        )
        .ok();
    assert!(hit.stdout.contains("src/webhooks.rs"), "{}", hit.stdout);
}

/// In a project whose own settings register capn's hooks (set up before `init --user`), the
/// user-level copies stay silent: the project's answer, once.
#[test]
fn user_hooks_defer_to_a_projects_own_registration() {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.run(&["init", "--user"]).ok();
    for (event, argv, stdout) in run_user_hooks(&env, &env.root) {
        assert_eq!(stdout, "", "{event} {argv:?}");
    }
    let project = env.run_stdin(
        &["hook", "session-start"],
        payload("SessionStart", &env.root).as_bytes(),
    );
    assert!(project.stdout.contains("capn ask"), "{}", project.stdout);
}

/// Every file under `home` but capn's state dir (`.local/state/capn-hook`, where the tests pin
/// it, and the folders on the way to it), with its bytes; folders as `None`.
fn snapshot(home: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![home.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(home).unwrap().to_path_buf();
            if rel.starts_with(".local") {
                continue;
            }
            if p.is_dir() {
                out.insert(rel, None);
                stack.push(p);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

#[test]
fn uninstall_user_gives_back_every_byte_and_folder() {
    let env = Env::git();
    let mine = "{\n\t\"model\": \"opus\",\n\t\"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/line.sh\"},\n\t\"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}";
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/settings.json"), mine).unwrap();
    let before = snapshot(&env.home);
    env.run(&["init", "--user"]).ok();
    let claude = read_json(&env.home.join(".claude/settings.json"));
    assert_eq!(
        claude["statusLine"]["command"],
        "capn statusline --wrap '~/bin/line.sh'"
    );
    assert_ne!(snapshot(&env.home), before);
    let run = env.run(&["uninstall", "--user"]).ok();
    assert!(
        run.stdout.contains("gave ~/.claude/settings.json back"),
        "{}",
        run.stdout
    );
    assert_eq!(snapshot(&env.home), before);

    // Edited in between: only capn's entries go, the edit and the user's own stay.
    env.run(&["init", "--user"]).ok();
    let path = env.home.join(".claude/settings.json");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replacen("\"opus\"", "\"sonnet\"", 1);
    std::fs::write(&path, &edited).unwrap();
    env.run(&["uninstall", "--user"]).ok();
    let v = read_json(&path);
    assert_eq!(
        v,
        json!({"model": "sonnet", "statusLine": {"type": "command", "command": "~/bin/line.sh"}, "permissions": {"allow": ["Bash(ls:*)"]}})
    );
    assert!(!env.home.join(".codex").exists());
    assert!(!env.home.join(".claude/skills").exists());
}

#[test]
fn project_init_adds_exactly_the_two_allow_rules_and_uninstall_removes_them() {
    let env = Env::git();
    let run = env.run(&["init"]).ok();
    assert!(
        run.stdout.contains("allowed Bash(capn ask:*)"),
        "{}",
        run.stdout
    );
    let v = read_json(&env.root.join(".claude/settings.json"));
    assert_eq!(
        v["permissions"],
        json!({"allow": ["Bash(capn ask:*)", "Bash(capn chart:*)"]})
    );
    let doctor = env.run(&["doctor"]);
    assert!(
        doctor.stdout.lines().any(|l| l
            == "ok    Claude allow rules for capn ask and capn chart (permissions.allow in .claude/settings.json)"),
        "{}",
        doctor.stdout
    );
    // Changed since init: the record still removes exactly the two rules.
    let mut v2 = v.clone();
    v2["model"] = json!("mine");
    v2["permissions"]["allow"]
        .as_array_mut()
        .unwrap()
        .push(json!("Bash(npm test:*)"));
    env.write(".claude/settings.json", &v2.to_string());
    env.run(&["uninstall"]).ok();
    let after = read_json(&env.root.join(".claude/settings.json"));
    assert_eq!(
        after,
        json!({"model": "mine", "permissions": {"allow": ["Bash(npm test:*)"]}})
    );
    let doctor = env.run(&["doctor"]);
    assert!(
        doctor.stdout.contains(
            "warn  Claude allow rules for capn ask and capn chart: no Bash(capn ask:*) or Bash(capn chart:*) in permissions.allow"
        ),
        "{}",
        doctor.stdout
    );
}

/// The lines of an init report about capn's allow rules.
fn allow_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.contains("allow Bash(capn") || l.contains("allowed Bash(capn"))
        .collect()
}

#[test]
fn init_does_not_add_an_allow_rule_that_a_users_deny_or_ask_rule_covers_and_names_that_rule() {
    let env = Env::git();
    // Claude Code checks deny, then ask, then allow: with these, an allow of capn's would do
    // nothing, and the report would say capn allowed what stays denied.
    let local = "{\n  \"permissions\": {\"deny\": [\"Bash(capn chart:*)\"]}\n}\n";
    let user =
        "{\n  \"permissions\": {\"ask\": [\"Bash(capn:*)\"], \"deny\": [\"Bash(rm:*)\"]}\n}\n";
    env.write(".claude/settings.local.json", local);
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/settings.json"), user).unwrap();
    let expected = [
        "  did not allow Bash(capn ask:*): \"Bash(capn:*)\" in permissions.ask of ~/.claude/settings.json asks before capn ask, and Claude Code checks ask before allow (your rule is left as it is: Claude Code asks before each capn ask while it is there)",
        "  did not allow Bash(capn chart:*): \"Bash(capn chart:*)\" in permissions.deny of .claude/settings.local.json denies capn chart, and Claude Code checks deny before allow (your rule is left as it is: the agent cannot run capn chart while it is there)",
    ];
    for _ in 0..2 {
        let run = env.run(&["init"]).ok();
        assert_eq!(allow_lines(&run.stdout), expected, "{}", run.stdout);
        let v = read_json(&env.root.join(".claude/settings.json"));
        assert!(v.get("permissions").is_none(), "{v}");
        assert_eq!(env.read(".claude/settings.local.json"), local);
        let home = std::fs::read_to_string(env.home.join(".claude/settings.json")).unwrap();
        assert_eq!(home, user);
    }
    // doctor names the user's rules as the reason, not a missing allow that init would add.
    let doctor = env.run(&["doctor"]);
    let lines: Vec<&str> = doctor.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("Claude allow rules for capn ask and capn chart"))
        .expect("an allow check");
    assert_eq!(
        lines[at..at + 2],
        [
            "warn  Claude allow rules for capn ask and capn chart: \"Bash(capn:*)\" in permissions.ask of ~/.claude/settings.json: Claude Code asks before each capn ask and capn chart; \"Bash(capn chart:*)\" in permissions.deny of .claude/settings.local.json: the agent cannot run capn chart; Claude Code checks deny and ask before allow",
            "  fix: remove \"Bash(capn:*)\" from permissions.ask in ~/.claude/settings.json and remove \"Bash(capn chart:*)\" from permissions.deny in .claude/settings.local.json if the agent should run capn ask and capn chart without a prompt",
        ],
        "{}",
        doctor.stdout
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".claude/settings.local.json"), local);

    // A rule that covers one command only: the other is allowed as before.
    env.write(
        ".claude/settings.local.json",
        "{\"permissions\": {\"deny\": [\"Bash(capn chart *)\", \"Bash(capn ask)\"]}}",
    );
    std::fs::remove_file(env.home.join(".claude/settings.json")).unwrap();
    let run = env.run(&["init"]).ok();
    assert_eq!(
        allow_lines(&run.stdout),
        [
            "  allowed Bash(capn ask:*) in .claude/settings.json (permissions.allow: no prompt when the agent runs it)",
            "  did not allow Bash(capn chart:*): \"Bash(capn chart *)\" in permissions.deny of .claude/settings.local.json denies capn chart, and Claude Code checks deny before allow (your rule is left as it is: the agent cannot run capn chart while it is there)",
        ],
        "{}",
        run.stdout
    );
    let v = read_json(&env.root.join(".claude/settings.json"));
    assert_eq!(v["permissions"], json!({"allow": ["Bash(capn ask:*)"]}));
}

#[test]
fn init_user_does_not_add_an_allow_rule_its_own_file_denies() {
    let env = Env::new();
    let user = "{\"permissions\": {\"deny\": [\"Bash\"]}}";
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/settings.json"), user).unwrap();
    let run = env.run(&["init", "--user"]).ok();
    assert_eq!(
        allow_lines(&run.stdout),
        [
            "  did not allow Bash(capn ask:*): \"Bash\" in permissions.deny of ~/.claude/settings.json denies capn ask, and Claude Code checks deny before allow (your rule is left as it is: the agent cannot run capn ask while it is there)",
            "  did not allow Bash(capn chart:*): \"Bash\" in permissions.deny of ~/.claude/settings.json denies capn chart, and Claude Code checks deny before allow (your rule is left as it is: the agent cannot run capn chart while it is there)",
        ],
        "{}",
        run.stdout
    );
    let v = read_json(&env.home.join(".claude/settings.json"));
    assert_eq!(v["permissions"], json!({"deny": ["Bash"]}));
}

/// The doctor line about capn's allow rules.
fn doctor_allow_lines(env: &Env) -> Vec<String> {
    let doctor = env.run(&["doctor"]).stdout;
    let lines: Vec<&str> = doctor.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("Claude allow rules for capn ask and capn chart"))
        .expect("an allow check");
    let fix = lines.get(at + 1).filter(|l| l.starts_with("  fix: "));
    std::iter::once(lines[at])
        .chain(fix.copied())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_deny_rule_written_after_init_or_beside_an_allow_is_named_by_doctor_and_init() {
    let env = Env::git();
    env.run(&["init", "--host", "claude"]).ok();
    // capn's allow rules are in place; a deny rule added since decides first.
    env.write(
        ".claude/settings.local.json",
        "{\"permissions\":{\"deny\":[\"Bash\"]}}",
    );
    assert_eq!(
        doctor_allow_lines(&env),
        [
            "warn  Claude allow rules for capn ask and capn chart: \"Bash\" in permissions.deny of .claude/settings.local.json: the agent cannot run capn ask and capn chart; Claude Code checks deny and ask before allow",
            "  fix: remove \"Bash\" from permissions.deny in .claude/settings.local.json if the agent should run capn ask and capn chart without a prompt",
        ]
    );
    // An allow of the user's for capn chart does nothing beside a deny that covers it: init says
    // so for both commands, not only for the one it would have added.
    let env = Env::git();
    env.write(
        ".claude/settings.json",
        "{\"permissions\":{\"deny\":[\"Bash(capn:*)\"],\"allow\":[\"Bash(capn chart:*)\"]}}",
    );
    let run = env.run(&["init", "--host", "claude"]).ok();
    assert_eq!(
        allow_lines(&run.stdout),
        [
            "  did not allow Bash(capn ask:*): \"Bash(capn:*)\" in permissions.deny of .claude/settings.json denies capn ask, and Claude Code checks deny before allow (your rule is left as it is: the agent cannot run capn ask while it is there)",
            "  did not allow Bash(capn chart:*): \"Bash(capn:*)\" in permissions.deny of .claude/settings.json denies capn chart, and Claude Code checks deny before allow (your rule is left as it is: the agent cannot run capn chart while it is there)",
        ],
        "{}",
        run.stdout
    );
}

/// True when `path` is a symlink (not followed).
#[cfg(unix)]
fn is_link(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// A dotfiles set-up (GNU stow, chezmoi's symlink mode): `~/.claude/settings.json` a symlink
/// into the user's dotfiles folder. `init --user` edits the file it leads to, the link stays a
/// link, the report names both; `uninstall --user` gives that file its bytes back.
#[cfg(unix)]
#[test]
fn init_user_edits_a_symlinked_settings_file_where_it_leads_and_uninstall_gives_it_back() {
    let env = Env::new();
    let dot = env.home.join("dotfiles");
    std::fs::create_dir_all(&dot).unwrap();
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    let mine = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(dot.join("claude.json"), mine).unwrap();
    let link = env.home.join(".claude/settings.json");
    std::os::unix::fs::symlink(dot.join("claude.json"), &link).unwrap();
    let run = env.run(&["init", "--user"]).ok();
    assert!(
        run.stdout.contains(
            "registered the SessionStart hook in ~/.claude/settings.json (-> ~/dotfiles/claude.json)"
        ),
        "{}",
        run.stdout
    );
    assert!(is_link(&link), "the link stays a link");
    let v = read_json(&dot.join("claude.json"));
    assert_eq!(v["model"], "opus");
    assert_eq!(v["statusLine"]["command"], "capn statusline");
    assert_eq!(registered(&v).len(), 7);
    // Codex is set up too: the link stopped nothing.
    assert_eq!(
        registered(&read_json(&env.home.join(".codex/hooks.json"))).len(),
        7
    );
    let run = env.run(&["uninstall", "--user"]).ok();
    assert!(
        run.stdout.contains(
            "gave ~/.claude/settings.json (-> ~/dotfiles/claude.json) back its bytes from before"
        ),
        "{}",
        run.stdout
    );
    assert!(is_link(&link), "the link stays a link");
    assert_eq!(
        std::fs::read_to_string(dot.join("claude.json")).unwrap(),
        mine
    );
    assert!(!env.home.join(".codex").exists());
}

/// `~/.claude` itself a symlink to a dotfiles folder: the settings file and the skill are
/// written in that folder, and `uninstall --user` takes them and the folders it made out again.
#[cfg(unix)]
#[test]
fn init_user_writes_through_a_symlinked_claude_folder_and_uninstall_cleans_it() {
    let env = Env::new();
    let dot = env.home.join("dotfiles/claude");
    std::fs::create_dir_all(&dot).unwrap();
    std::os::unix::fs::symlink(&dot, env.home.join(".claude")).unwrap();
    let run = env.run(&["init", "--user"]).ok();
    assert!(
        run.stdout.contains(
            "installed the /compact-prep skill in ~/.claude/skills/compact-prep/SKILL.md (-> ~/dotfiles/claude/skills/compact-prep/SKILL.md)"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(registered(&read_json(&dot.join("settings.json"))).len(), 7);
    assert!(dot.join("skills/compact-prep/SKILL.md").is_file());
    env.run(&["uninstall", "--user"]).ok();
    assert!(std::fs::symlink_metadata(env.home.join(".claude"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_dir(&dot).unwrap().count(),
        0,
        "left in {dot:?}"
    );
}

/// A symlink in the home folder that leads nowhere, or to a folder: a clear error naming it,
/// and nothing written for any host.
#[cfg(unix)]
#[test]
fn init_user_refuses_a_dangling_or_non_file_symlink_with_nothing_written() {
    let env = Env::new();
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    let link = env.home.join(".claude/settings.json");
    std::os::unix::fs::symlink(env.home.join("dotfiles/gone.json"), &link).unwrap();
    let run = env.run(&["init", "--user"]).code(1);
    assert!(
        run.stderr.contains(&format!(
            "could not follow {}: it is a symlink to {}, which does not exist (dangling)",
            link.display(),
            env.home.join("dotfiles/gone.json").display()
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("in a project"), "{}", run.stderr);
    let names = |dir: &Path| -> Vec<String> {
        let entries = std::fs::read_dir(dir).unwrap();
        let mut names: Vec<String> = entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&env.home), [".claude"]);
    assert_eq!(names(&env.home.join(".claude")), ["settings.json"]);
    assert!(!env.state_dir().join("user-install.json").exists());
    std::fs::remove_file(&link).unwrap();
    std::fs::create_dir_all(env.home.join("dotfiles")).unwrap();
    std::os::unix::fs::symlink(env.home.join("dotfiles"), &link).unwrap();
    let before = snapshot(&env.home);
    let run = env.run(&["init", "--user"]).code(1);
    assert!(
        run.stderr
            .contains("which is a directory, not a regular file"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("in a project"), "{}", run.stderr);
    assert_eq!(snapshot(&env.home), before);
}

/// A `permissions` that is not an object, or an `allow` in it that is not an array: `init` adds
/// no rule and edits none of it (its bytes stay), says so in one line naming the file and the
/// key, and doctor gives that as the reason the rules are missing.
#[test]
fn init_names_a_permissions_it_cannot_read_and_keeps_every_byte_of_it() {
    let cases = [
        (
            "{\n  \"permissions\" : [ \"Bash(ls)\" ],\n  \"model\": \"x\"\n}\n",
            "\"permissions\" : [ \"Bash(ls)\" ]",
            ("permissions", "an array", "an object"),
        ),
        (
            "{\"permissions\": \"ask\"}",
            "\"permissions\": \"ask\"",
            ("permissions", "a string", "an object"),
        ),
        (
            "{\"permissions\": {\"allow\":\"Bash(ls)\",  \"deny\": []}}",
            "\"permissions\": {\"allow\":\"Bash(ls)\",  \"deny\": []}",
            ("permissions.allow", "a string", "an array"),
        ),
        (
            "{\"permissions\": {\"allow\": {\"Bash\": true}}}",
            "\"permissions\": {\"allow\": {\"Bash\": true}}",
            ("permissions.allow", "an object", "an array"),
        ),
    ];
    for (settings, kept, (key, is, want)) in cases {
        let env = Env::git();
        env.write(".claude/settings.json", settings);
        let run = env.run(&["init", "--host", "claude"]).ok();
        let note = format!(
            "  did not allow Bash(capn ask:*) and Bash(capn chart:*) in .claude/settings.json: its \
             \"{key}\" is {is}, not {want}, and capn leaves what it cannot read as it is (make it \
             {want} to have capn add them)"
        );
        assert_eq!(allow_lines(&run.stdout), [note.as_str()], "{}", run.stdout);
        let after = env.read(".claude/settings.json");
        assert!(after.contains("capn"), "no hooks registered: {after}");
        assert!(after.contains(kept), "{settings:?} became {after:?}");
        assert_eq!(
            doctor_allow_lines(&env),
            [
                format!(
                    "warn  Claude allow rules for capn ask and capn chart: no Bash(capn ask:*) or \
                     Bash(capn chart:*) in permissions.allow: Claude Code asks before each such \
                     command the agent runs; capn init adds no rule to what it cannot read: in \
                     .claude/settings.json, \"{key}\" is {is}, not {want}"
                ),
                format!(
                    "  fix: make \"{key}\" in .claude/settings.json {want}, then run capn init"
                ),
            ]
        );
        env.run(&["uninstall"]).ok();
        assert_eq!(env.read(".claude/settings.json"), settings);
    }
}

/// `init --user` says the same of the user's file and leaves its `permissions` as it is.
#[test]
fn init_user_names_a_permissions_it_cannot_read() {
    let env = Env::new();
    let user = "{\"permissions\": [\"Bash(ls)\"]}";
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/settings.json"), user).unwrap();
    let run = env.run(&["init", "--user"]).ok();
    assert_eq!(
        allow_lines(&run.stdout),
        ["  did not allow Bash(capn ask:*) and Bash(capn chart:*) in ~/.claude/settings.json: its \"permissions\" is an array, not an object, and capn leaves what it cannot read as it is (make it an object to have capn add them)"],
        "{}",
        run.stdout
    );
    let v = read_json(&env.home.join(".claude/settings.json"));
    assert_eq!(v["permissions"], json!(["Bash(ls)"]));
}
