//! Entries git left with merge conflict markers (`<<<<<<<`, `=======`, `>>>>>>>` lines, in the
//! frontmatter or the body): such an entry is never served, not even as details; it is reported
//! with what resolves it, and a re-chart of its question replaces it (resolving it) instead of
//! taking another id.

use super::entry::Entry;

/// The two sides of a text with git conflict markers ("ours" and "theirs", the common text
/// in both; a diff3 base section left out), or `None` when it has no complete conflict block
/// (a `<<<<<<< ` line, then `=======`, then `>>>>>>> `, each at the start of a line).
pub fn sides(text: &str) -> Option<(String, String)> {
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
/// its question (named when a side parses), or keeping one side with git.
pub fn reason(text: &str, file_id: &str) -> String {
    let parsed = sides(text).and_then(|(ours, theirs)| {
        [ours, theirs]
            .iter()
            .find_map(|side| parse_side(side, file_id))
    });
    let rechart = match parsed {
        Some(e) => {
            let files: Vec<&str> = e.files.keys().map(String::as_str).collect();
            format!(
                "capn chart {} --files {} (re-charting replaces it)",
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

/// True when the entry file text `text` holds a git merge conflict whose sides ask `question`.
pub fn asks(text: &str, file_id: &str, question: &str) -> bool {
    sides(text).is_some_and(|(ours, theirs)| {
        [ours, theirs].iter().any(|side| {
            parse_side(side, file_id).is_some_and(|e| {
                e.question == question || e.phrasings.iter().any(|p| p == question)
            })
        })
    })
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
