//! Asking the store: charted answers that are current and verified, and the charts an ask
//! deleted on the way. The whole freshness protocol of a read lives here, so `capn ask` (and any
//! other reader) never handles entry positions, rebuilds or retries:
//!
//! 1. every backing file is checked (stat cache; re-hash only on changed metadata); when the
//!    writers' lock is free, stale entries are deleted on the way (and reported), when another
//!    process holds it, `ask` does not wait and leaves them out; an entry whose files cannot be
//!    checked is left out and kept;
//! 2. the search runs through the answer gate (`recall::gate`, fused with the embedding when the
//!    snapshot has vectors);
//! 3. every entry returned is read from its file and must say what the index says; if one was
//!    edited in place, the snapshot is rebuilt from the entry files, freshness is checked again,
//!    and the search runs once more.

use super::entry::Entry;
use super::fresh::StatCache;
use super::index::{self, read_entry, Snapshot};
use super::{stale_positions, Store};
use crate::recall::gate::{self, Ask, DocText};
use crate::recall::semantic;
use anyhow::{Context, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::Path;

/// A chart an ask just deleted because its files changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Removed {
    /// The charted question.
    pub question: String,
    /// Backing files (keys relative to the project root) that changed, vanished or were replaced.
    pub changed: Vec<String>,
}

/// What an ask found: answers and, when there are none, related suggestions, each with its
/// display score (0..=100), best first; and the charts deleted as stale on the way.
#[derive(Debug, Default)]
pub struct Answers {
    /// Verified answers, best first.
    pub hits: Vec<(Entry, u8)>,
    /// Verified "possibly related" charts (only when there are no answers), best first.
    pub related: Vec<(Entry, u8)>,
    /// Charts this ask deleted because their files changed.
    pub removed: Vec<Removed>,
}

/// (doc number, display score) pairs, best first.
type Ranked = Vec<(usize, u8)>;

impl Store {
    /// Asks the store (module docs): at most `limit` verified answers to `question`.
    ///
    /// Errors: the store cannot be read or listed; this build carries no embedding model (the
    /// gate's thresholds live with it).
    pub fn ask(&self, question: &str, limit: usize) -> Result<Answers> {
        if let Some(mut w) = self.try_open_writer() {
            super::report_malformed(&w.store, &w.snap.malformed);
            let stale = stale_positions(&w.store.root, &w.snap, &mut w.cache);
            // Usually every stale entry is gone after this. If some were kept (rewritten since
            // the index was built, unreadable, or removed by someone else), positions moved:
            // check again. If deleting failed (read-only store), they are simply left out.
            let mut removed = Vec::new();
            let stale = match w.delete_stale_listed(&stale) {
                Ok(gone) => {
                    let all = gone.len() == stale.len();
                    removed = removed_charts(&w.store.root, gone, &mut w.cache);
                    if all {
                        Vec::new()
                    } else {
                        stale_positions(&w.store.root, &w.snap, &mut w.cache)
                    }
                }
                Err(e) => {
                    super::warn(&e);
                    stale
                }
            };
            let mut out = answer(self, &mut w.snap, question, limit, &stale)?;
            out.removed = removed;
            w.finish_or_warn();
            return Ok(out);
        }
        // A writer holds the lock: read without waiting, and leave stale entries out.
        let mut snap = index::load(self)?;
        super::report_malformed(self, &snap.malformed);
        let mut cache = StatCache::load(&self.stat_cache_path(), snap.derived_limit());
        let stale = stale_positions(&self.root, &snap, &mut cache);
        answer(self, &mut snap, question, limit, &stale)
    }
}

/// The removed entries with the backing files that no longer match their recorded hashes (the
/// stat cache has just checked them, so this re-hashes nothing).
fn removed_charts(root: &Path, gone: Vec<Entry>, cache: &mut StatCache) -> Vec<Removed> {
    gone.into_iter()
        .map(|e| Removed {
            changed: super::changed_files(root, &e, cache)
                .into_iter()
                .cloned()
                .collect(),
            question: e.question,
        })
        .collect()
}

/// Searches and verifies (module docs, steps 2 and 3), retrying once after a rebuild.
fn answer(
    store: &Store,
    snap: &mut Snapshot,
    question: &str,
    limit: usize,
    stale: &[usize],
) -> Result<Answers> {
    if let Some(r) = verified(store, snap, question, limit, stale)? {
        return Ok(r);
    }
    *snap = Snapshot::reloaded(store)?;
    let mut cache = StatCache::load(&store.stat_cache_path(), snap.derived_limit());
    let stale = stale_positions(&store.root, snap, &mut cache);
    Ok(verified(store, snap, question, limit, &stale)?.unwrap_or_default())
}

/// Ranked answers and, on a miss, related suggestions, both through the answer gate
/// (`recall::gate`). BM25 alone when the snapshot has no vectors (embedding off), BM25 and cosine
/// fused otherwise; the gate matches words by meaning with the model's token vectors in both.
fn search(snap: &Snapshot, ask: &Ask<'_>) -> (Ranked, Ranked) {
    let model = crate::embed::model();
    match (snap.model, &snap.vectors) {
        (Some(m), Some(vectors)) => {
            let q = m.embed(ask.query);
            let r = semantic::search(&snap.bm25, vectors, &q, ask, Some(m));
            (
                r.hits.iter().map(|h| (h.doc, h.score)).collect(),
                r.related
                    .iter()
                    .map(|h| (h.doc, (100.0 * h.closeness).round().clamp(0.0, 100.0) as u8))
                    .collect(),
            )
        }
        _ => gate::lexical_search(&snap.bm25, ask, model),
    }
}

/// The verified answers, or `None` when an entry file read on the way disagrees with the index.
fn verified(
    store: &Store,
    snap: &Snapshot,
    question: &str,
    limit: usize,
    stale: &[usize],
) -> Result<Option<Answers>> {
    let allowed = |i: usize| stale.binary_search(&i).is_err();
    let read_cache: RefCell<HashMap<usize, Option<Entry>>> = RefCell::default();
    let disagreed = Cell::new(false);
    let read = |doc: usize| -> Option<Entry> {
        read_cache
            .borrow_mut()
            .entry(doc)
            .or_insert_with(|| {
                let id = snap.ids.get(doc)?;
                let e = read_entry(&store.entry_path(id), &format!("{id}.md")).ok();
                let agrees = e.as_ref().is_some_and(|e| snap.agrees_with(doc, e));
                disagreed.set(disagreed.get() || !agrees);
                e.filter(|_| agrees)
            })
            .clone()
    };
    let text = |doc: usize| {
        read(doc).map(|e| DocText {
            files: e.files.keys().cloned().collect(),
            question: e.question,
            details: e.details,
        })
    };
    let thresholds = crate::embed::model()
        .context("this build carries no embedding model")?
        .thresholds();
    let ask = Ask {
        query: question,
        limit,
        thresholds: &thresholds,
        allowed: &allowed,
        text: &text,
    };
    let (hits, related) = search(snap, &ask);
    if disagreed.get() {
        return Ok(None);
    }
    let entries = |ranked: Ranked| -> Option<Vec<(Entry, u8)>> {
        ranked
            .into_iter()
            .map(|(doc, score)| read(doc).map(|e| (e, score)))
            .collect()
    };
    let (Some(hits), Some(related)) = (entries(hits), entries(related)) else {
        return Ok(None);
    };
    Ok(Some(Answers {
        hits,
        related,
        removed: Vec::new(),
    }))
}

impl Store {
    /// The chart a prompt's or a search's `intent` points at, for a proactive offer
    /// ([`crate::recall::offer`]), when it is current: read from its file, agreeing with the
    /// index, not `skip`ped (already offered), and every backing file hashing as charted, now.
    /// `None` without embeddings (the offer gate needs them) or when nothing passes.
    ///
    /// Errors: the store cannot be read or listed.
    pub fn offer(&self, intent: &str, skip: &dyn Fn(&Entry) -> bool) -> Result<Option<Entry>> {
        let snap = index::load(self)?;
        let (Some(model), Some(vectors)) = (snap.model, snap.vectors.as_ref()) else {
            return Ok(None);
        };
        if snap.is_empty() {
            return Ok(None);
        }
        let t = model.thresholds();
        let params = crate::recall::offer::Params::new(t.salient);
        let qv = model.embed(intent);
        let picked =
            crate::recall::offer::select(&snap.bm25, vectors, &qv, intent, &params, &|_| true);
        let Some((doc, _)) = picked else {
            return Ok(None);
        };
        let id = &snap.ids[doc];
        let Ok(e) = read_entry(&self.entry_path(id), &format!("{id}.md")) else {
            return Ok(None);
        };
        if !snap.agrees_with(doc, &e) || skip(&e) {
            return Ok(None);
        }
        // Never offer a stale chart: every backing file must hash as charted, now.
        let mut cache = StatCache::load(&self.stat_cache_path(), snap.derived_limit());
        let fresh = e
            .files
            .iter()
            .all(|(p, h)| cache.is_current(&self.root, p, h));
        Ok(fresh.then_some(e))
    }
}
