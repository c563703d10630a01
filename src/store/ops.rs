//! The writer's operations, one transaction each (the lock is held from [`super::Store::open_writer`]
//! until [`Writer::finish_or_warn`]): chart an entry, delete one by id, delete those a file
//! backs, delete the stale ones. Commands call these and never handle entry positions.

use super::entry::Entry;
use super::{stale_positions, Writer};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// A backing file `chart` hashed: its key, absolute path, SHA-256 and when it was hashed (Unix ns).
pub(crate) type Hashed = (String, PathBuf, [u8; 32], i64);

/// What [`Writer::unchart`] did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unchart {
    /// The entry was deleted.
    Deleted,
    /// No entry file has that id.
    Unknown,
}

/// What [`Writer::prune`] did.
#[derive(Debug)]
pub(crate) struct Pruned {
    /// The entries deleted.
    pub deleted: Vec<Entry>,
    /// Stale entries kept because they are current in another checkout, or held by a branch,
    /// worktree or stash of the repository (or changed meanwhile), as their files read now.
    pub kept: Vec<Entry>,
}

impl Writer {
    /// Deletes every entry whose backing files changed (gone, replaced, or hashing differently)
    /// here and that is not current in another checkout of the repository
    /// ([`Writer::delete_stale_in_every_checkout`]); entries whose files cannot be checked are
    /// kept.
    ///
    /// Errors: an entry file cannot be removed, or the entries folder cannot be listed.
    pub(crate) fn prune(&mut self) -> Result<Pruned> {
        super::report_malformed(&self.store, &self.snap.malformed);
        let stale = stale_positions(&self.store.root, &self.snap, &mut self.cache);
        let ids: Vec<String> = stale.iter().map(|&i| self.snap.ids[i].clone()).collect();
        let deleted = self.delete_stale_in_every_checkout(&stale)?;
        let kept = ids
            .iter()
            .filter(|id| !deleted.iter().any(|d| &d.id == *id))
            .filter_map(|id| {
                super::index::read_entry(&self.store.entry_path(id), &format!("{id}.md")).ok()
            })
            .collect();
        Ok(Pruned { kept, deleted })
    }

    /// The entries whose backing files changed (confirmed from each entry's own file, as
    /// [`Writer::prune`] would delete them), without deleting any: for `prune` in a shared
    /// store.
    ///
    /// Errors: the entries folder cannot be listed.
    pub(crate) fn stale_entries(&mut self) -> Result<Vec<Entry>> {
        super::report_malformed(&self.store, &self.snap.malformed);
        let stale = stale_positions(&self.store.root, &self.snap, &mut self.cache);
        let mut out = Vec::new();
        for i in stale {
            let id = self.snap.ids[i].clone();
            let path = self.store.entry_path(&id);
            if let Ok(e) = super::index::read_entry(&path, &format!("{id}.md")) {
                if super::entry_is_stale(&self.store.root, &e, &mut self.cache) {
                    out.push(e);
                }
            }
        }
        Ok(out)
    }

    /// Deletes every entry backed by the file `key` (whether or not it still exists). Returns
    /// how many were deleted.
    ///
    /// Errors: as [`Writer::prune`].
    pub(crate) fn bust(&mut self, key: &str) -> Result<usize> {
        let mut busted = 0;
        for round in 0..2 {
            // Every spelling of the file (`SRC/Pay.ts` is `src/pay.ts` where names fold).
            let named: Vec<usize> = (0..self.snap.paths.len())
                .filter(|&p| crate::pathcmp::same_key(&self.snap.paths[p], key))
                .collect();
            let hit: Vec<usize> = (0..self.snap.len())
                .filter(|&i| {
                    self.snap
                        .refs
                        .of(i)
                        .any(|(q, _)| named.contains(&(q as usize)))
                })
                .collect();
            // The index is derived and may be damaged: an entry goes only when its own file
            // names `key`.
            let deleted = self
                .delete_positions_listed(&hit, &mut |e, _| {
                    e.files.keys().any(|k| crate::pathcmp::same_key(k, key))
                })?
                .len();
            busted += deleted;
            if deleted == hit.len() || round == 1 {
                break;
            }
            // The index named entries whose files do not name `key`: once more from the files.
            self.snap = super::index::Snapshot::reloaded(&self.store)?;
        }
        Ok(busted)
    }

    /// Deletes the entry `id`; an entry file with that id that does not parse (so is not in the
    /// index) is removed too.
    ///
    /// Errors: as [`Writer::prune`].
    pub(crate) fn unchart(&mut self, id: &str) -> Result<Unchart> {
        if let Some(pos) = self.snap.position(id) {
            self.delete_positions(&[pos])?;
            return Ok(Unchart::Deleted);
        }
        let path = self.store.entry_path(id);
        if !path.is_file() {
            return Ok(Unchart::Unknown);
        }
        crate::fsutil::remove_if_exists(&path)?;
        self.snap = super::index::Snapshot::reloaded(&self.store)?;
        Ok(Unchart::Deleted)
    }

    /// Writes `entry` (already checked to fit [`crate::fsutil::limits::ENTRY`] and to parse back),
    /// records the hashes `chart` just computed in the stat cache, and puts the entry into the
    /// snapshot in place of any older version.
    ///
    /// Errors: the entry cannot be written.
    pub(crate) fn chart(&mut self, entry: Entry, hashed: &[Hashed]) -> Result<()> {
        self.ensure_listed()?;
        let id = entry.id.clone();
        // The files it was charted on before: words learned from reads of those are its own
        // only while they still are.
        let before: Option<std::collections::BTreeSet<String>> = self
            .snap
            .position(&id)
            .map(|i| self.snap.files_of(i).map(|(p, _)| p.to_string()).collect());
        let path = self.store.entry_path(&id);
        let was_current = self.snap.folder_is_current(&self.store);
        // Before the entry: a teammate's phrasings merge into it without a conflict.
        self.store.ensure_merge_attributes();
        crate::fsutil::write_atomic(&path, entry.render().as_bytes()).with_context(|| {
            format!(
                "could not write entry: {}",
                super::display_rel(&self.store.root, &path)
            )
        })?;
        for (key, abs, hash, at_ns) in hashed {
            self.cache.remember(key, abs, *hash, *at_ns);
        }
        let store = self.store.clone();
        let moved = before.is_some_and(|b| !b.iter().eq(entry.files.keys()));
        // A hint only: the chart is written whatever happens to it.
        if let Err(e) = super::learned::LearnedWords::settle_chart(&store, &entry, moved) {
            diag!("capn: could not update the words learned for chart {id}: {e:#}");
        }
        self.apply_or_reload(&[], vec![entry], &[format!("{id}.md")])?;
        self.snap.folder_changed(&store, was_current);
        Ok(())
    }
}
