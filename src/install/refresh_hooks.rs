//! The `capn refresh` line `capn init --git` adds to git's post-merge, post-rewrite and
//! post-checkout hooks ([`REFRESH_HOOKS`]), so that the index is brought up to date off the
//! agent's path after `git pull` (with or without `--rebase`) or a branch switch brings charts
//! ([`crate::cmd::refresh`]). The hooks are found, checked and edited as the post-commit hook
//! is ([`super::git_hook`]: inside the project, no symlink, a POSIX shell script, the line
//! right after the `#!` line, guarded and in the background); each is recorded in
//! [`super::record::InstallRecord::refresh_hooks`] as the post-commit hook is in `post_commit`, and
//! `uninstall` takes out exactly what `init` put in.

use super::git_hook::{self, AddPlan, REFRESH, REFRESH_HOOKS};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The [`REFRESH_HOOKS`] git runs for the project at `root` (none when capn cannot tell where
/// its hooks are: [`git_hook::hooks_dir`] refuses).
pub(crate) fn paths(root: &Path) -> Vec<PathBuf> {
    git_hook::hooks_dir(root)
        .map(|dir| REFRESH_HOOKS.iter().map(|h| dir.join(h)).collect())
        .unwrap_or_default()
}

/// With `--git`: each of the [`REFRESH_HOOKS`] and what adding [`REFRESH`] to it does,
/// writing nothing.
///
/// Errors: [`git_hook::hooks_dir`]'s and [`git_hook::plan_add_line`]'s refusals (a hook that is
/// not a shell script, not executable...); nothing was written.
pub(crate) fn plan(root: &Path, git: bool) -> Result<Vec<(PathBuf, AddPlan)>> {
    if !git {
        return Ok(Vec::new());
    }
    let dir = git_hook::hooks_dir(root)?;
    REFRESH_HOOKS
        .iter()
        .map(|h| {
            let path = dir.join(h);
            let plan = git_hook::plan_add_line(&path, &REFRESH)?;
            Ok((path, plan))
        })
        .collect()
}
