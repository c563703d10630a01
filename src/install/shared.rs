//! Where the store stands with git. Local mode (the default): `.capn/.gitignore` holds
//! [`LOCAL_STORE_GITIGNORE`] (`*`), so git ignores all of `.capn/` and capn leaves no trace in
//! the user's tracked files (the project's `.gitignore` is never edited for it). Shared mode
//! (`capn init --shared`): the store's entries and `config.json` are committed to git for the
//! team, one file per entry; the derived files stay out of git through `.capn/.gitignore`
//! ([`STORE_GITIGNORE`]), and the project's `.gitignore` must not ignore `.capn/` (git cannot
//! take back a file of an ignored folder), so its lines that do are dropped
//! ([`take_store_lines`]) and recorded in the install record; `capn init --local` and
//! `capn uninstall` put them back ([`put_back_store_lines`]; only lines that ignore the store,
//! whoever wrote the record: [`restorable`]). `capn init --local` switches back:
//! `.capn/.gitignore` returns to `*` (the entries stay in git's history;
//! `git rm -r --cached .capn` stops tracking them).
//!
//! capn 0.3 added a `.capn/` line to the project's `.gitignore` instead; `init` and `uninstall`
//! take back that exact line ([`without_legacy_line`]) when this user's install record was
//! written by 0.3 ([`crate::install::record::InstallRecord::written_by_0_3`]: else the line is the
//! user's, or capn 0.2's, and stays) and while it is not committed (a committed one is the
//! team's: a teammate on 0.3 relies on it).

use crate::install::record::{sha256_hex, RecordedGitignore, RemovedLine};
use anyhow::Result;
use std::path::Path;

/// `.capn/.gitignore` in shared mode: everything in `.capn/` is ignored but the entries, the
/// config, `.gitattributes` (phrasings merge without a conflict: `crate::store::conflict`) and
/// this file (the index, vectors, stat cache, `stale.json`, `learned.json`, lock, install
/// record, linked worktrees' folders and temp files are derived or per machine).
pub(crate) const STORE_GITIGNORE: &str = "\
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
pub(crate) const OLD_STORE_GITIGNORE: &str = "\
# Written by capn init --shared: the charts (entries/*.md) and config.json are committed for the
# team; everything else in .capn/ is derived or per machine and stays out of git.
*
!/.gitignore
!/config.json
!/entries/
!/entries/*.md
";

/// `.capn/.gitignore` in local mode: git ignores the whole store (this file too). Kept in the
/// store, whose first chart writes it too.
pub(crate) const LOCAL_STORE_GITIGNORE: &str = crate::store::LOCAL_STORE_GITIGNORE;

/// The line capn 0.3 added to the project's `.gitignore`.
pub(crate) const LEGACY_LINE: &[u8] = b".capn/";

/// The project `.gitignore` (`bytes`) without the lines that are exactly [`LEGACY_LINE`] (the
/// one capn 0.3 added), every other byte as it was; `None` when it has none.
pub(crate) fn without_legacy_line(bytes: &[u8]) -> Option<Vec<u8>> {
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
pub(crate) fn has_legacy_line(text: &[u8]) -> bool {
    without_legacy_line(text).is_some()
}

/// The lines of a project `.gitignore` that ignore the whole store, as capn writes them or
/// equivalently (trailing spaces aside).
pub(crate) fn ignores_store(line: &[u8]) -> bool {
    let line = line.trim_ascii_end();
    let line = line.strip_prefix(b"/").unwrap_or(line);
    let line = line
        .strip_suffix(b"/*")
        .or_else(|| line.strip_suffix(b"/"))
        .unwrap_or(line);
    line == crate::store::STORE_DIR.as_bytes()
}

/// A line of a `.gitignore` without its line end (`\n` or `\r\n`).
fn line_text(line: &[u8]) -> &[u8] {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    text.strip_suffix(b"\r").unwrap_or(text)
}

/// The project `.gitignore` (`bytes`) without its lines that ignore the whole store, every other
/// byte as it was, and those lines as the install record keeps them (each with its line end,
/// its index and the line above it that stays); `None` when it has none.
pub(crate) fn take_store_lines(bytes: &[u8]) -> Option<(Vec<u8>, RecordedGitignore)> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut removed = Vec::new();
    let mut above: Option<String> = None;
    for (index, line) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let text = line_text(line);
        if ignores_store(text) {
            removed.push(RemovedLine {
                line: String::from_utf8_lossy(line).into_owned(),
                index,
                after: above.clone(),
            });
        } else {
            above = Some(String::from_utf8_lossy(text).into_owned());
            out.extend_from_slice(line);
        }
    }
    if removed.is_empty() {
        return None;
    }
    let after_sha256 = sha256_hex(&out);
    Some((
        out,
        RecordedGitignore {
            removed,
            after_sha256,
        },
    ))
}

/// True when `l` may be put back into the project `.gitignore`: one line (its end `\n`,
/// `\r\n` or none) that ignores the whole store ([`ignores_store`]), the only kind `init`
/// takes out. A record that came with the repository can name anything; this is what keeps
/// it from adding, say, `!.env`.
pub(crate) fn restorable(l: &RemovedLine) -> bool {
    let b = l.line.as_bytes();
    let text = b
        .strip_suffix(b"\r\n")
        .or_else(|| b.strip_suffix(b"\n"))
        .unwrap_or(b);
    !text.contains(&b'\n') && !text.contains(&b'\r') && ignores_store(text)
}

/// Appends `piece` (a line) to `out`, ending the line before it first when it has no line end.
fn push_line(out: &mut Vec<u8>, piece: &[u8]) {
    if out.last().is_some_and(|b| *b != b'\n') {
        out.push(b'\n');
    }
    out.extend_from_slice(piece);
}

/// The project `.gitignore` (`current`) with the [`restorable`] lines of `rec` put back, and
/// where each went (for a message); `None` when there is nothing to put back. While `current`
/// is exactly what `init` left (`rec.after_sha256`), each line goes back at its index: the
/// bytes from before `init`, exactly (the message list is then empty). Otherwise a line the
/// file holds again is skipped, and each other one goes right after the line that was above it
/// when that line is still there (the top when there was none), else at the end; no other byte
/// changes.
pub(crate) fn put_back_store_lines(
    current: &[u8],
    rec: &RecordedGitignore,
) -> Option<(Vec<u8>, Vec<String>)> {
    let lines: Vec<&[u8]> = current.split_inclusive(|b| *b == b'\n').collect();
    let mut removed: Vec<&RemovedLine> = rec.removed.iter().filter(|l| restorable(l)).collect();
    removed.sort_by_key(|l| l.index);
    if removed.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(current.len() + 16 * removed.len());
    if sha256_hex(current) == rec.after_sha256 {
        let mut rest = lines.into_iter();
        let mut emitted = 0;
        for l in removed {
            while emitted < l.index {
                let Some(line) = rest.next() else { break };
                push_line(&mut out, line);
                emitted += 1;
            }
            push_line(&mut out, l.line.as_bytes());
            emitted += 1;
        }
        rest.for_each(|line| push_line(&mut out, line));
        return Some((out, Vec::new()));
    }
    // Where each line goes: the top, after line j of `current`, or the end.
    let mut top = Vec::new();
    let mut after: Vec<Vec<&RemovedLine>> = vec![Vec::new(); lines.len()];
    let mut end = Vec::new();
    let mut said = Vec::new();
    let mut seen: Vec<&[u8]> = lines.iter().map(|l| line_text(l)).collect();
    for l in removed {
        let text = line_text(l.line.as_bytes());
        if seen.contains(&text) {
            continue;
        }
        seen.push(text);
        let shown = String::from_utf8_lossy(text);
        // A blank line above it says nothing about where it stood.
        let anchor = l.after.as_deref().filter(|a| !a.trim().is_empty());
        let at = anchor.and_then(|a| lines.iter().position(|x| line_text(x) == a.as_bytes()));
        match (&l.after, at) {
            (None, _) => {
                top.push(l);
                said.push(format!("{shown} at the top"));
            }
            (Some(_), Some(j)) => {
                after[j].push(l);
                said.push(format!("{shown} after {}", anchor.unwrap_or_default()));
            }
            (Some(_), None) => {
                end.push(l);
                said.push(format!("{shown} at the end"));
            }
        }
    }
    if said.is_empty() {
        return None;
    }
    top.iter()
        .for_each(|l| push_line(&mut out, l.line.as_bytes()));
    for (line, then) in lines.iter().zip(&after) {
        push_line(&mut out, line);
        then.iter()
            .for_each(|l| push_line(&mut out, l.line.as_bytes()));
    }
    end.iter()
        .for_each(|l| push_line(&mut out, l.line.as_bytes()));
    Some((out, said))
}

/// What `init` does with `.capn/.gitignore`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StoreIgnore {
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
pub(crate) fn plan_store_ignore(path: &Path, shared: bool) -> Result<StoreIgnore> {
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
pub(crate) enum RootIgnore {
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
pub(crate) fn plan_legacy(root: &Path) -> Result<RootIgnore> {
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
/// the whole store ([`take_store_lines`]), with those lines for the install record.
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read.
pub(crate) fn plan_shared_root(root: &Path) -> Result<(RootIgnore, Option<RecordedGitignore>)> {
    let path = root.join(".gitignore");
    let bytes = crate::fsutil::read_host_file(&path, ".gitignore")?.unwrap_or_default();
    Ok(match take_store_lines(&bytes) {
        Some((new, taken)) => (RootIgnore::Write(new), Some(taken)),
        None => (RootIgnore::Keep, None),
    })
}

/// Plans putting back into the project's `.gitignore` at `root` the lines `rec` says
/// `init --shared` took out ([`put_back_store_lines`]), with a line saying what it does (or
/// why it does not: a `.gitignore` deleted since stays deleted).
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read.
pub(crate) fn plan_put_back(
    root: &Path,
    rec: &RecordedGitignore,
) -> Result<(RootIgnore, Option<String>)> {
    if !rec.removed.iter().any(restorable) {
        return Ok((RootIgnore::Keep, None));
    }
    let path = root.join(".gitignore");
    let Some(bytes) = crate::fsutil::read_host_file(&path, ".gitignore")? else {
        let why = "did not put back the .capn/ line capn init --shared took out of .gitignore: \
                   .gitignore was deleted since";
        return Ok((RootIgnore::Keep, Some(why.into())));
    };
    Ok(match put_back_store_lines(&bytes, rec) {
        None => (RootIgnore::Keep, None),
        Some((new, said)) if said.is_empty() => (
            RootIgnore::Write(new),
            Some(
                "put .gitignore back as it was before capn init --shared (with the .capn/ line \
                 it took out)"
                    .into(),
            ),
        ),
        Some((new, said)) => (
            RootIgnore::Write(new),
            Some(format!(
                "put back in .gitignore what capn init --shared took out of it: {} (the file \
                 changed since; nothing else in it was touched)",
                said.join(", ")
            )),
        ),
    })
}

/// Carries out `plan` on `root`'s `.gitignore`. Returns whether it changed anything.
///
/// Errors: the file cannot be written or removed.
pub(crate) fn apply_root(root: &Path, plan: &RootIgnore) -> Result<bool> {
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
        let (left, taken) =
            take_store_lines(b"target/\r\n.capn/\r\n/node_modules\n.capn  \nx").unwrap();
        assert_eq!(left, b"target/\r\n/node_modules\nx");
        let lines: Vec<_> = taken
            .removed
            .iter()
            .map(|l| (l.line.as_str(), l.index, l.after.as_deref()))
            .collect();
        assert_eq!(
            lines,
            [
                (".capn/\r\n", 1, Some("target/")),
                (".capn  \n", 3, Some("/node_modules"))
            ]
        );
        assert_eq!(taken.after_sha256, sha256_hex(&left));
        assert_eq!(take_store_lines(b"target/\n.capn/index.bin\n"), None);
    }

    /// Takes the store lines out of `before`, then puts them back into what `edit` makes of
    /// what is left.
    fn round_trip(before: &str, edit: impl Fn(&str) -> String) -> Option<(String, Vec<String>)> {
        let (left, taken) = take_store_lines(before.as_bytes()).unwrap();
        let now = edit(std::str::from_utf8(&left).unwrap());
        put_back_store_lines(now.as_bytes(), &taken)
            .map(|(b, said)| (String::from_utf8(b).unwrap(), said))
    }

    #[test]
    fn an_untouched_gitignore_gets_its_bytes_back() {
        for before in [
            "node_modules\n.capn/\n",
            ".capn/",
            ".capn/\nx",
            "a\r\n.capn/\r\n/.capn/*\r\nb\r\n",
            "a\n.capn",
            "\n\n.capn/\n\n",
        ] {
            let back = round_trip(before, str::to_string).unwrap();
            assert_eq!(back, (before.to_string(), Vec::new()), "{before:?}");
        }
    }

    #[test]
    fn a_changed_gitignore_gets_the_lines_back_and_nothing_else_changes() {
        let put = |before: &str, edit: fn(&str) -> String| round_trip(before, edit).unwrap().0;
        // The line above is still there: right after it.
        assert_eq!(
            put("node_modules\n.capn/\ndist\n", |s| format!("{s}new\n")),
            "node_modules\n.capn/\ndist\nnew\n"
        );
        // It is gone: at the end (the last line ended first).
        assert_eq!(
            put("node_modules\n.capn/\n", |_| "dist".into()),
            "dist\n.capn/\n"
        );
        // It stood at the top: at the top.
        assert_eq!(put(".capn/\nx\n", |s| format!("{s}y\n")), ".capn/\nx\ny\n");
        // Two lines in a row keep their order.
        assert_eq!(
            put("a\n.capn/\n/.capn\nb\n", |s| format!("z\n{s}")),
            "z\na\n.capn/\n/.capn\nb\n"
        );
        // The user put it back already: nothing to do.
        assert_eq!(
            round_trip("a\n.capn/\n", |s| format!("{s}.capn/\nb\n")),
            None
        );
    }

    #[test]
    fn only_store_lines_are_ever_put_back() {
        let line = |l: &str| RemovedLine {
            line: l.into(),
            index: 0,
            after: None,
        };
        let rec = RecordedGitignore {
            removed: [
                "!.env\n",
                ".capn/\n!.env\n",
                ".capn/\r!x\n",
                "/.capn/*\r\n",
                "*\n",
            ]
            .map(line)
            .to_vec(),
            after_sha256: sha256_hex(b"a\n"),
        };
        let (back, _) = put_back_store_lines(b"a\n", &rec).unwrap();
        assert_eq!(back, b"/.capn/*\r\na\n");
        let rec = RecordedGitignore {
            removed: vec![line("!.env\n")],
            after_sha256: String::new(),
        };
        assert_eq!(put_back_store_lines(b"a\n", &rec), None);
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
