//! Staleness: is a backing file still the one that was charted?
//!
//! A file is fresh when it exists, is a regular file inside the project root (a symlink only if
//! its target is inside the root) and its SHA-256 (raw bytes, streamed) equals the recorded hash
//! (format.md, "Staleness"). A stat cache (`.capn/stat.bin`: size, mtime ns, ctime ns, inode and
//! the hash seen with them) skips re-hashing files whose metadata is unchanged, except when the
//! file's mtime is within 2 seconds of the moment it was hashed (racy clean: a write in the same
//! timestamp tick could hide), in which case it is hashed again.
//!
//! Line endings: a file that differs from its charted content only in CRLF versus LF (a
//! teammate's `core.autocrlf` checkout) is fresh. The recorded hash stays the raw bytes' (as
//! capn 0.2 records it); only when the raw hash differs is the file hashed again in its two
//! normal forms, every CRLF as LF and every line end as CRLF, and either may match. Those two
//! hashes are kept in the stat cache with the raw one, so a stale file is not read again while
//! its metadata stays the same.

use super::paths::abs_of;
use anyhow::{Context, Result};
use cache_file::{CacheFile, Cached, Stamp};
use reach::{dirs_inside_root, hash_missed, stamp_of, stamp_of_key, stat_backing_files, Missed};
use std::collections::HashMap;
use std::path::Path;

mod cache_file;
pub(crate) mod line_ends;
mod reach;
pub(crate) use line_ends::line_end_hashes;
pub(crate) use reach::{hash_backing_file, hash_file, LEAVES_PROJECT};

/// The racy-clean window in nanoseconds (format.md: 2 seconds): a file whose mtime is this close
/// to the moment it was read may have changed within the same timestamp tick.
pub(crate) const RACY_NS: i64 = 2_000_000_000;

/// What a backing file looks like now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileState {
    /// A regular file inside the root with this SHA-256.
    Hash([u8; 32]),
    /// Missing, not a regular file, or a symlink leading outside the root: its entries are stale.
    Gone,
    /// Could not be checked (permission denied, an I/O error, over [`MAX_BACKING_BYTES`]): its
    /// entries are hidden from answers but kept, since the file may well be unchanged.
    Unchecked(std::io::ErrorKind),
}

/// The largest backing file that is hashed (256 MiB, about half a second of SHA-256 here); a
/// larger one cannot be checked ([`FileState::Unchecked`]) and `chart` refuses it.
pub(crate) const MAX_BACKING_BYTES: u64 = 256 << 20;

/// The stat cache, loaded once per command. Changes are kept in memory until [`StatCache::save`].
#[derive(Debug, Default)]
pub(crate) struct StatCache {
    /// The cache as loaded (looked up in place).
    base: CacheFile,
    /// What this command hashed or learned, over `base`.
    files: HashMap<String, Cached>,
    /// Every file this command hashed, with its stamp then and the hash: a file seen again with
    /// the same stamp in the same run is not hashed again, even in the racy window or when its
    /// hash differs from the one charted (a file that changed, backing many charts, is hashed
    /// once per run, not once per chart). An edit after the hash with an unchanged stamp is no
    /// different from an edit just after the check.
    hashed: HashMap<String, (Stamp, [u8; 32])>,
    dirty: bool,
}

pub(crate) use crate::clock::now_ns;

/// How one backing file stands against the hash an entry recorded for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Judged {
    /// It hashes as charted.
    Fresh,
    /// Gone, not a regular file inside the root, hashing differently, or the recorded hash does
    /// not parse: the entry is stale (hidden, kept).
    Changed,
    /// It could not be checked: the entry is hidden, kept.
    Unchecked(std::io::ErrorKind),
}

impl StatCache {
    /// Judges the backing file `key`, whose state is `state` ([`StatCache::states`]), against
    /// the recorded hash `want` (`None`: a recorded hash that does not parse). A file that
    /// differs from it only in CRLF versus LF is fresh (module docs).
    pub(crate) fn judge(
        &mut self,
        root: &Path,
        key: &str,
        state: FileState,
        want: Option<&[u8; 32]>,
    ) -> Judged {
        self.judge_within(root, key, state, want, None)
    }

    /// Loads the cache; a missing, corrupt, other-version or over-`limit` file (see
    /// [`crate::fsutil::limits::derived`]), or one that is not a regular file, gives an empty
    /// cache.
    pub(crate) fn load(path: &Path, limit: u64) -> StatCache {
        let base = crate::fsutil::read_limited(path, limit, crate::fsutil::Follow::Never)
            .ok()
            .and_then(|b| postcard::from_bytes::<CacheFile>(&b).ok())
            .filter(CacheFile::is_valid)
            .unwrap_or_default();
        StatCache {
            base,
            ..StatCache::default()
        }
    }

    /// True when the cache holds changes not yet written.
    pub(crate) fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Writes the cache atomically if it changed, dropping keys not in `keep` (when given).
    pub(crate) fn save(&mut self, path: &Path, keep: Option<&dyn Fn(&str) -> bool>) -> Result<()> {
        // Every key, the ones learned now over the loaded ones, sorted.
        let mut all: std::collections::BTreeMap<&str, Cached> = (0..self.base.len())
            .filter_map(|i| {
                Some((
                    std::str::from_utf8(self.base.key(i)).ok()?,
                    self.base.cached(i),
                ))
            })
            .collect();
        all.extend(self.files.iter().map(|(k, c)| (k.as_str(), c.clone())));
        if let Some(keep) = keep {
            let before = all.len();
            all.retain(|k, _| keep(k));
            self.dirty |= all.len() != before;
        }
        if !self.dirty {
            return Ok(());
        }
        let file = CacheFile::encode(all.iter().map(|(k, c)| (*k, c)));
        let bytes = postcard::to_stdvec(&file).context("could not encode the stat cache")?;
        crate::fsutil::write_atomic_with(path, &bytes, crate::fsutil::Durability::Rebuildable)?;
        self.dirty = false;
        Ok(())
    }

    /// The current state of the backing file `key` under `root`, re-hashing only when its
    /// metadata changed or is racy.
    pub(crate) fn state(&mut self, root: &Path, key: &str) -> FileState {
        self.state_with(root, key, stamp_of_key(root, key), true)
    }

    /// True when the backing file `key` is gone ([`FileState::Gone`]): checked as every
    /// freshness check is, never through a symlinked folder that leaves the project.
    pub(crate) fn is_gone(&mut self, root: &Path, key: &str) -> bool {
        self.state(root, key) == FileState::Gone
    }

    /// [`StatCache::state`] for many keys at once. The `stat` calls and any re-hashing (the bulk
    /// of the cost on a large store) run on a few threads; cache updates happen on this one.
    pub(crate) fn states(&mut self, root: &Path, keys: &[&str]) -> Vec<FileState> {
        let dirs = dirs_inside_root(root, keys);
        let stamps = stat_backing_files(root, keys, &dirs);
        let mut out: Vec<Option<FileState>> = keys
            .iter()
            .zip(&stamps)
            .map(|(k, st)| match st {
                Err(m) => Some(*m),
                Ok(st) => self.known(k, st).map(FileState::Hash),
            })
            .collect();
        let todo: Vec<usize> = (0..keys.len()).filter(|&i| out[i].is_none()).collect();
        let hashed_at_ns = now_ns();
        let hashes = crate::fsutil::par_map(&todo, 64, |&i| {
            hash_backing_file(root, &abs_of(root, keys[i]))
        });
        for (&i, hash) in todo.iter().zip(hashes) {
            out[i] = Some(match (hash, stamps[i]) {
                (Ok(h), Ok(st)) => {
                    self.record(keys[i], st, h, hashed_at_ns);
                    FileState::Hash(h)
                }
                (Err(e), _) => hash_missed(&e),
                (_, Err(m)) => m,
            });
        }
        out.into_iter()
            .map(|s| s.unwrap_or(FileState::Gone))
            .collect()
    }

    /// The cached hash for `key` if its stamp is unchanged and outside the racy window.
    /// Never where the system gives neither an inode nor a ctime (Windows: std exposes
    /// neither the file index nor NTFS's change time): size and mtime alone do not tell a
    /// same-size edit whose mtime was put back (`cp -p`, an archive extraction), so there every
    /// check hashes the file (the hooks' hashing budget still bounds what they hash).
    fn trusted(&self, key: &str, stamp: &Stamp) -> Option<[u8; 32]> {
        if stamp.ino == 0 && stamp.ctime_ns == 0 {
            return None;
        }
        self.get(key).and_then(|c| {
            (c.stamp == *stamp && stamp.mtime_ns.saturating_add(RACY_NS) < c.hashed_at_ns)
                .then_some(c.hash)
        })
    }

    /// The hash of `key` at `stamp` when it is known without reading the file: trusted from
    /// the cache, or hashed by this command at that stamp.
    fn known(&self, key: &str, stamp: &Stamp) -> Option<[u8; 32]> {
        self.hashed_now(key, stamp)
            .or_else(|| self.trusted(key, stamp))
    }

    /// The hash this command computed for `key` when its stamp was `stamp`.
    fn hashed_now(&self, key: &str, stamp: &Stamp) -> Option<[u8; 32]> {
        self.hashed
            .get(key)
            .filter(|(st, _)| st == stamp)
            .map(|&(_, h)| h)
    }

    fn state_with(
        &mut self,
        root: &Path,
        key: &str,
        stamp: Result<Stamp, Missed>,
        use_cache: bool,
    ) -> FileState {
        let stamp = match stamp {
            Ok(st) => st,
            Err(m) => return m,
        };
        if let Some(h) = self.hashed_now(key, &stamp) {
            return FileState::Hash(h);
        }
        if let Some(h) = self.trusted(key, &stamp).filter(|_| use_cache) {
            return FileState::Hash(h);
        }
        let hashed_at_ns = now_ns();
        match hash_backing_file(root, &abs_of(root, key)) {
            Ok(hash) => {
                self.record(key, stamp, hash, hashed_at_ns);
                FileState::Hash(hash)
            }
            Err(e) => hash_missed(&e),
        }
    }

    /// What the cache holds for `key`: learned by this command, else as loaded.
    fn get(&self, key: &str) -> Option<Cached> {
        self.files.get(key).cloned().or_else(|| self.base.find(key))
    }

    /// Records a hash computed by the caller (e.g. `chart`) for `abs` under `key`.
    pub(crate) fn remember(&mut self, key: &str, abs: &Path, hash: [u8; 32], hashed_at_ns: i64) {
        if let Ok(meta) = std::fs::metadata(abs) {
            self.record(key, stamp_of(&meta), hash, hashed_at_ns);
        }
    }

    fn record(&mut self, key: &str, stamp: Stamp, hash: [u8; 32], hashed_at_ns: i64) {
        self.hashed.insert(key.to_string(), (stamp, hash));
        let old = self.get(key);
        // The line-end hashes belong to the content: kept while the raw hash is the same.
        let alts = old
            .as_ref()
            .filter(|c| c.stamp == stamp && c.hash == hash)
            .and_then(|c| c.alts);
        let new = Cached {
            stamp,
            hash,
            hashed_at_ns,
            alts,
        };
        match old {
            // Unchanged and already trusted: no need to rewrite the cache file.
            Some(c)
                if c.stamp == stamp
                    && c.hash == hash
                    && stamp.mtime_ns.saturating_add(RACY_NS) < c.hashed_at_ns => {}
            _ => {
                self.files.insert(key.to_string(), new);
                self.dirty = true;
            }
        }
    }

    /// The line-end hashes ([`line_end_hashes`]) of `key`, whose raw hash is `now`: from the
    /// cache when it holds them for that content, else computed (and kept when the file still
    /// hashes as `now`), unless that would read more than what is left of `budget` (taken off
    /// it). `None` when the file cannot be read again or is over the budget.
    fn alternates(
        &mut self,
        root: &Path,
        key: &str,
        now: [u8; 32],
        budget: Option<&mut u64>,
    ) -> Option<[[u8; 32]; 2]> {
        let cached = self.get(key).filter(|c| c.hash == now);
        if let Some(alts) = cached.as_ref().and_then(|c| c.alts) {
            return Some(alts);
        }
        if let Some(budget) = budget {
            let size = cached.as_ref().map_or(u64::MAX, |c| c.stamp.size);
            if size > *budget {
                return None;
            }
            *budget -= size;
        }
        let alts = line_end_hashes(root, &abs_of(root, key)).ok()?;
        if let Some(mut c) = cached {
            c.alts = Some(alts);
            self.files.insert(key.to_string(), c);
            self.dirty = true;
        }
        Some(alts)
    }

    /// [`StatCache::judge`] with a hashing budget for the line-end comparison (the hooks).
    fn judge_within(
        &mut self,
        root: &Path,
        key: &str,
        state: FileState,
        want: Option<&[u8; 32]>,
        budget: Option<&mut u64>,
    ) -> Judged {
        match (state, want) {
            (_, None) | (FileState::Gone, _) => Judged::Changed,
            (FileState::Unchecked(kind), _) => Judged::Unchecked(kind),
            (FileState::Hash(now), Some(want)) if now == *want => Judged::Fresh,
            (FileState::Hash(now), Some(want)) => {
                match self.alternates(root, key, now, budget) {
                    Some(alts) if alts.contains(want) => Judged::Fresh,
                    Some(_) => Judged::Changed,
                    // Could not be read again or over the budget: not confirmed either way.
                    None => Judged::Unchecked(std::io::ErrorKind::Other),
                }
            }
        }
    }

    /// True when `key`'s file has definitely changed since its recorded `hex` hash: gone, not a
    /// regular file inside the root, or hashing differently (an unparseable `hex` counts as
    /// changed). False when it matches or could not be checked. This is what deletes entries,
    /// so a different hash is confirmed by hashing the file itself: a cache entry whose stamp
    /// still matches but whose hash was damaged (`stat.bin` is derived and may be hostile) never
    /// deletes an entry; the fresh hash replaces it.
    pub(crate) fn is_changed(&mut self, root: &Path, key: &str, hex: &str) -> bool {
        let Some(want) = crate::hex::decode32(hex) else {
            return true;
        };
        let stamp = stamp_of_key(root, key);
        // Only a match is taken from the cache; anything else is hashed (once).
        let vouched = stamp.as_ref().ok().and_then(|st| self.trusted(key, st));
        let state = self.state_with(root, key, stamp, vouched == Some(want));
        self.judge(root, key, state, Some(&want)) == Judged::Changed
    }

    /// [`StatCache::is_current`], hashing at most `budget` bytes (taken off it): a file the cache
    /// cannot vouch for and that is larger than what is left counts as not current, unhashed.
    /// For the hooks, which must return promptly.
    pub(crate) fn is_current_within(
        &mut self,
        root: &Path,
        key: &str,
        hex: &str,
        budget: &mut u64,
    ) -> bool {
        let Some(want) = crate::hex::decode32(hex) else {
            return false;
        };
        let stamp = stamp_of_key(root, key);
        if let Ok(st) = &stamp {
            if self.trusted(key, st).is_none() {
                if st.size > *budget {
                    return false;
                }
                *budget -= st.size;
            }
        }
        let state = self.state_with(root, key, stamp, true);
        self.judge_within(root, key, state, Some(&want), Some(budget)) == Judged::Fresh
    }

    /// True when `key`'s file hashes as its recorded `hex` hash right now; false when it changed,
    /// could not be checked, or `hex` does not parse (the strict side of [`StatCache::is_changed`]:
    /// only a confirmed match counts).
    pub(crate) fn is_current(&mut self, root: &Path, key: &str, hex: &str) -> bool {
        let state = self.state(root, key);
        self.judge(root, key, state, crate::hex::decode32(hex).as_ref()) == Judged::Fresh
    }
}

#[cfg(test)]
mod tests;
