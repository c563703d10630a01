//! `capn list`'s operation: every entry, read directly from the entry files (a broken derived
//! file never hides an entry; malformed entries are reported on stderr and skipped), as the
//! human listing ([`human`]) or one JSON line per entry ([`json`]).

use crate::present;
use crate::store::fresh::StatCache;
use crate::store::{index::read_entry, printable, Store};
use anyhow::Result;

/// What [`list`] found, to print.
#[derive(Debug)]
pub(crate) struct Listing {
    /// The listing, every line ending in `\n` (empty when there is no entry).
    pub text: String,
    /// True when the entries folder names no entry file.
    pub empty: bool,
}

/// Lists every entry of `store`. Human-readable by default (bounded and quoted: [`human`]);
/// with `json`, one object per line, every entry whole (an export: no cap; hidden characters
/// escaped): `{"id","question","files","details"?,"at","changed"?}`.
///
/// An entry whose backing files changed since it was charted (changed, vanished or replaced; the
/// stat cache `.capn/stat.bin` is trusted for files whose size, times and inode are unchanged, so
/// only those are re-hashed that look different) is marked: `[stale]` before its question and a
/// `changed:` line naming the files, or `"changed": [paths]` in JSON. One whose files could not
/// be checked (too large, unreadable) is marked `[unchecked]`, or `"unchecked": [paths]`. A stale
/// entry is hidden from answers and offers, kept, and answers again once its files hash as
/// charted; listing deletes nothing (`prune` does) and does not write the stat cache. Malformed
/// entries, and in a borrowed store (a linked worktree's) which files the charts are checked
/// against, are said on stderr.
///
/// Errors: the store's folders are not folders; the entries folder cannot be listed.
pub(crate) fn list(store: &Store, as_json: bool) -> Result<Listing> {
    store.check_dirs()?;
    let dir = store.entries_dir();
    let names = crate::store::entry_names(&dir)?;
    let mut cache = stat_cache(store, &names);
    let shared = store.is_shared();
    let learned = crate::store::learned::LearnedWords::read(store);
    let mut out = String::new();
    for name in &names {
        let path = dir.join(name);
        let entry = match read_entry(&path, name) {
            Ok(e) => e,
            // Deleted by a writer since the folder was listed: not malformed, just gone.
            Err(_) if std::fs::symlink_metadata(&path).is_err() => continue,
            Err(reason) => {
                crate::store::report_malformed(store, &[(name.clone(), reason)]);
                continue;
            }
        };
        if let Some(line) = crate::store::withheld::list_line(&entry, as_json) {
            out.push_str(&line);
            continue;
        }
        let changed = crate::store::changed_files(&store.root, &entry, &mut cache);
        // Neither changed nor confirmed current (too large, unreadable): `ask` hides the chart.
        let unchecked: Vec<&String> = entry
            .files
            .iter()
            .filter(|(p, h)| !changed.contains(p) && !cache.is_current(&store.root, p, h))
            .map(|(p, _)| p)
            .collect();
        let learned = learned.of(&entry.id);
        if as_json {
            out.push_str(&json(&entry, learned, &changed, &unchecked)?);
        } else {
            let gone: Vec<bool> = changed
                .iter()
                .map(|f| cache.is_gone(&store.root, f))
                .collect();
            let files = (&changed[..], &gone[..], &unchecked[..]);
            out.push_str(&human(&entry, learned, files, shared));
        }
    }
    if store.is_borrowed() && store.exists() {
        diag!(
            "capn: this worktree uses {}; charts are checked against this worktree's files",
            store.describe()
        );
    }
    Ok(Listing {
        text: out,
        empty: names.is_empty(),
    })
}

/// The command that deletes stale charts, as the listing names it: `capn prune`, or in a shared
/// store (where `prune` only lists them) `capn prune --yes`.
fn deleting_command(shared: bool) -> &'static str {
    if shared {
        "capn prune --yes"
    } else {
        "capn prune"
    }
}

/// The stat cache, bounded by the size of the entries `names` (in `.capn/entries/`) it was built
/// from, as for ask.
fn stat_cache(store: &Store, names: &[String]) -> StatCache {
    let dir = store.entries_dir();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let entry_bytes = crate::fsutil::stat_names_in(&dir, &refs, false)
        .into_iter()
        .filter_map(Result::ok)
        .map(|st| st.size)
        .fold(0u64, u64::saturating_add);
    let limit = crate::fsutil::limits::derived(entry_bytes, names.len() as u64);
    StatCache::load(&store.stat_cache_path(), limit)
}

/// One entry as `list --json` prints it, a line: `{"id","question","files","details"?,
/// "phrasings"?,"uncounted_phrasings"? (how many of the oldest phrasings do not count),
/// "learned"? (words it learned from use: they rank it on a miss, never answer),"at",
/// "changed"?,"unchecked"?}`, whole (an export), but hidden characters as
/// `\uXXXX` escapes ([`crate::present::json_line`]).
///
/// Errors: serde_json's.
fn json(
    entry: &crate::store::entry::Entry,
    learned: &[String],
    changed: &[&String],
    unchecked: &[&String],
) -> Result<String> {
    let mut v = serde_json::json!({
        "id": entry.id,
        "question": entry.question,
        "files": entry.files.keys().collect::<Vec<_>>(),
    });
    if !entry.details.is_empty() {
        v["details"] = entry.details.clone().into();
    }
    if !entry.phrasings.is_empty() {
        v["phrasings"] = serde_json::json!(entry.phrasings);
    }
    // A hand-edited entry may list more than the newest ones that count.
    let uncounted = entry.uncounted_phrasings();
    if uncounted > 0 {
        v["uncounted_phrasings"] = uncounted.into();
    }
    if !learned.is_empty() {
        v["learned"] = serde_json::json!(learned);
    }
    v["at"] = entry.at.clone().into();
    if !changed.is_empty() {
        v["changed"] = serde_json::json!(changed);
    }
    if !unchecked.is_empty() {
        v["unchecked"] = serde_json::json!(unchecked);
    }
    let mut line = crate::present::json_line(&v)?;
    line.push('\n');
    Ok(line)
}

/// A path as `list` shows it: a JSON string literal ([`present::quote`], so `a.ts, src` is one
/// path), cut at [`present::MAX_ASK_PATH_CHARS`].
fn quoted(path: &str) -> String {
    present::quote(path, present::MAX_ASK_PATH_CHARS)
}

/// `items` joined by `, `: the first [`present::MAX_ASK_FILES`], then `(+N more; capn list
/// --json lists them all)`.
fn capped_list(items: impl ExactSizeIterator<Item = String>) -> String {
    let total = items.len();
    let mut shown: Vec<String> = items.take(present::MAX_ASK_FILES).collect();
    if total > present::MAX_ASK_FILES {
        shown.push(format!(
            "(+{} more; capn list --json lists them all)",
            total - present::MAX_ASK_FILES
        ));
    }
    shown.join(", ")
}

/// One entry as `list` prints it without `--json`, through [`crate::present`]:
/// `<id>  [stale] <question>` (or `[unchecked]` when a file could not be checked; the question
/// cut at [`present::MAX_ASK_QUESTION_CHARS`]), its other phrasings that count (the older ones
/// past them counted), the words it learned from use (`learned:`, they only rank it), its files quoted (at most
/// [`present::MAX_ASK_FILES`], the rest counted), the changed files (`(missing)` after those
/// `gone` marks) and the unchecked ones when there are any, and its details (cut as `ask`); the
/// command named to delete a stale chart is `capn prune --yes` in a `shared` store.
fn human(
    entry: &crate::store::entry::Entry,
    learned: &[String],
    (changed, gone, unchecked): (&[&String], &[bool], &[&String]),
    shared: bool,
) -> String {
    let mut out = String::new();
    let mark = match (changed.is_empty(), unchecked.is_empty()) {
        (false, _) => "[stale] ",
        (true, false) => "[unchecked] ",
        (true, true) => "",
    };
    out.push_str(&format!(
        "{}  {mark}{}\n",
        entry.id,
        present::printable_capped(&entry.question, present::MAX_ASK_QUESTION_CHARS)
    ));
    for p in entry.kept_phrasings() {
        out.push_str(&format!(
            "  also asked as: {}\n",
            present::printable_capped(p, present::MAX_ASK_QUESTION_CHARS)
        ));
    }
    let past = entry.uncounted_phrasings();
    if past > 0 {
        out.push_str(&format!(
            "  (+{past} older phrasings in the file: a chart keeps the newest {}, the others do not answer)\n",
            crate::store::entry::MAX_PHRASINGS
        ));
    }
    for p in learned {
        out.push_str(&format!(
            "  learned from use (ranks, never answers): {}\n",
            present::printable_capped(p, present::MAX_ASK_QUESTION_CHARS)
        ));
    }
    let files = capped_list(entry.files.keys().map(|f| quoted(f)));
    out.push_str(&format!("  files: {files}\n"));
    if !changed.is_empty() {
        let changed = capped_list(changed.iter().enumerate().map(|(i, f)| {
            let f = quoted(f);
            if gone.get(i).copied().unwrap_or(false) {
                format!("{f} (missing)")
            } else {
                f
            }
        }));
        out.push_str(&format!(
            "  changed since charted: {} (hidden until they are back as charted; `{}` deletes it)\n",
            changed,
            deleting_command(shared)
        ));
    }
    if !unchecked.is_empty() {
        let unchecked = capped_list(unchecked.iter().map(|f| quoted(f)));
        out.push_str(&format!(
            "  could not be checked: {unchecked} (too large or unreadable; ask does not answer with this chart until it can be, and keeps it)\n"
        ));
    }
    if !entry.details.is_empty() {
        // Cut at present::MAX_DETAILS_CHARS as `ask` cuts them; `--json` prints them whole.
        let entry_file = format!("{}/entries/{}.md", crate::store::STORE_DIR, entry.id);
        let details = crate::present::details(&entry.details, &entry_file);
        let mut lines = details.lines();
        let first = printable(lines.next().unwrap_or(""));
        out.push_str(&format!("  details: {first}\n"));
        for l in lines {
            out.push_str(&format!("           {}\n", printable(l)));
        }
    }
    out
}
