//! `.capn/code.bin` (derived, this checkout's): the charted files' own text, indexed for recall
//! (issue 33; what is kept of a file: [`crate::recall::code_text`]).
//!
//! One BM25 doc per entry, in the chart index's order (sorted ids), each tied to its entry by a
//! key over the entry id and its backing files' recorded SHA-256s ([`doc_key`]). A
//! file's text is read when its chart is new or its files were re-charted, and only then: an
//! up-to-date file is loaded as it is; an out-of-date one is spliced (the docs whose key is gone
//! are removed, the new ones read and inserted), so the cost follows what changed, not the
//! store. Only `ask` reads it, and only on a miss (the hooks and answered asks never do).
//!
//! Bounds: at most [`crate::recall::code_text::MAX_FILE_BYTES`] of each file (the head of a
//! larger one) and [`MAX_READ_BYTES`] in all per update; a file is opened under fsutil's rules
//! (never through a symlink leading out of the project, never a FIFO or device), and one that
//! cannot be read adds no text. The file itself is read with the derived files' limit and may
//! be hostile: anything that does not decode, or whose shape does not match, is rebuilt.

use super::index::Snapshot;
use super::Store;
use crate::recall::{Bm25Index, Doc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
pub use text::files_hold;
use text::{entry_text, stamp, Missed};

mod text;

/// Layout version of `code.bin`, bumped whenever what is kept of a file changes
/// (`code_text`: 2, the most telling words of each chart; 3, keys without paths;
/// 5, only the charted version of a file, with per-doc stamps; 6, an end marker).
const CODE_VERSION: u32 = 6;

/// The most bytes of backing files one update reads and hashes (8 MiB, about a tenth of a
/// second): past it, the remaining new charts get their text on the next misses.
pub const MAX_READ_BYTES: u64 = 8 << 20;

/// The most bytes of `code.bin` read per entry (plus 1 MiB): a chart keeps at most
/// [`crate::recall::code_text::MAX_CHART_WORDS`] words, well under a kilobyte; a larger file
/// is damaged or hostile and is rebuilt.
const MAX_STORED_BYTES_PER_ENTRY: u64 = 16 << 10;

/// The stored file.
#[derive(Serialize, Deserialize)]
struct CodeFile {
    version: u32,
    recall_version: u32,
    keys: Vec<u64>,
    /// Per doc: 0 when its text is in, else the [`stamp`] of its files when they could not be
    /// read as charted (read again once it changes), or 0 past the budget (see `missed`).
    stamps: Vec<u64>,
    /// Per doc: true when it has no text yet because the budget ran out (read next time).
    missed: Vec<bool>,
    bm25: Bm25Index,
    /// [`END`]: the file's last bytes, so bytes appended to it are noticed (postcard would
    /// ignore them) and the file is rebuilt.
    end: [u8; 8],
}

/// The last 8 bytes of every `code.bin`.
const END: [u8; 8] = *b"capn\xc0\xde\x00\x06";

/// The file-text index of a snapshot.
pub struct CodeIndex {
    /// One doc per entry, doc number = the entry's position in the snapshot.
    pub bm25: Bm25Index,
    keys: Vec<u64>,
    stamps: Vec<u64>,
    missed: Vec<bool>,
    /// True when it differs from what `code.bin` holds.
    dirty: bool,
}

/// What one update read for the docs it (re)built: their texts, stamps and budget misses.
#[derive(Default)]
struct Read {
    texts: Vec<String>,
    stamps: Vec<u64>,
    missed: Vec<bool>,
}

impl Read {
    /// Reads the text of each of `docs` (snapshot positions) within one budget.
    fn of(store: &Store, snap: &Snapshot, docs: impl Iterator<Item = usize>) -> Read {
        let mut budget = MAX_READ_BYTES;
        let mut memo = HashMap::new();
        let mut r = Read::default();
        for i in docs {
            let (text, stamp, missed) = match entry_text(store, snap, i, &mut budget, &mut memo) {
                Ok(text) => (text, 0, false),
                Err(Missed::Files(stamp)) => (String::new(), stamp, false),
                Err(Missed::Budget) => (String::new(), 0, true),
            };
            r.texts.push(text);
            r.stamps.push(stamp);
            r.missed.push(missed);
        }
        r
    }
}

/// The key tying a doc to its entry: the entry id (FNV-1a) mixed with the first 8 bytes of each
/// backing file's recorded SHA-256 (a re-charted file changes it; the text depends on the
/// content, not the path). Word-at-a-time, so keying 10,000 entries costs microseconds.
pub fn doc_key<'a>(id: &str, files: impl Iterator<Item = &'a [u8; 32]>) -> u64 {
    let mut h = crate::fnv::extend(crate::fnv::OFFSET, id.as_bytes());
    for sha in files {
        let mut word = [0u8; 8];
        word.copy_from_slice(&sha[..8]);
        h = mix(h ^ u64::from_le_bytes(word));
    }
    h
}

/// The splitmix64 finaliser: every input bit reaches every output bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Each entry's [`doc_key`], in snapshot order.
fn keys_of(snap: &Snapshot) -> Vec<u64> {
    (0..snap.len())
        .map(|i| doc_key(&snap.ids[i], snap.refs.of(i).map(|(_, sha)| sha)))
        .collect()
}

impl CodeIndex {
    /// The index for `snap`: `code.bin` when it describes these entries, else brought up to
    /// date from it (or built) by reading the new charts' files. Never fails: a file that cannot
    /// be read or decoded is rebuilt, a backing file that cannot be read adds no text.
    pub fn load(store: &Store, snap: &Snapshot) -> CodeIndex {
        let want = keys_of(snap);
        let old = read(store, snap);
        let Some(old) = old else {
            return build(store, snap, &want);
        };
        let settled = |i: usize| {
            !old.missed[i] && (old.stamps[i] == 0 || old.stamps[i] == stamp(store, snap, i))
        };
        if old.keys == want && (0..want.len()).all(settled) {
            return CodeIndex {
                bm25: old.bm25,
                keys: old.keys,
                stamps: old.stamps,
                missed: old.missed,
                dirty: false,
            };
        }
        splice(store, snap, old, want)
    }

    /// Writes `code.bin` when it changed (the caller holds the writers' lock).
    ///
    /// Errors: as [`crate::fsutil::write_atomic`], naming the file.
    pub fn save_if_changed(&self, store: &Store) -> anyhow::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let file = CodeFile {
            version: CODE_VERSION,
            recall_version: crate::recall::VERSION,
            keys: self.keys.clone(),
            stamps: self.stamps.clone(),
            missed: self.missed.clone(),
            bm25: self.bm25.clone(),
            end: END,
        };
        let bytes = postcard::to_allocvec(&file)?;
        crate::fsutil::write_atomic_with(
            &store.code_path(),
            &bytes,
            crate::fsutil::Durability::Rebuildable,
        )
    }
}

/// `code.bin` when it is this version and consistent; `None` otherwise.
fn read(store: &Store, snap: &Snapshot) -> Option<CodeFile> {
    let limit = (snap.len() as u64 + 1).saturating_mul(MAX_STORED_BYTES_PER_ENTRY) + (1 << 20);
    let bytes =
        crate::fsutil::read_limited(&store.code_path(), limit, crate::fsutil::Follow::Never)
            .ok()?;
    if !bytes.ends_with(&END) {
        return None;
    }
    // The postings stay views into the bytes read (no copy).
    let file: CodeFile = crate::recall::blob::decode_shared(&bytes::Bytes::from(bytes))?;
    (file.version == CODE_VERSION
        && file.recall_version == crate::recall::VERSION
        && file.bm25.len() == file.keys.len()
        && file.stamps.len() == file.keys.len()
        && file.missed.len() == file.keys.len())
    .then_some(file)
}

/// Builds the index from scratch.
fn build(store: &Store, snap: &Snapshot, want: &[u64]) -> CodeIndex {
    let read = Read::of(store, snap, 0..want.len());
    CodeIndex {
        bm25: Bm25Index::build(&docs(&read.texts)),
        keys: want.to_vec(),
        stamps: read.stamps,
        missed: read.missed,
        dirty: true,
    }
}

/// `old` brought to `want`: the docs whose key is gone, or that had no text and whose files
/// changed since (or that the budget skipped), removed; the new ones read and inserted.
/// Rebuilds when `old`'s surviving docs are not in the order `want` has them (a hostile file).
fn splice(store: &Store, snap: &Snapshot, old: CodeFile, want: Vec<u64>) -> CodeIndex {
    let wanted: HashMap<u64, usize> = want.iter().enumerate().map(|(i, &k)| (k, i)).collect();
    let mut remove = Vec::new();
    let mut kept = Vec::new();
    for (i, k) in old.keys.iter().enumerate() {
        match wanted.get(k) {
            Some(&at) if kept.last().is_some_and(|&(l, _)| l >= at) => {
                return build(store, snap, &want)
            }
            Some(&at)
                if !old.missed[i]
                    && (old.stamps[i] == 0 || old.stamps[i] == stamp(store, snap, at)) =>
            {
                kept.push((at, i))
            }
            _ => remove.push(i),
        }
    }
    let new_at: Vec<usize> = (0..want.len())
        .filter(|&a| kept.binary_search_by_key(&a, |&(at, _)| at).is_err())
        .collect();
    let read = Read::of(store, snap, new_at.iter().copied());
    let insert: Vec<(usize, Doc<'_>)> = new_at.iter().copied().zip(docs(&read.texts)).collect();
    let Ok(bm25) = old.bm25.splice(&remove, &insert) else {
        return build(store, snap, &want);
    };
    // Per-doc state in the new order: kept docs keep theirs, new ones get what was read.
    let (mut stamps, mut missed) = (vec![0; want.len()], vec![false; want.len()]);
    for &(at, i) in &kept {
        (stamps[at], missed[at]) = (old.stamps[i], old.missed[i]);
    }
    for (n, &at) in new_at.iter().enumerate() {
        (stamps[at], missed[at]) = (read.stamps[n], read.missed[n]);
    }
    CodeIndex {
        bm25,
        keys: want,
        stamps,
        missed,
        dirty: true,
    }
}

/// One doc per text (the text in the details field: the index scores one field).
fn docs(texts: &[String]) -> Vec<Doc<'_>> {
    texts
        .iter()
        .map(|t| Doc {
            question: "",
            details: t,
            files: &[],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key changes with the id or a recorded hash.
    #[test]
    fn the_doc_key_follows_the_entry_and_its_files() {
        let (a, b) = ([1u8; 32], [2u8; 32]);
        let k = doc_key("ab12cd34", [&a].into_iter());
        assert_ne!(k, doc_key("ab12cd35", [&a].into_iter()));
        assert_ne!(k, doc_key("ab12cd34", [&b].into_iter()));
        assert_ne!(k, doc_key("ab12cd34", [&a, &b].into_iter()));
        assert_eq!(k, doc_key("ab12cd34", [&a].into_iter()));
    }
}
