//! Dumps, for trying answer rules offline, every question of the recall bench asked of its own
//! store (per repository and pooled), fused mode: the charts past the ranking's threshold (at
//! most the gate's 8), each with its fused score, closeness, cosine, the gate's verdict, and
//! every question term judged against the chart whole and against its question alone.
//!
//! ```text
//! cargo run --release --example precision_dump [SET.json ...] > dump.jsonl
//! ```
//!
//! Inputs: `bench/corpus/*.json` with `bench/queries/{dev,near-dev,para2-dev,fresh}.tsv`, and any
//! real-repository set given (`bench/realrepo/*.json` shape, its questions in the `.tsv` beside
//! it), which gets a store of its own.

use capn_hook::embed::Model;
use capn_hook::recall::gate::{self, Ask, DocText, Question};
use capn_hook::recall::semantic::{self, Vectors};
use capn_hook::recall::{Bm25Index, Doc};

#[path = "common/bench.rs"]
mod bench;

struct Store {
    name: String,
    bm25: Bm25Index,
    vectors: Vectors,
    docs: Vec<DocText>,
    cases: Vec<String>,
}

fn build(model: &Model, name: &str, charts: Vec<(String, DocText)>) -> Store {
    let docs: Vec<DocText> = charts.iter().map(|(_, d)| d.clone()).collect();
    let views: Vec<Doc<'_>> = docs.iter().map(DocText::as_doc).collect();
    Store {
        name: name.to_string(),
        bm25: Bm25Index::build(&views),
        vectors: semantic::embed_all(
            model,
            docs.iter()
                .map(|d| (d.question.as_str(), d.details.as_str())),
        ),
        cases: charts.into_iter().map(|(c, _)| c).collect(),
        docs,
    }
}

fn term_json(r: &gate::TermReport) -> serde_json::Value {
    serde_json::json!({"w": r.word, "sal": r.salience, "sh": r.share, "ex": r.exact,
                       "al": r.aligned, "cos": r.cosine})
}

fn dump(st: &Store, repo: &str, case: &str, kind: &str, text: &str, model: &Model) {
    let t = model.thresholds();
    let docs = |d: usize| st.docs.get(d).cloned();
    let ask = Ask {
        query: text,
        limit: gate::MAX_CHECKS,
        thresholds: &t,
        source: &st.docs,
    };
    let qv = model.embed(text);
    let ranking = semantic::rank(&st.bm25, &st.vectors, &qv, &ask);
    let question = Question::new(&st.bm25, text, t.salient);
    let cands: Vec<serde_json::Value> = ranking
        .passing
        .iter()
        .take(gate::MAX_CHECKS)
        .map(|h| {
            let d = &st.docs[h.doc];
            let own = DocText {
                question: d.question.clone(),
                ..Default::default()
            };
            let verdict = question.unmatched_doc(h.doc, &docs, Some(model), &t);
            let qcos = capn_hook::embed::cosine(&qv, &model.embed(&d.question));
            serde_json::json!({
                "case": st.cases[h.doc], "qcos": qcos, "fused": h.fused, "close": h.closeness, "cos": h.cosine,
                "exact": question.is_exact(h.doc),
                "pass": verdict == Some(None),
                "strong": question.is_strong(h.doc, &docs, Some(model), &t),
                "q": question.explain(&d.as_doc(), model).iter().map(term_json).collect::<Vec<_>>(),
                "own": question.explain(&own.as_doc(), model).iter().map(term_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut pool: Vec<(f32, &str)> = ranking
        .pool
        .iter()
        .map(|h| (h.fused, st.cases[h.doc].as_str()))
        .collect();
    pool.sort_by(|a, b| b.0.total_cmp(&a.0));
    pool.truncate(8);
    println!(
        "{}",
        serde_json::json!({"repo": repo, "case": case, "kind": kind, "text": text,
                           "store": st.name, "cands": cands, "pool": pool})
    );
}

/// A real-repository set: its name, its charts (case, text) and its questions (case, kind, text).
type Set = (
    String,
    Vec<(String, DocText)>,
    Vec<(String, String, String)>,
);

fn extra(path: &str) -> Set {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect(path)).expect(path);
    let s = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let charts = v["charts"]
        .as_array()
        .expect("charts")
        .iter()
        .map(|c| {
            let files = c["files"].as_array().expect("files");
            let doc = DocText {
                question: s(c, "question"),
                details: s(c, "details"),
                files: files
                    .iter()
                    .map(|f| f.as_str().unwrap().to_string())
                    .collect(),
            };
            (s(c, "case"), doc)
        })
        .collect();
    let tsv = path.trim_end_matches(".json").to_string() + ".tsv";
    let qs = std::fs::read_to_string(&tsv)
        .expect(&tsv)
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c[1].to_string(), c[2].to_string(), c[3].to_string())
        })
        .collect();
    (s(&v, "repo"), charts, qs)
}

fn main() {
    let model = capn_hook::embed::model().expect("this build embeds a model");
    let repos = bench::repos();
    let files = ["dev.tsv", "near-dev.tsv", "para2-dev.tsv", "fresh.tsv"];
    let queries = bench::queries(&repos, &files);
    let chart_docs = |r: &bench::Repo| -> Vec<(String, DocText)> {
        r.charts
            .iter()
            .map(|c| {
                let doc = DocText {
                    question: c.question.clone(),
                    details: c.details.clone(),
                    files: c.files.clone(),
                };
                (c.case.clone(), doc)
            })
            .collect()
    };
    let stores: Vec<Store> = repos
        .iter()
        .map(|r| build(model, &r.name, chart_docs(r)))
        .collect();
    let pooled = build(model, "pooled", repos.iter().flat_map(chart_docs).collect());
    for q in &queries {
        let st = stores.iter().find(|s| s.name == q.repo).expect("repo");
        dump(st, &q.repo, &q.case, &q.kind, &q.text, model);
        dump(&pooled, &q.repo, &q.case, &q.kind, &q.text, model);
    }
    for path in std::env::args().skip(1) {
        let (name, charts, qs) = extra(&path);
        let st = build(model, &name, charts);
        for (case, kind, text) in qs {
            dump(&st, &name, &case, &kind, &text, model);
        }
    }
}
