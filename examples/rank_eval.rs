//! In-process evaluation of ranking and showing on real-content stores (issue 33).
//!
//! ```text
//! cargo run --release --example rank_eval -- REAL_DIR [QUERY_FILE ...]
//! ```
//!
//! `REAL_DIR` is `../shared/bench/real` (the charted files' real text: benchmark data, read in
//! place, never copied). Query files are names under `bench/queries/` (default: the dev sets;
//! tune only on those). For each store layout (one store per repo, then all 60 charts pooled)
//! and kind it prints what the product decides (`decide::search` with the file-text index:
//! answers, then candidates) beside variants of the showing rule: right chart first, among the
//! first three, and for near/neg the questions shown any line and the lines shown.
//!
//! Environment: `VARIANTS="beta,show,text_weight;..."` (the variants' text rank weight, show
//! threshold and text coverage weight), `SMUL` (their cosine factor), `PERLINE` (a lower bar
//! for lines after the first), `SHOW` (the product's show threshold), `K` (words kept per chart,
//! 0: all); `MISSING=1` lists the first candidate's missing words of each unanswered rewording
//! (`+` when its files hold the word); `WRONG=1` lists wrong answers with every question term
//! judged against the chart.

// An evaluation tool, not the product: its knobs are environment variables (clippy.toml).
#![allow(clippy::disallowed_methods)]

use capn_hook::recall::{self, Bm25Index, Doc, Params};
use std::collections::BTreeMap;
use std::path::Path;

#[path = "common/bench.rs"]
mod bench;
use bench::{Chart, Query, Repo};

/// One store: the chart index, the file-text index, vectors, texts, and each doc's case.
struct St {
    index: Bm25Index,
    text: Bm25Index,
    vectors: recall::semantic::Vectors,
    texts: Vec<recall::gate::DocText>,
    cases: Vec<String>,
}

fn file_text(real: &Path, repo: &str, files: &[String]) -> String {
    let mut out = String::new();
    for f in files {
        if let Ok(b) = std::fs::read(real.join(repo).join("files").join(f)) {
            out.push_str(&recall::code_text::extract(&b));
            out.push('\n');
        }
    }
    let k: usize = std::env::var("K").map_or(recall::code_text::MAX_CHART_WORDS, |v| {
        v.parse().expect("int")
    });
    if k == 0 {
        out
    } else {
        recall::code_text::distinctive(&out, k)
    }
}

fn build(charts: &[(&str, &Chart)], real: &Path) -> St {
    let model = capn_hook::embed::model().expect("model");
    let docs: Vec<Doc<'_>> = charts.iter().map(|(_, c)| c.doc()).collect();
    let bodies: Vec<String> = charts
        .iter()
        .map(|(r, c)| file_text(real, r, &c.files))
        .collect();
    let tdocs: Vec<Doc<'_>> = bodies
        .iter()
        .map(|b| Doc {
            question: "",
            details: b,
            files: &[],
        })
        .collect();
    St {
        index: Bm25Index::build_with(&docs, &Params::default()),
        text: Bm25Index::build(&tdocs),
        vectors: recall::semantic::embed_all(
            model,
            charts
                .iter()
                .map(|(_, c)| (c.question.as_str(), c.details.as_str())),
        ),
        texts: charts
            .iter()
            .map(|(_, c)| recall::gate::DocText {
                question: c.question.clone(),
                details: c.details.clone(),
                files: c.files.clone(),
            })
            .collect(),
        cases: charts.iter().map(|(_, c)| c.case.clone()).collect(),
    }
}

#[derive(Default)]
struct Tally {
    n: usize,
    right: usize,
    wrong: usize,
    first: usize,
    top3: usize,
    with_lines: usize,
    lines: usize,
}

impl Tally {
    fn add(&mut self, miss: bool, want: &str, answers: &[String], shown: &[String]) {
        self.n += 1;
        self.lines += shown.len().min(3);
        self.with_lines += usize::from(!shown.is_empty());
        if miss {
            self.wrong += usize::from(!answers.is_empty());
            return;
        }
        if let Some(a) = answers.first() {
            if a == want {
                self.right += 1
            } else {
                self.wrong += 1
            }
        }
        self.first += usize::from(shown.first().is_some_and(|s| s == want));
        self.top3 += usize::from(shown.iter().take(3).any(|s| s == want));
    }
    fn line(&self, name: &str) -> String {
        format!(
            "{name:<18}{:>4} {:>3}/{:<3} {:>5} {:>5} {:>5} {:>5}",
            self.n, self.right, self.wrong, self.first, self.top3, self.with_lines, self.lines
        )
    }
}

/// The charts of `st`, with its file-text index when `code`.
struct WithCode<'a> {
    st: &'a St,
    code: bool,
}

impl recall::Source for WithCode<'_> {
    fn text(&self, d: usize) -> Option<recall::gate::DocText> {
        self.st.texts.get(d).cloned()
    }

    fn code(&self) -> Option<&Bm25Index> {
        self.code.then_some(&self.st.text)
    }
}

/// The product's decision for `q` in `st` (`decide::search`): with the file-text index when
/// `code`; `SHOW` in the environment overrides the model's show threshold.
fn decision(st: &St, q: &str, code: bool) -> recall::decide::Decision {
    let model = capn_hook::embed::model().expect("model");
    let mut t = model.thresholds();
    if let Ok(v) = std::env::var("SHOW") {
        t.show = v.parse().expect("float");
    }
    let qv = model.embed(q);
    let ask = recall::Ask {
        query: q,
        limit: 5,
        thresholds: &t,
        source: &WithCode { st, code },
    };
    recall::decide::search(&st.index, Some((&st.vectors, &qv)), &ask, Some(model))
}

/// The product's decision: answers, then candidates, as case ids.
fn product(st: &St, q: &str) -> (Vec<String>, Vec<String>) {
    let d = decision(st, q, true);
    let answers: Vec<String> = d.answers.iter().map(|h| st.cases[h.doc].clone()).collect();
    let mut shown = answers.clone();
    shown.extend(d.candidates.iter().map(|c| st.cases[c.hit.doc].clone()));
    (answers, shown)
}

/// The fused ranking with the files' text: answers as the product's; on a miss, the product's
/// strong candidates first, then every chart by `0.5·bm25/best + 0.5·cos + beta·text/best_text`,
/// shown when its closeness `coverage + cosine + tw·text_coverage` reaches `show`.
fn with_text(st: &St, q: &str, beta: f32, show: f32, tw: f32) -> (Vec<String>, Vec<String>) {
    let model = capn_hook::embed::model().expect("model");
    let qv = model.embed(q);
    let dec = decision(st, q, false);
    let answers: Vec<String> = dec
        .answers
        .iter()
        .map(|h| st.cases[h.doc].clone())
        .collect();
    if !answers.is_empty() {
        return (answers.clone(), answers);
    }
    let n = st.cases.len();
    let mut lex = vec![(0.0f32, 0.0f32); n];
    for c in st.index.candidates(q, &|_| true) {
        lex[c.doc] = (c.bm25, c.coverage);
    }
    let mut txt = vec![(0.0f32, 0.0f32); n];
    for c in st.text.candidates(q, &|_| true) {
        txt[c.doc] = (c.bm25, c.coverage);
    }
    let best = lex.iter().map(|l| l.0).fold(0.0, f32::max).max(1e-6);
    let best_t = txt.iter().map(|l| l.0).fold(0.0, f32::max).max(1e-6);
    let cos = st.vectors.cosines(&qv);
    let smul: f32 = std::env::var("SMUL").map_or(0.0, |v| v.parse().expect("float"));
    let close = |d: usize| (lex[d].1 + cos[d].max(0.0) + tw * txt[d].1).max(smul * cos[d]);
    let any = (0..n).any(|d| close(d) >= show);
    let per_line = std::env::var("PERLINE").map_or(show, |v| v.parse().expect("float"));
    let mut scored: Vec<(f32, usize)> = (0..n)
        .filter(|&d| any && close(d) >= per_line)
        .map(|d| {
            (
                0.5 * lex[d].0 / best + 0.5 * cos[d].max(0.0) + beta * txt[d].0 / best_t,
                d,
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut shown: Vec<String> = Vec::new();
    let strong = dec.candidates.iter().filter(|c| c.strong && any);
    for d in strong
        .map(|c| c.hit.doc)
        .chain(scored.into_iter().map(|x| x.1))
    {
        let case = &st.cases[d];
        if !shown.contains(case) && shown.len() < 3 {
            shown.push(case.clone());
        }
    }
    (answers, shown)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let real = Path::new(args.first().expect("REAL_DIR")).to_path_buf();
    let files: Vec<&str> = if args.len() > 1 {
        args[1..].iter().map(String::as_str).collect()
    } else {
        vec!["dev.tsv", "para2-dev.tsv", "near-dev.tsv"]
    };
    let repos = bench::repos();
    let queries = bench::queries(&repos, &files);
    let variants: Vec<(f32, f32, f32)> = std::env::var("VARIANTS")
        .unwrap_or_else(|_| "0.3,0.4,0.0;0.3,0.4,0.3;0.5,0.4,0.3;0.3,0.5,0.5".into())
        .split(';')
        .map(|v| {
            let x: Vec<f32> = v.split(',').map(|s| s.parse().expect("float")).collect();
            (x[0], x[1], x[2])
        })
        .collect();
    for pooled in [false, true] {
        let stores = stores(&repos, &real, pooled);
        println!("== {}", if pooled { "pooled" } else { "per repo" });
        let mut t: BTreeMap<(String, String), Tally> = BTreeMap::new();
        for q in &queries {
            let st = &stores[if pooled { "" } else { q.repo.as_str() }];
            let miss = q.kind == "neg" || q.kind == "near";
            let (a, s) = product(st, &q.text);
            t.entry((q.kind.clone(), "product".into()))
                .or_default()
                .add(miss, &q.case, &a, &s);
            for &(beta, show, tw) in &variants {
                let (a, s) = with_text(st, &q.text, beta, show, tw);
                t.entry((q.kind.clone(), format!("b{beta} s{show} t{tw}")))
                    .or_default()
                    .add(miss, &q.case, &a, &s);
            }
        }
        println!("kind/variant          n  r/w   first  top3 shown lines");
        for ((kind, v), tally) in &t {
            println!("{}", tally.line(&format!("{kind} {v}")));
        }
    }
    if std::env::var("MISSING").is_ok() {
        let stores = stores(&repos, &real, false);
        for q in queries
            .iter()
            .filter(|q| q.kind.starts_with("para") || q.kind == "near")
        {
            missing(&stores[q.repo.as_str()], q);
        }
    }
    if std::env::var("WRONG").is_ok() {
        wrong(&repos, &real, &queries);
    }
}

/// Every wrong answer of the product, with each question term judged against the chart (and
/// whether the chart's files hold it).
fn wrong(repos: &[Repo], real: &Path, queries: &[Query]) {
    for pooled in [false, true] {
        let stores = stores(repos, real, pooled);
        for q in queries {
            let st = &stores[if pooled { "" } else { q.repo.as_str() }];
            let (a, _) = product(st, &q.text);
            if a.first().is_some_and(|c| *c != q.case) {
                let doc = st.cases.iter().position(|c| c == &a[0]).unwrap_or(0);
                println!(
                    "{}\t{}\t{}\t-> {}",
                    q.kind,
                    u8::from(pooled),
                    q.text,
                    st.texts[doc].question
                );
                let model = capn_hook::embed::model().expect("model");
                let question =
                    recall::gate::Question::new(&st.index, &q.text, model.thresholds().salient);
                for r in question.explain(&st.texts[doc].as_doc(), model) {
                    let held = recall::analyze(&r.word)
                        .iter()
                        .all(|t| st.text.docs_with(t).contains(&(doc as u32)));
                    println!(
                        "    {:<14} share {:.2} bg {:.2} exact {} aligned {} {:.2} files {}",
                        r.word, r.share, r.background, r.exact, r.aligned, r.cosine, held
                    );
                }
            }
        }
    }
}

fn stores(repos: &[Repo], real: &Path, pooled: bool) -> BTreeMap<String, St> {
    let mut out = BTreeMap::new();
    if pooled {
        let all: Vec<(&str, &Chart)> = repos
            .iter()
            .flat_map(|r| r.charts.iter().map(move |c| (r.name.as_str(), c)))
            .collect();
        out.insert(String::new(), build(&all, real));
    } else {
        for r in repos {
            let charts: Vec<(&str, &Chart)> =
                r.charts.iter().map(|c| (r.name.as_str(), c)).collect();
            out.insert(r.name.clone(), build(&charts, real));
        }
    }
    out
}

/// For a question the product does not answer: the first candidate's missing words, each marked
/// `+` when the candidate's file text holds it (by the text index's terms).
fn missing(st: &St, q: &Query) {
    let d = decision(st, &q.text, false);
    if !d.answers.is_empty() {
        return;
    }
    let Some(c) = d.candidates.first() else {
        println!("{}\t{}\tNONE", q.kind, q.text);
        return;
    };
    let words: Vec<String> = c
        .missing
        .iter()
        .map(|w| {
            let held = recall::analyze(w)
                .iter()
                .all(|t| st.text.docs_with(t).contains(&(c.hit.doc as u32)));
            format!("{}{w}", if held { "+" } else { "-" })
        })
        .collect();
    println!(
        "{}\t{}\t{}\tstrong={}\t{}\t{}",
        q.kind,
        if st.cases[c.hit.doc] == q.case {
            "RIGHT"
        } else {
            "other"
        },
        q.text,
        c.strong,
        st.texts[c.hit.doc].question,
        words.join(" ")
    );
}
