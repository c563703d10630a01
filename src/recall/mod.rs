//! Lexical recall: BM25 over the question, the details and the backing file paths.
//!
//! INTERFACE (the store and `ask` depend on exactly this; the implementation is free):
//! - [`Doc`]: one entry's text fields.
//! - [`Bm25Index::build`]: builds a serialisable index over docs in the given order (doc number =
//!   position in the slice).
//! - [`Bm25Index::search`]: ranked hits that pass the relevance floor, best first, at most
//!   `limit`, skipping docs for which `allowed(doc)` is false.
//! - [`VERSION`]: bumped whenever tokenisation or the index layout changes (the stored index is
//!   rebuilt on mismatch).

use serde::{Deserialize, Serialize};

/// Version of the tokeniser and index layout; part of the derived index's header.
pub const VERSION: u32 = 0;

/// One entry's searchable text.
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    /// The charted question.
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
    /// Display score, 0..=100, higher is better.
    pub score: u8,
}

/// The serialisable BM25 index.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Bm25Index {
    questions: Vec<String>,
}

impl Bm25Index {
    /// Builds the index over `docs`.
    pub fn build(docs: &[Doc<'_>]) -> Bm25Index {
        Bm25Index {
            questions: docs.iter().map(|d| d.question.to_lowercase()).collect(),
        }
    }

    /// Number of docs indexed.
    pub fn len(&self) -> usize {
        self.questions.len()
    }

    /// True when no docs are indexed.
    pub fn is_empty(&self) -> bool {
        self.questions.is_empty()
    }

    /// Placeholder ranking (exact question match only) until BM25 lands.
    pub fn search(&self, query: &str, limit: usize, allowed: &dyn Fn(usize) -> bool) -> Vec<Hit> {
        let q = query.to_lowercase();
        self.questions
            .iter()
            .enumerate()
            .filter(|(i, d)| allowed(*i) && **d == q)
            .map(|(doc, _)| Hit { doc, score: 100 })
            .take(limit)
            .collect()
    }
}
