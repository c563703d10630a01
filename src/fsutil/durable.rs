//! How a write reaches the disk and replaces its target on each system: the sync that makes a
//! [`super::Durability::Durable`] write durable, and the rename retried while Windows refuses it.

use std::fs;

/// How many times a rename over a file is tried when it fails with a transient error, and the
/// pause before each new try (doubling from 1 ms, at most 50 ms: about a quarter second in all).
const RENAME_TRIES: u32 = 10;

/// Runs `rename` until it succeeds, fails with an error `transient` does not accept, or has
/// been tried [`RENAME_TRIES`] times; returns its last result.
pub(super) fn retry_rename(
    transient: impl Fn(&std::io::Error) -> bool,
    mut rename: impl FnMut() -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut pause = std::time::Duration::from_millis(1);
    for _ in 1..RENAME_TRIES {
        match rename() {
            Err(e) if transient(&e) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(50));
            }
            done => return done,
        }
    }
    rename()
}

/// Whether a failed rename over a file may succeed if tried again: on Windows, where
/// `MoveFileExW` fails while another process has the target open without delete sharing (a
/// reader, an indexer, an antivirus scan): access denied (5), sharing violation (32), lock
/// violation (33). Never elsewhere: a Unix rename does not care who has the file open.
pub(super) fn is_transient_rename_error(e: &std::io::Error) -> bool {
    cfg!(windows) && is_windows_sharing_error(e)
}

/// The Windows error codes of [`is_transient_rename_error`], on any system (for tests).
fn is_windows_sharing_error(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(5 | 32 | 33))
}

/// Flushes a [`super::Durability::Durable`] write to the storage device: `fsync`. On macOS std's
/// `sync_all` is `fcntl(F_FULLFSYNC)`, which also empties the drive's own cache and costs tens
/// of milliseconds per call, far over the `chart` budget; capn calls plain `fsync(2)` there,
/// which hands the data to the drive (as `fsync` does on Linux and `FlushFileBuffers` on
/// Windows) but may leave it in the drive's volatile cache: a power cut right after a write can
/// lose that write (the drive may even keep the rename and not the data, leaving the file
/// empty, which readers report and skip). std's `sync_data` is `F_FULLFSYNC` too.
pub(super) fn sync_durable(file: &fs::File) -> std::io::Result<()> {
    #[cfg(target_vendor = "apple")]
    {
        rustix::fs::fsync(file).map_err(std::io::Error::from)
    }
    #[cfg(not(target_vendor = "apple"))]
    {
        file.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rename_is_tried_again_while_another_process_holds_the_target() {
        let sharing = || std::io::Error::from_raw_os_error(32);
        let mut tries = 0;
        let got = retry_rename(is_windows_sharing_error, || {
            tries += 1;
            if tries < 4 {
                Err(sharing())
            } else {
                Ok(())
            }
        });
        assert!(got.is_ok() && tries == 4, "{got:?} after {tries}");
        // Bounded: a target held for good fails after RENAME_TRIES tries.
        let mut tries = 0;
        let got = retry_rename(is_windows_sharing_error, || {
            tries += 1;
            Err(sharing())
        });
        assert_eq!(
            (got.unwrap_err().raw_os_error(), tries),
            (Some(32), RENAME_TRIES)
        );
        // Any other error is returned at once.
        let mut tries = 0;
        let got = retry_rename(is_windows_sharing_error, || {
            tries += 1;
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        });
        assert!(got.is_err() && tries == 1);
        assert_eq!(
            is_transient_rename_error(&sharing()),
            cfg!(windows),
            "only Windows renames wait for readers"
        );
    }
}
