//! Entries git left with merge conflict markers (`<<<<<<<`, `=======`, `>>>>>>>` lines, in the
//! frontmatter or the body): such an entry is never served, not even as details; it is reported
//! with what resolves it, and a re-chart of its question replaces it (resolving it) instead of
//! taking another id.

use super::entry::Entry;
use super::Store;

/// `.capn/.gitattributes`: git merges two versions of an entry by its built-in `union` driver
/// (no merge driver to install), so two teammates who each add a phrasing to a chart (their
/// `- ` lines of `## Also asked as`) get both, and two versions of its details are kept one
/// after the other. A frontmatter both sides changed (a chart re-charted on both sides on other
/// file contents) can come out with a file named twice: that entry is reported, and charting
/// its question again resolves it ([`asks`]).
pub(crate) const GITATTRIBUTES: &str = "\
# Written by capn: git keeps both sides' lines when two versions of a chart merge (a phrasing
# added on each side lands twice, never as a conflict); no merge driver to install.
entries/*.md merge=union
";

impl Store {
    /// Writes [`GITATTRIBUTES`] to `.capn/.gitattributes` when there is no such file (one there,
    /// whatever it holds, is left alone). Best effort: a store where it cannot be written merges
    /// as before (a conflict the next re-chart resolves).
    pub(crate) fn ensure_merge_attributes(&self) {
        let path = self.dir.join(".gitattributes");
        if std::fs::symlink_metadata(&path).is_ok() || !self.dir.is_dir() {
            return;
        }
        if let Err(e) = crate::fsutil::write_atomic(&path, GITATTRIBUTES.as_bytes()) {
            super::warn(&e);
        }
    }
}

/// The two sides of a text with git conflict markers ("ours" and "theirs", the common text
/// in both; a diff3 base section left out), or `None` when it has no complete conflict block
/// (a `<<<<<<< ` line, then `=======`, then `>>>>>>> `, each at the start of a line).
pub(crate) fn sides(text: &str) -> Option<(String, String)> {
    if !text.contains("<<<<<<<") {
        return None;
    }
    #[derive(PartialEq)]
    enum In {
        Both,
        Ours,
        Base,
        Theirs,
    }
    let (mut ours, mut theirs) = (String::new(), String::new());
    let mut at = In::Both;
    let mut blocks = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match at {
            In::Both if bare.starts_with("<<<<<<<") => at = In::Ours,
            In::Ours if bare.starts_with("|||||||") => at = In::Base,
            In::Ours | In::Base if bare == "=======" => at = In::Theirs,
            In::Theirs if bare.starts_with(">>>>>>>") => {
                at = In::Both;
                blocks += 1;
            }
            In::Both => {
                ours.push_str(line);
                theirs.push_str(line);
            }
            In::Ours => ours.push_str(line),
            In::Base => {}
            In::Theirs => theirs.push_str(line),
        }
    }
    (blocks > 0 && at == In::Both).then_some((ours, theirs))
}

/// The reason an entry with conflict markers is skipped, naming what resolves it: a re-chart of
/// its question (named when a side parses), which keeps both sides' phrasings and details
/// ([`merged`]), or keeping one side with git.
pub(crate) fn reason(text: &str, file_id: &str) -> String {
    let parsed = sides(text).and_then(|(ours, theirs)| {
        [ours, theirs]
            .iter()
            .find_map(|side| parse_side(side, file_id))
    });
    let rechart = match parsed {
        Some(e) => {
            let files: Vec<&str> = e.files.keys().map(String::as_str).collect();
            format!(
                "capn chart {} --files {} (re-charting replaces it and keeps both sides' phrasings and details)",
                crate::present::quote(&e.question, crate::present::MAX_QUESTION_CHARS),
                crate::present::printable_capped(&files.join(","), 400)
            )
        }
        None => "capn chart with its question (re-charting replaces it)".to_string(),
    };
    format!(
        "a git merge conflict: never served until it is resolved; resolve it with {rechart}, \
         or keep one side with git checkout --ours (or --theirs) on this file; then git add it"
    )
}

/// True when the entry file text `text` holds two versions of a chart that ask `question`: a
/// git merge conflict whose sides ask it, or a union merge ([`GITATTRIBUTES`]) that named a
/// backing file twice ([`union_merged`]).
pub(crate) fn asks(text: &str, file_id: &str, question: &str) -> bool {
    let asks_it = |e: &Entry| e.question == question || e.phrasings.iter().any(|p| p == question);
    match sides(text) {
        Some((ours, theirs)) => [ours, theirs]
            .iter()
            .any(|side| parse_side(side, file_id).is_some_and(|e| asks_it(&e))),
        None => union_merged(text, file_id).is_some_and(|e| asks_it(&e)),
    }
}

/// What a re-chart of a chart whose file holds two versions ([`asks`]) keeps of them: every
/// phrasing of either side (ours first, each once), and the details of both (once when they are
/// the same, else ours, a blank line, theirs). `None` when no side parses.
pub(crate) fn merged(text: &str, file_id: &str) -> Option<Entry> {
    let Some((ours, theirs)) = sides(text) else {
        return union_merged(text, file_id);
    };
    let (a, b) = (parse_side(&ours, file_id), parse_side(&theirs, file_id));
    let (mut a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (one, other) => return one.or(other),
    };
    for p in &b.phrasings {
        a.add_phrasing(p);
    }
    a.details = match (a.details.trim().is_empty(), b.details.trim().is_empty()) {
        _ if a.details == b.details => a.details,
        (true, _) => b.details,
        (_, true) => a.details,
        // foreign-scan: data (both versions' details, written back to the entry)
        _ => format!("{}\n\n{}", a.details, b.details),
    };
    Some(a)
}

/// An entry a union merge left with two versions' frontmatter lines one after the other (each
/// side's `at:` and `files:` block, or a backing file named twice), read with the first of each
/// only: its question, details and phrasings (both sides' lines, as the union kept them); its
/// hashes are not to be trusted. `None` when it parses as it is, fails for another reason, or
/// does not parse this way either.
fn union_merged(text: &str, file_id: &str) -> Option<Entry> {
    let err = Entry::parse(text, file_id).err()?;
    let doubled = ["duplicate file key", "two files: blocks", "two id lines"];
    if !doubled.iter().any(|d| err.starts_with(d)) {
        return None;
    }
    let mut keys = std::collections::HashSet::new();
    let mut paths = std::collections::HashSet::new();
    let (mut fences, mut skipping) = (0, false);
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| {
            fences += usize::from(l.trim_end() == "---");
            if fences != 1 || l.trim_end() == "---" {
                return true;
            }
            if l.starts_with([' ', '\t']) || l.starts_with("- ") {
                let path = l.trim_start().rsplit_once(": ").map(|(k, _)| k);
                return !skipping && paths.insert(path);
            }
            let key = l.split_once(':').map(|(k, _)| k.trim());
            skipping = !keys.insert(key);
            !skipping
        })
        .collect();
    Entry::parse(&kept.join("\n"), file_id).ok()
}

/// One side of a conflict as an entry, when it parses and holds no conflict block itself
/// (nested markers are not unwrapped: each level would cost another pass over the text).
fn parse_side(side: &str, file_id: &str) -> Option<Entry> {
    if sides(side).is_some() {
        return None;
    }
    Entry::parse(side, file_id).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_of_a_conflict_and_no_false_alarm() {
        let text = "---\nid: ab12cd34\n<<<<<<< HEAD\nat: 1\n||||||| base\nat: 0\n=======\nat: 2\n>>>>>>> b\nfiles:\n";
        let (ours, theirs) = sides(text).unwrap();
        assert_eq!(ours, "---\nid: ab12cd34\nat: 1\nfiles:\n");
        assert_eq!(theirs, "---\nid: ab12cd34\nat: 2\nfiles:\n");
        // A setext heading underline alone, or an open block, is no conflict.
        assert!(sides("Title\n=======\ntext\n").is_none());
        assert!(sides("<<<<<<< a\nx\n=======\n").is_none());
    }
}
