//! The hooks' budget for bringing the index up to date: bounds on what a hook reads
//! ([`super::offer::HOOK_MAX_READS`], [`super::offer::HOOK_MAX_READ_BYTES`]) are not enough, since
//! what a bounded read costs to index depends on what the entries hold (seven 1 MB entries or
//! 2,000 of 4 KB took seconds). So a hook also has a budget of CPU time and memory
//! ([`HOOK_CPU`], [`HOOK_RSS`]): the index build checks it between entries ([`exceeded`]) and,
//! once it is spent, gives up; the hook answers without an offer and leaves the build to the
//! next writer (`capn ask`, `chart`, `prune`).
//!
//! A hook never pays twice for the same store state: when a build ran over budget, or the index
//! it built could not be saved (`.capn/index.bin` is a directory, the disk is full), it writes a
//! marker in the per-user state dir keyed by the store's state ([`state_key`]: the project
//! root, the entries folder's and `index.bin`'s metadata). Later hooks that find the marker for
//! the same state skip the build at once; any change to the entries or to `index.bin` (a writer
//! saving it) gives another key, and the hooks try again.

use super::Store;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The CPU time (user and system, all threads) a hook process may have used, start included,
/// when an index build checks its budget: 300 ms.
pub(crate) const HOOK_CPU: Duration = Duration::from_millis(300);

/// The resident memory a hook process may hold when an index build checks its budget: 64 MiB.
pub(crate) const HOOK_RSS: u64 = 64 << 20;

/// The CPU limit armed, in nanoseconds (0: not armed).
static CPU_LIMIT_NS: AtomicU64 = AtomicU64::new(0);
/// The memory limit armed, in bytes.
static RSS_LIMIT: AtomicU64 = AtomicU64::new(0);
/// Whether a check found the budget spent since it was armed.
static SPENT: AtomicBool = AtomicBool::new(false);
/// Checks since the last memory reading (memory is read every [`RSS_EVERY`] checks).
static CHECKS: AtomicU64 = AtomicU64::new(0);

/// Memory is read once per this many checks (a read of `/proc/self/statm`).
const RSS_EVERY: u64 = 8;

/// An armed budget; dropping it disarms ([`arm`]).
pub(crate) struct Armed(());

impl Drop for Armed {
    fn drop(&mut self) {
        CPU_LIMIT_NS.store(0, Ordering::Relaxed);
    }
}

/// Arms the budget for this process: until the guard is dropped, [`exceeded`] is true once the
/// process has used more than `cpu` of CPU time or holds more than `rss` bytes resident.
pub(crate) fn arm(cpu: Duration, rss: u64) -> Armed {
    SPENT.store(false, Ordering::Relaxed);
    RSS_LIMIT.store(rss, Ordering::Relaxed);
    CPU_LIMIT_NS.store(cpu.as_nanos().max(1) as u64, Ordering::Relaxed);
    Armed(())
}

/// True when a budget is armed and spent (and from then on, until it is armed again): the
/// index build stops at the next entry. Cheap: one clock read, a memory read every few calls.
pub(crate) fn exceeded() -> bool {
    let limit = CPU_LIMIT_NS.load(Ordering::Relaxed);
    if limit == 0 {
        return false;
    }
    if SPENT.load(Ordering::Relaxed) {
        return true;
    }
    let over_cpu = cpu_ns().is_some_and(|ns| ns > limit);
    let over_rss = CHECKS
        .fetch_add(1, Ordering::Relaxed)
        .is_multiple_of(RSS_EVERY)
        && resident_bytes().is_some_and(|b| b > RSS_LIMIT.load(Ordering::Relaxed));
    if over_cpu || over_rss {
        SPENT.store(true, Ordering::Relaxed);
    }
    over_cpu || over_rss
}

/// How often [`within`] looks at the builder's CPU time and memory.
const WATCH_EVERY: Duration = Duration::from_millis(5);

/// Runs `build` on `store` on a thread of its own under the hook budget ([`HOOK_CPU`],
/// [`HOOK_RSS`]) and returns its result, or `None` when the budget ran out first: the build
/// checks the budget between entries ([`exceeded`]) and stops, and this thread watches the
/// process's CPU time and memory every [`WATCH_EVERY`] meanwhile, so a step that does not check
/// (tokenising one huge entry, building the postings of a vast vocabulary) cannot hold the hook
/// either. A build given up on is left to finish or to end with the process, which exits when
/// the hook has answered; it holds no lock and writes nothing. [`spent`] is true after `None`.
pub(crate) fn within<T: Send + 'static>(
    store: &Store,
    build: impl FnOnce(&Store) -> T + Send + 'static,
) -> Option<T> {
    let _armed = arm(HOOK_CPU, HOOK_RSS);
    let store = store.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("capn-index-build".into())
        .spawn(move || {
            let _ = tx.send(build(&store));
        });
    if spawned.is_err() {
        return None;
    }
    loop {
        match rx.recv_timeout(WATCH_EVERY) {
            Ok(built) if !spent() => return Some(built),
            Ok(_) => return None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                CHECKS.store(0, Ordering::Relaxed);
                if exceeded() {
                    return None;
                }
            }
            // The build panicked: as good as over budget (the next writer builds).
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                SPENT.store(true, Ordering::Relaxed);
                return None;
            }
        }
    }
}

/// True when the armed budget was found spent.
pub(crate) fn spent() -> bool {
    SPENT.load(Ordering::Relaxed)
}

/// The CPU time this process has used, in nanoseconds (all threads).
#[cfg(unix)]
fn cpu_ns() -> Option<u64> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Some((t.tv_sec as u64).saturating_mul(1_000_000_000) + t.tv_nsec as u64)
}

/// Elsewhere, the time since the budget was first checked stands in for CPU time.
#[cfg(not(unix))]
fn cpu_ns() -> Option<u64> {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    Some(
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64,
    )
}

/// The resident memory of this process (Linux: `/proc/self/statm`'s second field, in pages);
/// `None` where it cannot be read cheaply.
fn resident_bytes() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
        Some(pages.saturating_mul(rustix::param::page_size() as u64))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The file that remembers the store states the hooks gave up on, in the per-user state dir.
const SKIP_FILE: &str = "hook-index-skip";

/// The most states remembered (the oldest are forgotten).
const MAX_SKIPS: usize = 32;

/// The state of `store` that decides whether a hook's index build can succeed: a hash of the
/// project root, the entries folder's metadata and `index.bin`'s (kind, size, times, inode),
/// as 16 hex digits. `None` when the entries folder cannot be statted.
pub(crate) fn state_key(store: &Store) -> Option<String> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(store.root.to_string_lossy().as_bytes());
    h.update([0]);
    let entries = std::fs::symlink_metadata(store.entries_dir()).ok()?;
    h.update(meta_bytes(&entries));
    match std::fs::symlink_metadata(store.index_path()) {
        Ok(m) => h.update(meta_bytes(&m)),
        Err(e) => h.update(format!("{:?}", e.kind()).as_bytes()),
    }
    Some(crate::hex::encode(&h.finalize()[..8]))
}

/// What of `m` identifies one version of a file or folder.
fn meta_bytes(m: &std::fs::Metadata) -> Vec<u8> {
    let f = crate::fsutil::FileStat::of(m);
    format!(
        "{:?} {} {} {} {}",
        f.kind, f.size, f.mtime_ns, f.ctime_ns, f.ino
    )
    .into_bytes()
}

/// The skip file's path, or `None` when there is no state dir.
fn skip_path() -> Option<std::path::PathBuf> {
    Some(crate::session::state_dir().ok()?.join(SKIP_FILE))
}

/// The states remembered.
fn skips() -> Vec<String> {
    let Some(path) = skip_path() else {
        return Vec::new();
    };
    match crate::fsutil::read_limited(
        &path,
        crate::fsutil::limits::MARKER,
        crate::fsutil::Follow::Never,
    ) {
        Ok(b) => String::from_utf8_lossy(&b)
            .lines()
            .map(str::to_string)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// True when a hook gave up on the store state `key` before ([`remember`]).
pub(crate) fn is_skipped(key: &str) -> bool {
    skips().iter().any(|k| k == key)
}

/// Remembers that the hooks give up on the store state `key` (a build over budget, an index
/// that could not be saved); errors are ignored (the next hook then tries again, within its
/// budget).
pub(crate) fn remember(key: &str) {
    let Some(path) = skip_path() else { return };
    let mut keys = skips();
    if keys.iter().any(|k| k == key) {
        return;
    }
    keys.push(key.to_string());
    let from = keys.len().saturating_sub(MAX_SKIPS);
    let mut text = keys[from..].join("\n");
    text.push('\n');
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = crate::fsutil::write_atomic_with(
        &path,
        text.as_bytes(),
        crate::fsutil::Durability::Transient,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_armed_budget_is_spent_past_its_cpu_time_and_disarmed_when_dropped() {
        {
            let _b = arm(Duration::from_nanos(1), u64::MAX);
            let t = std::time::Instant::now();
            while t.elapsed() < Duration::from_millis(2) {}
            assert!(exceeded());
            assert!(spent());
        }
        assert!(!exceeded());
        let _b = arm(Duration::from_secs(3600), u64::MAX);
        assert!(!exceeded());
    }
}
