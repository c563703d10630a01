//! Generated hook and status-line inputs: a few thousand payloads from a fixed seed (random
//! bytes, truncated and deeply nested JSON, wrong types, hostile `session_id` and
//! `transcript_path` values, a BOM, lone surrogates, stdin held open by the host). Every run must
//! exit 0, print at most one JSON object (the status line: exactly one line), never wait for a
//! held-open stdin to close, and write nothing outside the state dir.

#![cfg(unix)]

use crate::util::{Env, HANG_GUARD};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A fixed (seeded) stream of pseudo-random choices.
struct Rng(fastrand::Rng);

impl Rng {
    fn seeded(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.u64(..)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n)
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Every file under `dir` except the state dir, with its bytes.
fn snapshot(dir: &Path, skip: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.starts_with(skip) {
                continue;
            }
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
            } else {
                out.insert(p, Vec::new());
            }
        }
    }
    out
}

fn hostile_strings(env: &Env) -> Vec<Value> {
    let t = env.tmp.path();
    vec![
        json!("../../outside"),
        json!("/"),
        json!("."),
        json!(".."),
        json!("a/b"),
        json!(""),
        json!("x".repeat(5000)),
        json!("ok-session-1"),
        json!("ok-session-2"),
        json!("\u{0}nul"),
        json!("\u{feff}bom"),
        json!(t.join("decoy.jsonl").display().to_string()),
        json!(t.join("fifo").display().to_string()),
        json!(t.join("project").display().to_string()),
        json!(t.join("missing/x.jsonl").display().to_string()),
        json!(t.join("link-out").display().to_string()),
        json!(12345),
        json!(-1.5e300),
        json!(null),
        json!(true),
        json!([1, "a", {}]),
        json!({"nested": {"deeper": [null]}}),
    ]
}

const FIELDS: [&str; 14] = [
    "tool_name",
    "tool_input",
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "source",
    "trigger",
    "prompt",
    "model",
    "context_window",
    "agent_id",
    "workspace",
    "exceeds_200k_tokens",
];

fn payload(rng: &mut Rng, env: &Env, event: &str) -> Vec<u8> {
    let strings = hostile_strings(env);
    let mut v = json!({
        "session_id": format!("gen-{}", rng.below(4)),
        "transcript_path": env.tmp.path().join("decoy.jsonl").display().to_string(),
        "cwd": env.root.display().to_string(),
        "hook_event_name": event,
        "source": rng.pick(&["startup", "resume", "clear", "compact"]),
        "trigger": rng.pick(&["manual", "auto"]),
        "prompt": "go on and fix the payment handler",
        "tool_name": rng.pick(&["Grep", "Glob", "Bash", "Task", "Edit"]),
        "tool_input": {"pattern": "payment|webhook", "command": "rg -n payment src", "prompt": "find the payment code"},
        "model": {"id": "claude-x", "display_name": "X"},
        "context_window": {"used_percentage": rng.below(120), "context_window_size": 200000},
    });
    for _ in 0..rng.below(4) {
        let k = *rng.pick(&FIELDS);
        v[k] = rng.pick(&strings).clone();
    }
    let mut bytes = serde_json::to_vec(&v).unwrap();
    match rng.below(12) {
        0 => bytes.truncate(rng.below(bytes.len() + 1)),
        1 => {
            let mut b = b"\xef\xbb\xbf".to_vec();
            b.extend_from_slice(&bytes);
            bytes = b;
        }
        2 => {
            let s = String::from_utf8(bytes).unwrap();
            bytes = s.replacen("go on", "cut \\ud83d here", 1).into_bytes();
            bytes = String::from_utf8(bytes)
                .unwrap()
                .replacen("\"X\"", "\"\\udc00\\q\"", 1)
                .into_bytes();
        }
        3 => {
            let depth = 1 + rng.below(5000);
            bytes = "[".repeat(depth).into_bytes();
            bytes.extend_from_slice(&b"]".repeat(depth));
        }
        4 => bytes = (0..rng.below(300)).map(|_| rng.next() as u8).collect(),
        5 => bytes.extend_from_slice(b" {\"second\":1}"),
        6 => bytes = b"[]".to_vec(),
        _ => {}
    }
    bytes
}

/// The project the generated inputs run in (initialised, three charts, offers on), and beside it
/// in the temp dir the files payloads may name: a transcript decoy, a FIFO and a symlink leading
/// out.
fn set_up(env: &Env) {
    env.run(&["init"]).ok();
    // Charts and offers on, so prompts and searches go through the offer path too.
    for (q, f) in [
        ("Where is the payment handler?", "src/payment.ts"),
        ("Where are webhooks retried?", "src/webhooks.ts"),
        ("How is the invoice mailed?", "src/invoice.ts"),
    ] {
        env.write(f, "x\n");
        env.run(&["chart", q, "--files", f]).ok();
    }
    let cfg = env.root.join(".capn/config.json");
    let mut c: Value = serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    c["offer"] = json!(true);
    std::fs::write(&cfg, c.to_string()).unwrap();
    let t = env.tmp.path();
    std::fs::write(
        t.join("decoy.jsonl"),
        "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n",
    )
    .unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(t.join("fifo"))
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink(t.join("decoy.jsonl"), t.join("link-out")).unwrap();
}

#[test]
fn generated_inputs_never_hurt_the_session() {
    let env = Env::git();
    set_up(&env);
    let t = env.tmp.path();
    let state = env.home.join(".local/state");
    let before = snapshot(t, &state);
    // Every event on both hosts, and the statusline.
    let mut commands = crate::util::hook_command_lines();
    commands.push((vec!["statusline"], ""));
    commands.push((vec!["statusline", "--warn-at", "50"], ""));
    let mut rng = Rng::seeded(0x5eed_cafe_f00d_1234);
    let runs = 2000;
    // The same seeded stream of inputs as one after the other, run by a few workers at once
    // (as a host runs hooks in parallel): most of a run is spent waiting, for a process to
    // start or a held-open stdin to go quiet, so this is what keeps the test short.
    let inputs: Vec<(usize, &[&str], Vec<u8>, bool)> = (0..runs)
        .map(|i| {
            let (args, event) = rng.pick(&commands);
            let input = payload(&mut rng, &env, event);
            // About one run in twelve keeps stdin open, as a host may.
            let hold = rng.below(12) == 0;
            (i, &args[..], input, hold)
        })
        .collect();
    const WORKERS: usize = 6;
    let slowest = std::thread::scope(|s| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|w| {
                let (env, inputs) = (&env, &inputs);
                s.spawn(move || {
                    inputs
                        .iter()
                        .skip(w)
                        .step_by(WORKERS)
                        .map(|(i, args, input, hold)| check_run(env, *i, args, input, *hold))
                        .max()
                        .unwrap_or_default()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a generated input failed (see above)"))
            .max()
            .unwrap()
    });
    let after = snapshot(t, &state);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "files appeared or vanished outside the state dir"
    );
    for (p, b) in &before {
        assert_eq!(&after[p], b, "{} changed", p.display());
    }
    println!("{runs} generated inputs, slowest run {slowest:?}");
}

/// Runs `capn args` on generated input `i` and checks the run: exit 0, at most one JSON object
/// (the status line: one line). Returns how long it took (for the report, not judged).
fn check_run(env: &Env, i: usize, args: &[&str], input: &[u8], hold: bool) -> Duration {
    let (run, took) = env.run_bounded(env.cmd(args), input, hold, HANG_GUARD);
    let shown = String::from_utf8_lossy(input)
        .chars()
        .take(300)
        .collect::<String>();
    assert_eq!(
        run.code, 0,
        "run {i} {args:?} exited {} (held open: {hold}): {shown}\n{}",
        run.code, run.stderr
    );
    // A generated input is written whole at once, so the read ends on it even when stdin stays
    // open: the tests lift the hooks' 2 s read limit (`Env::cmd`), so a hook that waited for
    // stdin to close would be killed by the hang guard above.
    if args[0] == "statusline" {
        assert_eq!(run.stdout.lines().count(), 1, "run {i}: {:?}", run.stdout);
    } else if crate::util::is_pre_compact_text(args, &run.stdout) {
        // Claude Code's PreCompact takes plain text: the instructions for the summary.
        assert!(
            run.stdout.chars().count() <= 3_600,
            "run {i}: {} characters",
            run.stdout.chars().count()
        );
    } else if !run.stdout.trim().is_empty() {
        let mut it = serde_json::Deserializer::from_str(&run.stdout).into_iter::<Value>();
        let first = it
            .next()
            .unwrap()
            .unwrap_or_else(|e| panic!("run {i}: {e}"));
        assert!(first.is_object(), "run {i}: {}", run.stdout);
        assert!(
            it.next().is_none(),
            "run {i}: more than one value: {}",
            run.stdout
        );
    }
    took
}
