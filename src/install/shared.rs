//! Shared mode (`capn init --shared`): the store's entries and `config.json` are committed to
//! git for the team, one file per entry, so two branches that chart merge without a conflict;
//! the derived files stay out of git through `.capn/.gitignore` ([`STORE_GITIGNORE`]), and the
//! project's `.gitignore` no longer ignores `.capn/`. `capn init --local` switches back: capn's
//! `.capn/` line returns to `.gitignore` and `.capn/.gitignore` goes (the entries stay in git's
//! history; `git rm -r --cached .capn` stops tracking them). Both edits of the project's
//! `.gitignore` live here: [`with_store_line`] and [`without_store_lines`].

use anyhow::Result;
use std::path::Path;

/// `.capn/.gitignore` in shared mode: everything in `.capn/` is ignored but the entries, the
/// config and this file (the index, vectors, stat cache, `stale.json`, lock, install record,
/// linked worktrees' folders and temp files are derived or per machine).
pub const STORE_GITIGNORE: &str = "\
# Written by capn init --shared: the charts (entries/*.md) and config.json are committed for the
# team; everything else in .capn/ is derived or per machine and stays out of git.
*
!/.gitignore
!/config.json
!/entries/
!/entries/*.md
";

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

/// The project `.gitignore` (`bytes`) with a `.capn/` line added, or `None` when a line that
/// ignores the whole store ([`ignores_store`]) is already in force. Works on bytes (a
/// `.gitignore` may hold any bytes; every other byte stays as it was), keeps the file's line
/// ending style (CRLF or LF), and adds a line break first when the file lacks a final one.
pub fn with_store_line(bytes: Vec<u8>) -> Option<Vec<u8>> {
    // As git reads it: trailing spaces do not count, leading ones do (`  .capn/` names another
    // file), and a later `!.capn/` takes an earlier line back.
    let mut present = false;
    for line in bytes.split(|b| *b == b'\n') {
        let l = line.trim_ascii_end();
        if ignores_store(l) {
            present = true;
        } else if l.strip_prefix(b"!").is_some_and(ignores_store) {
            present = false;
        }
    }
    if present {
        return None;
    }
    let crlf = bytes.windows(2).any(|w| w == b"\r\n");
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut new = bytes;
    if !new.is_empty() && !new.ends_with(b"\n") {
        new.extend_from_slice(eol);
    }
    new.extend_from_slice(format!("{}/", crate::store::STORE_DIR).as_bytes());
    new.extend_from_slice(eol);
    Some(new)
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
    /// Write [`STORE_GITIGNORE`] (absent, or another text).
    Write,
    /// Remove it (switching back to local: it is capn's own text).
    Remove,
}

/// Plans `.capn/.gitignore` at `path` for a store that is `shared` or not: written when shared
/// and missing or different; removed when not shared and it holds capn's own text (a file the
/// user wrote is kept).
///
/// Errors: it is a symlink, a special file, or cannot be read.
pub fn plan_store_ignore(path: &Path, shared: bool) -> Result<StoreIgnore> {
    let now = crate::fsutil::read_host_file(path, ".capn/.gitignore")?;
    Ok(match (shared, now) {
        (true, Some(b)) if b == STORE_GITIGNORE.as_bytes() => StoreIgnore::Keep,
        (true, _) => StoreIgnore::Write,
        (false, Some(b)) if b == STORE_GITIGNORE.as_bytes() => StoreIgnore::Remove,
        (false, _) => StoreIgnore::Keep,
    })
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
