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
const Q: &str = "Where are Stripe payment webhooks still verified and stored?";
const SID: &str = "learn-session";

/// A shown chart: its id and files, as the `candidate`/`related` line printed them.
#[derive(Debug, Clone)]
struct Shown {
    id: String,
    files: Vec<String>,
}

/// Asks `q` (a miss) and returns the charts it showed, in order.
fn ask_shown(env: &Env, q: &str) -> Vec<Shown> {
    let run = env.run(&["ask", q]).code(1);
    run.stderr
        .lines()
        .filter_map(|l| {
            l.strip_prefix("candidate ")
                .or_else(|| l.strip_prefix("related "))
        })
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

fn hook(env: &Env, event: &str, sub: &str, extra: Value) -> Run {
    env.run_stdin(&["hook", sub], &hook_payload(event, SID, &env.root, extra))
        .ok()
}

/// The agent reads `rel` with Claude Code's Read tool (absolute path, as Claude Code sends it).
fn read(env: &Env, rel: &str) -> Run {
    let path = env.root.join(rel);
    hook(
        env,
        "PreToolUse",
        "pre-tool-use",
        json!({"tool_name": "Read", "tool_input": {"file_path": path}}),
    )
}

fn stop(env: &Env) -> Run {
    hook(env, "Stop", "stop", json!({"stop_hook_active": false}))
}

fn entry(env: &Env, id: &str) -> String {
    env.read(&format!(".capn/entries/{id}.md"))
}

/// Asks `q` again: `Some(first answer's id, score)` or `None` on a miss.
fn answer(env: &Env, q: &str) -> Option<(String, u64)> {
    let run = env.run(&["ask", q]);
    if run.code != 0 {
        return None;
    }
    let first = run.jsonl().into_iter().next()?;
    Some((first["id"].as_str()?.to_string(), first["score"].as_u64()?))
}

/// [`three_charts`], asked [`Q`]: the env and the first two charts shown.
fn shown_two() -> (Env, Shown, Shown) {
    let env = three_charts();
    let shown = ask_shown(&env, Q);
    assert!(shown.len() >= 2, "expected two shown charts: {shown:?}");
    (env, shown[0].clone(), shown[1].clone())
}

#[test]
fn a_read_of_a_shown_charts_file_teaches_it_the_words_at_the_turns_end() {
    let (env, a, b) = shown_two();
    let b_before = entry(&env, &b.id);
    assert_eq!(read(&env, &a.files[0]).stdout, "");
    // Nothing is learned before the turn ends.
    assert_eq!(answer(&env, Q), None);
    assert_eq!(stop(&env).stdout, "");
    assert_eq!(answer(&env, Q), Some((a.id.clone(), 100)));
    assert!(entry(&env, &a.id).contains(Q));
    assert_eq!(entry(&env, &b.id), b_before);
}

#[test]
fn no_read_teaches_nothing() {
    let (env, a, b) = shown_two();
    let before = (entry(&env, &a.id), entry(&env, &b.id));
    // A read of a file no shown chart has.
    env.write("src/other.ts", "x\n");
    read(&env, "src/other.ts");
    stop(&env);
    assert_eq!(answer(&env, Q), None);
    assert_eq!((entry(&env, &a.id), entry(&env, &b.id)), before);
    // The control: the same turn with a read of a shown chart's file learns.
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(answer(&env, Q), Some((a.id, 100)));
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
    assert_eq!(answer(&env, Q), None);
    // The control: the Stripe chart's own file is half of its files.
    let s = shown.iter().find(|s| s.files.len() == 2).unwrap();
    read(&env, "src/api/stripe.ts");
    stop(&env);
    assert_eq!(answer(&env, Q), Some((s.id.clone(), 100)));
}

#[test]
fn words_the_agent_charted_itself_are_not_learned_again() {
    let (env, a, _) = shown_two();
    // A second rewording that shows the same chart first: the control, learned in the same turn.
    let q2 = "Where are Stripe payment webhooks verified and stored today?";
    assert_eq!(ask_shown(&env, q2)[0].id, a.id);
    read(&env, &a.files[0]);
    env.write("src/api/own.ts", "mine()\n");
    env.run(&["chart", Q, "--files", "src/api/own.ts"]).ok();
    stop(&env);
    assert!(!entry(&env, &a.id).contains(Q));
    let (id, score) = answer(&env, Q).unwrap();
    assert_ne!(id, a.id);
    assert_eq!(score, 100);
    assert_eq!(answer(&env, q2), Some((a.id, 100)));
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
    // Back as charted: the words were not taken, and the evidence is spent.
    env.write(&a.files[0], &was);
    stop(&env);
    assert_eq!(answer(&env, Q), None);
    // The control: asked and read again while current, it learns.
    ask_shown(&env, Q);
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(answer(&env, Q), Some((a.id, 100)));
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
    assert_eq!(answer(&env, Q), None);
    set_learn(&env, true);
    stop(&env);
    assert_eq!(answer(&env, Q), None);
    // The control: on throughout, the next read learns.
    read(&env, &a.files[0]);
    stop(&env);
    assert_eq!(answer(&env, Q), Some((a.id, 100)));
}

#[test]
fn learn_false_when_asked_records_nothing_to_learn_from() {
    let env = three_charts();
    set_learn(&env, false);
    let shown = ask_shown(&env, Q);
    set_learn(&env, true);
    read(&env, &shown[0].files[0]);
    stop(&env);
    assert_eq!(answer(&env, Q), None);
    // The control: asked with it on, the same read learns.
    ask_shown(&env, Q);
    read(&env, &shown[0].files[0]);
    stop(&env);
    assert_eq!(answer(&env, Q), Some((shown[0].id.clone(), 100)));
}

#[test]
fn the_hooks_print_the_same_bytes_with_evidence_pending() {
    // The same payloads in a project where nothing was shown, and in one where the reads are
    // evidence (learned at the prompt, the first of the two moments here).
    let plain = three_charts();
    let (env, a, _) = shown_two();
    let grep =
        json!({"tool_name": "Grep", "tool_input": {"pattern": "webhooks", "path": a.files[0]}});
    let prompt = json!({"prompt": "Where are payment webhooks handled in this project?"});
    let outputs = |env: &Env| {
        [
            read(env, &a.files[0]),
            hook(env, "PreToolUse", "pre-tool-use", grep.clone()),
            hook(
                env,
                "UserPromptSubmit",
                "user-prompt-submit",
                prompt.clone(),
            ),
            stop(env),
        ]
        .map(|r| (r.stdout, r.code))
    };
    assert_eq!(outputs(&env), outputs(&plain));
    assert_eq!(answer(&env, Q), Some((a.id, 100)));
    assert_eq!(answer(&plain, Q), None);
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
    let started = std::time::Instant::now();
    stop(&env);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    drop(lock);
    assert_eq!(answer(&env, Q), None);
    stop(&env);
    assert_eq!(answer(&env, Q), Some((a.id, 100)));
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
    env.run_stdin(
        &["hook", "stop", "--host", "codex"],
        &payload("Stop", json!({"stop_hook_active": false})),
    )
    .ok();
    assert_eq!(answer(&env, Q), Some((a.id, 100)));
}
