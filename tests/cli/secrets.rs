//! A secret never enters the memory: `chart` (question, details, files), `chart --like`, learning
//! from use and `state save` refuse, or skip, text holding any format of secret the rules know
//! (every sample of `src/secret/samples.rs`), naming the kind and where, never the value, and
//! write nothing; no file of the store keeps one of a charted file; an entry holding one (a teammate's, pulled) is
//! never shown or offered, and `doctor` names it.

#[path = "../../src/secret/samples.rs"]
#[allow(dead_code)]
mod samples;

use crate::offers::{chart_all, OTHER_CHARTS};
use crate::util::{files_under, holding, hook_payload, Env, Run};
use serde_json::json;

/// Every sample secret (the rule id, the text holding it).
fn formats() -> Vec<(&'static str, String)> {
    samples::samples()
        .into_iter()
        .map(|(id, hit, _)| (id, hit))
        .collect()
}

/// The entry files of `env`'s store, with their bytes (empty when there is no store).
fn entries(env: &Env) -> Vec<(String, Vec<u8>)> {
    let Ok(dir) = std::fs::read_dir(env.root.join(".capn/entries")) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = dir
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// A git project set up with `capn init` and holding `src/a.ts`, to chart.
pub(crate) fn project_with_a_file() -> Env {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/a.ts", "export const a = 1;\n");
    env
}

/// No piece of `secret` 12 characters or longer (a run of ASCII letters and digits) is in
/// `stderr`; `what` names the case in the failure.
#[track_caller]
pub(crate) fn never_printed(stderr: &str, secret: &str, what: &str) {
    for piece in secret.split(|c: char| !c.is_ascii_alphanumeric()) {
        if piece.len() >= 12 {
            assert!(
                !stderr.contains(piece),
                "{what}: the value is printed: {stderr}"
            );
        }
    }
}

/// A refusal naming `field` and a kind and place, never any secret piece of `text`: its stderr.
#[track_caller]
fn refused(run: Run, id: &str, field: &str, text: &str) -> String {
    assert_eq!(run.code, 1, "{id}: {run:?}");
    assert!(run.stdout.is_empty(), "{id}: {run:?}");
    let said = format!("{field} holds what looks like ");
    assert!(run.stderr.contains(&said), "{id}: {}", run.stderr);
    // A one-line secret is placed by characters, one over several lines (a PEM block) by lines.
    assert!(
        run.stderr.contains("characters ") || run.stderr.contains("lines "),
        "{id}: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("nothing was written"),
        "{id}: {}",
        run.stderr
    );
    never_printed(&run.stderr, text, id);
    run.stderr
}

#[test]
fn chart_refuses_every_format_in_the_question_the_details_and_the_files() {
    let env = project_with_a_file();
    env.run(&["chart", "Where is a defined?", "--files", "src/a.ts"])
        .ok();
    let before = entries(&env);
    // A chart of `src/a.ts` with the arguments `more` added.
    let deploy = |more: &[&str]| {
        let mut args = vec![
            "chart",
            "Where is the deploy key read?",
            "--files",
            "src/a.ts",
        ];
        args.extend_from_slice(more);
        env.run(&args)
    };
    for (id, secret) in formats() {
        let one_line = secret.replace('\n', " ");
        let q = format!("Why does the deploy use {one_line}?");
        let run = env.run(&["chart", &q, "--files", "src/a.ts"]);
        refused(run, id, "the question", &secret);
        let details = format!("the key is {secret}");
        refused(deploy(&["--details", &details]), id, "--details", &secret);
        let file = format!("--file={secret}");
        refused(deploy(&[&file]), id, "--files", &secret);
    }
    assert_eq!(entries(&env), before, "nothing was written");
    // Words about secrets chart as usual.
    env.run(&[
        "chart",
        "Which job rotates the API key in STRIPE_SECRET_KEY?",
        "--files",
        "src/a.ts",
        "--details",
        "reads process.env.STRIPE_SECRET_KEY; token: see the vault; sha 9fceb02d0ae598e95dc970b74767f19372d61af8",
    ])
    .ok();
}

#[test]
fn the_refusal_says_where_in_characters() {
    let env = Env::git();
    env.write("src/a.ts", "a\n");
    let key = format!("AKIA{}", samples::fake(samples::UPPER32, 16, 1));
    let run = env
        .run(&[
            "chart",
            "Where is the key?",
            "--files",
            "src/a.ts",
            "--details",
            &format!("the key is {key} (rotated)"),
        ])
        .code(1);
    assert_eq!(
        run.stderr.lines().next().unwrap(),
        "capn: refusing to chart: --details holds what looks like an AWS access key ID (characters 12-31); capn never stores a secret (its memory is shown to agents, and a shared one is committed): leave the value out, name where it lives instead (a variable or file); nothing was written"
    );
    assert!(!env.root.join(".capn/entries").exists());
}

#[test]
fn chart_like_refuses_every_format() {
    let env = Env::git();
    env.write("src/a.ts", "a\n");
    env.run(&["chart", "Where is a defined?", "--files", "src/a.ts"])
        .ok();
    let id = entries(&env)[0].0.trim_end_matches(".md").to_string();
    let before = entries(&env);
    for (rule, secret) in formats() {
        let q = format!("Where is {} defined?", secret.replace('\n', " "));
        refused(
            env.run(&["chart", &q, "--like", &id]),
            rule,
            "the question",
            &secret,
        );
        let run = env.run(&[
            "chart",
            "Where is the a constant defined?",
            "--like",
            &id,
            &format!("--details={secret}"),
        ]);
        refused(run, rule, "--details", &secret);
    }
    assert_eq!(entries(&env), before, "nothing was written");
}

const STATE: &str = "# Compact Prep State\n## Active Plan\nnone\n## Current Phase\ndeploy\n## TaskList Summary\n- [ ] b\n## Session Decisions\nadopted B\n## Constraints and Blockers\n";
const STATE_END: &str =
    "\n## Worker Topology\nnone\n## Editing Files\nsrc/x.rs\n## Recovery Notes\nrerun\n";

#[test]
fn state_save_refuses_every_format() {
    let env = Env::git();
    let file = env.session_dir("s1").join("state.md");
    for (id, secret) in formats() {
        let text = format!("{STATE}the deploy uses {secret}{STATE_END}");
        let run = env.run_stdin(&["state", "save", "--session", "s1"], text.as_bytes());
        let said = refused(run, id, "the state", &secret);
        let place = if secret.contains('\n') {
            "(lines 11-"
        } else {
            "(line 11, characters "
        };
        assert!(said.contains(place), "{id}: {said}");
        assert!(!file.exists(), "{id}: nothing was written");
    }
    let text = format!("{STATE}the deploy reads DEPLOY_TOKEN from the vault{STATE_END}");
    env.run_stdin(&["state", "save", "--session", "s1"], text.as_bytes())
        .ok();
    assert!(file.exists());
}

/// Session `sid` asks `q` (a miss that shows candidates), reads the Stripe chart's file and ends
/// its turn: learning from use would add `q` to that chart.
fn ask_read_stop(env: &Env, sid: &str, q: &str) {
    let pre = |extra: serde_json::Value| {
        env.run_stdin(
            &["hook", "pre-tool-use"],
            &hook_payload("PreToolUse", sid, &env.root, extra),
        )
        .ok();
    };
    let command = format!("capn ask {}", shell_words::quote(q));
    pre(json!({"tool_name": "Bash", "tool_input": {"command": command}}));
    env.run(&["ask", q]).code(1);
    let path = env.root.join("src/api/stripe.ts");
    pre(json!({"tool_name": "Read", "tool_input": {"file_path": path}}));
    // The turn's transcript: the hooks saw every call it made (the ask, then the read).
    let transcript = env.tmp.path().join(format!("{sid}.jsonl"));
    std::fs::write(&transcript, crate::learn::transcript(&["Bash", "Read"])).unwrap();
    let end = crate::learn::stop_fields(&transcript);
    env.run_stdin(
        &["hook", "stop"],
        &hook_payload("Stop", sid, &env.root, end),
    )
    .ok();
}

/// `.capn/learned.json`, where learning from use keeps the words it learned (empty when none).
fn learned(env: &Env) -> String {
    std::fs::read_to_string(env.root.join(".capn/learned.json")).unwrap_or_default()
}

#[test]
fn learning_from_use_skips_words_holding_any_format() {
    let env = crate::phrasings::three_charts();
    let before = entries(&env);
    let learned_before = learned(&env);
    // Whatever keeps them out here (a secret's words make the chart a weak candidate, a word
    // with a digit is a code the chart does not hold, or the secret check, which the store's
    // own test covers alone), none is learned.
    for (n, (id, secret)) in formats().into_iter().enumerate() {
        let q = format!(
            "Where are Stripe payment webhooks still verified and stored with {}?",
            secret.replace('\n', " ")
        );
        ask_read_stop(&env, &format!("s{n}"), &q);
        assert_eq!(learned(&env), learned_before, "{id}: learned");
        assert_eq!(entries(&env), before, "{id}: an entry changed");
    }
    // The control: the same words without a secret are learned (they only rank the chart).
    let q = "Where are Stripe payment webhooks still verified and stored?";
    ask_read_stop(&env, "control", q);
    assert!(learned(&env).contains(q), "the control learns");
    assert_eq!(entries(&env), before, "learning writes no entry");
}

/// The chart of [`OTHER_CHARTS`]' store that the tests below put a secret in.
const STRIPE: (&str, &str) = (
    "Where are payment webhooks from Stripe handled?",
    "src/api/stripe-webhooks.ts",
);

/// A shared store whose Stripe chart a teammate's commit (pulled) gave a secret in its details.
fn pulled_with_a_secret(secret: &str) -> (Env, String) {
    let env = Env::git();
    env.run(&["init", "--shared"]).ok();
    chart_all(&env, &[STRIPE]);
    let id = entries(&env)[0].0.trim_end_matches(".md").to_string();
    chart_all(&env, &OTHER_CHARTS);
    let prompt = |sid: &str| {
        let p = json!({"session_id": sid, "hook_event_name": "UserPromptSubmit",
                       "cwd": env.root, "prompt": "the stripe payment webhook handler drops retries, fix it"});
        env.run_stdin(
            &["hook", "user-prompt-submit"],
            &serde_json::to_vec(&p).unwrap(),
        )
        .ok()
    };
    // The control: before the pull, the chart answers and is offered.
    env.run(&["ask", STRIPE.0]).ok();
    assert!(prompt("before").stdout.contains(STRIPE.1));
    let path = env.root.join(format!(".capn/entries/{id}.md"));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{}\nthe key: {secret}\n", text.trim_end())).unwrap();
    assert_eq!(prompt("after").stdout, "", "offered with a secret");
    (env, id)
}

#[test]
fn a_pulled_entry_holding_a_secret_is_never_shown_and_doctor_names_it() {
    let key = format!("sk_live_{}", samples::fake(samples::B62, 24, 35));
    let (env, id) = pulled_with_a_secret(&key);
    let run = env.run(&["ask", STRIPE.0]).code(1);
    assert!(!run.stdout.contains(&id), "{run:?}");
    assert!(
        run.stderr.contains(&format!(
            "chart {id} is not shown: it holds what looks like a secret"
        )),
        "{run:?}"
    );
    let grep = json!({"session_id": "g", "hook_event_name": "PreToolUse", "cwd": env.root,
                      "tool_name": "Grep", "tool_input": {"pattern": "stripe.*webhook", "path": "src/api"}});
    let run = env
        .run_stdin(
            &["hook", "pre-tool-use"],
            &serde_json::to_vec(&grep).unwrap(),
        )
        .ok();
    assert_eq!(run.stdout, "", "offered before a search");
    for args in [&["list"][..], &["list", "--json"]] {
        let run = env.run(args).ok();
        assert!(run.stdout.contains("withheld"), "{run:?}");
        assert!(!run.stdout.contains(STRIPE.0), "{run:?}");
    }
    let run = env.run(&["doctor"]);
    let rel = format!(".capn/entries/{id}.md");
    assert!(
        run.stdout.contains(&format!("FAILED entry {rel}: it holds what looks like a Stripe secret key in its details (characters 10-41): it is never shown or offered while it does\n")),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(&format!("fix: edit {rel} to take the value out, or delete the entry: capn unchart {id}; it is committed: rotate that secret too")), "{}", run.stdout);
    for out in [&run.stdout, &run.stderr] {
        assert!(!out.contains(&key[8..]), "doctor printed the value");
    }
    // Fixed by hand: it answers again and doctor is quiet about it.
    let path = env.root.join(&rel);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace(&key, "in the vault");
    std::fs::write(&path, text).unwrap();
    assert!(env.run(&["ask", STRIPE.0]).ok().stdout.contains(&id));
    assert!(!env.run(&["doctor"]).stdout.contains(&rel));
}

#[test]
fn no_file_of_the_store_keeps_a_secret_of_a_charted_file() {
    let env = Env::git();
    env.run(&["init"]).ok();
    // Formats a word filter alone would keep (letters only; capitals and digits).
    let hf = samples::fake(samples::LOWER, 34, 50);
    let aws = format!("AKIA{}", samples::fake(samples::UPPER32, 16, 1));
    env.write(
        "src/shop.ts",
        &format!("// syncs the storefront inventory\nconst shopifyInventorySync = 'hf_{hf}';\nconst awsKey = '{aws}';\n"),
    );
    env.run(&[
        "chart",
        "Where is the storefront inventory synced?",
        "--files",
        "src/shop.ts",
    ])
    .ok();
    // A miss, a near question whose chart recall corroborates from its file, and a list: every
    // command that reads the charted file's text.
    env.run(&["ask", "which cron purges abandoned carts nightly"]);
    env.run(&["ask", "where does the shopify inventory sync run"]);
    env.run(&["list", "--json"]).ok();
    let mut files = Vec::new();
    files_under(&env.root.join(".capn"), &mut files);
    assert!(!files.is_empty());
    assert!(
        !env.root.join(".capn/code.bin").exists(),
        "no index of the charted files' text is kept"
    );
    for secret in [&hf, &aws] {
        let held = holding(&files, secret, true);
        assert!(held.is_empty(), "{held:?} hold the secret {secret}");
    }
}

#[test]
fn prune_names_a_chart_holding_a_secret_by_id_only() {
    let env = Env::git();
    env.run(&["init"]).ok();
    chart_all(&env, &[STRIPE]);
    let id = entries(&env)[0].0.trim_end_matches(".md").to_string();
    let path = env.root.join(format!(".capn/entries/{id}.md"));
    let key = format!("sk_live_{}", samples::fake(samples::B62, 24, 35));
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replacen(STRIPE.0, &format!("{} {key}", STRIPE.0), 1);
    std::fs::write(&path, text).unwrap();
    env.write(STRIPE.1, "changed\n");
    let run = env.run(&["prune"]).ok();
    assert!(
        run.stdout.contains(&format!(
            "  {id} (not shown: it holds what looks like a secret)\n"
        )),
        "{run:?}"
    );
    assert!(
        !run.stdout.contains(&key) && !run.stdout.contains(STRIPE.0),
        "{run:?}"
    );
}
