//! The project store `.capn/`: where it is, what it holds, and the operations on it.
//!
//! Markdown entries under `.capn/entries/` are the only source of truth; `map.json`, the search
//! index and the stat cache are derived and rebuilt whenever missing, corrupt or out of date
//! (format.md). Writers hold [`lock::StoreLock`]; readers never wait on it.

pub(crate) mod ask;
pub(crate) mod branches;
pub(crate) mod budget;
pub(crate) mod chart;
pub(crate) mod code_index;
pub(crate) mod conflict;
pub(crate) mod entry;
pub(crate) mod fresh;
pub(crate) mod index;
pub(crate) mod learned;
pub(crate) mod list;
mod listing;
pub(crate) use listing::entry_names;
pub(crate) mod lock;
pub(crate) mod map;
pub(crate) mod offer;
pub(crate) mod ops;
mod owner;
pub(crate) mod paths;
pub(crate) mod phrasing;
pub(crate) mod provenance;
pub(crate) mod prune;
pub(crate) mod retention;
pub(crate) mod source;
mod stale;
pub(crate) mod withheld;
pub(crate) mod worktree;
mod writer;

pub(crate) use stale::{
    changed_files, entry_is_fresh, entry_is_fresh_within, entry_is_stale, freshness,
    stale_positions, Freshness,
};
pub(crate) use writer::Writer;

use anyhow::Result;
use std::path::{Path, PathBuf};

/// `.capn/.gitignore` in local mode: git ignores the whole store (this file too). `capn init`
/// writes it ([`crate::install::shared`]), and so does the first `capn chart` in a project
/// without a store.
pub(crate) const LOCAL_STORE_GITIGNORE: &str = "\
# Written by capn init: this store is local, so git ignores all of .capn/ (capn init --shared
# commits the charts for the team instead).
*
";

/// Name of the store folder at the project root.
pub(crate) const STORE_DIR: &str = ".capn";

/// The locations of one project's store. Creating a `Store` touches nothing on disk.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    /// The project root (canonical when it could be canonicalised).
    pub root: PathBuf,
    /// The store folder: `<root>/.capn`, or in a linked git worktree without a `.capn/` of its
    /// own, the main checkout's (one memory per repository).
    pub dir: PathBuf,
    /// Where this checkout keeps its own derived files (the stat cache, `stale.json`): `dir`
    /// itself, or for a linked worktree `<dir>/worktrees/<name>`.
    pub local: PathBuf,
}

impl Store {
    /// The store of the project that contains `cwd` (see [`find_root`]).
    pub(crate) fn discover(cwd: &Path) -> Store {
        Store::at(find_root(cwd))
    }

    /// The store at a known project root: `<root>/.capn`, or, when `root` is a linked git
    /// worktree without a `.capn/` of its own, the main checkout's, with this worktree's own
    /// derived files in `<main>/.capn/worktrees/<name>/` ([`worktree`]).
    pub(crate) fn at(root: PathBuf) -> Store {
        let root = crate::fsutil::resolved(&root);
        let own = root.join(STORE_DIR);
        if std::fs::symlink_metadata(&own).is_err() {
            if let Some(l) = worktree::linked(&root) {
                let dir = l.main_root.join(STORE_DIR);
                let local = dir.join("worktrees").join(&l.name);
                return Store { root, dir, local };
            }
        }
        Store {
            root,
            local: own.clone(),
            dir: own,
        }
    }

    /// The folder that holds the store folder: the project root, or for a linked worktree
    /// using the main checkout's store, the main checkout's root.
    pub(crate) fn home(&self) -> &Path {
        self.dir.parent().unwrap_or(&self.root)
    }

    /// True when this checkout uses another checkout's store (a linked git worktree).
    pub(crate) fn is_borrowed(&self) -> bool {
        self.local != self.dir
    }

    /// The store folder as messages name it: `.capn/`, or the main checkout's path for a
    /// linked worktree (`/src/app/.capn/ (the main checkout's: one memory for every worktree)`).
    pub(crate) fn describe(&self) -> String {
        if self.is_borrowed() {
            format!(
                "{}/ (the main checkout's, shared by every worktree of this repository)",
                self.dir.display()
            )
        } else {
            format!("{STORE_DIR}/")
        }
    }

    /// `.capn/config.json` as messages name it: that relative path, or, for a linked worktree
    /// using the main checkout's store, the main checkout's file by its full path (printable).
    pub(crate) fn config_name(&self) -> String {
        if self.is_borrowed() {
            crate::present::printable(&self.config_path().display().to_string())
        } else {
            format!("{STORE_DIR}/config.json")
        }
    }

    /// The store for the current process: `discover(current_dir)`.
    ///
    /// Errors: the working directory cannot be read.
    pub(crate) fn from_env() -> anyhow::Result<Store> {
        let cwd = std::env::current_dir()
            .map_err(|e| anyhow::anyhow!("could not read the working directory: {e}"))?;
        Ok(Store::discover(&cwd))
    }

    /// `.capn/entries`.
    pub(crate) fn entries_dir(&self) -> PathBuf {
        self.dir.join("entries")
    }

    /// `.capn/entries/<id>.md`.
    pub(crate) fn entry_path(&self, id: &str) -> PathBuf {
        self.entries_dir().join(format!("{id}.md"))
    }

    /// `.capn/map.json`.
    pub(crate) fn map_path(&self) -> PathBuf {
        self.dir.join("map.json")
    }

    /// True when the store is shared through git, as capn can tell without running git:
    /// `"shared": true` in `.capn/config.json`; or a config file capn cannot read as saying
    /// `"shared"` ([`crate::config::Config::shared_unknown`]: a merge conflict in it, `"true"`);
    /// or a `.capn/.gitignore` that lets git track the charts (a `!` line naming `entries`, as
    /// `capn init --shared` writes). A shared store's charts are never deleted by capn on its
    /// own. Reads two small files.
    pub(crate) fn is_shared(&self) -> bool {
        let config = self.config();
        config.shared || config.shared_unknown || self.ignore_shares()
    }

    /// True when `.capn/.gitignore` takes the charts back from git's ignore rules (a `!` line
    /// that names `entries`): the store is shared, whatever its config says.
    pub(crate) fn ignore_shares(&self) -> bool {
        self.store_ignore().is_some_and(|b| shares_entries(&b))
    }

    /// `.capn/.gitignore`'s bytes (at most 64 KiB, never through a symlink); `None` when it
    /// cannot be read.
    fn store_ignore(&self) -> Option<Vec<u8>> {
        use crate::fsutil::{read_limited, Follow};
        read_limited(&self.dir.join(".gitignore"), 64 * 1024, Follow::Never).ok()
    }

    /// Whether git sees the charts, for what messages say about them: first as
    /// `.capn/.gitignore` says (a `!` line naming `entries`: shared; a `*` line without one:
    /// local, whatever the config says), then, without such a file, as the config says. `None`
    /// when neither tells (no store `.gitignore` and a config capn cannot read). Unlike
    /// [`Store::is_shared`], an unreadable config does not count as shared here: that caution is
    /// for deleting charts, not for describing them.
    pub(crate) fn shared_in_git(&self) -> Option<bool> {
        if let Some(ignore) = self.store_ignore() {
            if shares_entries(&ignore) {
                return Some(true);
            }
            if ignore
                .split(|c| *c == b'\n')
                .any(|l| l.trim_ascii() == b"*")
            {
                return Some(false);
            }
        }
        let config = self.config();
        (config.shared || !config.shared_unknown).then_some(config.shared)
    }

    /// `.capn/config.json`.
    pub(crate) fn config_path(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    /// `.capn/index.bin` (derived search index).
    pub(crate) fn index_path(&self) -> PathBuf {
        self.dir.join("index.bin")
    }

    /// `.capn/delta.bin` (derived: the changes since `index.bin` and `vectors.bin` were written).
    pub(crate) fn delta_path(&self) -> PathBuf {
        self.dir.join("delta.bin")
    }

    /// `.capn/vectors.bin` (derived: the entries' embedding vectors, with semantic recall on).
    pub(crate) fn vectors_path(&self) -> PathBuf {
        self.dir.join("vectors.bin")
    }

    /// `.capn/texts.bin`: every entry's text, which capn 0.3 kept for rebuilding the index;
    /// writers now delete it (the index is updated in place).
    pub(crate) fn texts_path(&self) -> PathBuf {
        self.dir.join("texts.bin")
    }

    /// `.capn/stat.bin` (derived file-stat cache of this checkout).
    pub(crate) fn stat_cache_path(&self) -> PathBuf {
        self.local.join("stat.bin")
    }

    /// `.capn/stale.json` (derived, this checkout's: when each chart was first found stale,
    /// for the retention rule, [`retention`]).
    pub(crate) fn stale_since_path(&self) -> PathBuf {
        self.local.join("stale.json")
    }

    /// `.capn/learned.json` (the phrasings learned from use, [`learned`]).
    pub(crate) fn learned_path(&self) -> PathBuf {
        self.dir.join(learned::FILE)
    }

    /// `.capn/lock`.
    pub(crate) fn lock_path(&self) -> PathBuf {
        self.dir.join("lock")
    }

    /// True when `.capn/` exists.
    pub(crate) fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    /// True when `.capn/` exists and capn may use it ([`Store::check_dirs`]): for the hooks, a
    /// store every command refuses (a symlinked `.capn/`) is no store.
    pub(crate) fn usable(&self) -> bool {
        self.exists() && self.check_dirs().is_ok()
    }

    /// True when this store is outside any project: no `.capn/` at or above the working
    /// directory, and its root is not a git repository.
    pub(crate) fn is_outside_project(&self) -> bool {
        !self.exists() && !self.root.join(".git").exists()
    }

    /// Checks that `.capn/` and `.capn/entries/` are real folders (or absent): capn never reads
    /// or writes its store through a symlink, which could lead anywhere.
    ///
    /// Errors: `refusing to use <path>: it is a symlink ...`, naming the folder.
    pub(crate) fn check_dirs(&self) -> Result<()> {
        for dir in [self.dir.clone(), self.entries_dir()] {
            let Ok(meta) = std::fs::symlink_metadata(&dir) else {
                continue;
            };
            if meta.file_type().is_symlink() {
                anyhow::bail!(
                    "refusing to use {}: it is a symlink (capn never reads or writes its store through a symlink); replace it with a folder",
                    display_rel(&self.root, &dir)
                );
            }
            if !meta.is_dir() {
                anyhow::bail!(
                    "refusing to use {}: it is not a folder",
                    display_rel(&self.root, &dir)
                );
            }
        }
        Ok(())
    }

    /// Reads `.capn/config.json` (defaults when missing or broken; what was ignored is reported
    /// on stderr).
    pub(crate) fn config(&self) -> crate::config::Config {
        static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let (config, problems) = match self.check_dirs() {
            Ok(()) => crate::config::Config::load_checked(&self.config_path()),
            Err(e) => (crate::config::Config::default(), vec![format!("{e:#}")]),
        };
        if WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            return config;
        }
        for p in problems {
            diag!("capn: warning: ignoring a setting in .capn/config.json: {p}; using the default");
        }
        config
    }
}

/// The project root for `cwd` (format.md, "Project root"): the first ancestor (or `cwd` itself)
/// that contains `.capn/`, or that is a linked git worktree (so a worktree inside the main
/// checkout, such as `.claude/worktrees/<name>`, is a checkout of its own, [`worktree`]); else
/// the git top level (the first ancestor containing `.git`); else `cwd`.
pub(crate) fn find_root(cwd: &Path) -> PathBuf {
    for dir in cwd.ancestors() {
        if is_own_store(&dir.join(STORE_DIR)) {
            return dir.to_path_buf();
        }
        let dot_git = dir.join(".git");
        if std::fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_file())
            && worktree::linked(dir).is_some()
        {
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

/// Whether `dir` is a `.capn/` that marks a project root: a folder (a symlink to one counts here,
/// and is refused with a clear message when used) owned by the user running capn. A `.capn/`
/// another user owns, such as one planted in a shared `/tmp`, is passed over (noted on stderr),
/// as git passes over a repository it does not consider safe.
fn is_own_store(dir: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(dir) else {
        return false;
    };
    if !meta.is_dir() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            diag!(
                "capn: ignoring {}: it belongs to another user (uid {}), so it does not mark your project",
                dir.display(),
                meta.uid()
            );
            return false;
        }
    }
    #[cfg(not(unix))]
    if !owner::adoptable(dir) {
        return false;
    }
    true
}

/// The project root for hook subcommands: `CLAUDE_PROJECT_DIR` when set and a directory (the
/// session root, which stays put while the hook's `cwd` follows the agent; Claude Code's
/// hooks docs), else [`find_root`] of `cwd`.
pub(crate) fn hook_root(cwd: &Path) -> PathBuf {
    if let Some(dir) = crate::env::get_os(crate::env::CLAUDE_PROJECT_DIR) {
        let p = PathBuf::from(dir);
        if p.is_dir() {
            return find_root(&p);
        }
    }
    find_root(cwd)
}

/// Prints `capn: warning: <error chain>` on stderr (write errors ignored).
pub(crate) fn warn(e: &anyhow::Error) {
    diag!("capn: warning: {e:#}");
}

/// The most malformed entries reported one by one; the rest are counted in one line.
pub(crate) const MAX_MALFORMED_REPORTS: usize = 20;

/// Reports malformed entry files on stderr, one line each, naming the file: at most
/// [`MAX_MALFORMED_REPORTS`] lines and a count of the rest. Control characters in names and
/// reasons are escaped, so a hostile file name cannot drive the terminal.
pub(crate) fn report_malformed(store: &Store, malformed: &[(String, String)]) {
    let dir = store.entries_dir();
    for (name, reason) in malformed.iter().take(MAX_MALFORMED_REPORTS) {
        diag!(
            "capn: skipped malformed entry: {}: {}",
            printable(&display_rel(&store.root, &dir.join(name))),
            printable(reason)
        );
    }
    if malformed.len() > MAX_MALFORMED_REPORTS {
        diag!(
            "capn: skipped {} more malformed entries in {} (run capn list to see them all)",
            malformed.len() - MAX_MALFORMED_REPORTS,
            printable(&display_rel(&store.root, &dir))
        );
    }
}

/// `s` with control, format, separator and other hidden characters escaped (`\u{1b}`,
/// `\u{202e}`), for messages that reach a terminal: [`crate::present::printable`], the owner.
pub(crate) fn printable(s: &str) -> String {
    crate::present::printable(s)
}

/// `path` relative to the working directory's project root for messages (`.capn/entries/x.md`),
/// `/`-separated on every system as path keys are (Windows would mix in `\`).
pub(crate) fn display_rel(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// True when a store `.gitignore` (`bytes`) lets git see the entries: a `!` line naming
/// `entries` (what `init --shared` writes).
fn shares_entries(bytes: &[u8]) -> bool {
    bytes.split(|b| *b == b'\n').any(|l| {
        let l = l.trim_ascii();
        l.starts_with(b"!") && l.windows(7).any(|w| w == b"entries")
    })
}
