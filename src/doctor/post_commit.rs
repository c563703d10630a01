//! Doctor check: the post-commit hook `capn init --git` set up runs `capn prune` when git
//! commits. Git runs the hook only when it is executable, and a line after an early `exit`,
//! an `exec` or under `set -e` may never be reached ([`git_hook::prune_status`]): capn 0.3.0
//! appended its line at the end, after such lines. Where the install record says `init --git`
//! put the line in this hook, a hook that is gone, is not a regular file (a FIFO is read
//! without blocking, and refused) or lost the line fails too: no commit runs `capn prune`. So
//! does a hook git cannot start at all (a `#!` line ending in CRLF), whatever its lines.

use super::Check;
use crate::install::{self, git_hook};
use std::path::Path;

/// Checks the post-commit hook git runs for the project at `root`. Returns whether it holds a
/// `capn prune` line, or `init --git` recorded putting one there (then the registrations check
/// expects `--git` in its fixes).
pub(super) fn check(root: &Path, checks: &mut Vec<Check>) -> bool {
    let Ok(path) = git_hook::post_commit_path(root) else {
        return false;
    };
    let rel = crate::store::display_rel(root, &path);
    let what = format!("{rel} runs capn prune");
    let recorded = recorded_here(root, &path);
    let fix = "capn init --git (it puts the capn prune line back)";
    // The hook's path as the fixes' shell commands name it.
    let quoted = install::shell_single_quote(&path.display().to_string());
    let bytes = match crate::fsutil::read_host_file(&path, "post-commit hook") {
        Ok(Some(bytes)) => bytes,
        Ok(None) if recorded => {
            checks.push(Check::failed(
                what,
                format!(
                    "{rel} is gone: capn init --git set it up, and no commit runs capn prune now"
                ),
                fix,
            ));
            return true;
        }
        Err(e) if recorded => {
            checks.push(Check::failed(
                what,
                format!("{e:#}"),
                format!("rm {quoted} && capn init --git"),
            ));
            return true;
        }
        _ => return false,
    };
    let text = String::from_utf8_lossy(&bytes);
    let status = git_hook::prune_status(&text);
    if status != git_hook::PruneStatus::Absent {
        if let Some(check) = cannot_start_check(&what, &rel, &path, &text, "capn prune") {
            checks.push(check);
            return true;
        }
    }
    match status {
        git_hook::PruneStatus::Absent if recorded => checks.push(Check::failed(
            what,
            "the capn prune line capn init --git added is gone, so no commit runs it",
            fix,
        )),
        git_hook::PruneStatus::Absent => return false,
        git_hook::PruneStatus::MayNotRun(line) => checks.push(Check::failed(
            what,
            format!(
                "a commit may never reach the capn prune line: `{line}` comes before it and can \
                 end the hook first"
            ),
            "capn init --git (it moves the line right after the #! line, guarded and in the \
             background)",
        )),
        git_hook::PruneStatus::Outdated(line) => checks.push(Check::failed(
            what,
            format!(
                "it runs `{line}`, an older capn's line: plain capn prune after each commit \
                 deletes every chart the commit made stale, even one true again once you switch \
                 back to its branch"
            ),
            "capn init --git (it replaces the line with capn prune --expired, which keeps \
             stale charts for the retention of .capn/config.json)",
        )),
        git_hook::PruneStatus::Runs => checks.push(super::post_commit::runs_check(
            what,
            &rel,
            &path,
            "capn prune",
        )),
    }
    true
}

/// The check of a git hook (`rel`, at `path`) whose capn line (running `command`) comes before
/// anything that can end it: ok when git runs the hook, failed with the `chmod +x` fix when it
/// is not executable (git ignores it then).
pub(super) fn runs_check(what: String, rel: &str, path: &Path, command: &str) -> Check {
    if crate::fsutil::is_executable(path) {
        return Check::ok(format!("{what} (reached before anything can end the hook)"));
    }
    let quoted = install::shell_single_quote(&path.display().to_string());
    Check::failed(
        what,
        format!("{rel} is not executable, so git ignores it and {command} never runs"),
        format!("chmod +x {quoted}"),
    )
}

/// The failed check of a git hook (`rel`, at `path`, whose text is `text`) that holds capn's
/// line (running `command`) but that git cannot start at all ([`git_hook::cannot_start`]: a `#!`
/// line ending in CRLF); `None` when git can start it.
pub(super) fn cannot_start_check(
    what: &str,
    rel: &str,
    path: &Path,
    text: &str,
    command: &str,
) -> Option<Check> {
    let unfit = git_hook::cannot_start(text)?;
    let quoted = install::shell_single_quote(&path.display().to_string());
    Some(Check::failed(
        what,
        format!(
            "{rel} cannot run: it {}, so {command} never runs",
            unfit.phrase()
        ),
        format!("dos2unix {quoted} (or save it with Unix line ends)"),
    ))
}

/// True when this user's install record for the project at `root` says `init --git` put the
/// `capn prune` line in the hook at `path` (the hook git runs for it now).
fn recorded_here(root: &Path, path: &Path) -> bool {
    match install::record::load(root) {
        install::record::Loaded::Found(rec) => {
            rec.post_commit.is_some_and(|pc| pc.names(root, path))
        }
        _ => false,
    }
}
