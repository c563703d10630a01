//! Issue 28, recall: capn gives the right chart, says it has none, or says which chart is stale;
//! it never hands over a different chart in its place, and never folds one question into
//! another. Each case runs in a real git repository, as a new user met it on honojs/hono.

use crate::util::{Env, Run};
use serde_json::json;

/// Runs `git args...` in the project (identity given here, so `commit` works anywhere).
#[track_caller]
fn git(env: &Env, args: &[&str]) {
    let mut c = env.sh(r#"git -c user.name=capn -c user.email=capn@example.com "$@""#);
    c.arg("git").args(args);
    let run = env.run_cmd(c, b"");
    assert_eq!(run.code, 0, "git {args:?}: {}", run.stderr);
}

/// Charts `q` on `file` (already written) with `details`; its id.
#[track_caller]
fn chart(env: &Env, q: &str, file: &str, details: &str) -> String {
    let run = env
        .run(&["chart", q, "--files", file, "--details", details])
        .ok();
    run.stdout.split_whitespace().nth(1).unwrap().to_string()
}

const PARAMS: &str = "How are path parameters and query strings parsed from the request?";
const CLIENT: &str = "How does the typed RPC client hc build requests?";

/// A repository with two charts on different files, committed: [`PARAMS`] on `src/request.ts`
/// and [`CLIENT`] on `src/client/client.ts`, whose details share words with [`PARAMS`]
/// (`client_details`). Returns the two ids.
fn hono(client_details: &str) -> (Env, String, String) {
    let env = Env::git();
    env.write("src/request.ts", "export function param() {}\n");
    env.write("src/client/client.ts", "export function hc() {}\n");
    env.run(&["init"]).ok();
    let a = chart(
        &env,
        PARAMS,
        "src/request.ts",
        "HonoRequest.param() and query() in request.ts",
    );
    let b = chart(&env, CLIENT, "src/client/client.ts", client_details);
    git(&env, &["add", "src"]);
    git(&env, &["commit", "-qm", "first"]);
    (env, a, b)
}

/// The note `ask` prints for one stale chart.
fn note(id: &str, q: &str, file: &str) -> String {
    format!(
        "capn: hid 1 chart whose files changed since it was charted: {id} \"{q}\" (\"{file}\"); it answers again once its files are back as charted (check out or restore the version it was charted on), or chart it afresh on the files that answer it now: capn chart \"<its question>\" --files <files>\n"
    )
}

fn nudge(q: &str) -> String {
    format!(
        "capn: no charted answer yet. Explore as usual; once you have found the files that answer it, chart them:\n  capn chart \"{q}\" --files <files> [--details \"<extra context>\"]\n"
    )
}

/// The issue's case: the chart that best matches its own question is stale. Before, the other
/// chart answered in its place (score 83, no note), or, with details that share fewer words,
/// was suggested for `--like`, which would have attached the question to it for good.
#[test]
fn a_stale_best_match_is_reported_and_no_chart_answers_in_its_place() {
    for details in [
        "hc() proxies path segments into a URL, replaces path parameters and appends query strings, then calls fetch",
        "hc() proxies path segments into a URL and calls fetch",
    ] {
        let (env, a, _) = hono(details);
        env.write("src/request.ts", "export function param2() {}\n");
        let run = env.run(&["ask", PARAMS]).code(1);
        assert_eq!(run.stdout, "", "{details}");
        assert_eq!(
            run.stderr,
            format!(
                "{}{}",
                note(&a, PARAMS, "src/request.ts"),
                nudge(PARAMS)
            ),
            "{details}"
        );
        // Back as charted (a checkout): it answers again, first.
        git(&env, &["checkout", "--", "src/request.ts"]);
        let run = env.run(&["ask", PARAMS]).ok();
        assert_eq!(run.jsonl()[0]["id"], a.as_str());
        assert_eq!(run.jsonl()[0]["score"], 100);
        assert_eq!(run.stderr, "");
    }
}

/// A stale chart ranked below a fresh answer is named beside the answers (stderr, exit 0); a
/// chart ranked below it does not move up into its place. The second answer is a chart whose
/// own question asks the same on other files; the client chart, whose details only mention path
/// parameters and query strings in passing, is never a second answer line.
#[test]
fn a_stale_chart_passed_over_below_a_fresh_answer_is_named_too() {
    let (env, a, _) = hono(
        "hc() proxies path segments into a URL, replaces path parameters and appends query strings, then calls fetch",
    );
    env.write("src/utils/url.ts", "export function getQueryStrings() {}\n");
    let url = "Where are the path parameters and query strings of a request parsed?";
    let c = chart(
        &env,
        url,
        "src/utils/url.ts",
        "getPath() and getQueryStrings()",
    );
    // Both fresh: each answers on its own.
    assert_eq!(ids(&env.run(&["ask", PARAMS]).ok()), [a.clone(), c.clone()]);
    env.write(
        "src/utils/url.ts",
        "export function getQueryStrings2() {}\n",
    );
    let run = env.run(&["ask", PARAMS]).ok();
    assert_eq!(ids(&run), [a]);
    assert_eq!(run.stderr, note(&c, url, "src/utils/url.ts"));
}

/// The ids of a run's answers, best first.
fn ids(run: &Run) -> Vec<String> {
    run.jsonl()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}

/// Runs `capn hook user-prompt-submit` with `text` in a new session.
fn prompt(env: &Env, sid: &str, text: &str) -> Run {
    let p = json!({"session_id": sid, "hook_event_name": "UserPromptSubmit",
                   "cwd": env.root, "prompt": text});
    env.run_stdin(
        &["hook", "user-prompt-submit"],
        &serde_json::to_vec(&p).unwrap(),
    )
    .ok()
}

/// The hooks' offer: when the chart the gate picks is stale, nothing is offered. Before, the
/// chart ranked below it was offered for the stale one's own question.
#[test]
fn a_stale_best_pick_is_not_replaced_by_an_offer_of_a_lower_chart() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let stripe = "Where are payment webhooks from Stripe handled?";
    let retried = "Where are Stripe payment webhooks retried?";
    let mut charts = vec![
        (stripe, "src/api/stripe-webhooks.ts"),
        (retried, "src/api/retry.ts"),
    ];
    charts.extend_from_slice(&crate::offers::OTHER_CHARTS[..6]);
    crate::offers::chart_all(&env, &charts);
    git(&env, &["add", "src"]);
    git(&env, &["commit", "-qm", "first"]);
    assert!(prompt(&env, "s1", stripe).stdout.contains(stripe));
    env.write("src/api/stripe-webhooks.ts", "// changed\n");
    let run = prompt(&env, "s2", stripe);
    assert_eq!(run.stdout, "", "offered a chart in the stale one's place");
    // The lower chart is offered for what points at it.
    assert!(prompt(&env, "s3", retried).stdout.contains(retried));
    // And `ask` says which chart is stale, answering with no other.
    let run = env.run(&["ask", stripe]).code(1);
    assert!(
        run.stderr.contains(stripe) && !run.stderr.contains(retried),
        "{}",
        run.stderr
    );
    git(&env, &["checkout", "--", "src/api/stripe-webhooks.ts"]);
    assert!(prompt(&env, "s4", stripe).stdout.contains(stripe));
}

/// The issue's case: a question about `c.set()`/`c.get()` on the file that also builds the
/// responses became a phrasing of the responses chart (one shared word, "Context"). A
/// different question on the same files is a chart of its own, and `chart` names the other;
/// a rewording the chart already answers is still merged into it.
#[test]
fn a_different_question_on_the_same_file_is_a_chart_of_its_own() {
    let env = Env::git();
    env.write("src/context.ts", "export class Context {}\n");
    env.run(&["init"]).ok();
    let responses = "Where are JSON, text and HTML responses built on the Context?";
    let vars = "How do c.set() and c.get() store per-request variables on the Context?";
    let r = chart(
        &env,
        responses,
        "src/context.ts",
        "c.json(), c.text(), c.html()",
    );
    let run = env
        .run(&[
            "chart",
            vars,
            "--files",
            "src/context.ts",
            "--details",
            "c.var map",
        ])
        .ok();
    let v = run.stdout.split_whitespace().nth(1).unwrap().to_string();
    assert_ne!(v, r);
    assert_eq!(
        run.stdout,
        format!("charted {v} (a question of its own: chart {r} \"{responses}\" has the same files and asks something else)\n")
    );
    for (q, id, details) in [
        (responses, &r, "c.json(), c.text(), c.html()"),
        (vars, &v, "c.var map"),
    ] {
        let hit = &env.run(&["ask", q]).ok().jsonl()[0];
        assert_eq!(hit["id"], id.as_str(), "{q}");
        assert_eq!(hit["question"], q);
        assert_eq!(hit["details"], details);
    }
    // A rewording the responses chart already answers: merged, no new entry.
    let run = env
        .run(&[
            "chart",
            "where does the Context build JSON responses",
            "--files",
            "src/context.ts",
        ])
        .ok();
    assert!(
        run.stdout.starts_with(&format!("charted {r}: ")),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("another phrasing"), "{}", run.stdout);
    assert_eq!(
        std::fs::read_dir(env.root.join(".capn/entries"))
            .unwrap()
            .count(),
        2
    );
}

/// The issue's case: "What does init do?" on `sh/init.sh` replaced the files of "What does
/// __init__ do?" (`py/a.py`) under the same id; `io.read` and `io_read` collided the same way.
/// Different identifiers are different charts, each answering its own question with its own
/// files, and a re-chart of one never touches another's files.
#[test]
fn identifiers_that_differ_only_in_underscores_or_dots_keep_their_charts() {
    let env = Env::git();
    let charts = [
        ("What does __init__ do?", "py/a.py"),
        ("What does init do?", "sh/init.sh"),
        ("What does io.read do?", "py/io.py"),
        ("What does io_read do?", "py/util.py"),
    ];
    for (_, f) in charts {
        env.write(f, &format!("# {f}\n"));
    }
    env.run(&["init"]).ok();
    let mut ids = Vec::new();
    for (q, f) in charts {
        let run = env.run(&["chart", q, "--files", f]).ok();
        ids.push(run.stdout.split_whitespace().nth(1).unwrap().to_string());
    }
    let mut distinct = ids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{ids:?}");
    for ((q, f), id) in charts.iter().zip(&ids) {
        // One answer: a chart of another form of the identifier does not answer it (as a chart
        // of "C#" does not answer "C").
        let hits = env.run(&["ask", q]).ok().jsonl();
        assert_eq!(hits.len(), 1, "{q}: {hits:?}");
        let hit = &hits[0];
        assert_eq!(hit["id"], id.as_str(), "{q}");
        assert_eq!(hit["score"], 100, "{q}");
        assert_eq!(hit["files"], json!([f]), "{q}");
        let entry = env.read(&format!(".capn/entries/{id}.md"));
        assert!(entry.contains(&format!("\n  {f}: ")), "{entry}");
    }
    // Re-charting one on new files moves only its own.
    env.write("sh/init2.sh", "# init2\n");
    let run = env
        .run(&["chart", "what does init do", "--files", "sh/init2.sh"])
        .ok();
    assert_eq!(run.stdout, format!("charted {}\n", ids[1]));
    let py = &env.run(&["ask", charts[0].0]).ok().jsonl()[0];
    assert_eq!(py["files"], json!(["py/a.py"]));
}

/// On a miss, a stale chart that was the best candidate is named, and no candidate ranked below
/// it is suggested for `--like` in its place (before, the next one was).
#[test]
fn a_stale_best_candidate_is_named_and_no_lower_one_is_suggested() {
    let env = Env::git();
    env.run(&["init"]).ok();
    let handled = "Where are payment webhooks handled?";
    let retried = "Where are payment webhooks retried?";
    let mut charts = vec![(handled, "src/a.ts"), (retried, "src/b.ts")];
    charts.extend_from_slice(&crate::offers::OTHER_CHARTS[..3]);
    crate::offers::chart_all(&env, &charts);
    git(&env, &["add", "src"]);
    git(&env, &["commit", "-qm", "first"]);
    let near = "Where are payment refunds handled?";
    // Fresh: both are possibly related (a near miss), the handled one first.
    let run = env.run(&["ask", near]).code(1);
    let related: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("related {"))
        .collect();
    assert_eq!(related.len(), 2, "{}", run.stderr);
    assert!(related[0].contains(handled), "{}", run.stderr);
    let id = related[0].split('"').nth(3).unwrap().to_string();
    env.write("src/a.ts", "// changed\n");
    let run = env.run(&["ask", near]).code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!("{}{}", note(&id, handled, "src/a.ts"), nudge(near))
    );
}
