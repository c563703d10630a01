//! The store opened for writing ([`Writer`]): the writers' lock, held for its life, and the
//! snapshot and stat cache loaded under it; deletions and the save of the derived files.

use super::entry::Entry;
use super::fresh::StatCache;
use super::index::{self, Snapshot};
use super::lock::{StoreLock, Wait};
use super::{display_rel, entry_is_fresh, entry_is_stale, map, warn, worktree, Store};
use anyhow::{Context, Result};
use std::time::Duration;

/// How long a writer waits for `.capn/lock` before it says on stderr that it is waiting.
pub(super) const LOCK_NOTICE_AFTER: Duration = Duration::from_secs(1);

/// How long a writer waits for `.capn/lock` in all before it gives up, writing nothing. capn's
/// own writers hold it for milliseconds (seconds when a large store's index is rebuilt), and a
/// killed one releases it, so only a stuck or foreign holder keeps a writer waiting this long.
pub(super) const LOCK_GIVE_UP_AFTER: Duration = Duration::from_secs(30);

/// The wait of every writer of `.capn/`.
const WRITERS_WAIT: Wait = Wait {
    notice_after: LOCK_NOTICE_AFTER,
    give_up_after: LOCK_GIVE_UP_AFTER,
};

/// A store opened for writing: the lock is held for the life of this value, and the snapshot was
/// loaded under it, so it is the truth until this writer changes it.
pub(crate) struct Writer {
    /// The store.
    pub store: Store,
    /// Entries and index, loaded under the lock.
    pub snap: Snapshot,
    /// The stat cache.
    pub cache: StatCache,
    _lock: StoreLock,
}

impl Store {
    /// Creates `.capn/entries/` if missing, takes the writers' lock (waiting for it a bounded
    /// time, see [`Store::lock_writers`]) and loads the
    /// entries, listing and stat'ing every entry file ([`index::Check::Files`]), so entries edited
    /// in place are re-indexed (`prune`, `unchart`, `bust`). Under the lock, the folders in
    /// `.capn/worktrees/` of linked worktrees git no longer knows are removed
    /// ([`worktree::sweep_stale`]).
    ///
    /// Errors: the store cannot be created, locked or listed.
    pub(crate) fn open_writer(&self) -> Result<Writer> {
        self.open_writer_with(index::Check::Files)
    }

    /// [`Store::open_writer`] with the index checked as `check` says: `chart` trusts the entries
    /// folder's stamp on a large store ([`index::Check::Folder`]), so its cost does not grow with
    /// the store; the listing it then records is the one `index.bin` held, updated for the
    /// entry it writes.
    ///
    /// Errors: the store cannot be created, locked or listed.
    pub(crate) fn open_writer_with(&self, check: index::Check) -> Result<Writer> {
        self.check_dirs()?;
        crate::fsutil::ensure_dir_inside(self.home(), &self.entries_dir())?;
        let lock = self.lock_writers(WRITERS_WAIT)?;
        // The derived files of linked worktrees git no longer knows (`git worktree remove`)
        // go, under the lock ([`worktree::sweep_stale`]).
        worktree::sweep_stale(&self.dir);
        self.writer_from(lock, check)
    }

    /// The writers' lock alone, for commands that write capn's own files in `.capn/` other than
    /// the entries and the derived files (`init`: `config.json`, `install.json`; `uninstall`).
    /// `None` when there is no `.capn/` yet (nothing to guard).
    ///
    /// Errors: as [`Store::lock_writers`].
    pub(crate) fn lock_for_setup(&self) -> Result<Option<StoreLock>> {
        if !self.dir.is_dir() {
            return Ok(None);
        }
        self.lock_writers(WRITERS_WAIT).map(Some)
    }

    /// The writers' lock, `.capn/lock`, waited for as `wait` says (for every writer
    /// [`LOCK_NOTICE_AFTER`] and [`LOCK_GIVE_UP_AFTER`]): while another process holds it, one
    /// line on stderr says what capn is waiting for, and then it gives up.
    ///
    /// Errors: the lock file cannot be created or locked, or it was still held at the end of
    /// the wait (the error names the path and what to do).
    fn lock_writers(&self, wait: Wait) -> Result<StoreLock> {
        let path = self.lock_path();
        let shown = display_rel(&self.root, &path);
        let mut notice =
            || diag!("capn: waiting for {shown} (another capn is writing the store)...");
        match StoreLock::acquire_within(&path, wait, &mut notice)? {
            Some(lock) => Ok(lock),
            None => anyhow::bail!(
                "could not lock the store: {shown}: another process held it for {} s, so capn gave up; nothing was written. Run the command again once the other capn is done; if none is running, end the process that holds the file open (`lsof {shown}` names it)",
                wait.give_up_after.as_secs_f32()
            ),
        }
    }

    /// Like [`Store::open_writer`], but only if the lock is free now and the store exists, and
    /// with the index trusted by the entries folder's stamp ([`index::Check::Folder`]): for
    /// readers that may delete what they find stale on the way (`ask`). Changing entries lists
    /// the folder first ([`Writer::ensure_listed`]).
    pub(crate) fn try_open_writer(&self) -> Option<Writer> {
        if !self.exists() || self.check_dirs().is_err() {
            return None;
        }
        let lock = StoreLock::try_acquire(&self.lock_path())?;
        self.writer_from(lock, index::Check::Folder).ok()
    }

    /// Saves the derived files of `snap`, a snapshot a reader built without the lock (a hook),
    /// when the writers' lock is free right now: what was built is written as it is, never built
    /// again under the lock. `Ok(false)` when another writer holds the lock (it saves its own).
    /// A snapshot older than what is on disk is harmless: its listing records what it read,
    /// and the next load splices in what changed since.
    ///
    /// Errors: a derived file cannot be written (`.capn/index.bin` is a directory...).
    pub(crate) fn try_save(&self, snap: index::Snapshot) -> Result<bool> {
        if !self.exists() || self.check_dirs().is_err() {
            return Ok(false);
        }
        let Some(lock) = StoreLock::try_acquire(&self.lock_path()) else {
            return Ok(false);
        };
        if self.is_borrowed() {
            crate::fsutil::ensure_dir_inside(self.home(), &self.local)?;
        }
        let cache = StatCache::load(&self.stat_cache_path(), snap.derived_limit());
        Writer {
            store: self.clone(),
            snap,
            cache,
            _lock: lock,
        }
        .finish()?;
        Ok(true)
    }

    /// Brings the derived files up to date with the entry files (`capn refresh`): takes the
    /// writers' lock only if it is free now, loads the index as `ask` does
    /// ([`index::Check::Folder`]: one stat when nothing changed; else the new and changed entry
    /// files are read, tokenised and embedded), folds any delta ([`Snapshot::fold_delta`]) and
    /// saves what changed ([`Writer::finish`]), so the next `ask` after a `git pull` finds the
    /// index current. `Ok(false)`: another writer holds the lock, nothing was done (it, or a
    /// later run, does the work).
    ///
    /// Errors: the store's folders are not what they must be, the lock file cannot be opened,
    /// the entries folder cannot be listed, or a derived file cannot be written (each names
    /// the path).
    pub(crate) fn refresh(&self) -> Result<bool> {
        self.check_dirs()?;
        let Some(lock) = StoreLock::try_acquire_or_fail(&self.lock_path())? else {
            return Ok(false);
        };
        worktree::sweep_stale(&self.dir);
        let mut w = self.writer_from(lock, index::Check::Folder)?;
        w.snap.fold_delta();
        w.finish()?;
        Ok(true)
    }

    fn writer_from(&self, lock: StoreLock, check: index::Check) -> Result<Writer> {
        if self.is_borrowed() {
            // This worktree's own derived files (the stat cache) live here.
            crate::fsutil::ensure_dir_inside(self.home(), &self.local)?;
        }
        let snap = index::load(self, check)?;
        let cache = StatCache::load(&self.stat_cache_path(), snap.derived_limit());
        Ok(Writer {
            store: self.clone(),
            snap,
            cache,
            _lock: lock,
        })
    }
}

impl Writer {
    /// Deletes the entries at `positions` that are confirmed by `confirm` after re-reading their
    /// file (so an entry rewritten in place since the index was built is judged by what it says
    /// now), then rebuilds the derived state. Returns the deleted entries as they were read just
    /// before deletion (so a caller can say which charts went and why).
    ///
    /// Errors: an entry file cannot be removed or the folder cannot be listed.
    pub(crate) fn delete_positions_listed(
        &mut self,
        positions: &[usize],
        confirm: &mut dyn FnMut(&Entry, &mut StatCache) -> bool,
    ) -> Result<Vec<Entry>> {
        if positions.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = positions
            .iter()
            .map(|&i| self.snap.ids[i].clone())
            .collect();
        self.ensure_listed()?;
        let mut drop = Vec::new();
        let mut removed = Vec::new();
        let mut disagree = false;
        let was_current = self.snap.folder_is_current(&self.store);
        for id in ids {
            let Some(i) = self.snap.position(&id) else {
                continue;
            };
            let path = self.store.entry_path(&id);
            let name = format!("{id}.md");
            let e = match index::read_entry(&path, &name) {
                Ok(e) => {
                    if !self.snap.agrees_with(i, &e) {
                        disagree = true;
                    }
                    if !confirm(&e, &mut self.cache) {
                        continue;
                    }
                    e
                }
                // Gone already (another writer) or no longer parses: it is not ours to delete.
                Err(_) => {
                    disagree = true;
                    continue;
                }
            };
            crate::fsutil::remove_if_exists(&path).with_context(|| {
                format!(
                    "could not delete entry: {}",
                    display_rel(&self.store.root, &path)
                )
            })?;
            drop.push(id);
            removed.push(e);
        }
        // Words learned for a deleted chart go with it.
        if let Err(e) = super::learned::LearnedWords::forget(&self.store, &drop) {
            super::warn(&e);
        }
        if disagree {
            self.snap = Snapshot::reloaded(&self.store)?;
            return Ok(removed);
        }
        if drop.is_empty() {
            return Ok(removed);
        }
        let store = self.store.clone();
        let touched: Vec<String> = drop.iter().map(|id| format!("{id}.md")).collect();
        self.apply_or_reload(&drop, Vec::new(), &touched)?;
        self.snap.folder_changed(&store, was_current);
        Ok(removed)
    }

    /// Deletes the entries at `positions` unconditionally (unchart, bust); returns how many.
    ///
    /// Errors: as [`Writer::delete_positions_listed`].
    pub(crate) fn delete_positions(&mut self, positions: &[usize]) -> Result<usize> {
        self.delete_positions_listed(positions, &mut |_, _| true)
            .map(|removed| removed.len())
    }

    /// Deletes the entries at `positions` whose files are stale when re-checked from the entry
    /// file itself, and returns them. Kept: an entry whose files could not be checked, and one
    /// current in another checkout of the repository ([`worktree::other_checkouts`]: the main
    /// checkout and every linked worktree), which is stale only here: every checkout shares one
    /// memory. The other checkouts' files are hashed without a stat cache (their stamps are
    /// theirs). Kept too: a version some local branch, worktree `HEAD` or stash still holds
    /// ([`super::branches`]: git is asked only once there is a candidate to delete).
    ///
    /// Errors: as [`Writer::delete_positions_listed`].
    pub(crate) fn delete_stale_in_every_checkout(
        &mut self,
        positions: &[usize],
    ) -> Result<Vec<Entry>> {
        let root = self.store.root.clone();
        let others = worktree::other_checkouts(self.store.home(), &root);
        let fresh_elsewhere = |e: &Entry| {
            others
                .iter()
                .any(|o| entry_is_fresh(o, e, &mut StatCache::default()))
        };
        let mut branches: Option<Option<super::branches::Branches>> = None;
        let mut held = |e: &Entry| {
            branches
                .get_or_insert_with(|| super::branches::Branches::load(&root))
                .as_mut()
                .is_some_and(|b| b.holds(e))
        };
        self.delete_positions_listed(positions, &mut |e, cache| {
            entry_is_stale(&root, e, cache) && !fresh_elsewhere(e) && !held(e)
        })
    }

    /// Makes sure every entry file was listed when the snapshot was loaded (a writer opened by
    /// [`Store::try_open_writer`] trusted the folder stamp): writers need the listing to record
    /// what they change. Call it before deciding what to change, since it may reload.
    ///
    /// Errors: the entries folder cannot be listed.
    pub(crate) fn ensure_listed(&mut self) -> Result<()> {
        if !self.snap.is_listed() {
            self.snap = index::load(&self.store, index::Check::Files)?;
        }
        Ok(())
    }

    /// [`Snapshot::apply`]; when that fails (an inconsistent index), the snapshot is rebuilt
    /// from the entry files, which already hold the change.
    ///
    /// Errors: the entries folder cannot be listed.
    pub(super) fn apply_or_reload(
        &mut self,
        remove: &[String],
        insert: Vec<Entry>,
        touched: &[String],
    ) -> Result<()> {
        if self
            .snap
            .apply(&self.store, remove, insert, touched)
            .is_err()
        {
            self.snap = Snapshot::reloaded(&self.store)?;
        }
        Ok(())
    }

    /// [`Writer::finish`], reporting a failure on stderr instead of failing the command: the
    /// derived files are rebuilt from the entries next time, so a full disk or a broken
    /// `index.bin` must not turn an answer or a successful chart into an error.
    ///
    /// The last step of a command: the lock is released and the vectors file closed here, but
    /// the snapshot's memory is not freed. The process exits right after, and the system
    /// takes its memory back at once, where freeing the snapshot's tens of thousands of small
    /// strings (ids and paths) one by one cost about a tenth of a `chart` at 10,000 charts.
    /// So call it once per process, at its end (a command, a hook): never in a loop.
    pub(crate) fn finish_or_warn(mut self) {
        if let Err(e) = self.save_derived() {
            warn(&e);
        }
        let Writer {
            mut snap,
            cache,
            _lock,
            store: _,
        } = self;
        drop(_lock);
        // The vectors hold `vectors.bin` open, which Windows would not let anyone replace
        // while this process lives: closed now (a few frees).
        drop(snap.vectors.take());
        std::mem::forget(snap);
        std::mem::forget(cache);
    }

    /// Writes every derived file that is out of date: the index, the texts, map.json and the stat
    /// cache (pruned to paths that entries still reference).
    ///
    /// Errors: a derived file cannot be written.
    pub(crate) fn finish(mut self) -> Result<()> {
        self.save_derived()
    }

    /// [`Writer::finish`] without giving up the writer.
    fn save_derived(&mut self) -> Result<()> {
        // Temp files of writers killed mid-write (older than any write in progress).
        let max_age = std::time::Duration::from_secs(600);
        crate::fsutil::remove_stale_temp_files(&self.store.dir, max_age);
        // capn 0.3 kept every entry's text in texts.bin for rebuilding; the index is now
        // updated in place, so a file left by that version is only stale.
        let _ = crate::fsutil::remove_if_exists(&self.store.texts_path());
        if self.snap.saw_temp_files {
            crate::fsutil::remove_stale_temp_files(&self.store.entries_dir(), max_age);
        }
        // While the changes are saved as `delta.bin`, map.json waits for the writer that folds
        // them into the full files (it is written for other tools; capn reads the index).
        let via_delta = index::save(&self.store, &mut self.snap)?;
        if (self.snap.content_changed && !via_delta) || !self.store.map_path().exists() {
            map::save(&self.store.map_path(), &self.snap)?;
        }
        // Pruned to live paths only when the cache is written anyway or the entries changed.
        // The snapshot's paths are sorted: each cached key is looked up in them (a set of
        // every path, built for this, cost a tenth of a `chart` at 10,000 charts).
        if self.cache.is_dirty() || self.snap.content_changed {
            let live = &self.snap.paths;
            let keep = |k: &str| live.binary_search_by(|p| p.as_str().cmp(k)).is_ok();
            self.cache
                .save(&self.store.stat_cache_path(), Some(&keep))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_gives_up_on_a_held_lock_naming_the_path_and_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().to_path_buf());
        std::fs::create_dir_all(&store.dir).unwrap();
        let held = StoreLock::acquire(&store.lock_path()).unwrap();
        let wait = Wait {
            notice_after: Duration::from_millis(50),
            give_up_after: Duration::from_millis(200),
        };
        let err = store.lock_writers(wait).unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "could not lock the store: .capn/lock: another process held it for 0.2 s, so capn gave up; nothing was written. Run the command again once the other capn is done; if none is running, end the process that holds the file open (`lsof .capn/lock` names it)"
        );
        drop(held);
        assert!(store.lock_writers(wait).is_ok());
    }
}
