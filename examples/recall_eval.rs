//! In-process evaluation of the lexical recall engine (`capn_hook::recall`) on `bench/`.
//!
//! ```text
//! cargo run --release --example recall_eval                 # eval table, per-repo and pooled
//! cargo run --release --example recall_eval -- sweep        # perturb parameters, check stability
//! cargo run --release --example recall_eval -- cross        # every question against other repos
//! cargo run --release --example recall_eval -- misses       # list the queries ranked wrong
//! cargo run --release --example recall_eval -- explain REPO QUERY   # top candidates of a query
//! cargo run --release --example recall_eval -- timing       # synthetic 1k/10k build/load/search
//! cargo run --release --example recall_eval -- fused [GATE RELATED]  # BM25 + embedding fused
//! cargo run --release --example recall_eval -- fused-grid   # the fused table over a threshold grid
//! ```
//!
//! Inputs: `bench/corpus/*.json` (`repo`, `cases` [{id, question}], `charts` [{case, id, question,
//! files, details}]) and `bench/queries/dev.tsv` (repo, case, kind, query). Kind `exact` is each
//! case's own question. Per kind it prints n, P@1 (the case's chart first), R@5 (in the top five),
//! MRR (over the top five) and `answered` (at least one hit; for `neg` these are false hits).

// An evaluation tool, not the product: it reads VERBOSE and writes timing fixtures (clippy.toml).
#![allow(clippy::disallowed_methods)]

use capn_hook::recall::{self, Bm25Index, Candidate, Doc, Params, COVERAGE_FLOOR};
use std::collections::BTreeMap;
use std::time::Instant;

#[path = "common/bench.rs"]
mod bench;
use bench::{Chart, Query, Repo};

#[path = "recall_eval/fused.rs"]
mod fused;
#[path = "recall_eval/timing.rs"]
mod timing;
use fused::{cmd_fused, cmd_fused_grid, cmd_hard_diag, cmd_related_diag};
use timing::{cmd_ask_sim, cmd_timing, synthetic};

fn load() -> (Vec<Repo>, Vec<Query>) {
    let repos = bench::repos();
    let queries = bench::queries(&repos, &["dev.tsv"]);
    (repos, queries)
}

/// A store: an index over some charts, remembering which case each doc answers.
struct Store {
    index: Bm25Index,
    cases: Vec<String>,
    questions: Vec<String>,
}

fn store<'a>(charts: impl Iterator<Item = &'a Chart>, params: &Params) -> Store {
    let charts: Vec<&Chart> = charts.collect();
    let docs: Vec<Doc<'_>> = charts.iter().map(|c| c.doc()).collect();
    Store {
        index: Bm25Index::build_with(&docs, params),
        cases: charts.iter().map(|c| c.case.clone()).collect(),
        questions: charts.iter().map(|c| c.question.clone()).collect(),
    }
}

/// How a store turns a query into a ranked list of doc numbers.
#[derive(Clone, Copy)]
enum Ranker {
    /// The public `search` (default floor and ranking).
    Search,
    /// `candidates` with an explicit coverage floor, ranked by raw BM25.
    Floor(f32),
}

fn ranked(st: &Store, q: &str, ranker: Ranker) -> Vec<usize> {
    match ranker {
        Ranker::Search => st
            .index
            .search(q, 5, &|_| true)
            .iter()
            .map(|h| h.doc)
            .collect(),
        Ranker::Floor(floor) => {
            let mut c: Vec<Candidate> = st
                .index
                .candidates(q, &|_| true)
                .into_iter()
                .filter(|c| c.coverage >= floor)
                .collect();
            c.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then(a.doc.cmp(&b.doc)));
            c.iter().take(5).map(|c| c.doc).collect()
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    n: usize,
    p1: usize,
    r5: usize,
    rr: f64,
    answered: usize,
}

const KINDS: [&str; 4] = ["exact", "para", "hard", "neg"];

/// Scores all queries; `pooled` puts every chart into one store.
fn evaluate(
    repos: &[Repo],
    queries: &[Query],
    params: &Params,
    ranker: Ranker,
    pooled: bool,
    mut on_miss: impl FnMut(&Query, &Store, &[usize]),
) -> BTreeMap<&'static str, Tally> {
    let stores: BTreeMap<&str, Store> = if pooled {
        let all = store(repos.iter().flat_map(|r| r.charts.iter()), params);
        let mut m = BTreeMap::new();
        // One shared store; rebuilt per repo name only as a cheap way to key it.
        for r in repos {
            m.insert(
                r.name.as_str(),
                Store {
                    index: all.index.clone(),
                    cases: all.cases.clone(),
                    questions: all.questions.clone(),
                },
            );
        }
        m
    } else {
        repos
            .iter()
            .map(|r| (r.name.as_str(), store(r.charts.iter(), params)))
            .collect()
    };
    let mut out: BTreeMap<&'static str, Tally> = BTreeMap::new();
    for q in queries {
        let Some(kind) = KINDS.iter().find(|k| **k == q.kind) else {
            continue;
        };
        let st = &stores[q.repo.as_str()];
        let hits = ranked(st, &q.text, ranker);
        let t = out.entry(kind).or_default();
        t.n += 1;
        if !hits.is_empty() {
            t.answered += 1;
        }
        if q.kind == "neg" {
            if !hits.is_empty() {
                on_miss(q, st, &hits);
            }
            continue;
        }
        let pos = hits.iter().position(|&d| st.cases[d] == q.case);
        if pos == Some(0) {
            t.p1 += 1;
        } else {
            on_miss(q, st, &hits);
        }
        if let Some(p) = pos {
            t.r5 += 1;
            t.rr += 1.0 / (p as f64 + 1.0);
        }
    }
    out
}

fn print_table(title: &str, t: &BTreeMap<&'static str, Tally>) {
    println!("{title}");
    println!("  kind     n  P@1  R@5    MRR  answered");
    for k in KINDS {
        if let Some(x) = t.get(k) {
            println!(
                "  {k:<6} {:>3} {:>4} {:>4}  {:.3}  {:>3}{}",
                x.n,
                x.p1,
                x.r5,
                x.rr / x.n.max(1) as f64,
                x.answered,
                if k == "neg" { " (false hits)" } else { "" }
            );
        }
    }
}

fn summary(t: &BTreeMap<&'static str, Tally>) -> String {
    let g = |k| t.get(k).copied().unwrap_or_default();
    let (e, p, h, n) = (g("exact"), g("para"), g("hard"), g("neg"));
    format!(
        "exact {:>2}/{:>2} | para P@1 {:>2} R@5 {:>2} | hard P@1 {:>2} R@5 {:>2} | neg {:>2}/{:>2}",
        e.p1, e.r5, p.p1, p.r5, h.p1, h.r5, n.answered, n.n
    )
}

fn cmd_eval(repos: &[Repo], queries: &[Query]) {
    let p = Params::default();
    print_table(
        &format!(
            "per-repo stores (floor {COVERAGE_FLOOR}, {:?})",
            Params::default()
        ),
        &evaluate(repos, queries, &p, Ranker::Search, false, |_, _, _| {}),
    );
    print_table(
        "pooled store (all charts)",
        &evaluate(repos, queries, &p, Ranker::Search, true, |_, _, _| {}),
    );
}

fn cmd_misses(repos: &[Repo], queries: &[Query]) {
    for pooled in [false, true] {
        println!("== {}", if pooled { "pooled" } else { "per-repo" });
        let p = Params::default();
        evaluate(repos, queries, &p, Ranker::Search, pooled, |q, st, hits| {
            if q.kind == "hard" {
                return;
            }
            let want = st.cases.iter().position(|c| *c == q.case);
            let cands = st.index.candidates(&q.text, &|_| true);
            let info = |d: usize| {
                cands
                    .iter()
                    .find(|c| c.doc == d)
                    .map(|c| format!("bm25 {:.2} cov {:.2}", c.bm25, c.coverage))
                    .unwrap_or_else(|| "no match".into())
            };
            println!("[{}] {} {:?}", q.kind, q.case, q.text);
            if let Some(w) = want {
                println!("   want {} ({})", st.cases[w], info(w));
            }
            for &h in hits.iter().take(3) {
                println!(
                    "   got  {} ({}) {:?}",
                    st.cases[h],
                    info(h),
                    st.questions[h]
                );
            }
        });
    }
}

fn cmd_explain(repos: &[Repo], repo: &str, query: &str) {
    let st = if repo == "pooled" {
        store(
            repos.iter().flat_map(|r| r.charts.iter()),
            &Params::default(),
        )
    } else {
        let r = repos.iter().find(|r| r.name == repo).expect("unknown repo");
        store(r.charts.iter(), &Params::default())
    };
    println!("terms: {:?}", recall::analyze(query));
    println!("query weight: {:.2}", st.index.query_weight(query));
    let mut c = st.index.candidates(query, &|_| true);
    c.sort_by(|a, b| b.bm25.total_cmp(&a.bm25));
    for c in c.iter().take(8) {
        println!(
            "  {:<14} bm25 {:6.2} cov {:.2}  {}",
            st.cases[c.doc], c.bm25, c.coverage, st.questions[c.doc]
        );
    }
}

fn cmd_sweep(repos: &[Repo], queries: &[Query]) {
    let base = Params::default();
    let mut variants: Vec<(String, Params, f32)> = vec![("default".into(), base, COVERAGE_FLOOR)];
    for floor in [0.2, 0.25, 0.35, 0.4] {
        variants.push((format!("floor {floor}"), base, floor));
    }
    for k1 in [0.8, 1.6, 2.0] {
        variants.push((format!("k1 {k1}"), Params { k1, ..base }, COVERAGE_FLOOR));
    }
    for (f, name) in ["question", "details", "files"].iter().enumerate() {
        for m in [0.5, 2.0] {
            let mut p = base;
            p.weight[f] *= m;
            variants.push((format!("w_{name} x{m}"), p, COVERAGE_FLOOR));
        }
        for b in [0.25, 0.9] {
            let mut p = base;
            p.b[f] = b;
            variants.push((format!("b_{name} {b}"), p, COVERAGE_FLOOR));
        }
    }
    variants.push((
        "plain BM25 (w=1, b=.75)".into(),
        Params {
            k1: 1.2,
            b: [0.75; 3],
            weight: [1.0; 3],
        },
        COVERAGE_FLOOR,
    ));
    for (name, p, floor) in variants {
        for pooled in [false, true] {
            let t = evaluate(
                repos,
                queries,
                &p,
                Ranker::Floor(floor),
                pooled,
                |_, _, _| {},
            );
            println!(
                "{name:<26} {:<8} {}",
                if pooled { "pooled" } else { "per-repo" },
                summary(&t)
            );
        }
    }
}

/// Positives vs negatives by floor: how many para/exact targets stay in the top five, and how many
/// neg and cross-repo questions are answered, for a grid of coverage floors × display-score floors.
fn cmd_floors(repos: &[Repo], queries: &[Query]) {
    let p = Params::default();
    let stores: BTreeMap<&str, Store> = repos
        .iter()
        .map(|r| (r.name.as_str(), store(r.charts.iter(), &p)))
        .collect();
    let cov_floors = [0.15, 0.2, 0.25, 0.3, 0.35, 0.4];
    let score_floors = [0.0, 10.0, 15.0, 20.0, 25.0];
    println!("cov  score  para R@5  para P@1  exact P@1  hard R@5  neg answered  cross answered (of 560)");
    for &cf in &cov_floors {
        for &sf in &score_floors {
            // (para in top5, para p1, exact p1, hard r5, neg answered, cross answered)
            let mut r = [0usize; 6];
            for q in queries {
                for (name, st) in &stores {
                    let ideal = st.index.query_weight(&q.text);
                    let mut c = st.index.candidates(&q.text, &|_| true);
                    c.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then(a.doc.cmp(&b.doc)));
                    let hits: Vec<usize> = c
                        .iter()
                        .filter(|c| c.coverage >= cf && 100.0 * c.bm25 / ideal >= sf)
                        .take(5)
                        .map(|c| c.doc)
                        .collect();
                    if *name != q.repo {
                        if q.kind != "neg" && !hits.is_empty() {
                            r[5] += 1;
                        }
                        continue;
                    }
                    let pos = hits.iter().position(|&d| st.cases[d] == q.case);
                    match q.kind.as_str() {
                        "para" => {
                            r[0] += usize::from(pos.is_some());
                            r[1] += usize::from(pos == Some(0));
                        }
                        "exact" => r[2] += usize::from(pos == Some(0)),
                        "hard" => r[3] += usize::from(pos.is_some()),
                        _ => r[4] += usize::from(!hits.is_empty()),
                    }
                }
            }
            println!(
                "{cf:4.2} {sf:5.0}  {:>8}  {:>8}  {:>9}  {:>8}  {:>12}  {:>14}",
                r[0], r[1], r[2], r[3], r[4], r[5]
            );
        }
    }
}

/// Small stores, as in a young project: for each case, a store holding its chart and `k - 1`
/// other charts of the same repo. Its exact and para questions should hit it; the repo's neg
/// questions and the para questions of cases whose chart is absent should miss.
fn cmd_small(repos: &[Repo], queries: &[Query]) {
    let p = Params::default();
    for k in [1usize, 2, 4] {
        let (mut pos_n, mut pos_p1, mut pos_hit) = (0, 0, 0);
        let (mut para_n, mut para_p1) = (0, 0);
        let (mut neg_n, mut neg_hit, mut absent_n, mut absent_hit) = (0, 0, 0, 0);
        for r in repos {
            for (i, chart) in r.charts.iter().enumerate() {
                let members: Vec<&Chart> = (0..k)
                    .map(|j| &r.charts[(i + j * 5) % r.charts.len()])
                    .collect();
                let st = store(members.iter().copied(), &p);
                for q in queries.iter().filter(|q| q.repo == r.name) {
                    let hits = st.index.search(&q.text, 5, &|_| true);
                    let top = hits.first().map(|h| st.cases[h.doc].as_str());
                    if q.kind == "neg" {
                        neg_n += 1;
                        neg_hit += usize::from(top.is_some());
                    } else if q.case == chart.case && q.kind != "hard" {
                        pos_n += 1;
                        pos_hit += usize::from(top.is_some());
                        pos_p1 += usize::from(top == Some(chart.case.as_str()));
                        if q.kind == "para" {
                            para_n += 1;
                            para_p1 += usize::from(top == Some(chart.case.as_str()));
                        }
                    } else if q.kind == "para" && !st.cases.contains(&q.case) {
                        absent_n += 1;
                        absent_hit += usize::from(top.is_some());
                        if k == 1 && top.is_some() && std::env::var_os("VERBOSE").is_some() {
                            println!(
                                "  absent {:?} -> {} ({})",
                                q.text, chart.question, hits[0].score
                            );
                        }
                    }
                    if k == 1
                        && q.case == chart.case
                        && q.kind == "para"
                        && top.is_none()
                        && std::env::var_os("VERBOSE").is_some()
                    {
                        println!("  missed {:?} -> {}", q.text, chart.question);
                    }
                }
            }
        }
        println!(
            "k {k}: own exact+para P@1 {pos_p1}/{pos_n} (para {para_p1}/{para_n}, answered {pos_hit}) | \
             neg answered {neg_hit}/{neg_n} | para of absent charts answered {absent_hit}/{absent_n}"
        );
    }
}

fn cmd_cross(repos: &[Repo], queries: &[Query]) {
    let p = Params::default();
    let stores: Vec<(&str, Store)> = repos
        .iter()
        .map(|r| (r.name.as_str(), store(r.charts.iter(), &p)))
        .collect();
    let mut by_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for q in queries {
        for (name, st) in &stores {
            if *name == q.repo {
                continue;
            }
            let e = by_kind.entry(q.kind.as_str()).or_default();
            e.0 += 1;
            let hits = st.index.search(&q.text, 5, &|_| true);
            if let Some(h) = hits.first() {
                e.1 += 1;
                if std::env::var_os("VERBOSE").is_some() {
                    println!(
                        "  [{}] {:?} -> {name} {} ({}) {:?}",
                        q.kind, q.text, st.cases[h.doc], h.score, st.questions[h.doc]
                    );
                }
            }
        }
    }
    println!("questions asked of the other repos' stores (every answer is a false hit):");
    let mut total = (0, 0);
    for (k, (n, a)) in by_kind {
        println!("  {k:<6} {a:>3}/{n}");
        total = (total.0 + n, total.1 + a);
    }
    println!("  all    {:>3}/{}", total.1, total.0);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map(String::as_str).unwrap_or("eval");
    if mode == "timing" {
        return cmd_timing();
    }
    if mode == "build-loop" {
        // For profilers: build the synthetic index of N docs R times.
        let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1_000);
        let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
        let s = synthetic(n);
        let docs = s.docs();
        let chars: usize = docs
            .iter()
            .map(|d| {
                d.question.len() + d.details.len() + d.files.iter().map(String::len).sum::<usize>()
            })
            .sum();
        println!("{} bytes a doc", chars / n);
        let t = Instant::now();
        let mut terms = 0;
        let mut best = f64::MAX;
        for _ in 0..runs {
            let one = Instant::now();
            terms = Bm25Index::build(&docs).term_count();
            best = best.min(one.elapsed().as_secs_f64() * 1000.0);
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0 / runs as f64;
        println!("n {n}: {runs} builds, mean {ms:.3} ms wall, min {best:.3} ms, {terms} terms");
        return;
    }
    if mode == "ask-sim" {
        let n = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
        return cmd_ask_sim(n);
    }
    let (repos, queries) = load();
    match mode {
        "eval" => cmd_eval(&repos, &queries),
        "sweep" => cmd_sweep(&repos, &queries),
        "cross" => cmd_cross(&repos, &queries),
        "floors" => cmd_floors(&repos, &queries),
        "small" => cmd_small(&repos, &queries),
        "misses" => cmd_misses(&repos, &queries),
        "fused" => cmd_fused(
            &repos,
            &queries,
            args.get(1).and_then(|s| s.parse().ok()),
            args.get(2).and_then(|s| s.parse().ok()),
        ),
        "fused-grid" => cmd_fused_grid(&repos, &queries),
        "hard-diag" => cmd_hard_diag(&repos, &queries),
        "related-diag" => cmd_related_diag(&repos, &queries),
        "explain" => cmd_explain(
            &repos,
            args.get(1).map(String::as_str).unwrap_or("pooled"),
            &args[2..].join(" "),
        ),
        other => eprintln!(
            "unknown mode {other:?}: eval, sweep, cross, misses, explain, timing, ask-sim"
        ),
    }
}
