//! `capn init`: store, config, .gitignore, hook registration merge, post-commit hook (with a real
//! git: `init_git.rs`), and `uninstall` taking out what init added.

use crate::util::Env;
use serde_json::{json, Value};
use std::fs;

/// Writes an executable git hook (git ignores one without an execute bit, and init refuses it).
pub(crate) fn write_hook(env: &Env, rel: &str, content: &str) -> std::path::PathBuf {
    let p = env.write(rel, content);
    crate::util::make_executable(&p);
    p
}

fn read_json(env: &Env, rel: &str) -> Value {
    serde_json::from_str(&env.read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn session_start_commands(v: &Value) -> Vec<Value> {
    v["hooks"]["SessionStart"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// Without embeddings the offer gate has nothing to go on: init says offers are off then.
/// `stdout` (an init report) has the offers line `offers: <line>` and says nothing is added to
/// the agent's context.
#[track_caller]
fn says_no_offers(stdout: &str, line: &str) {
    let said = format!("\n  offers: {line}\n");
    assert!(stdout.contains(&said), "{stdout}");
    assert!(!stdout.contains("are added to its context"), "{stdout}");
}

#[test]
fn init_without_embedding_says_nothing_is_offered() {
    let env = Env::git();
    let run = env.run(&["init", "--no-embedding"]).ok();
    says_no_offers(&run.stdout, "none while embedding is off (the offer gate needs it; capn init --embedding turns them on)");
    // Switching the embedding on later turns offers on: init says so.
    let run = env.run(&["init", "--embedding"]).ok();
    assert!(
        run.stdout.contains("\n  offers: charted answers matching the user's prompt or the agent's search are added to its context (\"offer\": false in .capn/config.json turns that off)\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn init_says_offers_are_off_when_the_config_switches_them_off() {
    let env = Env::git();
    env.write(".capn/config.json", r#"{"offer": false}"#);
    let run = env.run(&["init"]).ok();
    says_no_offers(
        &run.stdout,
        "none (\"offer\": false in .capn/config.json switches them off)",
    );
    let env = Env::git();
    env.write(".capn/config.json", r#"{"offer": {"prompt": false}}"#);
    let run = env.run(&["init"]).ok();
    assert!(
        run.stdout.contains("\n  offers: charted answers matching the agent's search are added to its context (the other moment is off by \"offer\" in .capn/config.json)\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn init_sets_everything_up_and_a_second_run_changes_nothing() {
    let env = Env::git();
    let run = env.run(&["init", "--git"]).ok();
    assert!(
        run.stdout
            .contains("wrote .capn/.gitignore: git ignores the local store"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\n  offers: charted answers matching the user's prompt or the agent's search are added to its context (\"offer\": false in .capn/config.json turns that off)\n"),
        "{}",
        run.stdout
    );
    assert!(env.root.join(".capn/entries").is_dir());
    assert_eq!(read_json(&env, ".capn/config.json")["embedding"], true);
    // The project's .gitignore is not created: the store ignores itself.
    assert!(!env.root.join(".gitignore").exists());
    assert!(env.read(".capn/.gitignore").ends_with("\n*\n"));
    let claude = read_json(&env, ".claude/settings.json");
    let group = &claude["hooks"]["SessionStart"][0];
    // No matcher: every source gets the contract, `fork` and later ones included.
    assert_eq!(group.get("matcher"), None);
    let h = &group["hooks"][0];
    assert_eq!(h["type"], "command");
    assert_eq!(h["command"], "capn");
    assert_eq!(h["args"], json!(["hook", "session-start"]));
    assert!(h["timeout"].as_u64().is_some());
    let codex = read_json(&env, ".codex/hooks.json");
    let ch = &codex["hooks"]["SessionStart"][0]["hooks"][0];
    assert!(ch["command"]
        .as_str()
        .unwrap()
        .starts_with("capn hook session-start"));
    assert!(ch["timeout"].as_u64().is_some());
    let skill = env.read(".claude/skills/compact-prep/SKILL.md");
    assert!(
        skill.starts_with("---\n") && skill.contains("name: compact-prep"),
        "{skill}"
    );
    let hook = env.read(".git/hooks/post-commit");
    assert!(hook.starts_with("#!"));
    assert_eq!(hook.lines().filter(|l| *l == PRUNE_GUARDED).count(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(env.root.join(".git/hooks/post-commit"))
            .unwrap()
            .permissions()
            .mode();
        assert_ne!(mode & 0o111, 0, "post-commit is not executable");
    }

    let snapshot = |env: &Env| {
        [
            ".capn/.gitignore",
            ".claude/settings.json",
            ".codex/hooks.json",
            ".capn/config.json",
            ".git/hooks/post-commit",
        ]
        .map(|p| env.read(p))
    };
    let before = snapshot(&env);
    let run = env.run(&["init", "--git"]).ok();
    assert!(run.stdout.contains("nothing changed"), "{}", run.stdout);
    assert_eq!(snapshot(&env), before);
}

/// The project's `.gitignore` is the user's: init never edits it (issue 28: a routine
/// `git commit -am` took capn's line along to other branches), whatever it holds, and git
/// ignores the store all the same, through `.capn/.gitignore` (checked with git itself).
#[test]
fn init_leaves_the_gitignore_alone_and_git_ignores_the_store() {
    for before in [
        "node_modules",
        "dist\r\ntarget\r\n",
        "/.capn\n",
        "  .capn/\n",
        "!.capn/\n",
        "!.capn/\n.capn/   \n",
    ] {
        let env = Env::git();
        env.write(".gitignore", before);
        env.run(&["init"]).ok();
        env.run(&["init"]).ok();
        assert_eq!(env.read(".gitignore"), before, "{before:?}");
        let ignored = env
            .git_cmd(&env.root, &["check-ignore", "-q", ".capn/config.json"])
            .status()
            .unwrap();
        assert!(ignored.success(), "{before:?}: .capn/ is not ignored");
    }
}

#[test]
fn init_merges_without_clobbering_and_replaces_the_0_2_registration() {
    let env = Env::git();
    let original = json!({
        "model": "claude-sonnet-5",
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "/usr/bin/env capn context"}]},
                {"matcher": "startup", "hooks": [{"type": "command", "command": "other-tool start", "timeout": 5}]}
            ],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]
        },
        "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}
    });
    env.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&original).unwrap(),
    );
    let run = env.run(&["init"]).ok();
    assert!(run.stdout.contains("0.2"), "{}", run.stdout);
    let v = read_json(&env, ".claude/settings.json");
    assert_eq!(v["model"], original["model"], "model changed");
    // The user's allow rule stays first; capn's two rules for its own commands are added.
    assert_eq!(
        v["permissions"],
        json!({"allow": ["Bash(ls:*)", "Bash(capn ask:*)", "Bash(capn chart:*)"]})
    );
    // The user's PreToolUse group stays first and untouched; ours is appended after it.
    let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0], original["hooks"]["PreToolUse"][0]);
    assert_eq!(pre.len(), 2, "{pre:?}");
    assert_eq!(pre[1]["matcher"], "Grep|Glob|Read|Bash|Task|Agent");
    assert_eq!(pre[1]["hooks"][0]["args"], json!(["hook", "pre-tool-use"]));
    let cmds = session_start_commands(&v);
    assert!(cmds
        .iter()
        .any(|h| h["command"] == "other-tool start" && h["timeout"] == 5));
    assert!(
        !cmds
            .iter()
            .any(|h| h["command"] == "/usr/bin/env capn context"),
        "legacy kept"
    );
    assert_eq!(
        cmds.iter()
            .filter(|h| h["args"] == json!(["hook", "session-start"]))
            .count(),
        1
    );
    // The same for Codex's hooks.json.
    let env = Env::git();
    env.write(
        ".codex/hooks.json",
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/usr/bin/env capn context"}]}],"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}"#,
    );
    env.run(&["init"]).ok();
    let v = read_json(&env, ".codex/hooks.json");
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "x");
    let cmds = session_start_commands(&v);
    assert_eq!(cmds.len(), 1, "{cmds:?}");
    assert!(cmds[0]["command"]
        .as_str()
        .unwrap()
        .starts_with("capn hook session-start"));
}

#[test]
fn a_registration_in_settings_local_json_is_respected() {
    let env = Env::git();
    let local = r#"{"hooks":{"SessionStart":[{"matcher":"startup|resume|clear|compact","hooks":[{"type":"command","command":"capn","args":["hook","session-start"],"timeout":10}]}]}}"#;
    env.write(".claude/settings.local.json", local);
    let run = env.run(&["init"]).ok();
    // capn 0.3's matcher (no fork) is capn's own: upgraded in place, byte for byte otherwise.
    assert_eq!(
        env.read(".claude/settings.local.json"),
        local.replace(r#""matcher":"startup|resume|clear|compact","#, "")
    );
    assert!(
        run.stdout.contains("registered the SessionStart hook for every source in .claude/settings.local.json (the matcher \"startup|resume|clear|compact\" left out forked sessions)"),
        "{}",
        run.stdout
    );
    let main = env.root.join(".claude/settings.json");
    if main.exists() {
        assert!(session_start_commands(&read_json(&env, ".claude/settings.json")).is_empty());
    }
}

#[test]
fn init_upgrades_capn_s_old_session_start_matcher_and_leaves_the_user_s() {
    let env = Env::git();
    // capn 0.3's group with another tool's handler in it, and a matcher of the user's choosing.
    let before = "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"startup|resume|clear|compact\",\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"capn\", \"args\": [\"hook\", \"session-start\"], \"timeout\": 10},\n          {\"type\": \"command\", \"command\": \"other-tool start\"}\n        ]\n      }\n    ]\n  }\n}\n";
    env.write(".claude/settings.json", before);
    env.run(&["init"]).ok();
    let s = read_json(&env, ".claude/settings.json");
    let groups = s["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{s}");
    assert_eq!(groups[0].get("matcher"), None, "{s}");
    assert_eq!(groups[0]["hooks"][0]["args"][1], "session-start");
    assert_eq!(groups[1]["matcher"], "startup|resume|clear|compact");
    assert_eq!(groups[1]["hooks"][0]["command"], "other-tool start");
    // A second run changes nothing; uninstall gives back the file as it was before init (the
    // handler was there before, so it is not init's to remove).
    let after = env.read(".claude/settings.json");
    env.run(&["init"]).ok();
    assert_eq!(env.read(".claude/settings.json"), after);
    env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".claude/settings.json"), before);
    // A matcher the user wrote is theirs: left as it is (doctor names it).
    let env = Env::git();
    let mine = r#"{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"capn","args":["hook","session-start"],"timeout":10}]}]}}"#;
    env.write(".claude/settings.json", mine);
    env.run(&["init"]).ok();
    assert!(env
        .read(".claude/settings.json")
        .contains(r#""matcher":"startup","#));
}

#[test]
fn unparseable_settings_are_left_untouched_and_init_exits_1() {
    for (file, text) in [
        (
            ".claude/settings.json",
            "{\n  // a comment\n  \"model\": \"x\"\n}\n",
        ),
        (".claude/settings.json", "{\"model\": \"x\",}\n"),
        (".claude/settings.local.json", "[1, 2"),
        (".codex/hooks.json", "{\"hooks\": 3}"),
    ] {
        let env = Env::git();
        env.write(file, text);
        let run = env.run(&["init"]).code(1);
        // The error names the file (`<root>/.claude/settings.json: <why>`), dot and all, and
        // says it was left alone.
        assert!(
            run.stderr.contains(&format!("{file}: ")) && run.stderr.contains("left untouched"),
            "{file}: {}",
            run.stderr
        );
        assert_eq!(env.read(file), text, "{file} was rewritten");
        assert!(
            !env.root.join(".gitignore").exists(),
            "{file}: init went on after the error"
        );
    }
}

#[test]
fn git_hook_is_appended_to_an_existing_post_commit_once() {
    let env = Env::git();
    write_hook(&env, ".git/hooks/post-commit", "#!/bin/sh\necho committed");
    env.run(&["init", "--git"]).ok();
    env.run(&["init", "--git"]).ok();
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        format!("#!/bin/sh\n{PRUNE_LINES}echo committed")
    );
    // --git outside a repository is a clear error.
    let env = Env::new();
    let run = env.run(&["init", "--git"]).code(1);
    assert!(run.stderr.contains("git"), "{}", run.stderr);
}

#[test]
fn embedding_flags_set_the_config_and_keep_unknown_keys() {
    let env = Env::git();
    env.write(
        ".capn/config.json",
        "{\"custom\": [1, 2], \"embedding\": true}\n",
    );
    env.run(&["init", "--no-embedding"]).ok();
    let v = read_json(&env, ".capn/config.json");
    assert_eq!(v["embedding"], false);
    assert_eq!(v["custom"], json!([1, 2]));
    env.run(&["init"]).ok();
    assert_eq!(
        read_json(&env, ".capn/config.json")["embedding"],
        false,
        "a plain init flipped it"
    );
    env.run(&["init", "--embedding"]).ok();
    assert_eq!(read_json(&env, ".capn/config.json")["embedding"], true);
    env.run(&["init", "--embedding", "--no-embedding"]).code(1);
}

#[test]
fn uninstall_removes_exactly_what_init_added() {
    let env = Env::git();
    let settings = json!({
        "model": "x",
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]},
        "statusLine": {"type": "command", "command": "~/bin/my status 'line'", "padding": 1}
    });
    let settings_text = serde_json::to_string_pretty(&settings).unwrap();
    env.write(".claude/settings.json", &settings_text);
    write_hook(&env, ".git/hooks/post-commit", "#!/bin/sh\necho hi\n");
    env.run(&["init", "--git"]).ok();
    let v = read_json(&env, ".claude/settings.json");
    let sl = v["statusLine"]["command"].as_str().unwrap();
    assert!(sl.starts_with("capn statusline --wrap "), "{sl}");
    assert_eq!(v["statusLine"]["padding"], 1);
    for event in [
        "SessionStart",
        "PreCompact",
        "PostCompact",
        "UserPromptSubmit",
    ] {
        assert!(v["hooks"][event].is_array(), "{event} not registered");
    }
    let run = env.run(&["uninstall"]).ok();
    assert!(run.stdout.contains("restored"), "{}", run.stdout);
    assert_eq!(read_json(&env, ".claude/settings.json"), settings);
    assert_eq!(env.read(".git/hooks/post-commit"), "#!/bin/sh\necho hi\n");
    assert!(
        !env.root.join(".codex/hooks.json").exists(),
        "codex file created by init left behind"
    );
    assert!(
        env.root.join(".capn").is_dir(),
        "uninstall deleted the charts"
    );
    // A second uninstall has nothing to do.
    let run = env.run(&["uninstall"]).ok();
    assert!(run.stdout.contains("nothing"), "{}", run.stdout);
}

#[test]
fn a_user_level_statusline_is_wrapped_and_left_alone_on_uninstall() {
    let env = Env::git();
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(
        env.home.join(".claude/settings.json"),
        r#"{"statusLine":{"type":"command","command":"user-line"}}"#,
    )
    .unwrap();
    env.run(&["init"]).ok();
    let v = read_json(&env, ".claude/settings.json");
    assert_eq!(
        v["statusLine"]["command"],
        "capn statusline --wrap 'user-line'"
    );
    env.run(&["uninstall"]).ok();
    assert!(!env.root.join(".claude/settings.json").exists());
    assert_eq!(
        std::fs::read_to_string(env.home.join(".claude/settings.json")).unwrap(),
        r#"{"statusLine":{"type":"command","command":"user-line"}}"#
    );
}

// ---------------------------------------------------------------- post-commit lines (init_git.rs has the real-git cases)

/// The lines `init --git` puts right after a hook's shebang.
pub(crate) const PRUNE_LINES: &str = "# Added by capn init: check the charts after each commit (deletes only charts stale past the retention).\ncommand -v capn >/dev/null 2>&1 && { capn prune --expired >/dev/null 2>&1 & }\n";
/// The guarded, backgrounded prune line.
pub(crate) const PRUNE_GUARDED: &str =
    "command -v capn >/dev/null 2>&1 && { capn prune --expired >/dev/null 2>&1 & }";

/// The fake capn's log once it has something (the hook runs it in the background), waiting up
/// to [`crate::util::HANG_GUARD`].
#[cfg(unix)]
pub(crate) fn wait_for_log(log: &std::path::Path) -> String {
    let start = std::time::Instant::now();
    loop {
        let text = fs::read_to_string(log).unwrap_or_default();
        if text.ends_with('\n') || start.elapsed() > crate::util::HANG_GUARD {
            return text;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

// ---------------------------------------------------------------- the install record

/// A handler init added and the user then edited (as `capn doctor` suggests) is still removed;
/// a capn handler the user added by hand after init is kept and listed.
#[test]
fn uninstall_removes_an_edited_handler_init_added_and_keeps_a_hand_written_one() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let mut v = read_json(&env, ".claude/settings.json");
    v["hooks"]["PreCompact"][0]["hooks"][0]["timeout"] = json!(30);
    v["hooks"]["Stop"] =
        json!([{"hooks": [{"type": "command", "command": "capn hook session-start"}]}]);
    v["model"] = json!("mine");
    env.write(".claude/settings.json", &v.to_string());
    let run = env.run(&["uninstall"]).ok();
    assert!(
        run.stdout
            .contains("removed the PreCompact hook from .claude/settings.json (edited"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("kept the Stop hook in .claude/settings.json: capn init did not add it"),
        "{}",
        run.stdout
    );
    let v = read_json(&env, ".claude/settings.json");
    assert_eq!(
        v,
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "capn hook session-start"}]}]}, "model": "mine"})
    );
    assert!(!env.root.join(".capn/install.json").exists());
}

/// Without a record (a project set up by an older capn): only handlers identical to what init
/// writes are removed, hand-written variants and every settings file stay.
#[test]
fn uninstall_without_a_record_removes_only_exact_copies_and_deletes_no_file() {
    let env = Env::git();
    env.run(&["init"]).ok();
    fs::remove_file(env.root.join(".capn/install.json")).unwrap();
    let mut v = read_json(&env, ".claude/settings.json");
    // A hand-written variant (no timeout) next to init's exact handler.
    v["hooks"]["PreCompact"][0]["hooks"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "command", "command": "capn", "args": ["hook", "pre-compact"]}));
    v["statusLine"]["command"] = json!("capn statusline --warn-at 70");
    env.write(".claude/settings.json", &v.to_string());
    let run = env.run(&["uninstall"]).ok();
    assert!(run.stdout.contains("no install record"), "{}", run.stdout);
    let v = read_json(&env, ".claude/settings.json");
    assert_eq!(
        v,
        json!({
            "hooks": {"PreCompact": [{"matcher": "manual|auto", "hooks": [
                {"type": "command", "command": "capn", "args": ["hook", "pre-compact"]}
            ]}]},
            "statusLine": {"type": "command", "command": "capn statusline --warn-at 70", "padding": 0}
        })
    );
    assert_eq!(read_json(&env, ".codex/hooks.json"), json!({}));
    assert!(!env
        .root
        .join(".claude/skills/compact-prep/SKILL.md")
        .exists());
}

/// The statusline init wrapped is put back even when other statusLine fields were edited since;
/// a statusline whose command the user changed is kept.
#[test]
fn uninstall_restores_the_wrapped_statusline_or_keeps_a_changed_one() {
    let env = Env::git();
    env.write(
        ".claude/settings.json",
        r#"{"statusLine": {"type": "command", "command": "mine.sh"}}"#,
    );
    env.run(&["init"]).ok();
    let mut v = read_json(&env, ".claude/settings.json");
    v["statusLine"]["padding"] = json!(3);
    env.write(".claude/settings.json", &v.to_string());
    env.run(&["uninstall"]).ok();
    assert_eq!(
        read_json(&env, ".claude/settings.json"),
        json!({"statusLine": {"type": "command", "command": "mine.sh", "padding": 3}})
    );

    let env = Env::git();
    env.run(&["init"]).ok();
    let mut v = read_json(&env, ".claude/settings.json");
    v["statusLine"]["command"] = json!("capn statusline --warn-at 80");
    env.write(".claude/settings.json", &v.to_string());
    let run = env.run(&["uninstall"]).ok();
    assert!(
        run.stdout.contains("kept the capn statusline"),
        "{}",
        run.stdout
    );
    assert_eq!(
        read_json(&env, ".claude/settings.json")["statusLine"]["command"],
        "capn statusline --warn-at 80"
    );
}

/// Runs accumulate in the record: a handler the user removed and a second init put back is
/// removed by uninstall like the rest, and a settings file init created and the user added to
/// keeps the user's keys.
#[test]
fn the_record_merges_runs_and_created_files_keep_user_keys() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let mut v = read_json(&env, ".codex/hooks.json");
    v["hooks"].as_object_mut().unwrap().remove("PreCompact");
    v["mine"] = json!(true);
    env.write(".codex/hooks.json", &v.to_string());
    let run = env.run(&["init"]).ok();
    assert!(
        run.stdout
            .contains("registered the PreCompact hook in .codex/hooks.json"),
        "{}",
        run.stdout
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(read_json(&env, ".codex/hooks.json"), json!({"mine": true}));
    assert!(!env.root.join(".claude/settings.json").exists());
}

/// A post-commit hook the user had is never deleted, even when only a shebang is left.
#[test]
fn uninstall_keeps_a_post_commit_hook_init_did_not_create() {
    let env = Env::git();
    write_hook(&env, ".git/hooks/post-commit", "#!/bin/sh\n");
    env.run(&["init", "--git"]).ok();
    assert_eq!(
        env.read(".git/hooks/post-commit"),
        format!("#!/bin/sh\n{PRUNE_LINES}")
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".git/hooks/post-commit"), "#!/bin/sh\n");
}
