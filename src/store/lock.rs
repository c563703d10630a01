//! The writers' lock on `.capn/lock` (an advisory OS file lock, `std::fs::File::lock`).
//!
//! Every command that changes `.capn/` holds a [`StoreLock`] for the whole read-modify-write, so
//! two writers never lose each other's entries. Readers (`ask` without stale entries to delete,
//! `list`) never wait: `ask` uses [`StoreLock::try_acquire`] and falls back to a read-only pass.

use anyhow::{Context, Result};
use std::fs::{File, OpenOptions};
use std::path::Path;

/// An exclusive lock on the store, released on drop.
#[derive(Debug)]
pub struct StoreLock {
    file: File,
}

/// Opens (creating) the lock file without following a symlink and without blocking. Whatever
/// else sits at the path (a symlink, dangling or not; a FIFO; a device) is capn's own path
/// taken over: it is removed (never followed) and a regular file is created in its place.
fn open(path: &Path) -> Result<File> {
    let open_once = || {
        let mut o = OpenOptions::new();
        o.create(true).truncate(false).read(true).write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.custom_flags(
                rustix::fs::OFlags::NOFOLLOW.bits() as i32
                    | rustix::fs::OFlags::NONBLOCK.bits() as i32,
            );
        }
        o.open(path)
    };
    let regular = |f: &File| f.metadata().is_ok_and(|m| m.is_file());
    match open_once() {
        Ok(f) if regular(&f) => return Ok(f),
        _ if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) => {
            crate::fsutil::remove_if_exists(path)?;
        }
        Ok(_) => anyhow::bail!(
            "could not open lock file: {}: not a regular file",
            path.display()
        ),
        Err(e) => {
            return Err(e).with_context(|| format!("could not open lock file: {}", path.display()))
        }
    }
    match open_once() {
        Ok(f) if regular(&f) => Ok(f),
        Ok(_) => anyhow::bail!(
            "could not open lock file: {}: not a regular file",
            path.display()
        ),
        Err(e) => Err(e).with_context(|| format!("could not open lock file: {}", path.display())),
    }
}

impl StoreLock {
    /// Blocks until the exclusive lock on `path` is held.
    ///
    /// Errors: the lock file cannot be created or locked.
    pub fn acquire(path: &Path) -> Result<StoreLock> {
        let file = open(path)?;
        file.lock()
            .with_context(|| format!("could not lock: {}", path.display()))?;
        Ok(StoreLock { file })
    }

    /// Takes the lock if it is free right now; `Ok(None)` when another process holds it (or the
    /// lock file cannot be created, e.g. on a read-only store).
    pub fn try_acquire(path: &Path) -> Option<StoreLock> {
        let file = open(path).ok()?;
        match file.try_lock() {
            Ok(()) => Some(StoreLock { file }),
            Err(_) => None,
        }
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_symlink_at_the_lock_path_is_replaced_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let target = dir.path().join("decoy-target");
        std::os::unix::fs::symlink(&target, &p).unwrap();
        let held = StoreLock::acquire(&p).unwrap();
        assert!(
            !target.exists(),
            "the dangling symlink's target was created"
        );
        assert!(std::fs::symlink_metadata(&p).unwrap().is_file());
        drop(held);
    }

    #[test]
    fn second_try_acquire_fails_while_held() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let held = StoreLock::acquire(&p).unwrap();
        assert!(StoreLock::try_acquire(&p).is_none());
        drop(held);
        assert!(StoreLock::try_acquire(&p).is_some());
    }
}
