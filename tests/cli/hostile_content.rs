//! Hostile content: host payloads and transcripts that are odd or huge, entry files and path
//! keys that are malformed, and derived files that are damaged. Each case runs in a temp project
//! and asserts that nothing is lost and every hook still answers.

#![cfg(unix)]

use crate::hostile::{ask, assert_decoy, charted};
use crate::util::{Env, HANG_GUARD};
use std::fs;
use std::os::unix::fs::symlink;
use std::time::Duration;

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
    // stdin stays open until the hook exits: it must end its read on the complete payload
    // (the tests lift the 2 s read limit, so waiting for the close would hit the hang guard).
    let (run, _) = env.run_bounded(
        env.cmd(&["hook", "user-prompt-submit"]),
        &prompt,
        true,
        HANG_GUARD,
    );
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no recovery JSON ({e}): {:?} {}", run.stdout, run.stderr));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("compact"));
    let mut status = b"\xef\xbb\xbf".to_vec();
    status.extend_from_slice(br#"{"context_window":{"used_percentage":65}}"#);
    let (run, _) = env.run_bounded(env.cmd(&["statusline"]), &status, true, HANG_GUARD);
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
    // `yes` never ends: a status line that waited for it would hit the hang guard.
    let (run, _) = env.run_bounded(
        env.cmd(&["statusline", "--wrap", "yes"]),
        b"{}",
        false,
        HANG_GUARD,
    );
    assert_eq!(run.code, 0);
    assert!(run.stdout.len() <= 17 * 1024, "{} bytes", run.stdout.len());
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
