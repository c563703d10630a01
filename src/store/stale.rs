//! Which charts must not answer now: an entry whose backing files changed, vanished or were
//! replaced is stale (hidden and kept); one whose files could not be checked is hidden too.
//!
//! The one owner of an entry's freshness (do its files still hash as charted?): the whole
//! snapshot at once ([`stale_positions`]), one entry in full ([`freshness`]: `ask`), strictly
//! ([`entry_is_fresh`], [`entry_is_fresh_within`] for the hooks' offers), or leniently, for
//! deleting ([`entry_is_stale`], [`changed_files`]). The per-file judgement is the stat cache's
//! ([`super::fresh`]).

use super::entry::Entry;
use super::fresh::{self, StatCache};
use super::index::Snapshot;
use std::path::Path;

/// Positions of entries that must not answer: a backing file changed, vanished or was replaced
/// (stale: hidden and kept; `prune` deletes these), or could not be checked (hidden and kept; a
/// note on stderr names the file once per process). Each distinct path is checked once.
pub(crate) fn stale_positions(root: &Path, snap: &Snapshot, cache: &mut StatCache) -> Vec<usize> {
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
fn note_unchecked(key: &str, kind: std::io::ErrorKind) {
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
        fresh::LEAVES_PROJECT => {
            "it is reached through a symlinked folder that leaves the project".into()
        }
        k => std::io::Error::from(k).to_string(),
    };
    diag!(
        "capn: note: could not check {} ({why}): charts backed by it are hidden, not deleted",
        crate::present::Foreign::new(key).quoted(crate::present::MAX_PATH_CHARS)
    );
}

/// True when a backing file of `e` has definitely changed since it was charted (gone, replaced,
/// or hashing differently). A file that cannot be checked does not make an entry stale.
pub(crate) fn entry_is_stale(root: &Path, e: &Entry, cache: &mut StatCache) -> bool {
    e.files.iter().any(|(p, h)| cache.is_changed(root, p, h))
}

/// True when every backing file of `e` hashes as charted right now (line ends aside); false
/// when one changed or could not be checked.
pub(crate) fn entry_is_fresh(root: &Path, e: &Entry, cache: &mut StatCache) -> bool {
    e.files.iter().all(|(p, h)| cache.is_current(root, p, h))
}

/// [`entry_is_fresh`], hashing at most `budget` bytes of files the stat cache cannot vouch for
/// (taken off it; [`StatCache::is_current_within`]): past it the entry counts as not fresh.
pub(crate) fn entry_is_fresh_within(
    root: &Path,
    e: &Entry,
    cache: &mut StatCache,
    budget: &mut u64,
) -> bool {
    e.files
        .iter()
        .all(|(p, h)| cache.is_current_within(root, p, h, budget))
}

/// How the backing files of one entry stand now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Freshness {
    /// Every file hashes as charted.
    Fresh,
    /// These files changed, vanished or were replaced (keys, in the entry's order).
    Stale(Vec<String>),
    /// None changed, but one could not be checked (hidden, kept).
    Unchecked,
}

/// How the backing files of `e` stand now, each judged against its recorded hash (line ends
/// aside); a file that cannot be checked is noted on stderr once per process.
pub(crate) fn freshness(root: &Path, e: &Entry, cache: &mut StatCache) -> Freshness {
    let keys: Vec<&str> = e.files.keys().map(String::as_str).collect();
    let states = cache.states(root, &keys);
    let mut changed = Vec::new();
    let mut unchecked = false;
    for ((key, want), state) in e.files.iter().zip(states) {
        match cache.judge(root, key, state, crate::hex::decode32(want).as_ref()) {
            fresh::Judged::Fresh => {}
            fresh::Judged::Unchecked(kind) => {
                note_unchecked(key, kind);
                unchecked = true;
            }
            fresh::Judged::Changed => changed.push(key.clone()),
        }
    }
    match (changed.is_empty(), unchecked) {
        (false, _) => Freshness::Stale(changed),
        (true, true) => Freshness::Unchecked,
        (true, false) => Freshness::Fresh,
    }
}

/// The backing files of `e` that have definitely changed ([`StatCache::is_changed`]), in the
/// entry's order.
pub(crate) fn changed_files<'e>(
    root: &Path,
    e: &'e Entry,
    cache: &mut StatCache,
) -> Vec<&'e String> {
    e.files
        .iter()
        .filter(|(p, h)| cache.is_changed(root, p, h))
        .map(|(p, _)| p)
        .collect()
}
