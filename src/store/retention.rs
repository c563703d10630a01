//! The retention rule: the one way capn deletes a stale chart without being asked for that
//! chart. A stale chart is hidden, never deleted on its own (it answers again once its files
//! hash as charted); `capn prune --expired` (run by the post-commit hook of `capn init --git`)
//! deletes a chart only once it has been stale in this checkout for longer than `"stale_days"`
//! of `.capn/config.json` (default 30, 0: never), and never in a shared store.
//!
//! "Stale since" is known from `.capn/stale.json` (derived, per checkout: a linked worktree keeps
//! its own): `{"version": 1, "since": {"<id>": <Unix seconds>}}`, the first time a
//! `prune --expired` found each chart stale, dropped as soon as one finds it fresh again. So a
//! chart is deleted only after staying stale through every check for that long: a branch
//! switch back in between starts the count again. A missing or damaged file only delays
//! deletions (the count starts now). A chart is never deleted while it is fresh in another
//! checkout of the repository (the main checkout or a linked worktree, [`super::worktree`]):
//! the memory is one for all of them, and one worktree's long-lived branch must not cost the
//! others their charts.

use super::entry::Entry;
use super::{stale_positions, Writer};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Layout version of `stale.json`; another version is discarded.
const VERSION: u32 = 1;

/// `.capn/stale.json`: when each chart was first found stale here (Unix seconds).
#[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
struct StaleSince {
    version: u32,
    since: BTreeMap<String, i64>,
}

/// Reads `path` under the derived files' rules (no symlink followed, a regular file, at most
/// `limit` bytes); empty when missing, unreadable or of another version.
fn load(path: &Path, limit: u64) -> StaleSince {
    crate::fsutil::read_limited(path, limit, crate::fsutil::Follow::Never)
        .ok()
        .and_then(|b| serde_json::from_slice::<StaleSince>(&b).ok())
        .filter(|s| s.version == VERSION)
        .unwrap_or_default()
}

/// What [`Writer::prune_expired`] did.
#[derive(Debug, Default)]
pub(crate) struct Expired {
    /// The charts deleted: stale here for longer than the retention.
    pub deleted: Vec<Entry>,
}

impl Writer {
    /// Applies the retention rule (module docs) with a retention of `days` (0: never) at
    /// `now_s` (Unix seconds): records which charts are stale here and since when, and deletes
    /// those stale for longer than `days` (each confirmed stale from its own file first). A
    /// shared store deletes nothing. Checking every chart also brings the stat cache up to date,
    /// so the next `ask` re-hashes nothing this commit changed.
    ///
    /// Errors: an entry file cannot be removed, the folder cannot be listed, or `stale.json`
    /// cannot be written.
    pub(crate) fn prune_expired(&mut self, days: u32, now_s: i64) -> Result<Expired> {
        let stale = stale_positions(&self.store.root, &self.snap, &mut self.cache);
        if self.store.is_shared() {
            return Ok(Expired {
                deleted: Vec::new(),
            });
        }
        let path = self.store.stale_since_path();
        let before = load(&path, self.snap.derived_limit());
        let mut now = StaleSince {
            version: VERSION,
            since: BTreeMap::new(),
        };
        let mut expired = Vec::new();
        for &i in &stale {
            let id = &self.snap.ids[i];
            let since = before.since.get(id).copied().unwrap_or(now_s).min(now_s);
            if days > 0 && now_s.saturating_sub(since) >= i64::from(days) * 86_400 {
                expired.push(i);
            }
            now.since.insert(id.clone(), since);
        }
        let deleted = self.delete_stale_in_every_checkout(&expired)?;
        for e in &deleted {
            now.since.remove(&e.id);
        }
        if now != before {
            let bytes = serde_json::to_vec(&now).context("could not encode stale.json")?;
            crate::fsutil::write_atomic_with(
                &path,
                &bytes,
                crate::fsutil::Durability::Rebuildable,
            )?;
        }
        Ok(Expired { deleted })
    }
}
