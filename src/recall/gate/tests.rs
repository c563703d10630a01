use super::*;

#[test]
fn derivations_match_and_short_stems_or_compounds_do_not() {
    let stem = |w: &str| Analyzer::default().stem_word(w);
    for (a, b) in [
        ("handled", "handler"),
        ("handling", "handler"),
        ("process", "processor"),
    ] {
        assert!(derived(&stem(a), &stem(b)), "{a}/{b}");
    }
    for (a, b) in [
        ("sign", "signal"),
        ("group", "groupidentify"),
        ("user", "username"),
        ("s3", "s3bucket"),
        ("count", "country"),
        ("check", "checkout"),
        ("check", "checkbox"),
        ("bound", "boundaries"),
        ("state", "statement"),
    ] {
        assert!(!derived(&stem(a), &stem(b)), "{a}/{b}");
    }
}

fn index(questions: &[&str]) -> (Bm25Index, Vec<DocText>) {
    let docs: Vec<DocText> = questions
        .iter()
        .map(|q| DocText {
            question: q.to_string(),
            ..Default::default()
        })
        .collect();
    let views: Vec<Doc<'_>> = docs.iter().map(DocText::as_doc).collect();
    (Bm25Index::build(&views), docs)
}

fn model() -> &'static Model {
    crate::embed::model().expect("this build embeds a model")
}

const CHARTS: [&str; 4] = [
    "Where are payment webhooks handled?",
    "How does API rate limiting work?",
    "How is the PDF certificate page rendered?",
    "How is the project root located?",
];

#[test]
fn questions_normalise_case_punctuation_and_whitespace_away() {
    assert_eq!(
        normalise_question("  Where is X?? "),
        Some("where is x".into())
    );
    assert_eq!(
        normalise_question("WHERE\tis   x"),
        Some("where is x".into())
    );
    assert_eq!(
        normalise_question("支付回调在哪里？"),
        Some("支付回调在哪里".into())
    );
    assert_eq!(normalise_question("?!"), None);
    assert_eq!(
        normalise_question("ＷＨＥＲＥ is Ｘ？"),
        Some("where is x".into())
    );
    assert_eq!(exact_key("Where is X?"), exact_key("where is x"));
    // Symbols that are part of a name stay (a breaker got "C++" replaced by "C").
    for (a, b) in [
        (
            "How is the C++ extension built?",
            "How is the C extension built?",
        ),
        (
            "Where is the C# client generated?",
            "Where is the C client generated?",
        ),
        (
            "Where is the == operator overloaded?",
            "Where is the != operator overloaded?",
        ),
    ] {
        assert_ne!(normalise_question(a), normalise_question(b), "{a} / {b}");
    }
    assert_eq!(
        normalise_question("How is the C++ extension built?").as_deref(),
        Some("how is the c ++ extension built")
    );
    assert_eq!(
        normalise_question("Where is log-in (SAML/OIDC) handled?!").as_deref(),
        Some("where is log in saml oidc handled")
    );
    assert_ne!(exact_key("Where is X?"), exact_key("Where is Y?"));
    assert!(exact_key("Where is X?").unwrap().starts_with('\u{1}'));
}

/// "What does init do?" once re-charted the chart of "What does __init__ do?" (one
/// normal form), and `io.read` met `io_read`. Identifiers stay apart; a sentence's own
/// punctuation is still set aside.
#[test]
fn identifiers_with_underscores_or_dots_stay_apart() {
    let forms = [
        "What does __init__ do?",
        "What does init do?",
        "What does io.read do?",
        "What does io_read do?",
        "What does io read do?",
    ];
    for (i, a) in forms.iter().enumerate() {
        for b in &forms[i + 1..] {
            assert_ne!(normalise_question(a), normalise_question(b), "{a} / {b}");
            assert_ne!(exact_key(a), exact_key(b), "{a} / {b}");
        }
    }
    assert_eq!(
        normalise_question("What does __init__ do?").as_deref(),
        Some("what does __init__ do")
    );
    assert_eq!(
        normalise_question("Where is io.read defined...").as_deref(),
        Some("where is io.read defined")
    );
    assert_eq!(
        normalise_question("Where is main. Really?").as_deref(),
        Some("where is main really")
    );
    assert_eq!(
        exact_key("what does IO.read do"),
        exact_key("What does io.read do?")
    );
}

#[test]
fn a_chart_of_another_identifier_form_clashes_and_other_words_do_not() {
    let n = |q: &str| normalise_question(q).unwrap();
    for (asked, chart) in [
        ("What does __init__ do?", "What does init do?"),
        ("What does init do?", "What does __init__ do?"),
        ("What does io.read do?", "What does io_read do?"),
        ("what does io_read do", "What does io.read do?"),
    ] {
        assert!(identifier_clash(&n(asked), chart), "{asked} / {chart}");
    }
    for (asked, chart) in [
        ("What does __init__ do?", "What does __init__ do?"),
        // A phrasing in the asked form: the chart has been confirmed to ask it.
        (
            "What does init do?",
            "What does __init__ do?\nwhat does init do",
        ),
        // Words split by spaces, camelCase and other words are not identifier forms.
        ("where is the user_id set?", "Where is the user id set?"),
        ("where is userId set?", "Where is the user_id set?"),
        (
            "Where are payment webhooks handled?",
            "Where are payment webhooks handled?",
        ),
        ("How is io read?", "How does the io module read files?"),
    ] {
        assert!(!identifier_clash(&n(asked), chart), "{asked} / {chart}");
    }
}

#[test]
fn punctuation_around_a_symbol_is_set_aside_and_a_symbol_run_is_a_word() {
    for (a, b) in [
        ("How do we compile C#?", "how do we compile c#"),
        ("how do we compile (C#)?", "How do we compile C#"),
        ("«How do we compile C#»", "How do we compile C#"),
        ("How do we compile C#。", "How do we compile C#"),
        ("„How do we compile C++?“", "How do we compile C++"),
        (
            "Where is operator== defined?",
            "Where is operator == defined",
        ),
        ("Where is a!=b checked?", "Where is a != b checked"),
        (
            "Is x->y or a::b or p||q set?",
            "is x -> y or a :: b or p || q set",
        ),
        ("Is x<=>y used?", "is x <=> y used"),
    ] {
        assert_eq!(normalise_question(a), normalise_question(b), "{a} / {b}");
    }
    assert_eq!(
        normalise_question("(C#)?").as_deref(),
        Some("c #"),
        "punctuation leaves the symbol"
    );
    let apart = [
        "How do we compile C?",
        "How do we compile C#?",
        "How do we compile C++?",
        "Where is a == b checked?",
        "Where is a != b checked?",
        "Where is a = b checked?",
    ];
    for (i, a) in apart.iter().enumerate() {
        for b in &apart[i + 1..] {
            assert_ne!(normalise_question(a), normalise_question(b), "{a} / {b}");
        }
    }
}

#[test]
fn unicode_sentence_punctuation_and_quotes_are_set_aside_too() {
    for (a, b) in [
        (
            "¿Dónde se manejan los reembolsos?",
            "Dónde se manejan los reembolsos?",
        ),
        (
            "¡Dónde se manejan los reembolsos!",
            "dónde se manejan los reembolsos",
        ),
        ("«Where is X»", "where is x"),
        ("‹Where is X›", "where is x"),
        ("„Where is X“", "where is x"),
        ("‚Where is X‘", "where is x"),
        ("Where is X؟", "where is x"),
        ("أين، يتم التعامل مع الدفع؟", "أين يتم التعامل مع الدفع"),
        ("支付回调、退款在哪里。", "支付回调 退款在哪里"),
        ("「支付回调」在哪里", "支付回调 在哪里"),
        (
            "Where is log‐in ‒ or log‑in ― handled?",
            "where is log in or log in handled",
        ),
        ("कहाँ है।", "कहाँ है"),
    ] {
        assert_eq!(normalise_question(a), normalise_question(b), "{a} / {b}");
    }
    // Still apart: a symbol that is part of a name, among the new marks.
    for (a, b) in [
        ("Where is X‽", "where is x"),
        ("Where is X۔", "where is x"),
        ("Where is X። or ፧", "where is x or"),
        ("Where is X՞", "where is x"),
        ("〝Where〞 〔is〕 〖X〗", "where is x"),
        ("״Where is X״", "where is x"),
        (
            "Where is pay\u{ad}ment\u{200b}hook handled\u{200d}?",
            "where is payment hook handled",
        ),
    ] {
        assert_eq!(normalise_question(a), normalise_question(b), "{a} / {b}");
    }
    assert_ne!(
        normalise_question("«How is the C++ extension built?»"),
        normalise_question("«How is the C extension built?»")
    );
    assert_ne!(
        normalise_question("¿Dónde está el operador ==?"),
        normalise_question("¿Dónde está el operador !=?")
    );
}

#[test]
fn a_phrasing_of_common_words_alone_gets_a_marker_and_one_with_terms_does_not() {
    // The chart's own question always has its marker; another phrasing only when it has no
    // term to be found by ("where is it?"): one with terms ranks among the first when asked.
    let (bm25, _) = index(&["Where are payment webhooks handled?\nwhere is it\nstripe callbacks"]);
    assert_eq!(bm25.exact_docs("Where are payment webhooks handled"), [0]);
    assert_eq!(bm25.exact_docs("Where is it?"), [0]);
    assert_eq!(bm25.exact_docs("stripe callbacks"), Vec::<usize>::new());
    assert_eq!(bm25.candidates("stripe callbacks", &|_| true).len(), 1);
    assert!(bm25.candidates("where is it", &|_| true).is_empty());
}

#[test]
fn the_exact_marker_finds_the_chart_but_is_no_search_term() {
    let (bm25, _) = index(&["Where is X?", "Where is Y?"]);
    assert_eq!(bm25.exact_docs("where is x"), [0]);
    assert_eq!(bm25.exact_docs("WHERE IS Y !"), [1]);
    assert_eq!(bm25.exact_docs("where is z"), Vec::<usize>::new());
    // "x" is a single letter: no search term at all, so only the marker can find it.
    assert!(bm25.candidates("Where is X?", &|_| true).is_empty());
}

#[test]
fn a_near_miss_has_an_unmatched_salient_term_and_a_rewording_does_not() {
    let (bm25, docs) = index(&CHARTS);
    let t = model().thresholds();
    for (asked, doc, word) in [
        ("Where are payment refunds handled?", 0, "refunds"),
        ("How does API pagination work?", 1, "pagination"),
        ("Where is the login page rendered?", 2, "login"),
        ("what license is this project under?", 3, "license"),
    ] {
        let q = Question::new(&bm25, asked, 0.0);
        let d = docs[doc].as_doc();
        assert_eq!(q.unmatched(&d, Some(model()), &t), Some(word), "{asked}");
        assert_eq!(q.unmatched(&d, None, &t), Some(word), "{asked}");
    }
    for (asked, doc) in [
        ("where do we handle payment webhooks", 0),
        ("API rate limits", 1),
        ("rendering the certificate page of the PDF", 2),
        ("locating the root of the project", 3),
    ] {
        let q = Question::new(&bm25, asked, 0.0);
        assert_eq!(
            q.unmatched(&docs[doc].as_doc(), Some(model()), &t),
            None,
            "{asked}"
        );
    }
}

#[test]
fn the_index_based_judgement_agrees_with_the_text_based_one() {
    let (bm25, docs) = index(&CHARTS);
    let t = model().thresholds();
    let text = |d: usize| docs.get(d).cloned();
    for asked in [
        "Where are payment refunds handled?",
        "How does API pagination work?",
        "where do we handle payment webhooks",
        "How does the API rate limiter work?",
        "what license is this project under?",
        "Where is the PDF page of a certificate rendered?",
    ] {
        let q = Question::new(&bm25, asked, t.salient);
        for (d, doc) in docs.iter().enumerate() {
            for m in [Some(model()), None] {
                assert_eq!(
                    q.unmatched_doc(d, &text, m, &t),
                    Some(q.unmatched(&doc.as_doc(), m, &t)),
                    "{asked} / {}",
                    doc.question
                );
            }
        }
    }
    // The text is read only to align words; unreadable then, the candidate is skipped.
    let q = Question::new(&bm25, "Where are payment refunds handled?", t.salient);
    assert_eq!(q.unmatched_doc(0, &|_| None, Some(model()), &t), None);
    assert_eq!(
        q.unmatched_doc(0, &|_| None, None, &t),
        Some(Some("refunds"))
    );
    let q = Question::new(&bm25, "where are payment webhooks handled", t.salient);
    assert_eq!(q.unmatched_doc(0, &|_| None, Some(model()), &t), Some(None));
}

#[test]
fn words_of_one_root_with_other_endings_do_not_align() {
    // A new user's near miss: "stdin" against a chart about "stdout" answered, because the
    // two mean vectors share the piece "std".
    let charts = [
        "Where are search results printed to stdout with colors?",
        "Where are payment webhooks handled?",
    ];
    let (bm25, docs) = index(&charts);
    let t = model().thresholds();
    for (asked, word) in [
        (
            "Where are search results read from stdin with colors?",
            "stdin",
        ),
        (
            "Where are search results printed to stderr with colors?",
            "stderr",
        ),
    ] {
        let q = Question::new(&bm25, asked, 0.0);
        assert_eq!(
            q.unmatched(&docs[0].as_doc(), Some(model()), &t),
            Some(word),
            "{asked}"
        );
    }
    assert!(shares_a_root_only(model(), "stdin", "stdout"));
    assert!(!shares_a_root_only(model(), "postgres", "postgresql"));
    assert!(!shares_a_root_only(model(), "webhooks", "callbacks"));
}

#[test]
fn generic_words_never_block_and_inflections_align_by_token_vectors() {
    let (bm25, docs) = index(&CHARTS);
    let t = model().thresholds();
    // "code" and "file" are common in software English: below `salient`, they cannot block.
    let q = Question::new(&bm25, "which code file handles payment webhooks?", 0.0);
    assert_eq!(q.unmatched(&docs[0].as_doc(), Some(model()), &t), None);
    // "limiter" is no stem of "limiting", but its token vector is close.
    let q = Question::new(&bm25, "How does the API rate limiter work?", 0.0);
    assert_eq!(q.unmatched(&docs[1].as_doc(), Some(model()), &t), None);
}

#[test]
fn words_that_change_what_is_asked_block_even_when_common() {
    // Near misses from a new-user trial: a broad stop list (SMART) holds "sent", "second",
    // "last" and "next", and letting its words pass answered all of these with the chart.
    let charts = [
        "Where are invitation emails rendered?",
        "How is the first page of search results fetched?",
        "Where are payment webhooks handled?",
        "How does API rate limiting work?",
        "How is the PDF certificate page rendered?",
        "How is the project root located?",
    ];
    let (bm25, docs) = index(&charts);
    let t = model().thresholds();
    for (question, doc, word) in [
        ("Where are invitation emails sent?", 0, "sent"),
        (
            "How is the second page of search results fetched?",
            1,
            "second",
        ),
        ("How is the last page of search results fetched?", 1, "last"),
        ("How is the next page of search results fetched?", 1, "next"),
    ] {
        let q = Question::new(&bm25, question, 0.0);
        assert_eq!(
            q.unmatched(&docs[doc].as_doc(), Some(model()), &t),
            Some(word),
            "{question}"
        );
    }
}

#[test]
fn a_minor_unmatched_word_of_a_long_question_does_not_block() {
    let chart = "Where are Stripe payment webhooks verified, retried after failures, logged \
                     for audit and forwarded to the billing ledger?";
    let mut charts = vec![chart];
    charts.extend(CHARTS);
    let (bm25, docs) = index(&charts);
    let t = model().thresholds();
    let q = Question::new(
        &bm25,
        "Where are Stripe payment webhooks verified, retried after failures, logged for audit \
             and eventually forwarded to the billing ledger?",
        0.0,
    );
    assert_eq!(q.unmatched(&docs[0].as_doc(), Some(model()), &t), None);
    let q = Question::new(&bm25, "Where are Stripe payment refunds verified?", 0.0);
    assert_eq!(
        q.unmatched(&docs[0].as_doc(), Some(model()), &t),
        Some("refunds")
    );
}

/// A question term held by `docs`; `looked_up`: its docs were looked up (it weighs at least
/// `salient`, or carries a tenth of the question), as `Question::new` does.
fn query_term(word: &str, salience: f32, docs: Vec<u32>, looked_up: bool) -> QueryTerm {
    QueryTerm {
        term: word.into(),
        word: word.into(),
        salience,
        compound: false,
        docs: if looked_up { docs.clone() } else { Vec::new() },
        own_by: docs.clone(),
        held_by: docs,
    }
}

#[test]
fn a_chart_holding_under_half_of_the_question_does_not_answer() {
    let t = model().thresholds();
    let term = |word: &str, salience: f32, docs: Vec<u32>| query_term(word, salience, docs, false);
    // "where are raw Stripe payloads persisted before processing?" against a chart of
    // outgoing webhook payloads in raw formats: each missing word is generic and carries
    // under 30%, together they carry 56%.
    let q = Question {
        terms: vec![
            term("raw", 0.45, vec![0]),
            term("payloads", 0.24, vec![0]),
            term("stripe", 0.16, Vec::new()),
            term("persisted", 0.35, Vec::new()),
            term("processing", 0.36, Vec::new()),
        ],
        ..Default::default()
    };
    assert!(t.salient > 0.36 && t.held == 0.5);
    assert_eq!(
        q.unmatched_doc(0, &|_| None, None, &t),
        Some(Some("processing"))
    );
    // Holding one more of them, the chart holds most of the question: it answers.
    let mut most = q.clone();
    most.terms[3].held_by = vec![0];
    assert_eq!(most.unmatched_doc(0, &|_| None, None, &t), Some(None));
}

#[test]
fn a_common_word_carrying_a_third_of_a_short_question_blocks() {
    let t = model().thresholds();
    let term = |word: &str, salience: f32, docs: Vec<u32>| query_term(word, salience, docs, true);
    // "creating a custom field from settings": every word weighs under `salient`, and
    // "custom", which the chart lacks, carries over half of the question.
    let q = Question {
        terms: vec![
            term("custom", 0.39, Vec::new()),
            term("field", 0.2, vec![0]),
            term("settings", 0.13, vec![0]),
        ],
        ..Default::default()
    };
    assert!(t.salient > 0.39);
    assert_eq!(
        q.unmatched_doc(0, &|_| None, None, &t),
        Some(Some("custom"))
    );
    // The same word in a long question carries little of it: it does not block.
    let mut long = q.clone();
    long.terms[0].salience = 0.1;
    long.terms
        .extend((0..6).map(|i| term(&format!("w{i}"), 0.3, vec![0])));
    assert_eq!(long.unmatched_doc(0, &|_| None, None, &t), Some(None));
}

/// A chart's own words are its question and phrasings: words its details hold count for the
/// gate, not for `own_share` (the decision weighs it against `held`).
#[test]
fn own_words_leave_details_aside() {
    let docs = [
        DocText {
            question: "How does CliRunner capture what a command writes to stdout?".into(),
            details: "isolation() swaps sys.stdout for a BytesIO buffer, so echo() writes its bytes there".into(),
            files: vec!["src/click/testing.py".into()],
        },
        DocText {
            question: "Where is click.echo() implemented?\nhow does echo() write bytes to stdout".into(),
            ..Default::default()
        },
    ];
    let views: Vec<Doc<'_>> = docs.iter().map(DocText::as_doc).collect();
    let bm25 = Bm25Index::build(&views);
    let t = model().thresholds();
    let text = |d: usize| docs.get(d).cloned();
    let q = Question::new(&bm25, "How does echo() write bytes to stdout?", t.salient);
    // The gate lets the runner through on its details...
    assert_eq!(q.unmatched_doc(0, &text, Some(model()), &t), Some(None));
    // ...but its own words hold under half of the question, while the chart whose phrasing
    // asks it holds all of it.
    let runner = q.own_share(0, &text, Some(model()), &t).unwrap();
    assert!(runner < t.held, "{runner}");
    assert_eq!(q.own_share(1, &text, Some(model()), &t), Some(1.0));
    // Unreadable text (needed to align the words the index does not hold): unknown.
    assert_eq!(q.own_share(0, &|_| None, Some(model()), &t), None);
}
