//! The project store `.capn/`: where it is, what it holds, and the operations on it.
//!
//! Markdown entries under `.capn/entries/` are the only source of truth; `map.json`, the search
//! index and the stat cache are derived and rebuilt whenever missing, corrupt or out of date
//! (format.md). Writers hold [`lock::StoreLock`]; readers never wait on it.

pub mod entry;
pub mod fresh;
pub mod index;
pub mod lock;
pub mod map;
pub mod paths;

use std::path::{Path, PathBuf};

/// Name of the store folder at the project root.
pub const STORE_DIR: &str = ".capn";

/// The locations of one project's store. Creating a `Store` touches nothing on disk.
#[derive(Debug, Clone)]
pub struct Store {
    /// The project root (canonical when it could be canonicalised).
    pub root: PathBuf,
    /// `<root>/.capn`.
    pub dir: PathBuf,
}

impl Store {
    /// The store of the project that contains `cwd` (see [`find_root`]).
    pub fn discover(cwd: &Path) -> Store {
        Store::at(find_root(cwd))
    }

    /// The store at a known project root.
    pub fn at(root: PathBuf) -> Store {
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        let dir = root.join(STORE_DIR);
        Store { root, dir }
    }

    /// The store for the current process: `discover(current_dir)`.
    ///
    /// Errors: the working directory cannot be read.
    pub fn from_env() -> anyhow::Result<Store> {
        let cwd = std::env::current_dir()
            .map_err(|e| anyhow::anyhow!("could not read the working directory: {e}"))?;
        Ok(Store::discover(&cwd))
    }

    /// `.capn/entries`.
    pub fn entries_dir(&self) -> PathBuf {
        self.dir.join("entries")
    }

    /// `.capn/entries/<id>.md`.
    pub fn entry_path(&self, id: &str) -> PathBuf {
        self.entries_dir().join(format!("{id}.md"))
    }

    /// `.capn/map.json`.
    pub fn map_path(&self) -> PathBuf {
        self.dir.join("map.json")
    }

    /// `.capn/config.json`.
    pub fn config_path(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    /// `.capn/index.bin` (derived search index).
    pub fn index_path(&self) -> PathBuf {
        self.dir.join("index.bin")
    }

    /// `.capn/stat.bin` (derived file-stat cache).
    pub fn stat_cache_path(&self) -> PathBuf {
        self.dir.join("stat.bin")
    }

    /// `.capn/lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.dir.join("lock")
    }

    /// True when `.capn/` exists.
    pub fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    /// Reads `.capn/config.json` (defaults when missing or broken).
    pub fn config(&self) -> crate::config::Config {
        crate::config::Config::load(&self.config_path())
    }
}

/// The project root for `cwd` (format.md, "Project root"): the first ancestor (or `cwd` itself)
/// that contains `.capn/`; else the git top level (the first ancestor containing `.git`); else
/// `cwd`.
pub fn find_root(cwd: &Path) -> PathBuf {
    for dir in cwd.ancestors() {
        if dir.join(STORE_DIR).is_dir() {
            return dir.to_path_buf();
        }
    }
    for dir in cwd.ancestors() {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
    }
    cwd.to_path_buf()
}

/// The project root for hook subcommands: `CLAUDE_PROJECT_DIR` when set and a directory (the
/// session root, which stays put while the hook's `cwd` follows the agent; hooks reference,
/// "Environment"), else [`find_root`] of `cwd`.
pub fn hook_root(cwd: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("CLAUDE_PROJECT_DIR") {
        let p = PathBuf::from(dir);
        if p.is_dir() {
            return find_root(&p);
        }
    }
    find_root(cwd)
}

use anyhow::{Context, Result};
use entry::Entry;
use fresh::StatCache;
use index::Snapshot;
use lock::StoreLock;
use std::collections::HashMap;

/// A store opened for writing: the lock is held for the life of this value, and the snapshot was
/// loaded under it, so it is the truth until this writer changes it.
pub struct Writer {
    /// The store.
    pub store: Store,
    /// Entries and index, loaded under the lock.
    pub snap: Snapshot,
    /// The stat cache.
    pub cache: StatCache,
    _lock: StoreLock,
}

impl Store {
    /// Creates `.capn/entries/` if missing, takes the writers' lock (waiting for it) and loads the
    /// entries.
    ///
    /// Errors: the store cannot be created, locked or listed.
    pub fn open_writer(&self) -> Result<Writer> {
        std::fs::create_dir_all(self.entries_dir())
            .with_context(|| format!("could not create {}", self.entries_dir().display()))?;
        let lock = StoreLock::acquire(&self.lock_path())?;
        self.writer_from(lock)
    }

    /// Like [`Store::open_writer`], but only if the lock is free now and the store exists.
    pub fn try_open_writer(&self) -> Option<Writer> {
        if !self.exists() {
            return None;
        }
        let lock = StoreLock::try_acquire(&self.lock_path())?;
        self.writer_from(lock).ok()
    }

    fn writer_from(&self, lock: StoreLock) -> Result<Writer> {
        let snap = index::load(self)?;
        Ok(Writer {
            store: self.clone(),
            snap,
            cache: StatCache::load(&self.stat_cache_path()),
            _lock: lock,
        })
    }
}

/// Reports malformed entry files on stderr, one line each, naming the file.
pub fn report_malformed(store: &Store, malformed: &[(String, String)]) {
    let dir = store.entries_dir();
    for (name, reason) in malformed {
        eprintln!(
            "capn: skipped malformed entry: {}: {reason}",
            display_rel(&store.root, &dir.join(name))
        );
    }
}

/// `path` relative to the working directory's project root for messages (`.capn/entries/x.md`).
pub fn display_rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// Positions (in `snap.entries`) of entries with a changed, vanished or replaced backing file.
/// Each distinct path is checked once per call.
pub fn stale_positions(root: &Path, snap: &Snapshot, cache: &mut StatCache) -> Vec<usize> {
    let mut seen: HashMap<&str, Option<[u8; 32]>> = HashMap::new();
    let mut stale = Vec::new();
    for (i, e) in snap.entries.iter().enumerate() {
        let fresh = e.files.iter().all(|(path, hex)| {
            let now = *seen
                .entry(path.as_str())
                .or_insert_with(|| match cache.state(root, path) {
                    fresh::FileState::Hash(h) => Some(h),
                    fresh::FileState::Gone => None,
                });
            now.is_some() && now == fresh::decode_hex32(hex)
        });
        if !fresh {
            stale.push(i);
        }
    }
    stale
}

impl Writer {
    /// Deletes the entries at `positions` (their files first, then the derived files).
    /// Returns how many entry files were deleted.
    ///
    /// Errors: an entry file or a derived file cannot be removed or written.
    pub fn delete_positions(&mut self, positions: &[usize]) -> Result<usize> {
        if positions.is_empty() {
            return Ok(0);
        }
        let drop: std::collections::HashSet<usize> = positions.iter().copied().collect();
        for &i in positions {
            let path = self.store.entry_path(&self.snap.entries[i].id);
            crate::fsutil::remove_if_exists(&path).with_context(|| {
                format!(
                    "could not delete entry: {}",
                    display_rel(&self.store.root, &path)
                )
            })?;
        }
        let keep: Vec<Entry> = self
            .snap
            .entries
            .iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, e)| e.clone())
            .collect();
        self.snap.replace_entries(&self.store, keep)?;
        Ok(positions.len())
    }

    /// Writes every derived file that is out of date: the index, map.json and the stat cache
    /// (pruned to paths that entries still reference).
    ///
    /// Errors: a derived file cannot be written.
    pub fn finish(mut self) -> Result<()> {
        index::save(&self.store, &mut self.snap)?;
        map::save(&self.store.map_path(), &self.snap.entries)?;
        let live: std::collections::HashSet<&str> = self
            .snap
            .entries
            .iter()
            .flat_map(|e| e.files.keys().map(String::as_str))
            .collect();
        self.cache.save(
            &self.store.stat_cache_path(),
            Some(&|k: &str| live.contains(k)),
        )?;
        Ok(())
    }
}
