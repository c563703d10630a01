//! Where `capn chart`'s question goes ([`placed`]): the chart of this very question, a chart
//! it becomes another phrasing of, or a new entry with its id ([`choose_id`]); which versions of
//! the question stay beside it ([`Versions`]); and the same question written differently,
//! replaced ([`replace_same_question`]). Called by [`super`] with the writers' lock held.

use crate::error::Refused;
use crate::store::entry::{question_hash, Entry, ID_LENGTHS};
use crate::store::phrasing::checked;
use crate::store::{Store, Writer};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// The id for `question` (format.md, `id`): the 8-digit prefix of its SHA-256, or the 12- or
/// 16-digit one when a shorter prefix belongs to a different question. The same question keeps
/// the id it already has, unless `keep` says that entry must stay (a shared store keeps a
/// version that is not fresh here: a teammate's branch may hold its files); then the next free
/// prefix. Call with the lock held.
///
/// Errors: every prefix belongs to another question or to a kept version of this one (or to an
/// entry file that does not parse).
fn choose_id(
    store: &Store,
    question: &str,
    keep: &mut dyn FnMut(&Entry) -> bool,
) -> Result<String> {
    let full = question_hash(question);
    let mut free = None;
    for n in ID_LENGTHS {
        let id = &full[..n];
        let path = store.entry_path(id);
        match crate::store::index::read_entry(&path, &format!("{id}.md")) {
            Ok(e) if e.question == question && !keep(&e) => return Ok(id.to_string()),
            Ok(_) => {}
            // A merge conflict between versions of this question: the re-chart resolves it in
            // place (another id would leave a duplicate behind once it is resolved).
            Err(_) if conflict_asks(&path, id, question) => return Ok(id.to_string()),
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
            "id collision: every id prefix of this question ({}) belongs to another entry (in a shared store, versions of this question charted on other files are kept: capn unchart one of them, capn list shows them)",
            &full[..16]
        ))
        .into()
    })
}

/// Says that charting created the store (`init` registers the hooks), and keeps the new store
/// out of git as `init` does: `.capn/.gitignore` (`*`, [`crate::install::shared`]).
///
/// Errors: `.capn/.gitignore` cannot be written.
pub(super) fn new_store(store: &Store) -> Result<()> {
    diag!(
        "capn: created .capn/ in {}; run `capn init` to register the agent hooks",
        store.home().display()
    );
    let path = store.dir.join(".gitignore");
    if crate::fsutil::unwritable_reason(&path).is_none() && !path.exists() {
        crate::fsutil::write_atomic(&path, crate::store::LOCAL_STORE_GITIGNORE.as_bytes())?;
    }
    Ok(())
}

/// ` (resolves the merge conflict in .capn/entries/<id>.md: git add it)` when the entry file of
/// `id` holds a merge conflict of `question` (the chart about to be written replaces it).
pub(super) fn resolves_note(store: &Store, id: &str, question: &str) -> String {
    let path = store.entry_path(id);
    if conflict_asks(&path, id, question) {
        format!(
            " (resolves the merge conflict in {}: git add it)",
            crate::store::display_rel(&store.root, &path)
        )
    } else {
        String::new()
    }
}

/// True when the entry file at `path` holds a git merge conflict whose sides ask `question`
/// ([`crate::store::conflict::asks`]).
fn conflict_asks(path: &Path, id: &str, question: &str) -> bool {
    use crate::fsutil::{limits, read_limited, Follow};
    read_limited(path, limits::ENTRY, Follow::Never)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|text| crate::store::conflict::asks(&text, id, question))
}

/// Both versions' phrasings and details when the entry file at `path` holds two versions of
/// `question` ([`crate::store::conflict::merged`]).
fn conflict_merged(path: &Path, id: &str, question: &str) -> Option<Entry> {
    use crate::fsutil::{limits, read_limited, Follow};
    let text = String::from_utf8(read_limited(path, limits::ENTRY, Follow::Never).ok()?).ok()?;
    crate::store::conflict::asks(&text, id, question)
        .then(|| crate::store::conflict::merged(&text, id))
        .flatten()
}

/// A new entry for `question` on `files` (not written yet), charted `at`, with `details` or,
/// when the entry file of its id holds a merge conflict of two versions of it, both sides'
/// phrasings and details; and what to print. Its id is [`choose_id`]'s (the versions that
/// `versions` keeps keep theirs).
///
/// Errors: [`choose_id`]'s.
pub(super) fn new_entry(
    w: &mut Writer,
    question: &str,
    files: BTreeMap<String, String>,
    details: Option<&str>,
    at: String,
    versions: &mut Versions,
) -> Result<(Entry, String)> {
    let root = w.store.root.clone();
    let cache = &mut w.cache;
    let mut keep = |e: &Entry| versions.keeps(&root, e, cache);
    let id = choose_id(&w.store, question, &mut keep)?;
    let neighbours = w.charts_on(&files);
    // Two versions of this question in its file: both sides' phrasings and details stay.
    let both = conflict_merged(&w.store.entry_path(&id), &id, question);
    let mut entry = Entry {
        id: id.clone(),
        at,
        files,
        question: question.to_string(),
        details: details
            .map(str::to_string)
            .or_else(|| both.as_ref().map(|e| e.details.clone()))
            .unwrap_or_default(),
        phrasings: Vec::new(),
        extra: Vec::new(),
    };
    for p in both.iter().flat_map(|e| &e.phrasings) {
        entry.add_phrasing(p);
    }
    let said = format!("charted {id}{}", own_question_note(&id, &neighbours));
    Ok((entry, said))
}

/// ` (a question of its own: chart <id> "<question>" has the same files and asks something
/// else)` when charts other than `id` are backed by the very files just charted (`neighbours`),
/// else empty: a different question on the same files is a chart of its own, never merged into
/// theirs (only a rewording that one of them already answers is). At most two are named.
fn own_question_note(id: &str, neighbours: &[Entry]) -> String {
    let others: Vec<&Entry> = neighbours.iter().filter(|e| e.id != id).collect();
    let named: Vec<String> = others
        .iter()
        .take(2)
        .map(|e| {
            format!(
                "{} {}",
                e.id,
                crate::present::quote(&e.question, crate::present::MAX_QUESTION_CHARS)
            )
        })
        .collect();
    match others.len() {
        0 => String::new(),
        1 => format!(
            " (a question of its own: chart {} has the same files and asks something else)",
            named[0]
        ),
        n => format!(
            " (a question of its own: {} other charts, {}{}, have the same files and ask something else)",
            n,
            named.join(", "),
            if n > 2 { ", …" } else { "" }
        ),
    }
}

/// Which version of a question a re-chart keeps beside the new one instead of replacing it: one
/// not fresh here that, in a `shared` store, a teammate may need, or, in a local store, some
/// branch, worktree or stash still holds ([`crate::store::branches`]; git is asked only when
/// such a version is there).
pub(super) struct Versions {
    shared: bool,
    branches: Option<Option<crate::store::branches::Branches>>,
}

impl Versions {
    /// For a store that is `shared` or not; git is not asked yet.
    pub(super) fn new(shared: bool) -> Versions {
        Versions {
            shared,
            branches: None,
        }
    }

    /// True when `e` (a version of the question being charted) stays.
    pub(super) fn keeps(
        &mut self,
        root: &Path,
        e: &Entry,
        cache: &mut crate::store::fresh::StatCache,
    ) -> bool {
        if crate::store::entry_is_fresh(root, e, cache) {
            return false;
        }
        self.shared
            || self
                .branches
                .get_or_insert_with(|| crate::store::branches::Branches::load(root))
                .as_mut()
                .is_some_and(|b| b.holds(e))
    }
}

/// True when the entry file of `entry`'s id already says what `entry` says (its `at:` aside):
/// re-charting it would change nothing but the time.
pub(super) fn unchanged(store: &Store, entry: &Entry) -> bool {
    let path = store.entry_path(&entry.id);
    let Ok(Some(bytes)) = crate::fsutil::read_host_file(&path, "entry") else {
        return false;
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return false;
    };
    let Ok(now) = Entry::parse(&text, &entry.id) else {
        return false;
    };
    let same = Entry {
        at: now.at.clone(),
        ..entry.clone()
    };
    same.render() == text
}

/// The `at:` of a chart of `files` made now: the time, or in a `shared` store, the commit time of
/// the newest commit that touched them, when git tracks them all unchanged (so two clones that
/// chart the same question on the same files write the same bytes and merge without a conflict);
/// the time when git cannot say.
pub(super) fn charted_at(root: &Path, files: &BTreeMap<String, String>, shared: bool) -> String {
    let now = || crate::clock::rfc3339(std::time::SystemTime::now());
    if !shared || files.is_empty() {
        return now();
    }
    let mut args = vec![
        "--literal-pathspecs",
        "status",
        "--porcelain",
        "--untracked-files=all",
        "--",
    ];
    args.extend(files.keys().map(String::as_str));
    let clean = crate::process::git_output(root, &args).is_some_and(|o| o.is_empty());
    let mut args = vec!["--literal-pathspecs", "ls-files", "-z", "--"];
    args.extend(files.keys().map(String::as_str));
    let tracked = crate::process::git_output(root, &args)
        .is_some_and(|o| o.split(|b| *b == 0).filter(|p| !p.is_empty()).count() == files.len());
    if !(clean && tracked) {
        return now();
    }
    let mut args = vec!["--literal-pathspecs", "log", "-1", "--format=%ct", "--"];
    args.extend(files.keys().map(String::as_str));
    crate::process::git_output(root, &args)
        .and_then(|o| String::from_utf8(o).ok())
        .and_then(|t| t.trim().parse::<u64>().ok())
        .map(|secs| {
            crate::clock::rfc3339(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        })
        .unwrap_or_else(now)
}

/// Where a question charted with `files` goes ([`placed`]).
pub(super) enum Placement {
    /// A chart whose `# ` question this is (its id is kept).
    Same(Entry),
    /// A chart this question becomes another phrasing of.
    Phrasing(Entry),
    /// A new entry.
    New,
}

/// Finds where `question` charted with `files` goes: the chart whose question it is; a chart
/// that has it as a phrasing, if that chart has these very files; a current chart with these
/// files and a similar question ([`Writer::similar_chart`]); else a new entry. In a
/// chart of this very question that `versions` keeps is left as it is (a new entry is written
/// beside it). A similar chart that already keeps [`crate::store::entry::MAX_PHRASINGS`]
/// others takes no more: a new entry is written. Every other chart that has it as a phrasing
/// loses it (these files answer it now): they come back with the placement,
/// [`checked`], for the caller to write. With them, the details of the newest version of this
/// very question (by `at:`), if there is one: a chart of it that is not kept is the one
/// reused, whichever comes first.
///
/// Errors: such a chart would not read back as written.
pub(super) fn placed(
    w: &mut Writer,
    question: &str,
    files: &BTreeMap<String, String>,
    versions: &mut Versions,
) -> Result<(Placement, Vec<Entry>, Option<String>)> {
    let norm = crate::recall::gate::normalise_question(question);
    let own = |e: &Entry| crate::recall::gate::normalise_question(&e.question) == norm;
    let mut askers = w.askers(question);
    let newest = askers
        .iter()
        .filter(|e| own(e))
        .max_by(|a, b| a.at.cmp(&b.at))
        .map(|e| e.details.clone());
    let root = w.store.root.clone();
    let replaceable = askers
        .iter()
        .position(|e| own(e) && !versions.keeps(&root, e, &mut w.cache));
    let placement = if let Some(at) = replaceable {
        Placement::Same(askers.remove(at))
    } else if newest.is_some() {
        Placement::New
    } else if let Some(at) = askers.iter().position(|e| &e.files == files) {
        Placement::Phrasing(askers.remove(at))
    } else {
        // A chart that holds all the phrasings it keeps takes no more by merging: the oldest
        // would stop answering, and this is another question (one file can answer many).
        let room = |e: &Entry| e.kept_phrasings().len() < crate::store::entry::MAX_PHRASINGS;
        match w.similar_chart(question, files).filter(room) {
            Some(e) => {
                askers.retain(|a| a.id != e.id);
                Placement::Phrasing(e)
            }
            None => Placement::New,
        }
    };
    let mut others = Vec::new();
    for mut other in askers.into_iter().filter(|e| !own(e)) {
        if other.remove_phrasing(question) {
            others.push(checked(other)?);
        }
    }
    Ok((placement, others, newest))
}

/// Deletes the other entries that ask `question` once case, punctuation and whitespace are set
/// aside (the exact re-ask of `ask`, [`crate::recall::gate::normalise_question`]): charting the
/// same question again replaces its entry, however it is written. Each is confirmed against its
/// own file (the index only holds a hash). Those `versions` keeps stay. Returns their ids.
///
/// Errors: an entry cannot be deleted.
pub(super) fn replace_same_question(
    w: &mut Writer,
    id: &str,
    question: &str,
    versions: &mut Versions,
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
        let root = w.store.root.clone();
        let same = crate::store::index::read_entry(&path, &format!("{other}.md")).is_ok_and(|e| {
            crate::recall::gate::normalise_question(&e.question) == norm
                && !versions.keeps(&root, &e, &mut w.cache)
        });
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
