//! In-process evaluation of the injection gate (`capn_hook::recall::offer`) on
//! `bench/offers/dev.tsv`, per-repo stores built from `bench/corpus/`: the same precision and
//! coverage `bench/offer_bench.py` measures through the hooks, without spawning them (freshness
//! and once-per-session aside: every case starts a fresh session).
//!
//! ```text
//! cargo run --release --example offer_eval            # precision and coverage per moment
//! cargo run --release --example offer_eval -- diag    # per case: the expected chart's judgement
//! ```

use capn_hook::recall::offer as gate;
use capn_hook::recall::{intent, Bm25Index, Doc};
use std::collections::BTreeMap;

#[path = "common/bench.rs"]
mod bench;
use bench::Chart;

/// Repo name to its charts.
fn corpus() -> BTreeMap<String, Vec<Chart>> {
    bench::repos()
        .into_iter()
        .map(|r| (r.name, r.charts))
        .collect()
}

/// The text recalled over for a case: the prompt, or the search's intent.
fn intent_of(moment: &str, tool: &str, input: &str) -> Option<String> {
    if moment == "prompt" {
        return Some(input.to_string());
    }
    let v: serde_json::Value = serde_json::from_str(input).ok()?;
    let tool = if tool == "codex-shell" { "Bash" } else { tool };
    intent::from_tool_call(tool, &v).map(|i| i.text)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let diag = args.first().map(String::as_str) == Some("diag");
    let model = capn_hook::embed::model().expect("the embedded model");
    let t = model.thresholds();
    let mut params = gate::Params::new(t.salient, t.align);
    // `MIN_COSINE LEAD SINGLE_CLUE_COSINE` override the defaults (for sweeps).
    let nums: Vec<f32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if let [c, l, s] = nums[..] {
        params.min_cosine = c;
        params.lead = l;
        params.single_clue_cosine = s;
    }
    let corpus = corpus();
    let indexes: BTreeMap<&String, Bm25Index> = corpus
        .iter()
        .map(|(repo, charts)| {
            let docs: Vec<Doc<'_>> = charts.iter().map(|c| c.doc()).collect();
            (repo, Bm25Index::build(&docs))
        })
        .collect();
    let vectors: BTreeMap<String, capn_hook::recall::semantic::Vectors> = corpus
        .iter()
        .map(|(repo, charts)| {
            let v = capn_hook::recall::semantic::embed_all(
                model,
                charts
                    .iter()
                    .map(|c| (c.question.as_str(), c.details.as_str())),
            );
            (repo.clone(), v)
        })
        .collect();
    let tsv_path = bench::bench_dir().join("offers/dev.tsv");
    let tsv = std::fs::read_to_string(tsv_path).expect("dev.tsv");
    // moment -> (cases expecting a chart, covered, offered, right)
    let mut score: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for line in tsv.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let c: Vec<&str> = line.splitn(5, '\t').collect();
        let [repo, moment, expect, tool, input] = c[..] else {
            continue;
        };
        let (Some(charts), Some(bm25)) = (corpus.get(repo), indexes.get(&repo.to_string())) else {
            continue;
        };
        let s = score.entry(moment.to_string()).or_default();
        if expect != "-" {
            s[0] += 1;
        }
        let recallable = moment != "prompt" || capn_hook::hook::offer::is_recallable_prompt(input);
        let Some(text) = intent_of(moment, tool, input).filter(|_| recallable) else {
            continue;
        };
        let qv = model.embed(&text);
        let offered: Vec<&str> = gate::select(bm25, &vectors[repo], &qv, &text, &params, &|_| true)
            .map(|(d, _)| charts[d].case.as_str())
            .into_iter()
            .collect();
        s[2] += offered.len();
        s[3] += offered.iter().filter(|c| **c == expect).count();
        if offered.contains(&expect) {
            s[1] += 1;
        }
        if args.iter().any(|a| a == "wrong") && !offered.is_empty() && !offered.contains(&expect) {
            println!("WRONG {repo}\t{moment}\texpect {expect}\toffered {offered:?}\t{text}");
        }
        if diag && (expect != "-" || !offered.is_empty()) && !offered.contains(&expect) {
            let q = capn_hook::recall::gate::Question::new(bm25, &text, params.salient);
            let mut ev: Vec<(f32, usize, &str)> = q
                .evidence()
                .into_iter()
                .map(|(d, (w, n))| (w, n, charts[d].case.as_str()))
                .collect();
            ev.sort_by(|a, b| b.0.total_cmp(&a.0));
            ev.truncate(3);
            println!("{repo}\t{moment}\t{expect}\toffered {offered:?}\t{ev:?}\t{text}");
        }
    }
    for (moment, [expected, covered, offered, right]) in score {
        let precision = if offered == 0 {
            f64::NAN
        } else {
            right as f64 / offered as f64
        };
        println!(
            "{moment}: precision {precision:.3} ({right}/{offered}), coverage {:.3} ({covered}/{expected})",
            covered as f64 / expected.max(1) as f64
        );
    }
}
