//! Hook inputs are bounded and the work on them linear (issue 18): a huge prompt, `cwd` or
//! tool-input field costs the parse of its payload and nothing more. Each case runs at and far
//! beyond its cap within a CPU bound, and 10x the input must cost at most 15x the CPU time (the
//! least of several runs). CPU time, not wall time: a test machine busy with other work must not
//! fail these; the release-build speed of the same attacks is `bench/inputs_bench.py`'s.
// The CPU-time tests read /proc: elsewhere only the memory-limit test runs.
#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

use crate::util::{Env, HANG_GUARD};
use serde_json::{json, Value};

/// CPU seconds a debug build may spend on one hook run whose payload is `bytes` long: 1 s plus
/// 0.5 s per MiB. Generous on purpose (the debug build parses a 13.5 MB prompt in well under a
/// second of CPU; a release build is held to 50 ms plus 25 ms per MiB by the bench), and still
/// far below what the unbounded parse cost (12 s for these inputs in a release build).
#[cfg(target_os = "linux")]
fn cpu_bound(bytes: usize) -> f64 {
    1.0 + 0.5 * bytes as f64 / (1024.0 * 1024.0)
}

fn store() -> Env {
    let env = Env::git();
    env.run(&["init"]).ok();
    for (q, f) in [
        (
            "Where are payment webhooks from Stripe handled?",
            "src/api/stripe-webhooks.ts",
        ),
        ("How does API rate limiting work?", "src/middleware/rl.ts"),
        ("How are team members invited?", "src/teams/invite.ts"),
    ] {
        env.write(f, &format!("// {q}\n"));
        env.run(&["chart", q, "--files", f]).ok();
    }
    env
}

/// The three attacks of the issue, as (hook, payload) for an input of about `n` bytes.
fn payload(env: &Env, kind: &str, n: usize) -> (&'static str, Vec<u8>) {
    let root = env.root.display().to_string();
    let (event, v): (&str, Value) = match kind {
        "prompt" => (
            "user-prompt-submit",
            json!({"session_id": "b1", "hook_event_name": "UserPromptSubmit", "cwd": root,
                   "prompt": format!("the stripe webhook handler drops retries {}", "word ".repeat(n / 5))}),
        ),
        "brace" => (
            "pre-tool-use",
            json!({"session_id": "b1", "hook_event_name": "PreToolUse", "cwd": root,
                   "tool_name": "Bash",
                   "tool_input": {"command": format!("find . -name '{}'", "x.{a}".repeat(n / 5))}}),
        ),
        "cwd" => (
            "user-prompt-submit",
            json!({"session_id": "b1", "hook_event_name": "UserPromptSubmit",
                   "cwd": format!("{root}{}", "/a".repeat(n / 2)),
                   "prompt": "the stripe webhook handler drops retries"}),
        ),
        _ => unreachable!(),
    };
    (event, serde_json::to_vec(&v).unwrap())
}

/// The least CPU time (seconds) of one run of `capn hook <event>` on `body`, over `runs`
/// measurements of `reps` runs each (several runs per measurement, so the clock-tick
/// granularity of 10 ms does not swamp a short run). Each run must exit 0.
#[cfg(target_os = "linux")]
fn least_cpu(env: &Env, event: &str, body: &[u8], runs: usize, reps: usize) -> f64 {
    (0..runs)
        .map(|_| hook_cpu_seconds(env, event, body, reps) / reps as f64)
        .fold(f64::INFINITY, f64::min)
}

#[cfg(target_os = "linux")]
#[test]
fn huge_inputs_stay_within_the_cpu_bound() {
    let env = store();
    // At the caps (8 KiB prompt and field, 4 KiB path) and far beyond them: the issue's 13.5 MB
    // prompt, 400 KB brace glob and 200 KB cwd.
    for (kind, sizes) in [
        ("prompt", [8 * 1024, 13_500_000]),
        ("brace", [8 * 1024, 400_000]),
        ("cwd", [4 * 1024, 200_000]),
    ] {
        for n in sizes {
            let (event, body) = payload(&env, kind, n);
            let cpu = least_cpu(&env, event, &body, 1, 1);
            assert!(
                cpu < cpu_bound(body.len()),
                "{kind} of {n} bytes used {cpu:.2} s of CPU"
            );
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn ten_times_the_input_costs_at_most_fifteen_times_the_cpu() {
    let env = store();
    for kind in ["prompt", "brace", "cwd"] {
        // Enough runs per measurement that each is many clock ticks (10 ms) long: one run of
        // the small input takes a few ms, so with few runs a tick more or less on a loaded
        // machine moved the ratio past the bound.
        let cpu = |n: usize, reps: usize| {
            let (event, body) = payload(&env, kind, n);
            least_cpu(&env, event, &body, 3, reps)
        };
        let (small, large) = (cpu(200_000, 24), cpu(2_000_000, 4));
        assert!(
            large <= 15.0 * small,
            "{kind}: 200 KB used {small:.3} s of CPU, 2 MB {large:.3} s"
        );
    }
}

/// A payload of about `n` bytes whose `field` holds `shape` (finding 1 of the issue-18 review):
/// one huge array, an object of many keys, or many nested arrays. Built as text, not as a
/// `serde_json::Value`, so the test itself stays small.
fn hostile(root: &str, event: &str, field: &str, shape: &str, n: usize) -> Vec<u8> {
    let body = hostile_value(shape, n);
    hostile_around(root, event, field, &body)
}

/// The value of about `n` bytes [`hostile`] puts in its field.
fn hostile_value(shape: &str, n: usize) -> String {
    match shape {
        "array" => format!("[{}0]", "0,".repeat(n / 2)),
        "keys" => {
            let keys: Vec<String> = (0..n / 12).map(|i| format!("\"k{i:07}\":0")).collect();
            format!("{{{}}}", keys.join(","))
        }
        "nested" => {
            let inner = format!("[{}0]", "0,".repeat(999));
            let deep = format!("{}0{}", "[".repeat(40), "]".repeat(40));
            format!("[{}0]", format!("{inner},{deep},").repeat(n / 2100))
        }
        _ => unreachable!(),
    }
}

/// The payload of [`hostile`] around an already built `body`.
fn hostile_around(root: &str, event: &str, field: &str, body: &str) -> Vec<u8> {
    let head = format!(
        r#"{{"session_id":"b1","hook_event_name":"{event}","cwd":{},"tool_name":"Grep","#,
        serde_json::to_string(root).unwrap()
    );
    format!(r#"{head}"{field}":{body},"prompt":"the stripe webhook handler"}}"#).into_bytes()
}

/// Every hook on both hosts, on an 8 MB array, 650,000 keys and nested arrays in `tool_input`
/// (and the array in `prompt`), runs in bounded memory and within the budget: the values are
/// bounded while parsed. Before, serde built the whole tree first (1.1 GB for a 16 MB array, seconds of CPU); the
/// address-space limit of 384 MiB makes that an allocation failure, so this fails without the
/// fix.
#[cfg(unix)]
#[test]
fn huge_values_in_any_field_are_bounded_while_parsed() {
    let env = store();
    let root = env.root.display().to_string();
    let bin = env!("CARGO_BIN_EXE_capn");
    // Each value built once (building them is most of this test's own work), then every hook
    // line runs on each, a few at a time.
    let cases = [
        ("tool_input", "array"),
        ("tool_input", "keys"),
        ("tool_input", "nested"),
        ("prompt", "array"),
    ];
    let values: Vec<String> = ["array", "keys", "nested"]
        .iter()
        .map(|shape| hostile_value(shape, 8_000_000))
        .collect();
    let value = |shape: &str| {
        &values[["array", "keys", "nested"]
            .iter()
            .position(|s| *s == shape)
            .unwrap()]
    };
    let lines = crate::util::hook_command_lines();
    const WORKERS: usize = 3;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|w| {
                let (env, root, value, lines) = (&env, &root, &value, &lines);
                scope.spawn(move || {
                    for (args, event) in lines.iter().skip(w).step_by(WORKERS) {
                        let sub = args[1..].join(" ");
                        for (field, shape) in cases {
                            let body = hostile_around(root, event, field, value(shape));
                            let c = env.sh(&format!("ulimit -v 393216 && exec '{bin}' hook {sub}"));
                            // The memory limit is what this test is about (time is the linear
                            // test's): a run only has to end, however busy the machine.
                            let (run, _) = env.run_bounded(c, &body, false, HANG_GUARD);
                            assert_eq!(run.code, 0, "{sub} {field} {shape}: {}", run.stderr);
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("a hook failed on a huge value (see above)");
        }
    });
}

#[cfg(target_os = "linux")]
#[test]
fn a_huge_tool_input_costs_linear_cpu() {
    let env = store();
    let root = env.root.display().to_string();
    for shape in ["array", "keys"] {
        let cpu = |n: usize| {
            let body = hostile(&root, "PreToolUse", "tool_input", shape, n);
            least_cpu(&env, "pre-tool-use", &body, 3, 2)
        };
        let (small, large) = (cpu(1_000_000), cpu(10_000_000));
        assert!(
            large <= 15.0 * small,
            "{shape}: 1 MB used {small:.3} s of CPU, 10 MB {large:.3} s"
        );
    }
}

/// The CPU time (user and system, in seconds) of `reps` hook runs, one after the other, each
/// on `payload` (from a file, as stdin), read from the wrapping shell's children times
/// (`/proc/<sh>/stat` fields 16 and 17, in clock ticks of 1/100 s): CPU, not wall time, so a
/// busy test machine does not change it. Fails the test when a run exits other than 0.
#[cfg(target_os = "linux")]
fn hook_cpu_seconds(env: &Env, event: &str, payload: &[u8], reps: usize) -> f64 {
    let bin = env!("CARGO_BIN_EXE_capn");
    let input = env.tmp.path().join("payload.json");
    std::fs::write(&input, payload).unwrap();
    let mut c = env.sh(&format!(
        "i=0; while [ $i -lt {reps} ]; do '{bin}' hook {event} <'{}' >/dev/null 2>&1 || exit 1; i=$((i+1)); done; cat /proc/$$/stat",
        input.display()
    ));
    c.current_dir(&env.root);
    let (run, _) = env.run_bounded(c, b"", false, HANG_GUARD);
    assert_eq!(run.code, 0, "capn hook {event} failed: {}", run.stderr);
    let stat = run.stdout.trim();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 16 and 17 of the whole line are 14 and 15 after "pid (comm)".
    let ticks: f64 = f[13].parse::<f64>().unwrap() + f[14].parse::<f64>().unwrap();
    ticks / 100.0
}

/// Issue 29: 1,990 entries of about 3.8 KB (within the hooks' read bounds), no usable index, and
/// `.capn/index.bin` a directory, so no index can be saved. Before, every hook built the index
/// in memory and again under the writers' lock, and failed to save it: seconds of CPU on every
/// prompt. Now a hook spends at most its budget (300 ms of CPU in a release build) once, and
/// the hooks after it, finding the store in the state they gave up on, do not build again.
#[cfg(target_os = "linux")]
#[test]
fn an_index_that_cannot_be_saved_costs_the_hooks_their_budget_once() {
    let env = store();
    let details = "payment webhook stripe retry invoice customer session ".repeat(62);
    for i in 0..1990u32 {
        let f = format!("src/gen/f{i}.ts");
        env.write(&f, &format!("// {i}\n"));
        let hash: String = {
            use sha2::Digest;
            sha2::Sha256::digest(format!("// {i}\n").as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        };
        let id = format!("{:08x}", 0x3000_0000u32 + i);
        env.write(
            &format!(".capn/entries/{id}.md"),
            &format!(
                "---\ncapn: 1\nid: {id}\nat: 2026-12-04T12:00:00.000Z\nfiles:\n  {f}: {hash}\n---\n\n# Where is the billing step {i} of the invoice flow?\n\n{details}\n"
            ),
        );
    }
    for f in ["index.bin", "vectors.bin", "map.json", "stat.bin"] {
        let _ = std::fs::remove_file(env.root.join(".capn").join(f));
    }
    std::fs::create_dir(env.root.join(".capn/index.bin")).unwrap();
    let payload = crate::util::hook_payload(
        "UserPromptSubmit",
        "budget1",
        &env.root,
        json!({"prompt": "where is the stripe payment webhook retried"}),
    );
    let cpu: Vec<f64> = (0..4)
        .map(|_| hook_cpu_seconds(&env, "user-prompt-submit", &payload, 1))
        .collect();
    // A debug build is several times slower than a release one; the budget check still stops
    // the first build early, and the others do not start one.
    assert!(cpu[0] < 2.0, "the first hook used {:.2} s of CPU", cpu[0]);
    let later: f64 = cpu[1..].iter().sum();
    assert!(
        later < 1.0,
        "the next three hooks used {later:.2} s of CPU: {cpu:?}"
    );
    // `ask`, a writer, still answers (and reports the index it cannot save).
    let run = env.run(&["ask", "Where is the billing step 7 of the invoice flow?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("index.bin"), "{}", run.stderr);
    let run = env.run(&["doctor"]);
    assert!(
        run.stdout
            .contains("derived file .capn/index.bin: it is a folder"),
        "{}",
        run.stdout
    );
}

/// Issue 29, the costliest store found within the read bounds: seven entries of about 1 MB
/// of distinct words (a vast vocabulary: 3 s of CPU and 250 MB in a release build before, all
/// in steps that do not pass between entries). The budget is watched from outside the build,
/// so the first hook stops near it and the next ones do not start.
#[cfg(target_os = "linux")]
#[test]
fn a_vast_vocabulary_is_cut_off_by_the_budget() {
    let env = store();
    let mut rng = fastrand::Rng::with_seed(29);
    for i in 0..7u32 {
        let mut details = String::with_capacity(1_000_000);
        while details.len() < 1_000_000 {
            for _ in 0..7 {
                details.push(rng.lowercase());
            }
            details.push(' ');
        }
        let id = format!("{:08x}", 0x5000_0000u32 + i);
        env.write(
            &format!(".capn/entries/{id}.md"),
            &format!(
                "---\ncapn: 1\nid: {id}\nat: 2026-12-04T12:00:00.000Z\nfiles:\n  src/api/stripe-webhooks.ts: {}\n---\n\n# Where is the retry step {i}?\n\n{details}\n",
                "0".repeat(64)
            ),
        );
    }
    let _ = std::fs::remove_file(env.root.join(".capn/index.bin"));
    std::fs::create_dir(env.root.join(".capn/index.bin")).unwrap();
    let payload = crate::util::hook_payload(
        "UserPromptSubmit",
        "budget2",
        &env.root,
        json!({"prompt": "where is the stripe payment webhook retried"}),
    );
    let cpu: Vec<f64> = (0..3)
        .map(|_| hook_cpu_seconds(&env, "user-prompt-submit", &payload, 1))
        .collect();
    assert!(cpu[0] < 2.0, "the first hook used {:.2} s of CPU", cpu[0]);
    let later: f64 = cpu[1..].iter().sum();
    assert!(
        later < 1.0,
        "the next hooks used {later:.2} s of CPU: {cpu:?}"
    );
}
