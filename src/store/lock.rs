//! The writers' lock on `.capn/lock` (an advisory OS file lock, `std::fs::File::lock`).
//!
//! Every command that changes `.capn/` holds a [`StoreLock`] for the whole read-modify-write, so
//! two writers never lose each other's entries. Writers wait for it a bounded time
//! ([`StoreLock::acquire_within`]), so a holder that never lets go cannot hang them. Readers
//! (`ask` without stale entries to delete, `list`) never wait: `ask` uses
//! [`StoreLock::try_acquire`] and falls back to a read-only pass.

use anyhow::{Context, Result};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// How long [`StoreLock::acquire_within`] waits for a held lock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wait {
    /// After this long, the caller's notice is called (once).
    pub notice_after: Duration,
    /// After this long in all, the wait ends without the lock.
    pub give_up_after: Duration,
}

/// An exclusive lock on the store, released on drop.
#[derive(Debug)]
pub(crate) struct StoreLock {
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
    /// Takes the lock of the project's record of what `ask` showed
    /// ([`crate::session::shown::lock_path`]), waiting at most
    /// [`crate::session::shown::LOCK_WAIT`]; `Ok(None)` when it stays busy.
    ///
    /// Errors: the folder or the lock file cannot be created, or locking fails.
    pub(crate) fn hold_shown(state_dir: &Path, root: &Path) -> Result<Option<StoreLock>> {
        let path = crate::session::shown::lock_path(state_dir, root)?;
        let wait = Wait {
            notice_after: Duration::MAX,
            give_up_after: crate::session::shown::LOCK_WAIT,
        };
        StoreLock::acquire_within(&path, wait, &mut || {})
    }

    /// Takes the lock: at once when it is free (`try_lock`), else by waiting for it in the OS
    /// (`lock`, so the lock is taken the moment it is released) on a helper thread, for at most
    /// `wait.give_up_after`, then `Ok(None)`. When it is still held after `wait.notice_after`,
    /// `notice` is called once (to say on stderr why nothing happens). A thread that gave up
    /// stays blocked until the lock is free or the process ends, and lets the lock go at once if
    /// it gets it.
    ///
    /// Errors: the lock file cannot be created, or locking fails other than by being held.
    pub(crate) fn acquire_within(
        path: &Path,
        wait: Wait,
        notice: &mut dyn FnMut(),
    ) -> Result<Option<StoreLock>> {
        let file = open(path)?;
        let failed = |e: std::io::Error| {
            Err(e).with_context(|| format!("could not lock: {}", path.display()))
        };
        match file.try_lock() {
            Ok(()) => return Ok(Some(StoreLock { file })),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return failed(e),
        }
        let start = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .spawn(move || {
                let got = file.lock().map(|()| file);
                // The waiter gave up: `got` is dropped here, which unlocks.
                let _ = tx.send(got);
            })
            .with_context(|| format!("could not wait for the lock: {}", path.display()))?;
        let got = match rx.recv_timeout(wait.notice_after.min(wait.give_up_after)) {
            Err(RecvTimeoutError::Timeout) if wait.notice_after < wait.give_up_after => {
                notice();
                rx.recv_timeout(wait.give_up_after.saturating_sub(start.elapsed()))
            }
            other => other,
        };
        match got {
            Ok(Ok(file)) => Ok(Some(StoreLock { file })),
            Ok(Err(e)) => failed(e),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => anyhow::bail!(
                "could not lock: {}: the waiting thread ended",
                path.display()
            ),
        }
    }

    /// Takes the lock if it is free right now, never waiting: `Ok(None)` when another process
    /// holds it (`capn refresh` leaves the work to that writer or a later run).
    ///
    /// Errors: the lock file cannot be created or opened (a read-only store, a symlink), or
    /// locking fails other than by being held; each names the lock file.
    pub(crate) fn try_acquire_or_fail(path: &Path) -> Result<Option<StoreLock>> {
        let file = open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(StoreLock { file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => {
                Err(e).with_context(|| format!("could not lock: {}", path.display()))
            }
        }
    }

    /// Takes the lock if it is free right now; `Ok(None)` when another process holds it (or the
    /// lock file cannot be created, e.g. on a read-only store).
    pub(crate) fn try_acquire(path: &Path) -> Option<StoreLock> {
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

    impl StoreLock {
        /// Blocks until the lock on `path` is held (tests only: capn never waits without end).
        pub(crate) fn acquire(path: &Path) -> Result<StoreLock> {
            let file = open(path)?;
            file.lock()?;
            Ok(StoreLock { file })
        }
    }

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

    const SHORT: Wait = Wait {
        notice_after: Duration::from_millis(100),
        give_up_after: Duration::from_millis(400),
    };

    #[test]
    fn a_held_lock_is_waited_for_with_one_notice_then_given_up() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let held = StoreLock::acquire(&p).unwrap();
        let mut notices = Vec::new();
        let start = Instant::now();
        let got = StoreLock::acquire_within(&p, SHORT, &mut || notices.push(start.elapsed()));
        let waited = start.elapsed();
        assert!(got.unwrap().is_none(), "a held lock was taken");
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(notices[0] >= SHORT.notice_after, "{notices:?}");
        assert!(waited >= SHORT.give_up_after, "gave up after {waited:?}");
        assert!(waited < Duration::from_secs(5), "waited {waited:?}");
        drop(held);
    }

    #[test]
    fn a_lock_released_during_the_wait_is_taken_and_a_free_one_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let held = StoreLock::acquire(&p).unwrap();
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            drop(held);
        });
        let long = Wait {
            notice_after: Duration::from_millis(50),
            give_up_after: Duration::from_secs(30),
        };
        let mut notices = 0;
        let got = StoreLock::acquire_within(&p, long, &mut || notices += 1).unwrap();
        assert!(got.is_some());
        assert_eq!(notices, 1);
        releaser.join().unwrap();
        drop(got);
        let mut notices = 0;
        let got = StoreLock::acquire_within(&p, SHORT, &mut || notices += 1).unwrap();
        assert!(got.is_some());
        assert_eq!(notices, 0, "a free lock was waited for");
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
