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

/// Runs `capn chart`.
pub fn run(args: &ChartArgs) -> Result<ExitCode> {
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
    let inputs: Vec<&str> = args
        .files
        .iter()
        .map(|f| f.trim())
        .filter(|f| !f.is_empty())
        .collect();
    if inputs.is_empty() {
        return Err(
            Refused("no files: pass the files that answer it with --files a,b".into()).into(),
        );
    }
    let details = args
        .details
        .as_deref()
        .unwrap_or("")
        .trim_end_matches(['\n', '\r']);
    let details = details.trim_start_matches(['\n', '\r']).to_string();

    let cwd = std::env::current_dir().context("could not read the working directory")?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let store = Store::discover(&cwd);
    let mut files = BTreeMap::new();
    let mut hashed = Vec::new();
    for input in inputs {
        let (key, abs) = paths::resolve_backing_file(&store.root, &cwd, input).map_err(Refused)?;
        let at_ns = now_ns();
        let hash = hash_file(&abs)?;
        files.insert(key.clone(), crate::store::entry::hex(&hash));
        hashed.push((key, abs, hash, at_ns));
    }

    let mut w = store.open_writer()?;
    let full = question_hash(question);
    // The same question keeps its id (whatever prefix length it got); a different question
    // that owns a prefix pushes us to a longer one (format.md, `id`).
    let id = match w.snap.entries.iter().find(|e| e.question == question) {
        Some(e) => e.id.clone(),
        None => ID_LENGTHS
            .iter()
            .map(|&n| &full[..n])
            .find(|id| {
                w.snap.position(id).is_none() && !w.store.entry_path(id).exists()
            })
            .map(str::to_string)
            .ok_or_else(|| {
                Refused(format!(
                    "id collision: every id prefix of this question ({}) belongs to another question",
                    &full[..16]
                ))
            })?,
    };
    let entry = Entry {
        id: id.clone(),
        at: chrono::Utc::now()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string(),
        files,
        question: question.to_string(),
        details,
    };
    let path = w.store.entry_path(&id);
    crate::fsutil::write_atomic(&path, entry.render().as_bytes()).with_context(|| {
        format!(
            "could not write entry: {}",
            crate::store::display_rel(&w.store.root, &path)
        )
    })?;
    for (key, abs, hash, at_ns) in &hashed {
        w.cache.remember(key, abs, *hash, *at_ns);
    }
    let mut entries: Vec<Entry> = w
        .snap
        .entries
        .iter()
        .filter(|e| e.id != id)
        .cloned()
        .collect();
    entries.push(entry);
    let store = w.store.clone();
    w.snap.replace_entries(&store, entries)?;
    w.finish()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "charted {id}")?;
    Ok(ExitCode::SUCCESS)
}
