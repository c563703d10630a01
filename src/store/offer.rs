//! The hooks' offer from the store ([`Store::offer`]): the chart a prompt's or a search's
//! intent points at, read, checked and shown only when current, within the hooks' budgets. Which
//! chart the text points at is the injection gate's ([`crate::recall::offer`]); when an offer
//! is looked for and how it reads is `crate::hook::offer`'s.

use super::budget;
use super::entry::Entry;
use super::fresh::StatCache;
use super::index::{self, read_entry};
use super::Store;
use anyhow::Result;

/// The most entry files a hook reads to bring the index up to date (about a third of a second
/// on a slow 2-core machine): past it, nothing is offered until `ask`, `chart` or `prune`
/// rebuilds the index ([`index::load_within`]).
pub(crate) const HOOK_MAX_READS: usize = 2_000;

/// The most bytes of entry files a hook reads for the same (a few huge entry files cost as
/// much as thousands of small ones): 8 MiB.
pub(crate) const HOOK_MAX_READ_BYTES: u64 = 8 << 20;

/// The most bytes of backing files a hook hashes to check an offered chart (those the stat cache
/// cannot vouch for): 64 MiB, a fraction of a second of SHA-256. Past it nothing is offered;
/// `ask` checks such a chart (and records the hashes in the stat cache).
pub(crate) const HOOK_MAX_HASH_BYTES: u64 = 64 << 20;

impl Store {
    /// The chart a prompt's or a search's `intent` points at, for a proactive offer
    /// ([`crate::recall::offer`]), when it is current: read from its file, agreeing with the
    /// index, not `skip`ped (already offered), and every backing file hashing as charted, now.
    /// When the chart picked is stale, nothing is offered: never a chart ranked below it.
    /// `None` without embeddings (the offer gate needs them), when nothing passes, when bringing
    /// the index up to date would read more than [`HOOK_MAX_READS`] entry files or
    /// [`HOOK_MAX_READ_BYTES`], or when checking the chart would hash more than
    /// [`HOOK_MAX_HASH_BYTES`] of files the stat cache cannot vouch for.
    ///
    /// Errors: the store cannot be read or listed.
    pub(crate) fn offer(
        &self,
        intent: &str,
        skip: &dyn Fn(&Entry) -> bool,
    ) -> Result<Option<Entry>> {
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
        // A stale pick is never replaced by a chart ranked below it; only another version of
        // the very question picked as an exact re-ask (a chart of it on other files) may stand
        // in, a few times at most.
        let mut stale: Vec<usize> = Vec::new();
        for _ in 0..OFFER_PICKS {
            let allowed = |d: usize| !stale.contains(&d);
            let picked =
                crate::recall::offer::select(&snap.bm25, vectors, &qv, intent, &params, &allowed);
            let Some(crate::recall::offer::Pick { doc, exact }) = picked else {
                return Ok(None);
            };
            if !stale.is_empty() && !exact {
                return Ok(None);
            }
            let id = &snap.ids[doc];
            let Ok(e) = read_entry(&self.entry_path(id), &format!("{id}.md")) else {
                return Ok(None);
            };
            if !snap.agrees_with(doc, &e) || skip(&e) || super::withheld::holds_secret(&e) {
                return Ok(None);
            }
            // Picked as an exact re-ask by its hash: confirm it, as `ask` does.
            if exact && !e.is_phrasing(intent) {
                return Ok(None);
            }
            // Never offer a stale chart: every backing file must hash as charted, now.
            if super::entry_is_fresh_within(&self.root, &e, &mut cache, &mut budget) {
                return Ok(Some(e));
            }
            if !exact {
                return Ok(None);
            }
            stale.push(doc);
        }
        Ok(None)
    }
}

/// The most charts a hook's offer gate picks for one intent: a stale exact pick may be followed
/// by other versions of the same question ([`Store::offer`]).
pub(crate) const OFFER_PICKS: usize = 3;
