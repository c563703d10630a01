//! Loading the snapshot ([`load`], [`load_within`]): the index alone when the entries folder's
//! stamp vouches for it, else the index checked against a listing of the entry files, with the
//! files changed since spliced in, else every entry file read again.

use super::{
    limit_for, read_index, semantic_model, Check, Snapshot, FOLDER_TRUST_MIN_FILES,
    TRUSTED_READ_MAX,
};
use crate::embed::Model;
use crate::store::listing::{
    self, entry_racy_window_ns, folder_stamp, list_entry_files, FolderStamp, Listed,
};
use crate::store::Store;
use anyhow::Result;

/// Loads the snapshot (see [`Check`] for how the index is trusted): from `index.bin` when it
/// describes the entry files there are, else by re-reading every entry file (then the derived
/// files are marked for saving). Never fails on a bad derived file; fails only when the entries
/// dir exists but cannot be listed.
pub(crate) fn load(store: &Store, check: Check) -> Result<Snapshot> {
    load_within(store, check, usize::MAX, u64::MAX)?
        .ok_or_else(|| anyhow::anyhow!("could not load the index within an unbounded read"))
}

/// [`load`], or `None` when that would read more than `max_reads` entry files or more than
/// `max_bytes` of them (the index is missing, stale or unusable on a large store: a fresh
/// clone, a `git pull` of many charts, or of a few huge ones). For the hooks, which must return
/// promptly: at 100,000 entries a full rebuild takes many seconds, more than a host waits for a
/// hook; `ask`, `chart` and `prune` rebuild it.
///
/// Errors: as [`load`].
pub(crate) fn load_within(
    store: &Store,
    check: Check,
    max_reads: usize,
    max_bytes: u64,
) -> Result<Option<Snapshot>> {
    load_bounded(store, check, (max_reads, max_bytes), TRUSTED_READ_MAX)
}

/// [`load_within`] with `trusted_max`, the most bytes of `index.bin` the folder stamp's
/// shortcut reads before anything is listed (a parameter so a test can stand for a store whose
/// index is larger than that).
fn load_bounded(
    store: &Store,
    check: Check,
    (max_reads, max_bytes): (usize, u64),
    trusted_max: u64,
) -> Result<Option<Snapshot>> {
    store.check_dirs()?;
    let start_ns = crate::store::fresh::now_ns();
    let dir = store.entries_dir();
    let folder = folder_stamp(&dir);
    let model = semantic_model(store);
    // What a Check::Folder read found when the folder stamp could not vouch for it (a store
    // under FOLDER_TRUST_MIN_FILES, a racy or changed folder): compared with the listing below
    // rather than read again. `None` when no such read was made.
    let mut read_before = None;
    if let (Check::Folder, Some(f)) = (check, folder) {
        match trusted_by_folder(store, f, model, trusted_max) {
            Trusted::Yes(snap) => return Ok(Some(snap)),
            Trusted::No(read) => read_before = Some(read),
        }
    }
    let (listing, saw_temp_files) = list_entry_files(&dir)?;
    let limit = limit_for(listing::totals(&listing));
    let read = match read_before {
        // Read under the larger bound: kept only if it also fits the listing's.
        Some(Some(read)) => Some(read).filter(|(_, size)| *size <= limit),
        // No read yet, or the first found nothing it could use: an index over
        // TRUSTED_READ_MAX (a store of about 100,000 charts) is read under the listing's
        // bound here, not rebuilt from every entry file on each run.
        _ => read_index(store, limit, model),
    };
    let indexed = read.and_then(|(snap, _)| Some((snap.decoded_listing()?, snap)));
    if let Some((old, mut snap)) = indexed {
        let built_at_ns = snap.built_at_ns;
        let changes = changes_since(store, &snap, &old, &listing, built_at_ns);
        if changes.removed.is_empty() && changes.changed.is_empty() {
            snap.unchanged(listing, folder, changes.racy, start_ns);
            snap.saw_temp_files = saw_temp_files;
            return Ok(Some(snap));
        }
        match splice(
            store, &mut snap, old, &changes, &listing, max_reads, max_bytes,
        ) {
            Spliced::Done if crate::store::budget::spent() => return Ok(None),
            Spliced::Done => {
                snap.folder = folder;
                snap.saw_temp_files = saw_temp_files;
                return Ok(Some(snap));
            }
            Spliced::OverBounds => return Ok(None),
            Spliced::ReadAll => {}
        }
    }
    if listing.len() > max_reads || listing::totals(&listing).1 > max_bytes {
        return Ok(None);
    }
    let mut snap = Snapshot::rebuild(store, listing, folder, start_ns)?;
    if crate::store::budget::spent() {
        // A hook's budget ran out during the build (crate::store::budget): what was built is
        // incomplete and dropped; the next writer builds it.
        return Ok(None);
    }
    snap.saw_temp_files = saw_temp_files;
    Ok(Some(snap))
}

/// What [`read_index`] gave.
type IndexRead = Option<(Snapshot, u64)>;

/// What [`trusted_by_folder`] found.
enum Trusted {
    /// The index, vouched for by the folder's stamp.
    Yes(Snapshot),
    /// Not vouched for: what the read found, for the next strategies.
    No(IndexRead),
}

/// The first strategy of [`load_within`], for [`Check::Folder`]: the index alone, when the
/// entries folder's stamp `f` is the one it records, not racy, over a store of at least
/// [`FOLDER_TRUST_MIN_FILES`] entries.
fn trusted_by_folder(
    store: &Store,
    f: FolderStamp,
    model: Option<&'static Model>,
    max: u64,
) -> Trusted {
    match read_index(store, max, model) {
        Some((snap, _))
            if snap.folder == Some(f)
                && !f.is_racy(snap.built_at_ns)
                && snap.listed.0 >= FOLDER_TRUST_MIN_FILES =>
        {
            Trusted::Yes(snap)
        }
        read => Trusted::No(read),
    }
}

/// How the entry files listed now differ from the listing the index was built from.
struct Changes {
    /// Entry files gone since.
    removed: Vec<String>,
    /// Entry files added or rewritten since, and racy ones whose text disagrees with the index.
    changed: Vec<String>,
    /// How many files were written within the racy window of the index's build time.
    racy: usize,
}

/// Compares the listing `now` with the index's `old` one (built at `built_at_ns`). Entries
/// written within the racy window may have changed without changing their stamp: those are
/// re-read and compared with the index.
fn changes_since(
    store: &Store,
    snap: &Snapshot,
    old: &[Listed],
    now: &[Listed],
    built_at_ns: i64,
) -> Changes {
    let (removed, mut changed) = listing::diff(old, now);
    let racy: Vec<&Listed> = now
        .iter()
        .filter(|l| l.mtime_ns.saturating_add(entry_racy_window_ns(l.mtime_ns)) >= built_at_ns)
        .collect();
    let disagree: Vec<String> = racy
        .iter()
        .filter(|l| changed.binary_search(&l.name).is_err())
        .filter(|l| !snap.agrees_with_file(store, &l.name))
        .map(|l| l.name.clone())
        .collect();
    changed.extend(disagree);
    Changes {
        removed,
        changed,
        racy: racy.len(),
    }
}

/// What [`splice`] came to.
enum Spliced {
    /// The changed entries were read and spliced in.
    Done,
    /// Splicing would read more than the bounds allow.
    OverBounds,
    /// Most entries changed, or the splice failed: read them all.
    ReadAll,
}

/// The third strategy of [`load_within`]: entry files added, removed or rewritten by another
/// tool (a `git pull`, an editor) are read alone and spliced into the index's snapshot, as a
/// writer's own change is (when most of them changed, reading them all is as cheap). `snap` is
/// left unusable unless it says [`Spliced::Done`].
fn splice(
    store: &Store,
    snap: &mut Snapshot,
    old: Vec<Listed>,
    changes: &Changes,
    listing: &[Listed],
    max_reads: usize,
    max_bytes: u64,
) -> Spliced {
    let Changes {
        removed, changed, ..
    } = changes;
    snap.listed = listing::totals(&old);
    snap.listing = Some(old);
    let few = 2 * (removed.len() + changed.len()) <= listing.len().max(16);
    if !few {
        return Spliced::ReadAll;
    }
    let changed_bytes = changed
        .iter()
        .filter_map(|n| {
            // The listing is sorted by name.
            let at = listing.binary_search_by(|l| l.name.as_str().cmp(n)).ok()?;
            listing.get(at)
        })
        .fold(0u64, |sum, l| sum.saturating_add(l.size));
    if changed.len() > max_reads || changed_bytes > max_bytes {
        return Spliced::OverBounds;
    }
    match snap.refresh(store, removed, changed, listing) {
        Ok(()) => Spliced::Done,
        Err(_) => Spliced::ReadAll,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index larger than the folder shortcut's read bound (a store of about 100,000 charts
    /// has one over 64 MiB) is read under the listing's bound, not rebuilt from every entry
    /// file on every run (4 s a miss at 100,000 charts).
    #[test]
    fn an_index_over_the_shortcut_bound_is_read_not_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().canonicalize().unwrap());
        std::fs::create_dir_all(store.entries_dir()).unwrap();
        for i in 0..3u32 {
            let text = format!(
                "---\ncapn: 1\nid: {:08x}\nat: 2026-01-01T00:00:00Z\nfiles:\n  src/a.ts: {:064x}\n---\n\n# Where is topic{i} handled?\n",
                0x1000_0000 + i,
                i
            );
            std::fs::write(store.entry_path(&format!("{:08x}", 0x1000_0000 + i)), text).unwrap();
        }
        let mut snap = load(&store, Check::Folder).unwrap();
        super::super::save(&store, &mut snap).unwrap();
        assert!(store.index_path().exists(), "the index is saved");
        let unbounded = (usize::MAX, u64::MAX);
        let read = load_bounded(&store, Check::Folder, unbounded, 16)
            .unwrap()
            .unwrap();
        assert!(!read.index_dirty, "rebuilt from the entry files");
        assert_eq!(read.ids, snap.ids);
    }
}
