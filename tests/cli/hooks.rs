//! `capn hook <event>`: conformance payloads, hostile input and the never-exit-non-zero rule
//! (hooks reference, section 7); the marker state machine is in `hooks_markers.rs`.

use crate::schema;
use crate::util::{hook_payload, hook_subcommand, hook_subcommands, Env, Run};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conformance")
}

fn hook(env: &Env, event: &str, host: &str, payload: &[u8]) -> Run {
    env.run_stdin(&["hook", event, "--host", host], payload)
}

/// A payload for `event` in session `sid`, plus `extra` fields.
pub(crate) fn payload(event: &str, sid: &str, extra: Value) -> Vec<u8> {
    hook_payload(event, sid, Path::new("/home/user/project"), extra)
}

pub(crate) fn run_event(env: &Env, event: &str, sid: &str, extra: Value) -> Run {
    hook(
        env,
        hook_subcommand(event).unwrap(),
        "claude",
        &payload(event, sid, extra),
    )
}

pub(crate) fn start(env: &Env, sid: &str, source: &str) -> Run {
    run_event(env, "SessionStart", sid, json!({"source": source}))
}
pub(crate) fn pre(env: &Env, sid: &str) -> Run {
    run_event(
        env,
        "PreCompact",
        sid,
        json!({"trigger": "manual", "custom_instructions": null}),
    )
}
pub(crate) fn post(env: &Env, sid: &str) -> Run {
    run_event(
        env,
        "PostCompact",
        sid,
        json!({"trigger": "manual", "compact_summary": "summary"}),
    )
}
pub(crate) fn prompt(env: &Env, sid: &str) -> Run {
    run_event(env, "UserPromptSubmit", sid, json!({"prompt": "go on"}))
}

/// Asserts exit 0 and an stdout that is empty or exactly one JSON object in the envelope for
/// `event`; returns the injected text, if any.
#[track_caller]
pub(crate) fn context(run: Run, event: &str) -> Option<String> {
    let run = run.ok();
    if run.stdout.is_empty() {
        return None;
    }
    assert!(
        run.stdout.ends_with('\n') && run.stdout.trim_end().lines().count() == 1,
        "one line expected: {:?}",
        run.stdout
    );
    let v: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    let obj = v.as_object().expect("an object");
    assert_eq!(obj.len(), 1, "only hookSpecificOutput: {v}");
    let h = obj["hookSpecificOutput"].as_object().unwrap();
    assert_eq!(h.len(), 2, "{v}");
    assert_eq!(h["hookEventName"], event);
    let text = h["additionalContext"].as_str().unwrap().to_string();
    assert!(
        text.chars().count() < 2000,
        "{} chars",
        text.chars().count()
    );
    Some(text)
}

pub(crate) fn is_recovery(text: &str) -> bool {
    text.contains("Context compaction recovery")
}

pub(crate) fn is_warning(text: &str) -> bool {
    text.contains("Context use in this session")
}

// ---------------------------------------------------------------- conformance payloads

/// Every captured payload through the matching subcommand (or, for events capn does not
/// handle, through every one): exit 0, and stdout empty or one object the host accepts.
#[test]
fn every_conformance_payload_is_answered_in_the_hosts_envelope() {
    let mut seen = 0;
    for host in ["claude", "codex"] {
        let dir = fixtures().join("payloads").join(host);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_str().unwrap().to_string();
            let event = name.split('-').next().unwrap();
            let bytes = std::fs::read(&f).unwrap();
            let targets: Vec<&str> = match hook_subcommand(event) {
                Some(s) => vec![s],
                None => hook_subcommands(),
            };
            for sub in targets {
                // A fresh state dir per run: each payload is judged on its own.
                let env = Env::git();
                let run = hook(&env, sub, host, &bytes);
                let stdout = run.stdout.clone();
                seen += 1;
                if sub == "pre-compact" && event == "PreCompact" {
                    // Plain text for Claude Code's summary request; nothing on Codex.
                    assert_eq!(run.code, 0, "{host}/{name}");
                    match host {
                        "claude" => assert!(
                            crate::util::is_pre_compact_text(&["hook", sub], &stdout),
                            "{name}: {stdout}"
                        ),
                        _ => assert_eq!(stdout, "", "{name}"),
                    }
                    continue;
                }
                let out = context(run, event);
                let expect_output = sub == "session-start" && event == "SessionStart";
                assert_eq!(
                    out.is_some(),
                    expect_output,
                    "{host}/{name} via {sub}: {out:?}"
                );
                if host == "codex" && out.is_some() {
                    let v: Value = serde_json::from_str(&stdout).unwrap();
                    for s in [
                        schema::load(&format!("{sub}.command.output.schema.json")),
                        schema::load("variants/658d027/session-start.command.output.schema.json"),
                    ] {
                        let errs = schema::validate(&s, &v);
                        assert!(errs.is_empty(), "{name}: {errs:?}");
                    }
                }
            }
        }
    }
    // 21 Claude and 9 Codex payloads (3 of them PreToolUse, 5 Stop, whose transcripts are not
    // on this machine: nothing to measure, nothing printed); the 2 of events capn does not
    // handle (SessionEnd) go through all eight subcommands.
    assert_eq!(seen, 28 + 2 * 8, "the fixture set changed");
}

/// Codex's strict schemas accept the recovery and the warning on both events that print.
#[test]
fn codex_outputs_validate_against_the_published_schemas() {
    let env = Env::git();
    let sid = "019f0634-3175-7702-b55c-e256f2966840";
    let ss = schema::load("session-start.command.output.schema.json");
    let ss_variant = schema::load("variants/658d027/session-start.command.output.schema.json");
    let ups = schema::load("user-prompt-submit.command.output.schema.json");
    let post_payload =
        std::fs::read(fixtures().join("payloads/codex/PostCompact-manual-1.json")).unwrap();
    let ups_payload =
        std::fs::read(fixtures().join("payloads/codex/UserPromptSubmit-default-1.json")).unwrap();
    hook(&env, "post-compact", "codex", &post_payload).ok();
    let run = hook(&env, "user-prompt-submit", "codex", &ups_payload).ok();
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(schema::validate(&ups, &v).is_empty(), "{v}");
    assert!(is_recovery(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
    ));
    let compact = payload(
        "SessionStart",
        sid,
        json!({"source": "compact", "model": "gpt-5.5"}),
    );
    let run = hook(&env, "session-start", "codex", &compact).ok();
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(schema::validate(&ss, &v).is_empty(), "{v}");
    assert!(schema::validate(&ss_variant, &v).is_empty(), "{v}");
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(is_recovery(text) && !text.contains("TaskList"), "{text}");
}

/// PostCompact never prints, on either host; PreCompact prints nothing on Codex (nothing it
/// prints reaches the summary there) and, on Claude Code, exactly the instructions for the
/// summary as plain text (never JSON: `hookSpecificOutput` is rejected on PreCompact), the same
/// on every run.
#[test]
fn post_compact_never_prints_and_pre_compact_prints_plain_instructions_on_claude_only() {
    let env = Env::git();
    for host in ["claude", "codex"] {
        for _ in 0..2 {
            let r = hook(
                &env,
                "pre-compact",
                host,
                &payload("PreCompact", "s", json!({"trigger":"auto"})),
            )
            .ok();
            let want = if host == "claude" {
                no_state_instructions()
            } else {
                String::new()
            };
            assert_eq!(r.stdout, want, "{host}");
            let r = hook(
                &env,
                "post-compact",
                host,
                &payload("PostCompact", "s", json!({"trigger":"auto"})),
            )
            .ok();
            assert_eq!(r.stdout, "");
        }
    }
}

/// PreCompact's instructions on Claude Code before what they say of the saved state: the head
/// and the sections the summary keeps, one a line.
pub(crate) const INSTRUCTION_LINES: &str = "[capn] Instructions for this summary, from capn-hook (the project's memory hooks). Besides the narrative, the summary keeps the session's decision structure, each part under its own heading, with \"none\" where there is nothing, so the work goes on unchanged after the compaction:
- Active Plan: the plan adopted (its file, if any) and whether plan mode is on.
- Rejected Plans: each plan or approach rejected or tried and failed, with the reason.
- Current Phase: where the work stands in the plan and the next agreed step.
- Task List: tasks in progress, pending and done.
- Session Decisions: each decision taken, the option adopted and why.
- Constraints and Blockers: rules agreed with the user, open questions, what waits on someone.
- Workers: sub-agents, background tasks and other sessions, and what each was given.
- Editing Files: files being edited, changes not yet verified, tested or committed.
";

/// PreCompact's whole reply on Claude Code for a session that saved no state and asked capn
/// nothing.
pub(crate) fn no_state_instructions() -> String {
    format!(
        "{INSTRUCTION_LINES}No state was saved with /compact-prep for this compaction, so the sections above come from the conversation alone.\n"
    )
}

// ---------------------------------------------------------------- session-start

#[test]
fn startup_resume_clear_inject_the_contract_and_export_the_session_id() {
    let env = Env::git();
    let envfile = env.tmp.path().join("claude-env");
    std::fs::write(&envfile, "export EXISTING=1\n").unwrap();
    for (i, source) in ["startup", "resume", "clear", "fork"].iter().enumerate() {
        let sid = format!("sess-{i}");
        let mut c = env.cmd(&["hook", "session-start"]);
        c.env("CLAUDE_ENV_FILE", &envfile);
        let text = context(
            env.run_cmd(c, &payload("SessionStart", &sid, json!({"source": source}))),
            "SessionStart",
        )
        .unwrap();
        assert!(text.contains("capn ask"), "{source}: {text}");
        assert!(!is_recovery(&text));
    }
    assert_eq!(
        std::fs::read_to_string(&envfile).unwrap(),
        "export EXISTING=1\nexport CAPN_SESSION_ID=sess-0\nexport CAPN_SESSION_ID=sess-1\n\
         export CAPN_SESSION_ID=sess-2\nexport CAPN_SESSION_ID=sess-3\n"
    );
}

/// Every SessionStart of one session (startup, resume, compact, twice) leaves one export line
/// for its id, not one per run (issue 8, point 5).
#[test]
fn the_session_id_is_exported_once_per_id() {
    let env = Env::git();
    let envfile = env.tmp.path().join("claude-env");
    std::fs::write(&envfile, "export EXISTING=1").unwrap();
    for (sid, source) in [
        ("one", "startup"),
        ("one", "resume"),
        ("one", "compact"),
        ("one", "startup"),
        ("two", "startup"),
        ("two", "clear"),
    ] {
        let mut c = env.cmd(&["hook", "session-start"]);
        c.env("CLAUDE_ENV_FILE", &envfile);
        env.run_cmd(c, &payload("SessionStart", sid, json!({"source": source})))
            .ok();
    }
    assert_eq!(
        std::fs::read_to_string(&envfile).unwrap(),
        "export EXISTING=1\nexport CAPN_SESSION_ID=one\nexport CAPN_SESSION_ID=two\n"
    );
}

#[test]
fn invalid_session_id_is_never_exported() {
    let env = Env::git();
    let envfile = env.tmp.path().join("claude-env");
    let mut c = env.cmd(&["hook", "session-start"]);
    c.env("CLAUDE_ENV_FILE", &envfile);
    let text = context(
        env.run_cmd(
            c,
            &payload("SessionStart", "x; rm -rf /", json!({"source":"startup"})),
        ),
        "SessionStart",
    );
    assert!(text.is_some(), "the contract still applies");
    assert!(!envfile.exists());
}

/// A CLAUDE_ENV_FILE over the size bound is not appended to, and the note says why in one line
/// (it used to call the file "not a regular file"); the contract still comes.
#[test]
fn an_oversized_claude_env_file_is_named_for_its_size() {
    let env = Env::git();
    let envfile = env.tmp.path().join("claude-env");
    std::fs::write(&envfile, vec![b'#'; 9 << 20]).unwrap();
    let mut c = env.cmd(&["hook", "session-start"]);
    c.env("CLAUDE_ENV_FILE", &envfile);
    let run = env.run_cmd(
        c,
        &payload("SessionStart", "big-env", json!({"source":"startup"})),
    );
    assert_eq!(
        run.stderr,
        format!(
            "capn: CLAUDE_ENV_FILE not appended to: could not read CLAUDE_ENV_FILE: {}: is {} bytes, over the 8388608-byte limit\n",
            envfile.display(),
            9 << 20
        )
    );
    assert!(
        context(run, "SessionStart").is_some(),
        "the contract still applies"
    );
    assert_eq!(std::fs::metadata(&envfile).unwrap().len(), 9 << 20);
}

/// A CLAUDE_ENV_FILE that is a FIFO is not opened (open() for writing would block until a reader
/// comes): the hook still answers, promptly.
#[cfg(unix)]
#[test]
fn a_fifo_claude_env_file_does_not_block_session_start() {
    let env = Env::git();
    let fifo = env.tmp.path().join("claude-env");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success();
    assert!(made, "mkfifo failed");
    let mut c = env.cmd(&["hook", "session-start"]);
    c.env("CLAUDE_ENV_FILE", &fifo)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    {
        use std::io::Write;
        let mut sin = child.stdin.take().unwrap();
        sin.write_all(&payload(
            "SessionStart",
            "fifo-env",
            json!({"source":"startup"}),
        ))
        .unwrap();
    }
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > crate::util::HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("session-start blocked on a FIFO CLAUDE_ENV_FILE");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("capn ask"), "{stdout}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a regular file"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------- hostile input

/// Every file under `root` except the state dir, with contents.
fn snapshot(root: &Path, skip: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.starts_with(skip) {
                continue;
            }
            if p.is_dir() {
                stack.push(p.clone());
                out.push((p, Vec::new()));
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_payload_over_the_stdin_bound_is_named_as_such() {
    let env = Env::git();
    // 17 MiB of one JSON string: cut at 16 MiB, so it is no JSON value; the note says why.
    let mut big = br#"{"session_id":"s1","prompt":""#.to_vec();
    big.resize(17 << 20, b'x');
    big.extend_from_slice(b"\"}");
    let run = env.run_stdin(&["hook", "user-prompt-submit"], &big).code(0);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "capn: hook stdin is over 16 MiB, more than any payload; nothing to do\n"
    );
}

#[test]
fn hostile_input_exits_zero_and_writes_nothing_outside_the_state_dir() {
    let env = Env::git();
    let big_prompt = "x".repeat(5 * 1024 * 1024);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("whitespace", b"  \n\t ".to_vec()),
        ("not json", b"hello, hook".to_vec()),
        ("truncated", br#"{"session_id":"abc","#.to_vec()),
        ("array", b"[1,2,3]".to_vec()),
        ("string", b"\"session\"".to_vec()),
        ("binary", vec![0xff, 0xfe, 0x00, 0x7b, 0x80]),
        (
            "5 MB prompt",
            payload("UserPromptSubmit", "big", json!({"prompt": big_prompt})),
        ),
        (
            "wrong types",
            br#"{"session_id":42,"source":["compact"],"trigger":{},"cwd":false,"transcript_path":1.5,"agent_id":7}"#.to_vec(),
        ),
        (
            "nulls",
            br#"{"session_id":null,"source":null,"trigger":null,"cwd":null,"transcript_path":null,"hook_event_name":null}"#.to_vec(),
        ),
        ("traversal", br#"{"session_id":"../../x","source":"compact","trigger":"manual","prompt":"p"}"#.to_vec()),
        ("absolute", br#"{"session_id":"/tmp/capn-evil","source":"compact","trigger":"auto"}"#.to_vec()),
        ("dot", br#"{"session_id":"..","source":"compact","trigger":"auto"}"#.to_vec()),
        ("separator", br#"{"session_id":"a/../../b","source":"compact","trigger":"auto"}"#.to_vec()),
        ("nul", br#"{"session_id":"a\u0000b","source":"compact"}"#.to_vec()),
        ("duplicate keys", br#"{"session_id":"a","session_id":"../../b"}"#.to_vec()),
        ("deep nesting", format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes()),
    ];
    // The state dir's parents are the state dir's to create (SessionStart marks the valid
    // session as seen); nothing else may appear.
    std::fs::create_dir_all(env.state_dir()).unwrap();
    let before = snapshot(env.tmp.path(), &env.state_dir());
    for (name, bytes) in &cases {
        for event in hook_subcommands() {
            let r = env.run_stdin(&["hook", event], bytes);
            assert_eq!(r.code, 0, "{name} via {event}: {}", r.stderr);
            if event == "pre-compact" && !r.stdout.is_empty() {
                // The instructions for the summary, without any state (no usable id).
                assert_eq!(r.stdout, no_state_instructions(), "{name}");
            } else if !r.stdout.is_empty() {
                // Only a parseable session-start with no usable id may still get the contract,
                // and subagent-start its sub-agent contract (it needs no session).
                let v: Value = serde_json::from_str(&r.stdout).unwrap();
                let e = &v["hookSpecificOutput"]["hookEventName"];
                assert!(e == "SessionStart" || e == "SubagentStart", "{name}: {e}");
            }
        }
        let r = env.run_stdin(&["statusline"], bytes);
        assert_eq!(r.code, 0, "{name} via statusline");
        assert_eq!(r.stdout.lines().count(), 1, "{name}: {:?}", r.stdout);
    }
    assert_eq!(before, snapshot(env.tmp.path(), &env.state_dir()));
    assert!(!env.tmp.path().join("x").exists());
    assert!(!Path::new("/tmp/capn-evil").exists());
    // Only the valid "big" session may exist in the state dir.
    if let Ok(rd) = std::fs::read_dir(env.state_dir().join("sessions")) {
        let names: Vec<_> = rd.map(|e| e.unwrap().file_name()).collect();
        assert!(names.iter().all(|n| n == "big"), "{names:?}");
    }
}

#[test]
fn a_five_megabyte_prompt_is_read_whole_and_still_delivers() {
    let env = Env::git();
    post(&env, "big").ok();
    let big = payload(
        "UserPromptSubmit",
        "big",
        json!({"prompt": "y".repeat(5 * 1024 * 1024)}),
    );
    let text = context(
        hook(&env, "user-prompt-submit", "claude", &big),
        "UserPromptSubmit",
    );
    assert!(is_recovery(&text.unwrap()));
}

#[test]
fn mismatched_event_name_does_nothing() {
    let env = Env::git();
    post(&env, "m").ok();
    // A UserPromptSubmit payload sent to the session-start subcommand (mis-registration).
    let r = hook(
        &env,
        "session-start",
        "claude",
        &payload("UserPromptSubmit", "m", json!({"prompt":"x"})),
    )
    .ok();
    assert_eq!(r.stdout, "");
    assert!(env.session_dir("m").join("compacted.json").exists());
    // Every subcommand, given any other event's payload, answers nothing and claims nothing.
    for sub in hook_subcommands() {
        for other in capn_hook::events::HookEvent::ALL {
            if other.subcommand() == sub {
                continue;
            }
            let extra = json!({"prompt": "x", "source": "compact", "trigger": "manual",
                               "tool_name": "Grep", "tool_input": {"pattern": "x"}});
            let r = hook(&env, sub, "claude", &payload(other.name(), "m", extra)).ok();
            assert_eq!(r.stdout, "", "{} payload via {sub}", other.name());
            assert!(
                env.session_dir("m").join("compacted.json").exists(),
                "{} payload via {sub} claimed the marker",
                other.name()
            );
        }
    }
}

#[test]
fn usage_errors_on_hook_paths_exit_zero_and_never_two() {
    let env = Env::git();
    for args in [
        vec!["hook"],
        vec!["hook", "bogus"],
        vec!["hook", "bogus", "--help"],
        vec!["hook", "session-start", "--host", "bogus"],
        vec!["hook", "session-start", "extra"],
        vec!["hook", "user-prompt-submit", "--bogus-flag"],
        vec!["statusline", "--warn-at", "0", "--help"],
    ] {
        let r = env.run_stdin(&args, b"{\"session_id\":\"s\"}");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
    }
    // The status line still prints its line on a usage error.
    let r = env.run_stdin(&["statusline", "--warn-at", "0"], b"{}").ok();
    assert_eq!(r.stdout, "ctx --\n");
    assert!(r.stderr.contains("--warn-at"));
}

/// SessionStart(startup)'s reply is a contract, compared whole: the envelope around exactly the
/// text `capn context` prints (Claude Code and Codex alike).
#[test]
fn session_start_prints_exactly_the_contract_envelope() {
    let env = Env::git();
    let contract = env.run(&["context"]).ok().stdout;
    let want = format!(
        "{}\n",
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                      "additionalContext": contract}})
    );
    for host in ["claude", "codex"] {
        let run = hook(
            &env,
            "session-start",
            host,
            &payload(
                "SessionStart",
                &format!("exact-{host}"),
                json!({"source": "startup"}),
            ),
        )
        .ok();
        assert_eq!(run.stdout, want, "{host}");
    }
}

/// Codex re-injects SessionStart context on every `codex exec resume`: a resumed Codex session
/// capn has already seen gets no second contract; a new one, and Claude Code's resume, do.
#[test]
fn a_resumed_codex_session_gets_the_contract_once() {
    let env = Env::git();
    let start = |host: &str, sid: &str, source: &str| {
        hook(
            &env,
            "session-start",
            host,
            &payload("SessionStart", sid, json!({"source": source})),
        )
        .ok()
        .stdout
    };
    assert!(start("codex", "cx-1", "startup").contains("capn ask"));
    assert_eq!(start("codex", "cx-1", "resume"), "");
    assert!(
        start("codex", "cx-2", "resume").contains("capn ask"),
        "unseen session"
    );
    assert!(start("claude", "cl-1", "startup").contains("capn ask"));
    assert!(start("claude", "cl-1", "resume").contains("capn ask"));
}
