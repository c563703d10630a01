//! `capn uninstall`: remove exactly what `capn init` installed, and nothing else.
//!
//! With an install record (`.capn/install.json`, see [`crate::install::record`]) it removes the
//! recorded items that are still there: each hook handler init added (as added, or edited since:
//! ours, same event and subcommand), the statusline init set (put back as it was; kept when its
//! command was changed since), the skill if unmodified, and the `capn prune` line from the hook
//! file init put it in. A settings file or post-commit hook is deleted only when init created it
//! and nothing else is left in it. The lines `init --shared` took out of the project's
//! `.gitignore` go back (see [`crate::install::shared::put_back_store_lines`]; from a record
//! this user's capn did not sign too, but only lines that ignore the store). Then the record is
//! deleted.
//!
//! Without a record (a project set up by an older capn, a fresh clone, a deleted `.capn/`), or
//! with one this user's capn did not sign (it came with the repository: see
//! [`crate::install::record`]; it is left in place), it cannot prove what init added, so it
//! removes only what is identical to what init writes: handlers equal to the ones in
//! `hooks-config/` under the same event, a statusline command exactly as init writes it, the
//! unmodified bundled skill, the `capn prune` line; it deletes no settings file, and the
//! post-commit hook only when it is exactly the one init creates.
//!
//! The post-commit hook goes back byte for byte to what it was before `init` (a line of the
//! user's that `init` replaced included) while nothing else changed it since; otherwise only
//! capn's lines leave it, every other line with its own line end. The folders the record says
//! `init` created (`.claude/`, `.codex/`, `.gemini/`, `.github/hooks/`, the skill's...) are
//! removed once empty; a folder that was there before `init`, even an empty one, stays (without
//! a record, only the skill's own folder goes).
//!
//! Either way, capn handlers it leaves (hand-written or edited ones) are listed. The charts in
//! `.capn/` are user data and stay, ignored by git through `.capn/.gitignore` (written now for a
//! local store that lacks it, and the `.capn/` line capn 0.3 added to `.gitignore` taken back
//! while it is not committed: see [`crate::install::shared`]), so `git status` is as before
//! `init`; `--purge` deletes `.capn/` too. A settings file that does not parse is left untouched
//! and reported.

use super::more_hosts;
use super::project::{self, PROJECT_SETTINGS};
use super::record::{self, InstallRecord, RecordedPostCommit};
use super::{git_hook, refresh_hooks, shared, SettingsFile};
use crate::store::Store;
use anyhow::{Context, Result};
use std::path::Path;

/// What a `capn uninstall` run did, for its report.
pub(crate) struct Outcome {
    /// One line per removal or restore, in the order made.
    pub done: Vec<String>,
    /// The capn handlers and statuslines left in the settings files, and why.
    pub kept: Vec<String>,
}

/// Removes what `capn init` installed in `store`'s project (see the module docs); with
/// `purge`, `.capn/` too. Plans first: every file read and every edit made in memory before
/// the first write.
///
/// Errors: a refusal before anything was written (a settings file that does not parse or may
/// not be written, a symlinked folder), or a failed write naming the file.
pub(crate) fn uninstall(store: &Store, purge: bool) -> Result<Outcome> {
    store.check_dirs()?;
    let root = store.root.clone();
    project::check_project_paths(&root)?;
    // Writers of .capn/ hold the lock: the install record is read, then deleted.
    let lock = store.lock_for_setup()?;
    // Plan first: every file read and every edit made in memory before the first write.
    let mut done = Vec::new();
    let (rec, foreign, foreign_gitignore) = trusted_record(&root, &mut done);
    let mut files = Vec::new();
    for rel in PROJECT_SETTINGS {
        files.push((rel, load_settings(&root, rel, rec.as_ref(), &mut done)?));
    }
    check_readable(&root, rec.as_ref())?;
    let deletions = match &rec {
        Some(rec) => edit_recorded(rec, &mut files, &mut done)?,
        None => edit_unrecorded(&mut files, &mut done)?,
    };
    write_settings(&files, &deletions)?;
    match &rec {
        Some(rec) => undo_recorded_files(rec, &root, &mut done)?,
        None => undo_unrecorded_files(&root, &mut done)?,
    }
    let mut kept = kept_lines(&files, rec.is_some());
    if rec.is_none() && !foreign && !(done.is_empty() && kept.is_empty()) {
        done.insert(
            0,
            "no install record (.capn/install.json; a project set up by an older capn has \
             none): only what is identical to what capn init writes is removed, and no \
             settings file is deleted"
                .to_string(),
        );
    }
    if let Some(rec) = &rec {
        remove_created_dirs(&root, &rec.created_dirs);
    }
    // The lines init --shared took out of .gitignore (from a record not this user's, only those
    // that ignore the store: shared::restorable).
    if let Some(taken) = rec.as_ref().and_then(|r| r.gitignore.as_ref()) {
        done.extend(put_back_gitignore(&root, taken)?);
    } else if let Some(taken) = &foreign_gitignore {
        done.extend(put_back_gitignore(&root, taken)?);
    }
    if !foreign {
        record::remove(&root)?;
    }
    if purge {
        drop(lock);
        // The linked worktrees' install records live in this store: before --purge deletes
        // them, each worktree gets its uninstall (after this checkout's, which refuses before
        // writing anything; with the lock released, as they take it too).
        if !store.is_borrowed() {
            let (wt_done, mut wt_kept) = uninstall_worktrees(store).map_err(|e| {
                e.context(
                    "capn was uninstalled from this checkout, but .capn/ was kept for the \
                     worktree that refused: fix it, then run capn uninstall --purge again",
                )
            })?;
            done.extend(wt_done);
            kept.append(&mut wt_kept);
        }
        done.extend(purge_store(store)?);
    } else {
        let from_0_3 = rec.as_ref().is_some_and(InstallRecord::written_by_0_3);
        done.extend(hide_store(store, from_0_3)?);
    }
    Ok(Outcome { done, kept })
}

/// Reads the other files uninstall may touch, so that one it cannot read (a FIFO, a symlink)
/// refuses now rather than after the settings were written: the skill, and only the git hooks
/// the record `rec` says capn wrote to (another, a symlink into the user's scripts folder, is
/// skipped with a note later, never a reason to refuse).
///
/// Errors: such a file, named, saying that nothing was changed ([`nothing_changed`]).
fn check_readable(root: &Path, rec: Option<&InstallRecord>) -> Result<()> {
    super::skill::read_skill(root).map_err(nothing_changed)?;
    if let Ok(path) = git_hook::post_commit_path(root) {
        if rec
            .and_then(|r| r.post_commit.as_ref())
            .is_some_and(|pc| pc.names(root, &path))
        {
            crate::fsutil::read_host_file(&path, "post-commit hook").map_err(nothing_changed)?;
        }
    }
    for path in refresh_hooks::paths(root) {
        if rec.is_some_and(|r| r.refresh_hooks.iter().any(|h| h.names(root, &path))) {
            crate::fsutil::read_host_file(&path, &git_hook::hook_label(&path))
                .map_err(nothing_changed)?;
        }
    }
    Ok(())
}

/// `e`, a refusal found while planning, saying that nothing was changed (and what to do).
fn nothing_changed(e: anyhow::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "{e:#}; uninstall changed nothing (make it a regular file capn may read, or remove \
         it, then run capn uninstall again)"
    )
}

/// Uninstalls capn from each linked worktree of `store`'s repository that has an install
/// record in `store` (`.capn/worktrees/<name>/install.json`), as `capn uninstall` there would,
/// so that `--purge` in the main checkout, which deletes those records, leaves no worktree with
/// registrations nothing records. Returns what was done and kept, each line naming its
/// worktree.
///
/// Errors: the first worktree's uninstall that failed (the store is not purged then).
fn uninstall_worktrees(store: &Store) -> Result<(Vec<String>, Vec<String>)> {
    let (mut done, mut kept) = (Vec::new(), Vec::new());
    for wt in crate::store::worktree::other_checkouts(&store.root, &store.root) {
        let theirs = Store::at(wt.clone());
        if !theirs.is_borrowed() || !record::record_path(&wt).is_file() {
            continue;
        }
        let name = crate::present::printable(&wt.display().to_string());
        let o = uninstall(&theirs, false)
            .with_context(|| format!("could not uninstall capn from the worktree {name}"))?;
        if !o.done.is_empty() {
            done.push(format!(
                "uninstalled capn from the linked worktree {name} first ({} change{}, as capn uninstall there makes them), since --purge deletes its install record",
                o.done.len(),
                if o.done.len() == 1 { "" } else { "s" }
            ));
        }
        kept.extend(
            o.kept
                .iter()
                .map(|l| format!("in the worktree {name}: {l}")),
        );
    }
    Ok((done, kept))
}

/// Loads the settings file `rel`. Claude Code's and Codex's must parse (a broken one stops
/// `uninstall` with nothing changed, as before). Another host's file that does not parse and that
/// the record names nothing in is left alone (said in `done`): it is no reason to keep capn's
/// handlers in the others.
///
/// Errors: [`SettingsFile::load`]'s.
fn load_settings(
    root: &Path,
    rel: &str,
    rec: Option<&InstallRecord>,
    done: &mut Vec<String>,
) -> Result<SettingsFile> {
    let path = root.join(rel);
    let host = project::host_of_file(rel);
    match SettingsFile::load(&path) {
        Ok(f) => Ok(f),
        Err(e)
            if crate::hosts::of(host).setup != crate::hosts::Setup::Always
                && !rec.is_some_and(|r| r.touches(rel) || r.created(rel)) =>
        {
            done.push(format!("left {rel} alone: {e:#}"));
            SettingsFile::from_bytes(&path, None)
        }
        Err(e) => Err(e),
    }
}

/// Removes the folders `init` created (`dirs`, parents first, relative to `root`), deepest
/// first, each only when it is an empty real folder (never through a symlink).
fn remove_created_dirs(root: &Path, dirs: &[String]) {
    for d in dirs.iter().rev() {
        let path = root.join(d);
        if crate::fsutil::check_inside(root, &path).is_ok()
            && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
        {
            // Fails, and keeps the folder, when something is in it.
            let _ = std::fs::remove_dir(&path);
        }
    }
}

/// Keeps a local store that stays out of git's sight: `.capn/.gitignore` written when it lacks
/// one, and, when `from_0_3` (this user's install record was written by capn 0.3), the `.capn/`
/// line 0.3 added to `.gitignore` taken back (see [`super::shared`]). A shared store
/// is left as it is. Returns what it did.
///
/// Errors: a file cannot be read, written or removed.
fn hide_store(store: &Store, from_0_3: bool) -> Result<Vec<String>> {
    let mut done = Vec::new();
    if !store.exists() || store.is_borrowed() || store.is_shared() {
        return Ok(done);
    }
    let path = store.dir.join(".gitignore");
    if let shared::StoreIgnore::Write(text) = shared::plan_store_ignore(&path, false)? {
        crate::fsutil::write_atomic(&path, text.as_bytes())?;
        done.push("wrote .capn/.gitignore: git ignores the charts kept in .capn/".to_string());
    }
    if !from_0_3 {
        return Ok(done);
    }
    // A .gitignore capn cannot read (a FIFO, a symlink) is left alone: it is the user's.
    let plan = match shared::plan_legacy(&store.root) {
        Ok(plan) => plan,
        Err(e) => {
            done.push(format!("left .gitignore as it is: {e:#}"));
            return Ok(done);
        }
    };
    let deleted = plan == shared::RootIgnore::Delete;
    if shared::apply_root(&store.root, &plan)? {
        done.push(if deleted {
            "removed .gitignore: it held only the .capn/ line capn 0.3 added".to_string()
        } else {
            "took the .capn/ line capn 0.3 added out of .gitignore".to_string()
        });
    }
    Ok(done)
}

/// Puts back into the project's `.gitignore` the lines `init --shared` took out (`taken`; see
/// [`shared::plan_put_back`]). Returns what it did; a `.gitignore` capn cannot read (a FIFO, a
/// symlink) is left alone, and said so.
///
/// Errors: the file cannot be written.
fn put_back_gitignore(root: &Path, taken: &record::RecordedGitignore) -> Result<Vec<String>> {
    let (plan, said) = match shared::plan_put_back(root, taken) {
        Ok(planned) => planned,
        Err(e) => {
            return Ok(vec![format!(
                "left .gitignore as it is, without the .capn/ line capn init --shared took out: \
                 {e:#}"
            )])
        }
    };
    shared::apply_root(root, &plan)?;
    Ok(said.into_iter().collect())
}

/// `--purge`: deletes the store folder (in a linked worktree using the main checkout's store,
/// only this worktree's own folder in it). Returns what it did.
///
/// Errors: the folder cannot be removed.
fn purge_store(store: &Store) -> Result<Vec<String>> {
    let target = if store.is_borrowed() {
        &store.local
    } else {
        &store.dir
    };
    // A symlinked .capn/ was refused before anything was done (check_dirs); remove_dir_all
    // never follows a symlink inside.
    if std::fs::symlink_metadata(target).is_err() {
        return Ok(Vec::new());
    }
    // Asked before the store's files are gone.
    let committed = store.shared_in_git() == Some(true);
    std::fs::remove_dir_all(target)
        .with_context(|| format!("could not remove {}", target.display()))?;
    Ok(vec![if store.is_borrowed() {
        format!(
            "removed this worktree's folder {} (the charts are the main checkout's: run capn uninstall --purge there)",
            target.display()
        )
    } else if committed {
        "removed .capn/ (--purge); its committed charts show as deleted in git status until you commit or restore them".to_string()
    } else {
        "removed .capn/ (--purge): the charts are gone".to_string()
    }])
}

/// The install record to act on, if there is one this user's capn wrote for this project;
/// whether there was one that is not (a foreign record: trusted for nothing, and kept); and the
/// `.gitignore` lines such a record says `init --shared` took out (of which only lines that
/// ignore the store are ever put back). What is wrong with one that is not used is said in
/// `done`.
fn trusted_record(
    root: &Path,
    done: &mut Vec<String>,
) -> (
    Option<InstallRecord>,
    bool,
    Option<record::RecordedGitignore>,
) {
    match record::load(root) {
        record::Loaded::Found(r) => (Some(r), false, None),
        record::Loaded::Missing => (None, false, None),
        record::Loaded::Unreadable(why) => {
            done.push(format!("could not read the install record: {why}"));
            (None, false, None)
        }
        record::Loaded::Foreign(why, gitignore) => {
            // Not this user's (module docs of super::record): trusted for nothing, and kept.
            done.push(format!(
                "ignored the install record .capn/install.json and left it in place: {why} \
                 (capn trusts only a record capn init wrote for you in this project; this one may \
                 have come with the repository)"
            ));
            (None, true, gitignore)
        }
    }
}

/// Writes the edited settings files, after checking that every one may be written (nothing is
/// written when one may not); deletes those in `deletions` (and their folder when left empty).
fn write_settings(files: &[(&str, SettingsFile)], deletions: &[std::path::PathBuf]) -> Result<()> {
    for (_, f) in files {
        if let Some(why) = f.refusal() {
            anyhow::bail!(why);
        }
    }
    for (_, f) in files {
        if deletions.contains(&f.path) {
            // init created it and nothing else is in it: remove it (and its folder if empty).
            // Its folder goes only when init made it (remove_created_dirs).
            std::fs::remove_file(&f.path)
                .with_context(|| format!("could not remove {}", f.path.display()))?;
        } else {
            f.save()?;
        }
    }
    Ok(())
}

/// The lines naming capn handlers and statuslines left in the files (written by hand, or edited
/// so that they are not as init wrote them).
fn kept_lines(files: &[(&str, SettingsFile)], recorded: bool) -> Vec<String> {
    let mut kept = Vec::new();
    let why_kept = if recorded {
        "capn init did not add it"
    } else {
        "not as capn init writes it"
    };
    for (rel, f) in files {
        for (event, _) in super::ours_in(&f.json) {
            let line = format!("kept the {event} hook in {rel}: {why_kept}");
            if !kept.contains(&line) {
                kept.push(line);
            }
        }
        let statusline = super::statusline_command(&f.json);
        if statusline.is_some_and(super::is_our_statusline) {
            kept.push(format!(
                "kept the capn statusline in {rel}: {}",
                if recorded {
                    "capn init did not set it as it is now"
                } else {
                    why_kept
                }
            ));
        }
    }
    kept
}

/// Edits (in memory) the settings files as the record says (see the module docs). Returns the
/// files to delete (init created them and nothing else is in them).
fn edit_recorded(
    rec: &InstallRecord,
    files: &mut [(&str, SettingsFile)],
    done: &mut Vec<String>,
) -> Result<Vec<std::path::PathBuf>> {
    for h in &rec.handlers {
        let Some((rel, f)) = files.iter_mut().find(|(rel, _)| *rel == h.file) else {
            continue;
        };
        let line = match super::remove_recorded_handler(f, &h.event, &h.handler) {
            Some(super::Found::Exact) => format!("removed the {} hook from {rel}", h.event),
            Some(super::Found::Edited) => format!(
                "removed the {} hook from {rel} (edited since capn init added it)",
                h.event
            ),
            None => continue,
        };
        if !done.contains(&line) {
            done.push(line);
        }
    }
    for s in &rec.statuslines {
        let Some((rel, f)) = files.iter_mut().find(|(rel, _)| *rel == s.file) else {
            continue;
        };
        // A statusline whose command changed since is kept (listed below when it is ours).
        if let Some(what) = super::restore_statusline(f, s.before.as_ref(), &s.after) {
            done.push(format!("{what} in {rel}"));
        }
    }
    for (file, rule) in &rec.allow {
        let Some((rel, f)) = files.iter_mut().find(|(rel, _)| *rel == file) else {
            continue;
        };
        let value = serde_json::Value::from(rule.as_str());
        let prune = rec.allow_made.contains(file);
        if f.remove_from_top_array("permissions", "allow", &value, prune) {
            done.push(format!("removed the allow rule {rule} from {rel}"));
        }
    }
    for r in &rec.replaced {
        let Some((rel, f)) = files.iter_mut().find(|(rel, _)| *rel == r.file) else {
            continue;
        };
        if super::put_back(f, &r.event, r.matcher.as_ref(), &r.handler, r.position) {
            let what = r.handler.get("command").and_then(serde_json::Value::as_str);
            done.push(format!(
                "put back the older capn registration {:?} of {} in {rel}",
                what.unwrap_or(""),
                r.event
            ));
        }
    }
    let mut deletions = Vec::new();
    for (rel, f) in files.iter_mut() {
        // Nothing else changed the file since init: its bytes from before init, exactly.
        match rec.restorable(rel, f.original_bytes()) {
            Some(None) => deletions.push(f.path.clone()),
            Some(Some(before)) => {
                if let Err(e) = f.replace_all(before.as_bytes()) {
                    done.push(format!("{e:#}"));
                }
            }
            None if f.existed() && f.json.is_empty() && rec.created(rel) => {
                deletions.push(f.path.clone())
            }
            None => {}
        }
    }
    Ok(deletions)
}

/// Removes the skill and the post-commit line the record names.
fn undo_recorded_files(rec: &InstallRecord, root: &Path, done: &mut Vec<String>) -> Result<()> {
    if rec.skill {
        done.extend(remove_skill(root)?);
        if rec.created_dirs.is_empty() {
            // A record of a capn that did not list the folders it made: only the skill's own.
            super::skill::remove_own_folder(root);
        }
    }
    for file in more_hosts::OWN_FILES.iter().filter(|f| rec.created(f.rel)) {
        done.extend(more_hosts::remove_own(root, file)?);
    }
    if let Some(pc) = &rec.post_commit {
        let current = git_hook::post_commit_path(root).ok();
        undo_recorded_hook(root, pc, current, &git_hook::PRUNE, done)?;
    }
    undo_recorded_refresh(rec, root, done)?;
    Ok(())
}

/// Takes the line `hl` out of the hook `current` (the one git runs for the project now) as the
/// record `pc` says: the hook is put back byte for byte while it is what `init` left, else only
/// capn's lines go (the file too when `init` created it and nothing else is left).
///
/// Errors: the hook is a symlink or special file, or cannot be read, written or removed.
pub(super) fn undo_recorded_hook(
    root: &Path,
    pc: &RecordedPostCommit,
    current: Option<std::path::PathBuf>,
    hl: &git_hook::HookLine,
    done: &mut Vec<String>,
) -> Result<()> {
    // Only ever this project's hook as git runs it now: the recorded path is a check, not a
    // target (a moved project's record names another project's hook; see RecordedPostCommit).
    let label = git_hook::hook_label(&pc.path);
    let created = match &current {
        Some(cur) if pc.names(root, cur) => pc.created,
        _ => {
            done.push(format!(
                "ignored the {label} named in the install record ({}): it is not this \
                 project's hook (was the project moved?)",
                pc.resolve(root).display()
            ));
            // As without a record: deleted only when it is exactly the hook init creates.
            current.as_ref().is_some_and(|p| {
                crate::fsutil::read_host_file(p, &label).is_ok_and(|t| {
                    t.as_deref()
                        .is_some_and(|t| git_hook::is_created_text(t, hl))
                })
            })
        }
    };
    let Some(cur) = current else {
        return Ok(());
    };
    let restored = match &pc.after_sha256 {
        Some(after) if pc.names(root, &cur) => {
            let before = if pc.created {
                None
            } else {
                pc.before.as_deref()
            };
            git_hook::restore(&cur, before, after)?
        }
        _ => false,
    };
    let rel = crate::store::display_rel(root, &cur);
    if restored && pc.created {
        done.push(format!("removed {rel} (capn init created it)"));
    } else if restored {
        done.push(format!("put {rel} back as it was before capn init"));
    } else {
        done.extend(remove_hook_line(root, &cur, hl, created)?);
    }
    Ok(())
}

/// Takes the [`git_hook::REFRESH`] line out of each hook `rec` says `init --git` put it in (only this
/// project's hooks as git runs them now; see [`undo_recorded_hook`]).
///
/// Errors: a hook cannot be read, written or removed.
fn undo_recorded_refresh(rec: &InstallRecord, root: &Path, done: &mut Vec<String>) -> Result<()> {
    for recorded in &rec.refresh_hooks {
        let current = recorded.path.file_name().and_then(|name| {
            refresh_hooks::paths(root)
                .into_iter()
                .find(|p| p.file_name() == Some(name))
        });
        undo_recorded_hook(root, recorded, current, &git_hook::REFRESH, done)?;
    }
    Ok(())
}

/// Without a record: takes the [`git_hook::REFRESH`] line out of each of the hooks, deleting a hook only
/// when it is exactly the one `init` creates.
///
/// Errors: a hook cannot be read, written or removed.
fn undo_unrecorded_refresh(root: &Path, done: &mut Vec<String>) -> Result<()> {
    for path in refresh_hooks::paths(root) {
        if let Some(text) = readable_hook(root, &path, done) {
            let created = text
                .as_deref()
                .is_some_and(|t| git_hook::is_created_text(t, &git_hook::REFRESH));
            done.extend(remove_hook_line(root, &path, &git_hook::REFRESH, created)?);
        }
    }
    Ok(())
}

/// The bytes of the git hook at `path` (`None` inside: no such hook), or `None` with a note in
/// `done` when capn may not read it (a symlink, a FIFO, ...): such a hook holds no line of
/// capn's (capn never writes through one), so it is left as it is rather than stopping the
/// uninstall.
fn readable_hook(root: &Path, path: &Path, done: &mut Vec<String>) -> Option<Option<Vec<u8>>> {
    match crate::fsutil::read_host_file(path, &git_hook::hook_label(path)) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            let rel = crate::store::display_rel(root, path);
            done.push(format!("left {rel} alone: {e:#}"));
            None
        }
    }
}
/// Edits (in memory) the settings files, removing only what is identical to what `init` writes
/// (see the module docs). Deletes no file.
fn edit_unrecorded(
    files: &mut [(&str, SettingsFile)],
    done: &mut Vec<String>,
) -> Result<Vec<std::path::PathBuf>> {
    let user_statusline = project::user_statusline_command();
    for (rel, f) in files.iter_mut() {
        let host = project::host_of_file(rel);
        for event in super::remove_table_handlers(crate::hosts::of(host).table, f)? {
            done.push(format!("removed the {event} hook from {rel}"));
        }
        let spec = crate::hosts::of(host);
        if spec.context == crate::hosts::ContextSource::StatusLine {
            if let Some(what) = super::unmerge_statusline(f, user_statusline.as_deref()) {
                done.push(format!("{what} in {rel}"));
            }
        }
        if spec.allow_rules {
            for rule in super::allow::remove(f, true) {
                done.push(format!("removed the allow rule {rule} from {rel}"));
            }
        }
    }
    Ok(Vec::new())
}

/// Removes the unmodified skill and the `capn prune` line. No folder goes but the skill's own
/// (nothing says which others `init` made).
fn undo_unrecorded_files(root: &Path, done: &mut Vec<String>) -> Result<()> {
    done.extend(remove_skill(root)?);
    super::skill::remove_own_folder(root);
    // Only exactly what init writes is deleted.
    for file in &more_hosts::OWN_FILES {
        done.extend(more_hosts::remove_own(root, file)?);
    }
    if let Ok(path) = git_hook::post_commit_path(root) {
        if let Some(text) = readable_hook(root, &path, done) {
            let created = text.as_deref().is_some_and(git_hook::is_created_hook_text);
            done.extend(remove_hook_line(root, &path, &git_hook::PRUNE, created)?);
        }
    }
    undo_unrecorded_refresh(root, done)?;
    Ok(())
}

/// Removes the bundled skill if it is unmodified ([`super::skill::remove_bundled`]).
/// Returns what it did.
///
/// Errors: the file cannot be read or removed.
fn remove_skill(root: &Path) -> Result<Option<String>> {
    use super::skill::{remove_bundled, skill_path, Removed};
    let rel = crate::store::display_rel(root, &skill_path(root));
    Ok(match remove_bundled(root)? {
        Removed::Nothing => None,
        Removed::Bundled => Some(format!("removed the /compact-prep skill from {rel}")),
        Removed::Kept => Some(format!(
            "kept {rel}: it was changed after capn init installed it"
        )),
    })
}

/// Removes the line `hl` from the hook at `path`; deletes the file when `created` (init created
/// it) and nothing but our shebang and comment is left. Returns what it did.
///
/// Errors: as [`git_hook::remove_line`].
pub(super) fn remove_hook_line(
    root: &Path,
    path: &Path,
    hl: &git_hook::HookLine,
    created: bool,
) -> Result<Option<String>> {
    let rel = crate::store::display_rel(root, path);
    let cmd = hl.command;
    Ok(match git_hook::remove_line(path, hl, created)? {
        git_hook::Removed::Nothing => None,
        git_hook::Removed::Line => Some(format!("removed {cmd} from {rel}")),
        git_hook::Removed::Comment => Some(format!(
            "removed capn's comment from {rel} (its {cmd} line was already gone)"
        )),
        git_hook::Removed::File => Some(format!("removed {rel} (it only ran {cmd})")),
    })
}
