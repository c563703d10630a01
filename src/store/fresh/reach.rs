//! Reaching a backing file as a freshness check may: never through a symlinked folder that
//! leaves the project, never past [`MAX_BACKING_BYTES`], a symlinked file only when its target is
//! inside the root (format.md, "Staleness"). The stamps ([`Stamp`]) the stat cache compares and
//! the streamed SHA-256 ([`hash_backing_file`]).

use super::cache_file::Stamp;
use super::{FileState, MAX_BACKING_BYTES};
use crate::store::paths::abs_of;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::path::Path;

/// What a check on the way to a file gave when it did not give a stamp: the file is gone, or
/// could not be checked.
pub(super) type Missed = FileState;

/// The state for an I/O error kind met while checking a file: not there means gone; anything
/// else means it could not be checked.
fn missed(kind: std::io::ErrorKind) -> Missed {
    match kind {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => FileState::Gone,
        k => FileState::Unchecked(k),
    }
}

impl From<crate::fsutil::FileStat> for Stamp {
    fn from(st: crate::fsutil::FileStat) -> Stamp {
        Stamp {
            size: st.size,
            mtime_ns: st.mtime_ns,
            ctime_ns: st.ctime_ns,
            ino: st.ino,
        }
    }
}

/// The stamp of a file's metadata.
pub(super) fn stamp_of(meta: &std::fs::Metadata) -> Stamp {
    crate::fsutil::FileStat::of(meta).into()
}

/// A stamp for a regular file within [`MAX_BACKING_BYTES`]; other kinds are gone, a larger
/// file cannot be checked.
fn stamp_if_regular(st: crate::fsutil::FileStat) -> Result<Stamp, Missed> {
    match st.kind {
        crate::fsutil::FileKind::File if st.size > MAX_BACKING_BYTES => {
            Err(FileState::Unchecked(std::io::ErrorKind::FileTooLarge))
        }
        crate::fsutil::FileKind::File => Ok(st.into()),
        _ => Err(FileState::Gone),
    }
}

/// Whether each directory on the way to `keys` (every `/`-prefix of a key) is inside `root`:
/// a real directory, or a symlink whose target is inside the root (format.md, "Staleness"). A
/// file reached through a symlinked directory that leads out of the project is not a backing
/// file. Checked once per directory, parents first.
pub(super) fn dirs_inside_root<'a>(
    root: &Path,
    keys: &[&'a str],
) -> std::collections::HashMap<&'a str, Result<(), Missed>> {
    // Each distinct folder once (a store of 10,000 files has a few hundred), parents first.
    let mut unique: std::collections::HashSet<&'a str> = std::collections::HashSet::new();
    for k in keys {
        let Some((dir, _)) = k.rsplit_once('/') else {
            continue;
        };
        if !unique.insert(dir) {
            continue;
        }
        let mut end = 0;
        while let Some(i) = dir[end..].find('/') {
            unique.insert(&dir[..end + i]);
            end += i + 1;
        }
    }
    let mut dirs: Vec<(usize, &'a str)> = unique
        .into_iter()
        .map(|d| (d.matches('/').count(), d))
        .collect();
    dirs.sort_unstable();
    let dirs: Vec<&'a str> = dirs.into_iter().map(|(_, d)| d).collect();
    let mut ok = std::collections::HashMap::with_capacity(dirs.len());
    for d in dirs {
        let parent = match d.rsplit_once('/') {
            None => Ok(()),
            Some((p, _)) => ok.get(p).copied().unwrap_or(Err(FileState::Gone)),
        };
        ok.insert(d, parent.and_then(|()| dir_inside_root(root, d)));
    }
    ok
}

/// What a backing file reached through a symlinked folder that leaves the project is: not
/// checked (hidden, kept, noted), never statted through the link (a repository's link must not
/// make capn look outside the project). The note says so ([`crate::store::stale`]).
pub(crate) const LEAVES_PROJECT: std::io::ErrorKind = std::io::ErrorKind::InvalidInput;

/// Whether the directory `dir` (a key prefix) is a directory inside `root`, following a symlink
/// only if its target is inside: `Err(Gone)` when it is not a directory, `Err(Unchecked)` when
/// that cannot be told (permission denied on the way) or the symlink leads out of the project
/// ([`LEAVES_PROJECT`]: its target is judged by its text first, so nothing outside is statted
/// through it).
fn dir_inside_root(root: &Path, dir: &str) -> Result<(), Missed> {
    let abs = abs_of(root, dir);
    let is_dir = match std::fs::symlink_metadata(&abs) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(&abs).map_err(|e| missed(e.kind()))?;
            let parent = abs.parent().unwrap_or(root);
            let inside = crate::store::paths::normalize(&parent.join(target))
                .is_some_and(|t| crate::pathcmp::within(&t, root));
            if !inside {
                return Err(FileState::Unchecked(LEAVES_PROJECT));
            }
            match std::fs::canonicalize(&abs) {
                Ok(t) if !t.starts_with(root) => return Err(FileState::Unchecked(LEAVES_PROJECT)),
                Ok(t) => t.is_dir(),
                Err(e) => return Err(missed(e.kind())),
            }
        }
        Ok(m) => m.is_dir(),
        Err(e) => return Err(missed(e.kind())),
    };
    if is_dir {
        Ok(())
    } else {
        Err(FileState::Gone)
    }
}

/// [`stat_backing_file`] for many keys: grouped by folder, each folder's files stat'ed relative
/// to it (one path component per file for the kernel to resolve), folders spread over a few
/// threads. Keys under a folder that [`dirs_inside_root`] rejected are `None`.
pub(super) fn stat_backing_files(
    root: &Path,
    keys: &[&str],
    dirs: &std::collections::HashMap<&str, Result<(), Missed>>,
) -> Vec<Result<Stamp, Missed>> {
    let mut out = vec![Err(FileState::Gone); keys.len()];
    let mut groups: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        let dir = k.rsplit_once('/').map_or("", |(d, _)| d);
        match dirs.get(dir).copied().unwrap_or(Ok(())) {
            Ok(()) => groups.entry(dir).or_default().push(i),
            Err(m) => out[i] = Err(m),
        }
    }
    let groups: Vec<(&str, Vec<usize>)> = groups.into_iter().collect();
    let stat_group = |(dir, idx): &(&str, Vec<usize>)| -> Vec<(usize, Result<Stamp, Missed>)> {
        let abs = if dir.is_empty() {
            root.to_path_buf()
        } else {
            abs_of(root, dir)
        };
        let names: Vec<&str> = idx
            .iter()
            .map(|&i| keys[i].rsplit_once('/').map_or(keys[i], |(_, n)| n))
            .collect();
        let stats = if groups.len() < 4 {
            crate::fsutil::stat_names_in(&abs, &names, false)
        } else {
            crate::fsutil::stat_names_in_serial(&abs, &names, false)
        };
        idx.iter()
            .zip(stats)
            .map(|(&i, st)| {
                let stamp = match st {
                    // A symlink: followed only if its target is inside the root.
                    Ok(st) if st.kind == crate::fsutil::FileKind::Symlink => {
                        stat_backing_file(root, keys[i])
                    }
                    Ok(st) => stamp_if_regular(st),
                    Err(kind) => Err(missed(kind)),
                };
                (i, stamp)
            })
            .collect()
    };
    for part in crate::fsutil::par_map(&groups, 8, stat_group) {
        for (i, st) in part {
            out[i] = st;
        }
    }
    out
}

/// The stamp of the backing file `key` under `root`, checking first that no folder on the way
/// leaves the root.
pub(super) fn stamp_of_key(root: &Path, key: &str) -> Result<Stamp, Missed> {
    let dirs = dirs_inside_root(root, &[key]);
    match dirs.values().find_map(|d| d.err()) {
        Some(m) => Err(m),
        None => stat_backing_file(root, key),
    }
}

/// The stamp of a backing file; `Err(Gone)` when it is missing, not a regular file, or a
/// symlink whose target is outside `root` (format.md, "Staleness"); `Err(Unchecked)` when that
/// cannot be told.
fn stat_backing_file(root: &Path, key: &str) -> Result<Stamp, Missed> {
    let abs = abs_of(root, key);
    let lmeta = std::fs::symlink_metadata(&abs).map_err(|e| missed(e.kind()))?;
    let meta = if lmeta.file_type().is_symlink() {
        let target = std::fs::canonicalize(&abs).map_err(|e| missed(e.kind()))?;
        if !target.starts_with(root) {
            return Err(FileState::Gone);
        }
        std::fs::metadata(&target).map_err(|e| missed(e.kind()))?
    } else {
        lmeta
    };
    stamp_if_regular(crate::fsutil::FileStat::of(&meta))
}

/// Streams a backing file through SHA-256, opened under fsutil's rules: non-blocking, a regular
/// file, symlinks followed only while the opened file is inside `root`, at most
/// [`MAX_BACKING_BYTES`].
///
/// Errors: the file cannot be opened or read; [`crate::fsutil::ReadError::is_gone`] tells a file
/// that is not there (or not a regular file inside the root) from one that could not be read.
pub(crate) fn hash_backing_file(
    root: &Path,
    path: &Path,
) -> std::result::Result<[u8; 32], crate::fsutil::ReadError> {
    use crate::fsutil::{open_regular, Follow, ReadError};
    let (f, _) = open_regular(path, MAX_BACKING_BYTES, Follow::Inside(root))?;
    let mut h = Sha256::new();
    std::io::copy(&mut std::io::Read::take(f, MAX_BACKING_BYTES), &mut h).map_err(ReadError::Io)?;
    Ok(h.finalize().into())
}

/// [`hash_backing_file`] with the error as `could not hash file: <path>: <reason>`.
///
/// Errors: as [`hash_backing_file`].
pub(crate) fn hash_file(root: &Path, path: &Path) -> Result<[u8; 32]> {
    hash_backing_file(root, path)
        .map_err(anyhow::Error::new)
        .with_context(|| format!("could not hash file: {}", path.display()))
}

/// The state for a hashing error.
pub(super) fn hash_missed(e: &crate::fsutil::ReadError) -> Missed {
    match e {
        e if e.is_gone() => FileState::Gone,
        crate::fsutil::ReadError::Io(io) => missed(io.kind()),
        crate::fsutil::ReadError::TooLarge { .. } => {
            FileState::Unchecked(std::io::ErrorKind::FileTooLarge)
        }
        _ => FileState::Unchecked(std::io::ErrorKind::Other),
    }
}
