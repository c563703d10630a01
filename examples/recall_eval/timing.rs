//! `recall_eval timing`, `ask-sim` and `build-loop`: synthetic stores shaped like
//! `bench/scale_bench.py`'s, timed as they are built, (de)serialised and searched.

use super::{load, Chart};
use capn_hook::recall::{Bm25Index, Doc};
use std::time::Instant;

/// The vocabulary of `bench/scale_bench.py`.
const WORDS: &str = "payment webhook stripe invoice checkout subscription plan billing ledger payout \
    tax meter usage event ingest kafka clickhouse query runner insight funnel trend session replay \
    person merge alias flag experiment survey email invite member organisation team domain link \
    redirect click analytics tinybird workspace token scope auth jwt sso oauth saml record table view \
    field metadata migration schema graphql resolver service controller hook component router cache \
    redis queue worker job cron retry signature verify upload pdf document envelope recipient signer \
    audit";

pub(crate) struct Synthetic {
    pub(crate) questions: Vec<String>,
    pub(crate) details: Vec<String>,
    pub(crate) files: Vec<Vec<String>>,
}

impl Synthetic {
    /// The entries as the index builder takes them.
    pub(crate) fn docs(&self) -> Vec<Doc<'_>> {
        (0..self.questions.len())
            .map(|i| Doc {
                question: &self.questions[i],
                details: &self.details[i],
                files: &self.files[i],
            })
            .collect()
    }
}

/// N entries shaped like `scale_bench.py`'s: a 6-word question with a number, 25 words of
/// details, 3 files.
pub(crate) fn synthetic(n: usize) -> Synthetic {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    let mut s = Synthetic {
        questions: Vec::new(),
        details: Vec::new(),
        files: Vec::new(),
    };
    let nfiles = n.max(10);
    for i in 0..n {
        let q: Vec<&str> = (0..6).map(|_| words[rng.usize(..words.len())]).collect();
        s.questions
            .push(format!("Where is {} handled #{i}?", q.join(" ")));
        let d: Vec<&str> = (0..25).map(|_| words[rng.usize(..words.len())]).collect();
        s.details.push(d.join(" "));
        s.files.push(
            (0..3)
                .map(|_| {
                    let f = rng.usize(..nfiles);
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

pub(crate) fn cmd_timing() {
    println!("per call: mean thread CPU time (the machine may be shared) and median wall time");
    for n in [100, 1_000, 10_000] {
        let s = synthetic(n);
        let docs = s.docs();
        let (build, index) = time(5, || Bm25Index::build(&docs));
        let (ser, bytes) = time(5, || postcard::to_stdvec(&index).expect("serialize"));
        let (de, back) = time(5, || {
            postcard::from_bytes::<Bm25Index>(&bytes).expect("deserialize")
        });
        let questions: Vec<usize> = {
            let mut rng = fastrand::Rng::with_seed(42);
            (0..200).map(|_| rng.usize(..n)).collect()
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
pub(crate) fn cmd_ask_sim(n: usize) {
    let path = std::env::temp_dir().join(format!("recall_eval_{n}.idx"));
    if !path.exists() {
        let s = synthetic(n);
        let docs = s.docs();
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
