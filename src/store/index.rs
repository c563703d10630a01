//! The derived files that make `ask` fast: `.capn/index.bin` (what a search and a staleness check
//! need) and `.capn/vectors.bin` (the entries' embeddings, tied to it by a tag).
//!
//! `index.bin` (postcard): a header (layout version, recall version, embedding model id, build
//! time), the entries folder's stamp, the number and total size of the entry files, their listing
//! (name, inode, size, mtime, ctime; one byte string, decoded only by a loader that compares it
//! with the folder), the entry files that did not parse with their reasons, the entry ids
//! (sorted), a table of backing paths, each entry's backing files as (path number, SHA-256
//! bytes), text signatures and the BM25 index. Entry text is not in it: `ask` reads the few
//! entry files it prints, which also checks that they still say what the index says.
//!
//! Both files are disposable: a missing, corrupt or other-version file, or one that does not
//! describe the entry files there are ([`Check`]), makes [`load`] re-read the entries and rebuild.
//! Deleting them is always safe. Writers change the snapshot in place ([`Snapshot::apply`]).
//! Entries written through capn are replaced by rename, so their inode changes; an entry edited
//! in place keeps its inode and is caught when it is read for printing or before deletion.

use super::entry::Entry;
use super::listing::{self, folder_stamp, list_entry_files, FolderStamp, Listed, RACY_RESAVE_MIN};
use super::Store;
use crate::embed::Model;
use crate::fsutil::{write_atomic_with, Durability};
use crate::recall::blob::{Blob, SharedBlob};
use crate::recall::semantic::{self, Vectors};
use crate::recall::{Bm25Index, Doc};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

mod apply;
mod delta;
mod loading;
mod refs;

pub(crate) use loading::{load, load_within};
pub(crate) use refs::Refs;

/// Layout version of `index.bin`.
const INDEX_VERSION: u32 = 9;

/// The most [`Check::Folder`] reads of `index.bin` or `vectors.bin` before it falls back to
/// listing the entry files (whose sizes then bound the read, [`crate::fsutil::limits::derived`]):
/// 64 MiB, a store of about 100,000 entries.
const TRUSTED_READ_MAX: u64 = 64 * 1024 * 1024;

/// Below this many entry files [`Check::Folder`] lists and stats them anyway: that costs well
/// under a millisecond there, and it notices an entry edited in place at once.
pub(crate) const FOLDER_TRUST_MIN_FILES: u64 = 500;

/// How [`load`] makes sure `index.bin` describes the entry files there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// For readers (`ask`, the hooks) and `chart`: on a store of [`FOLDER_TRUST_MIN_FILES`]
    /// entry files or more, trust the index while the entries folder has the stamp (inode,
    /// mtime, ctime) it was built with: one stat, whatever the store's size (a stat per entry
    /// file is most of the cost of a search at 10,000 entries). An entry edited in place without
    /// a rename does not change that stamp: it is caught when it is read for printing
    /// ([`Snapshot::agrees_with`]; the index is then rebuilt) and re-indexed by the next
    /// [`Check::Files`] writer (`prune`, `unchart`, `bust`). Smaller stores are checked as
    /// [`Check::Files`].
    Folder,
    /// For `prune`, `unchart` and `bust`: list the entries folder and stat every entry file
    /// (name, inode, size, mtime, ctime), so an entry edited in place is noticed and re-indexed.
    Files,
}

#[derive(Debug, Deserialize)]
struct IndexFile {
    version: u32,
    recall_version: u32,
    model_id: String,
    /// Names this file: a `delta.bin` applies only to the `index.bin` of its tag.
    tag: u64,
    built_at_ns: i64,
    folder: Option<FolderStamp>,
    listed: (u64, u64),
    listing: SharedBlob,
    malformed: Vec<(String, String)>,
    ids: Vec<String>,
    paths: Vec<String>,
    refs: Refs,
    sigs: Vec<u64>,
    bm25: Bm25Index,
    vectors: Option<VectorsMeta>,
}

/// What `index.bin` says about `vectors.bin`: the shape and the tag it must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct VectorsMeta {
    dim: u32,
    count: u64,
    tag: u64,
}

/// [`IndexFile`] by reference, for writing without cloning (same encoding).
#[derive(Serialize)]
struct IndexFileRef<'a> {
    version: u32,
    recall_version: u32,
    model_id: String,
    /// Names this file: a `delta.bin` applies only to the `index.bin` of its tag.
    tag: u64,
    built_at_ns: i64,
    folder: Option<FolderStamp>,
    listed: (u64, u64),
    listing: Blob,
    malformed: &'a [(String, String)],
    ids: &'a [String],
    paths: &'a [String],
    refs: &'a Refs,
    sigs: &'a [u64],
    bm25: &'a Bm25Index,
    vectors: Option<VectorsMeta>,
}

/// The store's entries as the search sees them, loaded by [`load`].
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// Entry ids, sorted. Position = BM25 doc number.
    pub ids: Vec<String>,
    /// Backing paths (keys relative to the project root), sorted.
    pub paths: Vec<String>,
    /// Per entry: (position in `paths`, recorded SHA-256) of each backing file.
    pub refs: Refs,
    /// Per entry: a 64-bit signature of its question and details (see [`text_sig`]).
    pub sigs: Vec<u64>,
    /// The BM25 index over the entries.
    pub bm25: Bm25Index,
    /// One vector per entry when semantic recall is on (`None`: BM25 only).
    pub vectors: Option<Vectors>,
    /// The tag tying `vectors.bin` to this index (changes whenever the vectors do).
    vectors_tag: u64,
    /// True when `vectors.bin` must be written.
    vectors_dirty: bool,
    /// The embedding model, when semantic recall is on.
    pub model: Option<&'static Model>,
    /// Entry files that did not parse: (file name, reason).
    pub malformed: Vec<(String, String)>,
    /// Every entry file, when loaded with [`Check::Files`] or decoded since (writers need it);
    /// `None` when the folder stamp vouched for the index and it was not needed yet.
    listing: Option<Vec<Listed>>,
    /// The listing as `index.bin` stored it, not decoded yet (with `listing` `None`).
    listing_bytes: bytes::Bytes,
    /// True when a writer took `listing_bytes` with the log's listing changes as the listing
    /// ([`Snapshot::is_listed`]): it is decoded whole only when the index is written whole.
    listing_encoded: bool,
    /// The changes since the `index.bin` it was loaded from (`None`: rebuilt, not loaded),
    /// which a writer saves as `delta.bin` while they are few ([`Snapshot::saves_as_delta`]).
    log: Option<delta::Log>,
    /// The entries folder's stamp this snapshot describes (`None`: unknown, not to be trusted).
    folder: Option<FolderStamp>,
    /// The number of entry files and their total bytes ([`Snapshot::derived_limit`]).
    listed: (u64, u64),
    built_at_ns: i64,
    index_dirty: bool,
    /// True when the next save writes the full files even if the changes would fit a delta
    /// ([`Snapshot::fold_delta`]).
    fold: bool,
    /// True when the entries differ from what the derived files held (map.json may be stale).
    pub content_changed: bool,
    /// True when the entries folder holds temp files of an interrupted write.
    pub saw_temp_files: bool,
}

/// Reads and parses one entry file; the id is the file name without `.md`. The file is read
/// under fsutil's rules: no symlink followed, a regular file, at most
/// [`crate::fsutil::limits::ENTRY`] bytes.
///
/// Errors: a one-line reason (not a valid id name, a symlink, not a regular file, too large,
/// unreadable, not UTF-8, or a parse error).
pub(crate) fn read_entry(path: &Path, name: &str) -> Result<Entry, String> {
    let stem = name.strip_suffix(".md").unwrap_or(name);
    if !super::entry::is_valid_id(stem) {
        return Err("file name is not an entry id (8-64 lowercase hex digits)".into());
    }
    let bytes = crate::fsutil::read_limited(
        path,
        crate::fsutil::limits::ENTRY,
        crate::fsutil::Follow::Never,
    )
    .map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_string())?;
    if super::conflict::sides(&text).is_some() {
        // Never served, not even its body as details (store::conflict).
        return Err(super::conflict::reason(&text, stem));
    }
    let mut e = Entry::parse(&text, stem)?;
    if e.id != stem {
        return Err(format!(
            "its id line says {} but the file is named {stem}.md",
            e.id
        ));
    }
    e.id = stem.to_string();
    Ok(e)
}

/// The embedding model to use: the embedded one when `.capn/config.json` has embedding on (the
/// default) and this build carries a model; `None` means BM25 only.
pub(crate) fn semantic_model(store: &Store) -> Option<&'static Model> {
    if store.config().embedding {
        crate::embed::model()
    } else {
        None
    }
}

/// The model id the index must have been built with (empty for BM25 only), so switching the
/// mode or the model rebuilds it.
fn model_id(model: Option<&Model>) -> String {
    model.map_or_else(String::new, |m| m.id().to_string())
}

/// Reads a derived file: no symlink followed, a regular file, at most `limit` bytes. `None`
/// for anything else (the file is then rebuilt, which replaces whatever was there).
fn read_derived(path: &Path, limit: u64) -> Option<Vec<u8>> {
    crate::fsutil::read_limited(path, limit, crate::fsutil::Follow::Never).ok()
}

/// [`crate::fsutil::limits::derived`] for a store of `listed` = (entry files, their bytes).
fn limit_for(listed: (u64, u64)) -> u64 {
    crate::fsutil::limits::derived(listed.1, listed.0)
}

/// `vectors.bin` as `index.bin` describes it, with its tag.
type LoadedVectors = Option<(Vectors, u64)>;

/// `index.bin` (and, with semantic recall on, the `vectors.bin` it names), read with at most
/// `limit` bytes each, when both are of this version, model and shape, with the `delta.bin` of
/// changes since spliced in when there is a valid one ([`delta`]); with the size in bytes of
/// the larger of the two files.
fn read_index(store: &Store, limit: u64, model: Option<&'static Model>) -> Option<(Snapshot, u64)> {
    let bytes = bytes::Bytes::from(read_derived(&store.index_path(), limit)?);
    let mut size = bytes.len() as u64;
    let idx: IndexFile = crate::recall::blob::decode_shared(&bytes)?;
    let n = idx.ids.len();
    let vectors_ok = match (model, &idx.vectors) {
        (None, None) => true,
        (Some(m), Some(v)) => v.dim as usize == m.dim() && v.count as usize == n,
        _ => false,
    };
    let valid = idx.version == INDEX_VERSION
        && idx.recall_version == crate::recall::VERSION
        && idx.model_id == model_id(model)
        && vectors_ok
        && idx.refs.len() == n
        && idx.sigs.len() == n
        && idx.bm25.len() == n
        && idx.refs.paths_below(idx.paths.len());
    if !valid {
        return None;
    }
    // With semantic recall on, the vectors file must be the one this index names.
    let vectors = match (model, idx.vectors) {
        (Some(m), Some(meta)) => {
            let path = store.vectors_path();
            let v = Vectors::open(&path, limit, m.dim(), meta.count as usize, meta.tag)?;
            size = size.max(v.file_len());
            Some((v, meta.tag))
        }
        _ => None,
    };
    let tag = idx.tag;
    let mut snap = Snapshot::from_index(idx, vectors, model);
    if let Some(d) = delta::read(store, tag, model) {
        snap.apply_delta(d)?;
    }
    Some((snap, size))
}

/// A 64-bit signature of an entry's phrasings and details (FNV-1a over [`Entry::asked`] and
/// the details, separated by a NUL), stored in the index so a printed hit can be checked against its entry file and a
/// vector reused for an unchanged entry. Not a cryptographic hash: it only has to notice edits,
/// and it is computed for every entry whenever a writer rebuilds the index.
pub(crate) fn text_sig(e: &Entry) -> u64 {
    let h = crate::fnv::extend(crate::fnv::OFFSET, e.asked().as_bytes());
    let h = crate::fnv::extend(h, &[0u8]);
    crate::fnv::extend(h, e.details.as_bytes())
}

/// Builds the BM25 index over entries (doc number = position).
pub(crate) fn build_bm25(entries: &[Entry]) -> Bm25Index {
    let files: Vec<Vec<String>> = entries
        .iter()
        .map(|e| e.files.keys().cloned().collect())
        .collect();
    let asked: Vec<_> = entries.iter().map(Entry::asked).collect();
    let docs: Vec<Doc<'_>> = entries
        .iter()
        .zip(&files)
        .zip(&asked)
        .map(|((e, f), asked)| Doc {
            question: asked,
            details: &e.details,
            files: f,
        })
        .collect();
    Bm25Index::build(&docs)
}

impl Snapshot {
    /// The second strategy of [`load_within`]: the index agrees with the entry files listed
    /// now (`racy` of them written within its racy window, and re-read). Takes the listing and
    /// marks the index for re-saving when that spares later calls work.
    fn unchanged(
        &mut self,
        listing: Vec<Listed>,
        folder: Option<FolderStamp>,
        racy: usize,
        start_ns: i64,
    ) {
        if racy > RACY_RESAVE_MIN {
            // Verified now: a writer re-saves the index with this time, so these files are
            // not re-read on every call. For a few (the entry just charted) that re-read is
            // cheaper than rewriting the whole index.
            self.built_at_ns = start_ns;
            self.index_dirty = true;
        }
        if self.folder != folder {
            // The listing agrees but the folder's stamp is not the recorded one (a temp
            // file came and went, or a writer could not vouch for it): a writer records the
            // stamp seen before this listing, so readers trust it again.
            self.folder = folder;
            self.index_dirty = true;
        }
        self.listing = Some(listing);
    }

    /// The snapshot `index.bin` (and its vectors) describe; no listing (see [`load`]).
    fn from_index(idx: IndexFile, vectors: LoadedVectors, model: Option<&'static Model>) -> Self {
        let log = Some(delta::Log::new(idx.tag));
        let (vectors, vectors_tag) = match vectors {
            Some((v, tag)) => (Some(v), tag),
            None => (None, 0),
        };
        Snapshot {
            ids: idx.ids,
            paths: idx.paths,
            refs: idx.refs,
            sigs: idx.sigs,
            bm25: idx.bm25,
            vectors,
            vectors_tag,
            vectors_dirty: false,
            model,
            malformed: idx.malformed,
            listing: None,
            listing_bytes: idx.listing.0,
            listing_encoded: false,
            log,
            folder: idx.folder,
            listed: idx.listed,
            built_at_ns: idx.built_at_ns,
            index_dirty: false,
            fold: false,
            content_changed: false,
            saw_temp_files: false,
        }
    }

    /// Re-reads every listed entry file and rebuilds everything from them; `folder` is the
    /// folder's stamp taken before it was listed.
    fn rebuild(
        store: &Store,
        listing: Vec<Listed>,
        folder: Option<FolderStamp>,
        start_ns: i64,
    ) -> Result<Snapshot> {
        let dir = store.entries_dir();
        let mut entries = Vec::with_capacity(listing.len());
        let mut malformed = Vec::new();
        let mut listing = listing;
        let mut gone = Vec::new();
        for l in &listing {
            if super::budget::exceeded() {
                // A hook's budget is spent: `load_within` gives up on this build.
                break;
            }
            let path = dir.join(&l.name);
            match read_entry(&path, &l.name) {
                Ok(e) => entries.push(e),
                // Deleted by a writer since the folder was listed: not malformed, just gone.
                Err(_) if std::fs::symlink_metadata(&path).is_err() => gone.push(l.name.clone()),
                Err(reason) => malformed.push((l.name.clone(), reason)),
            }
        }
        listing.retain(|l| !gone.contains(&l.name));
        let mut snap = Snapshot {
            ids: Vec::new(),
            paths: Vec::new(),
            refs: Refs::default(),
            sigs: Vec::new(),
            bm25: Bm25Index::default(),
            vectors: None,
            vectors_tag: 0,
            vectors_dirty: false,
            model: semantic_model(store),
            malformed,
            listed: listing::totals(&listing),
            listing: Some(listing),
            listing_bytes: bytes::Bytes::new(),
            listing_encoded: false,
            log: None,
            folder,
            built_at_ns: start_ns,
            index_dirty: true,
            fold: false,
            content_changed: true,
            saw_temp_files: false,
        };
        snap.set_entries(entries);
        Ok(snap)
    }

    /// A snapshot rebuilt from the entry files (for when an entry turned out to differ from the
    /// index, e.g. one edited in place): the caller replaces the one it had; a snapshot never
    /// replaces itself.
    ///
    /// Errors: the entries folder cannot be listed.
    pub(crate) fn reloaded(store: &Store) -> Result<Snapshot> {
        let start_ns = super::fresh::now_ns();
        let dir = store.entries_dir();
        let folder = folder_stamp(&dir);
        let (listing, saw_temp_files) = list_entry_files(&dir)?;
        let mut snap = Snapshot::rebuild(store, listing, folder, start_ns)?;
        snap.saw_temp_files = saw_temp_files;
        Ok(snap)
    }

    /// True when the snapshot holds the listing of every entry file, which a writer needs
    /// before it changes entries: listed when loaded ([`Check::Files`]), or what `index.bin`
    /// recorded with the changes since (the folder stamp vouched for it), kept encoded: a
    /// writer looks up only the files it changed ([`Snapshot::stamps_before`]) and decodes the
    /// whole listing only to write the index whole ([`save`], which checks it then). False
    /// only for a snapshot rebuilt without a listing (never: a rebuild lists the folder).
    pub(crate) fn is_listed(&mut self) -> bool {
        if self.listing.is_none() && self.log.is_some() && !self.listing_bytes.is_empty() {
            self.listing_encoded = true;
        }
        self.listing.is_some() || self.listing_encoded
    }

    /// The stamps the entry files `names` (sorted, no name twice) had in the listing before a
    /// writer's change (`None`: not listed). `None` when the encoded listing does not decode.
    fn stamps_before(&self, names: &[&str]) -> Option<Vec<Option<Listed>>> {
        if let Some(listing) = &self.listing {
            let at = |n: &&str| listing.binary_search_by(|l| l.name.as_str().cmp(n)).ok();
            return Some(
                names
                    .iter()
                    .map(|n| at(n).map(|i| listing[i].clone()))
                    .collect(),
            );
        }
        let log = self.log.as_ref()?;
        let mut out = listing::stamps_in(&self.listing_bytes, names)?;
        for (n, stamp) in names.iter().zip(&mut out) {
            if let Some(l) = log.listing.get(*n) {
                stamp.clone_from(l);
            }
        }
        Some(out)
    }

    /// The listing `index.bin` recorded, with the changes of `delta.bin` since; `None` when it
    /// does not decode.
    fn decoded_listing(&self) -> Option<Vec<Listed>> {
        let base = listing::decode(&self.listing_bytes)?;
        Some(match &self.log {
            Some(log) => log.patched(base),
            None => base,
        })
    }

    /// Before a writer adds, replaces or removes entry files: true when the entries folder still
    /// has the stamp this snapshot describes (nothing else changed it since it was listed).
    pub(crate) fn folder_is_current(&self, store: &Store) -> bool {
        self.folder.is_some() && folder_stamp(&store.entries_dir()) == self.folder
    }

    /// After a writer changed entry files: the stamp `index.bin` will record is the folder's
    /// stamp now when `was_current` ([`Snapshot::folder_is_current`] before the change), else
    /// none, so readers list the folder until a writer has listed it again.
    pub(crate) fn folder_changed(&mut self, store: &Store, was_current: bool) {
        self.folder = if was_current {
            folder_stamp(&store.entries_dir())
        } else {
            None
        };
        self.index_dirty = true;
    }

    fn set_entries(&mut self, mut entries: Vec<Entry>) {
        entries.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        entries.dedup_by(|a, b| a.id == b.id);
        let mut path_set: Vec<&str> = entries
            .iter()
            .flat_map(|e| e.files.keys().map(String::as_str))
            .collect();
        path_set.sort_unstable();
        path_set.dedup();
        let pos: HashMap<&str, u32> = path_set
            .iter()
            .enumerate()
            .map(|(i, p)| (*p, i as u32))
            .collect();
        self.refs = Refs::from_runs(entries.iter().map(|e| {
            e.files
                .iter()
                .map(|(p, h)| (pos[p.as_str()], crate::hex::decode32(h).unwrap_or([0; 32])))
        }));
        self.sigs = entries.iter().map(text_sig).collect();
        self.paths = path_set.into_iter().map(str::to_string).collect();
        self.vectors = self.model.map(|m| {
            // A hook's budget spent mid-way leaves the vectors short; `load_within` then drops
            // the whole snapshot.
            let within = entries.iter().take_while(|_| !super::budget::exceeded());
            semantic::embed_all(m, within.map(|e| (e.asked(), e.details.as_str())))
        });
        self.vectors_tag = super::fresh::now_ns() as u64;
        self.vectors_dirty = self.vectors.is_some();
        self.ids = entries.iter().map(|e| e.id.clone()).collect();
        self.bm25 = build_bm25(&entries);
        self.log = None;
        self.index_dirty = true;
        self.content_changed = true;
    }

    /// True when `index.bin` or `vectors.bin` no longer describes the entries as loaded (they
    /// changed since, or a check was re-done): a writer would save them.
    pub(crate) fn is_out_of_date(&self) -> bool {
        self.index_dirty || self.vectors_dirty
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when there are no entries.
    pub(crate) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Position of the entry with this id.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.ids.binary_search_by(|e| e.as_str().cmp(id)).ok()
    }

    /// The backing files of entry `i`: (path key, recorded SHA-256).
    pub(crate) fn files_of(&self, i: usize) -> impl Iterator<Item = (&str, &[u8; 32])> + '_ {
        self.refs
            .of(i)
            .map(|(p, h)| (self.paths[p as usize].as_str(), h))
    }

    /// True when entry `e` (freshly read from its file) says what the index says about it.
    pub(crate) fn agrees_with(&self, i: usize, e: &Entry) -> bool {
        self.ids[i] == e.id
            && self.sigs[i] == text_sig(e)
            && self.refs.of(i).len() == e.files.len()
            && self
                .files_of(i)
                .zip(&e.files)
                .all(|((p, h), (ep, eh))| p == ep && crate::hex::decode32(eh).as_ref() == Some(h))
    }

    /// The files named in `touched` (written or deleted) stat'ed again, sorted by name, each
    /// once: (name, its stamp now; `None` when gone). The other files keep their stamps.
    fn restat(&self, store: &Store, touched: &[String]) -> Vec<(String, Option<Listed>)> {
        let mut names: Vec<&str> = touched.iter().map(String::as_str).collect();
        names.sort_unstable();
        names.dedup();
        let fresh = crate::fsutil::stat_names_in_serial(&store.entries_dir(), &names, false);
        names
            .into_iter()
            .zip(fresh)
            .map(|(n, st)| (n.to_string(), Listed::stat(n.to_string(), st)))
            .collect()
    }

    /// The whole listing taken out, to write the index whole (which puts it back): the one
    /// held, or the encoded one decoded with the changes since. `None` when the encoded one
    /// does not decode to as many files (and bytes) as the snapshot counts, and for a snapshot
    /// without a listing.
    fn take_whole_listing(&mut self) -> Option<Vec<Listed>> {
        if let Some(l) = self.listing.take() {
            return Some(l);
        }
        let decoded = self.decoded_listing()?;
        self.listing_encoded = false;
        self.listing_bytes = bytes::Bytes::new();
        (listing::totals(&decoded) == self.listed).then_some(decoded)
    }

    /// The byte limit for this store's derived files ([`crate::fsutil::limits::derived`]).
    pub(crate) fn derived_limit(&self) -> u64 {
        limit_for(self.listed)
    }

    /// True when the entry file `name` parses and says what the index says about it (a file
    /// the index lists as malformed must still not parse).
    fn agrees_with_file(&self, store: &Store, name: &str) -> bool {
        let parsed = read_entry(&store.entries_dir().join(name), name);
        let stem = name.strip_suffix(".md").unwrap_or(name);
        match (self.position(stem), parsed) {
            (Some(i), Ok(e)) => self.agrees_with(i, &e),
            (None, Err(_)) => true,
            _ => false,
        }
    }
}

/// Writes the derived files that are out of date (lock held): the changes since `index.bin`
/// as `delta.bin` while they are few ([`Snapshot::saves_as_delta`]; returns true), else
/// `index.bin` and `vectors.bin` whole. They are rebuildable, so they are written without
/// `fsync` (see [`Durability::Rebuildable`]).
///
/// Errors: a file cannot be encoded or written.
pub(crate) fn save(store: &Store, snap: &mut Snapshot) -> Result<bool> {
    if !snap.is_out_of_date() {
        return Ok(false);
    }
    if snap.saves_as_delta() && snap.save_delta(store)? {
        return Ok(true);
    }
    if snap.log.as_ref().is_some_and(|l| !l.is_empty()) {
        // The vectors of the entries changed since `vectors.bin` are only in the delta.
        snap.vectors_dirty = snap.vectors.is_some();
    }
    // The vectors first: a reader that already sees the new index must find its vectors (a
    // reader with the old index and new vectors sees a tag mismatch and rebuilds in memory).
    if snap.vectors_dirty {
        // The file they were read from is replaced below: Windows refuses while it is open.
        if let Some(v) = snap.vectors.as_mut() {
            v.detach();
        }
        if let Some(v) = &snap.vectors {
            let bytes = v.to_file_bytes(snap.vectors_tag).with_context(|| {
                format!(
                    "could not read {} to rewrite it",
                    store.vectors_path().display()
                )
            })?;
            write_atomic_with(&store.vectors_path(), &bytes, Durability::Rebuildable)?;
        }
        snap.vectors_dirty = false;
    }
    // A snapshot without a listing (trusted by the folder stamp) has nothing new to record.
    if snap.index_dirty && (snap.listing.is_some() || snap.listing_encoded) {
        // An encoded listing that does not decode as counted is recorded as none, without a
        // folder stamp: the next load finds every file changed and reads them all again.
        let listing = snap.take_whole_listing();
        if listing.is_none() {
            snap.folder = None;
        }
        let listing = listing.unwrap_or_default();
        let encoded = listing::encode(&listing);
        snap.listing = Some(listing);
        // A new tag: any `delta.bin` written for the index before no longer applies.
        let tag = (crate::clock::now_ns() as u64).max(snap.log.as_ref().map_or(0, |l| l.base) + 1);
        let file = IndexFileRef {
            version: INDEX_VERSION,
            recall_version: crate::recall::VERSION,
            model_id: model_id(snap.model),
            tag,
            built_at_ns: snap.built_at_ns,
            folder: snap.folder,
            listed: snap.listed,
            listing: Blob(encoded),
            malformed: &snap.malformed,
            ids: &snap.ids,
            paths: &snap.paths,
            refs: &snap.refs,
            sigs: &snap.sigs,
            bm25: &snap.bm25,
            vectors: snap.vectors.as_ref().map(|v| VectorsMeta {
                dim: v.dim() as u32,
                count: v.len() as u64,
                tag: snap.vectors_tag,
            }),
        };
        let bytes = postcard::to_stdvec(&file).context("could not encode the search index")?;
        write_atomic_with(&store.index_path(), &bytes, Durability::Rebuildable)?;
        snap.index_dirty = false;
        snap.log = Some(delta::Log::new(tag));
        // Folded into the files just written (and, with its old tag, ignored if it stays).
        let _ = crate::fsutil::remove_if_exists(&store.delta_path());
    }
    Ok(false)
}
