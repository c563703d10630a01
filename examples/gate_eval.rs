//! In-process evaluation of the answer gate (`capn_hook::recall::gate`) on `bench/`, both search
//! modes (BM25 alone and fused with the embedding), per-repo and pooled stores, and every
//! question asked of the other repos' stores (cross). Same scoring as `bench/recall_bench.py`.
//!
//! ```text
//! cargo run --release --example gate_eval                     # the table at the model's thresholds
//! cargo run --release --example gate_eval -- sweep            # each threshold halved and doubled
//! cargo run --release --example gate_eval -- diag [KIND]      # per question: answer, related, unmatched word
//! cargo run --release --example gate_eval -- words A B ...    # token-vector cosine of word pairs A/B
//! ```
//!
//! Inputs: `bench/corpus/*.json`, `bench/queries/dev.tsv`, `near-dev.tsv` and `para2-dev.tsv`
//! (repo, case, kind, query); kind `exact` is each case's own question.

use capn_hook::embed::{Model, Thresholds};
use capn_hook::recall::gate::{self, Ask, DocText, Question};
use capn_hook::recall::semantic::{self, Vectors};
use capn_hook::recall::{decide, Bm25Index, Doc};
use std::collections::BTreeMap;

#[path = "common/bench.rs"]
mod bench;
use bench::Query;

struct Store {
    bm25: Bm25Index,
    vectors: Vectors,
    docs: Vec<DocText>,
    cases: Vec<String>,
}

/// Repo name to its charts as (case id, text).
type Corpus = BTreeMap<String, Vec<(String, DocText)>>;

fn load() -> (Corpus, Vec<Query>) {
    let repos = bench::repos();
    let queries = bench::queries(&repos, &["dev.tsv", "near-dev.tsv", "para2-dev.tsv"]);
    let corpus = repos
        .into_iter()
        .map(|r| {
            let charts = r.charts.into_iter().map(|c| {
                let doc = DocText {
                    question: c.question,
                    details: c.details,
                    files: c.files,
                };
                (c.case, doc)
            });
            (r.name, charts.collect())
        })
        .collect();
    (corpus, queries)
}

fn build(model: &Model, charts: &[&(String, DocText)]) -> Store {
    let docs: Vec<DocText> = charts.iter().map(|(_, d)| d.clone()).collect();
    let views: Vec<Doc<'_>> = docs.iter().map(DocText::as_doc).collect();
    Store {
        bm25: Bm25Index::build(&views),
        vectors: semantic::embed_all(
            model,
            docs.iter()
                .map(|d| (d.question.as_str(), d.details.as_str())),
        ),
        cases: charts.iter().map(|(c, _)| c.clone()).collect(),
        docs,
    }
}

fn stores(model: &Model, repos: &Corpus) -> BTreeMap<String, Store> {
    let mut out: BTreeMap<String, Store> = repos
        .iter()
        .map(|(r, c)| (r.clone(), build(model, &c.iter().collect::<Vec<_>>())))
        .collect();
    let all: Vec<&(String, DocText)> = repos.values().flatten().collect();
    out.insert("pooled".into(), build(model, &all));
    out
}

/// Answers and related doc numbers for one question.
fn ask(
    st: &Store,
    q: &str,
    fused: bool,
    t: &Thresholds,
    model: &Model,
) -> (Vec<usize>, Vec<usize>) {
    let a = Ask {
        query: q,
        limit: 5,
        thresholds: t,
        source: &st.docs,
    };
    let qv = model.embed(q);
    let vectors = fused.then_some((&st.vectors, qv.as_slice()));
    let r = decide::search(&st.bm25, vectors, &a, Some(model));
    (
        r.answers.iter().map(|h| h.doc).collect(),
        r.candidates.iter().map(|c| c.hit.doc).collect(),
    )
}

#[derive(Default, Debug)]
struct Tally {
    exact_p1: usize,
    para_p1: usize,
    para2_p1: usize,
    hard_rel: usize,
    hard_wrong: usize,
    neg_answered: usize,
    near_answered: usize,
    cross: usize,
    cross_near: usize,
}

fn eval(
    stores: &BTreeMap<String, Store>,
    queries: &[Query],
    fused: bool,
    pooled: bool,
    t: &Thresholds,
    model: &Model,
) -> Tally {
    let mut x = Tally::default();
    for q in queries {
        let st = &stores[if pooled { "pooled" } else { q.repo.as_str() }];
        let (hits, related) = ask(st, &q.text, fused, t, model);
        let want = |d: &usize| st.cases[*d] == q.case;
        let p1 = usize::from(hits.first().is_some_and(want));
        match q.kind.as_str() {
            "exact" => x.exact_p1 += p1,
            "para" => x.para_p1 += p1,
            "para2" => x.para2_p1 += p1,
            "hard" => {
                x.hard_rel += usize::from(hits.iter().chain(&related).take(5).any(want));
                x.hard_wrong += usize::from(!hits.is_empty() && p1 == 0);
            }
            "neg" => x.neg_answered += usize::from(!hits.is_empty()),
            "near" => x.near_answered += usize::from(!hits.is_empty()),
            _ => {}
        }
        // Cross counts keep to the kinds they were first measured on (600 and 160 asks).
        if pooled || q.kind == "para2" {
            continue;
        }
        for (name, other) in stores
            .iter()
            .filter(|(n, _)| *n != "pooled" && **n != q.repo)
        {
            let _ = name;
            let answered = !ask(other, &q.text, fused, t, model).0.is_empty();
            if q.kind == "near" {
                x.cross_near += usize::from(answered);
            } else {
                x.cross += usize::from(answered);
            }
        }
    }
    x
}

fn table(stores: &BTreeMap<String, Store>, queries: &[Query], t: &Thresholds, model: &Model) {
    for fused in [true, false] {
        for pooled in [false, true] {
            let x = eval(stores, queries, fused, pooled, t, model);
            println!(
                "{:<9} {:<8} exact {:>2}/60 para {:>2}/60 para2 {:>2}/60 hard rel {:>2}/20 wrong {} neg {}/10 near {:>2}/40{}",
                if fused { "embedding" } else { "bm25" },
                if pooled { "pooled" } else { "per-repo" },
                x.exact_p1, x.para_p1, x.para2_p1, x.hard_rel, x.hard_wrong, x.neg_answered, x.near_answered,
                if pooled {
                    String::new()
                } else {
                    format!(" | cross {}/600 near-cross {}/160", x.cross, x.cross_near)
                }
            );
        }
    }
}

fn sweep(stores: &BTreeMap<String, Store>, queries: &[Query], model: &Model) {
    let base = model.thresholds();
    println!("base {base:?}");
    table(stores, queries, &base, model);
    let only: Option<&str> = std::env::args()
        .nth(2)
        .as_deref()
        .map(|s| &*s.to_string().leak());
    type Field = fn(&mut Thresholds) -> &mut f32;
    let fields: [(&str, Field); 7] = [
        ("salient", |t| &mut t.salient),
        ("salient_share", |t| &mut t.salient_share),
        ("held", |t| &mut t.held),
        ("align", |t| &mut t.align),
        ("gate", |t| &mut t.gate),
        ("related_min", |t| &mut t.related_min),
        ("as_close", |t| &mut t.as_close),
    ];
    for (name, f) in fields {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        for factor in [0.5f32, 2.0] {
            let mut t = base;
            *f(&mut t) *= factor;
            println!("-- {name} x{factor} = {:.3}", *f(&mut t));
            table(stores, queries, &t, model);
        }
    }
}

fn diag(stores: &BTreeMap<String, Store>, queries: &[Query], kind: &str, model: &Model) {
    let t = model.thresholds();
    for q in queries.iter().filter(|q| kind == "all" || q.kind == kind) {
        let st = &stores[q.repo.as_str()];
        for fused in [true, false] {
            let (hits, related) = ask(st, &q.text, fused, &t, model);
            let mut loose = t;
            loose.salient = 2.0;
            let a = Ask {
                query: &q.text,
                limit: 5,
                thresholds: &loose,
                source: &st.docs,
            };
            let qv = model.embed(&q.text);
            let r = decide::search(&st.bm25, Some((&st.vectors, &qv)), &a, Some(model));
            let top = r.answers.first().or(r.candidates.first().map(|c| &c.hit));
            let close = top.map_or(0.0, |h| h.closeness);
            let cos = top.map_or(0.0, |h| h.cosine);
            let question = Question::new(&st.bm25, &q.text, 0.0);
            let top = hits.first().or(related.first()).copied();
            let why = top
                .and_then(|d| question.unmatched(&st.docs[d].as_doc(), Some(model), &t))
                .unwrap_or("-");
            let ok = top.is_some_and(|d| st.cases[d] == q.case);
            let detail: Vec<String> = top
                .map(|d| question.explain(&st.docs[d].as_doc(), model))
                .unwrap_or_default()
                .into_iter()
                .filter(|x| !x.exact)
                .map(|x| {
                    format!(
                        "{}[s{:.2} bg{:.2} sh{:.2} ~{} {:.2}]",
                        x.word, x.salience, x.background, x.share, x.aligned, x.cosine
                    )
                })
                .collect();
            println!(
                "{:<5} {} {} close {close:.2} cos {cos:.2} top {:<14} right {} unmatched {:<14} | {} || {}",
                q.kind,
                if fused { "emb " } else { "bm25" },
                if hits.is_empty() { "miss  " } else { "ANSWER" },
                top.map_or("-", |d| st.cases[d].as_str()),
                u8::from(ok),
                why,
                q.text,
                detail.join(" ")
            );
        }
    }
}

/// One term report as JSON.
fn term_json(r: &gate::TermReport) -> serde_json::Value {
    serde_json::json!({
        "word": r.word, "term": r.term, "bg": r.background, "sal": r.salience,
        "share": r.share, "exact": r.exact, "al": r.aligned, "cos": r.cosine,
    })
}

/// Every query asked of its own store, the pooled store and the other repos' stores, in both
/// modes, with the gate off: the ranked candidates (at most the gate's 8) and, per candidate,
/// every question term against the chart and every chart-question term against the question.
/// JSON lines, for trying gate rules offline.
fn dump(stores: &BTreeMap<String, Store>, queries: &[Query], model: &Model) {
    let mut open = model.thresholds();
    open.salient = 2.0;
    for q in queries {
        for (name, st) in stores {
            for fused in [true, false] {
                let a = Ask {
                    query: &q.text,
                    limit: gate::MAX_CHECKS,
                    thresholds: &open,
                    source: &st.docs,
                };
                let qv = model.embed(&q.text);
                let vectors = fused.then_some((&st.vectors, qv.as_slice()));
                let ranked: Vec<(usize, f32, f32)> =
                    decide::search(&st.bm25, vectors, &a, Some(model))
                        .answers
                        .iter()
                        .map(|h| {
                            let close = if fused {
                                h.closeness
                            } else {
                                f32::from(h.score)
                            };
                            (h.doc, close, h.cosine)
                        })
                        .collect();
                let question = Question::new(&st.bm25, &q.text, 0.0);
                let cands: Vec<serde_json::Value> = ranked
                    .iter()
                    .map(|&(d, close, cos)| {
                        let doc = &st.docs[d];
                        let back = Question::new(&st.bm25, &doc.question, 0.0);
                        let asked = DocText { question: q.text.clone(), ..Default::default() };
                        serde_json::json!({
                            "case": st.cases[d], "close": close, "cos": cos,
                            "exact": question.is_exact(d),
                            "q": question.explain(&doc.as_doc(), model).iter().map(term_json).collect::<Vec<_>>(),
                            "c": back.explain(&asked.as_doc(), model).iter().map(term_json).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::json!({
                        "repo": q.repo, "case": q.case, "kind": q.kind, "text": q.text,
                        "store": name, "mode": if fused { "emb" } else { "bm25" }, "cands": cands,
                    })
                );
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let model = capn_hook::embed::model().expect("this build embeds a model");
    let mode = args.first().map(String::as_str).unwrap_or("table");
    if mode == "words" {
        for pair in &args[1..] {
            let (a, b) = pair.split_once('/').expect("A/B");
            let (va, vb) = (model.embed(a), model.embed(b));
            println!("{a}/{b}: {:.3}", capn_hook::embed::cosine(&va, &vb));
        }
        return;
    }
    let (repos, queries) = load();
    let stores = stores(model, &repos);
    match mode {
        "sweep" => sweep(&stores, &queries, model),
        "dump" => dump(&stores, &queries, model),
        "grid" => {
            for salient in [0.35f32, 0.4, 0.45, 0.5] {
                for align in [0.5f32] {
                    for salient_share in [0.1f32, 0.15, 0.2, 0.25] {
                        let mut t = model.thresholds();
                        t.salient = salient;
                        t.align = align;
                        t.salient_share = salient_share;
                        let x = eval(&stores, &queries, true, false, &t, model);
                        println!(
                            "s {salient:.2} a {align:.2} tol {salient_share:.2}: exact {} para {} hard {}/{}w neg {} near {} cross {}",
                            x.exact_p1, x.para_p1, x.hard_rel, x.hard_wrong, x.neg_answered, x.near_answered, x.cross
                        );
                    }
                }
            }
        }
        "diag" => diag(
            &stores,
            &queries,
            args.get(1).map_or("all", String::as_str),
            model,
        ),
        _ => table(&stores, &queries, &model.thresholds(), model),
    }
}
