//! The `capn refresh` line `capn init --git` adds to git's post-merge, post-rewrite and
//! post-checkout hooks ([`REFRESH_HOOKS`]), so that the index is brought up to date off the
//! agent's path after `git pull` (with or without `--rebase`) or a branch switch brings charts
//! ([`crate::cmd::refresh`]). The hooks are found, checked and edited as the post-commit hook
//! is ([`super::git_hook`]: inside the project, no symlink, a POSIX shell script, the line
//! right after the `#!` line, guarded and in the background); each is recorded in
//! [`InstallRecord::refresh_hooks`] as the post-commit hook is in `post_commit`, and
//! `uninstall` takes out exactly what `init` put in.

use super::git_hook::{self, AddPlan, HookLine};
use super::record::InstallRecord;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The line `init --git` adds to post-merge (`git pull`, `git merge`), post-rewrite (`git pull
/// --rebase`, `git commit --amend`) and post-checkout (a branch switch; `git rebase` too): `capn
/// refresh` brings the index up to date with the entries that arrived, in the background and
/// only when `capn` is found, so the agent's next `ask` does not pay for it.
pub(crate) const REFRESH_GUARDED: &str =
    "command -v capn >/dev/null 2>&1 && { capn refresh >/dev/null 2>&1 & }";

/// The comment line `init` writes above [`REFRESH_GUARDED`].
pub(crate) const REFRESH_COMMENT: &str =
    "# Added by capn init: bring capn's search index up to date with the charts git brought.";

/// The hooks `init --git` adds [`REFRESH`] to: what git runs after `git pull` (post-merge),
/// `git pull --rebase` (post-rewrite, and post-checkout as the rebase checks out) and a branch
/// switch (post-checkout).
pub(crate) const REFRESH_HOOKS: [&str; 3] = ["post-merge", "post-rewrite", "post-checkout"];

/// The line of the [`REFRESH_HOOKS`] ([`REFRESH_GUARDED`]).
pub(crate) const REFRESH: HookLine = HookLine {
    command: "capn refresh",
    guarded: REFRESH_GUARDED,
    comment: REFRESH_COMMENT,
    older: &[],
    older_comments: &[],
};

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

/// Adds [`REFRESH`] to the hooks as `plans` say, each recorded in `rec` (and saved) before its
/// hook is written: `Some` of the last save's signing result (`Some(None)`: signed) when it
/// saved. What it added goes to `done`.
///
/// Errors: the record or a hook cannot be written.
pub(crate) fn add(
    root: &Path,
    plans: &[(PathBuf, AddPlan)],
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<Option<Option<String>>> {
    let mut saved = None;
    for (path, plan) in plans {
        if *plan != AddPlan::Present {
            let at = rec.refresh_hooks.iter().position(|r| r.names(root, path));
            let earlier = at.map(|i| rec.refresh_hooks.remove(i));
            let now = super::apply::record_hook(root, path, plan, earlier);
            rec.refresh_hooks.push(now);
            saved = Some(rec.save(root)?);
        }
        if git_hook::apply_add(root, path, plan)? {
            done.push(format!(
                "added capn refresh to {}",
                crate::store::display_rel(root, path)
            ));
        }
    }
    Ok(saved)
}

/// Takes the [`REFRESH`] line out of each hook `rec` says `init --git` put it in (only this
/// project's hooks as git runs them now; see [`super::uninstall::undo_recorded_hook`]).
///
/// Errors: a hook cannot be read, written or removed.
pub(crate) fn undo_recorded(
    rec: &InstallRecord,
    root: &Path,
    done: &mut Vec<String>,
) -> Result<()> {
    for recorded in &rec.refresh_hooks {
        let current = recorded.path.file_name().and_then(|name| {
            paths(root)
                .into_iter()
                .find(|p| p.file_name() == Some(name))
        });
        super::uninstall::undo_recorded_hook(root, recorded, current, &REFRESH, done)?;
    }
    Ok(())
}

/// Without a record: takes the [`REFRESH`] line out of each of the hooks, deleting a hook only
/// when it is exactly the one `init` creates.
///
/// Errors: a hook cannot be read, written or removed.
pub(crate) fn undo_unrecorded(root: &Path, done: &mut Vec<String>) -> Result<()> {
    for path in paths(root) {
        let created =
            crate::fsutil::read_host_file(&path, &git_hook::hook_label(&path)).is_ok_and(|t| {
                t.as_deref()
                    .is_some_and(|t| git_hook::is_created_text(t, &REFRESH))
            });
        done.extend(super::uninstall::remove_hook_line(
            root, &path, &REFRESH, created,
        )?);
    }
    Ok(())
}
