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
