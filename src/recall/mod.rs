//! Lexical recall: BM25F over the question, the details and the backing file paths.
//!
//! INTERFACE (what the store builds and the decision reads; the implementation is free):
//! - [`Doc`]: one entry's text fields.
//! - [`Bm25Index::build`]: builds a serialisable index over docs in the given order (doc number =
//!   position in the slice).
//! - [`Bm25Index::candidates`]: every matching doc with its raw BM25 and its coverage, for fusing
//!   with another signal (`semantic`, then `decide`).
//! - [`Bm25Index::search`]: BM25 alone: `candidates` + [`passes_floor`] + [`display_score`],
//!   ranked hits best first, at most `limit`, skipping docs for which `allowed(doc)` is false
//!   (for the in-process evaluations in `examples/` and the tests; `ask` goes through `decide`).
//! - [`VERSION`]: bumped whenever tokenisation or the index layout changes (the stored index is
//!   rebuilt on mismatch).
//!
//! # Model
//! Text becomes terms through [`analyze`] (see `tokenize.rs`: camelCase/snake_case/path splitting,
//! English stop words, Snowball English stemming, CJK character bigrams). Each doc has three
//! fields, question, details and files (all paths joined), scored together as BM25F: for a term
//! `t` and doc `d`,
//!
//! ```text
//! tf~(t, d) = Σ_f W_f · tf_f(t, d) / (1 − B_f + B_f · len_f(d) / avglen_f)
//! w(t, d)   = tf~ / (K1 + tf~)                         (0..1, stored quantised to 1/255)
//! idf(t)    = ln(1 + (N' − df + 0.5) / (df + 0.5))     (N' = N docs + IDF_PRIOR_DOCS,
//!                                                      df = docs containing t)
//! bm25(q, d) = Σ_{t ∈ q, unique} idf(t) · w(t, d)
//! ```
//!
//! with the field weights `W` and length normalisations `B` of [`Params::default`]. Query terms
//! are OR-ed: any doc containing any of them is a candidate.
//!
//! **Coverage** is the share of the query's IDF mass a doc contains: `Σ_{t ∈ q ∩ d} idf(t) /
//! Σ_{t ∈ q} idf(t)`, where a query term found in no doc counts with the IDF of `df = 0` (so words
//! the store has never seen pull coverage down). A camelCase compound the store has never seen
//! (`sendSigningEmail` when only `send-signing-email.ts` is indexed) is left out: its parts carry
//! it. A doc is a *hit* only when its coverage reaches [`COVERAGE_FLOOR`]; an unrelated question
//! then misses instead of returning noise.
//!
//! **Display score** (0..=100): `round(100 · bm25 / Σ_{t ∈ q} idf(t))`, clamped to 1..=100 for
//! hits: the share of the ideal score (every query term present and saturated) the doc reaches. It
//! orders hits exactly as the raw BM25 does.

mod background;
pub(crate) mod blob;
mod build;
pub mod code_text;
pub mod decide;
pub mod gate;
pub mod intent;
pub mod offer;
pub mod opposites;
mod pending;
pub mod semantic;
mod source;
mod stopwords;
mod tokenize;
mod unicode;

use blob::{get_varint, SharedBlob, U32s};
use build::FxMap;
use serde::{Deserialize, Serialize};
use std::collections::BinaryHeap;
use tokenize::Analyzer;

pub use source::Source;
pub use tokenize::analyze;

/// Version of the tokeniser and index layout; part of the derived index's header.
/// 10: the exact re-ask key keeps identifiers apart (`__init__`, `io.read`: `gate::normalise_question`).
pub const VERSION: u32 = 10;

/// Phantom docs (containing none of the query's terms) added to the doc count `N` in the IDF.
///
/// BM25's IDF is degenerate in a young store: with one entry, a query word the store has never
/// seen weighs 4.8 times a word it holds, so a rewording that shares two of its three words
/// misses. With the prior that ratio is 1.9 (a 12-entry store, where [`COVERAGE_FLOOR`] was
/// calibrated, has 1.5); in stores of hundreds of entries the prior is negligible.
pub const IDF_PRIOR_DOCS: f32 = 3.0;

/// Minimum [`Candidate::coverage`] (share of the query's IDF mass, 0..1) for a doc to be a hit.
pub const COVERAGE_FLOOR: f32 = 0.3;

/// One question asked of a store: what every step of recall needs (`decide` runs them).
pub struct Ask<'a> {
    /// The question as asked.
    pub query: &'a str,
    /// Most answers to return.
    pub limit: usize,
    /// The model's thresholds (the gate's `salient` and `align` apply in both search modes).
    pub thresholds: &'a crate::embed::Thresholds,
    /// The charts' text and what else the decision reads of the store ([`Source`]: the one
    /// seam to the store, with its agreement and retry rules).
    pub source: &'a dyn Source,
}

impl Ask<'_> {
    /// [`Source::allowed`] of the ask's source, as the `allowed` filter the indexes take.
    pub fn allowed(&self, doc: usize) -> bool {
        self.source.allowed(doc)
    }

    /// [`Source::text`] of the ask's source.
    pub fn text(&self, doc: usize) -> Option<gate::DocText> {
        self.source.text(doc)
    }
}

/// One entry's searchable text.
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    /// The charted question; a chart with other phrasings holds each on a line of its own
    /// (each line is an exact re-ask).
    pub question: &'a str,
    /// The details (may be empty).
    pub details: &'a str,
    /// Backing file paths relative to the project root, `/`-separated.
    pub files: &'a [String],
}

/// A ranked hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Doc number (position in the slice given to [`Bm25Index::build`]).
    pub doc: usize,
    /// Display score, 0..=100, higher is better (see the module docs for the formula).
    pub score: u8,
}

/// A doc that matches at least one query term, before the relevance floor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Doc number (position in the slice given to [`Bm25Index::build`]).
    pub doc: usize,
    /// Raw BM25F score, ≥ 0, unbounded; only comparable within one query.
    pub bm25: f32,
    /// Share of the query's IDF mass this doc contains, 0..=1.
    pub coverage: f32,
}

/// True when a candidate is relevant enough to be a hit: `coverage >= COVERAGE_FLOOR`.
pub fn passes_floor(c: &Candidate) -> bool {
    c.coverage >= COVERAGE_FLOOR
}

/// The 0..=100 display score of a hit: `round(100 · bm25 / ideal)` clamped to 1..=100, where
/// `ideal` is the query's total IDF mass ([`Bm25Index::query_weight`]). 0 only when `ideal` is 0.
pub fn display_score(bm25: f32, ideal: f32) -> u8 {
    if ideal <= 0.0 || !bm25.is_finite() {
        return 0;
    }
    (100.0 * bm25 / ideal).round().clamp(1.0, 100.0) as u8
}

/// Scoring parameters (applied to the stored term frequencies when searching).
///
/// Arrays are indexed by field: 0 question, 1 details, 2 files.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// BM25 term-frequency saturation `K1` (> 0).
    pub k1: f32,
    /// Per-field length normalisation `B_f`, 0..=1 (0: none, 1: full).
    pub b: [f32; 3],
    /// Per-field weight `W_f` (≥ 0): how much one occurrence in that field counts.
    pub weight: [f32; 3],
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k1: 1.2,
            b: [0.5, 0.75, 0.5],
            weight: [3.0, 1.0, 1.5],
        }
    }
}

/// The serialisable BM25 index: a sorted term dictionary and, per term, its postings (doc
/// number deltas as varints, each followed by the quantised weight `w(t, d)` as one byte).
///
/// Serialised as its plain layout (postcard: a few length-prefixed byte strings); loading
/// validates offsets and counts, so a corrupt index fails to load or, if it loads, may misrank
/// but never panics.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(try_from = "RawIndex")]
pub struct Bm25Index {
    /// The stored layout (shared by the indexes spliced from it).
    raw: std::sync::Arc<RawIndex>,
    /// Splices not written into `raw` yet ([`pending::Pending`]).
    pending: Option<std::sync::Arc<pending::Pending>>,
    /// The scoring parameters (not stored: [`Params::default`] for a loaded index).
    params: Params,
    /// Per doc and field, the BM25F length factor (from the field lengths, after any splice).
    scales: Vec<[f32; 3]>,
}

impl Serialize for Bm25Index {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.stored().serialize(s)
    }
}

/// The stored layout; [`Bm25Index`] validates it on load so search never indexes out of bounds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct RawIndex {
    /// Number of docs.
    n_docs: u32,
    /// All terms, sorted by bytes, concatenated.
    terms: String,
    /// End offset of each term in `terms` (term `i` is `terms[ends[i-1]..ends[i]]`).
    term_ends: U32s,
    /// Number of docs containing each term.
    df: U32s,
    /// Postings of all terms, concatenated in term order.
    postings: SharedBlob,
    /// End offset of each term's postings in `postings`.
    posting_ends: U32s,
    /// Per doc, the length in terms of each field (question, details, files), flattened.
    lens: U32s,
}

impl TryFrom<RawIndex> for Bm25Index {
    type Error = String;

    fn try_from(raw: RawIndex) -> Result<Self, String> {
        let n = raw.term_ends.0.len();
        if raw.df.0.len() != n || raw.posting_ends.0.len() != n {
            return Err("term arrays differ in length".into());
        }
        let monotone = |v: &[u32], total: usize| {
            v.windows(2).all(|w| w[0] <= w[1])
                && v.last().map_or(total == 0, |&e| e as usize == total)
        };
        if !monotone(&raw.term_ends.0, raw.terms.len()) {
            return Err("term offsets are inconsistent".into());
        }
        if !monotone(&raw.posting_ends.0, raw.postings.0.len()) {
            return Err("posting offsets are inconsistent".into());
        }
        if raw
            .term_ends
            .0
            .iter()
            .any(|&e| !raw.terms.is_char_boundary(e as usize))
        {
            return Err("term offsets split a character".into());
        }
        if raw.df.0.iter().any(|&d| d > raw.n_docs) {
            return Err("document frequency exceeds the doc count".into());
        }
        if raw.lens.0.len() != 3 * raw.n_docs as usize {
            return Err("field lengths do not match the doc count".into());
        }
        Ok(Bm25Index::from_raw(raw, Params::default()))
    }
}

impl Bm25Index {
    fn from_raw(raw: RawIndex, params: Params) -> Bm25Index {
        let lens: Vec<[u32; 3]> = raw
            .lens
            .0
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        let scales = build::field_scales(&lens, &params);
        Bm25Index {
            raw: std::sync::Arc::new(raw),
            pending: None,
            params,
            scales,
        }
    }

    /// The stored postings of stored term number `t`: (doc, term frequency per field), in doc
    /// order; stops at the first malformed or out-of-range one.
    fn stored_postings(&self, t: usize) -> impl Iterator<Item = (u32, [u8; 3])> + '_ {
        let start = if t == 0 {
            0
        } else {
            self.raw.posting_ends.0[t - 1] as usize
        };
        let bytes = &self.raw.postings.0[start..self.raw.posting_ends.0[t] as usize];
        let n = self.raw.n_docs;
        let (mut pos, mut doc) = (0usize, 0u32);
        std::iter::from_fn(move || {
            let delta = get_varint(bytes, &mut pos)?;
            let tf = bytes.get(pos..pos + 3)?;
            pos += 3;
            doc = doc.checked_add(delta)?;
            (doc < n).then_some((doc, [tf[0], tf[1], tf[2]]))
        })
    }

    /// The quantised BM25F weight of a posting (1..=255): `tf' / (K1 + tf')` with
    /// `tf' = Σ_f scale_f · tf_f`, in 255ths.
    fn weight(&self, doc: u32, tf: [u8; 3]) -> u8 {
        let scale = &self.scales[doc as usize];
        let tf: f32 = (0..3).map(|f| scale[f] * f32::from(tf[f])).sum();
        let w = tf / (self.params.k1 + tf);
        // w is in [0, 1): adding 0.5 and truncating rounds (no libm call).
        (w * 255.0 + 0.5).max(1.0) as u8
    }

    /// Builds the index over `docs` with the default [`Params`]; doc number = slice position.
    pub fn build(docs: &[Doc<'_>]) -> Bm25Index {
        Bm25Index::build_with(docs, &Params::default())
    }

    /// Number of docs indexed.
    pub fn len(&self) -> usize {
        self.doc_count() as usize
    }

    /// True when no docs are indexed.
    pub fn is_empty(&self) -> bool {
        self.doc_count() == 0
    }

    /// Number of distinct terms (after a splice, those of the layout it would be written as:
    /// computed by re-encoding, so for reports, not searches).
    pub fn term_count(&self) -> usize {
        self.stored().term_ends.0.len()
    }

    fn stored_term(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.raw.term_ends.0[i - 1] as usize
        };
        &self.raw.terms[start..self.raw.term_ends.0[i] as usize]
    }

    fn stored_lookup(&self, term: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.raw.term_ends.0.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.stored_term(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The IDF this index gives a term found in `df` docs (see the module docs; > 0).
    pub(crate) fn idf_of(&self, df: u32) -> f32 {
        self.idf(df)
    }

    /// The docs containing the index term `term`, ascending (empty when none does).
    pub fn docs_with(&self, term: &str) -> Vec<u32> {
        self.lookup(term)
            .map(|t| self.postings(&t).map(|(d, _)| d).collect())
            .unwrap_or_default()
    }

    /// The docs containing the index term `term`, ascending, and of those the ones whose
    /// question field (the chart's question and its other phrasings, not its details or paths)
    /// contains it, in one pass over its postings (both empty when no doc does).
    pub fn docs_with_fields(&self, term: &str) -> (Vec<u32>, Vec<u32>) {
        let (mut all, mut own) = (Vec::new(), Vec::new());
        if let Some(t) = self.lookup(term) {
            for (d, tf) in self.postings(&t) {
                all.push(d);
                if tf[0] > 0 {
                    own.push(d);
                }
            }
        }
        (all, own)
    }

    /// How many docs contain the index term `term`; `None` when none does.
    pub(crate) fn df(&self, term: &str) -> Option<u32> {
        self.lookup(term).map(|t| self.df_of(&t))
    }

    fn idf(&self, df: u32) -> f32 {
        let n = self.doc_count() as f32 + IDF_PRIOR_DOCS;
        let df = df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The query's unique terms: (term number if indexed, IDF).
    fn query_terms(&self, query: &str) -> Vec<(Option<pending::TermRef>, f32)> {
        let mut seen: FxMap<String, ()> = FxMap::default();
        let mut out = Vec::new();
        Analyzer::default().terms(query, &mut |t, compound| {
            if seen.insert(t.to_string(), ()).is_some() {
                return;
            }
            let id = self.lookup(t);
            if id.is_none() && compound {
                return;
            }
            let df = id.as_ref().map_or(0, |t| self.df_of(t));
            out.push((id, self.idf(df)));
        });
        out
    }

    /// The docs whose question equals `query` once case, punctuation and whitespace are set
    /// aside ([`gate::normalise_question`]), or one of their other phrasings that has no index
    /// term of its own (only those get a marker), in doc order: an exact re-ask, which always
    /// answers. A hash collision can name a doc that does not ask it: callers confirm against
    /// its text.
    pub fn exact_docs(&self, query: &str) -> Vec<usize> {
        gate::exact_key(query).map_or_else(Vec::new, |key| {
            self.docs_with(&key)
                .into_iter()
                .map(|d| d as usize)
                .collect()
        })
    }

    /// The IDF of one analysed term in this index (a term no doc contains gets the largest,
    /// `idf(df = 0)`).
    pub fn term_idf(&self, term: &str) -> f32 {
        let df = self.lookup(term).map_or(0, |t| self.df_of(&t));
        self.idf(df)
    }

    /// The query's total IDF mass `Σ_{t ∈ q} idf(t)` (≥ 0): the denominator of coverage and of
    /// [`display_score`]. 0 for an empty index or a query with no terms.
    pub fn query_weight(&self, query: &str) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        self.query_terms(query).iter().map(|&(_, idf)| idf).sum()
    }

    /// Every doc (with `allowed(doc)` true) that contains at least one query term, in doc order,
    /// with its raw BM25F score and coverage. No floor is applied; `allowed` is called once for
    /// each matching doc.
    pub fn candidates(&self, query: &str, allowed: &dyn Fn(usize) -> bool) -> Vec<Candidate> {
        let Some(acc) = self.accumulate(query) else {
            return Vec::new();
        };
        (0..acc.score.len())
            .filter_map(|d| acc.candidate(d))
            .filter(|c| allowed(c.doc))
            .collect()
    }

    /// Scores every doc against the query; `None` when nothing can match (empty index, no query
    /// terms, or none of them indexed).
    fn accumulate(&self, query: &str) -> Option<Accumulated> {
        if self.is_empty() {
            return None;
        }
        let terms = self.query_terms(query);
        let ideal: f32 = terms.iter().map(|&(_, idf)| idf).sum();
        if ideal <= 0.0 || terms.iter().all(|(id, _)| id.is_none()) {
            return None;
        }
        let n = self.len();
        let mut acc = Accumulated {
            ideal,
            score: vec![0f32; n],
            matched: vec![0f32; n],
        };
        for (id, idf) in &terms {
            let Some(id) = id else { continue };
            let scale = idf / 255.0;
            let idf = *idf;
            for (doc, tf) in self.postings(id) {
                let doc = doc as usize;
                acc.score[doc] += scale * f32::from(self.weight(doc as u32, tf));
                acc.matched[doc] += idf;
            }
        }
        Some(acc)
    }

    /// Hits that pass the relevance floor ([`passes_floor`]), best first (raw BM25 descending,
    /// then doc number), at most `limit`, skipping docs for which `allowed(doc)` is false.
    ///
    /// `allowed` is called lazily in rank order, only for docs above the floor, until `limit`
    /// hits are found, so it may be costly (a freshness check, say).
    pub fn search(&self, query: &str, limit: usize, allowed: &dyn Fn(usize) -> bool) -> Vec<Hit> {
        if limit == 0 {
            return Vec::new();
        }
        let Some(acc) = self.accumulate(query) else {
            return Vec::new();
        };
        let mut heap: BinaryHeap<Ranked> = (0..acc.score.len())
            .filter_map(|d| acc.candidate(d))
            .filter(passes_floor)
            .map(Ranked)
            .collect();
        let mut hits = Vec::with_capacity(limit.min(heap.len()));
        while hits.len() < limit {
            let Some(Ranked(c)) = heap.pop() else { break };
            if allowed(c.doc) {
                hits.push(Hit {
                    doc: c.doc,
                    score: display_score(c.bm25, acc.ideal),
                });
            }
        }
        hits
    }
}

/// Per-doc sums for one query.
struct Accumulated {
    /// The query's IDF mass (> 0).
    ideal: f32,
    /// Doc → raw BM25F.
    score: Vec<f32>,
    /// Doc → IDF mass of the query terms it contains.
    matched: Vec<f32>,
}

impl Accumulated {
    fn candidate(&self, doc: usize) -> Option<Candidate> {
        let matched = *self.matched.get(doc)?;
        (matched > 0.0).then(|| Candidate {
            doc,
            bm25: self.score[doc],
            coverage: (matched / self.ideal).min(1.0),
        })
    }
}

/// A candidate ordered for the max-heap: higher BM25 first, then lower doc number.
struct Ranked(Candidate);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .bm25
            .total_cmp(&other.0.bm25)
            .then(other.0.doc.cmp(&self.0.doc))
    }
}

#[cfg(test)]
mod tests;
