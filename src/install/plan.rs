//! `capn init`'s plan: everything it will change in a project, worked out before anything is
//! written ([`plan`]: every file read, every edit made in memory, every refusal checked), so a
//! broken settings file or a hook capn must not edit stops `init` with nothing changed.
//! [`super::apply`] carries the plan out.

use super::more_hosts::{self, OwnFile, OwnPlan};
use super::record::{self, InstallRecord};
use super::settings::{self, HostFile, UserFiles};
use super::skill::skill_path;
use super::{git_hook, shared};
use crate::hosts::Host;
use crate::store::Store;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// What `capn init` was asked for (its flags, without `--user`).
#[derive(Debug, Clone, Default)]
pub(crate) struct InitOptions {
    /// The hosts named with `--host` (none: [`more_hosts::selected`]'s choice).
    pub hosts: Vec<Host>,
    /// `--git`: add `capn prune --expired` to the post-commit hook.
    pub git: bool,
    /// `--embedding`.
    pub embedding: bool,
    /// `--no-embedding`.
    pub no_embedding: bool,
    /// `--shared`: the charts are committed.
    pub shared: bool,
    /// `--local`: the store stays out of git.
    pub local: bool,
    /// `--nudge`.
    pub nudge: bool,
    /// `--no-nudge`.
    pub no_nudge: bool,
}

/// Everything `init` will change, worked out before anything is written.
pub(crate) struct Plan {
    /// The project settings files, in [`super::project::PROJECT_SETTINGS`]' order, with the
    /// hosts' edits made in memory.
    pub settings: Vec<HostFile>,
    /// The files capn owns whole of the hosts set up (Copilot CLI's hooks, OpenCode's plugin).
    pub own: Vec<(OwnFile, OwnPlan)>,
    /// What becomes of the `.gitignore` files.
    pub ignores: Ignores,
    /// What becomes of the `/compact-prep` skill.
    pub skill: SkillPlan,
    /// The folders of [`created_dirs`] missing before this run.
    pub missing_dirs: Vec<String>,
    /// With `--git`: the post-commit hook and what adding capn's line to it does.
    pub git_hook: Option<(PathBuf, git_hook::AddPlan)>,
    /// With `--git`: the post-merge, post-rewrite and post-checkout hooks and what adding
    /// `capn refresh` to each does ([`super::refresh_hooks`]).
    pub refresh_hooks: Vec<(PathBuf, git_hook::AddPlan)>,
    /// The store is to be shared through git ([`super::shared`]).
    pub shared: bool,
    /// The install record with this run's changes merged in.
    pub rec: InstallRecord,
    /// What the plan already did to say (a replaced record, the hosts' merges).
    pub done: Vec<String>,
}

/// Works out everything `init` will change (see [`Plan`]), writing nothing.
///
/// Errors: a refusal (a file that does not parse or must not be written); nothing was changed.
pub(crate) fn plan(root: &Path, opts: &InitOptions) -> Result<Plan> {
    let mut done: Vec<String> = Vec::new();
    let hosts = more_hosts::selected(root, &opts.hosts);
    // Parse every settings file of the hosts set up first: a broken one means nothing is
    // written at all. (Another host's file is not even read: a placeholder that stays unchanged.)
    let mut files = settings::load_host_files(root, &hosts)?;
    let own = plan_own_files(root, &hosts)?;
    // Worked out (and refused, for a hook that is not a shell script) before anything is written.
    let git_hook = plan_git_hook(root, opts.git)?;
    let refresh_hooks = super::refresh_hooks::plan(root, opts.git, &mut done)?;
    let store = Store::at(root.to_path_buf());
    let shared = opts.shared || (!opts.local && (store.config().shared || store.ignore_shares()));
    // What earlier runs recorded (see install::record): this run's changes are merged into it.
    let (mut rec, from_0_3, foreign) = earlier_record(root, &mut done);
    // A record not this user's counts only when the user asks to go back to a local store, and
    // then only for lines that ignore the store (shared::restorable).
    let recorded = rec.gitignore.clone().or(foreign.filter(|_| opts.local));
    let (gitignore, gitignore_rec) =
        plan_root_gitignore(root, shared, from_0_3, recorded.as_ref())?;
    let ignores = Ignores {
        root: gitignore,
        record: gitignore_rec,
        store: shared::plan_store_ignore(&store.dir.join(".gitignore"), shared)?,
    };
    let missing_dirs = missing_dirs(root);
    // The user-level files count for their host too (only read: never written by init).
    let user = UserFiles::load();
    let skill = plan_skill_for(root, &hosts, &files, &user)?;
    for f in &mut files {
        f.fresh = !rec.touches(f.rel);
    }
    settings::merge_hooks(root, &hosts, &mut files, &user, &mut rec, &mut done)?;
    for spec in crate::hosts::ALL.iter().filter(|s| hosts.contains(&s.host)) {
        if spec.context == crate::hosts::ContextSource::StatusLine {
            settings::merge_statusline(spec, &mut files, &user, &mut rec, &mut done)?;
        }
        if spec.allow_rules {
            settings::merge_allow(spec, &mut files, &user, &mut rec, &mut done);
        }
    }
    // Every refusal before the first write.
    refusals(
        root,
        &files,
        ignores.root != shared::RootIgnore::Keep,
        skill,
    )?;
    if ignores.store != shared::StoreIgnore::Keep {
        refuse_unwritable(&store.dir.join(".gitignore"))?;
    }
    record_fits(&rec, &files)?;
    Ok(Plan {
        settings: files,
        own,
        ignores,
        skill,
        missing_dirs,
        git_hook,
        refresh_hooks,
        shared,
        rec,
        done,
    })
}

/// The folders `init` may create, relative to the project root, parents first: those on the
/// way to each host's project files ([`crate::hosts::ALL`]' `files`, in host order), with
/// the skill's after Claude Code's. Those it created are recorded, and `uninstall` removes them
/// when they are empty again (a folder that was there before `init`, even empty, is the user's
/// and stays).
fn created_dirs() -> Vec<String> {
    let skill = format!(".claude/skills/{}/SKILL.md", super::skill::SKILL_NAME);
    let mut dirs: Vec<String> = Vec::new();
    for spec in crate::hosts::ALL {
        let skill = spec.prep_skill.then_some(skill.as_str());
        for rel in spec.files.iter().copied().chain(skill) {
            // Every folder on the way to `rel`: `a`, `a/b` for `a/b/file`.
            let ends = rel.match_indices('/').map(|(i, _)| i);
            for dir in ends.map(|i| &rel[..i]) {
                if !dirs.iter().any(|d| d == dir) {
                    dirs.push(dir.to_string());
                }
            }
        }
    }
    dirs
}

/// What a run does to the install record's account of the lines `init --shared` took out of
/// the project's `.gitignore` ([`InstallRecord::gitignore`]).
pub(crate) enum GitignoreRecord {
    /// Nothing.
    Same,
    /// This run takes these lines out: recorded (replacing an older account: the user put the
    /// line back since, and it is this run's removal that is to be undone) before the write.
    Taken(record::RecordedGitignore),
    /// The lines go back (a local store): the account is cleared after the write; the line to
    /// say, if any.
    PutBack(Option<String>),
}

/// What becomes of the project's `.gitignore`: for a `shared` store, its lines that ignore all
/// of `.capn/` go ([`shared::plan_shared_root`]); for a local one, the lines an earlier
/// `init --shared` took out (`recorded`) come back ([`shared::plan_put_back`]), and otherwise it
/// is left alone but for the line capn 0.3 added, when `from_0_3` (this user's install record
/// was written by 0.3, whose `init` added it: [`shared::plan_legacy`]).
///
/// Errors: theirs, with what to do instead; nothing has been written.
fn plan_root_gitignore(
    root: &Path,
    shared: bool,
    from_0_3: bool,
    recorded: Option<&record::RecordedGitignore>,
) -> Result<(shared::RootIgnore, GitignoreRecord)> {
    let plan = if shared {
        shared::plan_shared_root(root).map(|(p, taken)| {
            (
                p,
                taken.map_or(GitignoreRecord::Same, GitignoreRecord::Taken),
            )
        })
    } else if let Some(recorded) = recorded {
        shared::plan_put_back(root, recorded).map(|(p, said)| (p, GitignoreRecord::PutBack(said)))
    } else if from_0_3 {
        shared::plan_legacy(root).map(|p| (p, GitignoreRecord::Same))
    } else {
        Ok((shared::RootIgnore::Keep, GitignoreRecord::Same))
    };
    plan.map_err(|e| {
        anyhow::anyhow!(
            "{e:#}; nothing was changed (make .gitignore a regular file, then run capn init again)"
        )
    })
}

/// The folders of [`created_dirs`] that are not there yet (init records those it creates, so
/// `uninstall` removes them once empty).
fn missing_dirs(root: &Path) -> Vec<String> {
    created_dirs()
        .into_iter()
        .filter(|d| std::fs::symlink_metadata(root.join(d)).is_err())
        .collect()
}

/// The files capn owns whole of the `hosts` set up, each with what `init` does with it.
///
/// Errors: [`more_hosts::plan_own`]'s; nothing was written.
fn plan_own_files(root: &Path, hosts: &[Host]) -> Result<Vec<(OwnFile, OwnPlan)>> {
    more_hosts::OWN_FILES
        .into_iter()
        .filter(|f| hosts.contains(&f.host))
        .map(|file| Ok((file, more_hosts::plan_own(root, &file)?)))
        .collect()
}

/// With `--git`: the post-commit hook git runs and what adding `capn prune --expired` to it
/// does. Errors: a hook capn must not edit (refused with the line to add by hand).
fn plan_git_hook(root: &Path, git: bool) -> Result<Option<(PathBuf, git_hook::AddPlan)>> {
    if !git {
        return Ok(None);
    }
    let path = git_hook::post_commit_path(root)?;
    let plan = git_hook::plan_add(&path)?;
    Ok(Some((path, plan)))
}

/// What earlier runs recorded (see [`crate::install::record`]), or an empty record, with a line
/// in `done` when the one there is replaced (unreadable, or not this user's); whether capn
/// 0.3 wrote it ([`InstallRecord::written_by_0_3`]); and the `.gitignore` lines a replaced
/// record that is not this user's says `init --shared` took out.
fn earlier_record(
    root: &Path,
    done: &mut Vec<String>,
) -> (InstallRecord, bool, Option<record::RecordedGitignore>) {
    let mut foreign = None;
    let rec = match record::load(root) {
        record::Loaded::Found(r) => {
            let from_0_3 = r.written_by_0_3();
            return (r, from_0_3, None);
        }
        record::Loaded::Missing => InstallRecord::default(),
        record::Loaded::Unreadable(why) => {
            done.push(format!(
                "replaced the unreadable install record ({why}); capn uninstall will only remove \
                 what this run records"
            ));
            InstallRecord::default()
        }
        record::Loaded::Foreign(why, gitignore) => {
            foreign = gitignore;
            done.push(format!(
                "replaced the install record .capn/install.json: {why} (capn trusts only a \
                 record capn init wrote for you in this project; this one may have come with the \
                 repository); capn uninstall will only remove what this run records"
            ));
            InstallRecord::default()
        }
    };
    (rec, false, foreign)
}

/// Fails, naming `path`, when capn's own file there must not be written.
fn refuse_unwritable(path: &Path) -> Result<()> {
    if let Some(why) = crate::fsutil::unwritable_reason(path) {
        anyhow::bail!(
            "could not write {}: {why}; nothing was changed",
            path.display()
        );
    }
    Ok(())
}

/// Fails with the reason when a file `init` is about to change must not be written (see
/// [`super::SettingsFile::refusal`] and [`crate::fsutil::unwritable_reason`]).
fn refusals(
    root: &Path,
    files: &[HostFile],
    gitignore_changes: bool,
    skill: SkillPlan,
) -> Result<()> {
    let gitignore = root.join(".gitignore");
    for f in files {
        if let Some(why) = f.file.refusal() {
            anyhow::bail!(
                "{why} (register the capn hooks by hand: INSTALL.md, \"Registering by hand\")"
            );
        }
    }
    if gitignore_changes {
        if let Some(why) = crate::fsutil::unwritable_reason(&gitignore) {
            anyhow::bail!(
                "could not edit {}: {why}; nothing was changed",
                gitignore.display()
            );
        }
    }
    // capn's own files in .capn/, written by apply: a folder, FIFO or symlink there is refused
    // now, not after .gitignore and the settings files have changed.
    for path in [
        Store::at(root.to_path_buf()).config_path(),
        record::record_path(root),
    ] {
        refuse_unwritable(&path)?;
    }
    if let SkillPlan::Install = skill {
        let path = skill_path(root);
        if let Some(why) = crate::fsutil::unwritable_reason(&path) {
            anyhow::bail!(
                "could not install {}: {why}; nothing was changed",
                path.display()
            );
        }
    }
    Ok(())
}

/// Refuses, before anything is written, a run whose install record would be too large for
/// `uninstall` to read back ([`crate::fsutil::limits::HOST_FILE`]): the record keeps each
/// changed settings file's bytes from before `init`, escaped as JSON, so a settings file of
/// a few MiB can make one twice its size, and a record uninstall cannot read restores nothing.
fn record_fits(rec: &InstallRecord, files: &[HostFile]) -> Result<()> {
    let mut trial = rec.clone();
    for f in files {
        record_change(&mut trial, f);
    }
    let size = serde_json::to_string_pretty(&trial)?.len() as u64 + 200; // + version and mac
    if size > crate::fsutil::limits::HOST_FILE {
        anyhow::bail!(
            "the settings files are too large for capn to keep a copy it could restore them \
             from ({size} bytes of install record, over the {}-byte limit uninstall reads); \
             nothing was changed (register the capn hooks by hand: INSTALL.md, \"Registering by \
             hand\")",
            crate::fsutil::limits::HOST_FILE
        );
    }
    Ok(())
}

/// Records in `rec` what this run changes in the settings file `f`: that it creates it, and its
/// bytes before and after (see [`InstallRecord::set_file`]).
pub(crate) fn record_change(rec: &mut InstallRecord, f: &HostFile) {
    if f.file.changed() {
        if !f.file.existed() {
            rec.add_created_file(f.rel);
        }
        rec.set_file(f.rel, f.file.original_bytes(), &f.file.bytes(), f.fresh);
    }
}

/// What `init` does with the `.gitignore` files.
pub(crate) struct Ignores {
    /// The project's.
    pub root: shared::RootIgnore,
    /// The install record's account of the project's.
    pub record: GitignoreRecord,
    /// The store's.
    pub store: shared::StoreIgnore,
}

impl Ignores {
    /// True when the project's `.gitignore` is edited, and so to be committed (put back as it
    /// was, it is not).
    pub(crate) fn edits_root(&self) -> bool {
        self.root != shared::RootIgnore::Keep && !matches!(self.record, GitignoreRecord::PutBack(_))
    }
}

/// What `init` does with the skill file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillPlan {
    /// It is absent: install it.
    Install,
    /// The bundled one is there.
    Present,
    /// Another text is there (the user's edits): keep it.
    Differs,
    /// The capn plugin ships it (`/capn:compact-prep`): nothing to install.
    FromPlugin,
    /// The project has none and the user's (`~/.claude/skills/compact-prep/`, from
    /// `capn init --user`) serves every project: nothing to install.
    FromUser,
    /// No host that runs the skill ([`crate::hosts::HostSpec::prep_skill`]) is set up in this
    /// run: nothing to install.
    NoSkillHost,
}

/// What `init` does with the skill for the `hosts` set up: nothing without a host that runs it
/// ([`crate::hosts::HostSpec::prep_skill`]: Claude Code), nor when the capn plugin of such a
/// host (enabled in its project `files` or the `user`'s) or the user's own skill serves it;
/// else as [`plan_skill`] decides.
///
/// Errors: [`plan_skill`]'s.
fn plan_skill_for(
    root: &Path,
    hosts: &[Host],
    files: &[HostFile],
    user: &UserFiles,
) -> Result<SkillPlan> {
    let skill_hosts = || hosts.iter().map(|h| h.spec()).filter(|s| s.prep_skill);
    Ok(if skill_hosts().next().is_none() {
        SkillPlan::NoSkillHost
    } else if skill_hosts().any(|s| settings::from_plugin(s, files, user)) {
        SkillPlan::FromPlugin
    } else {
        match plan_skill(root)? {
            SkillPlan::Install if user_skill_installed() => SkillPlan::FromUser,
            plan => plan,
        }
    })
}

/// Reads the skill file (never blocking, never through a symlink) and decides.
///
/// Errors: it is a symlink, a FIFO or other special file, or cannot be read.
fn plan_skill(root: &Path) -> Result<SkillPlan> {
    use crate::install::skill::SkillFile;
    Ok(match crate::install::skill::read_skill(root)? {
        SkillFile::Missing => SkillPlan::Install,
        SkillFile::Bundled => SkillPlan::Present,
        SkillFile::Edited => SkillPlan::Differs,
    })
}

/// True when the user has the `/compact-prep` skill in `~/.claude/skills/` (bundled or edited;
/// read without following a symlink or blocking): Claude Code offers it in every project.
fn user_skill_installed() -> bool {
    use crate::install::skill::{read_skill, SkillFile};
    crate::env::home_dir().is_some_and(|home| {
        matches!(
            read_skill(&home),
            Ok(SkillFile::Bundled | SkillFile::Edited)
        )
    })
}

#[cfg(test)]
mod tests {
    /// The folders come from the host table in the order `init` always recorded them: parents
    /// first (uninstall removes them deepest first), the skill's beside Claude Code's.
    #[test]
    fn the_created_folders_are_the_hosts_parents_first() {
        assert_eq!(
            super::created_dirs(),
            [
                ".claude",
                ".claude/skills",
                ".claude/skills/compact-prep",
                ".codex",
                ".gemini",
                ".qwen",
                ".github",
                ".github/hooks",
                ".opencode",
                ".opencode/plugins",
            ]
        );
    }
}
