//! `capn init [--git] [--embedding|--no-embedding] [--nudge|--no-nudge]`: set up capn in this
//! project.
//!
//! Creates `.capn/entries/`, `.capn/config.json` and `.capn/.gitignore` (which keeps a local
//! store out of git without touching the project's `.gitignore`: see
//! [`crate::install::shared`]), merges
//! the hook registrations of `hooks-config/` into `.claude/settings.json` and `.codex/hooks.json`
//! (see `crate::install`), and with `--git` adds `capn prune --expired` to the post-commit hook git runs
//! (see [`crate::install::git_hook`]). Idempotent: a second run changes nothing and says so. Every
//! settings file is parsed, and the post-commit hook checked, before anything is written, so a
//! broken one stops `init` with nothing changed.

use crate::cli::InitArgs;

mod report;
mod settings;
use crate::hosts::Host;
use crate::install::more_hosts::{self, OwnFile, OwnPlan};
use crate::install::project::{
    check_project_paths, user_settings, CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS, CODEX_HOOKS,
    GEMINI_SETTINGS, PROJECT_SETTINGS, QWEN_SETTINGS, USER_CLAUDE_SETTINGS, USER_CODEX_HOOKS,
};
use crate::install::record::{self, InstallRecord, RecordedPostCommit};
use crate::install::skill::skill_path;
use crate::install::{git_hook, shared, SettingsFile};
use crate::store::Store;
use anyhow::Result;
use settings::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Everything `init` will change, worked out before anything is written.
struct Plan {
    claude: SettingsFile,
    claude_local: SettingsFile,
    codex: SettingsFile,
    gemini: SettingsFile,
    qwen: SettingsFile,
    /// The files capn owns whole of the hosts set up (Copilot CLI's hooks, OpenCode's plugin).
    own: Vec<(OwnFile, OwnPlan)>,
    /// What becomes of the `.gitignore` files.
    ignores: Ignores,
    skill: SkillPlan,
    /// The folders of [`CREATED_DIRS`] missing before this run.
    missing_dirs: Vec<&'static str>,
    git_hook: Option<(PathBuf, git_hook::AddPlan)>,
    /// The store is to be shared through git ([`crate::install::shared`]).
    shared: bool,
    rec: InstallRecord,
    /// Per file of [`PROJECT_SETTINGS`]: the record named nothing in it before this run.
    fresh: Vec<bool>,
    done: Vec<String>,
}

/// Runs `capn init`: plan first (every file read, every edit made in memory, every refusal
/// checked), then apply. A refusal leaves the project exactly as it was: no `.capn/` created,
/// no `.gitignore` edited.
pub fn run(args: &InitArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    // A symlinked .capn/ is refused before anything is touched.
    store.check_dirs()?;
    let root = store.root.clone();
    check_project_paths(&root)?;
    // Writers of .capn/ hold the lock from the first read: the plan reads install.json and the
    // settings files, and a concurrent init or uninstall between that read and the writes would
    // lose what one of them recorded. (No .capn/ yet: apply takes it once it has made one.)
    let lock = store.lock_for_setup()?;
    let plan = plan(&root, args)?;
    apply(&store, args, plan, lock)
}

/// Works out everything `init` will change (see [`Plan`]), writing nothing.
///
/// Errors: a refusal (a file that does not parse or must not be written); nothing was changed.
fn plan(root: &Path, args: &InitArgs) -> Result<Plan> {
    let mut done: Vec<String> = Vec::new();
    let hosts = more_hosts::selected(root, &args.hosts);
    // Parse every settings file of the hosts set up first: a broken one means nothing is
    // written at all. (Another host's file is not even read: a placeholder that stays unchanged.)
    let load = |host: Host, rel: &str| -> Result<SettingsFile> {
        if hosts.contains(&host) {
            SettingsFile::load(&root.join(rel))
        } else {
            SettingsFile::from_bytes(&root.join(rel), None)
        }
    };
    let mut claude = load(Host::Claude, CLAUDE_SETTINGS)?;
    let mut claude_local = load(Host::Claude, CLAUDE_LOCAL_SETTINGS)?;
    let mut codex = load(Host::Codex, CODEX_HOOKS)?;
    let mut gemini = load(Host::Gemini, GEMINI_SETTINGS)?;
    let mut qwen = load(Host::Qwen, QWEN_SETTINGS)?;
    let own = plan_own_files(root, &hosts)?;
    // Worked out (and refused, for a hook that is not a shell script) before anything is written.
    let git_hook = plan_git_hook(root, args.git)?;
    let store = Store::at(root.to_path_buf());
    let shared = args.shared || (!args.local && (store.config().shared || store.ignore_shares()));
    // What earlier runs recorded (see install::record): this run's changes are merged into it.
    let (mut rec, from_0_3, foreign) = earlier_record(root, &mut done);
    // A record not this user's counts only when the user asks to go back to a local store, and
    // then only for lines that ignore the store (shared::restorable).
    let recorded = rec.gitignore.clone().or(foreign.filter(|_| args.local));
    let (gitignore, gitignore_rec) =
        plan_root_gitignore(root, shared, from_0_3, recorded.as_ref())?;
    let ignores = Ignores {
        root: gitignore,
        record: gitignore_rec,
        store: shared::plan_store_ignore(&store.dir.join(".gitignore"), shared)?,
    };
    let missing_dirs = missing_dirs(root);
    // The user-level files count for their host too (only read: never written by init).
    let user = UserFiles {
        claude: user_settings(USER_CLAUDE_SETTINGS),
        codex: user_settings(USER_CODEX_HOOKS),
    };
    let skill = plan_skill_for(root, &hosts, [&claude, &claude_local], &user)?;

    let fresh: Vec<bool> = PROJECT_SETTINGS.iter().map(|f| !rec.touches(f)).collect();
    let targets = Targets {
        claude: &mut claude,
        claude_local: &mut claude_local,
        codex: &mut codex,
        gemini: &mut gemini,
        qwen: &mut qwen,
    };
    merge_hooks(root, &hosts, targets, &user, &mut rec, &mut done)?;
    if hosts.contains(&Host::Claude) {
        merge_statusline(&mut claude, &mut claude_local, &user, &mut rec, &mut done);
        merge_allow(&mut claude, &claude_local, &user, &mut rec, &mut done);
    }

    // Every refusal before the first write.
    let files = [&claude, &claude_local, &codex, &gemini, &qwen];
    refusals(root, files, ignores.root != shared::RootIgnore::Keep, skill)?;
    if ignores.store != shared::StoreIgnore::Keep {
        refuse_unwritable(&store.dir.join(".gitignore"))?;
    }
    record_fits(&rec, files, &fresh)?;
    Ok(Plan {
        claude,
        claude_local,
        codex,
        gemini,
        qwen,
        own,
        ignores,
        skill,
        missing_dirs,
        git_hook,
        shared,
        rec,
        fresh,
        done,
    })
}

/// The folders `init` may create for the host files and the skill, parents first: those it
/// created are recorded, and `uninstall` removes them when they are empty again (a folder that
/// was there before `init`, even empty, is the user's and stays).
const CREATED_DIRS: [&str; 10] = [
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
];

/// What a run does to the install record's account of the lines `init --shared` took out of
/// the project's `.gitignore` ([`InstallRecord::gitignore`]).
enum GitignoreRecord {
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

/// The folders of [`CREATED_DIRS`] that are not there yet (init records those it creates, so
/// `uninstall` removes them once empty).
fn missing_dirs(root: &Path) -> Vec<&'static str> {
    CREATED_DIRS
        .iter()
        .copied()
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
/// [`SettingsFile::refusal`] and [`crate::fsutil::unwritable_reason`]).
fn refusals(
    root: &Path,
    files: [&SettingsFile; 5],
    gitignore_changes: bool,
    skill: SkillPlan,
) -> Result<()> {
    let gitignore = root.join(".gitignore");
    for f in files {
        if let Some(why) = f.refusal() {
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
fn record_fits(rec: &InstallRecord, files: [&SettingsFile; 5], fresh: &[bool]) -> Result<()> {
    let mut trial = rec.clone();
    for ((f, label), fresh) in files.into_iter().zip(PROJECT_SETTINGS).zip(fresh) {
        record_change(&mut trial, f, label, *fresh);
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

/// Records in `rec` what this run changes in the settings file `f` (at `label`): that it
/// creates it, and its bytes before and after (see [`InstallRecord::set_file`]).
fn record_change(rec: &mut InstallRecord, f: &SettingsFile, label: &str, fresh: bool) {
    if f.changed() {
        if !f.existed() {
            rec.add_created_file(label);
        }
        rec.set_file(label, f.original_bytes(), &f.bytes(), fresh);
    }
}

/// Carries out `plan`: the store, its config, the `.gitignore` files, the settings files, the
/// skill and the post-commit hook, saving the install record before each change it names.
fn apply(
    store: &Store,
    args: &InitArgs,
    plan: Plan,
    lock: Option<crate::store::lock::StoreLock>,
) -> Result<ExitCode> {
    let root = store.root.clone();
    let Plan {
        claude,
        claude_local,
        codex,
        gemini,
        qwen,
        own,
        ignores,
        skill,
        missing_dirs,
        git_hook,
        shared,
        mut rec,
        fresh,
        mut done,
    } = plan;
    let gitignore_changed = ignores.edits_root();
    make_store(store, &mut done)?;
    // Writers of .capn/ hold the lock: config.json and install.json are written below.
    let _lock = match lock {
        Some(lock) => Some(lock),
        None => store.lock_for_setup()?,
    };
    set_config(store, args, shared, &mut done)?;
    write_gitignores(store, ignores, shared, &mut rec, &mut done)?;
    let codex_changed = codex.changed();
    // Why the install record could not be signed, as its latest save found (`None`: signed).
    let files = [&claude, &claude_local, &codex, &gemini, &qwen];
    let mut unsigned = save_settings(&root, files, fresh, &mut rec)?;
    for (file, plan) in &own {
        done.extend(own_file_step(&root, file, plan, &mut rec, &mut unsigned)?);
    }
    if let SkillPlan::Install = skill {
        rec.skill = true;
        unsigned = rec.save(&root)?;
    }
    done.extend(install_skill(&root, &skill)?);
    if let Some((path, plan)) = git_hook {
        if plan != git_hook::AddPlan::Present {
            rec.post_commit = Some(record_post_commit(
                &root,
                &path,
                &plan,
                rec.post_commit.take(),
            ));
            unsigned = rec.save(&root)?;
        }
        if git_hook::apply_add(&root, &path, &plan)? {
            done.push(format!(
                "added capn prune --expired to {}",
                crate::store::display_rel(&root, &path)
            ));
        }
    }
    if let Some(saved) = record_created_dirs(&root, missing_dirs, &mut rec)? {
        unsigned = saved;
    }
    // The record is saved after each step (so a failure part way leaves a record of what was
    // done); the last save says whether the record as it stands could be signed.
    if let Some(why) = unsigned {
        done.push(format!(
            "could not sign the install record ({why}): capn uninstall will treat it as not \
             yours and remove only what is identical to what capn init writes"
        ));
    }
    report::report(&root, &rec, codex_changed, gitignore_changed, done)
}

/// Records in `rec` the folders of `missing_dirs` that are there now (this run created them),
/// and saves it when there are any: `Some` of why it could not be signed (`None`: signed).
///
/// Errors: the record cannot be written.
fn record_created_dirs(
    root: &Path,
    missing_dirs: Vec<&'static str>,
    rec: &mut InstallRecord,
) -> Result<Option<Option<String>>> {
    let created: Vec<&str> = missing_dirs
        .into_iter()
        .filter(|d| root.join(d).is_dir())
        .collect();
    if created.is_empty() {
        return Ok(None);
    }
    for d in created {
        rec.add_created_dir(d);
    }
    Ok(Some(rec.save(root)?))
}

/// What the record says of the post-commit hook at `path` once `plan` is carried out: whether
/// `init` created it and its text before the first change (both kept from an `earlier` record
/// of the same file), and the SHA-256 of the text `plan` leaves.
fn record_post_commit(
    root: &Path,
    path: &Path,
    plan: &git_hook::AddPlan,
    earlier: Option<RecordedPostCommit>,
) -> RecordedPostCommit {
    let now = crate::fsutil::read_host_file(path, "post-commit hook")
        .ok()
        .flatten();
    let text = match plan {
        git_hook::AddPlan::Create(t) | git_hook::AddPlan::Update(t) => t,
        git_hook::AddPlan::Present => unreachable!("nothing to record"),
    };
    // An earlier record of this file whose text is still there: its "before" (the hook before
    // capn's first change) is what uninstall gives back.
    let created_before = earlier
        .as_ref()
        .is_some_and(|p| p.created && p.names(root, path));
    let earlier = earlier.filter(|p| {
        p.names(root, path)
            && p.after_sha256.is_some()
            && p.after_sha256.as_deref() == now.as_deref().map(git_hook::sha256_hex).as_deref()
    });
    let mut rec = match earlier {
        Some(p) => p,
        None => {
            let mut p = RecordedPostCommit::new(root, path, now.is_none() || created_before);
            if !created_before {
                p.before = now.and_then(|b| String::from_utf8(b).ok());
            }
            p
        }
    };
    rec.after_sha256 = Some(git_hook::sha256_hex(text.as_bytes()));
    rec
}

/// Creates `.capn/entries/` (and, in a linked worktree, this worktree's folder of derived files
/// in the main checkout's store), saying so first in `done`.
fn make_store(store: &Store, done: &mut Vec<String>) -> Result<()> {
    if !store.entries_dir().is_dir() {
        crate::fsutil::ensure_dir_inside(store.home(), &store.entries_dir())?;
        done.insert(0, format!("created {}", store.describe()));
    }
    if store.is_borrowed() {
        // A linked worktree: one memory for the repository, never a second store here.
        crate::fsutil::ensure_dir_inside(store.home(), &store.local)?;
        done.insert(
            0,
            format!(
                "store: {} (this worktree checks charts against its own files)",
                store.describe()
            ),
        );
    }
    Ok(())
}

/// Sets `embedding` (on for a new store, or as `--embedding`/`--no-embedding` say), with
/// `--shared` or `--local`, `shared`, and with `--nudge` or `--no-nudge`, `nudge` in
/// `.capn/config.json`.
///
/// Errors: the config file cannot be parsed or written.
fn set_config(store: &Store, args: &InitArgs, shared: bool, done: &mut Vec<String>) -> Result<()> {
    let embedding = if args.no_embedding {
        Some(false)
    } else if args.embedding || !store.config_path().exists() {
        Some(true)
    } else {
        None
    };
    if let Some(on) = embedding {
        if crate::config::set_key(&store.config_path(), "embedding", on.into())? {
            let mode = if on { "on" } else { "off (BM25 only)" };
            done.push(format!("set embedding {mode} in .capn/config.json"));
        }
    }
    if args.shared || args.local {
        done.extend(set_shared(store, shared)?);
    }
    if args.nudge || args.no_nudge {
        let on = args.nudge;
        if crate::config::set_key(&store.config_path(), "nudge", on.into())? {
            let mode = if on { "on" } else { "off" };
            done.push(format!(
                "set nudge {mode} in .capn/config.json (the Stop hook's ask to chart)"
            ));
        }
    }
    Ok(())
}

/// What `init` does with the `.gitignore` files (see [`Plan`]).
struct Ignores {
    /// The project's.
    root: shared::RootIgnore,
    /// The install record's account of the project's.
    record: GitignoreRecord,
    /// The store's.
    store: shared::StoreIgnore,
}

impl Ignores {
    /// True when the project's `.gitignore` is edited, and so to be committed (put back as it
    /// was, it is not).
    fn edits_root(&self) -> bool {
        self.root != shared::RootIgnore::Keep && !matches!(self.record, GitignoreRecord::PutBack(_))
    }
}

/// Writes the project's `.gitignore` and `.capn/.gitignore` as planned, the lines taken out of
/// the project's recorded in `rec` (saved) before the write, and a put-back account cleared
/// after it.
///
/// Errors: a file cannot be written or removed, or the record cannot be saved.
fn write_gitignores(
    store: &Store,
    ignores: Ignores,
    shared: bool,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<()> {
    let Ignores {
        root: gitignore,
        record: gitignore_rec,
        store: store_ignore,
    } = ignores;
    // .capn/.gitignore first: the store never shows in git status, not even in between.
    if let shared::StoreIgnore::Write(text) = store_ignore {
        crate::fsutil::write_atomic(&store.dir.join(".gitignore"), text.as_bytes())?;
        done.push(if shared {
            "wrote .capn/.gitignore: git tracks only the charts (entries/*.md) and config.json"
        } else if matches!(gitignore_rec, GitignoreRecord::PutBack(_)) {
            // The line below says what becomes of the project's .gitignore.
            "wrote .capn/.gitignore: git ignores the local store"
        } else {
            "wrote .capn/.gitignore: git ignores the local store (your .gitignore is not edited)"
        }
        .into());
    }
    // Committed with the charts: teammates' phrasings merge without a conflict.
    if shared {
        store.ensure_merge_attributes();
    }
    let removed = matches!(gitignore, shared::RootIgnore::Delete);
    if let GitignoreRecord::Taken(taken) = &gitignore_rec {
        // Recorded first: a line taken out without a record could never come back.
        rec.gitignore = Some(taken.clone());
        rec.save(&store.root)?;
    }
    let changed = shared::apply_root(&store.root, &gitignore)?;
    if let GitignoreRecord::PutBack(said) = gitignore_rec {
        rec.gitignore = None;
        rec.save(&store.root)?;
        done.extend(said);
        return Ok(());
    }
    if changed {
        done.push(if shared {
            "removed the .capn/ line from .gitignore (shared: the charts are committed; capn \
             init --local or capn uninstall puts it back)"
                .into()
        } else if removed {
            "removed .gitignore: it held only the .capn/ line capn 0.3 added".into()
        } else {
            "took the .capn/ line capn 0.3 added out of .gitignore (.capn/.gitignore keeps the store out of git)".into()
        });
    }
    Ok(())
}

/// Saves the settings files of [`PROJECT_SETTINGS`], each recorded in `rec` (and the
/// record saved) before it is written. Returns why the record could not be signed, as its last
/// save found (`None`: signed).
///
/// Errors: the record or a settings file cannot be written.
fn save_settings(
    root: &Path,
    files: [&SettingsFile; 5],
    fresh: Vec<bool>,
    rec: &mut InstallRecord,
) -> Result<Option<String>> {
    let mut unsigned = None;
    for ((f, label), fresh) in files.into_iter().zip(PROJECT_SETTINGS).zip(fresh) {
        // Recorded first: a record naming a change that did not happen removes nothing, while a
        // change without a record could never be undone.
        record_change(rec, f, label, fresh);
        unsigned = rec.save(root)?;
        f.save()?;
    }
    Ok(unsigned)
}

/// Sets `"shared"` in `.capn/config.json` (`capn init --shared` or `--local`) and says what to
/// do next when it changed.
///
/// Errors: the config file cannot be parsed or written.
fn set_shared(store: &Store, shared: bool) -> Result<Vec<String>> {
    if !crate::config::set_key(&store.config_path(), "shared", shared.into())? {
        return Ok(Vec::new());
    }
    Ok(vec![if shared {
        "set shared in .capn/config.json: the charts are for the team; commit them with \
         git add .capn && git commit (capn never deletes a shared chart on its own)"
            .into()
    } else {
        "set shared off in .capn/config.json: .capn/ stays out of git again (.capn/.gitignore); \
         charts committed before stay tracked until git rm -r --cached .capn && git commit"
            .into()
    }])
}

/// What `init` does with the skill file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkillPlan {
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
    /// Claude Code is not set up in this run: nothing to install.
    NotClaude,
}

/// What `init` does with the skill for the `hosts` set up: nothing without Claude Code, nor
/// when the capn plugin (enabled in `claude`'s files or the `user`'s) or the user's own skill
/// serves it; else as [`plan_skill`] decides.
///
/// Errors: [`plan_skill`]'s.
fn plan_skill_for(
    root: &Path,
    hosts: &[Host],
    claude: [&SettingsFile; 2],
    user: &UserFiles,
) -> Result<SkillPlan> {
    Ok(if !hosts.contains(&Host::Claude) {
        SkillPlan::NotClaude
    } else if claude_from_plugin(claude[0], claude[1], user) {
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

/// Carries out the skill plan. Returns what it did.
///
/// Errors: the skill cannot be written.
fn install_skill(root: &Path, plan: &SkillPlan) -> Result<Option<String>> {
    let path = skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    match plan {
        SkillPlan::Present | SkillPlan::FromPlugin | SkillPlan::FromUser | SkillPlan::NotClaude => {
            Ok(None)
        }
        SkillPlan::Differs => Ok(Some(format!(
            "kept {rel}: it differs from the bundled /compact-prep skill (delete it and run capn init to update)"
        ))),
        SkillPlan::Install => {
            crate::install::skill::install(root)?;
            Ok(Some(format!("installed the /compact-prep skill in {rel}")))
        }
    }
}
