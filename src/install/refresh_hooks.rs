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

/// With `--git`: each of the [`REFRESH_HOOKS`] that can take the [`REFRESH`] line and what
/// adding it does, writing nothing. A hook that cannot take a shell line ([`cannot_take`]: the
/// user's Python hook, a disabled one, a symlink) is left as it is with a note in `done`
/// instead of refusing the whole `init`: the refresh only saves time (the first `capn ask` after
/// a pull indexes what the pull brought), unlike the post-commit line, which `--git` is asked for.
///
/// Errors: [`git_hook::hooks_dir`]'s refusals and [`git_hook::plan_add_line`]'s read errors;
/// nothing was written.
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
        if let Some(why) = cannot_take(&path) {
            done.push(format!(
                "left {} as it is: it {why}, so it cannot run capn refresh (the first capn ask after a pull indexes what the pull brought instead)",
                crate::store::display_rel(root, &path)
            ));
            continue;
        }
        plans.push((path.clone(), git_hook::plan_add_line(&path, &REFRESH)?));
    }
    Ok(plans)
}

/// Why the hook at `path` cannot take capn's shell line, as a phrase after "it" (`runs with
/// python3, not a POSIX shell`); `None` when it can (or does not exist yet). The same rules as
/// [`git_hook::plan_add_line`]'s refusals: capn never writes through a symlink or into a file
/// that is not a regular one, a shell line breaks another interpreter's script, and git ignores
/// a hook that is not executable.
pub(crate) fn cannot_take(path: &Path) -> Option<String> {
    if let Some(why) = crate::fsutil::unwritable_reason(path) {
        return Some(format!("cannot be written ({why})"));
    }
    let bytes = match crate::fsutil::read_host_file(path, &git_hook::hook_label(path)) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return None,
        Err(e) => return Some(format!("cannot be read ({e:#})")),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Some("is not a text file".into());
    };
    if git_hook::line_status(&text, &REFRESH) == git_hook::PruneStatus::Runs {
        return None;
    }
    if let Some(interpreter) = git_hook::non_shell_interpreter(&text) {
        return Some(format!("runs with {interpreter}, not a POSIX shell"));
    }
    if !crate::fsutil::is_executable(path) {
        return Some("is not executable, so git ignores it".into());
    }
    None
}
