//! Names and operators written with symbols (`C#`, `C++`, `==`, `!=`) are what a question is
//! about: the ranked path keeps "C", "C#" and "C++" apart, and "==" from "!=" (a question about C
//! was answered, score 99, by the chart about C#), and the exact re-ask sets sentence punctuation
//! around them aside ("…C#" against "…C#?" was a ranked 99, not the chart asked again).

use crate::util::Env;

const MODES: [&[&str]; 2] = [&[], &["--no-embedding"]];

/// A store in `mode` with one chart per question (file `src/f<i>.ts`); the charts' ids.
fn store(mode: &[&str], questions: &[&str]) -> (Env, Vec<String>) {
    let env = Env::git();
    let mut args = vec!["init"];
    args.extend_from_slice(mode);
    env.run(&args).ok();
    let ids = questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let file = format!("src/f{i}.ts");
            env.write(&file, &format!("// {q}\n"));
            let run = env.run(&["chart", q, "--files", &file]).ok();
            let id = run
                .stdout
                .trim()
                .strip_prefix("charted ")
                .expect("charted <id>");
            id.to_string()
        })
        .collect();
    (env, ids)
}

/// The exact hit line `ask` prints for chart `i` of `questions`.
fn hit(ids: &[String], questions: &[&str], i: usize, score: u32) -> String {
    format!(
        r#"{{"id":"{}","question":{},"files":["src/f{i}.ts"],"score":{score}}}"#,
        ids[i],
        serde_json::to_string(questions[i]).unwrap()
    )
}

/// The exact "related" line `ask` prints for chart `i`, missing `missing`.
fn related(ids: &[String], questions: &[&str], i: usize, missing: &str) -> String {
    format!(
        r#"related {{"id":"{}","question":{},"files":["src/f{i}.ts"],"not_in_chart":[{}]}}"#,
        ids[i],
        serde_json::to_string(questions[i]).unwrap(),
        serde_json::to_string(missing).unwrap()
    )
}

const CHARTS: [&str; 4] = [
    "How do we compile C#?",
    "Where is a != b checked?",
    "Where are payment webhooks handled?",
    "How does API rate limiting work?",
];

#[test]
fn a_symbol_name_or_operator_must_be_in_the_chart_to_answer() {
    for mode in MODES {
        let (env, ids) = store(mode, &CHARTS);
        for (asked, chart, missing) in [
            ("How do we compile C?", 0, "c"),
            ("how is c compiled", 0, "c"),
            ("How do we compile C++?", 0, "c++"),
            ("Where is a == b checked?", 1, "=="),
            ("where is a<=b checked", 1, "<="),
        ] {
            let run = env.run(&["ask", asked]).code(1);
            assert_eq!(run.stdout, "", "{mode:?} {asked:?}");
            let line = related(&ids, &CHARTS, chart, missing);
            assert!(
                run.stderr.lines().any(|l| l == line),
                "{mode:?} {asked:?}: want {line}\n{}",
                run.stderr
            );
        }
    }
}

#[test]
fn the_same_symbol_name_or_operator_still_answers_in_other_words() {
    for mode in MODES {
        let (env, ids) = store(mode, &CHARTS);
        for (asked, chart) in [("How is C# compiled?", 0), ("where do we check a!=b", 1)] {
            let run = env.run(&["ask", asked]).ok();
            let hits = run.jsonl();
            let score = hits[0]["score"].as_u64().expect("score") as u32;
            assert!(
                score < 100,
                "{mode:?} {asked:?}: a ranked hit, not a re-ask"
            );
            let first = run.stdout.lines().next().unwrap();
            assert_eq!(
                first,
                hit(&ids, &CHARTS, chart, score),
                "{mode:?} {asked:?}"
            );
        }
    }
}

#[test]
fn a_bare_word_is_not_the_same_word_as_a_symbol_name() {
    let questions = [
        "Where is the Rust to Go bridge built?",
        "How do we build notepad++ plugins?",
    ];
    for mode in MODES {
        let (env, ids) = store(mode, &questions);
        // "notepad" alone is not "notepad++".
        let run = env
            .run(&["ask", "How do we build notepad plugins?"])
            .code(1);
        let line = related(&ids, &questions, 1, "notepad");
        assert!(
            run.stderr.lines().any(|l| l == line),
            "{mode:?}\n{}",
            run.stderr
        );
        let run = env.run(&["ask", "building Notepad++ plugins"]).ok();
        assert_eq!(run.jsonl()[0]["id"], ids[1].as_str(), "{mode:?}");
    }
}

#[test]
fn a_symbol_name_asked_again_in_other_punctuation_is_the_chart_asked_again() {
    let questions = [
        "How do we compile C#?",
        "How do we compile C++?",
        "How do we compile C?",
        "Where is operator== defined?",
        "Where is a != b checked?",
        "Where is a == b checked?",
    ];
    for mode in MODES {
        let (env, ids) = store(mode, &questions);
        for (asked, chart) in [
            ("How do we compile C#", 0),
            ("how do we compile (C#)?", 0),
            ("«How do we compile C#»", 0),
            ("How do we compile C#。", 0),
            ("„How do we compile C++?“", 1),
            ("how do we compile c", 2),
            ("Where is operator == defined?", 3),
            ("Where is a!=b checked?", 4),
            ("where is a==b checked", 5),
        ] {
            let run = env.run(&["ask", asked]).ok();
            let first = run.stdout.lines().next().unwrap_or_default();
            assert_eq!(
                first,
                hit(&ids, &questions, chart, 100),
                "{mode:?} {asked:?}"
            );
        }
        // Re-charting it without its "?" updates the chart: no second entry.
        env.write("src/z.ts", "// z\n");
        let run = env.run(&["chart", "How do we compile C#", "--files", "src/z.ts"]);
        assert_eq!(
            run.ok().stdout.trim(),
            format!("charted {}", ids[0]),
            "{mode:?}"
        );
        let list = env.run(&["list"]).ok().stdout;
        assert_eq!(list.matches("compile C#").count(), 1, "{mode:?}\n{list}");
    }
}

#[test]
fn unicode_punctuation_and_invisible_characters_are_set_aside() {
    let questions = [
        "Where are payment webhooks handled?",
        "How does API rate limiting work?",
    ];
    for mode in MODES {
        let (env, ids) = store(mode, &questions);
        for asked in [
            "Where are payment webhooks handled‽",
            "Where are payment webhooks handled۔",
            "Where are payment webhooks handled።",
            "Where are payment webhooks handled፧",
            "Where are payment webhooks handled՞",
            "〝Where are payment webhooks handled〞",
            "〔Where are payment webhooks handled〕",
            "〖Where are payment webhooks handled〗",
            "״Where are payment webhooks handled״",
            "Where are pay\u{ad}ment webhooks handled?",
            "Where are payment\u{200b} webhooks handled?",
            "Where are payment\u{200b}webhooks handled?",
        ] {
            let run = env.run(&["ask", asked]).ok();
            let first = run.stdout.lines().next().unwrap_or_default();
            assert_eq!(first, hit(&ids, &questions, 0, 100), "{mode:?} {asked:?}");
        }
        // A soft hyphen inside a word is no break for ranking either.
        let run = env
            .run(&["ask", "where do we handle pay\u{ad}ment webhooks"])
            .ok();
        assert_eq!(run.jsonl()[0]["id"], ids[0].as_str(), "{mode:?}");
    }
}
