//! How a chart came to be in the project, as far as capn can tell cheaply: an entry
//! file that git tracks came with the repository (or was committed here), one it does not was
//! charted in this checkout. Offers say which ([`crate::present`]), so a chart that arrived with a
//! `git clone` is not mistaken for one the user's own agent wrote.
//!
//! The check reads the git index (`.git/index`, at most [`MAX_INDEX_BYTES`], never through a
//! symlink) and looks for the entry's path in it: no `git` process runs (a repository's own git
//! configuration could run commands). Index versions 2 and 3 store each path whole, after the
//! entry's 16-bit flags whose low 12 bits are the path's length (git's
//! `Documentation/gitformat-index.txt`); version 4 compresses paths and a worktree's `.git` is a
//! file: both give [`Origin::Unknown`], and an offer then says nothing about where the chart came
//! from. This is a small, separate rule on purpose: a shared-entries mode can refine it.

use std::path::Path;

/// The largest git index read (64 MiB: a repository of several hundred thousand files).
pub(crate) const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;

/// Where an entry file came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// git tracks the entry file: it came with the repository, or was committed here.
    Repository,
    /// The enclosing repository has a git index and the entry file is not in it (or no index
    /// yet): charted in this checkout.
    Checkout,
    /// capn cannot tell cheaply (no repository at all, a worktree, an index format it does not
    /// read, a read error).
    Unknown,
}

impl Origin {
    /// How an offer line says it, or `None` for [`Origin::Unknown`].
    pub(crate) fn label(self) -> Option<&'static str> {
        match self {
            Origin::Repository => Some("found in the repository: git tracks this entry"),
            Origin::Checkout => Some("charted in this checkout: git does not track this entry"),
            Origin::Unknown => None,
        }
    }
}

/// The most folders walked up from the store root to find the repository's `.git`.
pub(crate) const MAX_GIT_DEPTH: usize = 64;

/// Where the entry file `key` (relative to `root`, `/`-separated: `.capn/entries/<id>.md`)
/// came from (module docs). The repository is the nearest folder at or above `root` (at most
/// [`MAX_GIT_DEPTH`] up, by name: no symlink is followed) holding `.git`, so a store in a
/// subfolder of a repository (`vendor/pkg/.capn` committed in the superproject) is looked up
/// under its path there. No `.git` at all (a tarball), a `.git` that is not a folder (a
/// worktree, a submodule) or a path that is not UTF-8: [`Origin::Unknown`].
pub(crate) fn origin(root: &Path, key: &str) -> Origin {
    if in_nested_repository(root, key) {
        return Origin::Unknown;
    }
    let mut prefix: Vec<String> = Vec::new();
    let mut dir = root;
    for _ in 0..MAX_GIT_DEPTH {
        let git = dir.join(".git");
        match std::fs::symlink_metadata(&git) {
            Ok(m) if m.is_dir() => {
                prefix.reverse();
                prefix.push(key.to_string());
                return origin_in(&git, &prefix.join("/"));
            }
            Ok(_) => return Origin::Unknown,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return Origin::Unknown,
        }
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
            return Origin::Unknown;
        };
        let Some(name) = name.to_str() else {
            return Origin::Unknown;
        };
        prefix.push(name.to_string());
        dir = parent;
    }
    Origin::Unknown
}

/// True when a folder on the way from `root` to the entry file `key` (`.capn`, `.capn/entries`)
/// holds a `.git` of its own (a git submodule, a nested clone): what is in it came from another
/// repository, which capn cannot attribute to this checkout's writes.
fn in_nested_repository(root: &Path, key: &str) -> bool {
    let mut dir = root.to_path_buf();
    let parts: Vec<&str> = key.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        dir.push(part);
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return true;
        }
    }
    false
}

/// [`origin`] for the path `key` (relative to the repository's top) in the `.git` folder `git`.
fn origin_in(git: &Path, key: &str) -> Origin {
    let index = git.join("index");
    let bytes =
        match crate::fsutil::read_limited(&index, MAX_INDEX_BYTES, crate::fsutil::Follow::Never) {
            Ok(b) => b,
            // A repository with nothing added yet has no index: nothing is tracked.
            Err(crate::fsutil::ReadError::NotFound) => return Origin::Checkout,
            Err(_) => return Origin::Unknown,
        };
    match in_index(&bytes, key) {
        Some(true) => Origin::Repository,
        // A folder above the entry that the index holds as an entry of its own is a submodule
        // (a gitlink): its files are another repository's, not this checkout's writes.
        Some(false) if folders_of(key).any(|f| in_index(&bytes, f) == Some(true)) => {
            Origin::Unknown
        }
        Some(false) => Origin::Checkout,
        None => Origin::Unknown,
    }
}

/// The folders above `key`, nearest the top first: `a`, `a/b` for `a/b/c.md`.
fn folders_of(key: &str) -> impl Iterator<Item = &str> {
    key.match_indices('/').map(move |(i, _)| &key[..i])
}

/// Whether the index `bytes` (versions 2 and 3) hold the path `key`; `None` when they are not
/// an index capn reads.
fn in_index(bytes: &[u8], key: &str) -> Option<bool> {
    if bytes.len() < 12 || &bytes[..4] != b"DIRC" {
        return None;
    }
    let version = u32::from_be_bytes(bytes[4..8].try_into().ok()?);
    if !(2..=3).contains(&version) {
        return None;
    }
    let path = key.as_bytes();
    if path.is_empty() || path.len() >= 0xFFF {
        return None;
    }
    // A literal search (the regex crate's, which is memchr's where it can be) for the path and
    // the NUL that ends it.
    let needle = regex::bytes::Regex::new(&format!("{}\\x00", regex::escape(key))).ok()?;
    for at in needle.find_iter(&bytes[12..]).map(|m| m.start() + 12) {
        // The path starts an entry: the flags before it (or the extended flags after them, in
        // version 3) carry its length.
        let flags_at = |o: usize| {
            at.checked_sub(o)
                .map(|i| u16::from_be_bytes([bytes[i], bytes[i + 1]]) & 0x0FFF)
        };
        if flags_at(2) == Some(path.len() as u16) || flags_at(4) == Some(path.len() as u16) {
            return Some(true);
        }
    }
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-2 index holding `paths` (zeroed stat data, as git's format lays it out).
    fn index(paths: &[&str]) -> Vec<u8> {
        let mut b = b"DIRC".to_vec();
        b.extend(2u32.to_be_bytes());
        b.extend((paths.len() as u32).to_be_bytes());
        for p in paths {
            let start = b.len();
            b.extend([0u8; 60]);
            b.extend((p.len() as u16).to_be_bytes());
            b.extend(p.as_bytes());
            let len = b.len() - start;
            b.extend(std::iter::repeat_n(0u8, 8 - len % 8));
        }
        b
    }

    #[test]
    fn an_index_entry_is_found_and_a_longer_path_ending_alike_is_not() {
        let key = ".capn/entries/ab12cd34.md";
        assert_eq!(in_index(&index(&["a.ts", key]), key), Some(true));
        assert_eq!(
            in_index(&index(&["x/.capn/entries/ab12cd34.md"]), key),
            Some(false)
        );
        assert_eq!(in_index(&index(&["a.ts"]), key), Some(false));
        let mut v4 = index(&[key]);
        v4[7] = 4;
        assert_eq!(in_index(&v4, key), None);
        assert_eq!(in_index(b"garbage", key), None);
    }

    /// A `.capn` that is a git submodule (a gitlink in the superproject's index, a
    /// `.git` file in the folder) is not labelled as charted in this checkout.
    #[test]
    fn a_store_from_a_submodule_is_not_claimed_as_this_checkouts() {
        let tmp = tempfile::tempdir().unwrap();
        let key = ".capn/entries/ab12cd34.md";
        std::fs::create_dir_all(tmp.path().join(".git")).unwrap();
        std::fs::create_dir_all(tmp.path().join(".capn/entries")).unwrap();
        std::fs::write(tmp.path().join(".git/index"), index(&[".capn", "a.ts"])).unwrap();
        assert_eq!(origin(tmp.path(), key), Origin::Unknown);
        std::fs::write(tmp.path().join(".git/index"), index(&["a.ts"])).unwrap();
        assert_eq!(origin(tmp.path(), key), Origin::Checkout);
        std::fs::write(tmp.path().join(".capn/.git"), "gitdir: ../.git/modules/x\n").unwrap();
        assert_eq!(origin(tmp.path(), key), Origin::Unknown);
    }

    #[test]
    fn origin_reads_the_project_index() {
        let tmp = tempfile::tempdir().unwrap();
        let key = ".capn/entries/ab12cd34.md";
        std::fs::create_dir(tmp.path().join(".git")).unwrap();
        assert_eq!(origin(tmp.path(), key), Origin::Checkout);
        std::fs::write(tmp.path().join(".git/index"), index(&[key])).unwrap();
        assert_eq!(origin(tmp.path(), key), Origin::Repository);
        std::fs::write(tmp.path().join(".git/index"), index(&["b.md"])).unwrap();
        assert_eq!(origin(tmp.path(), key), Origin::Checkout);
    }

    /// A store in a subfolder of a repository, its entry
    /// committed in the superproject, is found under its path there; a tree with no `.git`
    /// anywhere above it says nothing.
    #[test]
    fn a_store_in_a_subfolder_is_looked_up_in_the_enclosing_index() {
        let tmp = tempfile::tempdir().unwrap();
        let key = ".capn/entries/ab12cd34.md";
        let pkg = tmp.path().join("repo/vendor/pkg");
        std::fs::create_dir_all(&pkg).unwrap();
        // No .git anywhere in the temp tree (the temp dir itself is not in a repository).
        if tmp.path().ancestors().all(|a| !a.join(".git").exists()) {
            assert_eq!(origin(&pkg, key), Origin::Unknown);
        }
        std::fs::create_dir(tmp.path().join("repo/.git")).unwrap();
        std::fs::write(
            tmp.path().join("repo/.git/index"),
            index(&["vendor/pkg/.capn/entries/ab12cd34.md"]),
        )
        .unwrap();
        assert_eq!(origin(&pkg, key), Origin::Repository);
        assert_eq!(
            origin(&tmp.path().join("repo/vendor"), key),
            Origin::Checkout
        );
        // A worktree's .git file: cannot tell.
        std::fs::write(pkg.join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(origin(&pkg, key), Origin::Unknown);
    }
}
