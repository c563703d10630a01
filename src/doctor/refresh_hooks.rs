//! Doctor check: the post-merge, post-rewrite and post-checkout hooks `capn init --git` set up
//! run `capn refresh` when git runs them ([`crate::install::refresh_hooks`]), so the index is
//! brought up to date after `git pull` off the agent's path. As for the post-commit hook
//! (`doctor/post_commit.rs`): a hook git ignores (not executable) or cannot start (a `#!` line
//! ending in CRLF), a line after an early `exit` or `exec`, and a recorded line or hook that is
//! gone fail. A project whose post-commit hook
//! runs `capn prune` (set up by a capn before this line existed) without the refresh line gets
//! a warning: the first `ask` after each pull then reads every chart the pull brought.

use super::Check;
use crate::install::{self, git_hook, refresh_hooks};
use std::path::Path;

/// Checks each hook of [`git_hook::REFRESH_HOOKS`] git runs for the project at `root`.
/// `post_commit_git`: the post-commit hook runs `capn prune` or `init --git` recorded it (the
/// project was set up with `--git`).
pub(super) fn check(root: &Path, post_commit_git: bool, checks: &mut Vec<Check>) {
    let recorded = match install::record::load(root) {
        install::record::Loaded::Found(rec) => rec.refresh_hooks,
        _ => Vec::new(),
    };
    for path in refresh_hooks::paths(root) {
        let here = recorded.iter().any(|r| r.names(root, &path));
        check_one(root, &path, here, post_commit_git, checks);
    }
}

/// Checks one hook at `path`; `recorded`: the install record says `init --git` put the line in
/// it.
fn check_one(root: &Path, path: &Path, recorded: bool, git: bool, checks: &mut Vec<Check>) {
    let rel = crate::store::display_rel(root, path);
    let what = format!("{rel} runs capn refresh");
    let fix = "capn init --git (it puts the capn refresh line back)";
    let quoted = install::shell_single_quote(&path.display().to_string());
    let text = match crate::fsutil::read_host_file(path, &git_hook::hook_label(path)) {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        Ok(None) if recorded => {
            let why = format!("{rel} is gone: capn init --git set it up");
            return checks.push(Check::failed(what, why, fix));
        }
        Err(e) if recorded => {
            let fix = format!("rm {quoted} && capn init --git");
            return checks.push(Check::failed(what, format!("{e:#}"), fix));
        }
        _ => String::new(),
    };
    let cost = "so the first capn ask after a git pull reads every chart the pull brought";
    let status = git_hook::line_status(&text, &git_hook::REFRESH);
    if status != git_hook::PruneStatus::Absent {
        let cannot = super::post_commit::cannot_start_check;
        if let Some(check) = cannot(&what, &rel, path, &text, "capn refresh") {
            return checks.push(check);
        }
    }
    match status {
        git_hook::PruneStatus::Absent if recorded => checks.push(Check::failed(
            what,
            format!("the capn refresh line capn init --git added is gone, {cost}"),
            fix,
        )),
        git_hook::PruneStatus::Absent if git => {
            checks.push(match refresh_hooks::cannot_take(path) {
                Some(why) => Check::warn(
                    what,
                    format!("{rel} {why}; capn init --git left it as it is, {cost}"),
                    Some(format!(
                        "have {rel} run `capn refresh` itself (in the background), or leave it"
                    )),
                ),
                None => Check::warn(
                    what,
                    format!(
                        "capn init --git of an older capn set up the post-commit hook only, {cost}"
                    ),
                    Some("capn init --git (it adds the capn refresh line)".into()),
                ),
            })
        }
        git_hook::PruneStatus::Absent => {}
        git_hook::PruneStatus::MayNotRun(line) | git_hook::PruneStatus::Outdated(line) => checks
            .push(Check::failed(
                what,
                format!(
                    "git may never reach the capn refresh line: `{line}` comes before it and \
                     can end the hook first"
                ),
                "capn init --git (it moves the line right after the #! line)",
            )),
        git_hook::PruneStatus::Runs => checks.push(super::post_commit::runs_check(
            what,
            &rel,
            path,
            "capn refresh",
        )),
    }
}
