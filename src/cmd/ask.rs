//! `capn ask "<question>" [--limit N]`: recall charted answers, best first, as JSONL.
//!
//! The store does the asking ([`Store::ask`]: freshness, the answer gate, verification against
//! the entry files); this command checks its arguments and prints: JSONL answers on stdout, or on
//! a miss the removed-charts note, the nudge and the related lines on stderr.

use crate::cli::AskArgs;
use crate::present;
use crate::store::ask::Answers;
pub use crate::store::ask::Removed;
use crate::store::Store;
use anyhow::Result;
use serde::Serialize;
use std::borrow::Cow;
use std::io::Write;
use std::process::ExitCode;

/// One hit as printed: `{"id","question","files","more_files"?,"details"?,"score"}`, every
/// string as
/// [`crate::present`] bounds entry text: the question cut at
/// [`crate::present::MAX_ASK_QUESTION_CHARS`], each path at
/// [`crate::present::MAX_ASK_PATH_CHARS`], the details at [`crate::present::MAX_DETAILS_CHARS`]
/// with a note naming the entry file that holds them whole ([`crate::present::details`]); hidden
/// characters are `\uXXXX` escapes ([`crate::present::json_line`]).
#[derive(Debug, Serialize)]
pub struct AskHit<'a> {
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

/// One "possibly related" suggestion, printed on stderr after a miss as
/// `related {"id","question","files","more_files"?,"score"}` (a question capped at
/// [`crate::present::MAX_QUESTION_CHARS`], as in offers): score = 100 · (coverage + cosine), the measure
/// the suggestions are ranked and selected by (below the answer gate, so under 80). Strings are
/// bounded and escaped as in [`AskHit`].
#[derive(Debug, Serialize)]
pub struct RelatedHit<'a> {
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
    /// Similarity 0..=100.
    pub score: u8,
}

/// What a search printed: JSONL answers for stdout, and on a miss the related lines for stderr.
#[derive(Debug, Default)]
struct Rendered {
    hits: String,
    related: String,
}

/// The highest score a "related" line shows (100 is kept for answers to an exact re-ask).
pub const MAX_RELATED_SCORE: u8 = 99;

/// The header line printed before "possibly related" suggestions.
pub const RELATED_HEADER: &str =
    "capn: possibly related charts (not answers: similar questions whose files may help; check them before exploring):";

/// The message `ask` prints (after `capn: `) instead of the ordinary nudge outside any project
/// (no `.capn/` in the working directory or above, and not inside a git repository); `list`,
/// `prune`, `bust` and `unchart` say the same.
pub fn outside_project(command: &str) -> String {
    format!(
        "not inside a project: there is no .capn/ here or in any parent folder, and this is not a git repository. Charts are kept per project: run `capn {command}` from inside one, or `capn init` at a project's root to start charting there."
    )
}

/// True when `store` is outside any project: no `.capn/` at or above the working directory,
/// and its root is not a git repository.
pub fn is_outside_project(store: &Store) -> bool {
    !store.exists() && !store.root.join(".git").exists()
}

/// Runs `capn ask`: exit 0 with hits on stdout, exit 1 with a nudge on stderr on a miss.
pub fn run(args: &AskArgs) -> Result<ExitCode> {
    if !args.extra.is_empty() {
        let whole = std::iter::once(args.question.as_str())
            .chain(args.extra.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(crate::error::Refused(format!(
            "unexpected argument {:?}: quote the question: capn ask {:?}",
            args.extra[0], whole
        ))
        .into());
    }
    let question = args.question.trim();
    if question.is_empty() {
        return Err(
            crate::error::Refused("missing question: capn ask \"<question>\"".into()).into(),
        );
    }
    let store = Store::from_env()?;
    // A .capn that is a symlink, a file or a FIFO is an error to report, not an empty store.
    store.check_dirs()?;
    if is_outside_project(&store) {
        diag!("capn: {}", outside_project("ask"));
        return Ok(ExitCode::from(1));
    }
    let limit = args.limit as usize;
    let mut out = Rendered::default();
    let mut removed = Vec::new();
    if store.exists() {
        let answers = store.ask(question, limit)?;
        out = render(&answers)?;
        removed = answers.removed;
    }
    if out.hits.is_empty() {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(removed_note(&removed).as_bytes());
        let _ = err.write_all(nudge(question).as_bytes());
        if !out.related.is_empty() {
            let _ = writeln!(err, "{RELATED_HEADER}");
            let _ = err.write_all(out.related.as_bytes());
        }
        return Ok(ExitCode::from(1));
    }
    let mut so = std::io::stdout().lock();
    so.write_all(out.hits.as_bytes())?;
    so.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Most removed charts named in the note; the rest are counted.
pub const MAX_NAMED_REMOVED: usize = 5;

/// The line printed before the nudge when `ask` just deleted stale charts, empty when it did not:
/// `capn: removed 1 chart whose files changed: "<question>" ("src/x.ts")`; several are separated
/// by `; `, at most [`MAX_NAMED_REMOVED`] named, each as [`named_chart`] shows it.
pub fn removed_note(removed: &[Removed]) -> String {
    if removed.is_empty() {
        return String::new();
    }
    let n = removed.len();
    let named: Vec<String> = removed
        .iter()
        .take(MAX_NAMED_REMOVED)
        .map(|r| named_chart(&r.question, &r.changed))
        .collect();
    let more = if n > MAX_NAMED_REMOVED {
        format!("; and {} more", n - MAX_NAMED_REMOVED)
    } else {
        String::new()
    };
    format!(
        "capn: removed {n} chart{} whose files changed: {}{more}\n",
        if n == 1 { "" } else { "s" },
        named.join("; ")
    )
}

/// A chart as messages name it: `"<question>" ("<file>", "<file>")`, the question and each path
/// quoted, escaped and capped by [`present::quote`] (at most [`present::MAX_FILES`] paths named,
/// the rest counted).
pub fn named_chart<'a>(question: &str, files: impl IntoIterator<Item = &'a String>) -> String {
    let q = present::quote(question, present::MAX_QUESTION_CHARS);
    let files: Vec<&String> = files.into_iter().collect();
    let mut shown: Vec<String> = files
        .iter()
        .take(present::MAX_FILES)
        .map(|f| present::quote(f, present::MAX_PATH_CHARS))
        .collect();
    if files.len() > present::MAX_FILES {
        shown.push(format!("+{} more", files.len() - present::MAX_FILES));
    }
    format!("{q} ({})", shown.join(", "))
}

/// The answers as JSONL for stdout and, on a miss, the related lines for stderr.
fn render(answers: &Answers) -> Result<Rendered> {
    let mut out = Rendered::default();
    for (e, score) in &answers.hits {
        let entry_file = format!("{}/entries/{}.md", crate::store::STORE_DIR, e.id);
        let (files, more_files) = ask_files(e, present::MAX_ASK_FILES, present::MAX_ASK_PATH_CHARS);
        out.hits.push_str(&present::json_line(&AskHit {
            id: &e.id,
            question: present::capped_escaped(&e.question, present::MAX_ASK_QUESTION_CHARS),
            files,
            more_files,
            details: Cow::Owned(present::details(&e.details, &entry_file)),
            score: *score,
        })?);
        out.hits.push('\n');
    }
    for (e, score) in &answers.related {
        out.related.push_str("related ");
        let (files, more_files) = ask_files(e, present::MAX_FILES, present::MAX_PATH_CHARS);
        out.related.push_str(&present::json_line(&RelatedHit {
            id: &e.id,
            question: present::capped_escaped(&e.question, present::MAX_QUESTION_CHARS),
            files,
            more_files,
            // 100 means "this exact question again" on an answer; a suggestion never claims it.
            score: (*score).min(MAX_RELATED_SCORE),
        })?);
        out.related.push('\n');
    }
    Ok(out)
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
pub fn nudge(question: &str) -> String {
    // chart refuses a question with a line break: suggest it on one line.
    let one_line: String = question
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let q = shell_double_quote(if one_line.is_empty() {
        "<the question>"
    } else {
        &one_line
    });
    format!(
        "capn: no charted answer yet. Explore as usual; once you have found the files that answer it, chart them:\n  capn chart {q} --files <files> [--details \"<extra context>\"]\n"
    )
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
