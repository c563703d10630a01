//! Tests of the stat cache and the staleness checks.

use super::*;

/// Writes `name` under `root` with a modification time a minute ago (outside the racy
/// window, so the cache trusts it once hashed).
fn write_old(root: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = root.join(name);
    std::fs::write(&p, bytes).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(old)
        .unwrap();
    p
}

#[test]
fn size_and_mtime_alone_never_vouch_for_a_file() {
    let mut cache = StatCache::default();
    let at = now_ns();
    let windows = Stamp {
        size: 10,
        mtime_ns: at - 60 * RACY_NS,
        ctime_ns: 0,
        ino: 0,
    };
    cache.record("a.ts", windows, [1; 32], at);
    assert_eq!(cache.trusted("a.ts", &windows), None);
    let unix = Stamp { ino: 42, ..windows };
    cache.record("b.ts", unix, [2; 32], at);
    assert_eq!(cache.trusted("b.ts", &unix), Some([2; 32]));
}

#[test]
fn a_hashing_budget_leaves_large_unvouched_files_unhashed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let p = write_old(&root, "big.bin", &[7u8; 4096]);
    let hex = crate::hex::encode(&hash_file(&root, &p).unwrap());
    let mut cache = StatCache::default();
    let mut budget = 4095;
    assert!(!cache.is_current_within(&root, "big.bin", &hex, &mut budget));
    assert_eq!(budget, 4095);
    assert!(!cache.is_dirty(), "hashed past the budget");
    let mut budget = 5000;
    assert!(cache.is_current_within(&root, "big.bin", &hex, &mut budget));
    assert_eq!(budget, 5000 - 4096);
    // Vouched for by the cache now: no budget needed (where a stamp can vouch at all).
    let mut budget = 0;
    assert_eq!(
        cache.is_current_within(&root, "big.bin", &hex, &mut budget),
        cfg!(unix)
    );
}

#[test]
fn a_file_that_differs_only_in_line_ends_is_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let lf = write_old(&root, "a.txt", b"one\ntwo\n");
    let charted_lf = hash_file(&root, &lf).unwrap();
    write_old(&root, "b.txt", b"one\r\ntwo\r\n");
    let charted_crlf = hash_file(&root, &root.join("b.txt")).unwrap();
    // Checked out the other way round.
    write_old(&root, "a.txt", b"one\r\ntwo\r\n");
    write_old(&root, "b.txt", b"one\ntwo\n");
    let mut cache = StatCache::default();
    for (key, want) in [("a.txt", charted_lf), ("b.txt", charted_crlf)] {
        let state = cache.state(&root, key);
        assert_eq!(cache.judge(&root, key, state, Some(&want)), Judged::Fresh);
        assert!(!cache.is_changed(&root, key, &crate::hex::encode(&want)));
    }
    // A real change is still one.
    write_old(&root, "a.txt", b"one\r\nTWO\r\n");
    let state = cache.state(&root, "a.txt");
    assert_eq!(
        cache.judge(&root, "a.txt", state, Some(&charted_lf)),
        Judged::Changed
    );
    // The line-end hashes are cached with the raw one: a stale file is not read again.
    let cached = cache.get("a.txt").unwrap();
    assert!(cached.alts.is_some());
    let path = root.join("stat.bin");
    cache.save(&path, None).unwrap();
    let mut loaded = StatCache::load(&path, 1 << 20);
    assert_eq!(loaded.get("a.txt").unwrap().alts, cached.alts);
    let state = loaded.state(&root, "a.txt");
    assert_eq!(
        loaded.judge(&root, "a.txt", state, Some(&charted_lf)),
        Judged::Changed
    );
    assert!(!loaded.is_dirty(), "read the stale file again");
}

#[test]
fn detects_change_even_within_the_racy_window() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "one").unwrap();
    let mut cache = StatCache::default();
    let FileState::Hash(h1) = cache.state(&root, "a.txt") else {
        panic!()
    };
    // Same size, same second: only re-hashing (racy clean) can see this.
    std::fs::write(root.join("a.txt"), "two").unwrap();
    let FileState::Hash(h2) = cache.state(&root, "a.txt") else {
        panic!()
    };
    assert_ne!(h1, h2);
    std::fs::remove_file(root.join("a.txt")).unwrap();
    assert_eq!(cache.state(&root, "a.txt"), FileState::Gone);
}

#[test]
fn trusts_old_unchanged_files_without_rehashing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let p = write_old(&root, "a.txt", b"one");
    let mut cache = StatCache::default();
    let first = cache.state(&root, "a.txt");
    // Poison the cached hash: if the cache is trusted, we get the poisoned value back (on
    // Unix; on Windows no stamp vouches for a file, so it is hashed again).
    // (As a later command would load it: not hashed by this one.)
    cache.files.get_mut("a.txt").unwrap().hash = [7; 32];
    cache.hashed.clear();
    let want = if cfg!(unix) {
        FileState::Hash([7; 32])
    } else {
        first
    };
    assert_eq!(cache.state(&root, "a.txt"), want);
    assert_ne!(first, FileState::Hash([7; 32]));
    // But a damaged hash never makes a file count as changed (that deletes entries): the
    // file is hashed again, and the fresh hash replaces the damaged one.
    let FileState::Hash(real) = first else {
        panic!("{first:?}")
    };
    let hex = crate::hex::encode(&real);
    assert!(!cache.is_changed(&root, "a.txt", &hex));
    assert_eq!(cache.state(&root, "a.txt"), FileState::Hash(real));
    assert!(cache.is_dirty());
    // A real change still counts.
    std::fs::write(&p, "two").unwrap();
    assert!(cache.is_changed(&root, "a.txt", &hex));
}

/// A file that changed and backs many charts is hashed once per command, not once per chart,
/// even inside the racy window (where the cache alone would not vouch for it).
#[test]
fn a_changed_file_is_hashed_once_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let p = root.join("a.txt");
    std::fs::write(&p, "one").unwrap();
    let old = crate::hex::encode(&[1; 32]);
    let mut cache = StatCache::default();
    assert!(cache.is_changed(&root, "a.txt", &old));
    // Poison what this command hashed: a second check that hashed again would not see it.
    cache.hashed.get_mut("a.txt").unwrap().1 = [2; 32];
    assert!(cache.is_changed(&root, "a.txt", &old));
    assert_eq!(cache.state(&root, "a.txt"), FileState::Hash([2; 32]));
    // A new version of the file (another stamp) is hashed again.
    std::fs::write(&p, "three").unwrap();
    assert_ne!(cache.state(&root, "a.txt"), FileState::Hash([2; 32]));
}

#[test]
fn cache_round_trips_and_ignores_garbage() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "x").unwrap();
    let mut cache = StatCache::default();
    cache.state(&root, "a.txt");
    let path = root.join("stat.bin");
    cache.save(&path, None).unwrap();
    let loaded = StatCache::load(&path, 1 << 20);
    assert_eq!(loaded.base.len(), 1);
    assert!(
        loaded.files.is_empty(),
        "loaded keys are looked up in place"
    );
    assert_eq!(
        loaded.get("a.txt").map(|c| c.hash),
        cache.get("a.txt").map(|c| c.hash)
    );
    assert!(loaded.get("b.txt").is_none());
    assert_eq!(StatCache::load(&path, 8).base.len(), 0, "over the limit");
    std::fs::write(&path, b"garbage").unwrap();
    assert_eq!(StatCache::load(&path, 1 << 20).base.len(), 0);
}
