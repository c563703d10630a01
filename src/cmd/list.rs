//! `capn list [--json]`: every entry, read directly from the entry files (a broken derived file
//! never hides an entry; malformed entries are reported on stderr and skipped).

use crate::cli::ListArgs;
use crate::store::fresh::StatCache;
use crate::store::{index::read_entry, Store};
use anyhow::{Context, Result};
use std::io::Write;
use std::process::ExitCode;

/// Runs `capn list`. Human-readable by default; `--json` prints one object per line:
/// `{"id","question","files","details"?,"at","changed"?}`.
///
/// An entry whose backing files changed since it was charted (changed, vanished or replaced; the
/// stat cache `.capn/stat.bin` is trusted for files whose size, times and inode are unchanged, so
/// only those are re-hashed that look different) is marked: `[stale]` before its question and a
/// `changed:` line naming the files, or `"changed": [paths]` in JSON. `list` deletes nothing
/// (the next `ask` or `prune` does) and does not write the stat cache.
pub fn run(args: &ListArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    let dir = store.entries_dir();
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|d| d.ok())
            .filter_map(|d| d.file_name().to_str().map(str::to_string))
            .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            return Err(e).with_context(|| format!("could not list entries: {}", dir.display()))
        }
    };
    names.sort();
    let mut cache = StatCache::load(&store.stat_cache_path());
    let mut out = String::new();
    for name in &names {
        let path = dir.join(name);
        let entry = match read_entry(&path, name) {
            Ok(e) => e,
            // Deleted by a writer since the folder was listed: not malformed, just gone.
            Err(_) if !path.exists() => continue,
            Err(reason) => {
                crate::store::report_malformed(&store, &[(name.clone(), reason)]);
                continue;
            }
        };
        let changed: Vec<&String> = entry
            .files
            .iter()
            .filter(|(p, h)| !cache.is_fresh(&store.root, p, h))
            .map(|(p, _)| p)
            .collect();
        if args.json {
            let v = serde_json::json!({
                "id": entry.id,
                "question": entry.question,
                "files": entry.files.keys().collect::<Vec<_>>(),
            });
            let mut v = v;
            if !entry.details.is_empty() {
                v["details"] = entry.details.clone().into();
            }
            v["at"] = entry.at.clone().into();
            if !changed.is_empty() {
                v["changed"] = serde_json::json!(changed);
            }
            out.push_str(&serde_json::to_string(&v)?);
            out.push('\n');
        } else {
            out.push_str(&human(&entry, &changed));
        }
    }
    let mut so = std::io::stdout().lock();
    so.write_all(out.as_bytes())?;
    if !args.json && names.is_empty() {
        diag!("capn: nothing charted yet");
    }
    Ok(ExitCode::SUCCESS)
}

/// One entry as `list` prints it without `--json`: `<id>  [stale] <question>`, its files, the
/// changed files when there are any, and its details.
fn human(entry: &crate::store::entry::Entry, changed: &[&String]) -> String {
    let mut out = String::new();
    let mark = if changed.is_empty() { "" } else { "[stale] " };
    out.push_str(&format!(
        "{}  {mark}{}\n",
        entry.id,
        printable(&entry.question)
    ));
    let files: Vec<String> = entry.files.keys().map(|f| printable(f)).collect();
    out.push_str(&format!("  files: {}\n", files.join(", ")));
    if !changed.is_empty() {
        let changed: Vec<String> = changed.iter().map(|f| printable(f)).collect();
        out.push_str(&format!(
            "  changed since charted: {} (the next ask removes this chart)\n",
            changed.join(", ")
        ));
    }
    if !entry.details.is_empty() {
        let mut lines = entry.details.lines();
        let first = printable(lines.next().unwrap_or(""));
        out.push_str(&format!("  details: {first}\n"));
        for l in lines {
            out.push_str(&format!("           {}\n", printable(l)));
        }
    }
    out
}

/// `s` with control characters escaped (`\u{1b}`), so a hand-edited entry cannot send escape
/// sequences to the terminal. JSON output (`--json`) is escaped by the JSON encoder instead.
fn printable(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}
