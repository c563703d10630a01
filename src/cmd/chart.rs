//! `capn chart "<question>" --files a,b [--details ".."]`: record which files answer a question.
//!
//! Every refusal (missing question, newline in it, no files, a missing file, a directory, a path
//! outside the project root, a stray positional argument) exits 1 with a one-line reason before
//! anything is written. The entry is written atomically under the writers' lock, then the derived
//! files are updated.

use crate::cli::ChartArgs;
use crate::error::Refused;
use crate::store::entry::{question_hash, Entry, ID_LENGTHS};
use crate::store::fresh::{hash_file, now_ns};
use crate::store::{paths, Store};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

/// The id for `question` (format.md, `id`): the 8-digit prefix of its SHA-256, or the 12- or
/// 16-digit one when a shorter prefix belongs to a different question. The same question keeps
/// the id it already has. Call with the lock held.
///
/// Errors: every prefix belongs to another question (or to an entry file that does not parse).
fn choose_id(store: &Store, question: &str) -> Result<String> {
    let full = question_hash(question);
    let mut free = None;
    for n in ID_LENGTHS {
        let id = &full[..n];
        let path = store.entry_path(id);
        match crate::store::index::read_entry(&path, &format!("{id}.md")) {
            Ok(e) if e.question == question => return Ok(id.to_string()),
            Ok(_) => {}
            // Nothing there, or a symlink or special file (not an entry: capn's own path taken
            // over; writing the entry replaces it without following it).
            Err(_)
                if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() || m.is_dir()) =>
            {
                free.get_or_insert_with(|| id.to_string());
            }
            Err(_) => {} // a malformed entry owns this name: never overwrite it
        }
    }
    free.ok_or_else(|| {
        Refused(format!(
            "id collision: every id prefix of this question ({}) belongs to another entry",
            &full[..16]
        ))
        .into()
    })
}

/// Runs `capn chart`.
pub fn run(args: &ChartArgs) -> Result<ExitCode> {
    let (question, inputs) = checked_args(args)?;
    let details = args.details.as_deref().unwrap_or("").to_string();

    let cwd = std::env::current_dir().context("could not read the working directory")?;
    let cwd = dunce::canonicalize(&cwd).unwrap_or(cwd);
    let store = Store::discover(&cwd);
    let mut files = BTreeMap::new();
    let mut hashed = Vec::new();
    for input in inputs {
        let (key, abs) = paths::resolve_backing_file(&store.root, &cwd, input)
            .map_err(|e| Refused(with_comma_hint(e, &args.files, &cwd)))?;
        let at_ns = now_ns();
        let hash = hash_file(&store.root, &abs)?;
        files.insert(key.clone(), crate::store::entry::hex(&hash));
        hashed.push((key, abs, hash, at_ns));
    }

    store.check_dirs()?;
    if !store.exists() {
        // Charting works without init, but nothing then keeps .capn/ out of git or registers
        // the hooks: say so once, when the store is created.
        diag!(
            "capn: created .capn/ in {}; run `capn init` to add it to .gitignore and register the agent hooks",
            store.root.display()
        );
    }
    let mut w = store.open_writer_with(crate::store::index::Check::Folder)?;
    let id = choose_id(&w.store, question)?;
    let entry = Entry {
        id: id.clone(),
        at: crate::clock::rfc3339(std::time::SystemTime::now()),
        files,
        question: question.to_string(),
        details,
    };
    write_entry(&mut w, entry, &hashed)?;
    let replaced = replace_same_question(&mut w, &id, question)?;
    w.finish_or_warn();
    let mut out = std::io::stdout().lock();
    if replaced.is_empty() {
        writeln!(out, "charted {id}")?;
    } else {
        writeln!(
            out,
            "charted {id} (replaces {}: the same question, written differently)",
            replaced.join(", ")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Deletes the other entries that ask `question` once case, punctuation and whitespace are set
/// aside (the exact re-ask of `ask`, [`crate::recall::gate::normalise_question`]): charting the
/// same question again replaces its entry, however it is written. Each is confirmed against its
/// own file (the index only holds a hash). Returns their ids.
///
/// Errors: an entry cannot be deleted.
fn replace_same_question(
    w: &mut crate::store::Writer,
    id: &str,
    question: &str,
) -> Result<Vec<String>> {
    let norm = crate::recall::gate::normalise_question(question);
    let mut positions = Vec::new();
    let mut ids = Vec::new();
    for pos in w.snap.bm25.exact_docs(question) {
        let Some(other) = w.snap.ids.get(pos).cloned() else {
            continue;
        };
        if other == id {
            continue;
        }
        let path = w.store.entry_path(&other);
        let same = crate::store::index::read_entry(&path, &format!("{other}.md"))
            .is_ok_and(|e| crate::recall::gate::normalise_question(&e.question) == norm);
        if same {
            positions.push(pos);
            ids.push(other);
        }
    }
    if !positions.is_empty() {
        w.delete_positions(&positions)?;
    }
    Ok(ids)
}

/// Checks that `entry` fits the entry size limit and parses back exactly (CRLF and blank edge
/// lines of the details are normalised by the format, so the index holds what a reader will
/// parse), then charts it ([`crate::store::Writer::chart`]).
///
/// Errors: [`Refused`] for an oversized entry; the entry cannot be written.
fn write_entry(
    w: &mut crate::store::Writer,
    entry: Entry,
    hashed: &[crate::store::ops::Hashed],
) -> Result<()> {
    let id = entry.id.clone();
    let text = entry.render();
    if text.len() as u64 > crate::fsutil::limits::ENTRY {
        return Err(Refused(format!(
            "refusing to chart: the entry would be {} bytes, over the {}-byte limit for an entry (fewer files or shorter details); nothing was written",
            text.len(),
            crate::fsutil::limits::ENTRY
        ))
        .into());
    }
    let entry = Entry::parse(&text, &id)
        .map_err(|e| anyhow::anyhow!("internal error: the new entry does not parse back: {e}"))?;
    w.chart(entry, hashed)
}

/// `error` with a hint when two neighbouring `--files` parts, joined by the comma `--files` split
/// them at, name a file that exists: a file whose name holds a comma needs `--file`.
fn with_comma_hint(error: String, parts: &[String], cwd: &std::path::Path) -> String {
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

/// The question and the file arguments of `capn chart`, checked.
///
/// Errors: [`Refused`] for a second positional argument, no question, a question on more than
/// one line, or no files.
fn checked_args(args: &ChartArgs) -> Result<(&str, Vec<&str>)> {
    if let Some(extra) = args.extra.first() {
        return Err(Refused(format!(
            "unexpected argument {extra:?}: quote the question, and pass files with --files"
        ))
        .into());
    }
    let question = args.question.as_deref().unwrap_or("").trim();
    if question.is_empty() {
        return Err(
            Refused("missing question: capn chart \"<question>\" --files a,b".into()).into(),
        );
    }
    if question.contains(['\n', '\r']) {
        return Err(Refused("the question must be one line (it contains a newline)".into()).into());
    }
    // `--files a, b` is common, so surrounding space is dropped, unless a file by the exact
    // name exists (format.md allows keys with leading or trailing space). `--file` is exact.
    let inputs: Vec<&str> = args
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
            args.file
                .iter()
                .map(String::as_str)
                .filter(|f| !f.is_empty()),
        )
        .collect();
    if inputs.is_empty() {
        return Err(
            Refused("no files: pass the files that answer it with --files a,b".into()).into(),
        );
    }
    Ok((question, inputs))
}
