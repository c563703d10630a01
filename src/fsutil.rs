//! File-system access: the one atomic write every persisted file goes through, and the reads
//! every file capn opens goes through. The trust-boundary rules live here, in one place:
//!
//! - **No write through a symlink.** [`write_atomic_with`] writes a temp file next to the target
//!   and renames it over the target: a symlink found at the target is replaced by a regular file
//!   (its target is never opened), and a target whose folder is itself a symlink is refused.
//! - **No blocking on special files.** Every read opens with `O_NONBLOCK` and checks the opened
//!   descriptor (`fstat`, not a stat of the path before the open) is a regular file, so a FIFO or
//!   device swapped in at any moment gives [`ReadError::NotRegular`] instead of a hang.
//! - **No following out.** [`Follow::Never`] opens with `O_NOFOLLOW` (capn's own files, host
//!   settings); [`Follow::Inside`] follows symlinks but then checks where the opened file really
//!   is (`/proc/self/fd` on Linux) and refuses one outside the given root.
//! - **The user's own links.** The rules above guard against a repository steering capn's
//!   reads and writes. The home folder is not repository input: for the user-level files
//!   `init --user` edits, [`resolve_user_link`] follows the symlinks the user made there (a
//!   dotfiles set-up) to a regular file, which is then written in place, the link kept.
//! - **Bounded.** Every read has a byte limit per kind of file ([`limits`]), checked on the
//!   opened file's size before anything is allocated, and again while reading (a growing file).

use anyhow::{Context, Result};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

mod durable;
mod stat;
mod temp_files;
use durable::{is_transient_rename_error, retry_rename, sync_durable};
pub(crate) use stat::{stat_names_in, stat_names_in_serial, FileKind, FileStat, StatResult};
pub(crate) use temp_files::remove_stale_temp_files;

/// The error number of "too many levels of symbolic links" (ELOOP): 40 on Linux, 62 on macOS
/// and the BSDs; on Windows no such number, so a loop reads as a missing target.
#[cfg(target_os = "linux")]
const LOOP_ERRNO: i32 = 40;
#[cfg(all(unix, not(target_os = "linux")))]
const LOOP_ERRNO: i32 = 62;
#[cfg(not(unix))]
const LOOP_ERRNO: i32 = -1;
/// The name prefix of the temp files [`write_atomic`] creates: `.capn-tmp-<pid>-<random>` (a
/// crash can leave one behind; writers remove those whose process is gone, see
/// [`remove_stale_temp_files`]).
pub(crate) const TEMP_PREFIX: &str = ".capn-tmp-";

/// Byte limits per kind of file capn reads. A file over its limit is refused with
/// [`ReadError::TooLarge`], naming the file; nothing over the limit is ever allocated.
pub(crate) mod limits {
    /// `.capn/config.json` (a few settings; 64 KiB).
    pub(crate) const CONFIG: u64 = 64 * 1024;
    /// One entry file `.capn/entries/<id>.md` (question, details, file list; 1 MiB).
    pub(crate) const ENTRY: u64 = 1024 * 1024;
    /// Host files capn edits or checks: `.claude/settings.json`, `.codex/hooks.json`,
    /// `.gitignore`, the skill file, a git hook, the install record (8 MiB).
    pub(crate) const HOST_FILE: u64 = 8 * 1024 * 1024;
    /// Session markers and stamps in the state dir (64 KiB).
    pub(crate) const MARKER: u64 = 64 * 1024;
    /// A derived file is at most this much larger than the entry files it was built from, in
    /// total (headers, tables); see [`derived`].
    pub(crate) const DERIVED_BASE: u64 = 1024 * 1024;

    /// The limit for a derived file (`index.bin`, `stat.bin`, `vectors.bin`) of a
    /// store whose entry files hold `entry_bytes` bytes in all and number `entries`: everything
    /// in them comes from the entries, so four times their text, 1 KiB per entry for the
    /// embedding vectors, and [`DERIVED_BASE`] bounds every valid one.
    pub(crate) fn derived(entry_bytes: u64, entries: u64) -> u64 {
        DERIVED_BASE
            .saturating_add(entry_bytes.saturating_mul(4))
            .saturating_add(entries.saturating_mul(1024))
    }
}

/// Whether a read follows a symlink at the path (or on the way to it).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Follow<'a> {
    /// `O_NOFOLLOW`: a symlink at the path is refused ([`ReadError::Symlink`]). For capn's own
    /// files and the host files it edits.
    Never,
    /// Follow symlinks, then refuse the opened file unless its real path is inside this root
    /// ([`ReadError::Outside`]). For backing files (format.md, "Staleness").
    Inside(&'a Path),
    /// Follow symlinks wherever they lead. Only for paths the host itself hands over (a
    /// transcript), never for a path found in a repository.
    Anywhere,
}

/// Why a read was refused. `Display` gives a one-line reason without the path (callers add
/// what and where: `could not read entry: .capn/entries/ab12cd34.md: is a FIFO, not a regular
/// file`).
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Nothing at the path (or a folder on the way is missing).
    NotFound,
    /// A symlink where none is followed.
    Symlink,
    /// Not a regular file; the kind in words ("a FIFO", "a directory", ...).
    NotRegular(&'static str),
    /// Over the byte limit.
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A followed symlink leads outside the root.
    Outside,
    /// Any other I/O error (permission denied, I/O error...).
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotFound => write!(f, "no such file"),
            ReadError::Symlink => write!(f, "is a symlink (capn does not follow it here)"),
            ReadError::NotRegular(kind) => write!(f, "is {kind}, not a regular file"),
            ReadError::TooLarge { size, limit } => {
                write!(f, "is {size} bytes, over the {limit}-byte limit")
            }
            ReadError::Outside => write!(f, "is a symlink leading outside the project"),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    fn from_io(e: std::io::Error) -> ReadError {
        match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => ReadError::NotFound,
            _ if e.raw_os_error() == Some(libc_eloop()) => ReadError::Symlink,
            _ => ReadError::Io(e),
        }
    }

    /// True when the file is definitely not (or no longer) a regular file capn may read: gone,
    /// a symlink where none is allowed, a special file, or leading outside. False for errors
    /// that say nothing about the file itself (permissions, I/O, over the limit).
    pub(crate) fn is_gone(&self) -> bool {
        matches!(
            self,
            ReadError::NotFound
                | ReadError::Symlink
                | ReadError::NotRegular(_)
                | ReadError::Outside
        )
    }
}

#[cfg(unix)]
fn libc_eloop() -> i32 {
    rustix::io::Errno::LOOP.raw_os_error()
}

#[cfg(not(unix))]
fn libc_eloop() -> i32 {
    -1
}

fn kind_words(ft: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symlink"
    } else {
        "a special file"
    }
}

/// Opens `path` for reading under the rules of this module: never blocks (`O_NONBLOCK`), never
/// makes it the controlling terminal, and returns the file only when the opened descriptor is a
/// regular file no larger than `limit` bytes, reached as `follow` allows. Returns the file and
/// its metadata (from `fstat`).
///
/// Errors: [`ReadError`].
pub(crate) fn open_regular(
    path: &Path,
    limit: u64,
    follow: Follow<'_>,
) -> std::result::Result<(fs::File, fs::Metadata), ReadError> {
    let file = open_nonblocking(path, matches!(follow, Follow::Never))?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_words(&meta.file_type())));
    }
    if let Follow::Inside(root) = follow {
        if !opened_inside(&file, path, root) {
            return Err(ReadError::Outside);
        }
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    Ok((file, meta))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path, nofollow: bool) -> std::result::Result<fs::File, ReadError> {
    use rustix::fs::{open, Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if nofollow {
        flags |= OFlags::NOFOLLOW;
    }
    match open(path, flags, Mode::empty()) {
        Ok(fd) => Ok(fs::File::from(fd)),
        Err(e) => Err(ReadError::from_io(e.into())),
    }
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path, nofollow: bool) -> std::result::Result<fs::File, ReadError> {
    if nofollow {
        let m = fs::symlink_metadata(path).map_err(ReadError::from_io)?;
        if m.file_type().is_symlink() {
            return Err(ReadError::Symlink);
        }
    }
    fs::File::open(path).map_err(ReadError::from_io)
}

/// Whether the opened `file` (reached through `path`) really lies inside `root`: the kernel's
/// own record of the opened file where there is one (Linux: `/proc/self/fd/N`; macOS:
/// `fcntl(F_GETPATH)`), so a symlink swapped after the open cannot fool it; elsewhere (Windows)
/// the canonical `path`, resolved again after the open.
fn opened_inside(file: &fs::File, path: &Path, root: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return real.starts_with(root);
        }
    }
    #[cfg(target_vendor = "apple")]
    if let Ok(real) = rustix::fs::getpath(file) {
        use std::os::unix::ffi::OsStrExt;
        let real = Path::new(std::ffi::OsStr::from_bytes(real.as_bytes()));
        return crate::pathcmp::within(real, root);
    }
    let _ = file;
    dunce::canonicalize(path).is_ok_and(|real| crate::pathcmp::within(&real, root))
}

/// Reads a whole file under [`open_regular`]'s rules: at most `limit` bytes (a file that grows
/// past it while being read is refused too).
///
/// Errors: [`ReadError`].
pub(crate) fn read_limited(
    path: &Path,
    limit: u64,
    follow: Follow<'_>,
) -> std::result::Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular(path, limit, follow)?;
    let mut buf = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: buf.len() as u64,
            limit,
        });
    }
    Ok(buf)
}

/// [`read_limited`] without following a symlink, `Ok(None)` when nothing is there.
///
/// Errors: any other refusal, as `could not read <what>: <path>: <reason>`.
pub(crate) fn read_opt(path: &Path, what: &str, limit: u64) -> Result<Option<Vec<u8>>> {
    match read_limited(path, limit, Follow::Never) {
        Ok(b) => Ok(Some(b)),
        Err(ReadError::NotFound) => Ok(None),
        Err(e) => Err(anyhow::Error::new(e))
            .with_context(|| format!("could not read {what}: {}", path.display())),
    }
}

/// Checks that every folder between `root` and `path` (excluding `root`, including `path`'s
/// parent) is a real folder or not there yet: no symlink on the way, so a write or a delete at
/// `path` stays inside `root`. `path` must lie under `root` (lexically).
///
/// Errors: `refusing to touch <path>: <folder> is a symlink (capn never writes through a
/// symlink)`, or `... is not a folder`, or `path` is not under `root`.
pub(crate) fn check_inside(root: &Path, path: &Path) -> Result<()> {
    let rel = path.strip_prefix(root).map_err(|_| {
        anyhow::anyhow!(
            "refusing to touch {}: it is not inside {}",
            path.display(),
            root.display()
        )
    })?;
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for c in parts.iter().take(parts.len().saturating_sub(1)) {
        at.push(c);
        match fs::symlink_metadata(&at) {
            Err(_) => return Ok(()), // not there yet: created by ensure_dir_inside
            Ok(m) if m.file_type().is_symlink() => anyhow::bail!(
                "refusing to touch {}: {} is a symlink (capn never writes through a symlink)",
                path.display(),
                at.display()
            ),
            Ok(m) if !m.is_dir() => anyhow::bail!(
                "refusing to touch {}: {} is not a folder",
                path.display(),
                at.display()
            ),
            Ok(_) => {}
        }
    }
    Ok(())
}

/// `path` with its symlinks and `..` resolved, or as given when it cannot be (it does not exist,
/// or a folder on the way cannot be read).
pub(crate) fn resolved(path: &Path) -> PathBuf {
    dunce::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// True when `path`, as given or with its symlinks resolved, lies in `root`, as given or
/// resolved. For judging where something found through a path really is (a program a settings
/// file names, the state dir): a symlink, `..` or `/proc/self/cwd` on the way does not take it
/// out of the project.
pub(crate) fn lies_inside(path: &Path, root: &Path) -> bool {
    use crate::pathcmp::within;
    let real = dunce::canonicalize(path).ok();
    let real_root = dunce::canonicalize(root).ok();
    let inside = |p: &Path| within(p, root) || real_root.as_ref().is_some_and(|r| within(p, r));
    inside(path) || real.as_deref().is_some_and(inside)
}

/// A file under the user's home folder as `init --user` and `uninstall --user` reach it: the
/// user's own symlinks followed. The home folder is not repository input: a symlink there was
/// made by the user (GNU stow, chezmoi or yadm in symlink mode, a dotfiles repository), so
/// capn edits the file it leads to, as the hosts read it, instead of refusing. Project files
/// keep the strict rules of this module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UserPath {
    /// As the hosts name it: under the home folder.
    pub(crate) path: PathBuf,
    /// Where reads and writes go: `path` when no symlink lies on the way; else its final target
    /// (resolved, no symlink left in it), plus the part still to create.
    pub(crate) real: PathBuf,
    /// The folder under which missing folders on the way to `real` are created without
    /// following a symlink ([`ensure_dir_inside`]): the home folder, or the deepest existing
    /// folder of `real`.
    pub(crate) base: PathBuf,
}

impl UserPath {
    /// True when `path` is a symlink or lies in a symlinked folder.
    pub(crate) fn linked(&self) -> bool {
        self.real != self.path
    }

    /// True when `path` itself (not only a folder on the way) is a symlink.
    pub(crate) fn is_link(&self) -> bool {
        fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_symlink())
    }
}

/// Resolves `path` (under `home`) through the symlinks the user made in the home folder (see
/// [`UserPath`]). Without a symlink on the way it is returned as is, for the usual checks.
/// Only regular files are reached: what [`read_host_file`] refuses (a FIFO, a device, a folder)
/// is refused at the target too.
///
/// Errors, naming the path: a dangling symlink on the way, a symlink that leads to something
/// other than a regular file (or, for a folder on the way, a folder), a folder that cannot be
/// resolved, or `path` not under `home`.
pub(crate) fn resolve_user_link(home: &Path, path: &Path) -> Result<UserPath> {
    let rel = path
        .strip_prefix(home)
        .map_err(|_| anyhow::anyhow!("{} is not inside {}", path.display(), home.display()))?;
    let parts: Vec<_> = rel.components().collect();
    let (mut at, mut linked) = (home.to_path_buf(), false);
    for (i, c) in parts.iter().enumerate() {
        at.push(c);
        let Ok(meta) = fs::symlink_metadata(&at) else {
            // Missing from here on: created under the resolved folder above it.
            if !linked {
                break;
            }
            let parent = at.parent().unwrap_or(home);
            let base = dunce::canonicalize(parent)
                .with_context(|| format!("could not resolve {}", parent.display()))?;
            if !base.is_dir() {
                anyhow::bail!(
                    "refusing to touch {}: {} is not a folder",
                    path.display(),
                    parent.display()
                );
            }
            let real = parts[i..].iter().fold(base.clone(), |p, c| p.join(c));
            return Ok(UserPath {
                path: path.to_path_buf(),
                real,
                base,
            });
        };
        if meta.file_type().is_symlink() {
            linked = true;
            if let Err(e) = fs::metadata(&at) {
                let target = fs::read_link(&at)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default();
                // ELOOP: links that lead round to themselves, not to a missing file.
                let why = if e.raw_os_error() == Some(LOOP_ERRNO) {
                    "which leads round in a loop of symlinks"
                } else {
                    "which does not exist (dangling)"
                };
                anyhow::bail!(
                    "could not follow {}: it is a symlink to {target}, {why}",
                    at.display()
                );
            }
        }
    }
    if !linked {
        return Ok(UserPath {
            path: path.to_path_buf(),
            real: path.to_path_buf(),
            base: home.to_path_buf(),
        });
    }
    let real = dunce::canonicalize(path)
        .with_context(|| format!("could not resolve {}", path.display()))?;
    let meta = fs::metadata(&real).with_context(|| format!("could not read {}", real.display()))?;
    if !meta.is_file() {
        anyhow::bail!(
            "could not follow {}: it leads to {}, which {}",
            path.display(),
            real.display(),
            ReadError::NotRegular(kind_words(&meta.file_type()))
        );
    }
    let base = real
        .parent()
        .map_or_else(|| real.clone(), Path::to_path_buf);
    Ok(UserPath {
        path: path.to_path_buf(),
        real,
        base,
    })
}

/// Creates `dir` and its missing parents below `root` without following a symlink: like
/// `create_dir_all`, but a symlink (or a file) on the way is refused instead of followed.
///
/// Errors: as [`check_inside`], or a folder cannot be created.
pub(crate) fn ensure_dir_inside(root: &Path, dir: &Path) -> Result<()> {
    check_inside(root, &dir.join("x"))?;
    let rel = dir.strip_prefix(root).unwrap_or(Path::new(""));
    let mut at = root.to_path_buf();
    for c in rel.components() {
        at.push(c);
        match fs::create_dir(&at) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                // Raced with another creator, or there already: it must be a real folder.
                let m = fs::symlink_metadata(&at)
                    .with_context(|| format!("could not create {}", at.display()))?;
                if !m.is_dir() {
                    anyhow::bail!(
                        "refusing to create {}: {} is a symlink or a file (capn never writes through a symlink)",
                        dir.display(),
                        at.display()
                    );
                }
            }
            Err(e) => return Err(e).with_context(|| format!("could not create {}", at.display())),
        }
    }
    Ok(())
}

/// Runs `f` over `items` on up to 4 threads (one for small inputs: below `min_chunk` items per
/// thread), keeping the order. For batches of independent syscalls (`stat`, hashing).
pub(crate) fn par_map<T: Sync, R: Send>(
    items: &[T],
    min_chunk: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    par_chunks(items, min_chunk, |part| part.iter().map(&f).collect())
}

/// Splits `items` into up to 4 contiguous chunks (one when there are fewer than `min_chunk`
/// items per thread), runs `f` on each chunk on its own thread, and concatenates the results in
/// order. `f` returns one result per item of its chunk.
pub(crate) fn par_chunks<T: Sync, R: Send>(
    items: &[T],
    min_chunk: usize,
    f: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let wanted = items.len().div_ceil(min_chunk.max(1)).min(4);
    if wanted < 2 {
        return f(items);
    }
    // Asked once per process: on Linux the answer costs a few file reads (cgroup CPU quota).
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cpus = *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let threads = wanted.min(cpus);
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

/// How much a write must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// `fsync` before the rename: the new content survives a power loss (on macOS only a crash
    /// of the system, see [`sync_durable`]). For files that are a source of truth (entries,
    /// settings, state files, hooks).
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
/// file is removed on any error. An existing regular file's permissions are kept (so an
/// executable git hook stays executable). A symlink at `path` is replaced by the new regular
/// file; its target is left alone. A folder that is a symlink is refused.
///
/// Errors name the path: `could not write <path>: <cause>`.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, bytes, Durability::Durable)
}

/// [`write_atomic`] with an explicit [`Durability`].
///
/// Errors name the path.
pub(crate) fn write_atomic_with(path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // The temp file is created in `dir`: a symlinked folder would put it (and the rename)
    // wherever the link points.
    if fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        anyhow::bail!(
            "refusing to write {}: its folder {} is a symlink (capn never writes through a symlink)",
            path.display(),
            dir.display()
        );
    }
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
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
    // A regular file's permissions are kept; a symlink at `path` is replaced, not followed.
    if let Ok(meta) = fs::symlink_metadata(path) {
        if meta.is_file() {
            let _ = tmp.as_file().set_permissions(meta.permissions());
        }
    }
    if durability == Durability::Durable {
        sync_durable(tmp.as_file())
            .with_context(|| format!("could not sync {}", path.display()))?;
    }
    let mut pending = Some(tmp);
    retry_rename(is_transient_rename_error, || {
        let tmp = pending
            .take()
            .expect("the temp file is kept between attempts");
        tmp.persist(path).map(drop).map_err(|e| {
            pending = Some(e.file);
            e.error
        })
    })
    .with_context(|| format!("could not replace {}", path.display()))?;
    Ok(())
}

/// Like [`write_atomic_with`], but leaves the file alone (and returns `false`) when it already
/// holds exactly `bytes`. Returns `true` when it wrote.
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8], durability: Durability) -> Result<bool> {
    let limit = bytes.len() as u64;
    if read_limited(path, limit, Follow::Never).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    write_atomic_with(path, bytes, durability)?;
    Ok(true)
}

/// Reads a host file capn edits or checks (a settings file, `.gitignore`, a git hook, the skill
/// file, `CLAUDE_ENV_FILE`) as bytes under this module's rules: no symlink followed (dangling or
/// not: capn never reads or writes through one), a regular file (a FIFO, socket, device or folder
/// is refused at once, never waited on), at most [`limits::HOST_FILE`] bytes. `Ok(None)` when
/// the file does not exist.
///
/// Errors: `could not read <what>: <path>: <reason>`.
pub(crate) fn read_host_file(path: &Path, what: &str) -> Result<Option<Vec<u8>>> {
    read_opt(path, what, limits::HOST_FILE)
}

/// Why capn must not write the host file at `path`, if it must not: a symlink (dangling or not),
/// anything but a regular file, a read-only file (no write bit at all, e.g. 0444: the owner
/// made it so, whoever runs capn), or a parent that is a symlink. `None` when it is a regular
/// writable file or does not exist (inside a real folder or a folder still to create).
pub(crate) fn unwritable_reason(path: &Path) -> Option<String> {
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
pub(crate) fn remove_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("could not remove {}", path.display())),
    }
}

/// True when `path` is a regular file (following symlinks) that the OS would execute: on Unix,
/// one with an execute bit (what git checks before running a hook, and `PATH` lookup before
/// running a program); elsewhere, any regular file.
#[cfg(unix)]
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// True when `dir` holds a program a shell finds as `name`: `dir/name` if executable, and on
/// Windows also `name` with each extension of `PATHEXT` (default `.COM;.EXE;.BAT;.CMD`), as
/// `cmd.exe` looks programs up.
pub(crate) fn program_in(dir: &Path, name: &str) -> bool {
    if is_executable(&dir.join(name)) {
        return true;
    }
    if !cfg!(windows) || Path::new(name).extension().is_some() {
        return false;
    }
    // Read raw, not through crate::env: an empty PATHEXT means no extensions, as for cmd.exe.
    #[allow(clippy::disallowed_methods)]
    let exts = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    exts.split(';')
        .filter(|e| !e.is_empty())
        .any(|e| dir.join(format!("{name}{e}")).is_file())
}

/// True when `path` is a regular file (no execute bit off Unix); see the Unix variant.
#[cfg(not(unix))]
pub(crate) fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests;
