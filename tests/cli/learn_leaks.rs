//! Learning from use must never teach a wrong answer (a tester's sequences after a miss that
//! showed two candidates): each sequence below once made the chart it touched answer the
//! question; now nothing answers, nothing ranks, and the control (the candidate's file read
//! alone, nothing after it) ranks the chart first without answering.

use crate::learn::{
    answer, ask_in, ask_shown, bash, entry, hook, hook_in, learned, learned_by, read, shown_two,
    stop, stop_after, stop_fields, transcript, Shown, Q, REPLY, SID,
};
use crate::util::{hook_payload, Env};
use serde_json::{json, Value};

/// Neither an answer nor a chart moved up by learned words.
#[track_caller]
fn nothing_learned(env: &Env, what: &str) {
    assert_eq!(answer(env, Q), None, "{what}: answered");
    assert_eq!(learned(env, Q), None, "{what}: ranked as learned");
}

/// The control: asked again, the candidate's file read alone, then the turn's end: the chart is
/// the first line shown, marked learned, and still no answer.
#[track_caller]
fn control(env: &Env, a: &Shown) {
    ask_shown(env, Q);
    read(env, &a.files[0]);
    stop(env);
    assert_eq!(answer(env, Q), None);
    assert_eq!(learned(env, Q), Some(a.id.clone()));
}

#[test]
fn one_shell_call_that_reads_a_candidate_and_more_is_exploring() {
    for form in [
        "cat {f} && git show HEAD:lib/retry.ts",
        "cat {f}; ls lib",
        "cat {f} | xargs cat",
        "cat {f} && node -e \"require('fs').readFileSync('lib/retry.ts')\"",
        "cat {f} $(ls lib/*.ts)",
    ] {
        let (env, a, _) = shown_two();
        let cmd = form.replace("{f}", &a.files[0]);
        hook_in(&env, SID, &bash(&cmd));
        stop(&env);
        nothing_learned(&env, &cmd);
    }
    let (env, a, _) = shown_two();
    stop(&env);
    control(&env, &a);
}

#[test]
fn an_ask_closes_at_its_turns_end() {
    let (env, a, _) = shown_two();
    // The agent explores elsewhere and rejects the candidates; the turn ends.
    hook_in(
        &env,
        SID,
        &json!({"tool_name": "Grep", "tool_input": {"pattern": "verify"}}),
    );
    stop(&env);
    // A later, unrelated turn reads the candidate's file to edit it.
    let prompt = json!({"prompt": "Rename the verify helper"});
    hook(&env, "UserPromptSubmit", "user-prompt-submit", prompt);
    read(&env, &a.files[0]);
    stop(&env);
    nothing_learned(&env, "a read in a later turn");
    control(&env, &a);
}

#[test]
fn searches_counts_and_empty_reads_are_no_reads() {
    let (env, a, _) = shown_two();
    let f = &a.files[0];
    let dir = std::path::Path::new(f).parent().unwrap().to_str().unwrap();
    let calls: Vec<Value> = vec![
        json!({"tool_name": "Grep", "tool_input": {"pattern": "verify", "path": f, "output_mode": "count"}}),
        json!({"tool_name": "Grep", "tool_input": {"pattern": "verify", "path": f}}),
        json!({"tool_name": "Glob", "tool_input": {"pattern": "*.ts", "path": f}}),
        json!({"tool_name": "Glob", "tool_input": {"pattern": "*.ts", "path": dir}}),
        bash(&format!("sed -n 0p {f}")),
        bash(&format!("sed -n q {f}")),
        bash(&format!("cat {f} | wc -c")),
        bash(&format!("head -0 {f}")),
        bash(&format!("tail -f {f}")),
    ];
    for call in calls {
        ask_shown(&env, Q);
        hook_in(&env, SID, &call);
        stop(&env);
        nothing_learned(&env, &call.to_string());
    }
    control(&env, &a);
}

/// A tool the registered matchers never show the hook (an MCP tool, Claude Code's `LS`, a web
/// fetch; Codex's `list_dir`) may have looked at anything: the turn teaches nothing. So does a
/// turn whose transcript cannot be read.
#[test]
fn a_tool_the_hooks_never_see_keeps_the_turn_from_teaching() {
    for unseen in ["mcp__fs__read_file", "LS", "WebFetch"] {
        let (env, a, _) = shown_two();
        read(&env, &a.files[0]);
        stop_after(&env, &["Bash", "Read", unseen]);
        nothing_learned(&env, unseen);
    }
    // No transcript at all.
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    hook(&env, "Stop", "stop", json!({"stop_hook_active": false}));
    nothing_learned(&env, "no transcript");
    // Codex: its `list_dir` never reaches the hook (its matcher is Bash).
    let (env, a, _) = shown_two();
    let rollout = env.tmp.path().join("rollout.jsonl");
    let item = |p: Value| json!({"type": "response_item", "payload": p}).to_string() + "\n";
    let text = [
        item(json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "where?"}]})),
        item(
            json!({"type": "function_call", "name": "shell", "call_id": "c1",
            "arguments": json!({"command": ["bash", "-lc", "cat x"]}).to_string()}),
        ),
        item(
            json!({"type": "function_call", "name": "list_dir", "call_id": "c2",
            "arguments": "{\"path\": \"lib\"}"}),
        ),
        item(json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": REPLY}]})),
    ]
    .concat();
    std::fs::write(&rollout, text).unwrap();
    let cat = bash(&format!("cat {}", a.files[0]));
    let codex = |event: &str, extra: Value| hook_payload(event, SID, &env.root, extra);
    env.run_stdin(
        &["hook", "pre-tool-use", "--host", "codex"],
        &codex("PreToolUse", cat),
    )
    .ok();
    let end = stop_fields(&rollout);
    env.run_stdin(&["hook", "stop", "--host", "codex"], &codex("Stop", end))
        .ok();
    nothing_learned(&env, "codex list_dir");
    control(&env, &a);
    // The transcript helper is the one the controls use.
    assert!(transcript(&["Read"]).contains("\"name\":\"Read\""));
}

/// A phrasing the agent confirmed is never evicted by a learned one: the chart keeps its eight
/// confirmed phrasings, each answering at 100, and the learned words only rank it.
#[test]
fn a_confirmed_phrasing_is_never_evicted_by_a_learned_one() {
    let (env, a, _) = shown_two();
    let confirmed: Vec<String> = (0..8)
        .map(|i| format!("where is the stripe webhook signature check number {i}"))
        .collect();
    for p in &confirmed {
        env.run(&["chart", p, "--like", &a.id]).ok();
    }
    let before = entry(&env, &a.id);
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(entry(&env, &a.id), before);
    for p in &confirmed {
        assert_eq!(answer(&env, p), Some((a.id.clone(), 100)), "{p}");
    }
    assert_eq!(answer(&env, Q), None);
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}

/// The turn ends (Stop) with the transcript `lines` (a Claude Code prompt line first).
fn stop_with(env: &Env, lines: &[Value], active: bool) {
    let mut text = json!({"type": "user", "message": {"content": "where is it?"}}).to_string();
    let reply =
        json!({"type": "assistant", "message": {"content": [{"type": "text", "text": REPLY}]}});
    for l in lines.iter().chain([&reply]) {
        text.push('\n');
        text.push_str(&l.to_string());
    }
    let path = env.tmp.path().join(format!("{SID}.jsonl"));
    std::fs::write(&path, text + "\n").unwrap();
    let mut extra = stop_fields(&path);
    extra["stop_hook_active"] = json!(active);
    hook(env, "Stop", "stop", extra);
}

/// An assistant line calling `name`, and the user line with its result.
fn call_and_result(i: usize, name: &str, input: Value, is_error: bool) -> [Value; 2] {
    let id = format!("t{i}");
    let call = json!({"type": "tool_use", "id": id, "name": name, "input": input});
    let result = json!({"type": "tool_result", "tool_use_id": id, "content": "x",
        "is_error": is_error});
    [
        json!({"type": "assistant", "message": {"content": [call]}}),
        json!({"type": "user", "message": {"content": [result]}}),
    ]
}

/// A shell call reads the candidate only when it is one plain read whose words name every file
/// it shows: input redirections, variables, globs, `cd`, sed scripts that run or stop or match
/// may show other files, or nothing.
#[test]
fn shell_forms_that_may_show_other_files_or_nothing_are_no_reads() {
    for (read_first, form) in [
        (false, "cat {f}; cat < {g}"),
        (true, "sed -n 1,40p < {g}"),
        (false, "F2={g}; cat {f} $F2"),
        (false, "cat {f}; echo lib/* src/*"),
        (true, "printf '%s\\n' lib/* src/*"),
        (false, "cd {dir} && cat {f}"),
        (false, "sed '1e cat {g}' {f}"),
        (false, "sed -n '1q;p' {f}"),
        (false, "sed -n '/NOMATCH/p' {f}"),
    ] {
        let (env, a, b) = shown_two();
        let dir = std::path::Path::new(&b.files[0]).parent().unwrap();
        let cmd = form
            .replace("{f}", &a.files[0])
            .replace("{g}", &b.files[0])
            .replace("{dir}", dir.to_str().unwrap());
        if read_first {
            read(&env, &a.files[0]);
        }
        hook_in(&env, SID, &bash(&cmd));
        stop(&env);
        nothing_learned(&env, &cmd);
    }
    let (env, a, _) = shown_two();
    stop(&env);
    control(&env, &a);
}

/// Exploring first and then opening the candidate (to edit it, say) is no check of it: the
/// agent may have found its answer elsewhere. Neither is a Read sent along with a Grep (the
/// hooks run concurrently: the record's order need not be the calls').
#[test]
fn exploring_before_reading_the_candidate_teaches_nothing() {
    let grep = json!({"tool_name": "Grep", "tool_input": {"pattern": "verify"}});
    let (env, a, b) = shown_two();
    hook_in(&env, SID, &grep);
    read(&env, &b.files[0]);
    read(&env, &a.files[0]);
    stop_after(&env, &["Bash", "Grep", "Read", "Read"]);
    nothing_learned(&env, "grep, the other chart read, then the candidate");
    // Sent together; the Grep's hook recorded first.
    let (env, a, _) = shown_two();
    hook_in(&env, SID, &grep);
    read(&env, &a.files[0]);
    stop_after(&env, &["Bash", "Read", "Grep"]);
    nothing_learned(&env, "read and grep in parallel");
    control(&env, &a);
}

/// A Read a permission rule or a hook refused (its result an error) showed nothing.
#[test]
fn a_refused_read_teaches_nothing() {
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    let [c, r] = call_and_result(1, "Read", json!({}), true);
    stop_with(&env, &[c, r], false);
    nothing_learned(&env, "refused read");
    // The ask's own result is an error too (a miss exits 1): that alone changes nothing.
    ask_shown(&env, Q);
    read(&env, &a.files[0]);
    let ask = json!({"command": format!("capn ask {}", shell_words::quote(Q))});
    let [c0, r0] = call_and_result(0, "Bash", ask, true);
    let [c1, r1] = call_and_result(1, "Read", json!({}), false);
    stop_with(&env, &[c0, r0, c1, r1], false);
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}

/// A Stop another hook blocked is not the turn's end: when the agent goes on (and stops again
/// with `stop_hook_active`), what that Stop learned is taken back and the turn learns nothing.
#[test]
fn a_stop_another_hook_blocked_is_not_the_turns_end() {
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    stop(&env);
    hook_in(
        &env,
        SID,
        &json!({"tool_name": "Grep", "tool_input": {"pattern": "verify"}}),
    );
    let [c, r] = call_and_result(2, "Grep", json!({}), false);
    stop_with(&env, &[c, r], true);
    nothing_learned(&env, "explored after a blocked stop");
    // A blocked stop with nothing learned before it learns nothing either.
    ask_shown(&env, Q);
    read(&env, &a.files[0]);
    stop_with(&env, &[], true);
    nothing_learned(&env, "stop_hook_active");
    let prompt = json!({"prompt": "next"});
    hook(&env, "UserPromptSubmit", "user-prompt-submit", prompt);
    control(&env, &a);
}

/// A sub-agent's calls (payloads with `agent_id`) never teach: its ask is not the session's,
/// and the main transcript shows none of its calls (an MCP tool it used, say). A turn that ran
/// a sub-agent after the ask teaches nothing either.
#[test]
fn a_sub_agents_calls_teach_nothing() {
    let env = crate::phrasings::three_charts();
    let sub = |extra: &Value| {
        let mut v = extra.clone();
        v["agent_id"] = json!("agent-1");
        hook_in(&env, SID, &v)
    };
    let command = format!("capn ask {}", shell_words::quote(Q));
    sub(&bash(&command));
    let run = env.run(&["ask", Q]).code(1);
    let a = run
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("candidate "))
        .map(|j| serde_json::from_str::<Value>(j).unwrap())
        .unwrap();
    let f = env.root.join(a["files"][0].as_str().unwrap());
    sub(&json!({"tool_name": "Read", "tool_input": {"file_path": f}}));
    stop_after(&env, &["Task"]);
    nothing_learned(&env, "sub-agent");
    // The main session asks; a sub-agent reads the candidate.
    let (env, a, _) = shown_two();
    let f = env.root.join(&a.files[0]);
    let mut v = json!({"tool_name": "Read", "tool_input": {"file_path": f}});
    v["agent_id"] = json!("agent-1");
    hook_in(&env, SID, &v);
    stop_after(&env, &["Bash", "Task"]);
    nothing_learned(&env, "read by a sub-agent");
    control(&env, &a);
}

/// A host may write its transcript in batches: at Stop the calls the agent made last (an MCP
/// read of another file, say) may not be in it yet. Only a transcript that ends with the reply
/// the Stop payload names (`last_assistant_message`) shows the whole turn; otherwise, or
/// without that field, the turn teaches nothing.
#[test]
fn a_transcript_that_lags_behind_the_turn_teaches_nothing() {
    let path = |env: &crate::util::Env| env.tmp.path().join("lagging.jsonl");
    let said = |text: &str| {
        let block = json!({"type": "text", "text": text});
        json!({"type": "assistant", "message": {"content": [block]}}).to_string() + "\n"
    };
    let cases = [
        // Written up to the read only.
        (
            transcript(&["Bash", "Read"]).replace(&said(REPLY), ""),
            true,
        ),
        // Up to what the agent said before its next (unwritten) call.
        (
            transcript(&["Bash", "Read"]).replace(REPLY, "Let me check one more file."),
            true,
        ),
        // Written whole, but the payload names no reply.
        (transcript(&["Bash", "Read"]), false),
    ];
    for (text, with_reply) in cases {
        let (env, a, _) = shown_two();
        read(&env, &a.files[0]);
        std::fs::write(path(&env), &text).unwrap();
        let mut end = stop_fields(&path(&env));
        if !with_reply {
            end.as_object_mut()
                .unwrap()
                .remove("last_assistant_message");
        }
        hook(&env, "Stop", "stop", end);
        nothing_learned(&env, &text);
    }
    // The hooks print nothing else on stderr, learning or not (a host may show it).
    let (env, a, _) = shown_two();
    let pre = read(&env, &a.files[0]);
    let end = stop(&env);
    assert_eq!(
        (pre.stdout, pre.stderr, end.stdout, end.stderr),
        Default::default()
    );
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}

/// Two sessions' hooks see the same words asked; one call never runs (refused), the other does.
/// The one run may be either session's: neither learns from it.
#[test]
fn a_run_two_sessions_asked_for_teaches_neither() {
    let (env, a, _) = shown_two();
    // `shown_two` asked for SID; another session's hook sees the same words asked (its call
    // refused, say), near the same run.
    let ask = bash(&format!("capn ask {}", shell_words::quote(Q)));
    hook_in(&env, "other-session", &ask);
    read(&env, &a.files[0]);
    stop(&env);
    nothing_learned(&env, "claimed by two sessions");
    // Asked again by this session alone, still near the other session's call: contested.
    ask_in(&env, SID, Q);
    read(&env, &a.files[0]);
    stop(&env);
    nothing_learned(&env, "claimed minutes before");
    // The control: no other session.
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}

/// Concurrent `capn ask` runs in one project keep each other's records of what they showed
/// (parallel sessions, parallel tool calls): every run is recorded.
#[test]
fn concurrent_asks_keep_each_others_records() {
    let (env, _, _) = shown_two();
    let words = [
        "kept",
        "saved",
        "persisted",
        "written",
        "logged",
        "held",
        "filed",
        "put",
    ];
    let qs: Vec<String> = words
        .iter()
        .map(|w| format!("Where are Stripe payment webhooks still verified and {w}?"))
        .collect();
    let children: Vec<_> = qs
        .iter()
        .map(|q| {
            let mut c = env.cmd(&["ask", q]);
            c.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            c.spawn().unwrap()
        })
        .collect();
    for mut c in children {
        c.wait().unwrap();
    }
    let dir = env.state_dir().join("shown");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let asked: Vec<&str> = v["asks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["question"].as_str())
        .collect();
    for q in &qs {
        assert!(asked.contains(&q.as_str()), "{q} lost: {asked:?}");
    }
}

/// A learned chart's line tells the truth: one added for the very words it learned names the
/// words it lacks (`not_in_chart`), as every candidate line does; words then confirmed with
/// `--like` answer and are no longer listed as learned; and a chart re-charted on other files
/// forgets the words learned from reads of its old ones.
#[test]
fn a_learned_line_names_what_the_chart_lacks_and_forgets_what_no_longer_holds() {
    let (env, a, b) = shown_two();
    let q = "How do refunds get paid out to customers?";
    let file = json!({"charts": {b.id.clone(): [q]}, "order": [b.id.clone()]});
    env.write(".capn/learned.json", &file.to_string());
    let run = env.run(&["ask", q]).code(1);
    let line = run
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("candidate "))
        .unwrap();
    let v: Value = serde_json::from_str(line).unwrap();
    assert_eq!(
        (&v["id"], &v["learned"]),
        (&json!(b.id), &json!(true)),
        "{line}"
    );
    let lacks = v["not_in_chart"].as_array().unwrap();
    assert!(lacks.contains(&json!("refunds")), "{line}");
    std::fs::remove_file(env.root.join(".capn/learned.json")).unwrap();
    // Learned, then re-charted on other files: forgotten.
    read(&env, &a.files[0]);
    stop(&env);
    assert!(learned_by(&env, &a.id, Q));
    let list = env.run(&["list", "--json"]).ok().jsonl();
    let chart = list.iter().find(|e| e["id"] == json!(a.id)).unwrap();
    let question = chart["question"].as_str().unwrap();
    env.run(&["chart", question, "--files", &b.files[0]]).ok();
    assert!(!learned_by(&env, &a.id, Q));
    assert_eq!(learned(&env, Q), None);
    // Learned, then confirmed: it answers, and is learned no more.
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    stop(&env);
    assert!(learned_by(&env, &a.id, Q));
    env.run(&["chart", Q, "--like", &a.id]).ok();
    assert_eq!(answer(&env, Q), Some((a.id.clone(), 100)));
    assert!(!learned_by(&env, &a.id, Q));
}

/// OpenCode's plugin runs the hooks after every tool call (so the next prompt decides): its
/// `read` tool (`filePath`) is a read of the candidate; any other call after it (a `list`, a
/// `grep`) is exploring.
#[test]
fn opencode_s_read_tool_is_a_read() {
    let opencode = |env: &crate::util::Env, event: &str, sub: &str, extra: Value| {
        let p = crate::util::hook_payload(event, SID, &env.root, extra);
        env.run_stdin(&["hook", sub, "--host", "opencode"], &p).ok();
    };
    for then in [None, Some("list"), Some("grep")] {
        let env = crate::phrasings::three_charts();
        let ask = format!("capn ask {}", shell_words::quote(Q));
        let run = env.run(&["ask", Q]).code(1);
        let line = run
            .stderr
            .lines()
            .find_map(|l| l.strip_prefix("candidate "))
            .unwrap();
        let a: Value = serde_json::from_str(line).unwrap();
        let post = |tool: &str, args: Value| {
            let call = json!({"tool_name": tool, "tool_input": args});
            opencode(&env, "PostToolUse", "post-tool-use", call);
        };
        post("bash", json!({"command": ask}));
        let f = env.root.join(a["files"][0].as_str().unwrap());
        post("read", json!({"filePath": f}));
        if let Some(tool) = then {
            post(tool, json!({"path": "lib", "pattern": "verify"}));
        }
        let next = json!({"prompt": "thanks, now fix it"});
        opencode(&env, "UserPromptSubmit", "user-prompt-submit", next);
        let want = then
            .is_none()
            .then(|| a["id"].as_str().unwrap().to_string());
        assert_eq!(learned(&env, Q), want, "then {then:?}");
        assert_eq!(answer(&env, Q), None);
    }
}
