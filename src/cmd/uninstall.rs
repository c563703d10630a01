//! `capn uninstall`: remove exactly what `capn init` installed, and nothing else.
//!
//! With an install record (`.capn/install.json`, see [`crate::install::record`]) it removes the
//! recorded items that are still there: each hook handler init added (as added, or edited since:
//! ours, same event and subcommand), the statusline init set (put back as it was; kept when its
//! command was changed since), the skill if unmodified, and the `capn prune` line from the hook
//! file init put it in. A settings file or post-commit hook is deleted only when init created it
//! and nothing else is left in it. Then the record is deleted.
//!
//! Without a record (a project set up by an older capn, a fresh clone, a deleted `.capn/`), or
//! with one this user's capn did not sign (it came with the repository: see
//! [`crate::install::record`]; it is left in place), it cannot prove what init added, so it
//! removes only what is identical to what init writes: handlers equal to the ones in
//! `hooks-config/` under the same event, a statusline command exactly as init writes it, the
//! unmodified bundled skill, the `capn prune` line; it deletes no settings file, and the
//! post-commit hook only when it is exactly the one init creates.
//!
//! Either way, capn handlers it leaves (hand-written or edited ones) are listed. The charts in
//! `.capn/` and the `.gitignore` line are user data and stay (the message says how to remove
//! them). A settings file that does not parse is left untouched and reported.

use crate::cli::UninstallArgs;
use crate::install::project::{self, CODEX_HOOKS, PROJECT_SETTINGS};
use crate::install::record::{self, InstallRecord};
use crate::install::{self, git_hook, SettingsFile};
use crate::store::Store;
use anyhow::{Context, Result};
use std::path::Path;
use std::process::ExitCode;

/// Runs `capn uninstall`.
pub fn run(_args: &UninstallArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    store.check_dirs()?;
    let root = store.root.clone();
    project::check_project_paths(&root)?;
    // Writers of .capn/ hold the lock: the install record is read, then deleted.
    let _lock = store.lock_for_setup()?;
    // Plan first: every file read and every edit made in memory before the first write.
    let mut files = Vec::new();
    for rel in PROJECT_SETTINGS {
        files.push((rel, SettingsFile::load(&root.join(rel))?));
    }
    let mut done = Vec::new();
    let (rec, foreign) = trusted_record(&root, &mut done);
    // The other files uninstall may touch: refused now (a FIFO, a symlink) rather than after the
    // settings were written.
    crate::install::skill::read_skill(&root)?;
    if let Ok(path) = git_hook::post_commit_path(&root) {
        crate::fsutil::read_host_file(&path, "post-commit hook")?;
    }
    let deletions = match &rec {
        Some(rec) => edit_recorded(rec, &mut files, &mut done)?,
        None => edit_unrecorded(&mut files, &mut done)?,
    };
    write_settings(&files, &deletions)?;
    match &rec {
        Some(rec) => undo_recorded_files(rec, &root, &mut done)?,
        None => undo_unrecorded_files(&root, &mut done)?,
    }
    let kept = kept_lines(&files, rec.is_some());
    if rec.is_none() && !foreign && !(done.is_empty() && kept.is_empty()) {
        done.insert(
            0,
            "no install record (.capn/install.json; a project set up by an older capn has \
             none): only what is identical to what capn init writes is removed, and no \
             settings file is deleted"
                .to_string(),
        );
    }
    if !foreign {
        record::remove(&root)?;
    }
    report(&store, &done, &kept)?;
    Ok(ExitCode::SUCCESS)
}

/// The install record to act on, if there is one this user's capn wrote for this project, and
/// whether there was one that is not (a foreign record: trusted for nothing, and kept). What is
/// wrong with one that is not used is said in `done`.
fn trusted_record(root: &Path, done: &mut Vec<String>) -> (Option<InstallRecord>, bool) {
    match record::load(root) {
        record::Loaded::Found(r) => (Some(r), false),
        record::Loaded::Missing => (None, false),
        record::Loaded::Unreadable(why) => {
            done.push(format!("could not read the install record: {why}"));
            (None, false)
        }
        record::Loaded::Foreign(why) => {
            // Not this user's (module docs of install::record): trusted for nothing, and kept.
            done.push(format!(
                "ignored the install record .capn/install.json and left it in place: {why} \
                 (capn trusts only a record capn init wrote for you in this project; this one may \
                 have come with the repository)"
            ));
            (None, true)
        }
    }
}

/// Prints what was removed (`done`) and kept, and that the charts stay.
fn report(store: &Store, done: &[String], kept: &[String]) -> Result<()> {
    let root = &store.root;
    use std::fmt::Write as _;
    let mut out = String::new();
    if done.is_empty() && kept.is_empty() {
        writeln!(out, "nothing of capn's is installed in {}", root.display())?;
    } else {
        writeln!(out, "capn uninstall in {}:", root.display())?;
        for line in done.iter().chain(kept) {
            writeln!(out, "  {line}")?;
        }
        if !kept.is_empty() {
            writeln!(
                out,
                "  (remove the kept hooks by hand if you want them gone: capn doctor lists them)"
            )?;
        }
    }
    if store.exists() {
        writeln!(
            out,
            "kept .capn/ (your charts) and its .gitignore line; remove them by hand if you want: rm -rf .capn"
        )?;
    }
    crate::present::print(&out)?;
    Ok(())
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
            std::fs::remove_file(&f.path)
                .with_context(|| format!("could not remove {}", f.path.display()))?;
            if let Some(dir) = f.path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
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
        for (event, _) in install::ours_in(&f.json) {
            let line = format!("kept the {event} hook in {rel}: {why_kept}");
            if !kept.contains(&line) {
                kept.push(line);
            }
        }
        let statusline = install::statusline_command(&f.json);
        if statusline.is_some_and(install::is_our_statusline) {
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
        let line = match install::remove_recorded_handler(f, &h.event, &h.handler) {
            Some(install::Found::Exact) => format!("removed the {} hook from {rel}", h.event),
            Some(install::Found::Edited) => format!(
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
        if let Some(what) = install::restore_statusline(f, s.before.as_ref(), &s.after) {
            done.push(format!("{what} in {rel}"));
        }
    }
    for r in &rec.replaced {
        let Some((rel, f)) = files.iter_mut().find(|(rel, _)| *rel == r.file) else {
            continue;
        };
        if install::put_back(f, &r.event, r.matcher.as_ref(), &r.handler, r.position) {
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
    }
    if let Some(pc) = &rec.post_commit {
        // Only ever this project's hook as git runs it now: the recorded path is a check, not a
        // target (a moved project's record names another project's hook; see RecordedPostCommit).
        let current = git_hook::post_commit_path(root).ok();
        let created = match &current {
            Some(cur) if pc.names(root, cur) => pc.created,
            _ => {
                done.push(format!(
                    "ignored the post-commit hook named in the install record ({}): it is not \
                     this project's hook (was the project moved?)",
                    pc.resolve(root).display()
                ));
                // As without a record: deleted only when it is exactly the hook init creates.
                current.as_ref().is_some_and(|p| {
                    crate::fsutil::read_host_file(p, "post-commit hook")
                        .is_ok_and(|t| t.as_deref().is_some_and(git_hook::is_created_hook_text))
                })
            }
        };
        if let Some(cur) = current {
            done.extend(remove_post_commit_line(root, &cur, created)?);
        }
    }
    Ok(())
}

/// Edits (in memory) the settings files, removing only what is identical to what `init` writes
/// (see the module docs). Deletes no file.
fn edit_unrecorded(
    files: &mut [(&str, SettingsFile)],
    done: &mut Vec<String>,
) -> Result<Vec<std::path::PathBuf>> {
    let user_statusline = project::user_statusline_command();
    for (rel, f) in files.iter_mut() {
        let table = if *rel == CODEX_HOOKS {
            crate::hosts::CODEX_TABLE
        } else {
            crate::hosts::CLAUDE_TABLE
        };
        for event in install::remove_table_handlers(table, f)? {
            done.push(format!("removed the {event} hook from {rel}"));
        }
        if *rel != CODEX_HOOKS {
            if let Some(what) = install::unmerge_statusline(f, user_statusline.as_deref()) {
                done.push(format!("{what} in {rel}"));
            }
        }
    }
    Ok(Vec::new())
}

/// Removes the unmodified skill and the `capn prune` line.
fn undo_unrecorded_files(root: &Path, done: &mut Vec<String>) -> Result<()> {
    done.extend(remove_skill(root)?);
    if let Ok(path) = git_hook::post_commit_path(root) {
        let created = crate::fsutil::read_host_file(&path, "post-commit hook")
            .is_ok_and(|t| t.as_deref().is_some_and(git_hook::is_created_hook_text));
        done.extend(remove_post_commit_line(root, &path, created)?);
    }
    Ok(())
}

/// Removes the bundled skill if it is unmodified ([`crate::install::skill::remove_bundled`]).
/// Returns what it did.
///
/// Errors: the file cannot be read or removed.
fn remove_skill(root: &Path) -> Result<Option<String>> {
    use crate::install::skill::{remove_bundled, skill_path, Removed};
    let rel = crate::store::display_rel(root, &skill_path(root));
    Ok(match remove_bundled(root)? {
        Removed::Nothing => None,
        Removed::Bundled => Some(format!("removed the /compact-prep skill from {rel}")),
        Removed::Kept => Some(format!(
            "kept {rel}: it was changed after capn init installed it"
        )),
    })
}

/// Removes the `capn prune` line from the hook at `path`; deletes the file when `created` (init
/// created it) and nothing but our shebang and comment is left.
fn remove_post_commit_line(root: &Path, path: &Path, created: bool) -> Result<Option<String>> {
    let rel = crate::store::display_rel(root, path);
    Ok(match git_hook::remove(path, created)? {
        git_hook::Removed::Nothing => None,
        git_hook::Removed::Line => Some(format!("removed capn prune from {rel}")),
        git_hook::Removed::File => Some(format!("removed {rel} (it only ran capn prune)")),
    })
}
