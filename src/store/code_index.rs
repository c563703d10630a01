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
use crate::recall::{code_text, Bm25Index, Doc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Read;

/// Layout version of `code.bin`, bumped whenever what is kept of a file changes
/// (`code_text`: 2, the most telling words of each chart; 3, keys without paths).
const CODE_VERSION: u32 = 3;

/// The most bytes of backing files one update reads (64 MiB): past it, the remaining new charts
/// get no text until the next update.
pub const MAX_READ_BYTES: u64 = 64 << 20;

/// The stored file.
#[derive(Serialize, Deserialize)]
struct CodeFile {
    version: u32,
    recall_version: u32,
    keys: Vec<u64>,
    bm25: Bm25Index,
}

/// The file-text index of a snapshot.
pub struct CodeIndex {
    /// One doc per entry, doc number = the entry's position in the snapshot.
    pub bm25: Bm25Index,
    keys: Vec<u64>,
    /// True when it differs from what `code.bin` holds.
    dirty: bool,
}

/// The key tying a doc to its entry: the entry id (FNV-1a) mixed with the first 8 bytes of each
/// backing file's recorded SHA-256 (a re-charted file changes it; the text depends on the
/// content, not the path). Word-at-a-time, so keying 10,000 entries costs microseconds.
pub fn doc_key<'a>(id: &str, files: impl Iterator<Item = &'a [u8; 32]>) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    for &b in id.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(PRIME);
    }
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
        .map(|i| {
            doc_key(&snap.ids[i], snap.refs.of(i).map(|(_, sha)| sha))
        })
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
        if old.keys == want {
            return CodeIndex {
                bm25: old.bm25,
                keys: old.keys,
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
            bm25: self.bm25.clone(),
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
    let limit = snap.derived_limit().saturating_mul(8).max(MAX_READ_BYTES);
    let bytes =
        crate::fsutil::read_limited(&store.code_path(), limit, crate::fsutil::Follow::Never)
            .ok()?;
    // The postings stay views into the bytes read (no copy).
    let file: CodeFile = crate::recall::blob::decode_shared(&bytes::Bytes::from(bytes))?;
    (file.version == CODE_VERSION
        && file.recall_version == crate::recall::VERSION
        && file.bm25.len() == file.keys.len())
    .then_some(file)
}

/// Builds the index from scratch.
fn build(store: &Store, snap: &Snapshot, want: &[u64]) -> CodeIndex {
    let mut budget = MAX_READ_BYTES;
    let texts: Vec<String> = (0..want.len())
        .map(|i| entry_text(store, snap, i, &mut budget))
        .collect();
    CodeIndex {
        bm25: Bm25Index::build(&docs(&texts)),
        keys: want.to_vec(),
        dirty: true,
    }
}

/// `old` brought to `want`: the docs whose key is gone removed, the new ones read and inserted.
/// Rebuilds when `old`'s surviving docs are not in the order `want` has them (a hostile file).
fn splice(store: &Store, snap: &Snapshot, old: CodeFile, want: Vec<u64>) -> CodeIndex {
    let wanted: HashMap<u64, usize> = want.iter().enumerate().map(|(i, &k)| (k, i)).collect();
    let mut remove = Vec::new();
    let mut kept_at = Vec::new();
    for (i, k) in old.keys.iter().enumerate() {
        match wanted.get(k) {
            Some(&at) if kept_at.last().is_none_or(|&l| l < at) => kept_at.push(at),
            Some(_) => return build(store, snap, &want),
            None => remove.push(i),
        }
    }
    let mut budget = MAX_READ_BYTES;
    let new_at: Vec<usize> = (0..want.len())
        .filter(|i| kept_at.binary_search(i).is_err())
        .collect();
    let texts: Vec<String> = new_at
        .iter()
        .map(|&i| entry_text(store, snap, i, &mut budget))
        .collect();
    let insert: Vec<(usize, Doc<'_>)> = new_at.iter().copied().zip(docs(&texts)).collect();
    match old.bm25.splice(&remove, &insert) {
        Ok(bm25) => CodeIndex {
            bm25,
            keys: want,
            dirty: true,
        },
        Err(_) => build(store, snap, &want),
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

/// The most telling words of entry `i`'s backing files ([`code_text::extract`], then
/// [`code_text::distinctive`]), reading at most `budget`
/// bytes (decreased by what was read).
fn entry_text(store: &Store, snap: &Snapshot, i: usize, budget: &mut u64) -> String {
    let mut out = String::new();
    for (p, _) in snap.refs.of(i) {
        let Some(key) = snap.paths.get(p as usize) else {
            continue;
        };
        let want = code_text::MAX_FILE_BYTES.min(*budget);
        if want == 0 {
            break;
        }
        if let Some(bytes) = head(store, key, want) {
            *budget -= bytes.len() as u64;
            out.push_str(&code_text::extract(&bytes));
        }
    }
    code_text::distinctive(&out, code_text::MAX_CHART_WORDS)
}

/// The first `limit` bytes of backing file `key`, opened under fsutil's rules inside the
/// project; `None` when it cannot be.
fn head(store: &Store, key: &str, limit: u64) -> Option<Vec<u8>> {
    let path = super::paths::abs_of(&store.root, key);
    let follow = crate::fsutil::Follow::Inside(&store.root);
    let (file, _) =
        crate::fsutil::open_regular(&path, super::fresh::MAX_BACKING_BYTES, follow).ok()?;
    let mut buf = Vec::new();
    file.take(limit).read_to_end(&mut buf).ok()?;
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backing file that leads out of the project through a symlink, a FIFO and a directory
    /// give no text (and the FIFO does not block); a regular file gives its head.
    #[cfg(unix)]
    #[test]
    fn only_regular_files_inside_the_project_are_read() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        std::fs::create_dir_all(root.join("src")).unwrap();
        let root = root.canonicalize().unwrap();
        let decoy = tmp.path().join("decoy.ts");
        std::fs::write(&decoy, "outsideSecretWord").unwrap();
        std::os::unix::fs::symlink(&decoy, root.join("src/out.ts")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("src/fifo.ts"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        std::fs::write(root.join("src/ok.ts"), "insideWord and more").unwrap();
        let store = Store::at(root);
        assert_eq!(head(&store, "src/out.ts", 100), None);
        assert_eq!(head(&store, "src/fifo.ts", 100), None);
        assert_eq!(head(&store, "src", 100), None);
        assert_eq!(
            head(&store, "src/ok.ts", 6).as_deref(),
            Some(&b"inside"[..])
        );
    }

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
