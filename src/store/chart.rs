//! `capn chart`'s operation: record which files answer a question ([`chart`]).
//!
//! Every refusal (missing question, newline in it, no files, a missing file, a directory, a path
//! outside the project root, a secret in any of it) is made with a one-line reason before
//! anything is written. The entry is written atomically under the writers' lock, then the
//! derived files are updated. With `--like <id>` the question becomes another phrasing of that
//! chart instead ([`like`]); otherwise the files are hashed and the question placed
//! ([`place::placed`]): the chart of this very question, a chart with these files and a similar
//! question, or a new entry.

mod place;

use crate::error::Refused;
use crate::store::entry::Entry;
use crate::store::fresh::{hash_file, now_ns};
use crate::store::phrasing::{checked, phrasing_shaped_details};
use crate::store::{paths, Store};
use anyhow::{Context, Result};
use place::{Placement, Versions};
use std::collections::BTreeMap;
use std::path::Path;

/// What `capn chart` was asked to record, as given on its command line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChartRequest<'a> {
    /// The question, untrimmed (`None`: not given).
    pub question: Option<&'a str>,
    /// The `--files` parts (split at commas; surrounding space is dropped unless a file by the
    /// exact name exists).
    pub files: &'a [String],
    /// The `--file` arguments, exact.
    pub file: &'a [String],
    /// `--details`.
    pub details: Option<&'a str>,
    /// `--like <id>`: the chart this question is another phrasing of.
    pub like: Option<&'a str>,
}

/// Records `req` in the store of the current folder: with `like`, the question as another
/// phrasing of that chart ([`like`]); otherwise the files hashed and charted ([`chart_files`]).
/// Returns what to print (one line).
///
/// Errors: [`Refused`] for a request that cannot be charted (nothing was written: see the
/// module docs), a secret in the question, details or file names; the working directory cannot
/// be read; the store cannot be written.
pub(crate) fn chart(req: &ChartRequest<'_>) -> Result<String> {
    let (question, inputs) = checked_request(req)?;
    let details = req.details.unwrap_or("");
    let fields = [
        ("the question", question),
        ("--details", details),
        ("--files", &inputs.join(",")),
    ];
    crate::secret::refuse("refusing to chart", &fields)?;
    let cwd = std::env::current_dir().context("could not read the working directory")?;
    let cwd = crate::fsutil::resolved(&cwd);
    let store = Store::discover(&cwd);
    match req.like {
        Some(id) => like(&store, question, id, req.details),
        None => chart_files(&store, &cwd, question, &inputs, req),
    }
}

/// The question and the files of `req`, checked: the question trimmed, the file arguments
/// without empty ones (and `--files` parts without surrounding space, unless a file by the
/// exact name exists).
///
/// Errors: [`Refused`] for no question, a question on more than one line or without a letter
/// or digit, details shaped like phrasings, files with `--like`, or no files without it.
fn checked_request<'a>(req: &ChartRequest<'a>) -> Result<(&'a str, Vec<&'a str>)> {
    let question = req.question.unwrap_or("").trim();
    if question.is_empty() {
        return Err(
            Refused("missing question: capn chart \"<question>\" --files a,b".into()).into(),
        );
    }
    if question.contains(['\n', '\r']) {
        return Err(Refused("the question must be one line (it contains a newline)".into()).into());
    }
    // Recall matches a question by its letters and digits (an exact re-ask sets the rest
    // aside): one with none could be charted but never asked again.
    if crate::recall::gate::normalise_question(question).is_none() {
        return Err(Refused(format!(
            "the question {} has no letter or digit, so no ask could ever match it: ask it in words",
            crate::present::quote(question, crate::present::MAX_QUESTION_CHARS)
        ))
        .into());
    }
    // `--files a, b` is common, so surrounding space is dropped, unless a file by the exact
    // name exists (format.md allows keys with leading or trailing space). `--file` is exact.
    let inputs: Vec<&str> = req
        .files
        .iter()
        .filter(|f| !f.trim().is_empty())
        .map(|f| {
            if f.trim() != f.as_str() && std::path::Path::new(f.as_str()).exists() {
                f.as_str()
            } else {
                f.trim()
            }
        })
        .chain(
            req.file
                .iter()
                .map(String::as_str)
                .filter(|f| !f.is_empty()),
        )
        .collect();
    if req
        .details
        .is_some_and(crate::store::entry::details_hold_phrasings)
    {
        return Err(phrasing_shaped_details("the details"));
    }
    if req.like.is_some() {
        if !inputs.is_empty() {
            return Err(Refused(
                "--like takes that chart's files: leave out --files and --file (to chart other files, leave out --like)".into(),
            )
            .into());
        }
        return Ok((question, inputs));
    }
    if inputs.is_empty() {
        return Err(
            Refused("no files: pass the files that answer it with --files a,b".into()).into(),
        );
    }
    Ok((question, inputs))
}
/// `capn chart "<question>" --like <id>`: the agent confirms that chart `id` answers this
/// question too; it becomes another phrasing of that chart (same files, hashes and details;
/// `details` replaces the details when given). Returns what to print.
///
/// Errors: [`Refused`] when `id` is no chart, cannot be read or is stale
/// ([`crate::store::Writer::current_chart`]); the entry cannot be written.
fn like(store: &Store, question: &str, id: &str, details: Option<&str>) -> Result<String> {
    if !store.exists() {
        return Err(Refused(format!(
            "--like {}: there are no charts here yet (no .capn/ in {}); nothing was written",
            crate::store::printable(id),
            store.root.display()
        ))
        .into());
    }
    store.check_dirs()?;
    let mut w = store.open_writer_with(crate::store::index::Check::Folder)?;
    let mut e = w.current_chart(id)?;
    let others = taking_off_others(&mut w, question, &e.id)?;
    let added = e.add_phrasing(question);
    let details_note = match details {
        Some(d) if d != e.details && d.is_empty() => "; its details were cleared",
        Some(d) if d != e.details => "; its details were replaced by yours",
        _ => "",
    };
    if let Some(d) = details {
        e.details = d.to_string();
    }
    let q = crate::present::Foreign::new(e.question.as_str())
        .quoted(crate::present::MAX_QUESTION_CHARS);
    let said = match &added {
        Some(dropped) => format!(
            "charted {id}: added as another phrasing of {q}{}{}{details_note}; asked in these words, it now answers with that chart",
            moved_note(&others),
            dropped_note(dropped)
        ),
        None => format!(
            "charted {id}: already a phrasing of {q}{}{details_note}; asked in these words, it answers with that chart",
            moved_note(&others)
        ),
    };
    if added.is_some() || !details_note.is_empty() || !others.is_empty() {
        // Every entry is checked before any is written: a refusal writes nothing.
        let e = checked(e)?;
        write_checked(&mut w, others, e, &[])?;
    }
    w.finish_or_warn();
    Ok(said)
}

/// The other charts that have `question` as a phrasing, each with it taken off (not written
/// yet), so that it answers with chart `id` alone.
///
/// Errors: [`Refused`] when it is another chart's own question (that chart answers it: asked,
/// it would answer with both), with what to do when that chart is stale; an entry would not
/// read back as written ([`checked`]).
fn taking_off_others(w: &mut crate::store::Writer, question: &str, id: &str) -> Result<Vec<Entry>> {
    let norm = crate::recall::gate::normalise_question(question);
    let mut others = Vec::new();
    for mut other in w.askers(question) {
        if other.id == id {
            continue;
        }
        if crate::recall::gate::normalise_question(&other.question) == norm {
            let quoted = crate::present::quote(question, crate::present::MAX_QUESTION_CHARS);
            let root = w.store.root.clone();
            let advice = if crate::store::entry_is_fresh(&root, &other, &mut w.cache) {
                format!(
                    "which answers it; to have chart {id} answer it instead, unchart {} first",
                    other.id
                )
            } else {
                format!("which is stale (its files changed), so it answers nothing now; if chart {id}'s files answer it, chart it afresh on them: capn chart {quoted} --files <files>")
            };
            return Err(Refused(format!(
                "--like {id}: {quoted} is the question of chart {}, {advice}; nothing was written",
                other.id
            ))
            .into());
        }
        if other.remove_phrasing(question) {
            others.push(checked(other)?);
        }
    }
    Ok(others)
}

/// Writes `others` (charts that lost a phrasing) and then `entry`, all already [`checked`].
///
/// Errors: an entry cannot be written.
fn write_checked(
    w: &mut crate::store::Writer,
    others: Vec<Entry>,
    entry: Entry,
    hashed: &[crate::store::ops::Hashed],
) -> Result<()> {
    for other in others {
        w.chart(other, &[])?;
    }
    w.chart(entry, hashed)
}

/// ` (taken off chart <ids>)` when a phrasing moved to this chart from `others`, else empty.
fn moved_note(others: &[Entry]) -> String {
    if others.is_empty() {
        return String::new();
    }
    let s = if others.len() == 1 { "" } else { "s" };
    let ids: Vec<&str> = others.iter().map(|o| o.id.as_str()).collect();
    format!(
        " (taken off chart{s} {}, which no longer answers it)",
        ids.join(", ")
    )
}

/// `; its oldest phrasing "<p>" was dropped (a chart keeps 8)` when adding one dropped any.
fn dropped_note(dropped: &[String]) -> String {
    let keep = crate::store::entry::MAX_PHRASINGS;
    match dropped {
        [] => String::new(),
        [p] => format!(
            "; its oldest phrasing {} was dropped (a chart keeps {keep})",
            crate::present::quote(p, crate::present::MAX_QUESTION_CHARS)
        ),
        many => format!(
            "; its {} oldest phrasings were dropped (a chart keeps {keep})",
            many.len()
        ),
    }
}

/// `capn chart "<question>" --files …`: hashes the files and, under the writers' lock, updates
/// the chart that already asks this question (same id; the old details kept unless `--details`
/// is given), or adds the question as another phrasing of a current chart with exactly these
/// files and a similar question, or writes a new entry. Returns what to print.
///
/// Errors: [`Refused`] for a file that cannot be charted or an oversized entry; the store cannot
/// be written.
fn chart_files(
    store: &Store,
    cwd: &Path,
    question: &str,
    inputs: &[&str],
    req: &ChartRequest<'_>,
) -> Result<String> {
    let (files, hashed) = hash_inputs(store, cwd, inputs, req.files)?;
    store.check_dirs()?;
    let created = !store.exists();
    let mut w = store.open_writer_with(crate::store::index::Check::Folder)?;
    if created {
        place::new_store(&w.store)?;
    }
    let details = req.details;
    // A version of this question that is not fresh here is replaced only when no one needs it:
    // in a shared store it is a teammate's, in a local one a branch may hold it ([`Versions`]);
    // it keeps its id, and this one takes the next.
    let shared = w.store.is_shared();
    let mut versions = Versions::new(shared);
    let at = place::charted_at(&w.store.root, &files, shared);
    let (placement, others, newest) = place::placed(&mut w, question, &files, &mut versions)?;
    let (entry, said) = match placement {
        Placement::Same(mut e) => {
            (e.files, e.at) = (files, at);
            if let Some(d) = details {
                e.details = d.to_string();
            }
            let said = format!("charted {}", e.id);
            (e, said)
        }
        Placement::Phrasing(e) => with_phrasing(e, question, details, at),
        Placement::New => place::new_entry(&mut w, question, files, details, at, &mut versions)?,
    };
    // A re-chart without `--details` keeps the details of the newest version of its question,
    // whichever version it replaces or writes beside.
    let entry = match newest {
        Some(details) if req.details.is_none() => Entry { details, ..entry },
        _ => entry,
    };
    // Every entry is checked before any is written: a refusal writes nothing.
    let entry = checked(entry)?;
    let id = entry.id.clone();
    let said = format!("{said}{}", moved_note(&others));
    let said = format!("{said}{}", place::resolves_note(&w.store, &id, question));
    // Identical charts are identical bytes: nothing to write, no `at:` rewritten, no diff.
    if !(others.is_empty() && place::unchanged(&w.store, &entry)) {
        write_checked(&mut w, others, entry, &hashed)?;
    }
    let replaced = place::replace_same_question(&mut w, &id, question, &mut versions)?;
    w.finish_or_warn();
    Ok(if replaced.is_empty() {
        said
    } else {
        format!(
            "{said} (replaces {}: the same question, written differently)",
            replaced.join(", ")
        )
    })
}

/// `e` (a chart with the very files just hashed) with `question` as another phrasing, charted
/// `at`; `details`, when given and new, are added after the chart's own. Returns it (not
/// written yet) and what to print.
fn with_phrasing(
    mut e: Entry,
    question: &str,
    details: Option<&str>,
    at: String,
) -> (Entry, String) {
    let added = e.add_phrasing(question);
    e.at = at;
    // The other question's details stay: new ones are added after them, unless they are one
    // of its paragraphs already.
    let before = e.details.clone();
    match details {
        Some(d) if e.details.is_empty() => e.details = d.to_string(),
        Some(d) if !d.is_empty() && !e.details.split("\n\n").any(|p| p == d) => {
            // foreign-scan: data (the entry's own details, written back to it)
            e.details = format!("{}\n\n{d}", e.details);
        }
        _ => {}
    }
    let more_details = if e.details == before {
        ""
    } else {
        "; your details were added to its own"
    };
    let id = e.id.clone();
    let q = crate::present::Foreign::new(e.question.as_str())
        .quoted(crate::present::MAX_QUESTION_CHARS);
    let said = match added {
        Some(dropped) => format!(
            "charted {id}: the same files as {q}, a similar question: added as another phrasing of it (no new entry){more_details}{}; asked in these words, it now answers with that chart",
            dropped_note(&dropped)
        ),
        None => format!("charted {id}: already a phrasing of {q} (no new entry){more_details}"),
    };
    (e, said)
}

/// The backing files `inputs` (relative to `cwd`) as entry keys with their SHA-256 hex, and what
/// the stat cache is told about them.
///
/// Errors: [`Refused`] for a path that cannot be charted (with a hint when `--files` split a
/// file name at a comma); a file cannot be hashed.
fn hash_inputs(
    store: &Store,
    cwd: &Path,
    inputs: &[&str],
    files_arg: &[String],
) -> Result<(BTreeMap<String, String>, Vec<crate::store::ops::Hashed>)> {
    let mut files = BTreeMap::new();
    let mut hashed = Vec::new();
    for input in inputs {
        let (key, abs) = paths::resolve_backing_file(&store.root, cwd, input)
            .map_err(|e| Refused(with_comma_hint(e, files_arg, cwd)))?;
        let at_ns = now_ns();
        let hash = hash_file(&store.root, &abs)?;
        files.insert(key.clone(), crate::hex::encode(&hash));
        hashed.push((key, abs, hash, at_ns));
    }
    Ok((files, hashed))
}

/// `error` with a hint when two neighbouring `--files` parts, joined by the comma `--files` split
/// them at, name a file that exists: a file whose name holds a comma needs `--file`.
fn with_comma_hint(error: String, parts: &[String], cwd: &Path) -> String {
    for pair in parts.windows(2) {
        let joined = format!("{},{}", pair[0], pair[1]);
        if cwd.join(&joined).exists() {
            return format!(
                "{error} (--files splits at commas: for the file {joined:?} use --file {joined:?})"
            );
        }
    }
    error
}
