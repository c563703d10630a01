//! File metadata without reading: the stat of one file ([`FileStat::of`]) and of many names in one
//! folder ([`stat_names_in`]), which is what staleness checks compare.

use super::par_chunks;
use std::fs;
use std::path::Path;

/// What kind of file a [`FileStat`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (only from a no-follow stat).
    Symlink,
    /// Anything else (FIFO, socket, device).
    Other,
}

/// The metadata capn compares: inode, size in bytes, mtime and ctime in ns since the epoch, kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStat {
    /// Inode number (0 where the platform has none).
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, ns since the Unix epoch.
    pub mtime_ns: i64,
    /// Status-change time, ns since the Unix epoch (0 where the platform has none).
    pub ctime_ns: i64,
    /// File kind.
    pub kind: FileKind,
}

impl FileStat {
    /// The stat of `meta` (as `std::fs::metadata` or `symlink_metadata` returned it).
    #[cfg(unix)]
    pub(crate) fn of(meta: &fs::Metadata) -> FileStat {
        use std::os::unix::fs::MetadataExt;
        FileStat {
            ino: meta.ino(),
            size: meta.len(),
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
            kind: FileKind::of(&meta.file_type()),
        }
    }

    /// The stat of `meta` (as `std::fs::metadata` or `symlink_metadata` returned it).
    #[cfg(not(unix))]
    pub(crate) fn of(meta: &fs::Metadata) -> FileStat {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        FileStat {
            ino: 0,
            size: meta.len(),
            mtime_ns,
            ctime_ns: 0,
            kind: FileKind::of(&meta.file_type()),
        }
    }
}

impl FileKind {
    fn of(ft: &fs::FileType) -> FileKind {
        if ft.is_symlink() {
            FileKind::Symlink
        } else if ft.is_dir() {
            FileKind::Dir
        } else if ft.is_file() {
            FileKind::File
        } else {
            FileKind::Other
        }
    }
}

/// What a stat of one name gave: its metadata, or the error kind (`NotFound`/`NotADirectory`
/// for a name that is not there, anything else for one that could not be checked).
pub(crate) type StatResult = std::result::Result<FileStat, std::io::ErrorKind>;

/// Stats `names` (single path components) inside the directory `dir`, on up to 4 threads, in
/// order. `follow` follows a final symlink.
///
/// On Unix each thread opens `dir` once and uses `fstatat` relative to it, so the kernel resolves
/// one component per file instead of the whole path: on a store of 10,000 entries this is most
/// of what `ask` spends its time on.
pub(crate) fn stat_names_in(dir: &Path, names: &[&str], follow: bool) -> Vec<StatResult> {
    par_chunks(names, 512, |part| stat_names_in_serial(dir, part, follow))
}

/// [`stat_names_in`] on the calling thread only.
#[cfg(unix)]
pub(crate) fn stat_names_in_serial(dir: &Path, names: &[&str], follow: bool) -> Vec<StatResult> {
    use rustix::fs::{openat, statat, AtFlags, FileType, Mode, OFlags, CWD};
    // O_PATH (no read permission needed, nothing opened for I/O) is Linux-only; elsewhere a
    // read-only open of the folder serves `fstatat` as well.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let how = OFlags::PATH;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let how = OFlags::RDONLY;
    let fd = match openat(
        CWD,
        dir,
        how | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(e) => return vec![Err(std::io::Error::from(e).kind()); names.len()],
    };
    let flags = if follow {
        AtFlags::empty()
    } else {
        AtFlags::SYMLINK_NOFOLLOW
    };
    names
        .iter()
        .map(|name| {
            let st = statat(&fd, *name, flags).map_err(|e| std::io::Error::from(e).kind())?;
            let kind = match FileType::from_raw_mode(st.st_mode as _) {
                FileType::RegularFile => FileKind::File,
                FileType::Directory => FileKind::Dir,
                FileType::Symlink => FileKind::Symlink,
                _ => FileKind::Other,
            };
            Ok(FileStat {
                ino: st.st_ino as u64,
                size: st.st_size as u64,
                mtime_ns: st.st_mtime as i64 * 1_000_000_000 + st.st_mtime_nsec as i64,
                ctime_ns: st.st_ctime as i64 * 1_000_000_000 + st.st_ctime_nsec as i64,
                kind,
            })
        })
        .collect()
}

/// [`stat_names_in`] on the calling thread only.
#[cfg(not(unix))]
pub(crate) fn stat_names_in_serial(dir: &Path, names: &[&str], follow: bool) -> Vec<StatResult> {
    names
        .iter()
        .map(|name| {
            let p = dir.join(name);
            let m = if follow {
                fs::metadata(&p)
            } else {
                fs::symlink_metadata(&p)
            };
            m.map(|m| FileStat::of(&m)).map_err(|e| e.kind())
        })
        .collect()
}
