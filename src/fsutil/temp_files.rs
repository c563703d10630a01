//! Housekeeping of the temp files [`super::write_atomic`] leaves when its writer is killed
//! between creating and renaming one ([`super::TEMP_PREFIX`]).

use super::TEMP_PREFIX;
use std::fs;
use std::path::Path;

/// The pid in a temp file name `.capn-tmp-<pid>-<random>` (none in names of capn 0.3).
fn temp_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    rest.split_once('-')?.0.parse().ok()
}

/// Whether the process `pid` is gone (on Unix: `kill(pid, 0)` says no such process).
#[cfg(unix)]
fn process_gone(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return true;
    };
    matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

#[cfg(not(unix))]
fn process_gone(_pid: u32) -> bool {
    false
}

/// Removes `.capn-tmp-*` files in `dir` left by writers killed between creating and renaming
/// them: those whose writer process is gone, and any older than `max_age` (a pid reused since,
/// or a name without a pid), never this process's own. Folders are skipped; a symlink is
/// removed, never followed.
/// Errors are ignored: this is housekeeping.
pub(crate) fn remove_stale_temp_files(dir: &Path, max_age: std::time::Duration) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    let now = std::time::SystemTime::now();
    let me = std::process::id();
    for de in rd.flatten() {
        let name = de.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(TEMP_PREFIX) {
            continue;
        }
        let Ok(meta) = de.metadata() else { continue };
        if meta.is_dir() {
            continue;
        }
        let pid = temp_file_pid(&name);
        if pid == Some(me) {
            continue;
        }
        let dead = pid.is_some_and(process_gone);
        let old = meta
            .modified()
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > max_age));
        if dead || old {
            let _ = fs::remove_file(de.path());
        }
    }
}
