//! The project store `.capn/`: where it is, what it holds, and the operations on it.
//!
//! Markdown entries under `.capn/entries/` are the only source of truth; `map.json`, the search
//! index and the stat cache are derived and rebuilt whenever missing, corrupt or out of date
//! (format.md). Writers hold [`lock::StoreLock`]; readers never wait on it.

pub mod ask;
pub mod entry;
pub mod fresh;
pub mod index;
mod listing;
pub use listing::entry_names;
pub mod lock;
pub mod map;
pub mod ops;
mod owner;
pub mod paths;
pub mod phrasing;
pub mod provenance;
pub mod retention;
pub mod worktree;

use std::path::{Path, PathBuf};

/// Name of the store folder at the project root.
pub const STORE_DIR: &str = ".capn";

/// The locations of one project's store. Creating a `Store` touches nothing on disk.
#[derive(Debug, Clone)]
pub struct Store {
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
    pub fn discover(cwd: &Path) -> Store {
        Store::at(find_root(cwd))
    }

    /// The store at a known project root: `<root>/.capn`, or, when `root` is a linked git
    /// worktree without a `.capn/` of its own, the main checkout's, with this worktree's own
    /// derived files in `<main>/.capn/worktrees/<name>/` ([`worktree`]).
    pub fn at(root: PathBuf) -> Store {
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
    pub fn home(&self) -> &Path {
        self.dir.parent().unwrap_or(&self.root)
    }

    /// True when this checkout uses another checkout's store (a linked git worktree).
    pub fn is_borrowed(&self) -> bool {
        self.local != self.dir
    }

    /// The store folder as messages name it: `.capn/`, or the main checkout's path for a
    /// linked worktree (`/src/app/.capn/ (the main checkout's: one memory for every worktree)`).
    pub fn describe(&self) -> String {
        if self.is_borrowed() {
            format!(
                "{}/ (the main checkout's, shared by every worktree of this repository)",
                self.dir.display()
            )
        } else {
            format!("{STORE_DIR}/")
        }
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

    /// `.capn/vectors.bin` (derived: the entries' embedding vectors, with semantic recall on).
    pub fn vectors_path(&self) -> PathBuf {
        self.dir.join("vectors.bin")
    }

    /// `.capn/texts.bin`: every entry's text, which capn 0.3 kept for rebuilding the index;
    /// writers now delete it (the index is updated in place).
    pub fn texts_path(&self) -> PathBuf {
        self.dir.join("texts.bin")
    }

    /// `.capn/stat.bin` (derived file-stat cache of this checkout).
    pub fn stat_cache_path(&self) -> PathBuf {
        self.local.join("stat.bin")
    }

    /// `.capn/stale.json` (derived, this checkout's: when each chart was first found stale,
    /// for the retention rule, [`retention`]).
    pub fn stale_since_path(&self) -> PathBuf {
        self.local.join("stale.json")
    }

    /// `.capn/lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.dir.join("lock")
    }

    /// True when `.capn/` exists.
    pub fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    /// True when this store is outside any project: no `.capn/` at or above the working
    /// directory, and its root is not a git repository.
    pub fn is_outside_project(&self) -> bool {
        !self.exists() && !self.root.join(".git").exists()
    }

    /// Checks that `.capn/` and `.capn/entries/` are real folders (or absent): capn never reads
    /// or writes its store through a symlink, which could lead anywhere.
    ///
    /// Errors: `refusing to use <path>: it is a symlink ...`, naming the folder.
    pub fn check_dirs(&self) -> Result<()> {
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
    pub fn config(&self) -> crate::config::Config {
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
pub fn find_root(cwd: &Path) -> PathBuf {
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
/// session root, which stays put while the hook's `cwd` follows the agent; hooks reference,
/// "Environment"), else [`find_root`] of `cwd`.
pub fn hook_root(cwd: &Path) -> PathBuf {
    if let Some(dir) = crate::env::get_os(crate::env::CLAUDE_PROJECT_DIR) {
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
    /// entries, listing and stat'ing every entry file ([`index::Check::Files`]), so entries edited
    /// in place are re-indexed (`prune`, `unchart`, `bust`).
    ///
    /// Errors: the store cannot be created, locked or listed.
    pub fn open_writer(&self) -> Result<Writer> {
        self.open_writer_with(index::Check::Files)
    }

    /// [`Store::open_writer`] with the index checked as `check` says: `chart` trusts the entries
    /// folder's stamp on a large store ([`index::Check::Folder`]), so its cost does not grow with
    /// the store; the listing it then records is the one `index.bin` held, updated for the
    /// entry it writes.
    ///
    /// Errors: the store cannot be created, locked or listed.
    pub fn open_writer_with(&self, check: index::Check) -> Result<Writer> {
        self.check_dirs()?;
        crate::fsutil::ensure_dir_inside(self.home(), &self.entries_dir())?;
        let lock = StoreLock::acquire(&self.lock_path())?;
        self.writer_from(lock, check)
    }

    /// The writers' lock alone, for commands that write capn's own files in `.capn/` other than
    /// the entries and the derived files (`init`: `config.json`, `install.json`; `uninstall`).
    /// `None` when there is no `.capn/` yet (nothing to guard).
    ///
    /// Errors: the lock file cannot be created or locked.
    pub fn lock_for_setup(&self) -> Result<Option<StoreLock>> {
        if !self.dir.is_dir() {
            return Ok(None);
        }
        StoreLock::acquire(&self.lock_path()).map(Some)
    }

    /// Like [`Store::open_writer`], but only if the lock is free now and the store exists, and
    /// with the index trusted by the entries folder's stamp ([`index::Check::Folder`]): for
    /// readers that may delete what they find stale on the way (`ask`). Changing entries lists
    /// the folder first ([`Writer::ensure_listed`]).
    pub fn try_open_writer(&self) -> Option<Writer> {
        if !self.exists() || self.check_dirs().is_err() {
            return None;
        }
        let lock = StoreLock::try_acquire(&self.lock_path())?;
        self.writer_from(lock, index::Check::Folder).ok()
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

/// Prints `capn: warning: <error chain>` on stderr (write errors ignored).
pub fn warn(e: &anyhow::Error) {
    diag!("capn: warning: {e:#}");
}

/// The most malformed entries reported one by one; the rest are counted in one line.
pub const MAX_MALFORMED_REPORTS: usize = 20;

/// Reports malformed entry files on stderr, one line each, naming the file: at most
/// [`MAX_MALFORMED_REPORTS`] lines and a count of the rest. Control characters in names and
/// reasons are escaped, so a hostile file name cannot drive the terminal.
pub fn report_malformed(store: &Store, malformed: &[(String, String)]) {
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
pub fn printable(s: &str) -> String {
    crate::present::printable(s)
}

/// `path` relative to the working directory's project root for messages (`.capn/entries/x.md`),
/// `/`-separated on every system as path keys are (Windows would mix in `\`).
pub fn display_rel(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// Positions of entries that must not answer: a backing file changed, vanished or was replaced
/// (stale: hidden and kept; `prune` deletes these), or could not be checked (hidden and kept; a
/// note on stderr names the file once per process). Each distinct path is checked once.
pub fn stale_positions(root: &Path, snap: &Snapshot, cache: &mut StatCache) -> Vec<usize> {
    let keys: Vec<&str> = snap.paths.iter().map(String::as_str).collect();
    let states = cache.states(root, &keys);
    for (k, st) in keys.iter().zip(&states) {
        if let fresh::FileState::Unchecked(kind) = st {
            note_unchecked(k, *kind);
        }
    }
    // Judged once per (path, recorded hash): most paths are recorded with one hash.
    let mut judged: std::collections::HashMap<(u32, [u8; 32]), bool> = Default::default();
    (0..snap.len())
        .filter(|&i| {
            !snap.refs.of(i).all(|(p, h)| {
                *judged.entry((p, *h)).or_insert_with(|| {
                    let state = states[p as usize];
                    cache.judge(root, keys[p as usize], state, Some(h)) == fresh::Judged::Fresh
                })
            })
        })
        .collect()
}

/// Says once per process and file that `key` could not be checked, so its charts are hidden.
pub(super) fn note_unchecked(key: &str, kind: std::io::ErrorKind) {
    static NOTED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut noted) = NOTED.lock() else { return };
    if noted.iter().any(|k| k == key) {
        return;
    }
    noted.push(key.to_string());
    let why = match kind {
        std::io::ErrorKind::FileTooLarge => {
            format!("over the {} MiB limit", fresh::MAX_BACKING_BYTES >> 20)
        }
        k => std::io::Error::from(k).to_string(),
    };
    diag!("capn: note: could not check {key} ({why}): charts backed by it are hidden, not deleted");
}

/// True when a backing file of `e` has definitely changed since it was charted (gone, replaced,
/// or hashing differently). A file that cannot be checked does not make an entry stale.
pub fn entry_is_stale(root: &Path, e: &Entry, cache: &mut StatCache) -> bool {
    e.files.iter().any(|(p, h)| cache.is_changed(root, p, h))
}

/// True when every backing file of `e` hashes as charted right now (line ends aside); false
/// when one changed or could not be checked.
pub fn entry_is_fresh(root: &Path, e: &Entry, cache: &mut StatCache) -> bool {
    e.files.iter().all(|(p, h)| cache.is_current(root, p, h))
}

/// The backing files of `e` that have definitely changed ([`StatCache::is_changed`]), in the
/// entry's order.
pub fn changed_files<'e>(root: &Path, e: &'e Entry, cache: &mut StatCache) -> Vec<&'e String> {
    e.files
        .iter()
        .filter(|(p, h)| cache.is_changed(root, p, h))
        .map(|(p, _)| p)
        .collect()
}

impl Writer {
    /// Deletes the entries at `positions` that are confirmed by `confirm` after re-reading their
    /// file (so an entry rewritten in place since the index was built is judged by what it says
    /// now), then rebuilds the derived state. Returns the deleted entries as they were read just
    /// before deletion (so a caller can say which charts went and why).
    ///
    /// Errors: an entry file cannot be removed or the folder cannot be listed.
    pub fn delete_positions_listed(
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
    pub fn delete_positions(&mut self, positions: &[usize]) -> Result<usize> {
        self.delete_positions_listed(positions, &mut |_, _| true)
            .map(|removed| removed.len())
    }

    /// Deletes the entries at `positions` whose files are stale when re-checked from the entry
    /// file itself (prune, ask; an entry whose files could not be checked is kept) and returns
    /// them (ask names them on a miss).
    ///
    /// Errors: as [`Writer::delete_positions_listed`].
    pub fn delete_stale_listed(&mut self, positions: &[usize]) -> Result<Vec<Entry>> {
        let root = self.store.root.clone();
        self.delete_positions_listed(positions, &mut |e, cache| entry_is_stale(&root, e, cache))
    }

    /// [`Writer::delete_stale_listed`], except that an entry current in another checkout of
    /// the repository ([`worktree::other_checkouts`]: the main checkout and every linked
    /// worktree) is kept: it is stale only here, and every checkout shares one memory. The
    /// other checkouts' files are hashed without a stat cache (their stamps are theirs).
    ///
    /// Errors: as [`Writer::delete_stale_listed`].
    pub fn delete_stale_in_every_checkout(&mut self, positions: &[usize]) -> Result<Vec<Entry>> {
        let root = self.store.root.clone();
        let others = worktree::other_checkouts(self.store.home(), &root);
        let fresh_elsewhere = |e: &Entry| {
            others
                .iter()
                .any(|o| entry_is_fresh(o, e, &mut StatCache::default()))
        };
        self.delete_positions_listed(positions, &mut |e, cache| {
            entry_is_stale(&root, e, cache) && !fresh_elsewhere(e)
        })
    }

    /// Makes sure every entry file was listed when the snapshot was loaded (a writer opened by
    /// [`Store::try_open_writer`] trusted the folder stamp): writers need the listing to record
    /// what they change. Call it before deciding what to change, since it may reload.
    ///
    /// Errors: the entries folder cannot be listed.
    pub fn ensure_listed(&mut self) -> Result<()> {
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
    pub fn finish_or_warn(self) {
        if let Err(e) = self.finish() {
            warn(&e);
        }
    }

    /// Writes every derived file that is out of date: the index, the texts, map.json and the stat
    /// cache (pruned to paths that entries still reference).
    ///
    /// Errors: a derived file cannot be written.
    pub fn finish(mut self) -> Result<()> {
        // Temp files of writers killed mid-write (older than any write in progress).
        let max_age = std::time::Duration::from_secs(600);
        crate::fsutil::remove_stale_temp_files(&self.store.dir, max_age);
        // capn 0.3 kept every entry's text in texts.bin for rebuilding; the index is now
        // updated in place, so a file left by that version is only stale.
        let _ = crate::fsutil::remove_if_exists(&self.store.texts_path());
        if self.snap.saw_temp_files {
            crate::fsutil::remove_stale_temp_files(&self.store.entries_dir(), max_age);
        }
        if self.snap.content_changed || !self.store.map_path().exists() {
            map::save(&self.store.map_path(), &self.snap)?;
        }
        index::save(&self.store, &mut self.snap)?;
        // Pruning the cache to live paths needs a set of every path: only worth building when
        // the cache is written anyway or the entries changed.
        if self.cache.is_dirty() || self.snap.content_changed {
            let live: std::collections::HashSet<&str> =
                self.snap.paths.iter().map(String::as_str).collect();
            self.cache.save(
                &self.store.stat_cache_path(),
                Some(&|k: &str| live.contains(k)),
            )?;
        }
        Ok(())
    }
}
