//! Phrasings learned from use (docs/recall.md, "Learning from use"): words the hooks inferred
//! a chart answers, kept apart from the phrasings the agent confirmed. They only *rank*: on a
//! miss, a chart that learned words close to the question moves up to the first `candidate`
//! line (marked `"learned": true`); they never answer, never give the exact re-ask score 100,
//! and never take the place of a confirmed phrasing.
//!
//! They live in this checkout's store, not in the entries: `.capn/learned.json`,
//! `{"charts": {"<id>": ["<words>", ...]}}` (oldest first, at most
//! [`super::entry::MAX_PHRASINGS`] a chart, at most [`MAX_CHARTS`] charts, never over
//! [`crate::fsutil::limits::MARKER`] bytes). Local state, not derived: in a shared store git
//! ignores it (`.capn/.gitignore`), so one agent's inference never reaches a teammate's store,
//! never makes a merge conflict, and a capn 0.2 reader of the entries never sees it. Written
//! atomically by a writer holding the store lock; a file that cannot be read or parsed reads as
//! empty (learning is a hint, never data to guard).

use super::entry::MAX_PHRASINGS;
use super::Store;
use crate::recall::gate::normalise_question;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The store file that holds the learned phrasings.
pub(crate) const FILE: &str = "learned.json";

/// The most charts the file keeps learned phrasings for (the ones learned longest ago go first).
pub(crate) const MAX_CHARTS: usize = 512;

/// The learned phrasings of a store, by chart id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct LearnedWords {
    /// Chart id → learned words, oldest first.
    pub charts: BTreeMap<String, Vec<String>>,
    /// Chart ids in the order they last learned, oldest first (which go first past
    /// [`MAX_CHARTS`]).
    pub order: Vec<String>,
}

impl LearnedWords {
    /// Reads the store's learned phrasings; empty when missing, unreadable or malformed.
    pub(crate) fn read(store: &Store) -> LearnedWords {
        use crate::fsutil::{limits, read_limited, Follow};
        let mut l: LearnedWords =
            read_limited(&store.learned_path(), limits::MARKER, Follow::Never)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or_default();
        // Hand-edited or damaged: only ids, bounded lists of one-line words.
        l.charts.retain(|id, ws| {
            ws.retain(|w| !w.contains(['\n', '\r']) && normalise_question(w).is_some());
            super::entry::is_valid_id(id) && !ws.is_empty()
        });
        for ws in l.charts.values_mut() {
            let extra = ws.len().saturating_sub(MAX_PHRASINGS);
            ws.drain(..extra);
        }
        l
    }

    /// The words learned for chart `id` (oldest first).
    pub(crate) fn of(&self, id: &str) -> &[String] {
        self.charts.get(id).map_or(&[], Vec::as_slice)
    }

    /// Adds `words` as learned for chart `id` (trimmed; nothing when the chart has them already,
    /// once normalised). Keeps the newest [`MAX_PHRASINGS`] of the chart and the
    /// [`MAX_CHARTS`] charts that learned last. Returns true when something changed.
    pub(crate) fn add(&mut self, id: &str, words: &str) -> bool {
        let words = words.trim();
        let Some(norm) = normalise_question(words) else {
            return false;
        };
        let ws = self.charts.entry(id.to_string()).or_default();
        if ws
            .iter()
            .any(|w| normalise_question(w).as_deref() == Some(&norm))
        {
            return false;
        }
        ws.push(words.to_string());
        let extra = ws.len().saturating_sub(MAX_PHRASINGS);
        ws.drain(..extra);
        self.order.retain(|o| o != id);
        self.order.push(id.to_string());
        let charts = &self.charts;
        self.order.retain(|o| charts.contains_key(o));
        while self.charts.len() > MAX_CHARTS {
            let Some(old) = self.order.first().cloned() else {
                break;
            };
            self.order.remove(0);
            self.charts.remove(&old);
        }
        true
    }

    /// Removes `words` (once normalised) from chart `id`'s learned words. Returns true when
    /// they were there.
    pub(crate) fn remove(&mut self, id: &str, words: &str) -> bool {
        let Some(norm) = normalise_question(words) else {
            return false;
        };
        let Some(ws) = self.charts.get_mut(id) else {
            return false;
        };
        let before = ws.len();
        ws.retain(|w| normalise_question(w).as_deref() != Some(&norm));
        let removed = ws.len() != before;
        self.drop_if_empty(id);
        removed
    }

    /// Takes chart `id` out (and out of the order) once it has no learned words left.
    fn drop_if_empty(&mut self, id: &str) {
        if self.charts.get(id).is_some_and(Vec::is_empty) {
            self.charts.remove(id);
            self.order.retain(|o| o != id);
        }
    }

    /// Keeps only the charts `keep` says yes to (and the order with them). Returns true when
    /// any went.
    fn retain_charts(&mut self, keep: impl Fn(&str) -> bool) -> bool {
        let before = self.charts.len();
        self.charts.retain(|id, _| keep(id));
        let charts = &self.charts;
        self.order.retain(|o| charts.contains_key(o));
        self.charts.len() != before
    }

    /// Chart `entry` was just written (charted, re-charted or confirmed with `--like`): its
    /// learned words that it now holds as its question or a phrasing go (they answer now), and
    /// all of them when `moved` (it is backed by other files than those whose reads taught
    /// them). Costs one failed `stat` in a store that learned nothing.
    ///
    /// Errors: `.capn/learned.json` cannot be written.
    pub(crate) fn settle_chart(
        store: &Store,
        entry: &super::entry::Entry,
        moved: bool,
    ) -> Result<()> {
        if std::fs::symlink_metadata(store.learned_path()).is_err() {
            return Ok(());
        }
        let mut l = LearnedWords::read(store);
        let Some(ws) = l.charts.get_mut(&entry.id) else {
            return Ok(());
        };
        let held: BTreeSet<String> = std::iter::once(&entry.question)
            .chain(&entry.phrasings)
            .filter_map(|q| normalise_question(q))
            .collect();
        let before = ws.len();
        ws.retain(|w| !moved && normalise_question(w).is_none_or(|n| !held.contains(&n)));
        if ws.len() == before {
            return Ok(());
        }
        l.drop_if_empty(&entry.id);
        l.write(store)
    }

    /// Charts `ids` were deleted (unchart, bust, prune): their learned words go too, so a chart
    /// charted again later under the same id starts with none (they were learned from reads of
    /// the deleted chart's files). Costs one failed `stat` in a store that learned nothing.
    ///
    /// Errors: `.capn/learned.json` cannot be written.
    pub(crate) fn forget(store: &Store, ids: &[String]) -> Result<()> {
        if ids.is_empty() || std::fs::symlink_metadata(store.learned_path()).is_err() {
            return Ok(());
        }
        let mut l = LearnedWords::read(store);
        if !l.retain_charts(|id| !ids.iter().any(|d| d == id)) {
            return Ok(());
        }
        l.write(store)
    }

    /// Drops the charts that are no longer in `ids` (uncharted). Returns true when any was.
    pub(crate) fn keep_only(&mut self, ids: &BTreeSet<&str>) -> bool {
        self.retain_charts(|id| ids.contains(id))
    }

    /// Writes the file atomically (the caller holds the store lock); removes it when empty.
    /// Past [`crate::fsutil::limits::MARKER`] bytes, the charts that learned longest ago go.
    ///
    /// Errors: the file cannot be written or removed.
    pub(crate) fn write(mut self, store: &Store) -> Result<()> {
        let path = store.learned_path();
        loop {
            if self.charts.is_empty() {
                return match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        Err(anyhow::Error::new(e)
                            .context(format!("could not remove {}", path.display())))
                    }
                    _ => Ok(()),
                };
            }
            let text = serde_json::to_string(&self)?;
            if text.len() as u64 <= crate::fsutil::limits::MARKER {
                return crate::fsutil::write_atomic_with(
                    &path,
                    text.as_bytes(),
                    crate::fsutil::Durability::Transient,
                );
            }
            let oldest = self
                .order
                .first()
                .cloned()
                .or_else(|| self.charts.keys().next().cloned());
            if let Some(old) = oldest {
                self.order.retain(|o| o != &old);
                self.charts.remove(&old);
            }
        }
    }
}

/// The [`closeness`] of the same words.
pub(crate) const SAME_WORDS: f32 = 2.0;

/// A question as [`closeness`] compares it: normalised, its terms, its embedding.
struct Asked {
    norm: Option<String>,
    terms: BTreeSet<String>,
    vector: Option<Vec<f32>>,
}

impl Asked {
    fn new(question: &str) -> Asked {
        Asked {
            norm: normalise_question(question),
            terms: crate::recall::analyze(question).into_iter().collect(),
            vector: crate::embed::model().map(|m| m.embed(question)),
        }
    }
}

/// How close the question `q` is to words `learned`: [`SAME_WORDS`] for the same words (once
/// case, punctuation and whitespace are set aside), else the gate's closeness measure between
/// the two texts alone (the share of the question's terms the words hold, plus the cosine of
/// their embeddings when a model is at hand).
fn closeness(q: &Asked, learned: &str) -> f32 {
    if q.norm.is_some() && q.norm == normalise_question(learned) {
        return SAME_WORDS;
    }
    if q.terms.is_empty() {
        return 0.0;
    }
    let l: BTreeSet<String> = crate::recall::analyze(learned).into_iter().collect();
    let coverage = q.terms.intersection(&l).count() as f32 / q.terms.len() as f32;
    let cosine = match (crate::embed::model(), &q.vector) {
        (Some(m), Some(v)) => crate::embed::cosine(v, &m.embed(learned)).max(0.0),
        _ => 0.0,
    };
    coverage + cosine
}

/// The chart among `learned` whose words are closest to `question`, with that closeness, when
/// it is at least `min` ([`closeness`]: [`SAME_WORDS`] for the very words).
pub(crate) fn closest<'a>(
    learned: &'a LearnedWords,
    question: &str,
    min: f32,
) -> Option<(&'a str, f32)> {
    let q = Asked::new(question);
    let mut best: Option<(&str, f32)> = None;
    for (id, ws) in &learned.charts {
        for w in ws {
            let c = closeness(&q, w);
            if c >= min && best.is_none_or(|(_, b)| c > b) {
                best = Some((id.as_str(), c));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_dedupes_and_bounds() {
        let mut l = LearnedWords::default();
        assert!(l.add("ab12cd34", "where is x?"));
        assert!(!l.add("ab12cd34", "Where is X"));
        for i in 0..MAX_PHRASINGS + 3 {
            l.add("ab12cd34", &format!("words number {i}"));
        }
        assert_eq!(l.of("ab12cd34").len(), MAX_PHRASINGS);
        assert_eq!(l.of("ab12cd34").last().unwrap(), "words number 10");
        assert_eq!(
            closeness(&Asked::new("Where is x"), "where is x?"),
            SAME_WORDS
        );
        let l = LearnedWords {
            charts: [("ab12cd34".to_string(), vec!["where is x?".to_string()])].into(),
            order: vec!["ab12cd34".into()],
        };
        assert_eq!(
            closest(&l, "WHERE is x", 1.0),
            Some(("ab12cd34", SAME_WORDS))
        );
        assert_eq!(closest(&l, "how are refunds paid", 0.8), None);
    }
}
