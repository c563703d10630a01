//! The listing of the entries folder: which `*.md` files it holds, with the stamp (inode, size,
//! mtime, ctime) that reveals a file replaced by rename or edited in place, and the stamp of the
//! folder itself ([`FolderStamp`]). `index.bin` records the
//! listing it was built from; [`super::index::load`] compares it with the folder.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One `*.md` file in the entries folder: its name and what identifies its version (inode, size,
/// mtime and ctime in ns), so an entry replaced by rename or edited in place is noticed. The
/// ctime matters because tools can put an mtime back (`cp -p`, `rsync -a --inplace`,
/// `touch -r`) after an in-place write of the same size; nothing but the kernel sets a ctime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Listed {
    pub(super) name: String,
    pub(super) ino: u64,
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    pub(super) ctime_ns: i64,
}

/// Above this many entry files in the racy window, a writer re-saves the index once they are
/// verified; below it, re-reading them is cheaper than rewriting the index.
pub(super) const RACY_RESAVE_MIN: usize = 16;

/// The racy window for entry files: an entry whose mtime is this close to the index build may
/// have been rewritten within the same timestamp tick without changing its stamp, so it is
/// re-read and compared. The tick is what matters: on a file system with sub-second timestamps
/// (an mtime with a fractional part) a tick is at most a few milliseconds, so 50 ms covers it;
/// on one with whole-second timestamps (FAT, older HFS+), 2 seconds, format.md's window.
pub(super) fn entry_racy_window_ns(mtime_ns: i64) -> i64 {
    if mtime_ns % 1_000_000_000 == 0 {
        super::fresh::RACY_NS
    } else {
        50_000_000
    }
}

/// The entry file names (`<id>.md`) in the entries folder `dir`, sorted; a missing folder has
/// none. For readers that go through the files themselves (`list`, `doctor`).
///
/// Errors: `could not list entries: <dir>: ...`.
pub(crate) fn entry_names(dir: &Path) -> Result<Vec<String>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(e).with_context(|| format!("could not list entries: {}", dir.display()))
        }
    };
    let mut names: Vec<String> = rd
        .flatten()
        .filter_map(|d| d.file_name().to_str().map(str::to_string))
        .filter(|n| super::entry::is_entry_file_name(n))
        .collect();
    names.sort_unstable();
    Ok(names)
}

/// Lists `*.md` files in the entries dir with their stamps, sorted by name, and whether temp
/// files of an interrupted write were seen. A missing dir is an empty list.
pub(super) fn list_entry_files(dir: &Path) -> Result<(Vec<Listed>, bool)> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), false)),
        Err(e) => {
            return Err(e).with_context(|| format!("could not list entries: {}", dir.display()))
        }
    };
    let mut names = Vec::new();
    let mut saw_temp_files = false;
    for de in rd {
        let Ok(de) = de else { continue };
        let name = de.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(crate::fsutil::TEMP_PREFIX) {
            saw_temp_files = true;
        }
        if !super::entry::is_entry_file_name(name) {
            continue;
        }
        names.push(name.to_string());
    }
    names.sort_unstable();
    // One stat per entry file, on a few threads: in-place edits keep the inode, so only size
    // and mtime reveal them. A file that vanished meanwhile (deleted by a writer) is skipped.
    // Symlinks are not followed: one is listed as it is, and reading it is refused (reported as
    // malformed), so a symlinked entry never reads or reveals anything outside the store.
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let stats = crate::fsutil::stat_names_in(dir, &refs, false);
    drop(refs);
    let listing = names
        .into_iter()
        .zip(stats)
        .filter_map(|(name, st)| Listed::stat(name, st))
        .collect();
    Ok((listing, saw_temp_files))
}

impl Listed {
    /// The entry file `name` with the stamp (inode, size, mtime, ctime) its stat `st` gave: any
    /// kind (a symlink, a folder or a special file is listed so that reading it reports it);
    /// `None` when it is gone.
    pub(super) fn stat(name: String, st: crate::fsutil::StatResult) -> Option<Listed> {
        st.ok().map(|st| Listed {
            name,
            ino: st.ino,
            size: st.size,
            mtime_ns: st.mtime_ns,
            ctime_ns: st.ctime_ns,
        })
    }
}

/// What identifies a version of the entries folder itself: its inode and its mtime and ctime
/// in ns. Creating, deleting or renaming a file in a folder updates its mtime (POSIX), so while
/// the stamp is the one `index.bin` was built with, the index lists exactly the entry files
/// there are, without a `readdir` or a stat per file. An entry edited in place (same name, same
/// inode) leaves the folder's stamp alone; readers catch it when they read the entry
/// ([`super::index::Snapshot::agrees_with`]) and by writers that list every file on load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FolderStamp {
    ino: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

/// The stamp of the entries folder `dir`; `None` when it is missing, not a folder (a symlink
/// is not followed) or cannot be stat'ed.
pub(super) fn folder_stamp(dir: &Path) -> Option<FolderStamp> {
    let st = crate::fsutil::FileStat::of(&std::fs::symlink_metadata(dir).ok()?);
    (st.kind == crate::fsutil::FileKind::Dir).then_some(FolderStamp {
        ino: st.ino,
        mtime_ns: st.mtime_ns,
        ctime_ns: st.ctime_ns,
    })
}

impl FolderStamp {
    /// True when the folder could have changed again, within the same timestamp tick, after
    /// this stamp was taken at `taken_ns` (Unix ns), so the stamp proves nothing. That matters
    /// on file systems with whole-second timestamps (format.md's 2-second racy window); with
    /// sub-second timestamps the only writer in the folder is capn under its lock, which takes
    /// the stamp after its own change.
    pub(super) fn is_racy(&self, taken_ns: i64) -> bool {
        self.mtime_ns % 1_000_000_000 == 0
            && self.mtime_ns.saturating_add(super::fresh::RACY_NS) >= taken_ns
    }
}

/// `listing` as `index.bin` stores it: one postcard byte string, decoded only by a loader that
/// compares it with the folder ([`decode`]).
pub(super) fn encode(listing: &[Listed]) -> Vec<u8> {
    postcard::to_stdvec(listing).unwrap_or_default()
}

/// The listing [`encode`] wrote; `None` for bytes that do not decode.
pub(super) fn decode(bytes: &[u8]) -> Option<Vec<Listed>> {
    postcard::from_bytes(bytes).ok()
}

/// The same fields as [`Listed`], in the same order, with the name borrowed from the encoded
/// bytes: [`stamps_in`] walks the listing without an allocation per file.
#[derive(Deserialize)]
struct ListedRef<'a> {
    name: &'a str,
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

/// The stamps of the files `names` (sorted, no name twice) in the listing [`encode`] wrote, in
/// the order of `names` (`None`: not listed). It walks the bytes only as far as the last name
/// (the listing is sorted), so a writer that changed a few files decodes no listing of the
/// whole store. `None` for bytes that do not decode.
pub(super) fn stamps_in(bytes: &[u8], names: &[&str]) -> Option<Vec<Option<Listed>>> {
    let mut out = vec![None; names.len()];
    let (count, mut rest) = postcard::take_from_bytes::<usize>(bytes).ok()?;
    let mut at = 0;
    for _ in 0..count {
        if at == names.len() {
            break;
        }
        let (l, tail) = postcard::take_from_bytes::<ListedRef<'_>>(rest).ok()?;
        rest = tail;
        while names.get(at).is_some_and(|n| *n < l.name) {
            at += 1;
        }
        if names.get(at) == Some(&l.name) {
            out[at] = Some(Listed {
                name: l.name.to_string(),
                ino: l.ino,
                size: l.size,
                mtime_ns: l.mtime_ns,
                ctime_ns: l.ctime_ns,
            });
            at += 1;
        }
    }
    Some(out)
}

/// The number of entry files in `listing` and their total size in bytes (the inputs of
/// [`crate::fsutil::limits::derived`]).
pub(super) fn totals(listing: &[Listed]) -> (u64, u64) {
    let bytes = listing
        .iter()
        .map(|l| l.size)
        .fold(0u64, u64::saturating_add);
    (listing.len() as u64, bytes)
}

/// What changed between the listing an index was built from (`old`) and the folder's listing
/// now (`new`), both sorted by name: the names gone, and the names added or whose stamp
/// differs (rewritten, replaced, edited in place).
pub(super) fn diff(old: &[Listed], new: &[Listed]) -> (Vec<String>, Vec<String>) {
    let (mut removed, mut changed) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a.name == b.name => {
                if a != b {
                    changed.push(b.name.clone());
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.name < b.name => {
                removed.push(a.name.clone());
                i += 1;
            }
            (Some(a), None) => {
                removed.push(a.name.clone());
                i += 1;
            }
            (_, Some(b)) => {
                changed.push(b.name.clone());
                j += 1;
            }
            (None, None) => break,
        }
    }
    (removed, changed)
}
