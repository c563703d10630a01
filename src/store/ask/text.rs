//! What `capn ask` prints ([`Store::ask_text`]): the answers as JSONL for stdout, or on a miss
//! the text for stderr (the hidden-charts note, strong candidates, the nudge, weak candidates);
//! and what a miss showed, recorded for learning from use. The answers themselves come from
//! [`Store::ask`]; the text of each line is bounded and escaped by [`crate::present`].

use super::{Answers, Hidden, Related};
use crate::present;
use crate::store::Store;
use anyhow::Result;
use serde::Serialize;
use std::borrow::Cow;

/// One hit as printed: `{"id","question","files","more_files"?,"details"?,"score"}`, every
/// string as [`crate::present`] bounds entry text: the question cut at
/// [`crate::present::MAX_ASK_QUESTION_CHARS`], each path at
/// [`crate::present::MAX_ASK_PATH_CHARS`], the details at [`crate::present::MAX_DETAILS_CHARS`]
/// with a note naming the entry file that holds them whole ([`crate::present::details`]); hidden
/// characters are `\uXXXX` escapes ([`crate::present::json_line`]).
#[derive(Debug, Serialize)]
pub(crate) struct AskHit<'a> {
    /// Entry id.
    pub id: &'a str,
    /// The charted question.
    pub question: Cow<'a, str>,
    /// Backing files, sorted: the first [`crate::present::MAX_ASK_FILES`].
    pub files: Vec<Cow<'a, str>>,
    /// How many more backing files the entry has than `files` lists; omitted when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_files: usize,
    /// Details; omitted when empty.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub details: Cow<'a, str>,
    /// Relevance 0..=100, higher is better.
    pub score: u8,
}

/// One candidate, printed on stderr after a miss as `candidate {…}` (a strong one: probably
/// this question in other words) or `related {…}` (a weak one: possibly related):
/// `{"id","question","files","more_files"?,"not_in_chart","learned"?}`, the question capped at
/// [`crate::present::MAX_QUESTION_CHARS`] and at most [`crate::present::MAX_FILES`] paths of
/// [`crate::present::MAX_PATH_CHARS`], as in offers. No score: what tells a rewording from a near
/// miss is `not_in_chart`, the question's words the chart does not hold in any form. Strings are
/// bounded and escaped as in [`AskHit`].
#[derive(Debug, Serialize)]
pub(crate) struct CandidateLine<'a> {
    /// Entry id.
    pub id: &'a str,
    /// The charted question.
    pub question: Cow<'a, str>,
    /// Backing files, sorted: the first [`crate::present::MAX_FILES`], each cut at
    /// [`crate::present::MAX_PATH_CHARS`].
    pub files: Vec<Cow<'a, str>>,
    /// How many more backing files the entry has than `files` lists; omitted when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_files: usize,
    /// The asked question's words the chart does not hold, most telling first.
    pub not_in_chart: &'a [String],
    /// `true` when words the chart learned from use moved it up (docs/recall.md, "Learning from
    /// use"): a ranking, never an answer; omitted otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub learned: bool,
}

/// The header line printed before strong candidates.
pub(crate) const CANDIDATE_HEADER: &str =
    "capn: probably charted already, in other words (not an answer yet: the question has words the chart does not hold, listed as not_in_chart):";

/// The header line printed before weak candidates ("possibly related").
pub(crate) const RELATED_HEADER: &str =
    "capn: possibly related charts (not answers: similar questions whose files may help; check them before exploring):";

/// What `capn ask` prints for one question.
#[derive(Debug, Default)]
pub(crate) struct AskText {
    /// The answers as JSONL, one [`AskHit`] a line, each ending in `\n`; empty on a miss.
    pub stdout: String,
    /// The text for stderr: on a miss, [`miss_text`]; beside answers, the [`hidden_note`]
    /// (empty when the ask hid no chart).
    pub stderr: String,
}

impl AskText {
    /// True when something answered (`stdout` holds JSONL): `capn ask` exits 0, else 1.
    pub(crate) fn answered(&self) -> bool {
        !self.stdout.is_empty()
    }
}

impl Store {
    /// Asks this store ([`Store::ask`]; nothing, without a `.capn/`) and says what `capn ask`
    /// prints: at most `limit` answers to `question` (trimmed, not empty). On a miss that showed
    /// charts, they are recorded for learning from use first ([`remember_shown`]).
    ///
    /// Errors: [`Store::ask`]'s; a line that cannot be serialised.
    pub(crate) fn ask_text(&self, question: &str, limit: usize) -> Result<AskText> {
        let answers = if self.exists() {
            self.ask(question, limit)?
        } else {
            Answers::default()
        };
        let mut out = AskText {
            stdout: hits_jsonl(&answers)?,
            stderr: String::new(),
        };
        if out.answered() {
            // Fresh answers, and a stale chart among them: the note goes to stderr all the same.
            out.stderr = hidden_note(&answers.hidden);
        } else {
            remember_shown(self, question, &answers.related);
            out.stderr = miss_text(question, &answers)?;
        }
        Ok(out)
    }
}

/// Records the charts a miss showed ([`crate::session::shown`]), so the hooks can learn these
/// words for the one the agent then reads (docs/recall.md, "Learning from use"); not when
/// `"learn": false` or nothing was shown. Best effort: a state dir that cannot be written loses
/// the chance to learn and changes nothing `ask` prints.
fn remember_shown(store: &Store, question: &str, shown: &[Related]) {
    if shown.is_empty() || !store.exists() || !store.config().learn {
        return;
    }
    let charts = shown.iter().map(|r| {
        let files = r.entry.files.keys().map(String::as_str).collect();
        (r.entry.id.as_str(), files, r.strong)
    });
    let Some(ask) =
        crate::session::shown::ShownAsk::new(std::time::SystemTime::now(), question, charts)
    else {
        return;
    };
    if let Ok(dir) = crate::session::state_dir() {
        // Held while the record is read and written: concurrent asks keep each other's.
        if let Ok(Some(_held)) = crate::store::lock::StoreLock::hold_shown(&dir, &store.root) {
            let _ = crate::session::shown::record(&dir, &store.root, ask);
        }
    }
}

/// Most hidden charts named in the note; the rest are counted.
pub(crate) const MAX_NAMED_HIDDEN: usize = 5;

/// The line printed when `ask` passed over stale charts (before the nudge on a miss, on stderr
/// beside the answers on a hit), empty when it did not: `capn: hid 1 chart whose files changed
/// since it was charted: <id> "<question>" ("src/x.ts"); it answers again once its files are
/// back as charted (check out or restore the version it was charted on), or chart it afresh on
/// the files that answer it now: capn chart "<its question>" --files <files>`. Several are
/// separated by `; `, at most [`MAX_NAMED_HIDDEN`] named, each as [`present::named_chart`] shows
/// it after its id. Nothing was deleted, and nothing here suggests deleting: a stale chart may
/// be current on another branch.
pub(crate) fn hidden_note(hidden: &[Hidden]) -> String {
    if hidden.is_empty() {
        return String::new();
    }
    let n = hidden.len();
    let named: Vec<String> = hidden
        .iter()
        .take(MAX_NAMED_HIDDEN)
        .map(|r| format!("{} {}", r.id, present::named_chart(&r.question, &r.changed)))
        .collect();
    let more = if n > MAX_NAMED_HIDDEN {
        format!("; and {} more", n - MAX_NAMED_HIDDEN)
    } else {
        String::new()
    };
    let (noun, was, back) = if n == 1 {
        (
            "chart",
            "it was",
            "it answers again once its files are back as charted",
        )
    } else {
        (
            "charts",
            "they were",
            "each answers again once its files are back as charted",
        )
    };
    // The question is entry text: quoted above as data, never repeated inside a command.
    format!(
        "capn: hid {n} {noun} whose files changed since {was} charted: {}{more}; {back} (check out or restore the version it was charted on), or chart it afresh on the files that answer it now: capn chart \"<its question>\" --files <files>\n",
        named.join("; "),
    )
}

/// The answers as JSONL, one [`AskHit`] a line (empty when nothing answered).
fn hits_jsonl(answers: &Answers) -> Result<String> {
    let mut out = String::new();
    for (e, score) in &answers.hits {
        let entry_file = format!("{}/entries/{}.md", crate::store::STORE_DIR, e.id);
        let (files, more_files) = ask_files(e, present::MAX_ASK_FILES, present::MAX_ASK_PATH_CHARS);
        out.push_str(&present::json_line(&AskHit {
            id: &e.id,
            question: present::capped_escaped(&e.question, present::MAX_ASK_QUESTION_CHARS),
            files,
            more_files,
            details: Cow::Owned(present::details(&e.details, &entry_file)),
            score: *score,
        })?);
        out.push('\n');
    }
    Ok(out)
}

/// What a miss prints on stderr, in order: the hidden-charts note ([`hidden_note`]); when there
/// are strong candidates, [`CANDIDATE_HEADER`], their `candidate` lines and how to use and
/// confirm them, before the nudge (explore as usual, then chart); weak candidates after the
/// nudge, under [`RELATED_HEADER`], with the same one line on confirming.
pub(crate) fn miss_text(question: &str, answers: &Answers) -> Result<String> {
    let mut out = hidden_note(&answers.hidden);
    let (strong, weak): (Vec<&Related>, Vec<&Related>) =
        answers.related.iter().partition(|r| r.strong);
    if let Some(first) = strong.first() {
        out.push_str(CANDIDATE_HEADER);
        out.push('\n');
        for r in &strong {
            out.push_str(&candidate_line("candidate", r)?);
        }
        let (which, id) = if strong.len() == 1 {
            ("it asks", first.entry.id.as_str())
        } else {
            ("one of them asks", "<its id>")
        };
        out.push_str(&format!(
            "capn: if {which} the same thing, read its files instead of searching, and confirm it so that these words answer next time: capn chart {} --like {id}\n",
            chart_arg(question)
        ));
        out.push_str("capn: if it does not: ");
        out.push_str(nudge(question).trim_start_matches("capn: "));
    } else {
        out.push_str(&nudge(question));
    }
    if let Some(first) = weak.first() {
        out.push_str(RELATED_HEADER);
        out.push('\n');
        for r in &weak {
            out.push_str(&candidate_line("related", r)?);
        }
        let id = if weak.len() == 1 {
            first.entry.id.as_str()
        } else {
            "<its id>"
        };
        out.push_str(&format!(
            "capn: if one of them answers it, read its files and confirm it: capn chart {} --like {id}\n",
            chart_arg(question)
        ));
    }
    Ok(out)
}

/// One candidate as a line: `<prefix> {CandidateLine JSON}`.
fn candidate_line(prefix: &str, r: &Related) -> Result<String> {
    let (files, more_files) = ask_files(&r.entry, present::MAX_FILES, present::MAX_PATH_CHARS);
    let json = present::json_line(&CandidateLine {
        id: &r.entry.id,
        question: present::capped_escaped(&r.entry.question, present::MAX_QUESTION_CHARS),
        files,
        more_files,
        not_in_chart: &r.missing,
        learned: r.learned,
    })?;
    Ok(format!("{prefix} {json}\n"))
}

/// An entry's first `max_files` backing files as `ask` prints them (sorted, each cut so its
/// escaped form is at most `max_chars`), and how many more there are.
fn ask_files(
    e: &crate::store::entry::Entry,
    max_files: usize,
    max_chars: usize,
) -> (Vec<Cow<'_, str>>, usize) {
    let files = e
        .files
        .keys()
        .take(max_files)
        .map(|f| present::capped_escaped(f, max_chars))
        .collect();
    (files, e.files.len().saturating_sub(max_files))
}

/// Serde's `skip_serializing_if` for a count.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The stderr nudge on a miss, with the exact `capn chart` line to run after exploring.
pub(crate) fn nudge(question: &str) -> String {
    format!(
        "capn: no charted answer yet. Explore as usual; once you have found the files that answer it, chart them:\n  capn chart {} --files <files> [--details \"<extra context>\"]\n",
        chart_arg(question)
    )
}

/// The question as a `capn chart` argument: on one line (chart refuses a line break), double
/// quoted for a POSIX shell.
fn chart_arg(question: &str) -> String {
    let one_line: String = question
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    shell_double_quote(if one_line.is_empty() {
        "<the question>"
    } else {
        &one_line
    })
}

/// Wraps `s` in double quotes for a POSIX shell, escaping `"`, `\`, `$` and `` ` ``.
fn shell_double_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        if present::is_hidden(c) {
            // Never echo raw control, format or separator characters to a terminal or a model.
            out.extend(c.escape_default());
            continue;
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nudge_contains_the_exact_chart_line() {
        let n = nudge("where is \"x\" handled?");
        assert!(n.contains(
            "capn chart \"where is \\\"x\\\" handled?\" --files <files> [--details \"<extra context>\"]"
        ));
    }
}
