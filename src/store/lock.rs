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

fn open(path: &Path) -> Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("could not open lock file: {}", path.display()))
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
