//! `recall_eval fused`, `fused-grid`, `hard-diag` and `related-diag`: BM25 and the embedding
//! fused as `ask` runs them, with the answer gate.

use super::bench::{Chart, Query, Repo};
use super::{store, Store};
use capn_hook::recall::{self, Params};
use std::collections::BTreeMap;

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
        let ask = recall::gate::Ask {
            query,
            limit: 5,
            thresholds: t,
            source: &self.texts,
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

pub(crate) fn cmd_fused(
    repos: &[Repo],
    queries: &[Query],
    gate: Option<f32>,
    related: Option<f32>,
) {
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

pub(crate) fn cmd_fused_grid(repos: &[Repo], queries: &[Query]) {
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

pub(crate) fn cmd_hard_diag(repos: &[Repo], queries: &[Query]) {
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
pub(crate) fn cmd_related_diag(repos: &[Repo], queries: &[Query]) {
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
