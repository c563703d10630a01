//! `capn ask "<question>" [--limit N]`: recall charted answers, best first, as JSONL.
//!
//! Stale entries never answer: every backing file is checked first (stat cache, re-hash only on
//! changed metadata). When the writers' lock is free, stale entries are deleted on the way;
//! when another process holds it, `ask` does not wait and simply leaves them out.

use crate::cli::AskArgs;
use crate::recall::gate::{self, Ask, DocText};
use crate::recall::semantic;
use crate::store::entry::Entry;
use crate::store::fresh::StatCache;
use crate::store::index::{self, read_entry, Snapshot};
use crate::store::{stale_positions, Store};
use anyhow::{Context, Result};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// One hit as printed: `{"id","question","files","details"?,"score"}`.
#[derive(Debug, Serialize)]
pub struct AskHit<'a> {
    /// Entry id.
    pub id: &'a str,
    /// The charted question.
    pub question: &'a str,
    /// Backing files, sorted.
    pub files: Vec<&'a str>,
    /// Details; omitted when empty.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub details: &'a str,
    /// Relevance 0..=100, higher is better.
    pub score: u8,
}

/// One "possibly related" suggestion, printed on stderr after a miss as
/// `related {"id","question","files","score"}`: score = 100 · (coverage + cosine), the measure
/// the suggestions are ranked and selected by (below the answer gate, so under 80).
#[derive(Debug, Serialize)]
pub struct RelatedHit<'a> {
    /// Entry id.
    pub id: &'a str,
    /// The charted question.
    pub question: &'a str,
    /// Backing files, sorted.
    pub files: Vec<&'a str>,
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

/// The message `ask` prints instead of the ordinary nudge outside any project (no `.capn/` in
/// the working directory or above, and not inside a git repository).
pub const OUTSIDE_PROJECT: &str = "capn: not inside a project: there is no .capn/ here or in any parent folder, and this is not a git repository. Charts are kept per project: run `capn ask` from inside one, or `capn init` at a project's root to start charting there.\n";

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
    let store = Store::from_env()?;
    // A .capn that is a symlink, a file or a FIFO is an error to report, not an empty store.
    store.check_dirs()?;
    if !store.exists() && !store.root.join(".git").exists() {
        diag!("{}", OUTSIDE_PROJECT.trim_end());
        return Ok(ExitCode::from(1));
    }
    let limit = args.limit as usize;
    let mut out = Rendered::default();
    let mut removed = Vec::new();
    if store.exists() && !question.is_empty() {
        if let Some(mut w) = store.try_open_writer() {
            crate::store::report_malformed(&w.store, &w.snap.malformed);
            let stale = stale_positions(&w.store.root, &w.snap, &mut w.cache);
            // Usually every stale entry is gone after this. If some were kept (rewritten since
            // the index was built, or removed by someone else), positions moved: check again.
            // If deleting failed (read-only store), they are simply left out of the answer.
            let stale = match w.delete_stale_listed(&stale) {
                Ok(gone) => {
                    let all = gone.len() == stale.len();
                    removed = removed_charts(&w.store.root, gone, &mut w.cache);
                    if all {
                        Vec::new()
                    } else {
                        stale_positions(&w.store.root, &w.snap, &mut w.cache)
                    }
                }
                Err(e) => {
                    crate::store::warn(&e);
                    stale
                }
            };
            out = answer(&store, &mut w.snap, question, limit, &stale)?;
            w.finish_or_warn();
        } else {
            // A writer holds the lock: read without waiting, and leave stale entries out.
            let mut snap = index::load(&store)?;
            crate::store::report_malformed(&store, &snap.malformed);
            let mut cache = StatCache::load(&store.stat_cache_path(), snap.derived_limit());
            let stale = stale_positions(&store.root, &snap, &mut cache);
            out = answer(&store, &mut snap, question, limit, &stale)?;
        }
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

/// A chart `ask` just deleted as stale: its question and the backing files that changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Removed {
    /// The charted question.
    pub question: String,
    /// Backing files (keys relative to the project root) that changed, vanished or were replaced.
    pub changed: Vec<String>,
}

/// The removed entries with the backing files that no longer match their recorded hashes (the
/// stat cache has just checked them, so this re-hashes nothing).
fn removed_charts(root: &Path, gone: Vec<Entry>, cache: &mut StatCache) -> Vec<Removed> {
    gone.into_iter()
        .map(|e| Removed {
            changed: e
                .files
                .iter()
                .filter(|(p, h)| cache.is_changed(root, p, h))
                .map(|(p, _)| p.clone())
                .collect(),
            question: e.question,
        })
        .collect()
}

/// Most removed charts named in the note; the rest are counted.
const MAX_NAMED_REMOVED: usize = 5;

/// The line printed before the nudge when `ask` just deleted stale charts, empty when it did not:
/// `capn: removed 1 chart whose files changed: "<question>" (src/x.ts)`; several are separated
/// by `; `, at most [`MAX_NAMED_REMOVED`] named. Questions are JSON strings (quoted, control
/// characters escaped); paths have control characters escaped.
pub fn removed_note(removed: &[Removed]) -> String {
    if removed.is_empty() {
        return String::new();
    }
    let n = removed.len();
    let named: Vec<String> = removed
        .iter()
        .take(MAX_NAMED_REMOVED)
        .map(|r| {
            let q = serde_json::to_string(&r.question).unwrap_or_default();
            let files: Vec<String> = r.changed.iter().map(|f| escape_controls(f)).collect();
            format!("{q} ({})", files.join(", "))
        })
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

/// `s` with control characters escaped (`\u{1b}`), for terminal output.
fn escape_controls(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let v: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            v
        })
        .collect()
}

/// Searches and renders, reading each printed entry's file for its text. If an entry file no
/// longer says what the index says (edited in place), the snapshot is rebuilt from the entry
/// files, staleness is checked again, and the search runs once more.
fn answer(
    store: &Store,
    snap: &mut Snapshot,
    question: &str,
    limit: usize,
    stale: &[usize],
) -> Result<Rendered> {
    if let Some(r) = render_verified(store, snap, question, limit, stale)? {
        return Ok(r);
    }
    snap.reload_from_files(store)?;
    let mut cache = StatCache::load(&store.stat_cache_path(), snap.derived_limit());
    let stale = stale_positions(&store.root, snap, &mut cache);
    Ok(render_verified(store, snap, question, limit, &stale)?.unwrap_or_default())
}

/// (doc number, display score) pairs, best first.
type Ranked = Vec<(usize, u8)>;

/// Ranked answers and, on a miss, related suggestions, both through the answer gate
/// (`recall::gate`). BM25 alone when the snapshot has no vectors (embedding off), BM25 and cosine
/// fused otherwise; the gate matches words by meaning with the model's token vectors in both.
fn search(snap: &Snapshot, ask: &Ask<'_>) -> (Ranked, Ranked) {
    let model = crate::embed::model();
    match (snap.model, &snap.vectors) {
        (Some(m), Some(vectors)) => {
            let q = m.embed(ask.query);
            let r = semantic::search(&snap.bm25, vectors, &q, ask, Some(m));
            (
                r.hits.iter().map(|h| (h.doc, h.score)).collect(),
                r.related
                    .iter()
                    .map(|h| (h.doc, (100.0 * h.closeness).round().clamp(0.0, 100.0) as u8))
                    .collect(),
            )
        }
        _ => gate::lexical_search(&snap.bm25, ask, model),
    }
}

/// The rendered output, or `None` when an entry file read on the way disagrees with the index.
fn render_verified(
    store: &Store,
    snap: &Snapshot,
    question: &str,
    limit: usize,
    stale: &[usize],
) -> Result<Option<Rendered>> {
    let allowed = |i: usize| stale.binary_search(&i).is_err();
    let read_cache: RefCell<HashMap<usize, Option<Entry>>> = RefCell::default();
    let disagreed = Cell::new(false);
    let read = |doc: usize| -> Option<Entry> {
        read_cache
            .borrow_mut()
            .entry(doc)
            .or_insert_with(|| {
                let id = snap.ids.get(doc)?;
                let e = read_entry(&store.entry_path(id), &format!("{id}.md")).ok();
                let agrees = e.as_ref().is_some_and(|e| snap.agrees_with(doc, e));
                disagreed.set(disagreed.get() || !agrees);
                e.filter(|_| agrees)
            })
            .clone()
    };
    let text = |doc: usize| {
        read(doc).map(|e| DocText {
            files: e.files.keys().cloned().collect(),
            question: e.question,
            details: e.details,
        })
    };
    let thresholds = crate::embed::model()
        .context("this build carries no embedding model")?
        .thresholds();
    let ask = Ask {
        query: question,
        limit,
        thresholds: &thresholds,
        allowed: &allowed,
        text: &text,
    };
    let (hits, related) = search(snap, &ask);
    if disagreed.get() {
        return Ok(None);
    }
    let mut out = Rendered::default();
    for (doc, score) in hits {
        let Some(e) = read(doc) else { return Ok(None) };
        out.hits.push_str(&serde_json::to_string(&AskHit {
            id: &e.id,
            question: &e.question,
            files: e.files.keys().map(String::as_str).collect(),
            details: &e.details,
            score,
        })?);
        out.hits.push('\n');
    }
    for (doc, score) in related {
        let Some(e) = read(doc) else { return Ok(None) };
        out.related.push_str("related ");
        out.related.push_str(&serde_json::to_string(&RelatedHit {
            id: &e.id,
            question: &e.question,
            files: e.files.keys().map(String::as_str).collect(),
            // 100 means "this exact question again" on an answer; a suggestion never claims it.
            score: score.min(MAX_RELATED_SCORE),
        })?);
        out.related.push('\n');
    }
    Ok(Some(out))
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
        if c.is_control() {
            // Never echo raw control characters (escape sequences) to a terminal.
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
