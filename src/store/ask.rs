//! Asking the store: charted answers that are current and verified, and the stale charts an
//! ask passed over on the way. The whole freshness protocol of a read lives here, so `capn ask` (and any
//! other reader) never handles entry positions, rebuilds or retries:
//!
//! 1. the search runs over the index through the decision (`recall::decide`: fused with the
//!    embedding when the snapshot has vectors, then the answer gate), leaving out what earlier
//!    rounds excluded;
//! 2. every entry it returns is read from its file and must say what the index says; if one was
//!    edited in place, the snapshot is rebuilt from the entry files and the round starts again;
//! 3. only those entries' backing files are checked (stat cache; re-hash only on changed
//!    metadata), so the cost does not grow with the store. A stale one is left out and kept
//!    (stale hides, never destroys: it answers again once its files hash as charted, after a
//!    branch switch back, a stash pop or a revert) and reported; one whose files cannot be
//!    checked is left out and kept too. Either way the search runs again without it, so an
//!    answer is never a stale chart and never hides a fresh one ranked below it (a related
//!    suggestion that is not fresh is dropped without another round). After
//!    [`MAX_ROUNDS`] rounds every entry is checked at once. The stat cache remembers the hash
//!    a changed file had, so a stale chart is skipped again with one `stat` per file, unhashed.

use super::budget;
use super::entry::Entry;
use super::fresh::StatCache;
use super::index::{self, read_entry, Snapshot};
use super::{stale_positions, Store, Writer};
use crate::recall::decide;
use crate::recall::gate::DocText;
use crate::recall::Ask;
use anyhow::{Context, Result};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// Search rounds that may each find stale or uncheckable entries among the results before
/// `ask` checks every entry of the store at once (then one more search is final).
pub const MAX_ROUNDS: usize = 8;

/// A chart an ask left out because its files changed (it is kept, and answers again once they
/// hash as charted).
#[derive(Debug, Clone, PartialEq)]
pub struct Hidden {
    /// The charted question.
    pub question: String,
    /// Backing files (keys relative to the project root) that changed, vanished or were replaced.
    pub changed: Vec<String>,
}

/// What an ask found: answers with their score (0..=100: 100 for a question asked before in
/// these words, `recall::decide`), best first, or when there are none, candidates; and the stale
/// charts left out on the way.
#[derive(Debug, Default)]
pub struct Answers {
    /// Verified answers, best first.
    pub hits: Vec<(Entry, u8)>,
    /// Verified candidates (only when there are no answers): strong ones first.
    pub related: Vec<Related>,
    /// Charts this ask left out because their files changed (kept on disk).
    pub hidden: Vec<Hidden>,
}

/// A chart offered on a miss (`recall::decide::Candidate`), verified against its file.
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    /// The chart.
    pub entry: Entry,
    /// True when it is probably the same question in other words (passed the ranking's
    /// threshold; only common words it does not hold kept it from answering).
    pub strong: bool,
    /// The question's words the chart does not hold, most telling first.
    pub missing: Vec<String>,
}

/// The store as an ask reads it: under the writers' lock (the derived files it brought up to
/// date are saved) or beside another process that holds it (nothing is written).
enum Reading {
    Locked(Writer),
    Shared(Snapshot, StatCache),
}

impl Reading {
    fn parts(&mut self) -> (&mut Snapshot, &mut StatCache) {
        match self {
            Reading::Locked(w) => (&mut w.snap, &mut w.cache),
            Reading::Shared(snap, cache) => (snap, cache),
        }
    }
}

/// How the backing files of one entry stand now.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Freshness {
    /// Every file hashes as charted.
    Fresh,
    /// These files changed, vanished or were replaced (keys, in the entry's order).
    Stale(Vec<String>),
    /// None changed, but one could not be checked (hidden, kept).
    Unchecked,
}

fn freshness(root: &Path, e: &Entry, cache: &mut StatCache) -> Freshness {
    let keys: Vec<&str> = e.files.keys().map(String::as_str).collect();
    let states = cache.states(root, &keys);
    let mut changed = Vec::new();
    let mut unchecked = false;
    for ((key, want), state) in e.files.iter().zip(states) {
        match cache.judge(root, key, state, crate::hex::decode32(want).as_ref()) {
            super::fresh::Judged::Fresh => {}
            super::fresh::Judged::Unchecked(kind) => {
                super::note_unchecked(key, kind);
                unchecked = true;
            }
            super::fresh::Judged::Changed => changed.push(key.clone()),
        }
    }
    match (changed.is_empty(), unchecked) {
        (false, _) => Freshness::Stale(changed),
        (true, true) => Freshness::Unchecked,
        (true, false) => Freshness::Fresh,
    }
}

impl Store {
    /// Asks the store (module docs): at most `limit` verified answers to `question`.
    ///
    /// Errors: the store cannot be read or listed; this build carries no embedding model (the
    /// gate's thresholds live with it).
    pub fn ask(&self, question: &str, limit: usize) -> Result<Answers> {
        let mut reading = match self.try_open_writer() {
            Some(w) => Reading::Locked(w),
            None => {
                let snap = index::load(self, index::Check::Folder)?;
                let cache = StatCache::load(&self.stat_cache_path(), snap.derived_limit());
                Reading::Shared(snap, cache)
            }
        };
        report_malformed_of(self, &mut reading);
        // Ids left out of the search: stale ones, and those that cannot be checked.
        let mut left_out: BTreeSet<String> = BTreeSet::new();
        let mut hidden = Vec::new();
        for round in 0..=MAX_ROUNDS {
            let (snap, cache) = reading.parts();
            let excluded: Vec<usize> = if round == MAX_ROUNDS {
                stale_positions(&self.root, snap, cache)
            } else {
                let mut v: Vec<usize> =
                    left_out.iter().filter_map(|id| snap.position(id)).collect();
                v.sort_unstable();
                v
            };
            let mut found = answer(self, snap, question, limit, &excluded)?;
            let mut passed_over = false;
            for (e, _) in &found.hits {
                match freshness(&self.root, e, cache) {
                    Freshness::Fresh => continue,
                    Freshness::Stale(changed) => hidden.push(Hidden {
                        question: e.question.clone(),
                        changed,
                    }),
                    Freshness::Unchecked => {}
                }
                left_out.insert(e.id.clone());
                passed_over = true;
            }
            // A related suggestion that is not fresh is only dropped: the search runs again for
            // answers (a stale one must not hide a fresh one), not for suggestions, so a store
            // with many stale charts costs no extra rounds on a miss.
            found
                .related
                .retain(|r| match freshness(&self.root, &r.entry, cache) {
                    Freshness::Fresh => true,
                    Freshness::Stale(changed) => {
                        hidden.push(Hidden {
                            question: r.entry.question.clone(),
                            changed,
                        });
                        false
                    }
                    Freshness::Unchecked => false,
                });
            if !passed_over {
                found.hidden = hidden;
                if let Reading::Locked(w) = reading {
                    w.finish_or_warn();
                }
                return Ok(found);
            }
        }
        // The last round checked every entry, so what it found can only be stale if a file
        // changed meanwhile: say nothing rather than loop.
        if let Reading::Locked(w) = reading {
            w.finish_or_warn();
        }
        Ok(Answers {
            hidden,
            ..Answers::default()
        })
    }
}

/// Reports malformed entry files once per ask.
fn report_malformed_of(store: &Store, reading: &mut Reading) {
    let (snap, _) = reading.parts();
    super::report_malformed(store, &snap.malformed);
}

/// Searches and verifies (module docs, steps 1 and 2), once more after a rebuild when an entry
/// file disagreed with the index; `excluded` (positions, sorted) are left out.
fn answer(
    store: &Store,
    snap: &mut Snapshot,
    question: &str,
    limit: usize,
    excluded: &[usize],
) -> Result<Answers> {
    if let Some(r) = verified(store, snap, question, limit, excluded)? {
        return Ok(r);
    }
    let ids: Vec<String> = excluded
        .iter()
        .filter_map(|&i| snap.ids.get(i).cloned())
        .collect();
    *snap = Snapshot::reloaded(store)?;
    let mut excluded: Vec<usize> = ids.iter().filter_map(|id| snap.position(id)).collect();
    excluded.sort_unstable();
    Ok(verified(store, snap, question, limit, &excluded)?.unwrap_or_default())
}

/// The decision for `ask` (`recall::decide`: BM25 alone when the snapshot has no vectors,
/// embedding off; BM25 and cosine fused otherwise; the gate matches words by meaning with the
/// model's token vectors in both).
fn search(snap: &Snapshot, ask: &Ask<'_>) -> decide::Decision {
    let vectors = match (snap.model, &snap.vectors) {
        (Some(m), Some(v)) => Some((v, m.embed(ask.query))),
        _ => None,
    };
    let vectors = vectors.as_ref().map(|(v, q)| (*v, q.as_slice()));
    decide::search(&snap.bm25, vectors, ask, crate::embed::model())
}

/// The verified answers, or `None` when an entry file read on the way disagrees with the index.
fn verified(
    store: &Store,
    snap: &Snapshot,
    question: &str,
    limit: usize,
    excluded: &[usize],
) -> Result<Option<Answers>> {
    let allowed = |i: usize| excluded.binary_search(&i).is_err();
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
            question: e.asked().into_owned(),
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
    let decision = search(snap, &ask);
    if disagreed.get() {
        return Ok(None);
    }
    let hits: Option<Vec<(Entry, u8)>> = decision
        .answers
        .iter()
        .map(|h| read(h.doc).map(|e| (e, h.score)))
        .collect();
    let related: Option<Vec<Related>> = decision
        .candidates
        .into_iter()
        .map(|c| {
            read(c.hit.doc).map(|entry| Related {
                entry,
                strong: c.strong,
                missing: c.missing,
            })
        })
        .collect();
    let (Some(hits), Some(related)) = (hits, related) else {
        return Ok(None);
    };
    Ok(Some(Answers {
        hits,
        related,
        hidden: Vec::new(),
    }))
}

/// The most entry files a hook reads to bring the index up to date (about a third of a second
/// on a slow 2-core machine): past it, nothing is offered until `ask`, `chart` or `prune`
/// rebuilds the index ([`index::load_within`]).
pub const HOOK_MAX_READS: usize = 2_000;

/// The most bytes of entry files a hook reads for the same (a few huge entry files cost as
/// much as thousands of small ones): 8 MiB.
pub const HOOK_MAX_READ_BYTES: u64 = 8 << 20;

/// The most bytes of backing files a hook hashes to check an offered chart (those the stat cache
/// cannot vouch for): 64 MiB, a fraction of a second of SHA-256. Past it nothing is offered;
/// `ask` checks such a chart (and records the hashes in the stat cache).
pub const HOOK_MAX_HASH_BYTES: u64 = 64 << 20;

impl Store {
    /// The chart a prompt's or a search's `intent` points at, for a proactive offer
    /// ([`crate::recall::offer`]), when it is current: read from its file, agreeing with the
    /// index, not `skip`ped (already offered), and every backing file hashing as charted, now.
    /// `None` without embeddings (the offer gate needs them), when nothing passes, when bringing
    /// the index up to date would read more than [`HOOK_MAX_READS`] entry files or
    /// [`HOOK_MAX_READ_BYTES`], or when checking the chart would hash more than
    /// [`HOOK_MAX_HASH_BYTES`] of files the stat cache cannot vouch for.
    ///
    /// Errors: the store cannot be read or listed.
    pub fn offer(&self, intent: &str, skip: &dyn Fn(&Entry) -> bool) -> Result<Option<Entry>> {
        // The common case first, inline: an index that needs no entry file read (trusted by the
        // folder's stamp, or agreeing with the listing). Only a build goes to the budget.
        let state = || budget::state_key(self);
        let quick = index::load_within(self, index::Check::Folder, 0, 0)?;
        let built = match quick {
            Some(snap) => Some(snap),
            // A store state a hook gave up on before (over budget, an index that cannot be
            // saved) is not tried again: the next writer builds (crate::store::budget).
            None if state().as_deref().is_some_and(budget::is_skipped) => return Ok(None),
            None => budget::within(self, |store| {
                index::load_within(
                    store,
                    index::Check::Folder,
                    HOOK_MAX_READS,
                    HOOK_MAX_READ_BYTES,
                )
            })
            .transpose()?
            .flatten(),
        };
        let Some(mut snap) = built else {
            if let Some(key) = state().filter(|_| budget::spent()) {
                budget::remember(&key);
            }
            return Ok(None);
        };
        let picked = self.pick_offer(&mut snap, intent, skip);
        if snap.is_out_of_date() {
            // Other tools changed entry files and no writer has recorded it yet: save what was
            // just built if the lock is free (never built again under it), so the next hook is
            // fast again; an index that cannot be saved now is not retried by the hooks.
            // Another writer holding the lock saves its own when it finishes (index.bin then
            // changes, and with it the state key): until then the hooks do not build again.
            let saved = self.try_save(snap).unwrap_or_else(|e| {
                crate::store::warn(&e);
                false
            });
            if let Some(key) = state().filter(|_| !saved) {
                budget::remember(&key);
            }
        }
        picked
    }

    /// The chart of [`Store::offer`] in the loaded snapshot `snap`.
    fn pick_offer(
        &self,
        snap: &mut index::Snapshot,
        intent: &str,
        skip: &dyn Fn(&Entry) -> bool,
    ) -> Result<Option<Entry>> {
        let (Some(model), Some(vectors)) = (snap.model, snap.vectors.as_ref()) else {
            return Ok(None);
        };
        if snap.is_empty() {
            return Ok(None);
        }
        let t = model.thresholds();
        let params = crate::recall::offer::Params::new(t.salient);
        let qv = model.embed(intent);
        let mut cache = StatCache::load(&self.stat_cache_path(), snap.derived_limit());
        let mut budget = HOOK_MAX_HASH_BYTES;
        // A stale pick is left out and the gate asked again (a stale chart is kept, so it must
        // not hide a fresh one for good), a few times at most.
        let mut stale: Vec<usize> = Vec::new();
        for _ in 0..OFFER_PICKS {
            let allowed = |d: usize| !stale.contains(&d);
            let picked =
                crate::recall::offer::select(&snap.bm25, vectors, &qv, intent, &params, &allowed);
            let Some(crate::recall::offer::Pick { doc, exact }) = picked else {
                return Ok(None);
            };
            let id = &snap.ids[doc];
            let Ok(e) = read_entry(&self.entry_path(id), &format!("{id}.md")) else {
                return Ok(None);
            };
            if !snap.agrees_with(doc, &e) || skip(&e) {
                return Ok(None);
            }
            // Picked as an exact re-ask by its hash: confirm it, as `ask` does.
            if exact && !e.is_phrasing(intent) {
                return Ok(None);
            }
            // Never offer a stale chart: every backing file must hash as charted, now.
            let fresh = e
                .files
                .iter()
                .all(|(p, h)| cache.is_current_within(&self.root, p, h, &mut budget));
            if fresh {
                return Ok(Some(e));
            }
            stale.push(doc);
        }
        Ok(None)
    }
}

/// The most charts a hook's offer gate picks for one intent: each stale pick is left out and
/// the gate asked again.
pub const OFFER_PICKS: usize = 3;
