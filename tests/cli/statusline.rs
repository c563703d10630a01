//! `capn statusline`: one line, exit 0, context use from `context_window` or the transcript,
//! the chart count, the warning marker and `--wrap`.

use crate::util::{Env, Run};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conformance")
}

fn status(env: &Env, args: &[&str], payload: &Value) -> Run {
    let mut a = vec!["statusline"];
    a.extend_from_slice(args);
    env.run_stdin(&a, &serde_json::to_vec(payload).unwrap())
        .ok()
}

#[track_caller]
fn one_line(run: &Run) -> &str {
    assert!(run.stdout.ends_with('\n'), "{:?}", run.stdout);
    assert_eq!(run.stdout.lines().count(), 1, "{:?}", run.stdout);
    run.stdout.trim_end()
}

fn warn_marker(env: &Env, sid: &str) -> PathBuf {
    env.state_dir()
        .join("sessions")
        .join(sid)
        .join("context-warn.json")
}

#[test]
fn every_conformance_payload_prints_one_line() {
    let env = Env::git();
    let expect = [
        ("1.json", "Opus · ctx --"),
        ("2.json", "claude-opus-4-5-20251101 · ctx --"),
        ("3.json", "Opus · ctx --"),
        ("4.json", "Opus · ctx 42% ████░░░░░░"),
        ("5.json", "Opus · ctx 8% █░░░░░░░░░"),
        ("6.json", "Opus 4.6 (1M context) · ctx 8% █░░░░░░░░░"),
        ("7.json", "Opus 4.7 (1M context) · ctx --"),
        ("8.json", "Opus 4.7 (1M context) · ctx 12% █░░░░░░░░░"),
        ("10.json", "ctx --"),
    ];
    for (file, line) in expect {
        let bytes = std::fs::read(fixtures().join("payloads/statusline").join(file)).unwrap();
        let run = env.run_stdin(&["statusline"], &bytes).ok();
        assert_eq!(one_line(&run), line, "{file}");
    }
    // Nothing was warned: no payload is past 60%.
    assert!(!env.state_dir().join("sessions").exists());
}

#[test]
fn transcript_fallback_reads_the_last_usage_after_the_last_boundary() {
    let env = Env::git();
    let t2 = fixtures().join("transcripts/2.jsonl");
    let t1 = fixtures().join("transcripts/1.jsonl");
    // 1 + 39727 + 874 = 40602 of 200,000 = 20.3%.
    let p = json!({"model": {"id": "claude-opus-4-6"}, "transcript_path": t2, "cwd": env.root});
    assert_eq!(
        one_line(&status(&env, &[], &p)),
        "claude-opus-4-6 · ctx 20% ██░░░░░░░░"
    );
    // The same over a 1M window ([1m] suffix).
    let p = json!({"model": {"id": "claude-opus-4-6[1m]"}, "transcript_path": t2, "cwd": env.root,
                   "context_window": {"current_usage": null, "used_percentage": null}});
    assert_eq!(
        one_line(&status(&env, &[], &p)),
        "claude-opus-4-6[1m] · ctx 4% ░░░░░░░░░░"
    );
    // A window size reported without usage numbers is used for the fallback.
    let p = json!({"transcript_path": t2, "cwd": env.root,
                   "context_window": {"context_window_size": 100000}});
    assert_eq!(one_line(&status(&env, &[], &p)), "ctx 40% ████░░░░░░");
    // 1.jsonl ends with a compaction and no usage after it: unknown, not the old usage.
    let p = json!({"transcript_path": t1, "cwd": env.root, "session_id": "t1"});
    assert_eq!(one_line(&status(&env, &["--warn-at", "1"], &p)), "ctx --");
    assert!(
        !env.state_dir().join("sessions/t1").exists(),
        "unknown never writes"
    );
}

#[test]
fn unknown_use_never_writes_or_clears_a_marker() {
    let env = Env::git();
    let p = json!({"session_id": "u", "cwd": env.root,
                   "context_window": {"used_percentage": 90, "context_window_size": 200000}});
    status(&env, &[], &p);
    assert!(warn_marker(&env, "u").exists());
    let unknown = json!({"session_id": "u", "cwd": env.root, "transcript_path": "/nonexistent/t.jsonl",
                         "context_window": {"used_percentage": null, "current_usage": null}});
    assert_eq!(
        one_line(&status(&env, &["--warn-at", "1"], &unknown)),
        "ctx --"
    );
    assert!(warn_marker(&env, "u").exists());
    assert!(warn_marker(&env, "u")
        .with_file_name("context-warned.json")
        .exists());
}

#[test]
fn threshold_comes_from_flag_then_config_then_60() {
    let env = Env::git();
    let p = |sid: &str, pct: f64| {
        json!({"session_id": sid, "cwd": env.root,
               "context_window": {"used_percentage": pct, "context_window_size": 200000}})
    };
    status(&env, &[], &p("d59", 59.0));
    assert!(!warn_marker(&env, "d59").exists());
    status(&env, &[], &p("d60", 60.0));
    assert!(warn_marker(&env, "d60").exists());
    env.write(
        ".capn/config.json",
        r#"{"warn_at": 40, "embedding": false}"#,
    );
    let line = status(&env, &[], &p("c45", 45.0));
    assert!(
        one_line(&line).ends_with(" /compact-prep · 0 charts"),
        "{}",
        line.stdout
    );
    assert!(warn_marker(&env, "c45").exists());
    status(&env, &["--warn-at", "50"], &p("f45", 45.0));
    assert!(
        !warn_marker(&env, "f45").exists(),
        "the flag wins over the config"
    );
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(warn_marker(&env, "c45")).unwrap()).unwrap();
    assert_eq!(m["percent"], 45.0);
    assert_eq!(m["threshold"], 40);
    assert_eq!(m["event"], "statusline");
}

#[test]
fn chart_count_is_the_number_of_entries() {
    let env = Env::git();
    let p = json!({"workspace": {"project_dir": env.root, "current_dir": env.root.join("sub")}});
    assert_eq!(
        one_line(&status(&env, &[], &p)),
        "ctx --",
        "no store, no count"
    );
    std::fs::create_dir_all(env.root.join(".capn/entries")).unwrap();
    assert_eq!(one_line(&status(&env, &[], &p)), "ctx -- · 0 charts");
    env.write(".capn/entries/9f3a1c2e.md", "x");
    assert_eq!(one_line(&status(&env, &[], &p)), "ctx -- · 1 chart");
    env.write(".capn/entries/0a1b2c3d.md", "x");
    env.write(".capn/entries/notes.txt", "x");
    env.write(".capn/entries/.capn-tmp-x.md", "x");
    assert_eq!(one_line(&status(&env, &[], &p)), "ctx -- · 2 charts");
    // From a subdirectory (cwd only), the store is found by walking up.
    std::fs::create_dir_all(env.root.join("sub/deeper")).unwrap();
    let p = json!({"cwd": env.root.join("sub/deeper")});
    assert_eq!(one_line(&status(&env, &[], &p)), "ctx -- · 2 charts");
    // With no payload at all, the process's working directory is used.
    let run = env
        .run_cmd(env.cmd_in(&env.root.join("sub"), &["statusline"]), b"")
        .ok();
    assert_eq!(one_line(&run), "ctx -- · 2 charts");
}

#[test]
fn wrap_appends_our_segment_to_the_users_statusline() {
    let env = Env::git();
    let p = json!({"model": {"display_name": "Opus"}, "cwd": env.root,
                   "context_window": {"used_percentage": 10}});
    // The wrapped command sees the same stdin.
    let run = status(
        &env,
        &[
            "--wrap",
            r#"sed -n 's/.*"display_name":"\([^"]*\)".*/user:\1/p'"#,
        ],
        &p,
    );
    assert_eq!(one_line(&run), "user:Opus │ Opus · ctx 10% █░░░░░░░░░");
    let run = status(&env, &["--wrap", "printf 'a\\nb\\n\\n'"], &p);
    assert_eq!(run.stdout, "a\nb │ Opus · ctx 10% █░░░░░░░░░\n");
    // A failing or silent command leaves just our segment.
    for cmd in ["exit 3", "true", "definitely-not-a-command-capn"] {
        let run = status(&env, &["--wrap", cmd], &p);
        assert_eq!(one_line(&run), "Opus · ctx 10% █░░░░░░░░░", "{cmd}");
    }
}

#[test]
fn wrap_is_bounded_by_a_short_timeout() {
    let env = Env::git();
    let p = json!({"cwd": env.root});
    // The wrapped command would run for 10 min: a status line that waited for it to end would
    // hit the hang guard; one cut at the timeout prints what came before it.
    let mut c = env.cmd(&["statusline", "--wrap", "echo early; sleep 600; echo late"]);
    c.current_dir(&env.root);
    let input = serde_json::to_vec(&p).unwrap();
    let run = env
        .run_bounded(c, &input, false, crate::util::HANG_GUARD)
        .0
        .ok();
    assert_eq!(one_line(&run), "early │ ctx --");
    assert!(run.stderr.contains("did not finish"), "{}", run.stderr);
}

#[test]
fn empty_and_garbage_stdin_still_print_a_line() {
    let env = Env::git();
    for bytes in [
        &b""[..],
        b"nope",
        b"[]",
        b"{\"model\":5,\"context_window\":\"x\"}",
    ] {
        let run = env.run_stdin(&["statusline"], bytes).ok();
        assert_eq!(one_line(&run), "ctx --");
    }
}

/// Bogus host numbers never print a 19-digit percentage: `used_percentage: 1e308` and a
/// one-token window are shown as `>999%`.
#[test]
fn bogus_use_is_shown_clamped() {
    let env = Env::git();
    for cw in [
        json!({"used_percentage": 1e308}),
        json!({"context_window_size": 1, "current_usage": {"input_tokens": 150000}}),
    ] {
        let run = env
            .run_stdin(
                &["statusline"],
                json!({"cwd": env.root, "context_window": cw})
                    .to_string()
                    .as_bytes(),
            )
            .ok();
        let line = one_line(&run);
        assert!(line.starts_with("ctx >999% ██████████"), "{line}");
    }
}

/// The host's own figure wins: `used_percentage` 0 right after a compaction is 0%, even beside
/// the stale `current_usage` and transcript of before it; `null` (at startup) falls back to
/// `current_usage`, then to the transcript.
#[test]
fn used_percentage_zero_after_a_compaction_is_the_figure_and_null_falls_back() {
    let env = Env::git();
    let t2 = fixtures().join("transcripts/2.jsonl");
    let p = json!({"transcript_path": t2, "cwd": env.root, "session_id": "z",
                   "context_window": {"used_percentage": 0, "context_window_size": 200000,
                                      "current_usage": {"input_tokens": 150000}}});
    assert_eq!(
        one_line(&status(&env, &["--warn-at", "1"], &p)),
        "ctx 0% ░░░░░░░░░░"
    );
    assert!(!warn_marker(&env, "z").exists());
    let p = json!({"transcript_path": t2, "cwd": env.root,
                   "context_window": {"used_percentage": null, "context_window_size": 200000,
                                      "current_usage": {"input_tokens": 100000}}});
    assert_eq!(one_line(&status(&env, &[], &p)), "ctx 50% █████░░░░░");
    let p = json!({"transcript_path": t2, "cwd": env.root,
                   "context_window": {"used_percentage": null, "current_usage": null}});
    assert_eq!(one_line(&status(&env, &[], &p)), "ctx 20% ██░░░░░░░░");
}
