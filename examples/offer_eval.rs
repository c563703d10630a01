//! In-process evaluation of the injection gate (`capn_hook::recall::offer`) on
//! `bench/offers/dev.tsv`, per-repo stores built from `bench/corpus/`: the same precision and
//! coverage `bench/offer_bench.py` measures through the hooks, without spawning them (freshness
//! and once-per-session aside: every case starts a fresh session).
//!
//! ```text
//! cargo run --release --example offer_eval            # precision and coverage per moment
//! cargo run --release --example offer_eval -- diag    # per case that went wrong: the evidence
//! cargo run --release --example offer_eval -- wrong   # the wrong offers
//! cargo run --release --example offer_eval -- sweep   # each threshold scaled by 0.5 .. 2
//! cargo run --release --example offer_eval -- dump    # JSON lines for trying rules offline
//! (add `pooled` to any of these for one store of all 60 charts)
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

/// One case as a JSON line for trying gate rules offline: every chart with its fused score,
/// cosine and BM25 share, the text's terms (salience, compound, charts holding them) and, per
/// chart, its question's terms judged against the text.
fn dump(
    bm25: &Bm25Index,
    vectors: &capn_hook::recall::semantic::Vectors,
    charts: &[Chart],
    qv: &[f32],
    text: &str,
    [repo, moment, expect, tool]: [&str; 4],
    model: &capn_hook::embed::Model,
) {
    let cands = bm25.candidates(text, &|_| true);
    let best = cands.iter().map(|c| c.bm25).fold(0.0f32, f32::max);
    let q = capn_hook::recall::gate::Question::new(bm25, text, 0.0);
    let asked = capn_hook::recall::gate::DocText {
        question: text.to_string(),
        ..Default::default()
    };
    let docs: Vec<serde_json::Value> = charts
        .iter()
        .enumerate()
        .map(|(d, c)| {
            let lex = cands.iter().find(|x| x.doc == d);
            let back = capn_hook::recall::gate::Question::new(bm25, &c.question, 0.0);
            let rev: Vec<serde_json::Value> = back
                .explain(&asked.as_doc(), model)
                .iter()
                .map(|r| serde_json::json!({"word": r.word, "sal": r.salience, "exact": r.exact, "cos": r.cosine}))
                .collect();
            serde_json::json!({
                "case": c.case, "cos": vectors.cosine(d, qv),
                "bm": lex.map_or(0.0, |x| if best > 0.0 { x.bm25 / best } else { 0.0 }),
                "cov": lex.map_or(0.0, |x| x.coverage), "rev": rev,
            })
        })
        .collect();
    let terms: Vec<serde_json::Value> = q
        .terms()
        .iter()
        .map(|(w, s, c, d)| {
            let cases: Vec<&str> = d
                .iter()
                .map(|&i| charts[i as usize].case.as_str())
                .collect();
            serde_json::json!({"word": w, "sal": s, "compound": c, "docs": cases})
        })
        .collect();
    println!(
        "{}",
        serde_json::json!({"repo": repo, "moment": moment, "expect": expect, "tool": tool,
            "text": text, "terms": terms, "docs": docs})
    );
}

/// One case of `bench/offers/dev.tsv`, with the text recalled over (`None`: nothing is).
struct Case {
    repo: String,
    moment: String,
    expect: String,
    tool: String,
    text: Option<String>,
}

/// One store per repo, and `pooled` with every chart.
struct Store {
    charts: Vec<Chart>,
    bm25: Bm25Index,
    vectors: capn_hook::recall::semantic::Vectors,
}

fn stores(model: &capn_hook::embed::Model) -> BTreeMap<String, Store> {
    let mut by_repo = corpus();
    let pooled: Vec<Chart> = by_repo
        .values()
        .flatten()
        .map(|c| Chart {
            case: c.case.clone(),
            question: c.question.clone(),
            details: c.details.clone(),
            files: c.files.clone(),
        })
        .collect();
    by_repo.insert("pooled".into(), pooled);
    by_repo
        .into_iter()
        .map(|(repo, charts)| {
            let docs: Vec<Doc<'_>> = charts.iter().map(|c| c.doc()).collect();
            let bm25 = Bm25Index::build(&docs);
            let vectors = capn_hook::recall::semantic::embed_all(
                model,
                charts
                    .iter()
                    .map(|c| (c.question.as_str(), c.details.as_str())),
            );
            (
                repo,
                Store {
                    charts,
                    bm25,
                    vectors,
                },
            )
        })
        .collect()
}

fn cases() -> Vec<Case> {
    let tsv = std::fs::read_to_string(bench::bench_dir().join("offers/dev.tsv")).expect("dev.tsv");
    tsv.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| {
            let c: Vec<&str> = line.splitn(5, '\t').collect();
            let [repo, moment, expect, tool, input] = c[..] else {
                return None;
            };
            let recallable =
                moment != "prompt" || capn_hook::recall::offer::is_recallable_prompt(input);
            Some(Case {
                repo: repo.into(),
                moment: moment.into(),
                expect: expect.into(),
                tool: tool.into(),
                text: intent_of(moment, tool, input).filter(|_| recallable),
            })
        })
        .collect()
}

/// Per moment: cases expecting a chart, covered, offered, right. `show` prints the wrong offers
/// (`wrong`) or every case that went wrong with its evidence (`diag`).
fn score(
    stores: &BTreeMap<String, Store>,
    cases: &[Case],
    pooled: bool,
    params: &gate::Params,
    show: Option<&str>,
) -> BTreeMap<String, [usize; 4]> {
    let model = capn_hook::embed::model().expect("the embedded model");
    let mut score: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for case in cases {
        let st = &stores[if pooled { "pooled" } else { case.repo.as_str() }];
        let s = score.entry(case.moment.clone()).or_default();
        let expect = case.expect.as_str();
        if expect != "-" {
            s[0] += 1;
        }
        let Some(text) = &case.text else { continue };
        let qv = model.embed(text);
        let offered: Vec<&str> = gate::select(&st.bm25, &st.vectors, &qv, text, params, &|_| true)
            .map(|pick| st.charts[pick.doc].case.as_str())
            .into_iter()
            .collect();
        s[2] += offered.len();
        s[3] += offered.iter().filter(|c| **c == expect).count();
        if offered.contains(&expect) {
            s[1] += 1;
        }
        let (repo, moment) = (&case.repo, &case.moment);
        if show == Some("wrong") && !offered.is_empty() && !offered.contains(&expect) {
            println!("WRONG {repo}\t{moment}\texpect {expect}\toffered {offered:?}\t{text}");
        }
        if show == Some("diag")
            && (expect != "-" || !offered.is_empty())
            && !offered.contains(&expect)
        {
            let q = capn_hook::recall::gate::Question::new(&st.bm25, text, 0.0);
            let mut ev: Vec<(f32, &str)> = (0..st.charts.len())
                .map(|d| (q.held_weight(d), st.charts[d].case.as_str()))
                .filter(|e| e.0 > 0.0)
                .collect();
            ev.sort_by(|a, b| b.0.total_cmp(&a.0));
            ev.truncate(3);
            let total = q.weight();
            println!(
                "{repo}\t{moment}\t{expect}\toffered {offered:?}\tweight {total:.2} {ev:?}\t{text}"
            );
        }
    }
    score
}

fn summary(score: &BTreeMap<String, [usize; 4]>) -> String {
    score
        .iter()
        .map(|(moment, [expected, covered, offered, right])| {
            let precision = if *offered == 0 {
                f64::NAN
            } else {
                *right as f64 / *offered as f64
            };
            format!(
                "{moment}: precision {precision:.3} ({right}/{offered}), coverage {:.3} ({covered}/{expected})",
                *covered as f64 / (*expected).max(1) as f64
            )
        })
        .collect::<Vec<_>>()
        .join("  ")
}

/// Each threshold scaled by 0.5, 0.75, 1.25, 1.5 and 2, the others at their defaults.
fn sweep(stores: &BTreeMap<String, Store>, cases: &[Case], base: &gate::Params, pooled: bool) {
    type Field = fn(&mut gate::Params) -> &mut f32;
    let fields: [(&str, Field); 4] = [
        ("min_cosine", |p| &mut p.min_cosine),
        ("lead", |p| &mut p.lead),
        ("min_evidence", |p| &mut p.min_evidence),
        ("min_share", |p| &mut p.min_share),
    ];
    println!(
        "defaults {base:?}\n  {}",
        summary(&score(stores, cases, pooled, base, None))
    );
    for (name, f) in fields {
        for factor in [0.5f32, 0.75, 1.25, 1.5, 2.0] {
            let mut p = *base;
            *f(&mut p) *= factor;
            let v = *f(&mut p);
            println!(
                "{name} x{factor} = {v:.3}\n  {}",
                summary(&score(stores, cases, pooled, &p, None))
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let model = capn_hook::embed::model().expect("the embedded model");
    let t = model.thresholds();
    let mut params = gate::Params::new(t.salient);
    // `MIN_COSINE LEAD MIN_EVIDENCE MIN_SHARE` override the defaults (for sweeps).
    let nums: Vec<f32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if let [c, l, e, s] = nums[..] {
        params.min_cosine = c;
        params.lead = l;
        params.min_evidence = e;
        params.min_share = s;
    }
    let pooled = args.iter().any(|a| a == "pooled");
    let stores = stores(model);
    let cases = cases();
    let mode = args
        .iter()
        .map(String::as_str)
        .find(|a| ["diag", "wrong", "sweep", "dump"].contains(a));
    match mode {
        Some("sweep") => sweep(&stores, &cases, &params, pooled),
        Some("dump") => {
            for case in &cases {
                let st = &stores[if pooled { "pooled" } else { case.repo.as_str() }];
                if let Some(text) = &case.text {
                    let meta = [case.repo.as_str(), &case.moment, &case.expect, &case.tool];
                    dump(
                        &st.bm25,
                        &st.vectors,
                        &st.charts,
                        &model.embed(text),
                        text,
                        meta,
                        model,
                    );
                }
            }
        }
        show => {
            let s = score(&stores, &cases, pooled, &params, show);
            for line in summary(&s).split("  ") {
                println!("{line}");
            }
        }
    }
}
