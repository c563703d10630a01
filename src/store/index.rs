//! The derived search index `.capn/index.bin` and the snapshot of entries it caches.
//!
//! Layout (postcard): a header (layout version, recall version, embedding model id), the time it
//! was built, one stamp per entry file (name, size, mtime ns, ctime ns, inode) with its parse
//! result, the parsed entries sorted by id, and the BM25 index over them. It is disposable: a
//! missing, corrupt or other-version file, or any entry file whose stamp differs (or falls in the
//! 2-second racy window), makes [`load`] re-read what changed and rebuild. Deleting it is always
//! safe.

use super::entry::Entry;
use super::fresh::now_ns;
use super::Store;
use crate::recall::{Bm25Index, Doc};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// Layout version of `index.bin`.
const INDEX_VERSION: u32 = 1;

/// The racy window for entry files, in ns (format.md's 2 seconds).
const RACY_NS: i64 = 2_000_000_000;

/// Metadata identifying one version of an entry file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
    ino: u64,
}

/// One entry file as last seen: its name, stamp, and either the position of its parsed entry in
/// `entries` or the reason it did not parse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SeenFile {
    name: String,
    stamp: FileStamp,
    parsed: Result<u32, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct IndexFile {
    version: u32,
    recall_version: u32,
    model_id: String,
    built_at_ns: i64,
    files: Vec<SeenFile>,
    entries: Vec<Entry>,
    bm25: Bm25Index,
}

/// The entries of a store and the search index over them, as loaded by [`load`].
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Parsed entries, sorted by id. Position = BM25 doc number.
    pub entries: Vec<Entry>,
    /// The BM25 index over `entries`.
    pub bm25: Bm25Index,
    /// Entry files that did not parse: (file name, reason).
    pub malformed: Vec<(String, String)>,
    /// True when this snapshot differs from `index.bin` (a writer should [`save`] it).
    pub changed: bool,
    files: Vec<SeenFile>,
    built_at_ns: i64,
}

#[cfg(unix)]
fn stamp_of(meta: &std::fs::Metadata) -> FileStamp {
    use std::os::unix::fs::MetadataExt;
    FileStamp {
        size: meta.len(),
        mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
        ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        ino: meta.ino(),
    }
}

#[cfg(not(unix))]
fn stamp_of(meta: &std::fs::Metadata) -> FileStamp {
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    FileStamp {
        size: meta.len(),
        mtime_ns,
        ctime_ns: 0,
        ino: 0,
    }
}

/// Lists `*.md` files in the entries dir with their stamps, sorted by name. A missing dir is an
/// empty list.
fn list_entry_files(dir: &Path) -> Result<Vec<(String, FileStamp)>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(e).with_context(|| format!("could not list entries: {}", dir.display()))
        }
    };
    let mut out = Vec::new();
    for de in rd {
        let Ok(de) = de else { continue };
        let name = de.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.ends_with(".md") || name.starts_with('.') {
            continue;
        }
        // A file that vanished between readdir and stat was deleted by a writer: skip it.
        let Ok(meta) = std::fs::metadata(de.path()) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        out.push((name.to_string(), stamp_of(&meta)));
    }
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Reads and parses one entry file; the id is the file name without `.md`.
pub fn read_entry(path: &Path, name: &str) -> Result<Entry, String> {
    let stem = name.strip_suffix(".md").unwrap_or(name);
    if !super::entry::is_valid_id(stem) {
        return Err("file name is not an entry id (8-64 lowercase hex digits)".into());
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_string())?;
    let mut e = Entry::parse(&text, stem)?;
    e.id = stem.to_string();
    Ok(e)
}

/// The model id the index must have been built with (empty for BM25 only).
fn current_model_id(store: &Store) -> String {
    let _ = store;
    String::new()
}

fn read_index(path: &Path, model_id: &str) -> Option<IndexFile> {
    let bytes = std::fs::read(path).ok()?;
    let idx: IndexFile = postcard::from_bytes(&bytes).ok()?;
    (idx.version == INDEX_VERSION
        && idx.recall_version == crate::recall::VERSION
        && idx.model_id == model_id
        && idx.files.iter().all(|f| match f.parsed {
            Ok(i) => (i as usize) < idx.entries.len(),
            Err(_) => true,
        })
        && idx.bm25.len() == idx.entries.len())
    .then_some(idx)
}

/// Builds the BM25 index over entries (doc number = position).
pub fn build_bm25(entries: &[Entry]) -> Bm25Index {
    let files: Vec<Vec<String>> = entries
        .iter()
        .map(|e| e.files.keys().cloned().collect())
        .collect();
    let docs: Vec<Doc<'_>> = entries
        .iter()
        .zip(&files)
        .map(|(e, f)| Doc {
            question: &e.question,
            details: &e.details,
            files: f,
        })
        .collect();
    Bm25Index::build(&docs)
}

/// Loads the store's entries and search index: from `index.bin` when it matches the entry files
/// exactly, else by re-reading only the entry files that changed and rebuilding the index in
/// memory (`changed` is then true). Never fails on a bad derived file; fails only when the
/// entries dir exists but cannot be listed.
pub fn load(store: &Store) -> Result<Snapshot> {
    let listing = list_entry_files(&store.entries_dir())?;
    let model_id = current_model_id(store);
    let prev = read_index(&store.index_path(), &model_id);
    let start_ns = now_ns();
    let unchanged = prev.as_ref().is_some_and(|prev| {
        prev.files.len() == listing.len()
            && prev.files.iter().zip(&listing).all(|(f, (name, stamp))| {
                f.name == *name
                    && f.stamp == *stamp
                    && stamp.mtime_ns.saturating_add(RACY_NS) < prev.built_at_ns
            })
    });
    if unchanged {
        if let Some(prev) = prev {
            let malformed = malformed_of(&prev.files);
            return Ok(Snapshot {
                entries: prev.entries,
                bm25: prev.bm25,
                malformed,
                changed: false,
                files: prev.files,
                built_at_ns: prev.built_at_ns,
            });
        }
    }
    // Re-read what changed; reuse the rest.
    let old: HashMap<&str, &SeenFile> = prev
        .as_ref()
        .map(|p| p.files.iter().map(|f| (f.name.as_str(), f)).collect())
        .unwrap_or_default();
    let dir = store.entries_dir();
    let mut files = Vec::with_capacity(listing.len());
    let mut entries = Vec::with_capacity(listing.len());
    for (name, stamp) in listing {
        let reuse = old.get(name.as_str()).filter(|f| {
            f.stamp == stamp
                && stamp.mtime_ns.saturating_add(RACY_NS)
                    < prev.as_ref().map_or(0, |p| p.built_at_ns)
        });
        let parsed = match reuse {
            Some(f) => match &f.parsed {
                Ok(i) => Ok(prev.as_ref().map(|p| p.entries[*i as usize].clone())),
                Err(r) => Err(r.clone()),
            },
            None => read_entry(&dir.join(&name), &name).map(Some),
        };
        let parsed = match parsed {
            Ok(Some(e)) => {
                entries.push(e);
                Ok((entries.len() - 1) as u32)
            }
            Ok(None) => Err("internal: missing cached entry".to_string()),
            Err(r) => Err(r),
        };
        files.push(SeenFile {
            name,
            stamp,
            parsed,
        });
    }
    let bm25 = match &prev {
        Some(p) if p.entries == entries => p.bm25.clone(),
        _ => build_bm25(&entries),
    };
    let changed = prev
        .as_ref()
        .is_none_or(|p| p.files != files || p.entries != entries);
    let malformed = malformed_of(&files);
    Ok(Snapshot {
        entries,
        bm25,
        malformed,
        changed,
        files,
        built_at_ns: if changed {
            start_ns
        } else {
            prev.map_or(start_ns, |p| p.built_at_ns)
        },
    })
}

fn malformed_of(files: &[SeenFile]) -> Vec<(String, String)> {
    files
        .iter()
        .filter_map(|f| f.parsed.as_ref().err().map(|r| (f.name.clone(), r.clone())))
        .collect()
}

impl Snapshot {
    /// Position of the entry with this id.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|e| e.id.as_str().cmp(id))
            .ok()
    }

    /// Replaces the entries (after a writer added or removed some), re-stamping the entry files
    /// and rebuilding the BM25 index. Call with the lock held, after the entry files are written.
    pub fn replace_entries(&mut self, store: &Store, mut entries: Vec<Entry>) -> Result<()> {
        entries.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        let start_ns = now_ns();
        let listing = list_entry_files(&store.entries_dir())?;
        let by_id: HashMap<&str, usize> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.as_str(), i))
            .collect();
        let old: HashMap<&str, &SeenFile> =
            self.files.iter().map(|f| (f.name.as_str(), f)).collect();
        let mut files = Vec::with_capacity(listing.len());
        for (name, stamp) in listing {
            let stem = name.strip_suffix(".md").unwrap_or(&name);
            let parsed = match by_id.get(stem) {
                Some(i) => Ok(*i as u32),
                None => match old.get(name.as_str()).map(|f| &f.parsed) {
                    Some(Err(r)) => Err(r.clone()),
                    _ => read_entry(&store.entries_dir().join(&name), &name).map(|_| u32::MAX),
                },
            };
            files.push(SeenFile {
                name,
                stamp,
                parsed,
            });
        }
        // A file that parses but was not in `entries` (written by a concurrent writer without
        // the lock, which cannot happen through capn) is re-read on the next load.
        files.retain(|f| f.parsed != Ok(u32::MAX));
        self.bm25 = build_bm25(&entries);
        self.entries = entries;
        self.malformed = malformed_of(&files);
        self.files = files;
        self.built_at_ns = start_ns;
        self.changed = true;
        Ok(())
    }
}

/// Writes `index.bin` when the snapshot changed (call with the lock held).
///
/// Errors: the index cannot be encoded or written.
pub fn save(store: &Store, snap: &mut Snapshot) -> Result<()> {
    if !snap.changed {
        return Ok(());
    }
    let file = IndexFile {
        version: INDEX_VERSION,
        recall_version: crate::recall::VERSION,
        model_id: current_model_id(store),
        built_at_ns: snap.built_at_ns,
        files: snap.files.clone(),
        entries: snap.entries.clone(),
        bm25: snap.bm25.clone(),
    };
    let bytes = postcard::to_stdvec(&file).context("could not encode the search index")?;
    crate::fsutil::write_atomic(&store.index_path(), &bytes)?;
    snap.changed = false;
    Ok(())
}
