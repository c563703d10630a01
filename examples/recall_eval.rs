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

use capn_hook::recall::{self, Bm25Index, Candidate, Doc, Params, COVERAGE_FLOOR};
use std::collections::BTreeMap;
use std::time::Instant;

#[path = "common/bench.rs"]
mod bench;
use bench::{Chart, Query, Repo};

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

/// xorshift64*: deterministic synthetic data without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

/// The vocabulary of `bench/scale_bench.py`.
const WORDS: &str = "payment webhook stripe invoice checkout subscription plan billing ledger payout \
    tax meter usage event ingest kafka clickhouse query runner insight funnel trend session replay \
    person merge alias flag experiment survey email invite member organisation team domain link \
    redirect click analytics tinybird workspace token scope auth jwt sso oauth saml record table view \
    field metadata migration schema graphql resolver service controller hook component router cache \
    redis queue worker job cron retry signature verify upload pdf document envelope recipient signer \
    audit";

struct Synthetic {
    questions: Vec<String>,
    details: Vec<String>,
    files: Vec<Vec<String>>,
}

/// N entries shaped like `scale_bench.py`'s: a 6-word question with a number, 25 words of
/// details, 3 files.
fn synthetic(n: usize) -> Synthetic {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut s = Synthetic {
        questions: Vec::new(),
        details: Vec::new(),
        files: Vec::new(),
    };
    let nfiles = n.max(10);
    for i in 0..n {
        let q: Vec<&str> = (0..6).map(|_| rng.pick(&words)).collect();
        s.questions
            .push(format!("Where is {} handled #{i}?", q.join(" ")));
        let d: Vec<&str> = (0..25).map(|_| rng.pick(&words)).collect();
        s.details.push(d.join(" "));
        s.files.push(
            (0..3)
                .map(|_| {
                    let f = (rng.next() % nfiles as u64) as usize;
                    format!("src/m{}/{}_{f}.ts", f % 97, words[f % words.len()])
                })
                .collect(),
        );
    }
    s
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// CPU time this thread has run, in nanoseconds (Linux `schedstat`; tick-granular on some
/// kernels, so only differences over many runs are meaningful).
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Timing of one operation: median wall time and mean thread CPU time per call, in ms.
struct Timing {
    wall_median: f64,
    cpu_mean: Option<f64>,
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cpu_mean {
            Some(cpu) => write!(f, "{cpu:.3} ms cpu ({:.3} wall)", self.wall_median),
            None => write!(f, "{:.3} ms wall", self.wall_median),
        }
    }
}

/// Calls `f` at least `min_runs` times and for at least 0.4 s; returns the timing and the last
/// result.
fn time<T>(min_runs: usize, mut f: impl FnMut() -> T) -> (Timing, T) {
    let mut ms = Vec::new();
    let mut last = None;
    let start = Instant::now();
    let cpu0 = cpu_ns();
    while ms.len() < min_runs || start.elapsed().as_secs_f64() < 0.4 {
        drop(last.take());
        let t = Instant::now();
        last = Some(f());
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let runs = ms.len() as f64;
    let cpu_mean = match (cpu0, cpu_ns()) {
        (Some(a), Some(b)) if b > a => Some((b - a) as f64 / 1e6 / runs),
        _ => None,
    };
    let t = Timing {
        wall_median: median(ms),
        cpu_mean,
    };
    (t, last.expect("runs > 0"))
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn cmd_timing() {
    println!("per call: mean thread CPU time (the machine may be shared) and median wall time");
    for n in [100, 1_000, 10_000] {
        let s = synthetic(n);
        let docs: Vec<Doc<'_>> = (0..n)
            .map(|i| Doc {
                question: &s.questions[i],
                details: &s.details[i],
                files: &s.files[i],
            })
            .collect();
        let (build, index) = time(5, || Bm25Index::build(&docs));
        let (ser, bytes) = time(5, || postcard::to_stdvec(&index).expect("serialize"));
        let (de, back) = time(5, || {
            postcard::from_bytes::<Bm25Index>(&bytes).expect("deserialize")
        });
        let questions: Vec<usize> = {
            let mut rng = Rng(42);
            (0..200).map(|_| (rng.next() % n as u64) as usize).collect()
        };
        let mut k = 0;
        let (search, _) = time(200, || {
            k = (k + 1) % questions.len();
            back.search(&s.questions[questions[k]], 5, &|_| true)
        });
        let found = questions
            .iter()
            .filter(|&&i| {
                back.search(&s.questions[i], 5, &|_| true)
                    .iter()
                    .any(|h| h.doc == i)
            })
            .count();
        println!(
            "n {n:>6}: {} bytes, {} terms; asked entry in top 5: {found}/{}\n  build {build}\n  \
             serialize {ser}\n  deserialize {de}\n  search {search}",
            bytes.len(),
            back.term_count(),
            questions.len()
        );
    }
    // The same 1,000 docs with non-ASCII punctuation and a CJK phrase in every details field
    // (the NFKC + char-by-char path).
    let mut s = synthetic(1_000);
    for d in &mut s.details {
        d.push_str(" — see → 支付回调处理 «café»");
    }
    let docs: Vec<Doc<'_>> = (0..1_000)
        .map(|i| Doc {
            question: &s.questions[i],
            details: &s.details[i],
            files: &s.files[i],
        })
        .collect();
    let (build, _) = time(5, || Bm25Index::build(&docs));
    println!("n   1000 with non-ASCII details: build {build}");
    if let Ok((repos, _)) = std::panic::catch_unwind(load) {
        let charts: Vec<&Chart> = repos.iter().flat_map(|r| r.charts.iter()).collect();
        let docs: Vec<Doc<'_>> = charts.iter().map(|c| c.doc()).collect();
        let (build, index) = time(5, || Bm25Index::build(&docs));
        let q = "where are stripe webhooks verified?";
        let (search, _) = time(200, || index.search(q, 5, &|_| true));
        println!(
            "bench corpus ({} charts, {} terms): build {build}; search {search}",
            docs.len(),
            index.term_count()
        );
    }
    if let Some(kib) = peak_rss_kib() {
        println!("peak RSS of this whole run: {:.1} MiB", kib as f64 / 1024.0);
    }
}

/// Simulates the recall part of one `ask` on a stored index: read, deserialize, search once, and
/// report the process's peak memory. Writes the index first when the file is missing.
fn cmd_ask_sim(n: usize) {
    let path = std::env::temp_dir().join(format!("recall_eval_{n}.idx"));
    if !path.exists() {
        let s = synthetic(n);
        let docs: Vec<Doc<'_>> = (0..n)
            .map(|i| Doc {
                question: &s.questions[i],
                details: &s.details[i],
                files: &s.files[i],
            })
            .collect();
        let bytes = postcard::to_stdvec(&Bm25Index::build(&docs)).expect("serialize");
        std::fs::write(&path, bytes).expect("write index");
        println!("wrote {}; run again to measure", path.display());
        return;
    }
    let t = Instant::now();
    let bytes = std::fs::read(&path).expect("read index");
    let index: Bm25Index = postcard::from_bytes(&bytes).expect("deserialize");
    drop(bytes);
    let loaded = t.elapsed();
    let hits = index.search("where is the stripe payment webhook handled", 5, &|_| true);
    println!(
        "n {n}: read+deserialize {:.3} ms, total with search {:.3} ms, {} hits, peak RSS {:.1} MiB",
        loaded.as_secs_f64() * 1000.0,
        t.elapsed().as_secs_f64() * 1000.0,
        hits.len(),
        peak_rss_kib().unwrap_or(0) as f64 / 1024.0
    );
}

/// A store for fused recall: the BM25 index plus one vector per chart.
struct FusedStore {
    st: Store,
    vectors: recall::semantic::Vectors,
    texts: Vec<recall::gate::DocText>,
}

impl FusedStore {
    /// The fused search as `ask` runs it (answer gate included).
    fn search(
        &self,
        query: &str,
        qv: &[f32],
        t: &capn_hook::embed::Thresholds,
    ) -> recall::decide::Decision {
        let model = capn_hook::embed::model().expect("model");
        let text = |d: usize| self.texts.get(d).cloned();
        let ask = recall::gate::Ask {
            query,
            limit: 5,
            thresholds: t,
            allowed: &|_| true,
            text: &text,
        };
        recall::decide::search(&self.st.index, Some((&self.vectors, qv)), &ask, Some(model))
    }
}

fn fused_store<'a>(charts: impl Iterator<Item = &'a Chart> + Clone) -> FusedStore {
    let model = capn_hook::embed::model().expect("this build embeds a model");
    let vectors = recall::semantic::embed_all(
        model,
        charts
            .clone()
            .map(|c| (c.question.as_str(), c.details.as_str())),
    );
    let texts = charts
        .clone()
        .map(|c| recall::gate::DocText {
            question: c.question.clone(),
            details: c.details.clone(),
            files: c.files.clone(),
        })
        .collect();
    FusedStore {
        st: store(charts, &Params::default()),
        vectors,
        texts,
    }
}

/// Fused-recall tallies for one store layout and one pair of thresholds.
#[derive(Default, Debug)]
struct FusedTally {
    exact_p1: usize,
    para_p1: usize,
    para_r5: usize,
    hard_r5_related: usize,
    hard_wrong_answer: usize,
    neg_answered: usize,
    cross_answered: usize,
    cross_n: usize,
    neg_with_related: usize,
}

fn fused_eval(
    queries: &[Query],
    pooled: bool,
    t: &capn_hook::embed::Thresholds,
    cache: &BTreeMap<String, FusedStore>,
) -> FusedTally {
    let model = capn_hook::embed::model().expect("model");
    let mut out = FusedTally::default();
    for q in queries {
        let key = if pooled { "pooled" } else { q.repo.as_str() };
        let fs = &cache[key];
        let qv = model.embed(&q.text);
        let r = fs.search(&q.text, &qv, t);
        let hits: Vec<usize> = r.answers.iter().map(|h| h.doc).collect();
        let related: Vec<usize> = r.candidates.iter().map(|c| c.hit.doc).collect();
        let want = |d: &usize| fs.st.cases[*d] == q.case;
        match q.kind.as_str() {
            "exact" => out.exact_p1 += usize::from(hits.first().is_some_and(want)),
            "para" => {
                out.para_p1 += usize::from(hits.first().is_some_and(want));
                out.para_r5 += usize::from(hits.iter().any(want));
            }
            "hard" => {
                out.hard_r5_related += usize::from(hits.iter().chain(&related).any(want));
                out.hard_wrong_answer +=
                    usize::from(!hits.is_empty() && !hits.first().is_some_and(want));
            }
            "neg" => {
                out.neg_answered += usize::from(!hits.is_empty());
                out.neg_with_related += usize::from(!related.is_empty());
            }
            _ => {}
        }
        if !pooled {
            for (name, other) in cache
                .iter()
                .filter(|(n, _)| *n != "pooled" && **n != q.repo)
            {
                let _ = name;
                let r = other.search(&q.text, &qv, t);
                out.cross_n += 1;
                out.cross_answered += usize::from(!r.answers.is_empty());
            }
        }
    }
    out
}

fn fused_cache(repos: &[Repo]) -> BTreeMap<String, FusedStore> {
    let mut cache: BTreeMap<String, FusedStore> = repos
        .iter()
        .map(|r| (r.name.clone(), fused_store(r.charts.iter())))
        .collect();
    cache.insert(
        "pooled".into(),
        fused_store(repos.iter().flat_map(|r| r.charts.iter())),
    );
    cache
}

fn cmd_fused(repos: &[Repo], queries: &[Query], gate: Option<f32>, related: Option<f32>) {
    let model = capn_hook::embed::model().expect("model");
    let mut t = model.thresholds();
    if let Some(g) = gate {
        t.gate = g;
    }
    if let Some(r) = related {
        t.related_min = r;
    }
    let cache = fused_cache(repos);
    for pooled in [false, true] {
        let x = fused_eval(queries, pooled, &t, &cache);
        println!(
            "{} gate {:.2} related {:.2}: exact P@1 {}/60 | para P@1 {} R@5 {} | hard R@5+related {}/20, wrong answers {} | neg answered {}/10 (with related {}) | cross answered {}/{}",
            if pooled { "pooled  " } else { "per-repo" },
            t.gate, t.related_min, x.exact_p1, x.para_p1, x.para_r5, x.hard_r5_related,
            x.hard_wrong_answer, x.neg_answered, x.neg_with_related, x.cross_answered, x.cross_n
        );
    }
}

fn cmd_fused_grid(repos: &[Repo], queries: &[Query]) {
    let model = capn_hook::embed::model().expect("model");
    let cache = fused_cache(repos);
    for gate in [0.7f32, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0] {
        for rel in [0.3f32, 0.35, 0.4, 0.45, 0.5] {
            let mut t = model.thresholds();
            t.gate = gate;
            t.related_min = rel;
            let x = fused_eval(queries, false, &t, &cache);
            let y = fused_eval(queries, true, &t, &cache);
            println!(
                "gate {gate:.2} rel {rel:.2} | per-repo ex {} para {}/{} hard {}/{}w neg {}({}) cross {}/{} | pooled ex {} para {}/{} hard {}/{}w neg {}({})",
                x.exact_p1, x.para_p1, x.para_r5, x.hard_r5_related, x.hard_wrong_answer, x.neg_answered,
                x.neg_with_related, x.cross_answered, x.cross_n, y.exact_p1, y.para_p1, y.para_r5,
                y.hard_r5_related, y.hard_wrong_answer, y.neg_answered, y.neg_with_related
            );
        }
    }
}

fn cmd_hard_diag(repos: &[Repo], queries: &[Query]) {
    let model = capn_hook::embed::model().expect("model");
    let cache = fused_cache(repos);
    for q in queries
        .iter()
        .filter(|q| q.kind == "hard" || q.kind == "neg")
    {
        let fs = &cache[q.repo.as_str()];
        let qv = model.embed(&q.text);
        let mut cos: Vec<(f32, usize)> = (0..fs.vectors.len())
            .map(|d| (fs.vectors.cosine(d, &qv), d))
            .collect();
        cos.sort_by(|a, b| b.0.total_cmp(&a.0));
        let rank = cos.iter().position(|(_, d)| fs.st.cases[*d] == q.case);
        let cands = fs.st.index.candidates(&q.text, &|_| true);
        let want_cov = cands
            .iter()
            .find(|c| fs.st.cases[c.doc] == q.case)
            .map_or(0.0, |c| c.coverage);
        println!(
            "{:<5} {:<13} top1 {:.2} want rank {:?} cos {:.2} cov {:.2} | {}",
            q.kind,
            q.case,
            cos[0].0,
            rank,
            rank.map_or(0.0, |r| cos[r].0),
            want_cov,
            q.text
        );
    }
}

/// Distribution of the best "relatedness" (cosine + coverage, and cosine alone) that unrelated
/// questions (neg, and every exact/para question asked of another repo's store) reach, against
/// what the right chart of a hard (synonym) question reaches: the basis for `related_min`.
fn cmd_related_diag(repos: &[Repo], queries: &[Query]) {
    let model = capn_hook::embed::model().expect("model");
    let cache = fused_cache(repos);
    let score = |fs: &FusedStore, q: &str, qv: &[f32]| -> Vec<(f32, f32, usize)> {
        let cands = fs.st.index.candidates(q, &|_| true);
        (0..fs.vectors.len())
            .map(|d| {
                let cov = cands
                    .iter()
                    .find(|c| c.doc == d)
                    .map_or(0.0, |c| c.coverage);
                let cos = fs.vectors.cosine(d, qv).max(0.0);
                (cos + cov, cos, d)
            })
            .collect()
    };
    let mut unrelated_sum = Vec::new();
    let mut unrelated_cos = Vec::new();
    for q in queries {
        let qv = model.embed(&q.text);
        for (name, fs) in cache.iter().filter(|(n, _)| *n != "pooled") {
            let own = *name == q.repo;
            if own && q.kind != "neg" {
                continue;
            }
            if !(own || q.kind == "exact" || q.kind == "para") {
                continue;
            }
            let v = score(fs, &q.text, &qv);
            unrelated_sum.push(v.iter().map(|x| x.0).fold(0.0f32, f32::max));
            unrelated_cos.push(v.iter().map(|x| x.1).fold(0.0f32, f32::max));
        }
    }
    let pct = |v: &mut Vec<f32>, p: f32| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[((v.len() - 1) as f32 * p) as usize]
    };
    for p in [0.5f32, 0.75, 0.9, 0.95] {
        println!(
            "unrelated (n={}) p{:.0}: max(cos+cov) {:.2}  max cos {:.2}",
            unrelated_sum.len(),
            p * 100.0,
            pct(&mut unrelated_sum, p),
            pct(&mut unrelated_cos, p)
        );
    }
    for q in queries.iter().filter(|q| q.kind == "hard") {
        let fs = &cache[q.repo.as_str()];
        let qv = model.embed(&q.text);
        let mut v = score(fs, &q.text, &qv);
        v.sort_by(|a, b| b.0.total_cmp(&a.0));
        let rank = v.iter().position(|x| fs.st.cases[x.2] == q.case);
        let r = rank.unwrap_or(0);
        println!(
            "hard {:<13} by cos+cov: rank {:?} value {:.2} (cos {:.2})",
            q.case, rank, v[r].0, v[r].1
        );
    }
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
        let docs: Vec<Doc<'_>> = (0..n)
            .map(|i| Doc {
                question: &s.questions[i],
                details: &s.details[i],
                files: &s.files[i],
            })
            .collect();
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
