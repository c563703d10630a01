//! `.capn/delta.bin`: what changed since `index.bin` and `vectors.bin` were written whole, so a
//! writer that changed a few entries (`chart`) writes a file the size of its change, not the
//! 10 MB of a store of 10,000 charts.
//!
//! Layout (postcard): a version, the tag of the `index.bin` it applies to, the build time, the
//! entries folder's stamp, the number and total size of the entry files and the malformed ones
//! (as after the change), the ids taken out since, the entries put in since (each as its entry
//! file's text, its [`super::text_sig`] and its vectors) and the listing's changes (a file name
//! with its stamp, or none when it is gone). Readers splice it into what `index.bin` holds
//! ([`Snapshot::apply_delta`]), as a writer's change is spliced in memory. A writer folds it into
//! the full files once it holds more than [`MAX_CHANGES`] changes ([`Snapshot::saves_as_delta`]).
//!
//! Derived like the rest: a missing, truncated, foreign or other-version delta is ignored, and
//! then `index.bin` records an older folder stamp than the folder's, so the load lists the entry
//! files and reads the ones changed since (never a wrong answer; at worst a slower one).

use super::{text_sig, Snapshot, FOLDER_TRUST_MIN_FILES};
use crate::embed::Model;
use crate::recall::semantic::VIEWS;
use crate::store::entry::{is_valid_id, Entry};
use crate::store::listing::{FolderStamp, Listed};
use crate::store::Store;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Layout version of `delta.bin`.
const DELTA_VERSION: u32 = 1;

/// The most entries taken out or put in that a delta holds; past it a writer writes the full
/// files (at most this many entries are tokenised again by each reader: about 1 ms).
pub(super) const MAX_CHANGES: usize = 64;

/// The most bytes of a delta a writer writes (past it, the full files) and a reader reads.
const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// The most listing changes a delta may hold (entry files and malformed ones).
const MAX_LISTED: usize = 4 * MAX_CHANGES + 1024;

/// The changes since `index.bin` (tagged `base`) was written, kept by a snapshot loaded from it.
#[derive(Debug, Clone, Default)]
pub(super) struct Log {
    /// The tag of the `index.bin` these changes apply to.
    pub base: u64,
    /// Ids taken out (or replaced) since.
    pub removed: BTreeSet<String>,
    /// Entries put in since: id -> (entry file text, text signature, vectors).
    pub inserted: BTreeMap<String, (String, u64, Vec<i8>)>,
    /// The listing's changes: file name -> its stamp now (`None`: gone).
    pub listing: BTreeMap<String, Option<Listed>>,
}

impl Log {
    /// No changes since `index.bin` tagged `base`.
    pub(super) fn new(base: u64) -> Log {
        Log {
            base,
            ..Log::default()
        }
    }

    /// Entries taken out or put in.
    fn changes(&self) -> usize {
        self.removed.len() + self.inserted.len()
    }

    /// True when nothing changed since `index.bin`.
    pub(super) fn is_empty(&self) -> bool {
        self.changes() == 0 && self.listing.is_empty()
    }

    /// The listing `base` (as `index.bin` recorded it) with these changes applied, sorted.
    pub(super) fn patched(&self, base: Vec<Listed>) -> Vec<Listed> {
        if self.listing.is_empty() {
            return base;
        }
        let mut out: Vec<Listed> = base
            .into_iter()
            .filter(|l| !self.listing.contains_key(&l.name))
            .collect();
        out.extend(self.listing.values().flatten().cloned());
        out.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        out
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct DeltaFile {
    version: u32,
    base: u64,
    built_at_ns: i64,
    folder: Option<FolderStamp>,
    listed: (u64, u64),
    malformed: Vec<(String, String)>,
    removed: Vec<String>,
    inserted: Vec<(String, String, u64, Vec<i8>)>,
    listing: Vec<(String, Option<Listed>)>,
}

/// A delta read and checked: what [`Snapshot::apply_delta`] splices in.
pub(super) struct Delta {
    pub built_at_ns: i64,
    pub folder: Option<FolderStamp>,
    pub listed: (u64, u64),
    pub malformed: Vec<(String, String)>,
    /// The entries put in, sorted by id, with their vectors (empty without a model).
    pub entries: Vec<(Entry, Vec<i8>)>,
    pub log: Log,
}

/// Reads `delta.bin` when it applies to the `index.bin` tagged `base` and checks it: ids valid,
/// each entry's text parsing to what its signature says, vectors of the model's shape, within
/// the bounds above. `None` for anything else (the delta is then ignored).
pub(super) fn read(store: &Store, base: u64, model: Option<&Model>) -> Option<Delta> {
    let bytes = super::read_derived(&store.delta_path(), MAX_BYTES)?;
    let d: DeltaFile = postcard::from_bytes(&bytes).ok()?;
    let ok = d.version == DELTA_VERSION
        && d.base == base
        && d.removed.len() + d.inserted.len() <= MAX_CHANGES
        && d.listing.len() <= MAX_LISTED
        && d.removed.iter().all(|id| is_valid_id(id))
        && d.inserted.windows(2).all(|w| w[0].0 < w[1].0)
        && d.listing.windows(2).all(|w| w[0].0 < w[1].0)
        && d.listing
            .iter()
            .all(|(n, l)| l.as_ref().is_none_or(|l| &l.name == n));
    if !ok {
        return None;
    }
    let width = model.map_or(0, |m| VIEWS * m.dim());
    let mut entries = Vec::with_capacity(d.inserted.len());
    let mut log = Log::new(base);
    for (id, text, sig, views) in d.inserted {
        if !is_valid_id(&id) || views.len() != width {
            return None;
        }
        let e = Entry::parse(&text, &id).ok().filter(|e| e.id == id)?;
        if text_sig(&e) != sig {
            return None;
        }
        log.inserted.insert(id, (text, sig, views.clone()));
        entries.push((e, views));
    }
    log.removed = d.removed.into_iter().collect();
    log.listing = d.listing.into_iter().collect();
    Some(Delta {
        built_at_ns: d.built_at_ns,
        folder: d.folder,
        listed: d.listed,
        malformed: d.malformed,
        entries,
        log,
    })
}

impl Snapshot {
    /// True when a writer saves this snapshot's changes as `delta.bin` rather than writing the
    /// full files: it was loaded from an `index.bin` (and changed in place since), the store has
    /// at least [`FOLDER_TRUST_MIN_FILES`] entries (a small one is rewritten whole: cheap, and
    /// `map.json` stays current), and at most [`MAX_CHANGES`] entries changed since.
    pub(crate) fn saves_as_delta(&self) -> bool {
        !self.fold
            && self.log.as_ref().is_some_and(|log| {
                log.changes() <= MAX_CHANGES
                    && log.listing.len() <= MAX_LISTED
                    && self.listed.0 >= FOLDER_TRUST_MIN_FILES
            })
    }

    /// Has the next save fold the changes since `index.bin` (a `delta.bin` read, or changes
    /// made since) into the full files, however few: for `capn refresh`, which runs off any
    /// reader's path, so that no later reader parses and tokenises the delta's entries again.
    /// Nothing when there is no change to fold, or no listing to record with it.
    pub(crate) fn fold_delta(&mut self) {
        if self.log.as_ref().is_some_and(|l| !l.is_empty()) && self.is_listed() {
            self.fold = true;
            self.index_dirty = true;
        }
    }

    /// Writes the changes since `index.bin` as `delta.bin` (lock held; see [`Snapshot::saves_as_delta`]).
    /// `Ok(false)` when they do not fit [`MAX_BYTES`] (the caller writes the full files).
    ///
    /// Errors: the file cannot be written.
    pub(super) fn save_delta(&mut self, store: &Store) -> Result<bool> {
        let Some(log) = &self.log else {
            return Ok(false);
        };
        let file = DeltaFile {
            version: DELTA_VERSION,
            base: log.base,
            built_at_ns: self.built_at_ns,
            folder: self.folder,
            listed: self.listed,
            malformed: self.malformed.clone(),
            removed: log.removed.iter().cloned().collect(),
            inserted: log
                .inserted
                .iter()
                .map(|(id, (text, sig, v))| (id.clone(), text.clone(), *sig, v.clone()))
                .collect(),
            listing: log
                .listing
                .iter()
                .map(|(n, l)| (n.clone(), l.clone()))
                .collect(),
        };
        let bytes = postcard::to_stdvec(&file)?;
        if bytes.len() as u64 > MAX_BYTES {
            return Ok(false);
        }
        let durability = crate::fsutil::Durability::Rebuildable;
        crate::fsutil::write_atomic_with(&store.delta_path(), &bytes, durability)?;
        self.index_dirty = false;
        self.vectors_dirty = false;
        Ok(true)
    }

    /// Splices a delta read for this snapshot's `index.bin` into it, as the writer that wrote it
    /// had spliced its changes. `None` when that fails (the vectors file was cut short).
    pub(super) fn apply_delta(&mut self, d: Delta) -> Option<()> {
        let removed: Vec<String> = d.log.removed.iter().cloned().collect();
        let (entries, views): (Vec<Entry>, Vec<Vec<i8>>) = d.entries.into_iter().unzip();
        self.splice_core(&removed, entries, Some(views)).ok()?;
        self.built_at_ns = d.built_at_ns;
        self.folder = d.folder;
        self.listed = d.listed;
        self.malformed = d.malformed;
        self.log = Some(d.log);
        // What the files on disk hold: nothing to save (a full save rewrites the vectors, see
        // `super::save`).
        self.vectors_dirty = false;
        Some(())
    }
}
