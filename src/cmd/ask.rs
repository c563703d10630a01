//! `capn ask "<question>" [--limit N]`: recall charted answers, best first, as JSONL.
//!
//! Stale entries never answer: every backing file is checked first (stat cache, re-hash only on
//! changed metadata). When the writers' lock is free, stale entries are deleted on the way;
//! when another process holds it, `ask` does not wait and simply leaves them out.

use crate::cli::AskArgs;
use crate::recall::semantic;
use crate::store::fresh::StatCache;
use crate::store::index::{self, read_entry, Snapshot};
use crate::store::{stale_positions, Store};
use anyhow::Result;
use serde::Serialize;
use std::io::Write;
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

/// The header line printed before "possibly related" suggestions.
pub const RELATED_HEADER: &str =
    "capn: possibly related charts (not answers: similar questions whose files may help; check them before exploring):";

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
    let limit = args.limit as usize;
    let mut out = Rendered::default();
    if store.exists() && !question.is_empty() {
        if let Some(mut w) = store.try_open_writer() {
            crate::store::report_malformed(&w.store, &w.snap.malformed);
            let stale = stale_positions(&w.store.root, &w.snap, &mut w.cache);
            // Usually every stale entry is gone after this. If some were kept (rewritten since
            // the index was built, or removed by someone else), positions moved: check again.
            // If deleting failed (read-only store), they are simply left out of the answer.
            let stale = match w.delete_stale(&stale) {
                Ok(deleted) if deleted == stale.len() => Vec::new(),
                Ok(_) => stale_positions(&w.store.root, &w.snap, &mut w.cache),
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

/// Ranked answers and, on a miss, related suggestions. BM25 alone when the
/// snapshot has no vectors (embedding off), BM25 and cosine fused otherwise.
fn search(
    snap: &Snapshot,
    question: &str,
    limit: usize,
    allowed: &dyn Fn(usize) -> bool,
) -> (Ranked, Ranked) {
    match (snap.model, &snap.vectors) {
        (Some(model), Some(vectors)) => {
            let q = model.embed(question);
            let r = semantic::search(
                &snap.bm25,
                vectors,
                question,
                &q,
                limit,
                &model.thresholds(),
                allowed,
            );
            (
                r.hits.iter().map(|h| (h.doc, h.score)).collect(),
                r.related
                    .iter()
                    .map(|h| (h.doc, (100.0 * h.closeness).round().clamp(0.0, 100.0) as u8))
                    .collect(),
            )
        }
        _ => (
            snap.bm25
                .search(question, limit, allowed)
                .into_iter()
                .map(|h| (h.doc, h.score))
                .collect(),
            Vec::new(),
        ),
    }
}

/// The rendered output, or `None` when a printed entry's file disagrees with the index.
fn render_verified(
    store: &Store,
    snap: &Snapshot,
    question: &str,
    limit: usize,
    stale: &[usize],
) -> Result<Option<Rendered>> {
    let allowed = |i: usize| stale.binary_search(&i).is_err();
    let (hits, related) = search(snap, question, limit, &allowed);
    let read = |doc: usize| {
        let id = &snap.ids[doc];
        read_entry(&store.entry_path(id), &format!("{id}.md"))
            .ok()
            .filter(|e| snap.agrees_with(doc, e))
    };
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
            score,
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
