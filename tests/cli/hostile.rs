//! A hostile file system: a repository is untrusted input. Each case builds a temp project with
//! a decoy file outside it (never a system file or device) and asserts that the decoy's bytes
//! are unchanged, that every command returns within 5 s, and that nothing is lost.

#![cfg(unix)]

use crate::util::{Env, Run};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

const DECOY: &str = "decoy: the user's own file, never to be touched\n";

/// A project with one charted question and a decoy file outside the project.
fn charted() -> (Env, PathBuf) {
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
fn assert_decoy(decoy: &Path) {
    assert_eq!(
        fs::read_to_string(decoy).unwrap(),
        DECOY,
        "the decoy changed"
    );
}

fn ask(env: &Env) -> Run {
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
        run.stdout.trim().trim_start_matches("charted ").to_string()
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
        let (env, _decoy) = charted();
        let outside = env.tmp.path().join("elsewhere");
        let here = env.root.join(which);
        fs::rename(&here, &outside).unwrap();
        symlink(&outside, &here).unwrap();
        let before = listing(&outside);
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
                // init reads every one of these files before it writes anything.
                "init" => assert!(run.code == 1 && run.stderr.contains(&named), "{what}"),
                // doctor reports the host files and the skill it cannot read (.gitignore is
                // not one of its checks: it fails only because capn is not set up).
                "doctor" => {
                    assert_eq!(run.code, 1, "{what}");
                    assert!(rel == ".gitignore" || run.stdout.contains(&named), "{what}");
                }
                // uninstall has nothing to undo, but refuses a host file it cannot read.
                _ => assert!(
                    run.code == 0 && rel == ".gitignore"
                        || run.code == 1 && run.stderr.contains(&named),
                    "{what}"
                ),
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
    let (run, took) = env.run_bounded(
        env.cmd(&["ask", "Where are payments handled?"]),
        b"",
        false,
        Duration::from_secs(5),
    );
    let run = run.ok();
    assert!(took < Duration::from_secs(2), "took {took:?}");
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
fn malformed_path_keys_are_reported_and_never_deleted() {
    let (env, _decoy) = charted();
    let h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let g = "0000000000000000000000000000000000000000000000000000000000000000";
    let cases = [
        (
            "aaaaaaaa",
            format!("  src/pay.ts: {h}\n  src/pay.ts: {g}\n"),
            "duplicate",
        ),
        ("bbbbbbbb", format!("  sub\\c.txt: {h}\n"), "backslash"),
        ("cccccccc", format!("  /abs/x.ts: {h}\n"), "bad path key"),
        ("dddddddd", format!("  ../x.ts: {h}\n"), "bad path key"),
    ];
    for (id, files, why) in &cases {
        let text = format!(
            "---\ncapn: 1\nid: {id}\nat: 2026-01-01T00:00:00Z\nfiles:\n{files}---\n\n# Question {id}?\n"
        );
        env.write(&format!(".capn/entries/{id}.md"), &text);
        let _ = why;
    }
    let run = ask(&env).ok();
    env.run_within_5s(&["prune"]).ok();
    for (id, _, why) in &cases {
        let line = run
            .stderr
            .lines()
            .find(|l| l.contains(&format!("{id}.md")))
            .unwrap_or_else(|| panic!("{id} not reported: {}", run.stderr));
        assert!(
            line.contains(why) || *why == "backslash" && line.contains("bad path key"),
            "{line}"
        );
        assert!(
            env.root.join(format!(".capn/entries/{id}.md")).exists(),
            "{id} was deleted"
        );
    }
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
        env.run_bounded(c, b"", false, Duration::from_secs(5)).0
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
        run.stderr.contains("could not check src/pay.ts") && run.stderr.contains("hidden"),
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

/// A host that writes the payload with a UTF-8 BOM and keeps stdin open still gets the pending
/// recovery, promptly; the status line reads a BOM'd payload's numbers.
#[test]
fn a_bom_and_held_open_stdin_still_deliver_the_recovery() {
    let env = Env::git();
    let post = br#"{"session_id":"bom-1","hook_event_name":"PostCompact","trigger":"manual"}"#;
    env.run_stdin(&["hook", "post-compact"], post).ok();
    let mut prompt = b"\xef\xbb\xbf".to_vec();
    prompt.extend_from_slice(
        br#"{"session_id":"bom-1","hook_event_name":"UserPromptSubmit","prompt":"go on"}"#,
    );
    let (run, took) = env.run_bounded(
        env.cmd(&["hook", "user-prompt-submit"]),
        &prompt,
        true,
        Duration::from_secs(5),
    );
    assert!(took < Duration::from_secs(1), "took {took:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no recovery JSON ({e}): {:?} {}", run.stdout, run.stderr));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("compact"));
    let mut status = b"\xef\xbb\xbf".to_vec();
    status.extend_from_slice(br#"{"context_window":{"used_percentage":65}}"#);
    let (run, _) = env.run_bounded(
        env.cmd(&["statusline"]),
        &status,
        true,
        Duration::from_secs(1),
    );
    assert_eq!(run.stdout, "ctx 65% ███████░░░ /compact-prep\n");
}

/// A lone surrogate escape in the last transcript line must not make the status line fall back
/// to an older line (10% instead of 65%: the warning would be missed).
#[test]
fn a_lone_surrogate_in_the_transcript_keeps_its_numbers() {
    let env = Env::git();
    let t = env.tmp.path().join("t.jsonl");
    fs::write(
        &t,
        concat!(
            r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":20000,"output_tokens":0}}}"#,
            "\n",
            r#"{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":"cut \ud83d"}],"usage":{"input_tokens":130000,"output_tokens":0}}}"#,
            "\n"
        ),
    )
    .unwrap();
    let p = serde_json::json!({"transcript_path": t, "cwd": env.root});
    let run = env
        .run_stdin(&["statusline"], &serde_json::to_vec(&p).unwrap())
        .ok();
    assert_eq!(run.stdout, "ctx 65% ███████░░░ /compact-prep\n");
}

/// `statusline --wrap` with a command that never stops writing prints a bounded line, promptly.
#[test]
fn a_flooding_wrapped_status_line_is_cut() {
    let env = Env::git();
    let (run, took) = env.run_bounded(
        env.cmd(&["statusline", "--wrap", "yes"]),
        b"{}",
        false,
        Duration::from_secs(5),
    );
    assert_eq!(run.code, 0);
    assert!(run.stdout.len() <= 17 * 1024, "{} bytes", run.stdout.len());
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

/// An entry whose id line disagrees with its file name, or that has two id lines or two files
/// blocks, is malformed (reported, kept); so is a dangling symlink or a folder at an entry name.
#[test]
fn inconsistent_entries_and_odd_entry_files_are_reported() {
    let (env, decoy) = charted();
    let h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let body = |id: &str, extra: &str| {
        format!("---\ncapn: 1\nid: {id}\n{extra}at: 2026-01-01T00:00:00Z\nfiles:\n  src/pay.ts: {h}\n---\n\n# Q {id}?\n")
    };
    env.write(".capn/entries/a0000006.md", &body("ffffffff", ""));
    env.write(
        ".capn/entries/a0000007.md",
        &body("a0000007", "id: a0000007\n"),
    );
    env.write(
        ".capn/entries/a0000008.md",
        &body("a0000008", &format!("files:\n  src/pay.ts: {h}\n")),
    );
    symlink(
        env.tmp.path().join("nowhere"),
        env.root.join(".capn/entries/a0000009.md"),
    )
    .unwrap();
    fs::create_dir(env.root.join(".capn/entries/a000000a.md")).unwrap();
    let run = ask(&env).ok();
    for (id, why) in [
        ("a0000006", "file is named"),
        ("a0000007", "two id lines"),
        ("a0000008", "two files: blocks"),
        ("a0000009", "symlink"),
        ("a000000a", "directory"),
    ] {
        let line = run
            .stderr
            .lines()
            .find(|l| l.contains(&format!("{id}.md")))
            .unwrap_or_else(|| panic!("{id} not reported: {}", run.stderr));
        assert!(line.contains(why), "{line}");
        assert!(fs::symlink_metadata(env.root.join(format!(".capn/entries/{id}.md"))).is_ok());
    }
    assert_decoy(&decoy);
}

/// Reports of malformed entries are bounded and never carry raw control characters.
#[test]
fn malformed_reports_are_capped_and_escaped() {
    let (env, _decoy) = charted();
    for i in 0..30 {
        env.write(
            &format!(".capn/entries/{:08x}.md", 0xb000_0000u32 + i),
            "junk",
        );
    }
    env.write(
        ".capn/entries/b1000000.md",
        "---\n\u{1b}]0;PWNED\u{7}\n---\n",
    );
    let run = ask(&env).ok();
    assert!(!run.stderr.contains('\u{1b}'), "raw escape reached stderr");
    let reports = run
        .stderr
        .lines()
        .filter(|l| l.contains("malformed entr"))
        .count();
    assert_eq!(reports, 21, "{}", run.stderr);
    assert!(
        run.stderr.contains("skipped 11 more malformed entries"),
        "{}",
        run.stderr
    );
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

/// A 70 KB transcript_path (no real path is that long) does not cost the recovery its facts.
#[test]
fn an_absurd_transcript_path_does_not_spoil_the_markers() {
    let env = Env::git();
    let long = "/x".repeat(35_000);
    let pre = serde_json::json!({"session_id": "long-1", "hook_event_name": "PreCompact",
                                 "trigger": "auto", "transcript_path": long});
    env.run_stdin(&["hook", "pre-compact"], &serde_json::to_vec(&pre).unwrap())
        .ok();
    let marker = env.state_dir().join("sessions/long-1/precompact.json");
    let text = fs::read_to_string(&marker).unwrap();
    assert!(text.len() < 4096, "{} bytes", text.len());
    assert!(text.contains("\"trigger\":\"auto\""), "{text}");
}

/// A payload with a key given twice is still read (the last value wins, as hosts parse it).
#[test]
fn a_duplicate_key_in_the_payload_still_gets_the_contract() {
    let env = Env::git();
    let run = env
        .run_stdin(
            &["hook", "session-start"],
            br#"{"session_id":"d1","session_id":"d2","hook_event_name":"SessionStart","source":"startup"}"#,
        )
        .ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("capn ask"));
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

/// `stat.bin` is derived and may be damaged: a breaker flipped single bits in a cached hash
/// whose stamp still matched the file, and every chart backed by that file was deleted as
/// stale. Each byte of the cache is flipped in turn here; `ask` and `prune` must delete nothing,
/// since the file itself never changed.
#[test]
fn a_damaged_stat_cache_never_deletes_a_chart() {
    let env = Env::git();
    env.write("src/s.txt", "shared\n");
    // Out of the racy window, so the cache is trusted for this file.
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    fs::File::options()
        .write(true)
        .open(env.root.join("src/s.txt"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    env.run(&["init", "--no-embedding"]).ok();
    for i in 1..=3 {
        env.run(&[
            "chart",
            &format!("question {i} about widget{i}"),
            "--files",
            "src/s.txt",
        ])
        .ok();
    }
    env.run(&["ask", "question 1 about widget1"]).ok();
    let cache = env.root.join(".capn/stat.bin");
    let good = fs::read(&cache).unwrap();
    let entries = || {
        fs::read_dir(env.root.join(".capn/entries"))
            .unwrap()
            .count()
    };
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0xff;
        fs::write(&cache, &bad).unwrap();
        let run = env.run(&["ask", "question 2 about widget2"]);
        assert!(!run.stderr.contains("removed"), "byte {at}: {}", run.stderr);
        env.run(&["prune"]).ok();
        assert_eq!(entries(), 3, "byte {at} of stat.bin deleted charts");
    }
}

/// `index.bin` is derived and may be damaged: with two ids swapped in its id column (a second
/// breaker's find), `bust` deleted a chart whose file did not name the busted path. An entry
/// now goes only when its own file names the path; the right one still goes.
#[test]
fn bust_deletes_only_charts_whose_own_file_names_the_path() {
    let env = Env::git();
    for f in ["a.txt", "b.txt", "c.txt"] {
        env.write(f, f);
    }
    env.run(&["init", "--no-embedding"]).ok();
    let id = |f: &str| {
        env.run(&["chart", &format!("where is {f} used"), "--files", f])
            .ok()
            .stdout
            .trim()
            .trim_start_matches("charted ")
            .to_string()
    };
    let (a, b, c) = (id("a.txt"), id("b.txt"), id("c.txt"));
    // Swap the ids of the charts on c.txt and b.txt wherever the index holds them as ids (not
    // as the listing's `<id>.md` names).
    let path = env.root.join(".capn/index.bin");
    let mut bytes = fs::read(&path).unwrap();
    let mut swapped = 0;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let at = &bytes[i..i + 8];
        let other = if at == c.as_bytes() {
            Some(b.as_bytes())
        } else if at == b.as_bytes() {
            Some(c.as_bytes())
        } else {
            None
        };
        match other {
            Some(o) if !bytes[i + 8..].starts_with(b".md") => {
                let o = o.to_vec();
                bytes[i..i + 8].copy_from_slice(&o);
                swapped += 1;
                i += 8;
            }
            _ => i += 1,
        }
    }
    assert!(swapped >= 2, "ids not found in index.bin");
    fs::write(&path, &bytes).unwrap();
    let run = env.run(&["bust", "c.txt"]).ok();
    assert_eq!(run.stdout.trim(), "busted 1 entry");
    let left: Vec<String> = fs::read_dir(env.root.join(".capn/entries"))
        .unwrap()
        .map(|d| d.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.contains(&format!("{a}.md")), "{left:?}");
    assert!(
        left.contains(&format!("{b}.md")),
        "bust deleted the chart on b.txt: {left:?}"
    );
    assert!(!left.contains(&format!("{c}.md")), "{left:?}");
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
