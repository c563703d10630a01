//! Budgets on inputs a real session can produce: the Stop hook on hostile transcripts (a vast hit
//! list, millions of short lines, a turn longer than the tail it reads, a prompt with a lone
//! surrogate escape), `list` and `prune` over a large changed file, and the first prompt of a
//! session among many kept session dirs. The checks are on behaviour: the right output, and
//! where a cost is the point, counted CPU time (never wall time) or a memory limit.
// The CPU-time tests read /proc: elsewhere their helpers and imports go unused.
#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

use crate::nudge::{expected_block, project, save, stop, Transcript, PROMPT, SID};
use crate::util::*;
use serde_json::json;
use std::path::Path;

/// The CPU time (user and system, in seconds) of `capn <args>` run by a shell in `dir` with
/// `stdin`, read from the shell's children times (`/proc/<sh>/stat` fields 16 and 17, in ticks
/// of 1/100 s): CPU, not wall time, so a busy test machine does not change it. Also returns
/// what capn printed on stdout.
#[cfg(target_os = "linux")]
fn cpu_seconds(env: &Env, dir: &Path, args: &str, stdin: &[u8]) -> (f64, String) {
    let bin = env!("CARGO_BIN_EXE_capn");
    let out = env.tmp.path().join("cpu-run.out");
    let mut c = env.sh(&format!(
        "'{bin}' {args} >'{}' 2>/dev/null; cat /proc/$$/stat",
        out.display()
    ));
    c.current_dir(dir);
    let run = env.run_cmd(c, stdin);
    let stat = run.stdout.trim();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f[13].parse::<f64>().unwrap() + f[14].parse::<f64>().unwrap();
    (ticks / 100.0, std::fs::read_to_string(out).unwrap())
}

#[cfg(target_os = "linux")]
fn stop_payload(env: &Env, transcript: &Path, active: bool) -> Vec<u8> {
    hook_payload(
        "Stop",
        SID,
        &env.root,
        json!({"transcript_path": transcript, "stop_hook_active": active}),
    )
}

/// One `capn ask` output line naming 40,000 files, then 3,000 reads of other files: every read
/// used to be compared with every listed file (1.2e8 comparisons; seconds of CPU even in a
/// release build). The turn did not use the answer (none of its files was read): it is nudged,
/// and the comparisons no longer multiply.
#[cfg(target_os = "linux")]
#[test]
fn a_vast_hit_list_and_many_reads_are_not_compared_pairwise() {
    let env = project();
    let files: Vec<String> = (0..40_000).map(|i| format!("h{i}")).collect();
    let mut t = Transcript::new();
    t.prompt(PROMPT).asked(json!(files));
    assert!(
        t.lines.last().unwrap().len() < 1 << 20,
        "parsed, not skipped"
    );
    for i in 0..3_000 {
        let path = env.root.join(format!("src/r{i}.ts"));
        t.tool("Read", json!({"file_path": path}), "1\tcode");
    }
    let path = save(&env, &t);
    let (cpu, out) = cpu_seconds(
        &env,
        &env.root,
        "hook stop",
        &stop_payload(&env, &path, false),
    );
    assert!(out.starts_with("{\"decision\":\"block\""), "{out}");
    assert!(out.contains("0 searches, 512 files read"), "{out}");
    // Generous for a debug build on a loaded machine: the pairwise comparisons took over 10 s.
    assert!(cpu < 4.0, "the Stop hook took {cpu} s of CPU");
}

/// A reply that read a hit's file still counts as using the answer, whatever the hit list's size
/// (the comparison by file name must not lose a match).
#[test]
fn a_read_of_a_listed_file_still_uses_the_answer() {
    let env = project();
    let mut files: Vec<String> = (0..2_000).map(|i| format!("lib/h{i}.ts")).collect();
    files.push("src/a.ts".into());
    let mut t = Transcript::new();
    t.prompt(PROMPT).asked(json!(files));
    t.tool("Read", json!({"file_path": env.root.join("src/a.ts")}), "1");
    for p in ["a", "b", "c", "d"] {
        t.tool("Grep", json!({"pattern": p}), "x");
    }
    assert_eq!(stop(&env, &save(&env, &t), false).stdout, "");
}

/// A prompt followed by 9 million lines of `1` (18 MB): the tail read is 16 MiB of one-byte
/// lines, whose per-line index used to cost 16 bytes a line (over 150 MiB). Run under a 100 MiB
/// address-space limit (what a release build needs here is about 20 MiB; a debug build a little
/// more), the hook completes and prints nothing (a turn of no tool call is cheap).
#[cfg(target_os = "linux")]
#[test]
fn millions_of_short_lines_fit_in_a_small_memory() {
    let env = project();
    let mut text = Transcript::new();
    text.prompt(PROMPT);
    let mut body = text.text().into_bytes();
    body.extend(b"1\n".repeat(9_000_000));
    let path = env.tmp.path().join("transcript.jsonl");
    std::fs::write(&path, body).unwrap();
    let bin = env!("CARGO_BIN_EXE_capn");
    let mut c = env.sh(&format!("ulimit -v {}; exec '{bin}' hook stop", 100 << 10));
    c.current_dir(&env.root);
    let run = env.run_cmd(c, &stop_payload(&env, &path, false));
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
}

/// A turn longer than the tail the hook reads (16 MiB): once it was nudged, its later stops
/// (the host sending `stop_hook_active: false` again, the file grown) are the same turn, whether
/// its prompt was in the tail when it was nudged or not; the next prompt starts a new one.
#[test]
fn a_turn_longer_than_the_tail_is_nudged_once() {
    let env = project();
    let big = "x".repeat(1 << 20);
    let mut t = Transcript::new();
    t.exploring(&env.root);
    assert_eq!(stop(&env, &save(&env, &t), false).stdout, expected_block());
    // The turn goes on past the window, searching again: its prompt is out of sight now.
    for _ in 0..17 {
        t.tool("Bash", json!({"command": "cat big.log"}), &big);
    }
    for p in ["a", "b", "c", "d"] {
        t.tool("Grep", json!({"pattern": p}), "x");
    }
    assert_eq!(stop(&env, &save(&env, &t), false).stdout, "");
    // And on again: the first line of the tail moved, the turn did not.
    for _ in 0..3 {
        t.tool("Bash", json!({"command": "cat big.log"}), &big);
    }
    for p in ["e", "f", "g", "h"] {
        t.tool("Grep", json!({"pattern": p}), "x");
    }
    assert_eq!(stop(&env, &save(&env, &t), false).stdout, "");
    // A new prompt starts a new turn, nudged on its own.
    t.exploring(&env.root);
    assert_eq!(stop(&env, &save(&env, &t), false).stdout, expected_block());
}

/// A turn first seen without its prompt (beyond the tail) is nudged once too.
#[test]
fn a_turn_nudged_without_its_prompt_in_sight_is_nudged_once() {
    let env = project();
    let big = "x".repeat(1 << 20);
    let mut t = Transcript::new();
    t.prompt(PROMPT);
    for _ in 0..17 {
        t.tool("Bash", json!({"command": "cat big.log"}), &big);
    }
    for p in ["a", "b", "c", "d"] {
        t.tool("Grep", json!({"pattern": p}), "x");
    }
    let out = stop(&env, &save(&env, &t), false).stdout;
    assert!(out.starts_with("{\"decision\":\"block\""), "{out}");
    for _ in 0..2 {
        t.tool("Bash", json!({"command": "cat big.log"}), &big);
    }
    for p in ["e", "f", "g", "h"] {
        t.tool("Grep", json!({"pattern": p}), "x");
    }
    assert_eq!(stop(&env, &save(&env, &t), false).stdout, "");
}

/// A prompt line with a lone surrogate escape (`\ud83d`, as Node's `JSON.stringify` writes half
/// an emoji cut off) is still a prompt: the turn it starts is cheap, so the exploring turn before
/// it is not nudged in its place; and an exploring turn it starts is nudged with its own prompt.
#[test]
fn a_prompt_with_a_lone_surrogate_starts_a_turn() {
    let env = project();
    let line = r#"{"type":"user","isSidechain":false,"uuid":"u9999","message":{"role":"user","content":"thanks \ud83d"}}"#;
    let mut t = Transcript::new();
    t.exploring(&env.root);
    t.lines.push(line.to_string());
    assert_eq!(stop(&env, &save(&env, &t), false).stdout, "");
    let mut t = Transcript::new();
    t.lines
        .push(line.replace("thanks", "where is the retry loop"));
    for p in ["retry", "backoff", "attempts"] {
        t.tool("Grep", json!({"pattern": p}), "src/a.ts:3: x");
    }
    t.tool("Read", json!({"file_path": env.root.join("src/a.ts")}), "1");
    let out = stop(&env, &save(&env, &t), false).stdout;
    assert!(out.starts_with("{\"decision\":\"block\""), "{out}");
    assert!(out.contains("where is the retry loop \u{fffd}"), "{out}");
    assert!(!out.contains(PROMPT), "{out}");
}

/// 40 charts over one 8 MB file that then changed: `list` and `prune` hash it once per run, not
/// once per chart (320 MB of SHA-256 before: many seconds of CPU in a debug build).
#[cfg(target_os = "linux")]
#[test]
fn list_and_prune_hash_a_changed_file_once_per_run() {
    let env = Env::git();
    let big: String = (0..8 << 17)
        .map(|i| format!("{:07}\n", i % 10_000_000))
        .collect();
    env.write("big.txt", &big);
    for i in 0..40 {
        env.run(&[
            "chart",
            &format!("where is record {i} kept"),
            "--files",
            "big.txt",
        ])
        .ok();
    }
    env.write("big.txt", &format!("{big}changed\n"));
    let (cpu, out) = cpu_seconds(&env, &env.root, "list", b"");
    assert_eq!(out.matches("[stale]").count(), 40, "{out}");
    assert!(cpu < 3.0, "list took {cpu} s of CPU");
    let (cpu, out) = cpu_seconds(&env, &env.root, "prune", b"");
    assert!(out.starts_with("pruned 40 stale entries\n"), "{out}");
    assert!(cpu < 3.0, "prune took {cpu} s of CPU");
}

/// The first prompt of a session no SessionStart ran for looks for a compacted conversation to
/// continue among the sessions that compacted lately, not in every session dir kept (they are
/// kept for 14 days: tens of thousands). Compaction markers copied into other session dirs by
/// hand (never listed by a PostCompact) are not even opened: the one real compaction is taken
/// over, where four candidates would have left it alone.
#[test]
fn a_first_prompt_reads_only_the_sessions_that_compacted() {
    let env = Env::git();
    let root = env.root.clone();
    let event = |name: &str, sid: &str, extra: serde_json::Value| {
        env.run_stdin(
            &["hook", hook_subcommand(name).unwrap(), "--host", "claude"],
            &hook_payload(name, sid, &root, extra),
        )
        .ok()
    };
    event("SessionStart", "old-a", json!({"source": "startup"}));
    event("PostCompact", "old-a", json!({"trigger": "auto"}));
    let marker = env.session_dir("old-a").join("compacted.json");
    for i in 0..3 {
        let dir = env.session_dir(&format!("kept-{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&marker, dir.join("compacted.json")).unwrap();
    }
    let run = event(
        "UserPromptSubmit",
        "new-c",
        json!({"prompt": "go on",
               "transcript_path": "/home/user/.claude/projects/p/old-a.jsonl"}),
    );
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.contains("old-a"), "{text}");
    assert!(!marker.exists(), "claimed once");
}
