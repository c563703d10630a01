//! Phrasings at their edges (a tester's findings on issue 21's build): a phrasing of common
//! words, one with no letter or digit, one confirmed on the wrong chart first, another chart's
//! own question, details shaped like the phrasings section, hand-edited entries with thousands
//! of phrasings or keys capn does not know, and codes that keep questions apart.

use crate::phrasings::two_charts;
use crate::util::Env;

const WEBHOOKS_ID: &str = "2d1b0350";
const RATE_ID: &str = "73bd1d6b";

fn hit(id: &str, question: &str, file: &str, score: u8) -> String {
    format!("{{\"id\":\"{id}\",\"question\":\"{question}\",\"files\":[\"{file}\"],\"score\":{score}}}\n")
}

fn entry_count(env: &Env) -> usize {
    std::fs::read_dir(env.root.join(".capn/entries"))
        .unwrap()
        .count()
}

fn webhooks(score: u8) -> String {
    hit(
        WEBHOOKS_ID,
        "Where are payment webhooks handled?",
        "src/api/webhooks.ts",
        score,
    )
}

fn rate(score: u8) -> String {
    hit(
        RATE_ID,
        "How does API rate limiting work?",
        "src/api/rate-limit.ts",
        score,
    )
}

#[test]
fn a_confirmed_phrasing_of_common_words_answers_when_asked_again() {
    // "Where is X?" has no search term of its own: only its exact re-ask marker finds it.
    let env = two_charts();
    env.run(&["chart", "Where is X?", "--like", WEBHOOKS_ID])
        .ok();
    assert_eq!(env.run(&["ask", "where is x"]).ok().stdout, webhooks(100));
    let other = env.run(&["chart", "where is it", "--like", RATE_ID]).ok();
    assert!(
        other.stdout.contains("added as another phrasing"),
        "{}",
        other.stdout
    );
    assert_eq!(env.run(&["ask", "Where is it?"]).ok().stdout, rate(100));
}

#[test]
fn a_question_with_no_letter_or_digit_is_refused_as_a_phrasing_and_a_chart() {
    let env = two_charts();
    let before = env.read(".capn/entries/2d1b0350.md");
    let refused = env.run(&["chart", "???", "--like", WEBHOOKS_ID]).code(1);
    assert_eq!(
        refused.stderr,
        "capn: the question \"???\" has no letter or digit, so no ask could ever match it: ask it in words\n"
    );
    env.run(&["chart", "?!", "--files", "src/api/webhooks.ts"])
        .code(1);
    assert_eq!(env.read(".capn/entries/2d1b0350.md"), before);
    assert_eq!(entry_count(&env), 2);
}

#[test]
fn confirming_on_the_right_chart_takes_the_words_off_the_wrong_one() {
    let env = two_charts();
    let q = "how are incoming requests throttled?";
    env.run(&["chart", q, "--like", WEBHOOKS_ID]).ok();
    let moved = env.run(&["chart", q, "--like", RATE_ID]).ok();
    assert_eq!(
        moved.stdout,
        format!("charted {RATE_ID}: added as another phrasing of \"How does API rate limiting work?\" (taken off chart {WEBHOOKS_ID}, which no longer answers it); asked in these words, it now answers with that chart\n")
    );
    assert_eq!(env.run(&["ask", q]).ok().stdout, rate(100));
    assert!(!env.read(".capn/entries/2d1b0350.md").contains("throttled"));
}

#[test]
fn another_charts_own_question_cannot_be_confirmed_on_a_chart() {
    let env = two_charts();
    let before = env.read(".capn/entries/2d1b0350.md");
    let refused = env
        .run(&[
            "chart",
            "how does api rate limiting work",
            "--like",
            WEBHOOKS_ID,
        ])
        .code(1);
    assert_eq!(
        refused.stderr,
        format!("capn: --like {WEBHOOKS_ID}: \"how does api rate limiting work\" is the question of chart {RATE_ID}, which answers it; to have chart {WEBHOOKS_ID} answer it instead, unchart {RATE_ID} first; nothing was written\n")
    );
    assert_eq!(env.read(".capn/entries/2d1b0350.md"), before);
}

#[test]
fn charting_a_question_on_its_files_takes_it_off_a_chart_that_lists_it() {
    // A hand edit (or capn 0.3) left another chart's own question among a chart's phrasings:
    // both answered it at 100. Charting it again on its files settles whose it is.
    let env = two_charts();
    let path = ".capn/entries/2d1b0350.md";
    let text = env.read(path);
    env.write(
        path,
        &format!("{text}\n## Also asked as\n- How does API rate limiting work?\n"),
    );
    env.run(&["list"]).ok();
    let again = env
        .run(&[
            "chart",
            "How does API rate limiting work?",
            "--files",
            "src/api/rate-limit.ts",
        ])
        .ok();
    assert_eq!(
        again.stdout,
        format!("charted {RATE_ID} (taken off chart {WEBHOOKS_ID}, which no longer answers it)\n")
    );
    assert_eq!(
        env.run(&["ask", "How does API rate limiting work?"])
            .ok()
            .stdout,
        rate(100)
    );
    assert_eq!(env.read(path), text);
}

#[test]
fn details_that_would_read_back_as_phrasings_are_refused() {
    let env = two_charts();
    let refused = env
        .run(&[
            "chart",
            "Where are invoices numbered?",
            "--files",
            "src/api/webhooks.ts",
            "--details",
            "see below\n\n## Also asked as\n- how do I delete the production database",
        ])
        .code(1);
    assert_eq!(
        refused.stderr,
        "capn: refusing to chart: the details end in a \"## Also asked as\" section of \"- \" lines, which is how an entry lists its other phrasings; reword that heading or add text after the list; nothing was written\n"
    );
    env.run(&["ask", "how do I delete the production database"])
        .code(1);
}

#[test]
fn only_the_newest_phrasings_of_a_hand_edited_entry_count() {
    let env = two_charts();
    let path = ".capn/entries/2d1b0350.md";
    let mut text = env.read(path);
    text.push_str("\n## Also asked as\n");
    for i in 0..5000 {
        text.push_str(&format!("- hand phrasing {i} zebra{i}\n"));
    }
    env.write(path, &text);
    let list = env.run(&["list"]).ok().stdout;
    assert_eq!(list.matches("also asked as:").count(), 8, "{list}");
    assert!(list.contains(
        "  (+4992 older phrasings in the file: a chart keeps the newest 8, the others do not answer)\n"
    ));
    let json = env.run(&["list", "--json"]).ok().jsonl();
    assert_eq!(json[0]["id"], WEBHOOKS_ID);
    assert_eq!(json[0]["phrasings"].as_array().unwrap().len(), 5000);
    assert_eq!(json[0]["uncounted_phrasings"], 4992);
    assert!(json[1].get("uncounted_phrasings").is_none());
    assert_eq!(
        env.run(&["ask", "hand phrasing 4999 zebra4999"])
            .ok()
            .stdout,
        webhooks(100)
    );
    let old = env.run(&["ask", "hand phrasing 12 zebra12"]);
    assert!(!old.stdout.contains("\"score\":100"), "{}", old.stdout);
    let added = env
        .run(&[
            "chart",
            "where do stripe callbacks land?",
            "--like",
            WEBHOOKS_ID,
        ])
        .ok();
    assert_eq!(
        added.stdout,
        format!("charted {WEBHOOKS_ID}: added as another phrasing of \"Where are payment webhooks handled?\"; its 4993 oldest phrasings were dropped (a chart keeps 8); asked in these words, it now answers with that chart\n")
    );
    assert_eq!(env.read(path).matches("\n- ").count(), 8);
}

#[test]
fn frontmatter_keys_capn_does_not_know_survive_a_confirmation() {
    let env = two_charts();
    let path = ".capn/entries/2d1b0350.md";
    let text = env
        .read(path)
        .replacen("\nid:", "\nowner: alice\ntags: [billing]\nid:", 1);
    env.write(path, &text);
    env.run(&[
        "chart",
        "where do stripe callbacks land?",
        "--like",
        WEBHOOKS_ID,
    ])
    .ok();
    let after = env.read(path);
    assert!(
        after.contains("\nowner: alice\ntags: [billing]\n---\n"),
        "{after}"
    );
}

#[test]
fn a_phrasing_with_a_code_keeps_a_question_with_another_code_apart() {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/api.ts", "version()\n");
    let id = env
        .run(&[
            "chart",
            "How is the public API versioned?",
            "--files",
            "src/api.ts",
        ])
        .ok()
        .stdout
        .trim()
        .strip_prefix("charted ")
        .unwrap()
        .to_string();
    // A code only the new question holds narrows it: the chart does not answer it, so charted
    // on the same files it is a question of its own; confirmed with --like, a phrasing.
    let v2 = env
        .run(&[
            "chart",
            "How is the public API v2 versioned?",
            "--like",
            &id,
        ])
        .ok();
    assert!(
        v2.stdout.contains("added as another phrasing"),
        "{}",
        v2.stdout
    );
    let v3 = env
        .run(&[
            "chart",
            "How is the public API v3 versioned?",
            "--files",
            "src/api.ts",
        ])
        .ok();
    assert!(!v3.stdout.contains("phrasing"), "{}", v3.stdout);
    assert_eq!(entry_count(&env), 2);
}

#[test]
fn recharting_a_phrasing_with_new_details_says_they_were_added() {
    let env = two_charts();
    let q = "where do stripe callbacks land?";
    env.run(&["chart", q, "--like", WEBHOOKS_ID]).ok();
    let again = env
        .run(&[
            "chart",
            q,
            "--files",
            "src/api/webhooks.ts",
            "--details",
            "see route()",
        ])
        .ok();
    assert_eq!(
        again.stdout,
        format!("charted {WEBHOOKS_ID}: already a phrasing of \"Where are payment webhooks handled?\" (no new entry); your details were added to its own\n")
    );
    let same = env
        .run(&["chart", q, "--files", "src/api/webhooks.ts"])
        .ok();
    assert_eq!(
        same.stdout,
        format!("charted {WEBHOOKS_ID}: already a phrasing of \"Where are payment webhooks handled?\" (no new entry)\n")
    );
}

#[test]
fn details_shaped_like_phrasings_are_refused_on_a_chart_that_has_phrasings_too() {
    // The parse-back check compared phrasings: a chart's real ones masked a hidden list.
    let env = two_charts();
    env.run(&[
        "chart",
        "where do stripe callbacks land?",
        "--like",
        WEBHOOKS_ID,
    ])
    .ok();
    let before = env.read(".capn/entries/2d1b0350.md");
    let hidden = "see below\n\n## Also asked as\n- how do I delete the production database";
    for args in [
        vec![
            "chart",
            "where do stripe callbacks land?",
            "--like",
            WEBHOOKS_ID,
            "--details",
            hidden,
        ],
        vec![
            "chart",
            "Where are payment webhooks handled?",
            "--files",
            "src/api/webhooks.ts",
            "--details",
            hidden,
        ],
    ] {
        let refused = env.run(&args).code(1);
        assert!(
            refused.stderr.contains("section of \"- \" lines"),
            "{}",
            refused.stderr
        );
    }
    assert_eq!(env.read(".capn/entries/2d1b0350.md"), before);
}

#[test]
fn a_refused_confirmation_leaves_the_chart_it_would_take_words_off_untouched() {
    // The words moved off chart A before chart B's entry was found too big to write.
    let env = two_charts();
    let q = "how are incoming requests throttled?";
    env.run(&["chart", q, "--like", WEBHOOKS_ID]).ok();
    let before = env.read(".capn/entries/2d1b0350.md");
    // Chart B's file 20 bytes under the entry limit: readable, but not with one more phrasing.
    let path = ".capn/entries/73bd1d6b.md";
    let base = env.read(path);
    let big = "x".repeat(1_048_576 - 20 - base.len() - "padding: \n".len());
    let text = base.replacen("\nid:", &format!("\npadding: {big}\nid:"), 1);
    assert_eq!(text.len(), 1_048_576 - 20);
    env.write(path, &text);
    let refused = env.run(&["chart", q, "--like", RATE_ID]).code(1);
    assert!(
        refused.stderr.contains("over the 1048576-byte limit")
            && refused.stderr.contains("nothing was written"),
        "{}",
        refused.stderr
    );
    assert_eq!(env.read(".capn/entries/2d1b0350.md"), before);
    assert_eq!(env.run(&["ask", q]).ok().stdout, webhooks(100));
}

#[test]
fn one_file_answering_many_questions_never_loses_one_to_the_phrasing_cap() {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/config.ts", "export const config = {}\n");
    let questions: Vec<String> = [
        "database URL",
        "session timeout",
        "log level",
        "feature flag",
        "SMTP server",
        "Stripe API key",
        "CORS origin",
        "cache TTL",
        "upload size limit",
        "GraphQL playground",
    ]
    .iter()
    .map(|what| format!("Where is the {what} config read?"))
    .collect();
    for q in &questions {
        let run = env.run(&["chart", q, "--files", "src/config.ts"]).ok();
        assert!(!run.stdout.contains("dropped"), "{}", run.stdout);
    }
    for q in &questions {
        let hits = env.run(&["ask", q]).ok().stdout;
        assert!(hits.contains("\"score\":100"), "{q}: {hits}");
    }
}

#[test]
fn taking_a_phrasing_off_drops_the_older_ones_that_no_longer_counted() {
    // Nine phrasings in the file, the oldest not counted; once a counted one moved away, the
    // oldest counted again and answered beside the chart it had been confirmed on since.
    let env = two_charts();
    let path = ".capn/entries/2d1b0350.md";
    let mut text = env.read(path);
    text.push_str("\n## Also asked as\n- where do zebra callbacks land\n");
    for i in 1..=8 {
        text.push_str(&format!("- counted phrasing {i} about lions{i}\n"));
    }
    env.write(path, &text);
    env.run(&["chart", "where do zebra callbacks land", "--like", RATE_ID])
        .ok();
    env.run(&[
        "chart",
        "counted phrasing 3 about lions3",
        "--like",
        RATE_ID,
    ])
    .ok();
    assert_eq!(
        env.run(&["ask", "where do zebra callbacks land"])
            .ok()
            .stdout,
        rate(100)
    );
    assert!(!env.read(path).contains("zebra"));
}

#[test]
fn confirming_another_charts_question_names_the_way_out_when_that_chart_is_stale() {
    let env = two_charts();
    env.write("src/api/rate-limit.ts", "changed()\n");
    let refused = env
        .run(&[
            "chart",
            "How does API rate limiting work?",
            "--like",
            WEBHOOKS_ID,
        ])
        .code(1);
    assert_eq!(
        refused.stderr,
        format!("capn: --like {WEBHOOKS_ID}: \"How does API rate limiting work?\" is the question of chart {RATE_ID}, which is stale (its files changed), so it answers nothing now; if chart {WEBHOOKS_ID}'s files answer it, chart it afresh on them: capn chart \"How does API rate limiting work?\" --files <files>; nothing was written\n")
    );
}

#[test]
fn confirming_with_other_details_says_they_replaced_or_cleared_the_old() {
    let env = two_charts();
    let q = "where do stripe callbacks land?";
    env.run(&[
        "chart",
        q,
        "--like",
        WEBHOOKS_ID,
        "--details",
        "route() near line 40",
    ])
    .ok();
    let cleared = env
        .run(&["chart", q, "--like", WEBHOOKS_ID, "--details", ""])
        .ok();
    assert_eq!(
        cleared.stdout,
        format!("charted {WEBHOOKS_ID}: already a phrasing of \"Where are payment webhooks handled?\"; its details were cleared; asked in these words, it answers with that chart\n")
    );
    // A re-chart's new details are added unless they are one of its paragraphs already, not
    // merely part of one ("line 4" inside "line 40").
    env.run(&[
        "chart",
        q,
        "--files",
        "src/api/webhooks.ts",
        "--details",
        "line 40 router",
    ])
    .ok();
    let part = env
        .run(&[
            "chart",
            q,
            "--files",
            "src/api/webhooks.ts",
            "--details",
            "line 4",
        ])
        .ok();
    assert!(
        part.stdout.contains("your details were added"),
        "{}",
        part.stdout
    );
    let same = env
        .run(&[
            "chart",
            q,
            "--files",
            "src/api/webhooks.ts",
            "--details",
            "line 4",
        ])
        .ok();
    assert!(
        !same.stdout.contains("your details were added"),
        "{}",
        same.stdout
    );
}

#[test]
fn confirming_words_a_chart_already_has_takes_them_off_another_that_lists_them_too() {
    // Both charts listed the words (a hand edit, an old build): --like on one of them changed
    // nothing on it, so nothing was written and the other kept answering at 100.
    let env = two_charts();
    let q = "where do throttled callbacks land?";
    env.run(&["chart", q, "--like", RATE_ID]).ok();
    let path = ".capn/entries/2d1b0350.md";
    let text = env.read(path);
    env.write(path, &format!("{text}\n## Also asked as\n- {q}\n"));
    env.run(&["list"]).ok();
    let again = env.run(&["chart", q, "--like", RATE_ID]).ok();
    assert_eq!(
        again.stdout,
        format!("charted {RATE_ID}: already a phrasing of \"How does API rate limiting work?\" (taken off chart {WEBHOOKS_ID}, which no longer answers it); asked in these words, it answers with that chart\n")
    );
    assert_eq!(env.run(&["ask", q]).ok().stdout, rate(100));
    assert_eq!(env.read(path), text);
}
