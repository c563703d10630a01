//! Nothing of the user's is lost: details a re-chart does not replace, allow rules and folders
//! that were there before `init`, a `.gitignore` capn never wrote, comments in a host's settings.

use crate::git_scenarios::{capn, git, repo};
use crate::util::Env;
use std::path::Path;

/// The details `ask` prints with its answer to `q` in `dir`, or `None` on a miss.
fn answer_details(env: &Env, dir: &Path, q: &str) -> Option<String> {
    let run = capn(env, dir, &["ask", q]);
    let hits = run.jsonl();
    let hit = hits.first()?;
    Some(hit["details"].as_str().unwrap_or("").to_string())
}

#[test]
fn a_rechart_without_details_keeps_the_newest_versions_details() {
    let env = repo(&[("src/retry.rs", "fn retry() { /* v1 */ }\n")]);
    let q = "where is the retry loop?";
    let chart = |details: Option<&str>| {
        let mut args = vec!["chart", q, "--files", "src/retry.rs"];
        if let Some(d) = details {
            args.extend(["--details", d]);
        }
        capn(&env, &env.root, &args).ok();
    };
    chart(Some("the loop is in retry(), backoff doubles"));
    // The file changes (committed: the first version stays in no branch's way).
    env.write("src/retry.rs", "fn retry() { /* v2 */ }\n");
    chart(None);
    assert_eq!(
        answer_details(&env, &env.root, q).as_deref(),
        Some("the loop is in retry(), backoff doubles"),
        "a re-chart without --details keeps the details"
    );
    // Newer details, then another change: the newest ones are kept, never an older version's.
    git(&env, &env.root, &["commit", "-qam", "v2"]);
    env.write("src/retry.rs", "fn retry() { /* v3 */ }\n");
    chart(Some("retry() now caps the backoff at 30 s"));
    env.write("src/retry.rs", "fn retry() { /* v4 */ }\n");
    chart(None);
    assert_eq!(
        answer_details(&env, &env.root, q).as_deref(),
        Some("retry() now caps the backoff at 30 s")
    );
}

/// `~/.claude/settings.json` of the pinned home, parsed.
fn user_claude(env: &Env) -> serde_json::Value {
    let text = std::fs::read_to_string(env.home.join(".claude/settings.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn uninstall_user_keeps_an_allow_rule_the_user_wrote_before_init() {
    let env = Env::new();
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        "{\n  \"permissions\": {\n    \"allow\": [\"Bash(capn ask:*)\"]\n  }\n}\n",
    )
    .unwrap();
    env.run(&["init", "--user"]).ok();
    assert_eq!(
        user_claude(&env)["permissions"]["allow"],
        serde_json::json!(["Bash(capn ask:*)", "Bash(capn chart:*)"])
    );
    // The host changes the file after init (so it is not given back byte for byte).
    let mut v = user_claude(&env);
    v["model"] = "opus".into();
    std::fs::write(&settings, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let run = env.run(&["uninstall", "--user"]).ok();
    assert!(
        run.stdout
            .contains("removed the allow rule Bash(capn chart:*)"),
        "{}",
        run.stdout
    );
    let after = user_claude(&env);
    assert_eq!(
        after["permissions"]["allow"],
        serde_json::json!(["Bash(capn ask:*)"]),
        "the user's own rule stays"
    );
    assert_eq!(after["model"], "opus");
}

/// The host folders a user may have before `init`, empty.
const USER_FOLDERS: [&str; 6] = [
    ".github/hooks",
    ".codex",
    ".gemini",
    ".qwen",
    ".opencode/plugins",
    ".claude/skills",
];

#[test]
fn uninstall_keeps_the_folders_the_user_had_before_init() {
    let env = Env::new();
    for d in USER_FOLDERS {
        std::fs::create_dir_all(env.root.join(d)).unwrap();
    }
    let hosts = ["claude", "codex", "gemini", "qwen", "copilot", "opencode"];
    let mut args = vec!["init"];
    for h in &hosts {
        args.extend(["--host", h]);
    }
    env.run(&args).ok();
    assert!(env.root.join(".github/hooks/capn.json").is_file());
    assert!(env
        .root
        .join(".claude/skills/compact-prep/SKILL.md")
        .is_file());
    env.run(&["uninstall"]).ok();
    for d in USER_FOLDERS {
        assert!(env.root.join(d).is_dir(), "{d} was the user's and stays");
    }
    // What init made goes: the skill's folder, and the files.
    assert!(!env.root.join(".claude/skills/compact-prep").exists());
    assert!(!env.root.join(".github/hooks/capn.json").exists());
    assert!(!env.root.join(".codex/hooks.json").exists());
}

#[test]
fn uninstall_removes_the_folders_init_made_once_empty() {
    let env = Env::new();
    let mut args = vec!["init"];
    for h in ["claude", "codex", "gemini", "qwen", "copilot", "opencode"] {
        args.extend(["--host", h]);
    }
    env.run(&args).ok();
    env.run(&["uninstall"]).ok();
    for d in [
        ".github",
        ".codex",
        ".gemini",
        ".qwen",
        ".opencode",
        ".claude",
    ] {
        assert!(!env.root.join(d).exists(), "{d} was made by init");
    }
}

#[test]
fn uninstall_user_keeps_a_skills_folder_the_user_had() {
    let env = Env::new();
    std::fs::create_dir_all(env.home.join(".claude/skills")).unwrap();
    env.run(&["init", "--user"]).ok();
    assert!(env
        .home
        .join(".claude/skills/compact-prep/SKILL.md")
        .is_file());
    env.run(&["uninstall", "--user"]).ok();
    assert!(env.home.join(".claude/skills").is_dir());
    assert!(!env.home.join(".claude/skills/compact-prep").exists());
}

/// Writes the install record capn 0.3's `init` left in `env`'s project, signed as 0.3 signed it
/// (the project's path alone) with this user's key (made here when there is none).
pub(crate) fn forge_0_3_record(env: &Env) {
    use hmac::{Hmac, Mac};
    let key_path = env.state_dir().join("install.key");
    if !key_path.exists() {
        std::fs::create_dir_all(env.state_dir()).unwrap();
        std::fs::write(&key_path, [42u8; 32]).unwrap();
    }
    let key = std::fs::read(&key_path).unwrap();
    // The fields as capn serialises them, in order (those empty by default left out).
    let body = r#"{"version":1,"created_files":[],"handlers":[],"statuslines":[],"skill":false,"post_commit":null,"files":[],"replaced":[]}"#;
    let mut m = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    m.update(b"capn-hook install record\n");
    m.update(env.root.as_os_str().as_encoded_bytes());
    m.update(b"\n");
    m.update(body.as_bytes());
    let mac: String = m
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let record = format!("{},\"mac\":\"{mac}\"}}\n", body.trim_end_matches('}'));
    std::fs::create_dir_all(env.root.join(".capn")).unwrap();
    std::fs::write(env.root.join(".capn/install.json"), record).unwrap();
}

#[test]
fn init_keeps_a_capn_line_in_a_gitignore_capn_never_wrote() {
    // No install record: the line is the user's (or capn 0.2's), untracked or not.
    let env = repo(&[("src/a.rs", "fn a() {}\n")]);
    env.write(".gitignore", "target/\n.capn/\n");
    capn(&env, &env.root, &["init"]).ok();
    assert_eq!(env.read(".gitignore"), "target/\n.capn/\n");
    capn(&env, &env.root, &["uninstall"]).ok();
    assert_eq!(env.read(".gitignore"), "target/\n.capn/\n");
    // With the record capn 0.3 left, the line is capn's: taken back.
    let env = repo(&[("src/a.rs", "fn a() {}\n")]);
    env.write(".gitignore", "target/\n.capn/\n");
    forge_0_3_record(&env);
    let run = capn(&env, &env.root, &["init"]).ok();
    assert!(
        run.stdout.contains("took the .capn/ line capn 0.3 added"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(".gitignore"), "target/\n");
}

/// Gemini CLI reads `.gemini/settings.json` through strip-json-comments: a file with comments
/// is valid there, so init registers the hooks in it, keeping every comment, and uninstall
/// gives the bytes back.
#[test]
fn gemini_settings_with_comments_are_set_up_and_keep_their_comments() {
    let env = Env::new();
    let text = "// my Gemini settings\n{\n  /* the theme */\n  \"theme\": \"GitHub\", // dark later\n  \"vimMode\": true\n}\n";
    env.write(".gemini/settings.json", text);
    let run = env.run(&["init"]).ok();
    assert!(
        run.stdout
            .contains("registered the SessionStart hook in .gemini/settings.json"),
        "{}",
        run.stdout
    );
    assert!(
        env.root.join(".claude/settings.json").is_file(),
        "other hosts set up too"
    );
    let after = env.read(".gemini/settings.json");
    for kept in [
        "// my Gemini settings\n",
        "/* the theme */",
        "\"theme\": \"GitHub\", // dark later\n",
    ] {
        assert!(after.contains(kept), "{kept:?} lost:\n{after}");
    }
    let doctor = env.run(&["doctor"]);
    assert!(
        !doctor.stdout.contains("could not parse"),
        "{}",
        doctor.stdout
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".gemini/settings.json"), text);
}

/// The user's `/compact-prep` skill (from `capn init --user`) serves every project: a project
/// `init` then installs no copy of its own, and doctor, in a project without one (a linked
/// worktree, a teammate's clone), counts the user's.
#[test]
fn the_users_skill_serves_the_project() {
    let env = Env::new();
    env.run(&["init", "--user"]).ok();
    assert!(env
        .home
        .join(".claude/skills/compact-prep/SKILL.md")
        .is_file());
    let run = env.run(&["init"]).ok();
    assert!(
        !env.root.join(".claude/skills/compact-prep").exists(),
        "{}",
        run.stdout
    );
    let doctor = env.run(&["doctor"]);
    let skill: Vec<&str> = doctor
        .stdout
        .lines()
        .filter(|l| l.contains("/compact-prep skill"))
        .collect();
    assert_eq!(
        skill,
        ["ok    /compact-prep skill installed (~/.claude/skills/compact-prep/SKILL.md, yours)"],
        "{}",
        doctor.stdout
    );
}

/// A bare `capn` (a host ran a Claude Code registration without its `args`, as Copilot CLI
/// does with `~/.claude/settings.json` after `init --user`) prints nothing in a repository
/// without a store, as the `--user` hooks it stands for do; with a store it answers.
#[test]
fn a_bare_capn_is_silent_where_there_is_no_store() {
    let env = Env::git();
    let payload = serde_json::json!({"session_id": "bare-1", "hook_event_name": "SessionStart",
        "cwd": env.root, "transcript_path": null, "source": "new"});
    let bytes = serde_json::to_vec(&payload).unwrap();
    let run = env.run_stdin(&[], &bytes).ok();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    env.run(&["init"]).ok();
    let run = env.run_stdin(&[], &bytes).ok();
    assert!(run.stdout.contains("capn ask"), "{}", run.stdout);
}

/// The doctor line about the post-commit hook, if any.
fn post_commit_line(doctor: &crate::util::Run) -> Option<String> {
    doctor
        .stdout
        .lines()
        .find(|l| l.contains(".git/hooks/post-commit runs capn prune"))
        .map(str::to_string)
}

/// `doctor` (exit 1 asserted) fails its post-commit line, saying `why`.
#[track_caller]
fn post_commit_fails(doctor: crate::util::Run, why: &str) {
    let doctor = doctor.code(1);
    let line = post_commit_line(&doctor).unwrap_or_default();
    assert!(
        line.starts_with("FAILED") && line.contains(why),
        "{}",
        doctor.stdout
    );
}

/// After `init --git`, a post-commit hook that is gone, or a FIFO in its place, fails doctor
/// (promptly: the FIFO is never opened for a blocking read).
#[test]
fn doctor_fails_when_the_post_commit_hook_init_git_set_up_is_gone() {
    let env = Env::git();
    env.run(&["init", "--git"]).ok();
    let hook = env.root.join(".git/hooks/post-commit");
    let line = post_commit_line(&env.run(&["doctor"]));
    assert!(
        line.as_deref().is_some_and(|l| l.starts_with("ok")),
        "{line:?}"
    );
    std::fs::remove_file(&hook).unwrap();
    post_commit_fails(env.run(&["doctor"]), "is gone");
    #[cfg(unix)]
    {
        assert!(std::process::Command::new("mkfifo")
            .arg(&hook)
            .status()
            .unwrap()
            .success());
        post_commit_fails(env.run_within_5s(&["doctor"]), "FIFO");
    }
}

/// The `to commit:` line of `init`, if it printed one.
fn to_commit(run: &crate::util::Run) -> Option<String> {
    run.stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("to commit: "))
        .map(str::to_string)
}

/// `to commit:` names what init wrote (the Gemini CLI and Qwen Code settings too) and not a
/// `.gitignore` it left alone; after `init --user` a project init registers no hook, so it
/// warns about none.
#[test]
fn init_says_to_commit_exactly_what_it_wrote() {
    let env = Env::git();
    env.write(".gitignore", "node_modules\n");
    std::fs::create_dir_all(env.root.join(".gemini")).unwrap();
    std::fs::create_dir_all(env.root.join(".qwen")).unwrap();
    let run = env.run(&["init"]).ok();
    let line = to_commit(&run).unwrap_or_default();
    let files = line.split(" (").next().unwrap();
    assert_eq!(
        files,
        ".claude/settings.json, .codex/hooks.json, .gemini/settings.json, .qwen/settings.json, .claude/skills/compact-prep/",
        "{}",
        run.stdout
    );

    let env = Env::git();
    env.run(&["init", "--user"]).ok();
    let run = env.run(&["init"]).ok();
    assert!(
        !run.stdout.contains("failed capn hook"),
        "no hook was registered in the project: {}",
        run.stdout
    );
    assert_eq!(to_commit(&run), None, "{}", run.stdout);

    // Copilot CLI alone: Claude Code's local settings are not named (nothing of Claude's here).
    let env = Env::git();
    let run = env.run(&["init", "--host", "copilot"]).ok();
    let not = |run: &crate::util::Run| {
        run.stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("not to commit: "))
            .map(str::to_string)
    };
    assert_eq!(
        not(&run).as_deref(),
        Some(".capn/ (ignored; capn init --shared commits the charts instead)")
    );
    let run = env.run(&["init", "--host", "claude"]).ok();
    assert!(
        not(&run).is_some_and(|l| l.ends_with(", .claude/settings.local.json")),
        "{}",
        run.stdout
    );
}

/// `git worktree remove` leaves `.capn/worktrees/<name>/` (that worktree's derived files and
/// install record) behind: the next writer of the store removes it, and only it: a worktree
/// git still knows keeps its folder, and a symlink or a file in `.capn/worktrees/` is never
/// followed or removed.
#[test]
fn a_removed_worktrees_folder_in_the_store_goes_at_the_next_write() {
    let env = repo(&[("src/a.rs", "fn a() {}\n")]);
    let main = env.root.clone();
    capn(&env, &main, &["init"]).ok();
    let gone = env.tmp.path().join("gone");
    let kept = env.tmp.path().join("kept");
    for wt in [&gone, &kept] {
        git(
            &env,
            &main,
            &["worktree", "add", "-q", wt.to_str().unwrap()],
        );
        capn(&env, wt, &["chart", "where is a?", "--files", "src/a.rs"]).ok();
    }
    let state = main.join(".capn/worktrees");
    assert!(state.join("gone").is_dir() && state.join("kept").is_dir());
    // A decoy outside the store, linked from inside it, and a file of someone else's.
    let decoy = env.tmp.path().join("decoy");
    std::fs::create_dir_all(&decoy).unwrap();
    std::fs::write(decoy.join("keep.txt"), "mine").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&decoy, state.join("linked")).unwrap();
        // A link inside the folder that goes: the link goes, never what it points to.
        std::os::unix::fs::symlink(&decoy, state.join("gone/into-decoy")).unwrap();
    }
    std::fs::write(state.join("note.txt"), "mine").unwrap();
    git(&env, &main, &["worktree", "remove", gone.to_str().unwrap()]);
    capn(
        &env,
        &main,
        &["chart", "where is b?", "--files", "src/a.rs"],
    )
    .ok();
    assert!(
        !state.join("gone").exists(),
        "the removed worktree's folder goes"
    );
    assert!(
        state.join("kept").is_dir(),
        "a live worktree keeps its folder"
    );
    assert_eq!(
        std::fs::read_to_string(state.join("note.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(decoy.join("keep.txt")).unwrap(),
        "mine"
    );
    #[cfg(unix)]
    assert!(std::fs::symlink_metadata(state.join("linked")).is_ok());
}

/// A project whose committed `.gitignore` holds the user's own `.capn/` line.
const USERS_GITIGNORE: &str = "node_modules\n.capn/\n";

/// A repository with [`USERS_GITIGNORE`] committed, after `capn init --shared` (which takes the
/// line out: git could not take back a chart of an ignored folder).
fn shared_with_users_line() -> Env {
    let env = repo(&[("src/a.rs", "fn a() {}\n"), (".gitignore", USERS_GITIGNORE)]);
    let run = capn(&env, &env.root, &["init", "--shared"]).ok();
    assert!(
        run.stdout
            .contains("removed the .capn/ line from .gitignore"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(".gitignore"), "node_modules\n");
    env
}

/// How many lines `init --shared` says it took out of `.gitignore`, as the install record has it.
fn recorded_lines(env: &Env) -> usize {
    let rec: serde_json::Value = serde_json::from_str(&env.read(".capn/install.json")).unwrap();
    rec["gitignore"]["removed"]
        .as_array()
        .map_or(0, |lines| lines.len())
}

/// `git status --porcelain` in the project, without the host files init registers in.
fn status_but_hosts(env: &Env) -> String {
    git(env, &env.root, &["status", "--porcelain"])
        .lines()
        .filter(|l| !l.starts_with("?? .claude/") && !l.starts_with("?? .codex/"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn uninstall_after_init_shared_gives_the_users_gitignore_line_back() {
    for purge in [false, true] {
        let env = shared_with_users_line();
        // A second run takes nothing more and records the line once.
        capn(&env, &env.root, &["init", "--shared"]).ok();
        assert_eq!(recorded_lines(&env), 1);
        let mut args = vec!["uninstall"];
        if purge {
            args.push("--purge");
        }
        let run = capn(&env, &env.root, &args).ok();
        assert!(
            run.stdout.contains("put .gitignore back as it was before"),
            "{}",
            run.stdout
        );
        assert_eq!(env.read(".gitignore"), USERS_GITIGNORE, "purge: {purge}");
        assert_eq!(git(&env, &env.root, &["status", "--porcelain"]), "");
    }
}

#[test]
fn a_gitignore_changed_since_init_shared_gets_the_line_back_and_keeps_the_change() {
    // The line above it is still there: the line goes back right after it.
    let env = shared_with_users_line();
    env.write(".gitignore", "node_modules\ndist/\n");
    let run = capn(&env, &env.root, &["uninstall"]).ok();
    assert!(
        run.stdout.contains("put back in .gitignore") && run.stdout.contains(".capn/ after"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(".gitignore"), "node_modules\n.capn/\ndist/\n");
    // The line above it is gone: at the end, nothing else touched.
    let env = shared_with_users_line();
    env.write(".gitignore", "dist/");
    capn(&env, &env.root, &["uninstall"]).ok();
    assert_eq!(env.read(".gitignore"), "dist/\n.capn/\n");
    // The user put it back already, then ran init --shared again, which took it out again:
    // it comes back once.
    let env = shared_with_users_line();
    env.write(".gitignore", "node_modules\n/.capn\n");
    capn(&env, &env.root, &["init", "--shared"]).ok();
    assert_eq!(recorded_lines(&env), 1);
    capn(&env, &env.root, &["uninstall"]).ok();
    assert_eq!(env.read(".gitignore"), "node_modules\n/.capn\n");
}

#[test]
fn init_local_after_init_shared_gives_the_users_gitignore_line_back() {
    let env = shared_with_users_line();
    let run = capn(&env, &env.root, &["init", "--local"]).ok();
    assert!(
        run.stdout.contains("put .gitignore back as it was before"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(".gitignore"), USERS_GITIGNORE);
    assert_eq!(status_but_hosts(&env), "");
    // The record no longer holds the lines: uninstall puts nothing back twice.
    assert_eq!(recorded_lines(&env), 0);
    capn(&env, &env.root, &["uninstall"]).ok();
    assert_eq!(env.read(".gitignore"), USERS_GITIGNORE);
    assert_eq!(git(&env, &env.root, &["status", "--porcelain"]), "");
}

/// A planted install record (not signed with this user's key: it can come with the repository)
/// claiming init --shared took `!.env` and `.capn/` out of `.gitignore`: uninstall puts back
/// only the line that ignores the store, and a plain init (not going back to a local store)
/// puts back nothing.
#[test]
fn a_planted_record_puts_back_only_a_line_that_ignores_the_store() {
    use sha2::Digest;
    let env = repo(&[("src/a.rs", "fn a() {}\n"), (".gitignore", "dist/\n")]);
    let hash: String = sha2::Sha256::digest(b"dist/\n")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let planted = format!(
        r#"{{"version":1,"gitignore":{{"removed":[{{"line":"!.env\n","index":0,"after":null}},{{"line":".capn/\n!.env\n","index":1,"after":"dist/"}},{{"line":".capn/\n","index":1,"after":"dist/"}}],"after_sha256":"{hash}"}}}}"#
    );
    env.write(".capn/install.json", &planted);
    capn(&env, &env.root, &["init"]).ok();
    assert_eq!(
        env.read(".gitignore"),
        "dist/\n",
        "a plain init put lines back"
    );
    env.write(".capn/install.json", &planted);
    let run = capn(&env, &env.root, &["uninstall"]).ok();
    assert!(
        run.stdout.contains("ignored the install record"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(".gitignore"), "dist/\n.capn/\n");
}

/// A repository with a linked worktree `<tmp>/wt` on branch `side`: (env, main root, worktree).
fn main_and_worktree() -> (Env, std::path::PathBuf, std::path::PathBuf) {
    let env = repo(&[("src/a.rs", "fn a() {}\n")]);
    let main = env.root.clone();
    let wt = env.tmp.path().join("wt");
    git(
        &env,
        &main,
        &["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()],
    );
    (env, main, wt)
}

/// `uninstall --purge` in the main checkout deletes the store, and with it the install records
/// of the linked worktrees (`.capn/worktrees/<name>/install.json`): it uninstalls capn from
/// each such worktree first, so both checkouts' `git status` is as before `init`, and a later
/// `uninstall` in the worktree has nothing left to do.
#[test]
fn purge_in_the_main_checkout_uninstalls_the_worktrees_first() {
    let (env, main, wt) = main_and_worktree();
    let before = (
        git(&env, &main, &["status", "--porcelain"]),
        git(&env, &wt, &["status", "--porcelain"]),
    );
    capn(&env, &main, &["init"]).ok();
    capn(&env, &wt, &["init"]).ok();
    assert!(wt.join(".claude/settings.json").is_file());
    let run = capn(&env, &main, &["uninstall", "--purge"]).ok();
    let wt_name = wt.canonicalize().unwrap().display().to_string();
    assert!(
        run.stdout.contains(&format!(
            "uninstalled capn from the linked worktree {wt_name} first ("
        )),
        "{}",
        run.stdout
    );
    assert!(!main.join(".capn").exists());
    let after = (
        git(&env, &main, &["status", "--porcelain"]),
        git(&env, &wt, &["status", "--porcelain"]),
    );
    assert_eq!(after, before);
    assert!(!wt.join(".claude").exists() && !wt.join(".codex").exists());
}

/// `uninstall --purge` refuses before writing anything anywhere when the main checkout's
/// settings cannot be read (the worktree keeps its registrations and its record); when a
/// worktree's cannot, the main checkout is uninstalled, the store (with that worktree's record)
/// is kept, and the refusal says so.
#[test]
fn purge_refuses_before_touching_a_worktree_and_keeps_the_store_for_one_that_refuses() {
    let (env, main, wt) = main_and_worktree();
    capn(&env, &main, &["init"]).ok();
    capn(&env, &wt, &["init"]).ok();
    let wt_settings = std::fs::read(wt.join(".claude/settings.json")).unwrap();
    std::fs::write(main.join(".codex/hooks.json"), "{ broken").unwrap();
    let run = capn(&env, &main, &["uninstall", "--purge"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains(".codex/hooks.json"), "{}", run.stderr);
    assert_eq!(
        std::fs::read(wt.join(".claude/settings.json")).unwrap(),
        wt_settings
    );
    assert!(main.join(".capn").is_dir());
    // The main checkout's file mended, the worktree's broken: main goes, the store stays.
    std::fs::remove_file(main.join(".codex/hooks.json")).unwrap();
    std::fs::write(wt.join(".codex/hooks.json"), "{ broken").unwrap();
    let run = capn(&env, &main, &["uninstall", "--purge"]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("capn was uninstalled from this checkout, but .capn/ was kept for the worktree that refused"),
        "{}",
        run.stderr
    );
    assert!(main.join(".capn").is_dir());
    assert!(!main.join(".claude/settings.json").exists());
    // Mended there too: the same command finishes the job.
    std::fs::remove_file(wt.join(".codex/hooks.json")).unwrap();
    capn(&env, &main, &["uninstall", "--purge"]).ok();
    assert!(!main.join(".capn").exists());
    assert!(
        !wt.join(".claude").exists(),
        "{:?}",
        std::fs::read_dir(&wt).unwrap().count()
    );
}
