//! A hostile file system: a repository is untrusted input. Each case builds a temp project with
//! a decoy file outside it (never a system file or device) and asserts that the decoy's bytes
//! are unchanged, that every command returns within 5 s, and that nothing is lost.
//! (Hostile content, from host payloads to damaged derived files: `hostile_content.rs`.)

#![cfg(unix)]

use crate::util::{Env, Run};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

const DECOY: &str = "decoy: the user's own file, never to be touched\n";

/// A project with one charted question and a decoy file outside the project.
pub(crate) fn charted() -> (Env, PathBuf) {
    let env = Env::git();
    env.write("src/pay.ts", "export function pay() {}\n");
    env.run(&["init", "--no-embedding"]).ok();
    env.run(&[
        "chart",
        "Where are payments handled?",
        "--files",
        "src/pay.ts",
    ])
    .ok();
    let decoy = env.tmp.path().join("decoy.txt");
    fs::write(&decoy, DECOY).unwrap();
    (env, decoy)
}

fn mkfifo(p: &Path) {
    let _ = fs::remove_file(p);
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", p.display());
}

#[track_caller]
pub(crate) fn assert_decoy(decoy: &Path) {
    assert_eq!(
        fs::read_to_string(decoy).unwrap(),
        DECOY,
        "the decoy changed"
    );
}

pub(crate) fn ask(env: &Env) -> Run {
    env.run_within_5s(&["ask", "Where are payments handled?"])
}

const DERIVED: [&str; 5] = [
    "index.bin",
    "vectors.bin",
    "texts.bin",
    "stat.bin",
    "map.json",
];

#[test]
fn symlinked_derived_files_are_replaced_never_written_through() {
    for name in DERIVED {
        let (env, decoy) = charted();
        let p = env.root.join(".capn").join(name);
        let _ = fs::remove_file(&p);
        symlink(&decoy, &p).unwrap();
        ask(&env).ok();
        env.run_within_5s(&["prune"]).ok();
        env.run_within_5s(&["chart", "Where is paying done?", "--files", "src/pay.ts"])
            .ok();
        assert_decoy(&decoy);
        if name == "texts.bin" {
            // Left by capn 0.3: writers delete it (the link itself; the decoy is untouched).
            assert!(
                fs::symlink_metadata(&p).is_err(),
                "texts.bin is still there"
            );
            continue;
        }
        // Rewritten files become regular files; ones not rewritten may stay links, unread.
        let meta = fs::symlink_metadata(&p).unwrap();
        assert!(
            meta.is_file() || name == "vectors.bin",
            "{name} is still a symlink after a rebuild"
        );
        ask(&env).ok();
    }
}

#[test]
fn a_symlinked_entry_is_reported_not_read_and_recharting_replaces_it() {
    let (env, decoy) = charted();
    // The decoy holds a valid entry for another question, so reading it would answer.
    let id = {
        let run = env
            .run(&["chart", "How is the tax computed?", "--files", "src/pay.ts"])
            .ok();
        // `charted <id>` and a note naming the other chart on the same file.
        run.stdout.split_whitespace().nth(1).unwrap().to_string()
    };
    let entry = env.root.join(format!(".capn/entries/{id}.md"));
    let text = fs::read_to_string(&entry).unwrap();
    fs::write(&decoy, &text).unwrap();
    fs::remove_file(&entry).unwrap();
    symlink(&decoy, &entry).unwrap();
    let run = env.run_within_5s(&["ask", "How is the tax computed?"]);
    assert_eq!(
        run.code, 1,
        "answered from a symlinked entry: {}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(".capn/entries/{id}.md")) && run.stderr.contains("symlink"),
        "{}",
        run.stderr
    );
    env.run_within_5s(&["chart", "How is the tax computed?", "--files", "src/pay.ts"])
        .ok();
    assert_eq!(fs::read_to_string(&decoy).unwrap(), text, "wrote through");
    assert!(fs::symlink_metadata(&entry).unwrap().is_file());
    env.run_within_5s(&["ask", "How is the tax computed?"]).ok();
}

#[test]
fn a_dangling_lock_symlink_creates_nothing_outside() {
    let (env, _decoy) = charted();
    let target = env.tmp.path().join("created-by-capn");
    let lock = env.root.join(".capn/lock");
    let _ = fs::remove_file(&lock);
    symlink(&target, &lock).unwrap();
    env.run_within_5s(&["chart", "Where is paying done?", "--files", "src/pay.ts"])
        .ok();
    ask(&env).ok();
    assert!(!target.exists(), "the lock symlink's target was created");
}

#[test]
fn a_symlinked_store_folder_is_refused() {
    for which in [".capn", ".capn/entries"] {
        let (env, outside, before) = charted_with_linked(which);
        let run = env.run_within_5s(&["chart", "Where is paying done?", "--files", "src/pay.ts"]);
        assert_ne!(run.code, 0);
        assert!(run.stderr.contains("symlink"), "{}", run.stderr);
        let run = ask(&env);
        assert_ne!(run.code, 0, "answered through a symlinked {which}");
        env.run_within_5s(&["prune"]);
        env.run_within_5s(&["list"]);
        env.run_within_5s(&["init"]);
        env.run_within_5s(&["uninstall"]);
        assert_eq!(listing(&outside), before, "wrote into {which}'s target");
    }
}

/// A charted project whose store folder `which` (`.capn` or `.capn/entries`) was moved to
/// `<tmp>/elsewhere` and replaced by a symlink to it: (env, that folder, its listing).
fn charted_with_linked(which: &str) -> (Env, PathBuf, Vec<(PathBuf, Vec<u8>)>) {
    let (env, _decoy) = charted();
    let outside = env.tmp.path().join("elsewhere");
    let here = env.root.join(which);
    fs::rename(&here, &outside).unwrap();
    symlink(&outside, &here).unwrap();
    let before = listing(&outside);
    (env, outside, before)
}

/// Every file under `dir` with its bytes.
fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fifos_in_the_store_never_block() {
    for name in DERIVED.iter().chain(&["config.json"]) {
        let (env, _decoy) = charted();
        mkfifo(&env.root.join(".capn").join(name));
        let run = ask(&env);
        if *name != "config.json" {
            run.ok();
        }
        env.run_within_5s(&["prune"]);
        env.run_within_5s(&["chart", "Where is paying done?", "--files", "src/pay.ts"]);
        env.run_within_5s(&["list"]);
    }
}

#[test]
fn a_fifo_config_is_reported_and_the_defaults_apply() {
    let (env, _decoy) = charted();
    mkfifo(&env.root.join(".capn/config.json"));
    let run = ask(&env).ok();
    assert!(
        run.stderr.contains("config.json") && run.stderr.contains("FIFO"),
        "{}",
        run.stderr
    );
}

/// A FIFO where init, doctor or uninstall reads a file: each returns promptly with a refusal
/// (exit 1, never a panic's 101) that names the file, and the FIFO is left as it was.
#[test]
fn fifos_at_host_files_never_block_init_uninstall_or_doctor() {
    use std::os::unix::fs::FileTypeExt;
    for rel in [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gitignore",
        ".claude/skills/compact-prep/SKILL.md",
    ] {
        let env = Env::git();
        let p = env.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        mkfifo(&p);
        let named = format!("{rel}: is a FIFO, not a regular file");
        for args in [&["init"][..], &["doctor"], &["uninstall"]] {
            let run = env.run_within_5s(args);
            let said = format!("{}{}", run.stdout, run.stderr);
            let what = format!("{rel} via {args:?}: exit {}\n{said}", run.code);
            assert!(!said.contains("panic"), "{what}");
            match args[0] {
                // init reads every one of these files before it writes anything (.gitignore
                // only where capn 0.3's install record says 0.3 added a line to it).
                "init" if rel == ".gitignore" => assert_eq!(run.code, 0, "{what}"),
                "init" => assert!(run.code == 1 && run.stderr.contains(&named), "{what}"),
                // Set up (init left the FIFO alone): doctor returned, without a panic.
                "doctor" if rel == ".gitignore" => {}
                // Before init, doctor says only what to run (reading no host file); init,
                // run as it says, names the FIFO.
                "doctor" => {
                    assert_eq!(run.code, 1, "{what}");
                    assert!(
                        run.stdout
                            .contains("capn is not set up here: run capn init"),
                        "{what}"
                    );
                }
                // uninstall has nothing to undo, but refuses a host file it cannot read, and
                // says that it changed nothing (the skill: read while planning).
                _ => {
                    assert!(
                        run.code == 0 && rel == ".gitignore"
                            || run.code == 1 && run.stderr.contains(&named),
                        "{what}"
                    );
                    if rel.ends_with("SKILL.md") {
                        assert!(
                            run.stderr.contains("; uninstall changed nothing ("),
                            "{what}"
                        );
                    }
                }
            }
        }
        let kind = fs::symlink_metadata(&p).unwrap().file_type();
        assert!(kind.is_fifo(), "{rel} was replaced");
    }
}

#[test]
fn a_backing_file_replaced_by_a_fifo_is_stale_and_never_blocks() {
    let (env, _decoy) = charted();
    mkfifo(&env.root.join("src/pay.ts"));
    let run = ask(&env);
    assert_eq!(run.code, 1, "{}", run.stdout);
    // Stale hides, never destroys: kept, marked changed.
    let listed = env.run(&["list", "--json"]).ok().jsonl();
    assert_eq!(listed.len(), 1, "the stale entry was deleted");
    assert_eq!(listed[0]["changed"], serde_json::json!(["src/pay.ts"]));
}

/// Swaps a backing file for a FIFO and back while `ask` and `chart` run: none may hang, and each
/// ends in an answer or a clear refusal (exit 0 or 1), never a panic. (Bounded: a fixed number
/// of rounds.)
#[test]
fn a_backing_file_swapped_for_a_fifo_mid_check_never_blocks() {
    let env = Env::git();
    env.run(&["init", "--no-embedding"]).ok();
    let file = env.write("src/a.ts", "a\n");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let file = file.clone();
        std::thread::spawn(move || {
            let fifo = file.with_extension("fifo");
            let plain = file.with_extension("plain");
            let mut n = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && n < 200_000 {
                let _ = fs::write(&plain, "a\n");
                let _ = fs::rename(&plain, &file);
                let _ = std::process::Command::new("mkfifo").arg(&fifo).status();
                let _ = fs::rename(&fifo, &file);
                n += 1;
            }
        })
    };
    /// Stops the swapper however the test ends (a failed run must not leave it spinning).
    struct Stop(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Stop {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    let guard = Stop(stop);
    let settled = |what: &str, run: Run| {
        assert!(
            matches!(run.code, 0 | 1)
                && !format!("{}{}", run.stdout, run.stderr).contains("panicked"),
            "{what}: exit {}\nstdout: {}\nstderr: {}",
            run.code,
            run.stdout,
            run.stderr
        );
    };
    for i in 0..40 {
        let question = format!("Question number {i}?");
        let chart = env.run_within_5s(&["chart", &question, "--files", "src/a.ts"]);
        settled("chart", chart);
        settled("ask", env.run_within_5s(&["ask", &question]));
    }
    drop(guard);
    swapper.join().unwrap();
}

#[test]
fn oversized_files_are_refused_quickly_and_named() {
    let (env, _decoy) = charted();
    let sparse = |p: &Path, len: u64| {
        let f = fs::File::create(p).unwrap();
        f.set_len(len).unwrap();
    };
    sparse(&env.root.join(".capn/config.json"), 2 << 30);
    for name in ["index.bin", "texts.bin", "stat.bin"] {
        sparse(&env.root.join(".capn").join(name), 2 << 30);
    }
    // Refused by their size before a byte is read (the message names the limit), so the run
    // only has to end: reading 2 GiB each would not make it fail on a slow machine, the
    // message would.
    let (run, _) = env.run_bounded(
        env.cmd(&["ask", "Where are payments handled?"]),
        b"",
        false,
        crate::util::HANG_GUARD,
    );
    let run = run.ok();
    assert!(
        run.stderr.contains("config.json") && run.stderr.contains("limit"),
        "{}",
        run.stderr
    );
    // A 1 GB entry file is reported and skipped, not read.
    sparse(&env.root.join(".capn/entries/0123456789abcdef.md"), 1 << 30);
    let run = env.run_within_5s(&["list"]).ok();
    assert!(
        run.stderr.contains("0123456789abcdef.md") && run.stderr.contains("limit"),
        "{}",
        run.stderr
    );
    ask(&env).ok();
}

#[test]
fn temp_files_of_dead_writers_are_removed_by_the_next_writer() {
    let (env, _decoy) = charted();
    // A pid above any kernel's pid_max: that writer is certainly gone.
    let dead = format!(".capn-tmp-{}-x1y2z3", 1u32 << 30);
    let a = env.write(&format!(".capn/{dead}"), "partial");
    let b = env.write(&format!(".capn/entries/{dead}"), "partial");
    env.run_within_5s(&["chart", "Where is paying done?", "--files", "src/pay.ts"])
        .ok();
    assert!(
        !a.exists() && !b.exists(),
        "temp files of a dead writer left"
    );
}

#[test]
fn a_symlinked_backing_file_leading_out_is_stale_and_the_target_never_read_as_an_answer() {
    let (env, decoy) = charted();
    fs::remove_file(env.root.join("src/pay.ts")).unwrap();
    symlink(&decoy, env.root.join("src/pay.ts")).unwrap();
    assert_eq!(ask(&env).code, 1);
    assert_decoy(&decoy);
    let run = env.run_within_5s(&["chart", "Decoy?", "--files", "src/pay.ts"]);
    assert_eq!(run.code, 1, "charted a file outside the project");
}

/// The permission case runs as an unprivileged user: root reads any file whatever its mode.
#[test]
fn an_unreadable_backing_file_hides_its_entry_but_never_deletes_it() {
    let Some(user) = unprivileged_runner() else {
        println!(
            "skipped: needs root, setpriv and the user nobody (65534) to run as a non-root user"
        );
        return;
    };
    let env = Env::git();
    env.write("src/pay.ts", "export function pay() {}\n");
    // The whole temp tree belongs to the unprivileged user for this test.
    let ok = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(env.tmp.path())
        .status()
        .unwrap()
        .success();
    assert!(ok);
    fs::set_permissions(
        env.tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let as_user = |args: &[&str]| {
        let mut c = env.cmd(args);
        let prog = c.get_program().to_owned();
        let mut wrapped = std::process::Command::new(&user[0]);
        wrapped.args(&user[1..]).arg(prog).args(args);
        wrapped.current_dir(&env.root);
        for (k, v) in c.get_envs() {
            match v {
                Some(v) => wrapped.env(k, v),
                None => wrapped.env_remove(k),
            };
        }
        c = wrapped;
        env.run_bounded(c, b"", false, crate::util::HANG_GUARD).0
    };
    as_user(&["init", "--no-embedding"]).ok();
    as_user(&[
        "chart",
        "Where are payments handled?",
        "--files",
        "src/pay.ts",
    ])
    .ok();
    let file = env.root.join("src/pay.ts");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&file, fs::Permissions::from_mode(0o000)).unwrap();
    let run = as_user(&["ask", "Where are payments handled?"]);
    assert_eq!(
        run.code, 1,
        "answered from an unreadable file: {}",
        run.stdout
    );
    assert!(
        run.stderr.contains("could not check \"src/pay.ts\"") && run.stderr.contains("hidden"),
        "{}",
        run.stderr
    );
    as_user(&["prune"]).ok();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    let run = as_user(&["ask", "Where are payments handled?"]).ok();
    assert!(run.stdout.contains("src/pay.ts"), "{}", run.stdout);
}

/// `setpriv` arguments that run a command as `nobody`, when this test runs as root and both
/// exist; `None` otherwise.
fn unprivileged_runner() -> Option<Vec<String>> {
    let uid = std::process::Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return None;
    }
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())?;
    let probe = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .status()
        .ok()?;
    probe.success().then(|| {
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
            .map(String::from)
            .to_vec()
    })
}

/// chart refuses an entry it could not read back (over the entry size limit): nothing written.
#[test]
fn chart_refuses_an_entry_over_the_size_limit() {
    let env = Env::git();
    env.run(&["init", "--no-embedding"]).ok();
    // 6,000 files with 150-character names: about 1.3 MB of file lines, over the 1 MiB limit.
    let names: Vec<String> = (0..6000)
        .map(|i| format!("d/{}{i:05}.ts", "n".repeat(140)))
        .collect();
    fs::create_dir_all(env.root.join("d")).unwrap();
    for n in &names {
        fs::write(env.root.join(n), "a").unwrap();
    }
    let mut args = vec!["chart".to_string(), "Where is a?".to_string()];
    for chunk in names.chunks(500) {
        args.push("--files".into());
        args.push(chunk.join(","));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = env.run_within_5s(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("limit"), "{}", run.stderr);
    assert_eq!(
        fs::read_dir(env.root.join(".capn/entries"))
            .unwrap()
            .count(),
        0
    );
}

/// A .capn that is a file is an error naming it, not an empty store; chart claims nothing.
#[test]
fn a_store_path_that_is_a_file_is_an_error() {
    let env = Env::git();
    env.write(".capn", "not a folder");
    env.write("a.ts", "a");
    let run = env.run_within_5s(&["ask", "Where is a?"]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains(".capn") && run.stderr.contains("not a folder"),
        "{}",
        run.stderr
    );
    let run = env.run_within_5s(&["chart", "Where is a?", "--files", "a.ts"]);
    assert_ne!(run.code, 0);
    assert!(!run.stderr.contains("created .capn"), "{}", run.stderr);
}

/// The status line never reads config through a symlinked .capn/.
#[test]
fn the_status_line_ignores_config_behind_a_symlinked_store() {
    let env = Env::git();
    let outside = env.tmp.path().join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("config.json"), r#"{"warn_at": 5}"#).unwrap();
    symlink(&outside, env.root.join(".capn")).unwrap();
    let p = serde_json::json!({"context_window": {"used_percentage": 10}, "cwd": env.root});
    let run = env
        .run_stdin(&["statusline"], &serde_json::to_vec(&p).unwrap())
        .ok();
    assert!(!run.stdout.contains("/compact-prep"), "{}", run.stdout);
}

/// A .capn/ that another user owns (planted in a shared folder above the project) does not
/// capture this user's charts. Needs root, to hand the folder to another user.
#[test]
fn a_store_owned_by_another_user_is_passed_over() {
    if unprivileged_runner().is_none() {
        println!("skipped: needs root and setpriv to create a folder owned by another user");
        return;
    }
    let env = Env::new();
    let planted = env.tmp.path().join(".capn");
    fs::create_dir_all(planted.join("entries")).unwrap();
    let ok = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&planted)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    env.write("a.ts", "a");
    let run = env
        .run_within_5s(&["chart", "Where is a?", "--files", "a.ts"])
        .ok();
    assert!(
        run.stderr.contains("belongs to another user"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_dir(planted.join("entries")).unwrap().count(), 0);
    assert!(env.root.join(".capn/entries").is_dir());
}

/// A committed `.claude/skills -> elsewhere` (or `.claude -> elsewhere`) never leads init or
/// uninstall to write or delete outside the project: both refuse before touching anything.
#[test]
fn symlinked_host_folders_lead_nothing_out_of_the_project() {
    let env = Env::git();
    let outside = env.tmp.path().join("elsewhere");
    fs::create_dir_all(outside.join("compact-prep")).unwrap();
    fs::write(outside.join("compact-prep/SKILL.md"), "theirs").unwrap();
    fs::create_dir_all(env.root.join(".claude")).unwrap();
    symlink(&outside, env.root.join(".claude/skills")).unwrap();
    let before = listing(&outside);
    let run = env.run_within_5s(&["init"]);
    assert_ne!(run.code, 0, "init went through a symlinked .claude/skills");
    assert!(run.stderr.contains("symlink"), "{}", run.stderr);
    assert!(
        !env.root.join(".capn").exists(),
        "init touched the project before refusing"
    );
    env.run_within_5s(&["uninstall"]);
    assert_eq!(listing(&outside), before);

    // Installed, then .claude swapped for a link to a copy elsewhere: uninstall refuses.
    let env = Env::git();
    env.run(&["init"]).ok();
    let copy = env.tmp.path().join("dotclaude");
    fs::rename(env.root.join(".claude"), &copy).unwrap();
    symlink(&copy, env.root.join(".claude")).unwrap();
    let before = listing(&copy);
    let run = env.run_within_5s(&["uninstall"]);
    assert_ne!(run.code, 0);
    assert_eq!(
        listing(&copy),
        before,
        "uninstall changed files behind a symlinked .claude"
    );
}

/// A chart whose file has grown past what capn hashes is hidden by `ask` and kept; `list` says
/// so (`[unchecked]`, and `"unchecked"` in JSON) instead of showing it as current.
#[test]
fn list_marks_a_chart_whose_file_cannot_be_checked() {
    let env = Env::git();
    env.write("big.bin", "small at first\n");
    env.run(&["chart", "Where is the big table?", "--files", "big.bin"])
        .ok();
    let f = fs::OpenOptions::new()
        .write(true)
        .open(env.root.join("big.bin"))
        .unwrap();
    f.set_len(300 << 20).unwrap();
    drop(f);
    let run = env.run_within_5s(&["list"]).ok();
    assert!(
        run.stdout.contains("[unchecked] Where is the big table?"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("could not be checked: \"big.bin\""),
        "{}",
        run.stdout
    );
    let json = env.run_within_5s(&["list", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["unchecked"], serde_json::json!(["big.bin"]));
    assert!(v.get("changed").is_none(), "{v}");
}

/// A store folder that is a symlink: the session and sub-agent contracts would send the agent to
/// commands that refuse to run, so both hooks inject the fixed "cannot be used" note instead,
/// on every host; doctor names the symlink, not a missing entries folder; the target is never
/// read or written.
#[test]
fn a_symlinked_store_folder_gets_the_refusal_note_not_the_contract() {
    const NOTE: &str = "capn (project memory) is installed but cannot be used in this repository: its store folder .capn (or .capn/entries) is a symlink or not a folder, and capn never reads or writes its store through one. capn ask and capn chart refuse to run until it is replaced with a real folder (capn doctor names the cause), so searches go on as usual.\n";
    for which in [".capn", ".capn/entries"] {
        let (env, outside, before) = charted_with_linked(which);
        let cwd = env.root.to_str().unwrap();
        for (sub, event, host) in [
            ("session-start", "SessionStart", "claude"),
            ("session-start", "SessionStart", "codex"),
            ("subagent-start", "SubagentStart", "claude"),
        ] {
            let payload = serde_json::json!({
                "session_id": "s1", "hook_event_name": event, "source": "startup",
                "agent_id": "a1", "agent_type": "Explore", "cwd": cwd,
                "transcript_path": env.tmp.path().join("t.jsonl"),
            });
            let run = env.run_stdin(
                &["hook", "--host", host, sub],
                payload.to_string().as_bytes(),
            );
            assert_eq!(run.code, 0, "{which} {sub} {host}: {}", run.stderr);
            let expected = serde_json::json!({"hookSpecificOutput": {
                "hookEventName": event, "additionalContext": NOTE}});
            assert_eq!(
                run.stdout.trim_end(),
                expected.to_string(),
                "{which} {sub} {host}"
            );
        }
        let run = env.run_within_5s(&["doctor"]);
        let line = format!("FAILED store .capn/: refusing to use {which}: it is a symlink");
        assert!(run.stdout.contains(&line), "{which}: {}", run.stdout);
        assert!(!run.stdout.contains("is missing"), "{}", run.stdout);
        assert_eq!(listing(&outside), before, "wrote into {which}'s target");
    }
}
