use super::*;

struct Entry {
    question: &'static str,
    details: &'static str,
    files: Vec<String>,
}

fn entry(question: &'static str, details: &'static str, files: &[&str]) -> Entry {
    Entry {
        question,
        details,
        files: files.iter().map(|f| f.to_string()).collect(),
    }
}

fn corpus() -> Vec<Entry> {
    vec![
        entry(
            "Where are Stripe payment webhooks handled?",
            "Router starts near line 40; the Stripe handler owns signature checks.",
            &["src/api/webhooks.ts", "src/billing/stripeHandler.ts"],
        ),
        entry(
            "How is a short link resolved to its destination URL?",
            "Middleware picks the final URL for iOS and Android visitors.",
            &[
                "apps/web/lib/middleware/link.ts",
                "apps/web/lib/middleware/get-final-url.ts",
            ],
        ),
        entry(
            "Where is two-factor authentication enabled?",
            "setup_2fa creates the secret; enable_2fa verifies the TOTP code.",
            &["packages/lib/server-only/2fa/setup_2fa.ts"],
        ),
        entry(
            "Where are ClickHouse queries for insights built?",
            "The trends query runner builds HogQL.",
            &["posthog/hogql_queries/insights/trends/trends_query_runner.py"],
        ),
        entry(
            "支付回调在哪里处理？",
            "验证签名后写入订单。",
            &["src/pay/callback.rs"],
        ),
        entry(
            "Where are invoice PDFs rendered?",
            "",
            &["src/invoices/render_pdf.rs"],
        ),
    ]
}

fn index_of(entries: &[Entry]) -> Bm25Index {
    let docs: Vec<Doc<'_>> = entries
        .iter()
        .map(|e| Doc {
            question: e.question,
            details: e.details,
            files: &e.files,
        })
        .collect();
    Bm25Index::build(&docs)
}

fn top(index: &Bm25Index, query: &str) -> Option<usize> {
    index.search(query, 5, &|_| true).first().map(|h| h.doc)
}

#[test]
fn each_question_asked_again_ranks_its_entry_first() {
    let entries = corpus();
    let index = index_of(&entries);
    for (i, e) in entries.iter().enumerate() {
        let hits = index.search(e.question, 5, &|_| true);
        assert_eq!(
            hits.first().map(|h| h.doc),
            Some(i),
            "{:?}: {hits:?}",
            e.question
        );
        assert!(
            hits[0].score >= 50,
            "{:?} scored {}",
            e.question,
            hits[0].score
        );
    }
}

#[test]
fn rewordings_find_their_entry() {
    let index = index_of(&corpus());
    assert_eq!(top(&index, "stripe webhook handler"), Some(0));
    assert_eq!(
        top(&index, "which URL does the redirect pick for android?"),
        Some(1)
    );
    assert_eq!(top(&index, "enable 2FA"), Some(2));
    assert_eq!(top(&index, "clickhouse insight query"), Some(3));
    assert_eq!(top(&index, "trendsQueryRunner"), Some(3));
    assert_eq!(top(&index, "render invoice pdf"), Some(5));
}

#[test]
fn cjk_questions_find_cjk_entries() {
    let index = index_of(&corpus());
    assert_eq!(top(&index, "支付回调在哪里处理？"), Some(4));
    assert_eq!(top(&index, "支付回调"), Some(4));
    assert_eq!(top(&index, "Stripe 支付回调"), Some(4));
    // 订单 and 签名 are bigrams of the details; 单签 matches nothing.
    assert_eq!(top(&index, "订单签名"), Some(4));
    assert_eq!(
        top(&index, "天气预报小组件"),
        None,
        "an unrelated CJK question misses"
    );
    assert_eq!(
        top(&index, "支付"),
        Some(4),
        "a single bigram is a whole query"
    );
}

#[test]
fn unrelated_questions_miss() {
    let index = index_of(&corpus());
    for q in [
        "where is the dark mode theme toggle implemented?",
        "how is the weather widget fetched?",
        "where is the",
        "",
        "???",
    ] {
        assert_eq!(index.search(q, 5, &|_| true), [], "{q:?}");
    }
}

#[test]
fn a_weak_partial_match_falls_below_the_floor() {
    let index = index_of(&corpus());
    // Shares only "link" with entry 1: coverage well under the floor.
    let q = "kanban board drag and drop reorder link cards between swimlanes";
    let cands = index.candidates(q, &|_| true);
    assert!(cands.iter().any(|c| c.doc == 1), "{cands:?}");
    assert!(cands.iter().all(|c| !passes_floor(c)), "{cands:?}");
    assert_eq!(index.search(q, 5, &|_| true), []);
}

#[test]
fn allowed_filter_is_respected() {
    let index = index_of(&corpus());
    let q = "Where are Stripe payment webhooks handled?";
    assert_eq!(top(&index, q), Some(0));
    let hits = index.search(q, 5, &|d| d != 0);
    assert!(hits.iter().all(|h| h.doc != 0), "{hits:?}");
    assert!(index.candidates(q, &|d| d != 0).iter().all(|c| c.doc != 0));
    assert_eq!(index.search(q, 5, &|_| false), []);
}

#[test]
fn allowed_is_asked_lazily_in_rank_order() {
    let entries: Vec<Entry> = (0..50)
        .map(|i| {
            entry(
                "Where are webhook retries scheduled?",
                if i % 10 == 3 {
                    "webhook retries retries"
                } else {
                    ""
                },
                &[],
            )
        })
        .collect();
    let index = index_of(&entries);
    let asked = std::cell::RefCell::new(Vec::new());
    let hits = index.search("webhook retries", 2, &|d| {
        asked.borrow_mut().push(d);
        d != 3
    });
    // The five docs with longer details rank first; 3 is refused, 13 and 23 fill the limit.
    assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>(), [13, 23]);
    assert_eq!(*asked.borrow(), [3, 13, 23]);
}

#[test]
fn limit_caps_hits_and_orders_them_best_first() {
    let entries: Vec<Entry> = (0..20)
        .map(|i| {
            entry(
                "Where are webhook retries scheduled?",
                if i == 7 {
                    "webhook webhook retries"
                } else {
                    ""
                },
                &[],
            )
        })
        .collect();
    let index = index_of(&entries);
    let hits = index.search("webhook retries", 3, &|_| true);
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].doc, 7);
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(index.search("webhook retries", 0, &|_| true), []);
}

#[test]
fn a_long_prompt_is_handled_quickly_and_repeats_count_once() {
    let index = index_of(&corpus());
    let once = index.candidates("stripe webhook", &|_| true);
    let repeated = index.candidates(&"stripe webhook ".repeat(50), &|_| true);
    assert_eq!(once, repeated);
    let words: Vec<String> = (0..20_000).map(|i| format!("word{i} stripe")).collect();
    let t = std::time::Instant::now();
    let hits = index.search(&words.join(" "), 5, &|_| true);
    assert!(hits.is_empty(), "20,000 unknown words swamp the one known");
    // A hang guard, not a speed check (bench/ measures speed): a search quadratic in the
    // question's words takes many minutes here.
    assert!(t.elapsed().as_secs() < 120, "took {:?}", t.elapsed());
}

#[test]
fn empty_index_answers_nothing() {
    let index = Bm25Index::build(&[]);
    assert!(index.is_empty());
    assert_eq!(index.len(), 0);
    assert_eq!(index.search("anything at all", 5, &|_| true), []);
    assert_eq!(index.candidates("anything", &|_| true), []);
    assert_eq!(index.query_weight("anything"), 0.0);
    let default = Bm25Index::default();
    assert_eq!(default.search("anything", 5, &|_| true), []);
}

#[test]
fn docs_without_text_are_counted_but_never_found() {
    let entries = vec![entry("", "", &[]), entry("Where is billing?", "", &[])];
    let index = index_of(&entries);
    assert_eq!(index.len(), 2);
    assert_eq!(top(&index, "billing"), Some(1));
}

#[test]
fn coverage_and_scores_stay_in_range() {
    let index = index_of(&corpus());
    for q in ["stripe webhook", "link URL android iOS", "pdf", "支付"] {
        let ideal = index.query_weight(q);
        for c in index.candidates(q, &|_| true) {
            assert!((0.0..=1.0).contains(&c.coverage), "{q:?} {c:?}");
            assert!(
                c.bm25 > 0.0 && c.bm25 <= ideal + 1e-4,
                "{q:?} {c:?} ideal {ideal}"
            );
        }
        for h in index.search(q, 5, &|_| true) {
            assert!((1..=100).contains(&h.score), "{q:?} {h:?}");
        }
    }
}

#[test]
fn a_rewording_finds_the_only_entry_of_a_young_store() {
    // With one entry, BM25's raw IDF would weigh the unseen "handler" ~5x a held word and
    // drop coverage under the floor; the IDF prior keeps it a hit.
    let entries = vec![entry(
        "Where are Stripe payment webhooks handled?",
        "",
        &["src/api/webhooks.ts"],
    )];
    let index = index_of(&entries);
    assert_eq!(top(&index, "where is the stripe webhook handler?"), Some(0));
    assert_eq!(top(&index, "where is the dark mode toggle?"), None);
}

#[test]
fn unknown_camel_case_compounds_do_not_dilute_coverage() {
    let entries = vec![entry(
        "Where is mail sent?",
        "",
        &["src/send-signing-email.ts"],
    )];
    let index = index_of(&entries);
    let c = index.candidates("sendSigningEmail", &|_| true);
    assert_eq!(c.len(), 1);
    assert!((c[0].coverage - 1.0).abs() < 1e-6, "{c:?}");
}

#[test]
fn postcard_round_trip_preserves_search() {
    let index = index_of(&corpus());
    let bytes = postcard::to_stdvec(&index).unwrap();
    let back: Bm25Index = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(back.len(), index.len());
    for q in [
        "stripe webhook handler",
        "支付回调",
        "trendsQueryRunner",
        "render invoice pdf",
    ] {
        assert_eq!(
            back.search(q, 5, &|_| true),
            index.search(q, 5, &|_| true),
            "{q:?}"
        );
    }
    assert_eq!(
        postcard::to_stdvec(&back).unwrap(),
        bytes,
        "stable encoding"
    );
}

#[test]
fn corrupt_bytes_fail_to_load_instead_of_panicking_later() {
    let index = index_of(&corpus());
    let bytes = postcard::to_stdvec(&index).unwrap();
    assert!(postcard::from_bytes::<Bm25Index>(&bytes[..bytes.len() / 2]).is_err());
    // Inconsistent offsets are refused by validation.
    let mut raw = (*index.raw).clone();
    raw.posting_ends.0.reverse();
    let bad = postcard::to_stdvec(&raw).unwrap();
    assert!(postcard::from_bytes::<Bm25Index>(&bad).is_err());
    let mut raw = (*index.raw).clone();
    raw.df.0[0] = raw.n_docs + 1;
    let bad = postcard::to_stdvec(&raw).unwrap();
    assert!(postcard::from_bytes::<Bm25Index>(&bad).is_err());
    // Flipping any single byte never panics: it fails to load or searches safely.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        if let Ok(ix) = postcard::from_bytes::<Bm25Index>(&b) {
            let _ = ix.search("stripe webhook 支付 pdf link", 5, &|_| true);
        }
    }
}

#[test]
fn display_score_is_a_clamped_share_of_the_ideal() {
    assert_eq!(display_score(0.0, 0.0), 0);
    assert_eq!(display_score(1.0, 2.0), 50);
    assert_eq!(display_score(0.001, 10.0), 1);
    assert_eq!(display_score(5.0, 4.0), 100);
    assert_eq!(display_score(f32::NAN, 4.0), 0);
}

#[test]
fn field_weights_rank_a_question_match_above_a_path_match() {
    let entries = vec![
        entry("Where is the cache warmed?", "", &["src/invoice.rs"]),
        entry("Where are invoices numbered?", "", &["src/cache.rs"]),
    ];
    let index = index_of(&entries);
    assert_eq!(top(&index, "invoice"), Some(1));
    assert_eq!(top(&index, "cache"), Some(0));
}

/// The cosines of a few entries (`Vectors::cosines_of`) are those of the whole scan: in
/// memory, streamed from the file (past one 128-entry read), read whole, or spliced over
/// the file; a position past the end gives 0.
#[test]
fn cosines_of_a_few_entries_are_those_of_the_whole_scan() {
    let model = crate::embed::model().expect("this build embeds a model");
    let n = 137;
    let words = [
        "payment webhooks",
        "session cookie",
        "rate limit",
        "retry queue",
    ];
    let v = super::semantic::embed_all(model, (0..n).map(|i| (words[i % 4], "")));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vectors.bin");
    std::fs::write(&path, v.to_file_bytes(3).unwrap()).unwrap();
    let q = model.embed("where are webhooks retried");
    let docs = [0, 5, 129, n - 2, 2];
    let check = |set: &super::semantic::Vectors| {
        let all = set.cosines(&q);
        assert!(all.iter().any(|&c| c != 0.0));
        let want: Vec<f32> = docs.iter().map(|&d| all[d]).collect();
        assert_eq!(set.cosines_of(&docs, &q), want);
        assert_eq!(set.cosines_of(&[set.len()], &q), [0.0]);
    };
    let opened = super::semantic::Vectors::open(&path, 1 << 30, model.dim(), n, 3).unwrap();
    let new = super::semantic::embed_entry(model, "cookie rotation", "");
    for set in [&v, &opened, &opened.splice(&[1, 7], &[(4, new)]).unwrap()] {
        check(set);
    }
    assert!(opened.to_file_bytes(3).is_some(), "read whole");
    check(&opened);
}
