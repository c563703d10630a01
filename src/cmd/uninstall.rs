//! `capn uninstall`: remove exactly what `capn init` installed, and nothing else.
//!
//! Removes our hook handlers from `.claude/settings.json`, `.claude/settings.local.json` and
//! `.codex/hooks.json` (other handlers and keys stay), puts a wrapped statusline back, removes the
//! bundled skill if it is unmodified, and the `capn prune` line from the post-commit hook. The
//! charts in `.capn/` and the `.gitignore` line are user data and stay (the message says how to
//! remove them). A settings file that does not parse is left untouched and reported.

use crate::cli::UninstallArgs;
use crate::install::{self, git_hook, SettingsFile};
use crate::store::Store;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Runs `capn uninstall`.
pub fn run(_args: &UninstallArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    let root = store.root.clone();
    let mut files = Vec::new();
    for rel in [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".codex/hooks.json",
    ] {
        files.push((rel, SettingsFile::load(&root.join(rel))?));
    }
    let user_statusline = crate::cmd::init::user_statusline_command();
    let mut done = Vec::new();
    for (rel, f) in files.iter_mut() {
        for event in install::unmerge(&mut f.json) {
            done.push(format!("removed the {event} hook from {rel}"));
        }
        if rel.starts_with(".claude") {
            if let Some(what) = install::unmerge_statusline(&mut f.json, user_statusline.as_deref())
            {
                done.push(format!("{what} in {rel}"));
            }
        }
    }
    for (_, f) in &files {
        if f.existed && f.json.is_empty() && f.changed() {
            // Only our registrations were in it: remove the file (and its folder if now empty).
            std::fs::remove_file(&f.path)
                .with_context(|| format!("could not remove {}", f.path.display()))?;
            if let Some(dir) = f.path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        } else {
            f.save()?;
        }
    }
    if let Some(what) = crate::cmd::init::uninstall_skill(&root)? {
        done.push(what);
    }
    if let Some(what) = remove_post_commit_line(&root)? {
        done.push(what);
    }
    let mut out = std::io::stdout().lock();
    if done.is_empty() {
        writeln!(out, "nothing of capn's is installed in {}", root.display())?;
    } else {
        writeln!(out, "capn uninstall in {}:", root.display())?;
        for line in &done {
            writeln!(out, "  {line}")?;
        }
    }
    if store.exists() {
        writeln!(
            out,
            "kept .capn/ (your charts) and its .gitignore line; remove them by hand if you want: rm -rf .capn"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Removes the `capn prune` line `init --git` added, from the hook git runs; deletes the hook
/// file when nothing but our shebang and comment is left.
fn remove_post_commit_line(root: &Path) -> Result<Option<String>> {
    let Ok(path) = git_hook::post_commit_path(root) else {
        return Ok(None);
    };
    let rel = crate::store::display_rel(root, &path);
    Ok(match git_hook::remove(&path, true)? {
        git_hook::Removed::Nothing => None,
        git_hook::Removed::Line => Some(format!("removed capn prune from {rel}")),
        git_hook::Removed::File => Some(format!("removed {rel} (it only ran capn prune)")),
    })
}
