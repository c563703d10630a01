//! Learning from use (issue 33): after a miss that showed charts, the agent's reads of one shown
//! chart's files (seen by PreToolUse) teach that chart the asked words at the turn's end (Stop)
//! or the next prompt; never a chart it did not read, one whose files it read no more of than
//! another's, one that went stale, or words it charted itself; off with `"learn": false`. The
//! hooks print what they printed without it.

use crate::phrasings::three_charts;
use crate::util::{hook_payload, Env, Run};
use serde_json::{json, Value};

/// Asked of [`three_charts`], it misses and shows two candidates (Stripe's chart and the
/// webhooks one).
pub(crate) const Q: &str = "Where are Stripe payment webhooks still verified and stored?";
pub(crate) const SID: &str = "learn-session";

/// Another rewording that shows the Stripe chart as a strong candidate.
const Q2: &str = "Where are the Stripe payment webhooks still verified and stored?";

/// A shown chart: its id and files, as the `candidate`/`related` line printed them.
#[derive(Debug, Clone)]
pub(crate) struct Shown {
    pub(crate) id: String,
    pub(crate) files: Vec<String>,
}

/// The session [`SID`] asks `q` (a miss: its PreToolUse sees the shell call, then `ask` runs)
/// and returns the charts it showed, in order.
pub(crate) fn ask_shown(env: &Env, q: &str) -> Vec<Shown> {
    ask_in(env, SID, q)
}

/// Session `sid` asks `q` as [`ask_shown`] does.
pub(crate) fn ask_in(env: &Env, sid: &str, q: &str) -> Vec<Shown> {
    let command = format!("capn ask {}", shell_words::quote(q));
    hook_in(env, sid, &bash(&command));
    shown_lines(
        &env.run(&["ask", q]).code(1).stderr,
        &["candidate ", "related "],
    )
}

/// A Bash tool call's PreToolUse fields.
pub(crate) fn bash(command: &str) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}})
}

/// PreToolUse of session `sid`.
pub(crate) fn hook_in(env: &Env, sid: &str, extra: &Value) -> Run {
    env.run_stdin(
        &["hook", "pre-tool-use"],
        &hook_payload("PreToolUse", sid, &env.root, extra.clone()),
    )
    .ok()
}

/// The charts of the `prefixes` lines of a miss's stderr.
fn shown_lines(stderr: &str, prefixes: &[&str]) -> Vec<Shown> {
    stderr
        .lines()
        .filter_map(|l| prefixes.iter().find_map(|p| l.strip_prefix(p)))
        .map(|j| {
            let v: Value = serde_json::from_str(j).unwrap();
            Shown {
                id: v["id"].as_str().unwrap().to_string(),
                files: v["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap().to_string())
                    .collect(),
            }
        })
        .collect()
}

pub(crate) fn hook(env: &Env, event: &str, sub: &str, extra: Value) -> Run {
    env.run_stdin(&["hook", sub], &hook_payload(event, SID, &env.root, extra))
        .ok()
}

/// The agent reads `rel` with Claude Code's Read tool (absolute path, as Claude Code sends it).
pub(crate) fn read(env: &Env, rel: &str) -> Run {
    let path = env.root.join(rel);
    hook(
        env,
        "PreToolUse",
        "pre-tool-use",
        json!({"tool_name": "Read", "tool_input": {"file_path": path}}),
    )
}

/// The control of a test: the session reads `a`'s first file, the turn ends, and `a` is then
/// the first line [`Q`]'s miss shows, marked learned.
#[track_caller]
pub(crate) fn learns(env: &Env, a: &Shown) {
    read(env, &a.files[0]);
    stop(env);
    assert_eq!(learned(env, Q), Some(a.id.clone()));
}

/// The turn ends (Stop) with a transcript whose turn called Bash and Read only: tools the
/// registered matcher shows the hook.
pub(crate) fn stop(env: &Env) -> Run {
    stop_after(env, &["Bash", "Read"])
}

/// The turn ends (Stop) with a transcript whose turn called the tools `names`, in order.
pub(crate) fn stop_after(env: &Env, names: &[&str]) -> Run {
    let path = env.tmp.path().join(format!("{SID}.jsonl"));
    std::fs::write(&path, transcript(names)).unwrap();
    hook(env, "Stop", "stop", stop_fields(&path))
}

/// The agent's last reply in [`transcript`]s and Stop payloads.
pub(crate) const REPLY: &str = "It is in the file shown.";

/// A Stop payload's own fields, for the transcript at `path` written to its end ([`REPLY`]).
pub(crate) fn stop_fields(path: &std::path::Path) -> Value {
    json!({"stop_hook_active": false, "transcript_path": path, "last_assistant_message": REPLY})
}

/// A Claude Code transcript of one turn: the prompt, one tool call of each of `names`, then the
/// agent's reply [`REPLY`].
pub(crate) fn transcript(names: &[&str]) -> String {
    let mut out = json!({"type": "user", "message": {"content": "where is it?"}}).to_string();
    out.push('\n');
    for (i, name) in names.iter().enumerate() {
        let call = json!({"type": "tool_use", "id": format!("t{i}"), "name": name, "input": {}});
        let line = json!({"type": "assistant", "message": {"content": [call]}});
        out.push_str(&format!("{line}\n"));
    }
    let reply = json!({"type": "text", "text": REPLY});
    let line = json!({"type": "assistant", "message": {"content": [reply]}});
    out.push_str(&format!("{line}\n"));
    out
}

pub(crate) fn entry(env: &Env, id: &str) -> String {
    env.read(&format!(".capn/entries/{id}.md"))
}

/// On a miss of `q` whose first line is a candidate moved up by learned words: its id. `None`
/// when `q` is answered or the first line is not marked learned.
pub(crate) fn learned(env: &Env, q: &str) -> Option<String> {
    let run = env.run(&["ask", q]);
    if run.code == 0 {
        return None;
    }
    let first = run.stderr.lines().find_map(|l| {
        l.strip_prefix("candidate ")
            .or_else(|| l.strip_prefix("related "))
    })?;
    let v: Value = serde_json::from_str(first).unwrap();
    (v["learned"] == json!(true)).then(|| v["id"].as_str().unwrap().to_string())
}

/// True when chart `id` learned the words `q` (`capn list --json`).
pub(crate) fn learned_by(env: &Env, id: &str, q: &str) -> bool {
    env.run(&["list", "--json"]).ok().jsonl().iter().any(|e| {
        e["id"] == id
            && e["learned"]
                .as_array()
                .is_some_and(|l| l.iter().any(|w| w == q))
    })
}

/// Asks `q` again: `Some(first answer's id, score)` or `None` on a miss.
pub(crate) fn answer(env: &Env, q: &str) -> Option<(String, u64)> {
    let run = env.run(&["ask", q]);
    if run.code != 0 {
        return None;
    }
    let first = run.jsonl().into_iter().next()?;
    Some((first["id"].as_str()?.to_string(), first["score"].as_u64()?))
}

/// [`three_charts`], asked [`Q`]: the env and the first two charts shown.
pub(crate) fn shown_two() -> (Env, Shown, Shown) {
    let env = three_charts();
    let shown = ask_shown(&env, Q);
    assert!(shown.len() >= 2, "expected two shown charts: {shown:?}");
    (env, shown[0].clone(), shown[1].clone())
}

#[test]
fn a_read_of_a_shown_charts_file_teaches_it_the_words_at_the_turns_end() {
    let (env, a, b) = shown_two();
    let entries = (entry(&env, &a.id), entry(&env, &b.id));
    // The second candidate: learning moves it up to the first line.
    assert_eq!(read(&env, &b.files[0]).stdout, "");
    // Nothing is learned before the turn ends.
    assert_eq!(learned(&env, Q), None);
    assert_eq!(stop(&env).stdout, "");
    assert_eq!(learned(&env, Q), Some(b.id.clone()));
    assert!(learned_by(&env, &b.id, Q));
    // It ranks, never answers: the words are no phrasing of the chart, and no entry changed.
    assert_eq!(answer(&env, Q), None);
    assert_eq!((entry(&env, &a.id), entry(&env, &b.id)), entries);
    let line = env.run(&["ask", Q]).code(1).stderr;
    let first = line.lines().find(|l| l.starts_with("candidate ")).unwrap();
    assert!(first.ends_with(",\"learned\":true}"), "{line}");
}

#[test]
fn no_read_teaches_nothing() {
    let (env, a, b) = shown_two();
    let before = (entry(&env, &a.id), entry(&env, &b.id));
    // A read of a file no shown chart has.
    env.write("src/other.ts", "x\n");
    read(&env, "src/other.ts");
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    assert_eq!((entry(&env, &a.id), entry(&env, &b.id)), before);
    // The control: asked again, a read of a shown chart's file learns.
    ask_shown(&env, Q);
    learns(&env, &a);
}

#[test]
fn a_file_two_shown_charts_share_counts_for_neither() {
    let env = Env::git();
    env.run(&["init"]).ok();
    for f in ["webhooks", "stripe", "common", "queue", "store"] {
        env.write(&format!("src/api/{f}.ts"), &format!("{f}()\n"));
    }
    // The shared file is half of the Stripe chart's files, a quarter of the other's: alone, it
    // would pass the bar for the Stripe chart only.
    let stripe = "Where are Stripe payment webhooks verified and stored?";
    for (q, files) in [
        (
            "Where are payment webhooks handled?",
            "src/api/webhooks.ts,src/api/common.ts,src/api/queue.ts,src/api/store.ts",
        ),
        (stripe, "src/api/stripe.ts,src/api/common.ts"),
    ] {
        env.run(&["chart", q, "--files", files]).ok();
    }
    let shown = ask_shown(&env, Q);
    assert!(shown.len() >= 2, "{shown:?}");
    let common = "src/api/common.ts".to_string();
    assert!(shown[..2].iter().all(|s| s.files.contains(&common)));
    read(&env, &common);
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    // The control: asked again, the Stripe chart's own file is half of its files.
    let s = shown.iter().find(|s| s.files.len() == 2).unwrap();
    ask_shown(&env, Q);
    read(&env, "src/api/stripe.ts");
    stop(&env);
    assert_eq!(learned(&env, Q), Some(s.id.clone()));
}

#[test]
fn words_the_agent_charted_itself_are_not_learned_again() {
    for charts_itself in [false, true] {
        let (env, a, _) = shown_two();
        read(&env, &a.files[0]);
        if charts_itself {
            env.write("src/api/own.ts", "mine()\n");
            env.run(&["chart", Q, "--files", "src/api/own.ts"]).ok();
        }
        stop(&env);
        // The control (not charted itself): learned, and shown first.
        assert_eq!(learned_by(&env, &a.id, Q), !charts_itself);
        assert_eq!(learned(&env, Q).is_some(), !charts_itself);
        if charts_itself {
            assert_eq!(answer(&env, Q).unwrap().1, 100);
        }
    }
}

#[test]
fn a_chart_that_went_stale_learns_nothing() {
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    let was = env.read(&a.files[0]);
    env.write(&a.files[0], "changed()\n");
    let a_before = entry(&env, &a.id);
    stop(&env);
    assert_eq!(entry(&env, &a.id), a_before);
    // Back as charted: the words were not taken, and the evidence is spent: a later read of
    // the chart's file does not try again.
    env.write(&a.files[0], &was);
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    // The control: asked and read again while current, it learns.
    ask_shown(&env, Q);
    learns(&env, &a);
}

/// Sets `"learn"` in the project's `.capn/config.json`.
fn set_learn(env: &Env, on: bool) {
    let path = env.root.join(".capn/config.json");
    let mut v: Value = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(json!({}));
    v["learn"] = json!(on);
    std::fs::write(&path, v.to_string()).unwrap();
}

#[test]
fn learn_false_when_the_turn_ends_drops_the_evidence() {
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    set_learn(&env, false);
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    set_learn(&env, true);
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    // The control: on throughout, the next ask and read learn.
    ask_shown(&env, Q);
    learns(&env, &a);
}

#[test]
fn learn_false_when_asked_records_nothing_to_learn_from() {
    let env = three_charts();
    set_learn(&env, false);
    let shown = ask_shown(&env, Q);
    set_learn(&env, true);
    read(&env, &shown[0].files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    // The control: asked with it on, the same read learns.
    ask_shown(&env, Q);
    read(&env, &shown[0].files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), Some(shown[0].id.clone()));
}

#[test]
fn the_hooks_print_the_same_bytes_with_evidence_pending() {
    // The same payloads in a project where nothing was shown, and in one where the reads are
    // evidence (learned at the turn's end).
    let plain = three_charts();
    let (env, a, _) = shown_two();
    let grep =
        json!({"tool_name": "Grep", "tool_input": {"pattern": "webhooks", "path": a.files[0]}});
    let prompt = json!({"prompt": "Where are payment webhooks handled in this project?"});
    let outputs = |env: &Env| {
        [
            read(env, &a.files[0]),
            hook(env, "PreToolUse", "pre-tool-use", grep.clone()),
            stop(env),
            hook(
                env,
                "UserPromptSubmit",
                "user-prompt-submit",
                prompt.clone(),
            ),
        ]
        .map(|r| (r.stdout, r.code))
    };
    assert_eq!(outputs(&env), outputs(&plain));
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
    assert_eq!(learned(&plain, Q), None);
}

#[test]
fn doctor_names_the_switch_when_it_is_off() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let line = "ok    learning from use: off (\"learn\": false in .capn/config.json";
    assert!(!env.run(&["doctor"]).stdout.contains(line));
    set_learn(&env, false);
    let doctor = env.run(&["doctor"]).stdout;
    assert!(doctor.contains(line), "{doctor}");
    let path = env.root.join(".capn/config.json");
    std::fs::write(&path, r#"{"learn": "no"}"#).unwrap();
    let doctor = env.run(&["doctor"]).stdout;
    assert!(
        doctor.contains("\"learn\" is \"no\", not true or false (learning from use stays on)"),
        "{doctor}"
    );
}

/// Reads reach PreToolUse only when its matcher selects Read: `init` widens capn's own group
/// registered with the matcher from before (byte for byte otherwise, and once), and leaves a
/// group that holds another tool's handler to the user (doctor names what it misses).
#[test]
fn init_widens_capn_s_old_tool_matcher_to_reads() {
    let env = Env::git();
    let handler = r#"{"type": "command", "command": "capn", "args": ["hook", "pre-tool-use"], "timeout": 10}"#;
    let before = format!(
        "{{\"hooks\": {{\"PreToolUse\": [{{\"matcher\": \"Grep|Glob|Bash|Task|Agent\", \"hooks\": [{handler}]}}]}}}}\n"
    );
    env.write(".claude/settings.json", &before);
    let run = env.run(&["init"]).ok();
    let text = env.read(".claude/settings.json");
    assert!(
        text.starts_with(
            &before
                .replace("Grep|Glob|Bash", "Grep|Glob|Read|Bash")
                .replace("]}]}}\n", "")
        ),
        "{text}"
    );
    assert!(
        run.stdout
            .contains("the tool hook in .claude/settings.json now also runs on file reads"),
        "{}",
        run.stdout
    );
    let again = env.run(&["init"]).ok();
    assert_eq!(env.read(".claude/settings.json"), text);
    assert!(!again.stdout.contains("now also runs on file reads"));
    // The group's matcher is now the table's.
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["matcher"],
        "Grep|Glob|Read|Bash|Task|Agent"
    );

    let env = Env::git();
    let mixed = format!(
        "{{\"hooks\": {{\"PreToolUse\": [{{\"matcher\": \"Grep|Glob|Bash|Task|Agent\", \"hooks\": [{handler}, {{\"type\": \"command\", \"command\": \"other-tool\"}}]}}]}}}}\n"
    );
    env.write(".claude/settings.json", &mixed);
    env.run(&["init"]).ok();
    let v: Value = serde_json::from_str(&env.read(".claude/settings.json")).unwrap();
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["matcher"],
        "Grep|Glob|Bash|Task|Agent"
    );
    let doctor = env.run(&["doctor"]).stdout;
    assert!(doctor.contains("does not select Read"), "{doctor}");
}

/// The store lock is only tried: while another writer holds it, the evidence stays pending, and
/// the next turn's end learns.
#[test]
fn a_busy_store_keeps_the_evidence_for_the_next_turn() {
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(env.root.join(".capn/lock"))
        .unwrap();
    lock.lock().unwrap();
    // While the lock is held: a Stop hook that waited for it would hit the hang guard.
    let path = env.tmp.path().join("busy.jsonl");
    std::fs::write(&path, transcript(&["Bash", "Read"])).unwrap();
    let payload = hook_payload("Stop", SID, &env.root, stop_fields(&path));
    let (run, _) = env.run_bounded(
        env.cmd(&["hook", "stop"]),
        &payload,
        false,
        crate::util::HANG_GUARD,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    drop(lock);
    assert_eq!(learned(&env, Q), None);
    stop(&env);
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}

/// Codex reads through its shell (`sed -n`, a path relative to a subfolder the agent is in).
#[test]
fn a_codex_shell_read_is_evidence_too() {
    let (env, a, _) = shown_two();
    let file = env.root.join(&a.files[0]);
    let dir = file.parent().unwrap();
    let name = file.file_name().unwrap().to_str().unwrap();
    let payload = |event: &str, extra: Value| hook_payload(event, SID, dir, extra);
    let run = env.run_stdin(
        &["hook", "pre-tool-use", "--host", "codex"],
        &payload(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": format!("sed -n 1,40p {name}")}}),
        ),
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    // Codex's rollout of the turn: the prompt, then the shell call.
    let rollout = env.tmp.path().join("rollout.jsonl");
    let call = json!({"command": ["bash", "-lc", format!("sed -n 1,40p {name}")]});
    let lines = [
        json!({"type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "where?"}]}}),
        json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell",
            "arguments": call.to_string(), "call_id": "c1"}}),
        json!({"type": "response_item", "payload": {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": REPLY}]}}),
    ];
    std::fs::write(&rollout, lines.map(|l| format!("{l}\n")).concat()).unwrap();
    let end = stop_fields(&rollout);
    env.run_stdin(&["hook", "stop", "--host", "codex"], &payload("Stop", end))
        .ok();
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}

/// A read in a session that did not ask teaches nothing: evidence counts only for the asks the
/// same session made.
#[test]
fn a_read_in_another_session_teaches_nothing() {
    let (env, a, _) = shown_two();
    let other = "other-session";
    let path = env.root.join(&a.files[0]);
    hook_in(
        &env,
        other,
        &json!({"tool_name": "Read", "tool_input": {"file_path": path}}),
    );
    let other_stop = hook_payload("Stop", other, &env.root, json!({"stop_hook_active": false}));
    env.run_stdin(&["hook", "stop"], &other_stop).ok();
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    // An `ask` run no session's hook saw teaches nothing either.
    env.run(&["ask", Q2]).code(1);
    hook_in(
        &env,
        other,
        &json!({"tool_name": "Read", "tool_input": {"file_path": path}}),
    );
    env.run_stdin(&["hook", "stop"], &other_stop).ok();
    assert_eq!(learned(&env, Q2), None);
    // The control: the session that asked reads it.
    ask_shown(&env, Q);
    learns(&env, &a);
}

/// One read counts for one ask: the session's latest that showed the chart.
#[test]
fn one_read_teaches_only_the_latest_ask() {
    let (env, a, _) = shown_two();
    assert_eq!(ask_shown(&env, Q2)[0].id, a.id);
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q2), Some(a.id.clone()));
    assert!(!learned_by(&env, &a.id, Q));
    // Q is not a phrasing: it does not answer at 100 (its near twin may answer it).
    assert_ne!(answer(&env, Q).map(|(_, score)| score), Some(100));
}

/// Checking a candidate's file and then exploring elsewhere rejects it: nothing is learned, and
/// a later read does not bring it back.
#[test]
fn checking_a_candidate_and_exploring_on_teaches_nothing() {
    env_explores_after_reading(json!({"tool_name": "Grep", "tool_input": {"pattern": "stripe"}}));
    env_explores_after_reading(bash("rg -n verify src"));
    env_explores_after_reading(json!({"tool_name": "Glob", "tool_input": {"pattern": "**/*.ts"}}));
    // A read of a file outside the chart.
    env_explores_after_reading(
        json!({"tool_name": "Read", "tool_input": {"file_path": "src/api/rate-limit.ts"}}),
    );
    env_explores_after_reading(bash("cat src/api/rate-limit.ts"));
}

/// Asks [`Q`], reads the Stripe chart's file, then makes the `then` tool call: nothing learned.
fn env_explores_after_reading(then: Value) {
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    hook_in(&env, SID, &then);
    stop(&env);
    assert_eq!(learned(&env, Q), None, "{then}");
    // Rejected: a later read of it alone does not teach it.
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), None, "{then}");
    // Searching first is exploring too: the answer may have come from the search.
    ask_shown(&env, Q);
    hook_in(&env, SID, &then);
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), None, "{then}");
    // The control: asked again, read and nothing else, it learns.
    ask_shown(&env, Q);
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), Some(a.id.clone()), "{then}");
}

/// A `related` chart (possibly related) is never learned, only a `candidate` one.
#[test]
fn a_related_chart_is_never_learned() {
    let env = three_charts();
    let q = "Where are Stripe payment webhooks verified and stored today?";
    let related = ask_in(&env, SID, q);
    let stripe = &related[0];
    assert_eq!(stripe.files, ["src/api/stripe.ts"]);
    let stderr = env.run(&["ask", q]).code(1).stderr;
    assert!(shown_lines(&stderr, &["candidate "]).is_empty(), "{stderr}");
    read(&env, &stripe.files[0]);
    stop(&env);
    assert_eq!(learned(&env, q), None);
    assert!(!learned_by(&env, &stripe.id, q));
    // The control: a strong candidate of another wording, read, is learned.
    ask_shown(&env, Q);
    read(&env, &stripe.files[0]);
    stop(&env);
    assert_eq!(learned(&env, Q), Some(stripe.id.clone()));
}

/// Words with a code ("2", "v2") the chart does not hold are never learned, and the refusal is
/// final.
#[test]
fn words_with_a_code_the_chart_lacks_are_not_learned() {
    let env = three_charts();
    let q = "Where are Stripe payment webhooks still verified and stored 2?";
    let shown = shown_lines(
        &{
            hook_in(&env, SID, &bash(&format!("capn ask '{q}'")));
            env.run(&["ask", q]).code(1).stderr
        },
        &["candidate "],
    );
    let stripe = shown
        .iter()
        .find(|s| s.files == ["src/api/stripe.ts"])
        .unwrap();
    read(&env, "src/api/stripe.ts");
    stop(&env);
    assert!(!learned_by(&env, &stripe.id, q));
    read(&env, "src/api/stripe.ts");
    stop(&env);
    assert!(!learned_by(&env, &stripe.id, q));
    assert_eq!(learned(&env, q), None);
    // The control: without the code, the same read teaches it.
    ask_shown(&env, Q);
    read(&env, "src/api/stripe.ts");
    stop(&env);
    assert_eq!(learned(&env, Q), Some(stripe.id.clone()));
}

/// A decision made while the turn ends in another project is dropped, not applied there.
#[test]
fn learning_never_lands_in_another_project() {
    let (env, a, _) = shown_two();
    // A second project with the same chart (the same id), under the same HOME.
    let other = env.tmp.path().join("other");
    std::fs::create_dir_all(other.join("src/api")).unwrap();
    let git = env.git_cmd(&other, &["init", "-q"]).status().unwrap();
    assert!(git.success());
    let run = |args: &[&str]| env.run_cmd(env.cmd_in(&other, args), b"").ok();
    run(&["init"]);
    std::fs::copy(env.root.join(&a.files[0]), other.join(&a.files[0])).unwrap();
    let q = "Where are Stripe payment webhooks verified and stored?";
    run(&["chart", q, "--files", &a.files[0]]);
    read(&env, &a.files[0]);
    let stop_there = hook_payload("Stop", SID, &other, json!({"stop_hook_active": false}));
    env.run_stdin(&["hook", "stop"], &stop_there).ok();
    let other_entry = std::fs::read_to_string(other.join(format!(".capn/entries/{}.md", a.id)));
    assert!(!other_entry.unwrap().contains(Q));
    // Dropped: the turn's end in the project asked in does not apply it later either.
    stop(&env);
    assert_eq!(learned(&env, Q), None);
    // The control: asked, read and ended in the same project.
    ask_shown(&env, Q);
    learns(&env, &a);
}

/// Shell commands that write a chart's file or read none of it are no reads.
#[test]
fn writes_and_empty_reads_of_a_charts_file_teach_nothing() {
    let (env, a, _) = shown_two();
    let f = &a.files[0];
    for cmd in [
        format!("cat /dev/null > {f}"),
        format!("head -c 0 {f}"),
        format!("tail -n 0 {f}"),
        format!("echo x >> {f}"),
        format!("cat src/api/webhooks.ts.bak > {f}"),
    ] {
        ask_shown(&env, Q);
        hook_in(&env, SID, &bash(&cmd));
        stop(&env);
        assert_eq!(learned(&env, Q), None, "{cmd}");
    }
    // The control: a real read.
    ask_shown(&env, Q);
    hook_in(&env, SID, &bash(&format!("cat {f}")));
    stop(&env);
    assert_eq!(learned(&env, Q), Some(a.id.clone()));
}

/// A learned phrasing is listed as learned, apart from the confirmed ones; the entry file is
/// not touched (in a shared store nothing reaches git), and the hooks say nothing of it.
#[test]
fn a_learned_phrasing_is_listed_as_learned_and_stays_out_of_the_entry() {
    let (env, a, _) = shown_two();
    let plain = three_charts();
    read(&env, &a.files[0]);
    stop(&env);
    let body = |e: &Env| {
        let text = entry(e, &a.id);
        text.lines()
            .filter(|l| !l.starts_with("at: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&env), body(&plain));
    let list = env.run(&["list"]).ok().stdout;
    let line = format!("  learned from use (ranks, never answers): {Q}\n");
    assert!(list.contains(&line), "{list}");
    assert_eq!(list.replace(&line, ""), plain.run(&["list"]).ok().stdout);
    let start = json!({"source": "startup"});
    let said = |e: &Env| hook(e, "SessionStart", "session-start", start.clone()).stdout;
    assert_eq!(said(&env), said(&plain));
    // Confirmed with --like, the words answer.
    env.run(&["chart", Q, "--like", &a.id]).ok();
    assert_eq!(answer(&env, Q), Some((a.id.clone(), 100)));
}

/// A tool call with a malformed session id is passed over quietly: nothing on either stream.
#[test]
fn a_malformed_session_id_is_passed_over_quietly() {
    let (env, a, _) = shown_two();
    for extra in [
        json!({"tool_name": "Read", "tool_input": {"file_path": env.root.join(&a.files[0])}}),
        bash(&format!("capn ask {}", shell_words::quote(Q))),
    ] {
        let run = env.run_stdin(
            &["hook", "pre-tool-use"],
            &hook_payload("PreToolUse", "../bad", &env.root, extra),
        );
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (0, "", "")
        );
    }
}

/// A chart re-charted on other files between the ask and the turn's end learns nothing: the
/// agent read the files the ask showed, not the chart's new ones (a tester's repro).
#[test]
fn a_chart_re_charted_on_other_files_meanwhile_learns_nothing() {
    let (env, a, _) = shown_two();
    read(&env, &a.files[0]);
    env.write("src/log.ts", "export function log() {}\n");
    let question = entry(&env, &a.id)
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap()
        .to_string();
    env.run(&["chart", &question, "--files", "src/log.ts"]).ok();
    stop(&env);
    assert!(!learned_by(&env, &a.id, Q), "{}", entry(&env, &a.id));
    assert_eq!(learned(&env, Q), None);
}

/// The forms agents give `capn ask` still name the question: `2>&1` and other redirections, a
/// pipe, `--`, a `timeout` or `env` wrapper (a tester's repro: none of them learned).
#[test]
fn the_usual_forms_of_an_ask_command_are_recognised() {
    for form in [
        "capn ask {q} 2>&1",
        "capn ask {q} 2>&1 | head -20",
        "capn ask {q} 2>/dev/null",
        "timeout 10 capn ask {q}",
        "env CAPN_X=1 capn ask -- {q}",
    ] {
        let env = three_charts();
        let command = form.replace("{q}", &shell_words::quote(Q));
        hook_in(&env, SID, &bash(&command));
        let shown = shown_lines(&env.run(&["ask", Q]).code(1).stderr, &["candidate "]);
        let a = &shown[0];
        read(&env, &a.files[0]);
        stop(&env);
        assert!(learned_by(&env, &a.id, Q), "{form}: {}", entry(&env, &a.id));
    }
}

/// After the check, any other tool call (a listing, `git show`, a tool capn does not know) is
/// exploring further: nothing is learned (a tester's repro).
#[test]
fn any_other_tool_call_after_the_check_counts_as_exploring() {
    for call in [
        bash("ls -R src"),
        bash("git show HEAD:src/other.ts"),
        bash("awk 1 src/other.ts"),
        json!({"tool_name": "LS", "tool_input": {"path": "src"}}),
        json!({"tool_name": "mcp__fs__read", "tool_input": {"path": "src/other.ts"}}),
    ] {
        let (env, a, _) = shown_two();
        read(&env, &a.files[0]);
        hook_in(&env, SID, &call);
        stop(&env);
        assert!(!learned_by(&env, &a.id, Q), "{call}: learned");
    }
}
