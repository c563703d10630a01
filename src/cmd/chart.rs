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
use crate::store::phrasing::{checked, phrasing_shaped_details};
use crate::store::{paths, Store};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::process::ExitCode;

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
fn new_store(store: &Store) -> Result<()> {
    diag!(
        "capn: created .capn/ in {}; run `capn init` to register the agent hooks",
        store.home().display()
    );
    let path = store.dir.join(".gitignore");
    if crate::fsutil::unwritable_reason(&path).is_none() && !path.exists() {
        crate::fsutil::write_atomic(
            &path,
            crate::install::shared::LOCAL_STORE_GITIGNORE.as_bytes(),
        )?;
    }
    Ok(())
}

/// ` (resolves the merge conflict in .capn/entries/<id>.md: git add it)` when the entry file of
/// `id` holds a merge conflict of `question` (the chart about to be written replaces it).
fn resolves_note(store: &Store, id: &str, question: &str) -> String {
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
fn conflict_asks(path: &std::path::Path, id: &str, question: &str) -> bool {
    use crate::fsutil::{limits, read_limited, Follow};
    read_limited(path, limits::ENTRY, Follow::Never)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|text| crate::store::conflict::asks(&text, id, question))
}

/// Both versions' phrasings and details when the entry file at `path` holds two versions of
/// `question` ([`crate::store::conflict::merged`]).
fn conflict_merged(path: &std::path::Path, id: &str, question: &str) -> Option<Entry> {
    use crate::fsutil::{limits, read_limited, Follow};
    let text = String::from_utf8(read_limited(path, limits::ENTRY, Follow::Never).ok()?).ok()?;
    crate::store::conflict::asks(&text, id, question)
        .then(|| crate::store::conflict::merged(&text, id))
        .flatten()
}

/// Runs `capn chart`: with `--like <id>`, adds the question as another phrasing of that chart
/// ([`like`]); otherwise hashes the files and charts them ([`chart_files`]).
pub fn run(args: &ChartArgs) -> Result<ExitCode> {
    let (question, inputs) = checked_args(args)?;
    let details = args.details.as_deref().unwrap_or("");
    let fields = [
        ("the question", question),
        ("--details", details),
        ("--files", &inputs.join(",")),
    ];
    crate::secret::refuse("refusing to chart", &fields)?;
    let cwd = std::env::current_dir().context("could not read the working directory")?;
    let cwd = crate::fsutil::resolved(&cwd);
    let store = Store::discover(&cwd);
    let said = match &args.like {
        Some(id) => like(&store, question, id, args.details.as_deref())?,
        None => chart_files(&store, &cwd, question, &inputs, args)?,
    };
    crate::present::print(&format!("{said}\n"))?;
    Ok(ExitCode::SUCCESS)
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
    cwd: &std::path::Path,
    question: &str,
    inputs: &[&str],
    args: &ChartArgs,
) -> Result<String> {
    let (files, hashed) = hash_inputs(store, cwd, inputs, &args.files)?;
    store.check_dirs()?;
    let created = !store.exists();
    let mut w = store.open_writer_with(crate::store::index::Check::Folder)?;
    if created {
        new_store(&w.store)?;
    }
    let details = args.details.as_deref();
    // A version of this question that is not fresh here is replaced only when no one needs it:
    // in a shared store it is a teammate's, in a local one a branch may hold it ([`Versions`]);
    // it keeps its id, and this one takes the next.
    let shared = w.store.is_shared();
    let mut versions = Versions {
        shared,
        branches: None,
    };
    let at = charted_at(&w.store.root, &files, shared);
    let (placement, others, newest) = placed(&mut w, question, &files, &mut versions)?;
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
        Placement::New => {
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
            (
                entry,
                format!("charted {id}{}", own_question_note(&id, &neighbours)),
            )
        }
    };
    // A re-chart without `--details` keeps the details of the newest version of its question,
    // whichever version it replaces or writes beside.
    let entry = match newest {
        Some(details) if args.details.is_none() => Entry { details, ..entry },
        _ => entry,
    };
    // Every entry is checked before any is written: a refusal writes nothing.
    let entry = checked(entry)?;
    let id = entry.id.clone();
    let said = format!("{said}{}", moved_note(&others));
    let said = format!("{said}{}", resolves_note(&w.store, &id, question));
    // Identical charts are identical bytes: nothing to write, no `at:` rewritten, no diff.
    if !(others.is_empty() && unchanged(&w.store, &entry)) {
        write_checked(&mut w, others, entry, &hashed)?;
    }
    let replaced = replace_same_question(&mut w, &id, question, &mut versions)?;
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
struct Versions {
    shared: bool,
    branches: Option<Option<crate::store::branches::Branches>>,
}

impl Versions {
    /// True when `e` (a version of the question being charted) stays.
    fn keeps(
        &mut self,
        root: &std::path::Path,
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
fn unchanged(store: &Store, entry: &Entry) -> bool {
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
fn charted_at(root: &std::path::Path, files: &BTreeMap<String, String>, shared: bool) -> String {
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
    cwd: &std::path::Path,
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

/// Where a question charted with `files` goes ([`placed`]).
enum Placement {
    /// A chart whose `# ` question this is (its id is kept).
    Same(Entry),
    /// A chart this question becomes another phrasing of.
    Phrasing(Entry),
    /// A new entry.
    New,
}

/// Finds where `question` charted with `files` goes: the chart whose question it is; a chart
/// that has it as a phrasing, if that chart has these very files; a current chart with these
/// files and a similar question ([`crate::store::Writer::similar_chart`]); else a new entry. In a
/// chart of this very question that `versions` keeps is left as it is (a new entry is written
/// beside it). A similar chart that already keeps [`crate::store::entry::MAX_PHRASINGS`]
/// others takes no more: a new entry is written. Every other chart that has it as a phrasing
/// loses it (these files answer it now): they come back with the placement,
/// [`checked`], for the caller to write. With them, the details of the newest version of this
/// very question (by `at:`), if there is one: a chart of it that is not kept is the one
/// reused, whichever comes first.
///
/// Errors: such a chart would not read back as written.
fn placed(
    w: &mut crate::store::Writer,
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
fn replace_same_question(
    w: &mut crate::store::Writer,
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
        // The refusal repeats the argument: never one that holds a secret.
        crate::secret::refuse("refusing to chart", &[("an unexpected argument", extra)])?;
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
    if args
        .details
        .as_deref()
        .is_some_and(crate::store::entry::details_hold_phrasings)
    {
        return Err(phrasing_shaped_details("the details"));
    }
    if args.like.is_some() {
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
