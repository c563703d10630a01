//! Candidates and learned phrasings (issue 21): a miss says plainly when a chart is probably
//! the answer in other words; `capn chart "<words>" --like <id>` (or charting the same files
//! with a similar question) adds the words as another phrasing of that chart, so the next ask in
//! those words answers; the entry file stays readable by capn-hook 0.2.

use crate::util::Env;
use std::fs;

const WEBHOOKS: &str = "Where are payment webhooks handled?";
const RATE: &str = "How does API rate limiting work?";

/// Two charts, embedding on: 2d1b0350 (webhooks) and 73bd1d6b (rate limiting).
pub(crate) fn two_charts() -> Env {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/api/webhooks.ts", "route()\n");
    env.write("src/api/rate-limit.ts", "limit()\n");
    env.run(&["chart", WEBHOOKS, "--files", "src/api/webhooks.ts"])
        .ok();
    env.run(&["chart", RATE, "--files", "src/api/rate-limit.ts"])
        .ok();
    env
}

/// [`two_charts`] and a third, ef1c9146: "Where are Stripe payment webhooks verified and stored?".
pub(crate) fn three_charts() -> Env {
    let env = two_charts();
    env.write("src/api/stripe.ts", "verify()\n");
    env.run(&[
        "chart",
        "Where are Stripe payment webhooks verified and stored?",
        "--files",
        "src/api/stripe.ts",
    ])
    .ok();
    env
}

fn entry_files(env: &Env) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(env.root.join(".capn/entries"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_strong_candidate_is_said_first_with_what_differs_and_how_to_confirm() {
    let env = three_charts();
    // Only common words keep the charts from answering: probably the same question. The
    // second holds under half of the question, so its every missing word is listed (`held`).
    let q = "Where are Stripe payment webhooks still verified and stored?";
    let run = env.run(&["ask", q]).code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "capn: probably charted already, in other words (not an answer yet: the question has words the chart does not hold, listed as not_in_chart):\n\
candidate {\"id\":\"ef1c9146\",\"question\":\"Where are Stripe payment webhooks verified and stored?\",\"files\":[\"src/api/stripe.ts\"],\"not_in_chart\":[\"still\"]}\n\
candidate {\"id\":\"2d1b0350\",\"question\":\"Where are payment webhooks handled?\",\"files\":[\"src/api/webhooks.ts\"],\"not_in_chart\":[\"still\",\"verified\",\"stripe\",\"stored\"]}\n\
capn: if one of them asks the same thing, read its files instead of searching, and confirm it so that these words answer next time: capn chart \"Where are Stripe payment webhooks still verified and stored?\" --like <its id>\n\
capn: if it does not: no charted answer yet. Explore as usual; once you have found the files that answer it, chart them:\n  \
capn chart \"Where are Stripe payment webhooks still verified and stored?\" --files <files> [--details \"<extra context>\"]\n"
    );
}

#[test]
fn a_near_miss_that_ranks_first_is_only_possibly_related() {
    // A new user saw near misses labelled "probably charted already": the chart lacks the
    // question's subject ("refunds"), a rare word, so it is at most possibly related.
    let env = two_charts();
    let run = env
        .run(&["ask", "Where are payment refunds handled?"])
        .code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "capn: no charted answer yet. Explore as usual; once you have found the files that answer it, chart them:\n  \
capn chart \"Where are payment refunds handled?\" --files <files> [--details \"<extra context>\"]\n\
capn: possibly related charts (not answers: similar questions whose files may help; check them before exploring):\n\
related {\"id\":\"2d1b0350\",\"question\":\"Where are payment webhooks handled?\",\"files\":[\"src/api/webhooks.ts\"],\"not_in_chart\":[\"refunds\"]}\n\
capn: if one of them answers it, read its files and confirm it: capn chart \"Where are payment refunds handled?\" --like 2d1b0350\n"
    );
}

#[test]
fn a_chart_of_one_root_with_another_ending_does_not_answer() {
    // A new user's near miss: "stdin" answered by a chart about "stdout" (their mean token
    // vectors share the piece "std").
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/output.rs", "print()\n");
    env.run(&[
        "chart",
        "Where are search results printed to stdout with colors?",
        "--files",
        "src/output.rs",
    ])
    .ok();
    for q in [
        "Where are search results read from stdin with colors?",
        "Where are search results printed to stderr with colors?",
    ] {
        let run = env.run(&["ask", q]).code(1);
        assert_eq!(run.stdout, "", "{q}");
        assert!(
            !run.stderr.contains("probably charted"),
            "{q}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_weak_candidate_comes_after_the_nudge_as_possibly_related() {
    let env = two_charts();
    let run = env.run(&["ask", "throttle requests per api key"]).code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "capn: no charted answer yet. Explore as usual; once you have found the files that answer it, chart them:\n  \
capn chart \"throttle requests per api key\" --files <files> [--details \"<extra context>\"]\n\
capn: possibly related charts (not answers: similar questions whose files may help; check them before exploring):\n\
related {\"id\":\"73bd1d6b\",\"question\":\"How does API rate limiting work?\",\"files\":[\"src/api/rate-limit.ts\"],\"not_in_chart\":[\"throttle\",\"per\",\"requests\",\"key\"]}\n\
capn: if one of them answers it, read its files and confirm it: capn chart \"throttle requests per api key\" --like 73bd1d6b\n"
    );
}

#[test]
fn like_on_a_fresh_chart_adds_a_phrasing_that_answers_next_time() {
    let env = two_charts();
    let q = "throttle requests per api key";
    let run = env.run(&["chart", q, "--like", "73bd1d6b"]).ok();
    assert_eq!(
        run.stdout,
        "charted 73bd1d6b: added as another phrasing of \"How does API rate limiting work?\"; asked in these words, it now answers with that chart\n"
    );
    let entry = env.read(".capn/entries/73bd1d6b.md");
    assert!(
        entry.ends_with(&format!(
            "\n# {RATE}\n\n## Also asked as\n- throttle requests per api key\n"
        )),
        "{entry}"
    );
    let hits = env.run(&["ask", q]).ok().jsonl();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["id"], "73bd1d6b");
    assert_eq!(
        hits[0]["question"], RATE,
        "the chart's own question is shown"
    );
    assert_eq!(hits[0]["score"], 100, "asked in these words before");
    // `list` shows the phrasings.
    let list = env.run(&["list", "--json"]).ok().jsonl();
    let rate = list.iter().find(|v| v["id"] == "73bd1d6b").unwrap();
    assert_eq!(rate["phrasings"], serde_json::json!([q]));
    let text = env.run(&["list"]).ok().stdout;
    assert!(text.contains(&format!("  also asked as: {q}\n")), "{text}");
    // The original question still answers; confirming again changes nothing.
    assert_eq!(env.run(&["ask", RATE]).ok().jsonl()[0]["id"], "73bd1d6b");
    let again = env
        .run(&[
            "chart",
            "Throttle requests per API key?",
            "--like",
            "73bd1d6b",
        ])
        .ok();
    assert!(
        again.stdout.contains("already a phrasing"),
        "{}",
        again.stdout
    );
    assert_eq!(env.read(".capn/entries/73bd1d6b.md"), entry);
    assert_eq!(entry_files(&env).len(), 2);
}

#[test]
fn like_on_a_stale_chart_is_refused_and_writes_nothing() {
    let env = two_charts();
    let before = env.read(".capn/entries/73bd1d6b.md");
    env.write("src/api/rate-limit.ts", "limit(changed)\n");
    let run = env
        .run(&[
            "chart",
            "throttle requests per api key",
            "--like",
            "73bd1d6b",
        ])
        .code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "capn: --like 73bd1d6b: chart 73bd1d6b is stale: its files changed (src/api/rate-limit.ts), so it answers nothing; nothing was written. Explore as usual and chart what you find with --files\n"
    );
    assert_eq!(env.read(".capn/entries/73bd1d6b.md"), before);
}

#[test]
fn like_on_a_missing_or_malformed_id_is_refused_clearly() {
    let env = two_charts();
    let run = env
        .run(&["chart", "anything", "--like", "0123abcd"])
        .code(1);
    assert_eq!(
        run.stderr,
        "capn: --like 0123abcd: there is no chart 0123abcd (`capn list` shows the charts); nothing was written\n"
    );
    let run = env.run(&["chart", "anything", "--like", "../etc"]).code(1);
    assert!(run.stderr.contains("not a chart id"), "{}", run.stderr);
    let run = env
        .run(&["chart", "anything", "--like", "73bd1d6b", "--files", "x.ts"])
        .code(1);
    assert!(
        run.stderr.contains("--like takes that chart's files"),
        "{}",
        run.stderr
    );
    assert_eq!(entry_files(&env).len(), 2);
    // Outside any store: nothing to be like.
    let bare = Env::git();
    let run = bare
        .run(&["chart", "anything", "--like", "0123abcd"])
        .code(1);
    assert!(run.stderr.contains("no charts here yet"), "{}", run.stderr);
    assert!(!bare.root.join(".capn").exists());
}

/// A symlink at an entry's path is refused as a symlink whether it dangles or not (a dangling
/// one was reported as "there is no chart", though `capn list` named it a symlink), and nothing
/// is written, through the link or beside it. The decoys are in the test's temp dir.
#[cfg(unix)]
#[test]
fn like_on_a_symlinked_entry_is_refused_as_a_symlink_dangling_or_not() {
    let env = two_charts();
    let decoy = env.tmp.path().join("decoy.md");
    fs::write(
        &decoy,
        env.read(".capn/entries/2d1b0350.md")
            .replace("2d1b0350", "eeeeeeee"),
    )
    .unwrap();
    let missing = env.tmp.path().join("missing-decoy.md");
    let entries = env.root.join(".capn/entries");
    std::os::unix::fs::symlink(&missing, entries.join("dddddddd.md")).unwrap();
    std::os::unix::fs::symlink(&decoy, entries.join("eeeeeeee.md")).unwrap();
    let before = fs::read_to_string(&decoy).unwrap();
    for id in ["dddddddd", "eeeeeeee"] {
        let run = env.run(&["chart", "some wording", "--like", id]).code(1);
        assert_eq!(run.stdout, "");
        assert_eq!(
            run.stderr,
            format!(
                "capn: --like {id}: is a symlink (capn does not follow it here); nothing was written\n"
            )
        );
    }
    assert!(!missing.exists(), "the dangling link's target was created");
    assert_eq!(fs::read_to_string(&decoy).unwrap(), before);
    assert_eq!(entry_files(&env).len(), 4);
    assert!(fs::symlink_metadata(entries.join("dddddddd.md"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn the_same_files_with_a_similar_question_merge_and_ids_and_details_stay() {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/api/webhooks.ts", "route()\n");
    env.run(&[
        "chart",
        WEBHOOKS,
        "--files",
        "src/api/webhooks.ts",
        "--details",
        "Router near line 40",
    ])
    .ok();
    let run = env
        .run(&[
            "chart",
            "which handler processes payment webhooks?",
            "--files",
            "src/api/webhooks.ts",
        ])
        .ok();
    assert_eq!(
        run.stdout,
        "charted 2d1b0350: the same files as \"Where are payment webhooks handled?\", a similar question: added as another phrasing of it (no new entry); asked in these words, it now answers with that chart\n"
    );
    assert_eq!(entry_files(&env), ["2d1b0350.md"]);
    let again = env
        .run(&[
            "chart",
            "Which handler processes Payment webhooks",
            "--files",
            "src/api/webhooks.ts",
        ])
        .ok();
    assert_eq!(
        again.stdout,
        "charted 2d1b0350: already a phrasing of \"Where are payment webhooks handled?\" (no new entry)\n"
    );
    // Re-charting the chart's own question without --details keeps id and details.
    let run = env
        .run(&["chart", WEBHOOKS, "--files", "src/api/webhooks.ts"])
        .ok();
    assert_eq!(run.stdout, "charted 2d1b0350\n");
    let entry = env.read(".capn/entries/2d1b0350.md");
    assert!(
        entry.ends_with(&format!(
            "\n# {WEBHOOKS}\n\nRouter near line 40\n\n## Also asked as\n- which handler processes payment webhooks?\n"
        )),
        "{entry}"
    );
    // Both wordings answer with the one chart.
    for q in [WEBHOOKS, "which handler processes payment webhooks?"] {
        let hits = env.run(&["ask", q]).ok().jsonl();
        assert_eq!(hits[0]["id"], "2d1b0350", "{q}");
        assert_eq!(hits[0]["details"], "Router near line 40", "{q}");
    }
    other_files_and_codes(&env);
}

/// The merged chart of the test above, charted again: with its own question and other files it
/// is updated, not copied; questions that hold different codes are different charts, and a code
/// only the new question holds makes a phrasing.
fn other_files_and_codes(env: &Env) {
    // Its own question with other files: the chart is updated, not copied.
    env.write("src/api/other.ts", "x\n");
    env.write("src/api/variants.ts", "v\n");
    env.run(&["chart", WEBHOOKS, "--files", "src/api/other.ts"])
        .ok();
    assert_eq!(entry_files(env), ["2d1b0350.md"]);
    // Two questions that hold different codes are different questions.
    for q in [
        "where is webhook variant 2 handled?",
        "where is webhook variant 3 handled?",
        "where is webhook variant 2 handled in step 3?",
    ] {
        env.run(&["chart", q, "--files", "src/api/variants.ts"])
            .ok();
    }
    assert_eq!(entry_files(env).len(), 4, "{:?}", entry_files(env));
    // A code only the new question holds narrows it: the chart does not answer it (a
    // candidate at most), so on the same files it is a question of its own, and says so.
    let run = env
        .run(&[
            "chart",
            "which handler processes payment webhooks on api v2?",
            "--files",
            "src/api/other.ts",
        ])
        .ok();
    assert!(
        run.stdout
            .contains("(a question of its own: chart 2d1b0350 \"Where are payment webhooks handled?\" has the same files and asks something else)"),
        "{}",
        run.stdout
    );
    assert_eq!(entry_files(env).len(), 5);
}

/// An entry with phrasings keeps the one `# ` heading capn-hook 0.2 parses as the question; the
/// phrasings section is, to 0.2, part of the details (kept verbatim). A 0.2 re-chart of the
/// question (which replaces the entry, details and all) leaves an entry without phrasings that
/// reads as before.
#[test]
#[cfg_attr(
    windows,
    ignore = "the 0.2 store backs an entry with `docs/a: b.md`, a name Windows forbids"
)]
fn multi_phrasing_entries_stay_readable_by_capn_0_2() {
    let env = Env::git();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-0.2");
    crate::chart::copy_dir(&fixture, &env.root);
    // Made here, not kept in the fixture (a Windows checkout cannot hold the name).
    env.write("docs/a: b.md", "# notes\n");
    let q = "where do stripe callbacks land?";
    env.run(&["chart", q, "--like", "9f3a1c2e"]).ok();
    env.run(&["chart", "stripe webhook router", "--like", "9f3a1c2e"])
        .ok();
    let text = env.read(".capn/entries/9f3a1c2e.md");
    // The 0.2 reading: frontmatter, then exactly one `# ` line, then the details verbatim.
    let body = text.split("\n---\n\n").nth(1).unwrap();
    let headings: Vec<&str> = body.lines().filter(|l| l.starts_with("# ")).collect();
    assert_eq!(headings, ["# Where are payment webhooks handled?"]);
    assert_eq!(
        body,
        "# Where are payment webhooks handled?\n\nRouter starts near line 40; Stripe handler owns signature checks.\n\n## Also asked as\n- where do stripe callbacks land?\n- stripe webhook router\n"
    );
    assert!(
        text.contains("\n  \"docs/a: b.md\": "),
        "keys as 0.2 writes them"
    );
    for asked in [
        q,
        "stripe webhook router",
        "Where are payment webhooks handled?",
    ] {
        let hit = &env.run(&["ask", asked]).ok().jsonl()[0];
        assert_eq!(hit["id"], "9f3a1c2e");
        assert_eq!(
            hit["details"],
            "Router starts near line 40; Stripe handler owns signature checks."
        );
    }
    // capn 0.2 charts the same question again: its writer replaces the entry with its own
    // details and no section; capn reads it as an entry without phrasings.
    let rewritten = text.replace(
        "\n\n## Also asked as\n- where do stripe callbacks land?\n- stripe webhook router\n",
        "\n",
    );
    env.write(".capn/entries/9f3a1c2e.md", &rewritten);
    assert_eq!(env.run(&["ask", q]).code(1).stdout, "");
    let hit = &env.run(&["ask", WEBHOOKS]).ok().jsonl()[0];
    assert_eq!(hit["id"], "9f3a1c2e");
    let list = env.run(&["list", "--json"]).ok();
    assert_eq!(list.jsonl().len(), 2, "{}", list.stderr);
    assert!(list.stderr.is_empty(), "{}", list.stderr);
}

/// Re-charting with the very files of a chart, in words recall does not bring close to its
/// question but sharing a word with it, is a question of its own (issue 28: one file answers
/// many questions; only a rewording the chart already answers is merged), and `chart` names
/// the chart it shares its files with; the same words with other files make a new entry too.
#[test]
fn the_same_files_in_distant_words_sharing_one_are_a_chart_of_their_own() {
    let env = Env::git();
    env.run(&["init"]).ok();
    env.write("src/links/create.ts", "create()\n");
    env.write("src/links/other.ts", "other()\n");
    let chart =
        "Where is a link create request validated and persisted after the API route parses it?";
    env.run(&["chart", chart, "--files", "src/links/create.ts"])
        .ok();
    let q = "where is a new short link saved to the database?";
    let run = env
        .run(&["chart", q, "--files", "src/links/create.ts"])
        .ok();
    assert!(!run.stdout.contains("phrasing"), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(
            "(a question of its own: chart 009bea12 \"{chart}\" has the same files and asks something else)"
        )),
        "{}",
        run.stdout
    );
    assert_eq!(entry_files(&env).len(), 2);
    let hits = env.run(&["ask", q]).ok().jsonl();
    assert_eq!(hits[0]["question"], q);
    assert_eq!(hits[0]["score"], 100);
    let hits = env.run(&["ask", chart]).ok().jsonl();
    assert_eq!(hits[0]["question"], chart);
    env.run(&[
        "chart",
        "where is a new short link cached?",
        "--files",
        "src/links/other.ts",
    ])
    .ok();
    assert_eq!(entry_files(&env).len(), 3);
}

/// The JSON keys of a `candidate {…}` / `related {…}` line, in order (`"key":` occurrences).
fn line_keys(line: &str) -> Vec<String> {
    let json = &line[line.find('{').expect("a JSON object")..];
    json.split('"')
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[1].starts_with(':'))
        .map(|w| w[0].to_string())
        .collect()
}

/// The first line of `text` that starts (after spaces) with `prefix`.
fn line_starting<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{text}"))
}

#[test]
fn ask_help_shows_the_candidate_lines_a_miss_really_prints() {
    // `ask --help` once showed `related {…,"score":N}` after candidates had lost their score
    // and gained `not_in_chart`; the help is what an agent reads first.
    let env = three_charts();
    let help = env.run(&["ask", "--help"]).ok().stdout;
    let strong = env
        .run(&[
            "ask",
            "Where are Stripe payment webhooks still verified and stored?",
        ])
        .code(1)
        .stderr;
    let weak = env
        .run(&["ask", "Where are payment refunds handled?"])
        .code(1)
        .stderr;
    for (prefix, real) in [("candidate {", &strong), ("related {", &weak)] {
        assert_eq!(
            line_keys(line_starting(&help, prefix)),
            line_keys(line_starting(real, prefix)),
            "{prefix}"
        );
    }
    // The order the help gives: strong candidates, the nudge, then related charts.
    let at = |text: &str, needle: &str| text.find(needle).unwrap_or(usize::MAX);
    assert!(
        at(&help, "candidate {") < at(&help, "nudge")
            && at(&help, "nudge") < at(&help, "related {")
    );
    assert!(at(&strong, "candidate {") < at(&strong, "Explore as usual"));
    assert!(at(&weak, "Explore as usual") < at(&weak, "related {"));
}
