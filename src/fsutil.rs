//! File-system helpers: the one atomic write every persisted file goes through, and reads that
//! name their path in errors.

use anyhow::{Context, Result};
use std::fs;
use std::io::Write;
use std::path::Path;

/// The name prefix of the temp files [`write_atomic`] creates (a crash can leave one behind;
/// writers remove old ones, see [`remove_stale_temp_files`]).
pub const TEMP_PREFIX: &str = ".capn-tmp-";

/// Removes `.capn-tmp-*` files in `dir` older than `max_age` (left by a process killed between
/// creating and renaming them). Errors are ignored: this is housekeeping.
pub fn remove_stale_temp_files(dir: &Path, max_age: std::time::Duration) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    let now = std::time::SystemTime::now();
    for de in rd.flatten() {
        if !de.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let old = de
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > max_age));
        if old {
            let _ = fs::remove_file(de.path());
        }
    }
}

/// Runs `f` over `items` on up to 4 threads (one for small inputs: below `min_chunk` items per
/// thread), keeping the order. For batches of independent syscalls (`stat`, hashing).
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    min_chunk: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    par_chunks(items, min_chunk, |part| part.iter().map(&f).collect())
}

/// Splits `items` into up to 4 contiguous chunks (one when there are fewer than `min_chunk`
/// items per thread), runs `f` on each chunk on its own thread, and concatenates the results in
/// order. `f` returns one result per item of its chunk.
pub fn par_chunks<T: Sync, R: Send>(
    items: &[T],
    min_chunk: usize,
    f: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(4)
        .min(items.len().div_ceil(min_chunk.max(1)));
    if threads < 2 {
        return f(items);
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(move || f(part)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread panicked"))
            .collect()
    })
}

/// What kind of file a [`FileStat`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
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
pub struct FileStat {
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
    pub fn of(meta: &fs::Metadata) -> FileStat {
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
    pub fn of(meta: &fs::Metadata) -> FileStat {
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

/// Stats `names` (single path components) inside the directory `dir`, on up to 4 threads, in
/// order; `None` for a name that cannot be stat'ed. `follow` follows a final symlink.
///
/// On Unix each thread opens `dir` once and uses `fstatat` relative to it, so the kernel resolves
/// one component per file instead of the whole path: on a store of 10,000 entries this is most
/// of what `ask` spends its time on.
pub fn stat_names_in(dir: &Path, names: &[&str], follow: bool) -> Vec<Option<FileStat>> {
    par_chunks(names, 512, |part| stat_names_in_serial(dir, part, follow))
}

/// [`stat_names_in`] on the calling thread only.
#[cfg(unix)]
pub fn stat_names_in_serial(dir: &Path, names: &[&str], follow: bool) -> Vec<Option<FileStat>> {
    use rustix::fs::{openat, statat, AtFlags, FileType, Mode, OFlags, CWD};
    let Ok(fd) = openat(
        CWD,
        dir,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return vec![None; names.len()];
    };
    let flags = if follow {
        AtFlags::empty()
    } else {
        AtFlags::SYMLINK_NOFOLLOW
    };
    names
        .iter()
        .map(|name| {
            let st = statat(&fd, *name, flags).ok()?;
            let kind = match FileType::from_raw_mode(st.st_mode as _) {
                FileType::RegularFile => FileKind::File,
                FileType::Directory => FileKind::Dir,
                FileType::Symlink => FileKind::Symlink,
                _ => FileKind::Other,
            };
            Some(FileStat {
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
pub fn stat_names_in_serial(dir: &Path, names: &[&str], follow: bool) -> Vec<Option<FileStat>> {
    names
        .iter()
        .map(|name| {
            let p = dir.join(name);
            let m = if follow {
                fs::metadata(&p)
            } else {
                fs::symlink_metadata(&p)
            };
            m.ok().map(|m| FileStat::of(&m))
        })
        .collect()
}

/// How much a write must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `fsync` before the rename: the new content survives a power loss. For files that are a
    /// source of truth (entries, settings, state files, hooks).
    Durable,
    /// No `fsync` (still temp file + rename, so readers never see a torn file). Only for derived
    /// files that every reader validates and rebuilds when missing or corrupt (index, stat cache,
    /// map.json): after a power loss the worst case is an empty file that is rebuilt. An `fsync`
    /// costs 5-8 ms on the reference machine, more than the whole `chart` budget.
    Rebuildable,
    /// No `fsync` either: hook markers and stamps in the per-user state dir. A crash that loses
    /// one loses a one-time notice (a recovery note, a context warning), never data; the hooks
    /// that write them run on the host's hot path with a 2 ms budget.
    Transient,
}

/// Writes `bytes` to `path` atomically and durably: a temp file in the same folder, `fsync`, then
/// `rename` over `path`. Readers see the old content or the new one, never a torn file. The temp
/// file is removed on any error. An existing file's permissions are kept (so an executable git
/// hook stays executable).
///
/// Errors name the path: `could not write <path>: <cause>`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, bytes, Durability::Durable)
}

/// [`write_atomic`] with an explicit [`Durability`].
///
/// Errors name the path.
pub fn write_atomic_with(path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    // A symlink (a dotfile set-up linking settings.json elsewhere) is written through: its
    // target is replaced, the link stays a link.
    let resolved;
    let path = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            resolved = fs::canonicalize(path)
                .with_context(|| format!("could not resolve symlink {}", path.display()))?;
            resolved.as_path()
        }
        _ => path,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    // New files get the usual permissions (0666 minus the umask), not tempfile's private 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .with_context(|| format!("could not create a temp file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("could not write {}", path.display()))?;
    if let Ok(meta) = fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    if durability == Durability::Durable {
        tmp.as_file()
            .sync_all()
            .with_context(|| format!("could not sync {}", path.display()))?;
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("could not replace {}", path.display()))?;
    Ok(())
}

/// Like [`write_atomic_with`], but leaves the file alone (and returns `false`) when it already
/// holds exactly `bytes`. Returns `true` when it wrote.
pub fn write_if_changed(path: &Path, bytes: &[u8], durability: Durability) -> Result<bool> {
    if fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    write_atomic_with(path, bytes, durability)?;
    Ok(true)
}

/// Reads a file to a string, naming `what` and the path on error
/// (`could not read <what>: <path>: <cause>`).
pub fn read_to_string(path: &Path, what: &str) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("could not read {what}: {}", path.display()))
}

/// The most bytes [`read_host_file`] reads: host settings, hook scripts and `.gitignore` files
/// are a few KiB; anything bigger is not one of them.
pub const HOST_FILE_MAX: u64 = 4 << 20;

/// Reads a host file capn edits or checks (a settings file, `.gitignore`, a git hook, the skill
/// file) as bytes, without ever blocking or following a symlink: opened with `O_NOFOLLOW |
/// O_NONBLOCK`, then `fstat` must say it is a regular file of at most [`HOST_FILE_MAX`] bytes.
/// `Ok(None)` when the file does not exist.
///
/// Errors (naming `what` and the path): a symlink (dangling or not: capn never reads or writes
/// through one), a FIFO, socket, device or folder, a file too large, or any I/O error.
#[cfg(unix)]
pub fn read_host_file(path: &Path, what: &str) -> Result<Option<Vec<u8>>> {
    use rustix::fs::{fstat, open, FileType, Mode, OFlags};
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = match open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(rustix::io::Errno::LOOP) => {
            anyhow::bail!("could not read {what}: {}: it is a symlink", path.display())
        }
        Err(e) => {
            return Err(std::io::Error::from(e))
                .with_context(|| format!("could not read {what}: {}", path.display()))
        }
    };
    let st = fstat(&fd).with_context(|| format!("could not read {what}: {}", path.display()))?;
    let kind = FileType::from_raw_mode(st.st_mode as _);
    if kind != FileType::RegularFile {
        anyhow::bail!(
            "could not read {what}: {}: not a regular file ({})",
            path.display(),
            kind_name(kind)
        );
    }
    if st.st_size as u64 > HOST_FILE_MAX {
        anyhow::bail!(
            "could not read {what}: {}: larger than {} bytes",
            path.display(),
            HOST_FILE_MAX
        );
    }
    let mut bytes = Vec::with_capacity(st.st_size as usize);
    fs::File::from(fd)
        .take(HOST_FILE_MAX + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("could not read {what}: {}", path.display()))?;
    if bytes.len() as u64 > HOST_FILE_MAX {
        anyhow::bail!("could not read {what}: {}: too large", path.display());
    }
    Ok(Some(bytes))
}

#[cfg(unix)]
fn kind_name(kind: rustix::fs::FileType) -> &'static str {
    use rustix::fs::FileType;
    match kind {
        FileType::Directory => "a folder",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice | FileType::BlockDevice => "a device",
        FileType::Symlink => "a symlink",
        _ => "a special file",
    }
}

/// Reads a host file capn edits or checks (see the Unix version). Here: `std::fs::read` after a
/// no-follow metadata check.
///
/// Errors: a symlink, not a regular file, too large, an I/O error.
#[cfg(not(unix))]
pub fn read_host_file(path: &Path, what: &str) -> Result<Option<Vec<u8>>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(e).with_context(|| format!("could not read {what}: {}", path.display()))
        }
    };
    if !meta.file_type().is_file() || meta.len() > HOST_FILE_MAX {
        anyhow::bail!(
            "could not read {what}: {}: not a regular file",
            path.display()
        );
    }
    fs::read(path)
        .map(Some)
        .with_context(|| format!("could not read {what}: {}", path.display()))
}

/// Why capn must not write the host file at `path`, if it must not: a symlink (dangling or not),
/// anything but a regular file, a read-only file (no write bit at all, e.g. 0444: the owner
/// made it so, whoever runs capn), or a parent that is a symlink. `None` when it is a regular
/// writable file or does not exist (inside a real folder or a folder still to create).
pub fn unwritable_reason(path: &Path) -> Option<String> {
    if let Some(parent) = path.parent() {
        if fs::symlink_metadata(parent).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(format!("its folder {} is a symlink", parent.display()));
        }
    }
    let meta = fs::symlink_metadata(path).ok()?;
    let ft = meta.file_type();
    if ft.is_symlink() {
        let target = fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        let dangling = if fs::metadata(path).is_err() {
            " (dangling)"
        } else {
            ""
        };
        return Some(format!(
            "it is a symlink{dangling} to {target}; capn never writes through a symlink"
        ));
    }
    if !ft.is_file() {
        return Some("it is not a regular file".into());
    }
    if meta.permissions().readonly() {
        return Some("it is read-only".into());
    }
    None
}

/// Removes a file; a file that is already gone is not an error.
pub fn remove_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("could not remove {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "temp files left behind");
    }

    #[cfg(unix)]
    #[test]
    fn write_atomic_keeps_a_symlink_and_gives_new_files_normal_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.json");
        fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");
        let fresh = dir.path().join("fresh.txt");
        write_atomic(&fresh, b"x").unwrap();
        let mode = fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode & 0o044, 0, "new file is private: {mode:o}");
    }

    #[test]
    fn write_atomic_fails_cleanly_in_missing_dir() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing/f.txt");
        let err = write_atomic(&p, b"x").unwrap_err();
        assert!(format!("{err:#}").contains("missing"));
    }

    #[cfg(unix)]
    #[test]
    fn read_host_file_refuses_symlinks_fifos_and_folders_without_blocking() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.json");
        fs::write(&f, b"{}").unwrap();
        assert_eq!(read_host_file(&f, "settings").unwrap().unwrap(), b"{}");
        assert!(read_host_file(&dir.path().join("none"), "x")
            .unwrap()
            .is_none());
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        let e = format!("{:#}", read_host_file(&link, "settings").unwrap_err());
        assert!(e.contains("symlink") && e.contains("link.json"), "{e}");
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();
        assert!(read_host_file(&dangling, "settings").is_err());
        assert!(unwritable_reason(&dangling).unwrap().contains("dangling"));
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let e = format!("{:#}", read_host_file(&fifo, "settings").unwrap_err());
        assert!(e.contains("FIFO"), "{e}");
        assert!(read_host_file(dir.path(), "settings").is_err());
        assert!(unwritable_reason(&f).is_none());
        fs::set_permissions(&f, fs::Permissions::from_mode(0o444)).unwrap();
        assert_eq!(unwritable_reason(&f).as_deref(), Some("it is read-only"));
        assert!(unwritable_reason(&dir.path().join("new.json")).is_none());
    }

    #[test]
    fn write_if_changed_skips_identical_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let d = Durability::Rebuildable;
        assert!(write_if_changed(&p, b"a", d).unwrap());
        assert!(!write_if_changed(&p, b"a", d).unwrap());
        assert!(write_if_changed(&p, b"b", d).unwrap());
    }
}
