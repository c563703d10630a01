//! The recall bench's corpus and query sets, loaded once for every evaluation example
//! (`#[path = "common/bench.rs"] mod bench;`). Cargo builds no example from this folder: it has no
//! `main.rs`.
//!
//! Inputs: `bench/corpus/*.json` (`repo`, `cases` [{id, question}], `charts` [{case, id, question,
//! files, details}]) and query files under `bench/queries/` (tab-separated repo, case, kind, query;
//! `#` lines are comments). Panics with the file's name on anything malformed: these are dev tools.

// Each example uses a different part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// One charted answer of the corpus.
pub(crate) struct Chart {
    /// The case (question id) it answers.
    pub case: String,
    pub question: String,
    pub details: String,
    /// Repo-relative paths.
    pub files: Vec<String>,
}

impl Chart {
    /// The chart as the recall engine indexes it.
    pub(crate) fn doc(&self) -> capn_hook::recall::Doc<'_> {
        capn_hook::recall::Doc {
            question: &self.question,
            details: &self.details,
            files: &self.files,
        }
    }
}

/// One repository of the corpus.
pub(crate) struct Repo {
    pub name: String,
    pub charts: Vec<Chart>,
    /// (case id, the case's own question).
    pub cases: Vec<(String, String)>,
}

/// One query of a query set: `text` asked of `repo`'s store should answer with `case`.
pub(crate) struct Query {
    pub repo: String,
    pub case: String,
    /// `exact`, `para`, `near`, `neg`, ...
    pub kind: String,
    pub text: String,
}

/// `bench/` in the source tree.
pub(crate) fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench")
}

/// Every `bench/corpus/*.json`, in file-name order.
pub(crate) fn repos() -> Vec<Repo> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(bench_dir().join("corpus"))
        .expect("bench/corpus")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths.iter().map(|p| repo(p)).collect()
}

fn repo(p: &Path) -> Repo {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let s = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let charts = v["charts"]
        .as_array()
        .expect("charts")
        .iter()
        .map(|c| Chart {
            case: s(c, "case"),
            question: s(c, "question"),
            details: s(c, "details"),
            files: c["files"]
                .as_array()
                .expect("files")
                .iter()
                .map(|f| f.as_str().expect("path").to_string())
                .collect(),
        })
        .collect();
    let cases = v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| (s(c, "id"), s(c, "question")))
        .collect();
    Repo {
        name: s(&v, "repo"),
        charts,
        cases,
    }
}

/// Each case's own question (kind `exact`), repo by repo, then the lines of each of `files`
/// (names under `bench/queries/`), in order.
pub(crate) fn queries(repos: &[Repo], files: &[&str]) -> Vec<Query> {
    let mut queries = Vec::new();
    for r in repos {
        for (id, q) in &r.cases {
            queries.push(Query {
                repo: r.name.clone(),
                case: id.clone(),
                kind: "exact".into(),
                text: q.clone(),
            });
        }
    }
    for file in files {
        let path = bench_dir().join("queries").join(file);
        let tsv =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for line in tsv.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 4, "{file}: bad line: {line}");
            queries.push(Query {
                repo: cols[0].into(),
                case: cols[1].into(),
                kind: cols[2].into(),
                text: cols[3].into(),
            });
        }
    }
    queries
}
