//! Answers you can trust (issue 9): an exact re-ask always answers, a near miss is at most
//! "related", a miss says which charts `ask` just removed as stale, `ask` outside any project says
//! so, and `list` marks charts whose files changed.

use crate::util::Env;

const MODES: [&[&str]; 2] = [&[], &["--no-embedding"]];

fn store(init: &[&str]) -> Env {
    let env = Env::git();
    let mut args = vec!["init"];
    args.extend_from_slice(init);
    env.run(&args).ok();
    env
}

fn chart(env: &Env, question: &str, file: &str) -> String {
    env.write(file, &format!("// {file}\n"));
    chart_with(env, question, file, None)
}

/// Charts `question` over the existing `file`, with `details` if given; its id.
fn chart_with(env: &Env, question: &str, file: &str, details: Option<&str>) -> String {
    let mut args = vec!["chart", question, "--files", file];
    if let Some(d) = details {
        args.extend(["--details", d]);
    }
    let run = env.run(&args).ok();
    run.stdout
        .trim()
        .strip_prefix("charted ")
        .expect("charted <id>")
        .to_string()
}

#[test]
fn an_exact_re_ask_answers_in_both_modes_even_of_single_letters() {
    for mode in MODES {
        let env = store(mode);
        let id = chart(&env, "Where is X?", "src/x.ts");
        chart(&env, "Where is the billing portal opened?", "src/portal.ts");
        for asked in [
            "Where is X?",
            "where is x",
            "  WHERE   is X ?? ",
            "Where is X",
        ] {
            let run = env.run(&["ask", asked]).ok();
            let hits = run.jsonl();
            assert_eq!(hits[0]["id"], id.as_str(), "{mode:?} {asked:?}: {hits:?}");
            assert_eq!(hits[0]["score"], 100, "{mode:?} {asked:?}");
        }
        // Not the same question: letters differ.
        env.run(&["ask", "Where is Y?"]).code(1);
    }
}

/// Unicode sentence punctuation is set aside like `?` and `"`: a Spanish question asked without
/// its opening `¿` or with `¡…!`, or one wrapped in `«»` or `„“` or ended with the Arabic `؟`,
/// is the charted question asked again (these scored 98-99, as ranked hits). The hit is the
/// contract line, compared whole.
#[test]
fn an_exact_re_ask_sets_unicode_sentence_punctuation_aside_in_both_modes() {
    let es = "¿Dónde se manejan los reembolsos?";
    let en = "Where are payment webhooks handled?";
    for mode in MODES {
        let env = store(mode);
        let en_id = chart(&env, en, "src/a.ts");
        let es_id = chart(&env, es, "src/b.ts");
        let line = |id: &str, q: &str, file: &str| {
            format!(
                "{{\"id\":\"{id}\",\"question\":\"{q}\",\"files\":[\"{file}\"],\"score\":100}}\n"
            )
        };
        for asked in [
            "Dónde se manejan los reembolsos?",
            "¡Dónde se manejan los reembolsos!",
            "«¿Dónde se manejan los reembolsos?»",
        ] {
            let run = env.run(&["ask", asked]).ok();
            assert_eq!(
                run.stdout,
                line(&es_id, es, "src/b.ts"),
                "{mode:?} {asked:?}"
            );
        }
        for asked in [
            "«Where are payment webhooks handled»",
            "„Where are payment webhooks handled?“",
            "‹Where are payment webhooks handled›",
            "Where are payment webhooks handled؟",
        ] {
            let run = env.run(&["ask", asked]).ok();
            assert_eq!(
                run.stdout,
                line(&en_id, en, "src/a.ts"),
                "{mode:?} {asked:?}"
            );
        }
    }
}

#[test]
fn an_exact_re_ask_of_a_long_question_answers_in_both_modes() {
    let q = "Where are Stripe payment webhooks verified, retried after a failure, and logged for audit?";
    for mode in MODES {
        let env = store(mode);
        let id = chart(&env, q, "src/webhooks.ts");
        let run = env.run(&["ask", &q.to_uppercase()]).ok();
        assert_eq!(run.jsonl()[0]["id"], id.as_str(), "{mode:?}");
    }
}

/// The four cases of issue 9: each near miss was answered with the wrong chart (scores 72-82).
const NEAR_MISSES: [(&str, &str, &str); 4] = [
    (
        "Where are payment webhooks handled?",
        "src/api/webhooks.ts",
        "Where are payment refunds handled?",
    ),
    (
        "How does API rate limiting work?",
        "src/api/rate-limit.ts",
        "How does API pagination work?",
    ),
    (
        "How is the PDF certificate page rendered?",
        "src/pdf/certificate.tsx",
        "Where is the login page rendered?",
    ),
    (
        "How is the project root located?",
        "src/store/root.rs",
        "what license is this project under?",
    ),
];

#[test]
fn the_four_near_misses_of_the_issue_are_not_answered_in_either_mode() {
    for mode in MODES {
        let env = store(mode);
        for (charted, file, _) in NEAR_MISSES {
            chart(&env, charted, file);
        }
        for (charted, _, asked) in NEAR_MISSES {
            let run = env.run(&["ask", asked]).code(1);
            assert_eq!(run.stdout, "", "{mode:?} {asked:?}");
            assert!(
                run.stderr.contains(&format!("capn chart \"{asked}\"")),
                "{mode:?} {asked:?}: {}",
                run.stderr
            );
            // Each is still offered as a suggestion when it comes close enough; it never answers.
            let candidate = |l: &&str| l.starts_with("related {") || l.starts_with("candidate {");
            if let Some(line) = run.stderr.lines().find(candidate) {
                let json = line.split_once(' ').unwrap().1;
                let v: serde_json::Value = serde_json::from_str(json).unwrap();
                assert_eq!(v["question"], charted, "{mode:?} {asked:?}: {}", run.stderr);
            }
            // Re-asking the chart itself, and a rewording of it, still answers.
            let run = env.run(&["ask", charted]).ok();
            assert_eq!(run.jsonl()[0]["question"], charted, "{mode:?}");
        }
    }
}

#[test]
fn a_near_miss_in_embedding_mode_suggests_the_chart_it_resembles() {
    let env = store(&[]);
    for (charted, file, _) in NEAR_MISSES {
        chart(&env, charted, file);
    }
    let run = env
        .run(&["ask", "Where are payment refunds handled?"])
        .code(1);
    // Past the ranking's threshold, stopped by "refunds", a rare word (the name of another
    // thing): only possibly related, never "probably charted already", and the line says what
    // differs, so the agent can tell it is another question.
    assert!(!run.stderr.contains("candidate {"), "{}", run.stderr);
    let first = run
        .stderr
        .lines()
        .find(|l| l.starts_with("related {"))
        .unwrap_or_else(|| panic!("no related line:\n{}", run.stderr));
    let v: serde_json::Value = serde_json::from_str(&first["related ".len()..]).unwrap();
    assert_eq!(v["question"], "Where are payment webhooks handled?");
    assert_eq!(v["not_in_chart"], serde_json::json!(["refunds"]));
    let run = env
        .run(&["ask", "where do we handle payment webhooks"])
        .ok();
    assert_eq!(
        run.jsonl()[0]["question"],
        "Where are payment webhooks handled?"
    );
}

#[test]
fn a_miss_names_the_stale_charts_ask_hid_and_keeps_them() {
    for mode in MODES {
        let env = store(mode);
        let id = chart(&env, "Where is the session cookie signed?", "src/x.ts");
        env.write("src/x.ts", "// changed\n");
        let q = "Where is the session cookie signed?";
        let run = env.run(&["ask", q]).code(1);
        // Which chart, which files, how to get it back; never "prune" (issue 28: a stale chart
        // may be current on another branch).
        assert_eq!(
            run.stderr,
            format!(
                "capn: hid 1 chart whose files changed since it was charted: {id} \"{q}\" (\"src/x.ts\"); it answers again once its files are back as charted (check out or restore the version it was charted on), or chart it afresh on the files that answer it now: capn chart \"<its question>\" --files <files>\n\
                 capn: no charted answer yet. Explore as usual; once you have found the files that answer it, chart them:\n  \
                 capn chart \"{q}\" --files <files> [--details \"<extra context>\"]\n"
            ),
            "{mode:?}"
        );
        // Kept: said again on the next miss, and it answers once the file is back.
        let run = env.run(&["ask", q]).code(1);
        assert!(
            run.stderr.starts_with("capn: hid 1 chart"),
            "{mode:?}: {}",
            run.stderr
        );
        env.write("src/x.ts", "// src/x.ts\n");
        env.run(&["ask", q]).ok();
    }
}

#[test]
fn the_removal_note_counts_and_names_several_charts() {
    let env = store(&["--no-embedding"]);
    let signed = chart(&env, "Where is the session cookie signed?", "src/a.ts");
    env.write("src/b.ts", "b");
    env.write("src/c.ts", "c");
    env.run(&[
        "chart",
        "Where is the session cookie verified?",
        "--files",
        "src/b.ts,src/c.ts,src/a.ts",
    ])
    .ok();
    chart(&env, "Where are invoices numbered?", "src/d.ts");
    env.write("src/a.ts", "changed");
    std::fs::remove_file(env.root.join("src/c.ts")).unwrap();
    // Only the charts the search reaches are checked: both session-cookie charts answer this
    // question, and both are stale, so both are named, best first; the invoices chart is not
    // reached.
    let verified = env
        .run(&["list", "--json"])
        .ok()
        .jsonl()
        .iter()
        .find(|v| v["question"] == "Where is the session cookie verified?")
        .map(|v| v["id"].as_str().unwrap().to_string())
        .unwrap();
    let run = env.run(&["ask", "where is the session cookie"]).code(1);
    let first = run.stderr.lines().next().unwrap();
    assert_eq!(
        first,
        format!("capn: hid 2 charts whose files changed since they were charted: {signed} \"Where is the session cookie signed?\" (\"src/a.ts\"); {verified} \"Where is the session cookie verified?\" (\"src/a.ts\", \"src/c.ts\"); each answers again once its files are back as charted (check out or restore the version it was charted on), or chart it afresh on the files that answer it now: capn chart \"<its question>\" --files <files>")
    );
}

#[test]
fn ask_outside_any_project_says_so() {
    let env = Env::new(); // neither .capn/ nor git
    let run = env
        .run(&["ask", "Where is the session cookie signed?"])
        .code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "capn: not inside a project: there is no .capn/ here or in any parent folder, and this is not a git repository. Charts are kept per project: run `capn ask` from inside one, or `capn init` at a project's root to start charting there.\n"
    );
    // `list` says the same instead of "nothing charted yet".
    let run = env.run(&["list"]).ok();
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "capn: not inside a project: there is no .capn/ here or in any parent folder, and this is not a git repository. Charts are kept per project: run `capn list` from inside one, or `capn init` at a project's root to start charting there.\n"
    );
    // An empty question is refused, as `chart` refuses one, not nudged to chart "".
    for q in ["", "   "] {
        let run = env.run(&["ask", q]).code(1);
        assert_eq!(run.stdout, "");
        assert_eq!(
            run.stderr,
            "capn: missing question: capn ask \"<question>\"\n"
        );
    }
    // Inside a git repository without a store: how to start one (`capn init`), then the
    // ordinary nudge (chart creates the store too).
    let env = Env::git();
    let run = env
        .run(&["ask", "Where is the session cookie signed?"])
        .code(1);
    let (first, rest) = run.stderr.split_once('\n').unwrap();
    assert_eq!(
        first,
        format!(
            "capn: no charts here yet: {} has no .capn/ store. Run `capn init` there to set capn up for this project (the first `capn chart` also starts the store).",
            env.root.display()
        )
    );
    assert!(
        rest.starts_with("capn: no charted answer yet."),
        "{}",
        run.stderr
    );
}

#[test]
fn list_marks_charts_whose_files_changed() {
    let env = store(&["--no-embedding"]);
    let stale = chart(&env, "Where is the session cookie signed?", "src/x.ts");
    let fresh = chart(&env, "Where are invoices numbered?", "src/y.ts");
    env.write("src/x.ts", "// changed\n");
    let run = env.run(&["list"]).ok();
    assert!(
        run.stdout.contains(&format!(
            "{stale}  [stale] Where is the session cookie signed?\n  files: \"src/x.ts\"\n  changed since charted: \"src/x.ts\" (hidden until they are back as charted; `capn prune` deletes it)\n"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "{fresh}  Where are invoices numbered?\n  files: \"src/y.ts\"\n"
        )),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("[stale]").count(), 1, "{}", run.stdout);
    let run = env.run(&["list", "--json"]).ok();
    for v in run.jsonl() {
        if v["id"] == stale.as_str() {
            assert_eq!(v["changed"], serde_json::json!(["src/x.ts"]));
        } else {
            assert!(v.get("changed").is_none(), "{v}");
        }
    }
    // list deletes nothing; the next ask does.
    assert!(env.root.join(format!(".capn/entries/{stale}.md")).exists());
    std::fs::remove_file(env.root.join("src/y.ts")).unwrap();
    let run = env.run(&["list", "--json"]).ok();
    let gone: Vec<_> = run
        .jsonl()
        .into_iter()
        .filter(|v| v["id"] == fresh.as_str())
        .collect();
    assert_eq!(gone[0]["changed"], serde_json::json!(["src/y.ts"]));
    // A deleted file is named as missing, not only as changed.
    let run = env.run(&["list"]).ok();
    assert!(
        run.stdout
            .contains("  changed since charted: \"src/y.ts\" (missing) (hidden until"),
        "{}",
        run.stdout
    );
}

/// A related line never scores 100, which on an answer means "this exact question again".
#[test]
fn a_related_suggestion_never_claims_a_score_of_100() {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/fsutil.rs", "x\n");
    env.write("src/other.rs", "y\n");
    env.run(&[
        "chart",
        "Which function writes files atomically?",
        "--files",
        "src/fsutil.rs",
    ])
    .ok();
    env.run(&[
        "chart",
        "How is the config parsed?",
        "--files",
        "src/other.rs",
    ])
    .ok();
    let run = env.run(&["ask", "atomic write helper"]);
    // Candidates carry no score at all (what tells them apart is `not_in_chart`); answers
    // other than an exact re-ask score at most 99.
    let mut lines = 0;
    for line in run.stderr.lines() {
        let Some(json) = line
            .strip_prefix("related ")
            .or_else(|| line.strip_prefix("candidate "))
        else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        assert!(v.get("score").is_none(), "{line}");
        lines += 1;
    }
    for v in run.jsonl() {
        assert!(v["score"].as_u64().unwrap() <= 99, "{v}");
    }
    assert!(lines + run.jsonl().len() > 0, "{}", run.stderr);
}

/// A question that asks for the opposite of a chart is not answered by it, in both modes: token
/// vectors put opposites close ("sent"/"received"), and a particle ("in"/"out") weighs nothing.
/// A new user got each of these answered with scores 97-99.
#[test]
fn a_question_asking_the_opposite_is_not_answered() {
    for mode in MODES {
        let env = store(mode);
        let sent = chart(&env, "Where are emails sent?", "mail.ts");
        let login = chart(&env, "How does a user log in?", "auth.ts");
        let paid = chart(&env, "Where is an invoice marked as paid?", "inv.ts");
        for asked in [
            "Where are emails received?",
            "How does a user log out?",
            "Where is an invoice marked as unpaid?",
        ] {
            let run = env.run(&["ask", asked]);
            assert_eq!(run.code, 1, "{mode:?} {asked}: {}", run.stdout);
            assert_eq!(run.stdout, "", "{mode:?} {asked}");
            // Nor is the chart said to be "probably charted already" (a new user saw that).
            assert!(
                !run.stderr.contains("candidate {"),
                "{mode:?} {asked}: {}",
                run.stderr
            );
        }
        for (asked, id) in [
            ("where do we send emails", &sent),
            ("How does a user log in", &login),
            ("where are invoices marked paid", &paid),
        ] {
            let hits = env.run(&["ask", asked]).ok().jsonl();
            assert_eq!(hits[0]["id"], id.as_str(), "{mode:?} {asked}");
        }
    }
}

/// Derivations of one word match each other ("handled", "handling" and "handler"), as
/// inflections do: Porter stemming leaves them apart, and the token vectors put "handler" and
/// "handled" just under the alignment threshold (a new user got misses for both).
#[test]
fn derivations_of_a_word_answer() {
    for mode in MODES {
        let env = store(mode);
        let id = chart(&env, "Where is the error handler?", "errors.ts");
        chart(&env, "Where are files uploaded?", "upload.ts");
        for asked in ["where are errors handled", "where is the error handling"] {
            let hits = env.run(&["ask", asked]).ok().jsonl();
            assert_eq!(hits[0]["id"], id.as_str(), "{mode:?} {asked}");
        }
    }
}

/// Only the chart's question counts for opposites: details that name the other side in passing
/// do not refuse a rewording, and details that point elsewhere do not make an opposite an
/// answer (a breaker's cases).
#[test]
fn opposites_are_judged_on_the_charted_question() {
    for mode in MODES {
        let env = store(mode);
        env.write("src/handler.ts", "x\n");
        let handler = chart_with(
            &env,
            "Where is the error handler?",
            "src/handler.ts",
            Some("catches unhandled promise rejections"),
        );
        env.write("src/upload.ts", "y\n");
        chart_with(
            &env,
            "Where are files uploaded?",
            "src/upload.ts",
            Some("downloads are served from cdn.ts, not here"),
        );
        let hits = env.run(&["ask", "Where are errors handled?"]).ok().jsonl();
        assert_eq!(hits[0]["id"], handler.as_str(), "{mode:?}");
        let run = env.run(&["ask", "Where are files downloaded?"]);
        assert_eq!(run.code, 1, "{mode:?}: {}", run.stdout);
    }
}
