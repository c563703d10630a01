//! The `capn refresh` line `capn init --git` adds to git's post-merge, post-rewrite and
//! post-checkout hooks ([`REFRESH_HOOKS`]), so that the index is brought up to date off the
//! agent's path after `git pull` (with or without `--rebase`) or a branch switch brings charts
//! ([`crate::cmd::refresh`]). The hooks are found, checked and edited as the post-commit hook
//! is ([`super::git_hook`]: inside the project, no symlink, a POSIX shell script, the line
//! right after the `#!` line, guarded and in the background); each is recorded in
//! [`super::record::InstallRecord::refresh_hooks`] as the post-commit hook is in `post_commit`, and
//! `uninstall` takes out exactly what `init` put in.

use super::git_hook::{self, AddPlan, HookFile, REFRESH, REFRESH_HOOKS};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The [`REFRESH_HOOKS`] git runs for the project at `root` (none when capn cannot tell where
/// its hooks are: [`git_hook::hooks_dir`] refuses).
pub(crate) fn paths(root: &Path) -> Vec<PathBuf> {
    git_hook::hooks_dir(root)
        .map(|dir| REFRESH_HOOKS.iter().map(|h| dir.join(h)).collect())
        .unwrap_or_default()
}

/// With `--git`: each of the [`REFRESH_HOOKS`] that can take the [`REFRESH`] line and what
/// adding it does, writing nothing. A hook that cannot take a shell line ([`cannot_take`]: the
/// user's Python hook, a disabled one, a symlink) is left as it is with a note in `done`
/// instead of refusing the whole `init`: the refresh only saves time (the first `capn ask` after
/// a pull indexes what the pull brought), unlike the post-commit line, which `--git` is asked for.
///
/// Errors: [`git_hook::hooks_dir`]'s refusals; nothing was written.
pub(crate) fn plan(
    root: &Path,
    git: bool,
    done: &mut Vec<String>,
) -> Result<Vec<(PathBuf, AddPlan)>> {
    if !git {
        return Ok(Vec::new());
    }
    let dir = git_hook::hooks_dir(root)?;
    let mut plans = Vec::new();
    for h in REFRESH_HOOKS {
        let path = dir.join(h);
        // Read once: the same look decides skipping and planning.
        let file = match git_hook::examine(&path, &REFRESH) {
            Ok(HookFile::Unfit(unfit)) => Err(unfit.phrase()),
            Ok(file) => Ok(file),
            Err(e) => Err(format!("cannot be read ({e:#})")),
        };
        match file {
            Ok(file) => plans.push((path.clone(), git_hook::plan_for(&path, &REFRESH, file)?)),
            Err(why) => done.push(format!(
                "left {} as it is: it {why}, so it cannot run capn refresh (the first capn ask after a pull indexes what the pull brought instead)",
                crate::store::display_rel(root, &path)
            )),
        }
    }
    Ok(plans)
}

/// Why the hook at `path` cannot take capn's shell line, as a phrase after "it" (`runs with
/// python3, not a POSIX shell`); `None` when it can (or does not exist yet): what
/// [`git_hook::examine`] finds, a hook it cannot read included.
pub(crate) fn cannot_take(path: &Path) -> Option<String> {
    match git_hook::examine(path, &REFRESH) {
        Ok(HookFile::Unfit(unfit)) => Some(unfit.phrase()),
        Ok(_) => None,
        Err(e) => Some(format!("cannot be read ({e:#})")),
    }
}
