//! The `capn prune --expired` line that `capn init --git` adds to git's post-commit hook, the
//! `capn refresh` line it adds to the post-merge, post-rewrite and post-checkout hooks
//! ([`REFRESH_HOOKS`]), and their removal. Each line is a [`HookLine`]; every rule below holds
//! for both.
//!
//! Where: the hooks folder git itself uses, from `git rev-parse --git-path hooks` run in the
//! project. That honours `core.hooksPath` (husky and friends) and linked worktrees, whose hooks
//! are the main repository's (`.git/worktrees/<name>/hooks` is never run). Without a `git` program
//! the folder is `.git/hooks` when `.git` is a real folder; a `.git` file is not followed then.
//! When git runs but does not accept the project as a repository, nothing is written: a `.git`
//! file git rejects would otherwise choose where capn writes.
//!
//! The folder must lie inside the project with no symlink between the project root and the hook
//! ([`hooks_dir`]): a repository is untrusted input, and its `.git` file, `core.hooksPath` or a
//! symlinked `.husky` must not steer a write elsewhere. So a linked worktree (whose hooks are the
//! main checkout's), a global `core.hooksPath` and a path with `..` are refused with the line to
//! add by hand; in a worktree, `init --git` in the main checkout adds it for every worktree. A
//! submodule's hooks, in the superproject's `.git/modules/` (as git reports the superproject),
//! are inside the project that holds it, and are accepted.
//!
//! How: right after the `#!` line (at the top of a hook without one), before anything that could
//! end the script early (`has_hook_script postcommit || exit 0`, `exec other-hook`, `set -e` and
//! a failing command), the line [`PRUNE_GUARDED`] with the comment [`POST_COMMIT_COMMENT`]: it
//! runs only when `capn` is found, in the background with its output discarded, so it never slows
//! or fails a commit. A hook whose `#!` line names an interpreter that is not a POSIX shell
//! (python, node, ...) is refused: a shell line would break it; so is one git would not run (not
//! executable), a symlink, or anything but a regular text file, and one git cannot start at all: a
//! `#!` line ending in CRLF names the interpreter `/bin/sh\r` on Unix ([`cannot_start`]). A hook
//! without a `#!` line is run by git with `sh`, so it counts as one.
//!
//! An older capn's bare `capn prune` line that a commit never reaches (appended after an early
//! `exit`, [`prune_status`]) is moved to the top in the guarded form, and an older capn's line
//! that runs plain `capn prune` (which deleted every chart the commit made stale, even one true
//! again on the branch it came from) is replaced by `capn prune --expired`.

use crate::error::Refused;
use crate::fsutil::resolved;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The command an older capn added (bare, at the end of the hook); still recognised.
pub(crate) const PRUNE_LINE: &str = "capn prune";

/// The guarded line capn 0.3 added: `capn prune` after every commit, which deleted every chart
/// whose files that commit changed, even one that is true again on the branch it came from.
/// Still recognised; `init --git` replaces it with [`PRUNE_GUARDED`].
pub(crate) const OLD_PRUNE_GUARDED: &str =
    "command -v capn >/dev/null 2>&1 && { capn prune >/dev/null 2>&1 & }";

/// The line `init --git` adds: `capn prune --expired` (the retention rule only: it deletes
/// nothing but charts stale here for longer than `"stale_days"`, and nothing in a shared store;
/// on the way it brings the stat cache up to date) only when `capn` is found, in the
/// background, its output discarded (git waits for nothing and a commit never fails because of
/// it).
pub(crate) const PRUNE_GUARDED: &str =
    "command -v capn >/dev/null 2>&1 && { capn prune --expired >/dev/null 2>&1 & }";

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

/// A line capn keeps in git hooks: the form `init --git` writes, its comment, and the forms
/// older capns wrote (recognised, replaced, removed).
#[derive(Debug)]
pub(crate) struct HookLine {
    /// The command as messages name it (`capn prune`).
    pub command: &'static str,
    /// The line `init --git` writes.
    pub guarded: &'static str,
    /// The comment line written above it.
    pub comment: &'static str,
    /// Older capns' forms of the line.
    pub older: &'static [&'static str],
    /// Older capns' comments above it.
    pub older_comments: &'static [&'static str],
}

/// The post-commit line ([`PRUNE_GUARDED`]).
pub(crate) const PRUNE: HookLine = HookLine {
    command: "capn prune",
    guarded: PRUNE_GUARDED,
    comment: POST_COMMIT_COMMENT,
    older: &[PRUNE_LINE, OLD_PRUNE_GUARDED],
    older_comments: &[OLD_POST_COMMIT_COMMENT],
};

/// The line of the [`REFRESH_HOOKS`] ([`REFRESH_GUARDED`]).
pub(crate) const REFRESH: HookLine = HookLine {
    command: "capn refresh",
    guarded: REFRESH_GUARDED,
    comment: REFRESH_COMMENT,
    older: &[],
    older_comments: &[],
};

impl HookLine {
    /// True for this line in any form some capn wrote.
    pub(crate) fn is_line(&self, line: &str) -> bool {
        let t = line.trim();
        t == self.guarded || self.older.contains(&t)
    }

    /// True for a comment some capn wrote above this line.
    fn is_comment(&self, line: &str) -> bool {
        line == self.comment || self.older_comments.contains(&line)
    }
}

/// Whether a hook's text runs `capn prune` when git runs the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PruneStatus {
    /// No `capn prune` line.
    Absent,
    /// The line is reached: nothing before it (but the `#!` line, comments and blank lines)
    /// could end the script.
    Runs,
    /// A line before it may end the script (it holds `exit` or `exec` as a command word, or
    /// `set -e`): the line quoted.
    MayNotRun(String),
    /// It is reached, but it is an older capn's line ([`PRUNE_LINE`], [`OLD_PRUNE_GUARDED`]):
    /// plain `capn prune`, which deletes every stale chart after each commit. The line quoted.
    Outdated(String),
}

/// Works out whether a commit would reach the `capn prune` line of a hook (see
/// [`PruneStatus`]). Conservative: any `exit`/`exec` word or `set -e` before it counts.
pub(crate) fn prune_status(text: &str) -> PruneStatus {
    line_status(text, &PRUNE)
}

/// [`prune_status`] for the line `hl`.
pub(crate) fn line_status(text: &str, hl: &HookLine) -> PruneStatus {
    let Some(at) = text.lines().position(|l| hl.is_line(l)) else {
        return PruneStatus::Absent;
    };
    for (i, line) in text.lines().take(at).enumerate() {
        let t = line.trim();
        if (i == 0 && t.starts_with("#!")) || t.is_empty() || t.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = t
            .split(|c: char| {
                c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '{' | '}')
            })
            .filter(|w| !w.is_empty())
            .collect();
        let ends = words.iter().any(|w| *w == "exit" || *w == "exec");
        let set_e = words
            .windows(2)
            .any(|w| w[0] == "set" && w[1].starts_with('-') && w[1].contains('e'));
        if ends || set_e {
            return PruneStatus::MayNotRun(t.to_string());
        }
    }
    match text.lines().nth(at).map(str::trim) {
        Some(l) if l != hl.guarded => PruneStatus::Outdated(l.to_string()),
        _ => PruneStatus::Runs,
    }
}

/// The comment line `init` writes above [`PRUNE_GUARDED`].
pub(crate) const POST_COMMIT_COMMENT: &str =
    "# Added by capn init: check the charts after each commit (deletes only charts stale past the retention).";

/// The comment an older capn wrote above its prune line; still recognised.
pub(crate) const OLD_POST_COMMIT_COMMENT: &str =
    "# Added by capn init: drop charted answers whose files this commit changed.";

/// The whole post-commit hook `init` creates when there is none.
#[cfg(test)]
fn created_hook_text() -> String {
    created_text(&PRUNE)
}

/// The whole hook `init` creates for the line `hl` when there is none.
pub(crate) fn created_text(hl: &HookLine) -> String {
    format!("#!/bin/sh\n{}\n{}\n", hl.comment, hl.guarded)
}

/// True for the text of a post-commit hook some capn `init` created (this version's, 0.3's
/// guarded form or 0.3.0's bare form).
pub(crate) fn is_created_hook_text(bytes: &[u8]) -> bool {
    is_created_text(bytes, &PRUNE)
}

/// True for the text of a hook some capn `init` created for the line `hl` (in any form).
pub(crate) fn is_created_text(bytes: &[u8], hl: &HookLine) -> bool {
    bytes == created_text(hl).as_bytes()
        || hl.older.iter().any(|line| {
            hl.older_comments
                .iter()
                .any(|c| bytes == format!("#!/bin/sh\n{c}\n{line}\n").as_bytes())
        })
}

/// Interpreters (by file name) that read a POSIX shell script.
const POSIX_SHELLS: [&str; 10] = [
    "sh", "bash", "dash", "ash", "ksh", "mksh", "pdksh", "zsh", "yash", "posh",
];

/// The folder git runs the hooks of the repository at `root` from (see the module docs), checked
/// to lie inside `root` with no symlink on the way.
///
/// Errors: `root` has no `.git` (not a repository); git does not accept it as one; without git, its
/// `.git` is a file; the folder lies outside the project or behind a symlink ([`Refused`], with
/// the line to add by hand).
pub(crate) fn hooks_dir(root: &Path) -> Result<PathBuf> {
    let dot_git = root.join(".git");
    if std::fs::symlink_metadata(&dot_git).is_err() {
        anyhow::bail!(
            "--git: {} is not a git repository (no .git found); run git init first",
            root.display()
        );
    }
    let dir = match hooks_dir_from_git(root) {
        GitAnswer::Hooks(dir, Some(superproject)) => {
            // A submodule: its git dir lies in the superproject's `.git/modules/`, inside the
            // project that holds this one.
            return inside_project(root, &dir).or_else(|e| {
                let real_root = resolved(root);
                let sp = resolved(&superproject);
                if real_root.starts_with(&sp) && real_root != sp {
                    inside_project(&sp, &dir)
                        .ok()
                        .filter(|d| d.starts_with(sp.join(".git").join("modules")))
                        .ok_or(e)
                } else {
                    Err(e)
                }
            });
        }
        GitAnswer::Hooks(dir, None) => dir,
        GitAnswer::NotThisRepository => {
            return Err(Refused(format!(
                "--git: git does not accept {} as a repository (is its .git damaged, or a file \
                 naming another place?), so capn cannot tell where its hooks are; nothing was \
                 written",
                root.display()
            ))
            .into())
        }
        GitAnswer::NoGit => {
            let meta = std::fs::symlink_metadata(&dot_git)
                .with_context(|| format!("could not read {}", dot_git.display()))?;
            if !meta.is_dir() {
                return Err(Refused(format!(
                    "--git: git was not found, and {} is not a folder (a worktree?), so capn \
                     cannot tell where its hooks are; nothing was written",
                    dot_git.display()
                ))
                .into());
            }
            dot_git.join("hooks")
        }
    };
    inside_project(root, &dir)
}

/// `dir` without `.` components, when it lies under `root` (as given or resolved) with no `..`
/// and no symlink between `root` and a file in it.
///
/// Errors: [`Refused`], naming the folder and the line to add by hand.
fn inside_project(root: &Path, dir: &Path) -> Result<PathBuf> {
    // `..` is refused, not worked out: as text it would skip a symlink git follows
    // (`lnk/../hk` is `hk` as text but `lnk`'s parent's `hk` for git).
    if dir
        .components()
        .any(|c| c == std::path::Component::ParentDir)
    {
        return Err(Refused(format!(
            "--git: git runs this repository's hooks from {}, a path with `..` in it; capn \
             writes only where it can tell the folder is inside the project, so nothing was \
             written. Add this line to that folder's post-commit hook yourself: {PRUNE_GUARDED} \
             (and this one to its post-merge, post-rewrite and post-checkout hooks: \
             {REFRESH_GUARDED})",
            dir.display()
        ))
        .into());
    }
    let norm: PathBuf = dir
        .components()
        .filter(|c| *c != std::path::Component::CurDir)
        .collect();
    let refuse = |why: String| -> anyhow::Error {
        Refused(format!(
            "--git: git runs this repository's hooks from {}, {why}; capn writes only inside the \
             project, so nothing was written. In a linked worktree, run capn init --git in the \
             main checkout; otherwise add this line to that folder's post-commit hook yourself: \
             {PRUNE_GUARDED} (and this one to its post-merge, post-rewrite and post-checkout \
             hooks: {REFRESH_GUARDED})",
            dir.display()
        ))
        .into()
    };
    let real_root = resolved(root);
    let Some(anchor) = anchor(root, &real_root, &norm) else {
        return Err(refuse("outside the project".into()));
    };
    crate::fsutil::check_inside(anchor, &norm.join("post-commit"))
        .map_err(|e| refuse(format!("which capn will not write to ({e})")))?;
    Ok(norm)
}

/// Which of `root` as given and `real_root` (resolved) `path` lies under, lexically.
fn anchor<'a>(root: &'a Path, real_root: &'a Path, path: &Path) -> Option<&'a Path> {
    [root, real_root].into_iter().find(|r| path.starts_with(r))
}

/// The post-commit hook's path: `<hooks dir>/post-commit` ([`hooks_dir`]).
///
/// Errors: those of [`hooks_dir`].
pub(crate) fn post_commit_path(root: &Path) -> Result<PathBuf> {
    Ok(hooks_dir(root)?.join("post-commit"))
}

/// True when `a` and `b` name the same file: equal once their folders are resolved (symlinks,
/// `..`), so it also works for a file that does not exist (yet).
pub(crate) fn same_path(a: &Path, b: &Path) -> bool {
    fn resolved(p: &Path) -> PathBuf {
        match (p.parent(), p.file_name()) {
            (Some(dir), Some(name)) => crate::fsutil::resolved(dir).join(name),
            _ => p.to_path_buf(),
        }
    }
    a == b || resolved(a) == resolved(b)
}

/// What git says about the hooks of the repository at a root.
enum GitAnswer {
    /// The hooks folder (absolute, or joined to the root), and the superproject's root when the
    /// repository is a submodule.
    Hooks(PathBuf, Option<PathBuf>),
    /// git ran but failed, or answered for another repository (a `.git` in the root that git
    /// does not accept, inside some other repository).
    NotThisRepository,
    /// git could not be started.
    NoGit,
}

/// Asks git where the hooks of the repository at `root` are.
fn hooks_dir_from_git(root: &Path) -> GitAnswer {
    // Let git find the repository from `root`, as it will when it runs the hook there.
    let args = [
        "rev-parse",
        "--show-toplevel",
        "--git-path",
        "hooks",
        "--show-superproject-working-tree",
    ];
    let Ok(out) = crate::process::git_command(root, &args).output() else {
        return GitAnswer::NoGit;
    };
    let answer = || -> Option<(PathBuf, Option<PathBuf>)> {
        if !out.status.success() {
            return None;
        }
        let text = std::str::from_utf8(&out.stdout).ok()?;
        let mut lines = text.lines();
        let top = PathBuf::from(lines.next()?.trim_end_matches('\r'));
        let hooks = PathBuf::from(lines.next()?.trim_end_matches('\r'));
        let superproject = lines
            .next()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.is_empty())
            .map(PathBuf::from);
        if !crate::pathcmp::same(
            &crate::fsutil::resolved(&top),
            &crate::fsutil::resolved(root),
        ) {
            return None;
        }
        let hooks = if hooks.is_absolute() {
            hooks
        } else {
            root.join(hooks)
        };
        Some((hooks, superproject))
    };
    answer().map_or(GitAnswer::NotThisRepository, |(h, sp)| {
        GitAnswer::Hooks(h, sp)
    })
}

/// What adding the line to a hook comes to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AddPlan {
    /// The hook already runs `capn prune`.
    Present,
    /// There is no hook: create it with this text (and make it executable).
    Create(String),
    /// Replace the hook's text with this one.
    Update(String),
}

/// Works out, without writing anything, how `capn prune` gets into the hook at `path`.
///
/// Errors: as [`plan_add_line`].
pub(crate) fn plan_add(path: &Path) -> Result<AddPlan> {
    plan_add_line(path, &PRUNE)
}

/// What a hook file is called in messages: `post-commit hook`.
pub(crate) fn hook_label(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy());
    format!("{} hook", name.as_deref().unwrap_or("git"))
}

/// A hook file as capn finds it before adding a line ([`examine`]).
pub(crate) enum HookFile {
    /// There is none yet: capn creates it.
    Missing,
    /// A shell script git runs: its text and where the line `hl` stands in it.
    Fit { text: String, status: PruneStatus },
    /// One capn must not add a shell line to, and why.
    Unfit(Unfit),
}

/// Why capn must not add its shell line to a hook: it never writes through a symlink or into a
/// file that is not a regular one, a shell line breaks another interpreter's script, and git
/// ignores a hook that is not executable (a line in it would never run).
pub(crate) enum Unfit {
    /// A symlink, a special file, a read-only file ([`crate::fsutil::unwritable_reason`]).
    Unwritable(String),
    /// Not UTF-8 text.
    NotText,
    /// Its `#!` line names this interpreter, not a POSIX shell.
    Interpreter(String),
    /// Not executable.
    NotExecutable,
    /// Its `#!` line ends in a carriage return (`#!/bin/sh\r\n`, saved with Windows line
    /// ends): the system looks for an interpreter named `/bin/sh\r` and git cannot start the
    /// hook at all ([`cannot_start`]).
    CrlfShebang,
}

impl Unfit {
    /// The reason as a phrase after "it" (`runs with python3, not a POSIX shell`).
    pub(crate) fn phrase(&self) -> String {
        match self {
            Unfit::Unwritable(why) => format!("cannot be written ({why})"),
            Unfit::NotText => "is not a text file".into(),
            Unfit::Interpreter(i) => format!("runs with {i}, not a POSIX shell"),
            Unfit::NotExecutable => "is not executable, so git ignores it".into(),
            Unfit::CrlfShebang => CRLF_SHEBANG.into(),
        }
    }
}

/// [`Unfit::CrlfShebang`]'s phrase after "it".
const CRLF_SHEBANG: &str = "has a #! line ending in a carriage return (Windows line ends), so \
     the system looks for an interpreter whose name ends in \\r and git cannot start it (bad \
     interpreter)";

/// Why git cannot start the hook whose text is `text` at all, whatever line capn has in it:
/// its `#!` line ends in `\r` ([`Unfit::CrlfShebang`]; Unix takes the `\r` as part of the
/// interpreter's name or argument). `None` on Windows, where Git for Windows reads the `#!`
/// line itself up to the `\r`.
pub(crate) fn cannot_start(text: &str) -> Option<Unfit> {
    let first = text.split('\n').next()?;
    (cfg!(unix) && first.starts_with("#!") && first.ends_with('\r')).then_some(Unfit::CrlfShebang)
}

/// Reads the hook at `path` (bounded, never through a symlink or a FIFO) and says whether the
/// line `hl` can go into it: the one place both `init --git`'s refusals and the pull hooks'
/// skipping decide it. A hook git cannot start ([`cannot_start`]) is unfit even with the line
/// in it; otherwise a hook where the line already runs is fit whatever else holds.
///
/// Errors: the hook cannot be read.
pub(crate) fn examine(path: &Path, hl: &HookLine) -> Result<HookFile> {
    if let Some(why) = crate::fsutil::unwritable_reason(path) {
        return Ok(HookFile::Unfit(Unfit::Unwritable(why)));
    }
    let Some(bytes) = crate::fsutil::read_host_file(path, &hook_label(path))? else {
        return Ok(HookFile::Missing);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(HookFile::Unfit(Unfit::NotText));
    };
    if let Some(unfit) = cannot_start(&text) {
        return Ok(HookFile::Unfit(unfit));
    }
    let status = line_status(&text, hl);
    if status != PruneStatus::Runs {
        if let Some(interpreter) = non_shell_interpreter(&text) {
            return Ok(HookFile::Unfit(Unfit::Interpreter(interpreter)));
        }
        if !crate::fsutil::is_executable(path) {
            return Ok(HookFile::Unfit(Unfit::NotExecutable));
        }
    }
    Ok(HookFile::Fit { text, status })
}

/// Works out, without writing anything, how the line `hl` gets into the hook at `path`.
///
/// Errors: the hook cannot be read, is not UTF-8 text, is not executable, cannot be started (a
/// `#!` line ending in `\r`), or is run by an interpreter that is not a POSIX shell
/// ([`Refused`], naming the file and what to do instead).
pub(crate) fn plan_add_line(path: &Path, hl: &HookLine) -> Result<AddPlan> {
    plan_for(path, hl, examine(path, hl)?)
}

/// [`plan_add_line`] for the hook at `path` as [`examine`] found it.
///
/// Errors: an [`Unfit`] hook ([`Refused`], naming the file and what to do instead).
pub(crate) fn plan_for(path: &Path, hl: &HookLine, file: HookFile) -> Result<AddPlan> {
    let cmd = hl.command;
    let why = match file {
        HookFile::Missing => return Ok(AddPlan::Create(created_text(hl))),
        HookFile::Fit {
            status: PruneStatus::Runs,
            ..
        } => return Ok(AddPlan::Present),
        HookFile::Fit { text, .. } => {
            // A line git never reaches (an older capn appended it after an early exit) moves
            // up; an older capn's form is replaced; a comment of capn's whose line the user
            // deleted goes, so the one written with the line is the only one.
            return Ok(AddPlan::Update(insert_line(&without_line(&text, hl), hl)));
        }
        HookFile::Unfit(Unfit::Unwritable(why)) => {
            format!(": {why}; {cmd} was not added to it (nothing written)")
        }
        HookFile::Unfit(Unfit::NotText) => {
            format!(" is not a text file; {cmd} was not added to it (nothing written)")
        }
        HookFile::Unfit(Unfit::Interpreter(interpreter)) => {
            let argv: Vec<&str> = cmd.split_whitespace().collect();
            format!(
                " runs with {interpreter}, not a POSIX shell, so a `{cmd}` line cannot be added \
                 to it; nothing was written. Make that hook run `{cmd}` itself (for example with \
                 subprocess.run({argv:?}) in Python), and run capn init without --git"
            )
        }
        HookFile::Unfit(Unfit::NotExecutable) => format!(
            " is not executable, so git ignores it (a disabled hook?) and a `{cmd}` line in it \
             would never run; nothing was written. To have git run it: chmod +x {} and run capn \
             init --git again; otherwise run capn init without --git",
            path.display()
        ),
        HookFile::Unfit(Unfit::CrlfShebang) => format!(
            " {CRLF_SHEBANG}; a `{cmd}` line in it would never run, so nothing was written. \
             Save it with Unix line ends (for example: dos2unix {}) and run capn init --git \
             again",
            path.display()
        ),
    };
    Err(Refused(format!("--git: {}{why}", path.display())).into())
}

/// The text without capn's lines (the line `hl` in any form and its comment), every other line
/// with its own line end (a hook with mixed line ends keeps each one).
fn without_line(text: &str, hl: &HookLine) -> String {
    lines_with_ends(text)
        .into_iter()
        .filter(|(l, _)| !hl.is_line(l) && !hl.is_comment(l))
        .map(|(l, end)| [l, end].concat())
        .collect()
}

/// The lines of `text`, each with its own line end: `"\r\n"`, `"\n"`, or `""` for a last line
/// without one. Concatenated, they are `text` byte for byte.
pub(crate) fn lines_with_ends(text: &str) -> Vec<(&str, &str)> {
    text.split_inclusive('\n')
        .map(|l| {
            if let Some(c) = l.strip_suffix("\r\n") {
                (c, "\r\n")
            } else if let Some(c) = l.strip_suffix('\n') {
                (c, "\n")
            } else {
                (l, "")
            }
        })
        .collect()
}

/// The interpreter named by a `#!` line, when it is not a POSIX shell. `None` for a shell or for
/// a hook without a `#!` line (git runs those with `sh`).
pub(crate) fn non_shell_interpreter(text: &str) -> Option<String> {
    let first = text.lines().next()?;
    let rest = first.strip_prefix("#!")?;
    let mut words = rest.split_whitespace();
    let Some(program) = words.next() else {
        return Some("an empty #! line".to_string());
    };
    let mut name = base_name(program);
    if name == "env" {
        // `#!/usr/bin/env [-S] [VAR=value ...] interpreter [args]`
        match words.find(|w| !w.starts_with('-') && !w.contains('=')) {
            Some(w) => name = base_name(w),
            None => return Some(format!("`{}`", first.trim())),
        }
    }
    (!POSIX_SHELLS.contains(&name)).then(|| format!("`{name}` (#!{})", rest.trim()))
}

fn base_name(program: &str) -> &str {
    program.rsplit(['/', '\\']).next().unwrap_or(program)
}

/// The hook's text with [`POST_COMMIT_COMMENT`] and [`PRUNE_GUARDED`] inserted right after the
/// `#!` line ([`insert_line`]).
#[cfg(test)]
fn insert_prune(text: &str) -> String {
    insert_line(text, &PRUNE)
}

/// The hook's text with the comment and line of `hl` inserted right after the `#!` line (at the
/// top when there is none). Every line keeps its own line end; the two new lines take the line
/// end of the `#!` line (or of the first line; `\n` when it has none), so a CRLF hook stays CRLF
/// and a hook with mixed line ends changes in no other line.
pub(crate) fn insert_line(text: &str, hl: &HookLine) -> String {
    let (comment, guarded) = (hl.comment, hl.guarded);
    let lines = lines_with_ends(text);
    let at = usize::from(lines.first().is_some_and(|(l, _)| l.starts_with("#!")));
    let eol = match lines.first().map(|(_, end)| *end) {
        Some("") | None => "\n",
        Some(end) => end,
    };
    let mut out = String::with_capacity(text.len() + 200);
    for (i, (line, end)) in lines.iter().enumerate() {
        if i == at {
            out.push_str(&[comment, eol, guarded, eol].concat());
        }
        out.push_str(line);
        // A `#!` line without a line end gets one: the new lines follow it.
        out.push_str(if i < at && end.is_empty() { eol } else { end });
    }
    if at == lines.len() {
        out.push_str(&[comment, eol, guarded, eol].concat());
    }
    out
}

/// Adds `capn prune` to the hook at `path` (from [`post_commit_path`] of `root`) as
/// [`plan_add`] planned: creates the missing folders below `root` (never through a symlink) and
/// an executable hook when there is none. Returns whether it wrote.
///
/// Errors: the folder or the file cannot be written, or a symlink appeared on the way.
pub(crate) fn apply_add(root: &Path, path: &Path, plan: &AddPlan) -> Result<bool> {
    let (text, create) = match plan {
        AddPlan::Present => return Ok(false),
        AddPlan::Create(t) => (t, true),
        AddPlan::Update(t) => (t, false),
    };
    if let Some(parent) = path.parent().filter(|p| !p.is_dir()) {
        // Missing folders are made below the project root only (a submodule's hooks folder,
        // in the superproject's `.git/modules/`, exists already).
        let real_root = resolved(root);
        let anchor = anchor(root, &real_root, parent).unwrap_or(&real_root);
        crate::fsutil::ensure_dir_inside(anchor, parent)?;
    }
    crate::fsutil::write_atomic(path, text.as_bytes())?;
    if create {
        set_executable(path)?;
    }
    Ok(true)
}

/// `text` without capn's comment above the line `hl` when the line itself is not there (the user
/// deleted only the line): what the hook was before capn, as far as capn can tell. Any other
/// text is returned as it is.
pub(crate) fn without_lone_comment(text: &str, hl: &HookLine) -> String {
    if text.lines().any(|l| hl.is_line(l)) {
        text.to_string()
    } else {
        without_line(text, hl)
    }
}

/// What [`remove_line`] did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Removed {
    /// No capn line was there.
    Nothing,
    /// The line (and our comment) was removed; the rest of the hook stays.
    Line,
    /// Only capn's comment was there (the user deleted the line below it): it was removed.
    Comment,
    /// The hook held nothing else and `delete_if_only_ours` allowed it: the file was deleted.
    File,
}

/// Removes the line `hl` (and the comment `init` writes with it, also when the line itself is
/// gone) from the hook at `path`. When nothing but a `#!` line and blank lines is left and
/// `delete_if_only_ours` is set (`init` created the file), the file is deleted.
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read, written or
/// removed.
pub(crate) fn remove_line(
    path: &Path,
    hl: &HookLine,
    delete_if_only_ours: bool,
) -> Result<Removed> {
    let Some(bytes) = crate::fsutil::read_host_file(path, &hook_label(path))? else {
        return Ok(Removed::Nothing);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(Removed::Nothing);
    };
    let line = text.lines().any(|l| hl.is_line(l));
    if !line && !text.lines().any(|l| hl.is_comment(l)) {
        return Ok(Removed::Nothing);
    }
    let kept = without_line(&text, hl);
    if delete_if_only_ours
        && kept
            .lines()
            .all(|l| l.trim().is_empty() || l.starts_with("#!"))
    {
        std::fs::remove_file(path)
            .with_context(|| format!("could not remove {}", path.display()))?;
        return Ok(Removed::File);
    }
    crate::fsutil::write_atomic(path, kept.as_bytes())?;
    Ok(if line {
        Removed::Line
    } else {
        Removed::Comment
    })
}

/// Puts the hook at `path` back as it was before `init` changed it: `before` (its text then;
/// `None`: `init` created it, so it is deleted), byte for byte, provided it still hashes to
/// `after_sha256` (what `init` left: nothing else changed it since). Returns whether it did.
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read, written or
/// removed.
pub(crate) fn restore(path: &Path, before: Option<&str>, after_sha256: &str) -> Result<bool> {
    let Some(bytes) = crate::fsutil::read_host_file(path, &hook_label(path))? else {
        return Ok(false);
    };
    if sha256_hex(&bytes) != after_sha256 {
        return Ok(false);
    }
    match before {
        Some(text) => crate::fsutil::write_atomic(path, text.as_bytes())?,
        None => std::fs::remove_file(path)
            .with_context(|| format!("could not remove {}", path.display()))?,
    }
    Ok(true)
}

/// Lowercase hex SHA-256 of `bytes` (how the install record names what `init` left in a hook).
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    crate::hex::encode(&Sha256::digest(bytes))
}

#[cfg(unix)]
fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("could not make executable: {}", path.display()))
}

#[cfg(not(unix))]
fn set_executable(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests;
