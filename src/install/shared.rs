//! Where the store stands with git. Local mode (the default): `.capn/.gitignore` holds
//! [`LOCAL_STORE_GITIGNORE`] (`*`), so git ignores all of `.capn/` and capn leaves no trace in
//! the user's tracked files (the project's `.gitignore` is never edited for it). Shared mode
//! (`capn init --shared`): the store's entries and `config.json` are committed to git for the
//! team, one file per entry; the derived files stay out of git through `.capn/.gitignore`
//! ([`STORE_GITIGNORE`]), and the project's `.gitignore` must not ignore `.capn/` (git cannot
//! take back a file of an ignored folder), so its lines that do are dropped
//! ([`without_store_lines`]). `capn init --local` switches back: `.capn/.gitignore` returns to
//! `*` (the entries stay in git's history; `git rm -r --cached .capn` stops tracking them).
//!
//! capn 0.3 added a `.capn/` line to the project's `.gitignore` instead; `init` and `uninstall`
//! take back that exact line ([`without_legacy_line`]) when this user's install record was
//! written by 0.3 ([`crate::install::record::InstallRecord::written_by_0_3`]: else the line is the
//! user's, or capn 0.2's, and stays) and while it is not committed (a committed one is the
//! team's: a teammate on 0.3 relies on it).

use anyhow::Result;
use std::path::Path;

/// `.capn/.gitignore` in shared mode: everything in `.capn/` is ignored but the entries, the
/// config, `.gitattributes` (phrasings merge without a conflict: `crate::store::conflict`) and
/// this file (the index, vectors, stat cache, `stale.json`, `learned.json`, lock, install
/// record, linked worktrees' folders and temp files are derived or per machine).
pub const STORE_GITIGNORE: &str = "\
# Written by capn init --shared: the charts (entries/*.md) and config.json are committed for the
# team; everything else in .capn/ is derived or per machine and stays out of git.
*
!/.gitignore
!/.gitattributes
!/config.json
!/entries/
!/entries/*.md
";

/// The [`STORE_GITIGNORE`] capn wrote before `.gitattributes` was committed with the charts.
pub const OLD_STORE_GITIGNORE: &str = "\
# Written by capn init --shared: the charts (entries/*.md) and config.json are committed for the
# team; everything else in .capn/ is derived or per machine and stays out of git.
*
!/.gitignore
!/config.json
!/entries/
!/entries/*.md
";

/// `.capn/.gitignore` in local mode: git ignores the whole store (this file too).
pub const LOCAL_STORE_GITIGNORE: &str = "\
# Written by capn init: this store is local, so git ignores all of .capn/ (capn init --shared
# commits the charts for the team instead).
*
";

/// The line capn 0.3 added to the project's `.gitignore`.
pub const LEGACY_LINE: &[u8] = b".capn/";

/// The project `.gitignore` (`bytes`) without the lines that are exactly [`LEGACY_LINE`] (the
/// one capn 0.3 added), every other byte as it was; `None` when it has none.
pub fn without_legacy_line(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut dropped = false;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text == LEGACY_LINE {
            dropped = true;
        } else {
            out.extend_from_slice(line);
        }
    }
    dropped.then_some(out)
}

/// True when `text` (a `.gitignore`, as committed) has a line that is exactly [`LEGACY_LINE`].
pub fn has_legacy_line(text: &[u8]) -> bool {
    without_legacy_line(text).is_some()
}

/// The lines of a project `.gitignore` that ignore the whole store, as capn writes them or
/// equivalently (trailing spaces aside).
pub fn ignores_store(line: &[u8]) -> bool {
    let line = line.trim_ascii_end();
    let line = line.strip_prefix(b"/").unwrap_or(line);
    let line = line
        .strip_suffix(b"/*")
        .or_else(|| line.strip_suffix(b"/"))
        .unwrap_or(line);
    line == crate::store::STORE_DIR.as_bytes()
}

/// The project `.gitignore` (`bytes`) without its lines that ignore the whole store, every other
/// byte as it was; `None` when it has none.
pub fn without_store_lines(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut dropped = false;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if ignores_store(text) {
            dropped = true;
        } else {
            out.extend_from_slice(line);
        }
    }
    dropped.then_some(out)
}

/// What `init` does with `.capn/.gitignore`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreIgnore {
    /// Leave it as it is.
    Keep,
    /// Write this text ([`STORE_GITIGNORE`] or [`LOCAL_STORE_GITIGNORE`]).
    Write(&'static str),
}

/// Plans `.capn/.gitignore` at `path` for a store that is `shared` or not: the text of that mode
/// written when the file is missing or holds capn's text of the other mode; a shared store's is
/// also written over another text (its negations are what keep the charts in git), while a
/// local store keeps a file the user wrote.
///
/// Errors: it is a symlink, a special file, or cannot be read.
pub fn plan_store_ignore(path: &Path, shared: bool) -> Result<StoreIgnore> {
    let now = crate::fsutil::read_host_file(path, ".capn/.gitignore")?;
    let want = if shared {
        STORE_GITIGNORE
    } else {
        LOCAL_STORE_GITIGNORE
    };
    Ok(match now {
        Some(b) if b == want.as_bytes() => StoreIgnore::Keep,
        Some(b)
            if !shared
                && b != STORE_GITIGNORE.as_bytes()
                && b != OLD_STORE_GITIGNORE.as_bytes() =>
        {
            StoreIgnore::Keep
        }
        _ => StoreIgnore::Write(want),
    })
}

/// What `init` or `uninstall` does with the project's `.gitignore`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootIgnore {
    /// Leave it as it is.
    Keep,
    /// Write these bytes (a line taken out, every other byte as it was).
    Write(Vec<u8>),
    /// Delete it: it held capn 0.3's line alone, and git does not track it.
    Delete,
}

/// Plans the project's `.gitignore` at `root` for a local store: capn 0.3's line
/// ([`LEGACY_LINE`]) taken out while it is not committed (neither `HEAD` nor the index has it:
/// a committed one is the team's); the file deleted when nothing else is left and git tracks
/// it in neither. Runs `git` (never on a hook's path); without git the line counts as not
/// committed.
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read.
pub fn plan_legacy(root: &Path) -> Result<RootIgnore> {
    let path = root.join(".gitignore");
    let Some(bytes) = crate::fsutil::read_host_file(&path, ".gitignore")? else {
        return Ok(RootIgnore::Keep);
    };
    let Some(new) = without_legacy_line(&bytes) else {
        return Ok(RootIgnore::Keep);
    };
    let committed: Vec<Vec<u8>> = ["HEAD:.gitignore", ":.gitignore"]
        .iter()
        .filter_map(|rev| crate::process::git_output(root, &["show", rev]))
        .collect();
    if committed.iter().any(|c| has_legacy_line(c)) {
        return Ok(RootIgnore::Keep);
    }
    Ok(if new.is_empty() && committed.is_empty() {
        RootIgnore::Delete
    } else {
        RootIgnore::Write(new)
    })
}

/// Plans the project's `.gitignore` at `root` for a shared store: without its lines that ignore
/// the whole store ([`without_store_lines`]).
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read.
pub fn plan_shared_root(root: &Path) -> Result<RootIgnore> {
    let path = root.join(".gitignore");
    let bytes = crate::fsutil::read_host_file(&path, ".gitignore")?.unwrap_or_default();
    Ok(without_store_lines(&bytes).map_or(RootIgnore::Keep, RootIgnore::Write))
}

/// Carries out `plan` on `root`'s `.gitignore`. Returns whether it changed anything.
///
/// Errors: the file cannot be written or removed.
pub fn apply_root(root: &Path, plan: &RootIgnore) -> Result<bool> {
    let path = root.join(".gitignore");
    match plan {
        RootIgnore::Keep => return Ok(false),
        RootIgnore::Write(bytes) => crate::fsutil::write_atomic(&path, bytes)?,
        RootIgnore::Delete => crate::fsutil::remove_if_exists(&path)?,
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_store_lines_leave_the_gitignore() {
        assert_eq!(
            without_store_lines(b"target/\r\n.capn/\r\n/node_modules\n.capn  \nx").unwrap(),
            b"target/\r\n/node_modules\nx"
        );
        assert_eq!(without_store_lines(b"target/\n.capn/index.bin\n"), None);
    }

    #[test]
    fn only_the_exact_legacy_line_leaves_the_gitignore() {
        assert_eq!(
            without_legacy_line(b"dist\r\n.capn/\r\n/.capn\n.capn/*\nx").unwrap(),
            b"dist\r\n/.capn\n.capn/*\nx"
        );
        assert_eq!(without_legacy_line(b"a\n.capn/").unwrap(), b"a\n");
        assert_eq!(without_legacy_line(b"a\n .capn/\n.capn/x\n"), None);
    }

    #[test]
    fn the_lines_that_ignore_the_whole_store() {
        for l in [
            ".capn", ".capn/", "/.capn", "/.capn/", ".capn/*", "/.capn/*", ".capn/  ",
        ] {
            assert!(ignores_store(l.as_bytes()), "{l}");
        }
        for l in [
            "//.capn",
            ".capn//",
            ".capn/entries",
            "x/.capn",
            ".capnx",
            "capn",
            "",
        ] {
            assert!(!ignores_store(l.as_bytes()), "{l}");
        }
    }
}
