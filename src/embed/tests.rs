use std::time::Instant;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::*;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/embed/parity.json"
);

#[derive(Deserialize)]
struct Fixture {
    model_id: String,
    dim: usize,
    max_tokens: usize,
    cases: Vec<Case>,
    token_cases: Vec<TokenCase>,
}

#[derive(Deserialize)]
struct Case {
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

#[derive(Deserialize)]
struct TokenCase {
    text: String,
    ids: Vec<u32>,
}

fn fixture() -> Fixture {
    let text = std::fs::read_to_string(FIXTURE).expect("parity fixture");
    serde_json::from_str(&text).expect("parity fixture json")
}

fn m() -> &'static Model {
    model().expect("embedded model")
}

/// Token strings of `text`, for readable tokenizer tests.
fn pieces(text: &str) -> Vec<&'static str> {
    let t = m().tokenizer();
    t.tokenize(text)
        .into_iter()
        .map(|id| t.token(id).unwrap())
        .collect()
}

#[test]
fn parity_with_reference_vectors() {
    let fx = fixture();
    let model = m();
    assert_eq!(
        fx.model_id,
        model.id(),
        "fixture made for another model: run tools/make_parity.py"
    );
    assert_eq!(fx.dim, model.dim());
    assert_eq!(fx.max_tokens, MAX_TOKENS);
    assert!(fx.cases.len() >= 30);
    let mut worst = 1.0f32;
    for case in &fx.cases {
        assert_eq!(
            model.tokenizer().tokenize(&case.text),
            case.ids,
            "token ids of {:?}",
            case.text
        );
        let v = model.embed(&case.text);
        assert_eq!(v.len(), model.dim());
        if case.vector.iter().all(|&x| x == 0.0) {
            assert!(
                v.iter().all(|&x| x == 0.0),
                "zero vector for {:?}",
                case.text
            );
            continue;
        }
        let c = cosine(&v, &case.vector);
        worst = worst.min(c);
        assert!(c >= 0.9999, "cosine {c} for {:?}", case.text);
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
    }
    eprintln!("parity: {} texts, min cosine {worst}", fx.cases.len());
}

#[test]
fn tokenizer_matches_reference_on_many_texts() {
    let fx = fixture();
    assert!(fx.token_cases.len() >= 200);
    for case in &fx.token_cases {
        assert_eq!(
            m().tokenizer().tokenize(&case.text),
            case.ids,
            "token ids of {:?}",
            case.text
        );
    }
}

#[test]
fn config_hashes_match_embedded_assets() {
    #[derive(Deserialize)]
    struct Hashes {
        embeddings_sha256: String,
        vocab_sha256: String,
    }
    let h: Hashes = serde_json::from_str(CONFIG).unwrap();
    let hex = |b: &[u8]| {
        Sha256::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    assert_eq!(hex(EMBEDDINGS), h.embeddings_sha256);
    assert_eq!(hex(VOCAB.as_bytes()), h.vocab_sha256);
    assert_eq!(m().id().len(), 16);
    assert!(m().id().bytes().all(|b| b.is_ascii_hexdigit()));
}

#[test]
fn shape_and_thresholds() {
    let model = m();
    assert_eq!(model.dim(), 256);
    assert_eq!(model.tokenizer().len(), 30_522);
    let t = model.thresholds();
    assert!(t.gate > 0.0 && t.gate < 2.0);
    assert!(t.related_min > 0.0 && t.related_min < 1.0);
}

#[test]
fn vocabulary_index_round_trips() {
    let t = m().tokenizer();
    for (id, tok) in VOCAB.trim_end_matches('\n').split('\n').enumerate() {
        assert_eq!(t.token(id as u32), Some(tok));
        assert_eq!(t.token_id(tok), Some(id as u32), "{tok:?}");
    }
    assert_eq!(t.token(30_522), None);
    assert_eq!(t.token_id("notawordpiece"), None);
    let ids = t.tokenize("tokenization");
    assert_eq!(t.token_id(t.token(ids[1]).unwrap()), Some(ids[1]));
}

#[test]
fn rejects_mismatched_index() {
    assert!(Tokenizer::new(VOCAB, &VOCAB_INDEX[4..]).is_err());
    assert!(Tokenizer::new("a\nb", VOCAB_INDEX).is_err());
}

#[test]
fn basic_tokenization() {
    assert_eq!(pieces("Hello, World!"), ["hello", ",", "world", "!"]);
    assert_eq!(
        pieces("  multiple   spaces\there "),
        ["multiple", "spaces", "here"]
    );
    assert_eq!(pieces("a.b"), ["a", ".", "b"]);
    assert_eq!(pieces("$5+x"), ["$", "5", "+", "x"]);
    assert!(pieces("").is_empty());
    assert!(pieces(" \n\t ").is_empty());
}

#[test]
fn accents_are_stripped_and_case_folded() {
    assert_eq!(pieces("café"), pieces("cafe"));
    assert_eq!(pieces("NAÏVE"), pieces("naive"));
    assert_eq!(pieces("Ärger"), pieces("arger"));
    // decomposed input gives the same as precomposed
    assert_eq!(pieces("e\u{301}te\u{301}"), pieces("été"));
}

#[test]
fn cjk_ideographs_are_single_words() {
    assert_eq!(pieces("中文日本"), ["中", "文", "日", "本"]);
    assert_eq!(pieces("x中y"), ["x", "中", "y"]);
    // ideographs missing from the uncased vocabulary are [UNK] one by one
    assert_eq!(pieces("支付"), ["[UNK]", "[UNK]"]);
    // Hiragana/Katakana/Hangul are not padded: they go through WordPiece as words
    let ja = pieces("日本語のテキスト");
    assert_eq!(&ja[..3], ["日", "本", "語"]);
    assert!(ja.len() > 3);
}

#[test]
fn wordpiece_continuations_and_unknowns() {
    let p = pieces("tokenization");
    assert!(
        p.len() >= 2 && p[1..].iter().all(|s| s.starts_with("##")),
        "{p:?}"
    );
    assert_eq!(pieces(&"x".repeat(101)), ["[UNK]"]);
    assert_ne!(pieces(&"x".repeat(100)), ["[UNK]"]);
    assert_eq!(pieces("🚀"), ["[UNK]"]);
    // control characters vanish, zero-width joiner too (format character)
    assert_eq!(pieces("a\u{7}b"), pieces("ab"));
    assert_eq!(pieces("a\u{200d}b"), pieces("ab"));
    // no special-token recognition in user text
    assert_eq!(pieces("[CLS]"), ["[", "cl", "##s", "]"]);
}

#[test]
fn embed_edge_cases() {
    let model = m();
    assert!(model.embed("").iter().all(|&x| x == 0.0));
    assert!(model.embed("🚀🔥").iter().all(|&x| x == 0.0));
    let a = model.embed("where are stripe webhooks handled");
    let b = model.embed("Where are Stripe webhooks handled?");
    assert!(cosine(&a, &b) > 0.95);
    let long = "word ".repeat(5000);
    let v = model.embed(&long);
    assert!((cosine(&v, &model.embed("word")) - 1.0).abs() < 1e-5);
}

#[test]
fn semantic_sanity() {
    let model = m();
    let q = model.embed("how do we handle a failed payment");
    let near = model.embed("retry logic when a charge is declined by the card processor");
    let far = model.embed("render the sidebar navigation icons in dark mode");
    assert!(cosine(&q, &near) > cosine(&q, &far));
}

#[test]
fn cosine_helper() {
    assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
    assert!((cosine(&[1.0, 0.0], &[0.0, 3.0])).abs() < 1e-6);
    assert!((cosine(&[1.0, 1.0], &[-1.0, -1.0]) + 1.0).abs() < 1e-6);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Load and embed timings (medians). Run with
/// `cargo test --release --lib embed::tests::timing -- --ignored --nocapture`.
#[test]
#[ignore]
fn timing() {
    let loads: Vec<f64> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let model = Model::load();
            let dt = t.elapsed().as_secs_f64() * 1e3;
            std::hint::black_box(&model);
            dt
        })
        .collect();
    let model = m();
    let questions = [
        "Where do Stripe subscription webhooks update a workspace's plan and feature limits?",
        "how do we dedupe clicks before recording analytics",
        "where is the final signed PDF generated",
        "支付回调在哪里处理",
        "rate limiting middleware for the public API",
    ];
    let embeds: Vec<f64> = (0..2000)
        .map(|i| {
            let q = questions[i % questions.len()];
            let t = Instant::now();
            let v = model.embed(q);
            let dt = t.elapsed().as_secs_f64() * 1e6;
            std::hint::black_box(&v);
            dt
        })
        .collect();
    eprintln!(
        "load median {:.3} ms (min {:.3}); embed median {:.2} µs per question",
        median(loads.clone()),
        loads.iter().cloned().fold(f64::MAX, f64::min),
        median(embeds)
    );
}
