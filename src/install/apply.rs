//! `capn init`'s writes: [`init`] plans ([`super::plan`]) and then carries the plan out, saving
//! the install record before each change it names, so a failure part way leaves a record of
//! what was done and `uninstall` can undo it.

use super::git_hook;
use super::plan::{self, GitignoreRecord, Ignores, InitOptions, Plan, SkillPlan};
use super::project::check_project_paths;
use super::record::{InstallRecord, RecordedPostCommit};
use super::settings::{self, HostFile};
use super::shared;
use super::skill::skill_path;
use crate::hosts::Host;
use crate::store::Store;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// What a `capn init` run did, for its report.
pub(crate) struct Outcome {
    /// The install record as it now stands.
    pub rec: InstallRecord,
    /// The hosts whose project settings files changed, each once, in host order.
    pub changed_hosts: Vec<Host>,
    /// The project's `.gitignore` was edited (and so is to be committed).
    pub gitignore_changed: bool,
    /// One line per change, in the order made.
    pub done: Vec<String>,
}

/// Sets capn up in `store`'s project as `opts` ask: plan first (every file read, every edit
/// made in memory, every refusal checked), then apply. A refusal leaves the project exactly as
/// it was: no `.capn/` created, no `.gitignore` edited.
///
/// Errors: a refusal (nothing changed), or a failed write naming the file.
pub(crate) fn init(store: &Store, opts: &InitOptions) -> Result<Outcome> {
    // A symlinked .capn/ is refused before anything is touched.
    store.check_dirs()?;
    check_project_paths(&store.root)?;
    // Writers of .capn/ hold the lock from the first read: the plan reads install.json and the
    // settings files, and a concurrent init or uninstall between that read and the writes would
    // lose what one of them recorded. (No .capn/ yet: apply takes it once it has made one.)
    let lock = store.lock_for_setup()?;
    let plan = plan::plan(&store.root, opts)?;
    apply(store, opts, plan, lock)
}

/// Carries out `plan`: the store, its config, the `.gitignore` files, the settings files, the
/// skill and the post-commit hook, saving the install record before each change it names.
fn apply(
    store: &Store,
    opts: &InitOptions,
    plan: Plan,
    lock: Option<crate::store::lock::StoreLock>,
) -> Result<Outcome> {
    let root = store.root.clone();
    let Plan {
        settings: files,
        own,
        ignores,
        skill,
        missing_dirs,
        git_hook,
        refresh_hooks,
        shared,
        mut rec,
        mut done,
    } = plan;
    let gitignore_changed = ignores.edits_root();
    make_store(store, &mut done)?;
    // Writers of .capn/ hold the lock: config.json and install.json are written below.
    let _lock = match lock {
        Some(lock) => Some(lock),
        None => store.lock_for_setup()?,
    };
    set_config(store, opts, shared, &mut done)?;
    write_gitignores(store, ignores, shared, &mut rec, &mut done)?;
    let mut changed_hosts: Vec<Host> = Vec::new();
    for f in files.iter().filter(|f| f.file.changed()) {
        if !changed_hosts.contains(&f.host) {
            changed_hosts.push(f.host);
        }
    }
    // Why the install record could not be signed, as its latest save found (`None`: signed).
    let mut unsigned = save_settings(&root, &files, &mut rec)?;
    for (file, plan) in &own {
        done.extend(settings::own_file_step(
            &root,
            file,
            plan,
            &mut rec,
            &mut unsigned,
        )?);
    }
    if let SkillPlan::Install = skill {
        rec.skill = true;
        unsigned = rec.save(&root)?;
    }
    done.extend(install_skill(&root, &skill)?);
    if let Some((path, plan)) = git_hook {
        if let Some(saved) = add_post_commit(&root, &path, &plan, &mut rec, &mut done)? {
            unsigned = saved;
        }
    }
    if let Some(saved) = add_refresh_hooks(&root, &refresh_hooks, &mut rec, &mut done)? {
        unsigned = saved;
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
    Ok(Outcome {
        rec,
        changed_hosts,
        gitignore_changed,
        done,
    })
}

/// Adds `capn prune --expired` to the post-commit hook at `path` as `plan` says, recorded in
/// `rec` (and saved) first when it changes the hook: `Some` of the save's signing result
/// (`Some(None)`: signed) when it saved.
///
/// Errors: the record or the hook cannot be written.
fn add_post_commit(
    root: &Path,
    path: &Path,
    plan: &git_hook::AddPlan,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<Option<Option<String>>> {
    let mut saved = None;
    if *plan != git_hook::AddPlan::Present {
        let earlier = rec.post_commit.take();
        rec.post_commit = Some(record_hook(root, path, plan, &git_hook::PRUNE, earlier));
        saved = Some(rec.save(root)?);
    }
    if git_hook::apply_add(root, path, plan)? {
        done.push(format!(
            "added capn prune --expired to {}",
            crate::store::display_rel(root, path)
        ));
    }
    Ok(saved)
}

/// Adds [`git_hook::REFRESH`] to the hooks as `plans` say, each recorded in `rec` (and saved) before its
/// hook is written: `Some` of the last save's signing result (`Some(None)`: signed) when it
/// saved. What it added goes to `done`.
///
/// Errors: the record or a hook cannot be written.
fn add_refresh_hooks(
    root: &Path,
    plans: &[(PathBuf, git_hook::AddPlan)],
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<Option<Option<String>>> {
    let mut saved = None;
    for (path, plan) in plans {
        if *plan != git_hook::AddPlan::Present {
            let at = rec.refresh_hooks.iter().position(|r| r.names(root, path));
            let earlier = at.map(|i| rec.refresh_hooks.remove(i));
            let now = record_hook(root, path, plan, &git_hook::REFRESH, earlier);
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

/// Records in `rec` the folders of `missing_dirs` that are there now (this run created them),
/// and saves it when there are any: `Some` of why it could not be signed (`None`: signed).
///
/// Errors: the record cannot be written.
fn record_created_dirs(
    root: &Path,
    missing_dirs: Vec<String>,
    rec: &mut InstallRecord,
) -> Result<Option<Option<String>>> {
    let created: Vec<String> = missing_dirs
        .into_iter()
        .filter(|d| root.join(d).is_dir())
        .collect();
    if created.is_empty() {
        return Ok(None);
    }
    for d in created {
        rec.add_created_dir(&d);
    }
    Ok(Some(rec.save(root)?))
}

/// What the record says of the git hook at `path` once `plan` is carried out: whether `init`
/// created it and its text before the first change (both kept from an `earlier` record of the
/// same file; without one, the hook's text now less a lone comment of `hl`'s:
/// [`git_hook::without_lone_comment`]), and the SHA-256 of the text `plan` leaves.
pub(super) fn record_hook(
    root: &Path,
    path: &Path,
    plan: &git_hook::AddPlan,
    hl: &git_hook::HookLine,
    earlier: Option<RecordedPostCommit>,
) -> RecordedPostCommit {
    let now = crate::fsutil::read_host_file(path, &git_hook::hook_label(path))
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
                // A comment of capn's whose line the user deleted is capn's, not the user's:
                // the plan takes it out, and uninstall does not put it back.
                p.before = now
                    .and_then(|b| String::from_utf8(b).ok())
                    .map(|t| git_hook::without_lone_comment(&t, hl));
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
fn set_config(
    store: &Store,
    args: &InitOptions,
    shared: bool,
    done: &mut Vec<String>,
) -> Result<()> {
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
            done.push(format!("set embedding {mode} in {}", store.config_name()));
        }
    }
    if args.shared || args.local {
        let said = set_shared(store, shared)?;
        // Pulls bring a shared store's charts: without the pull hooks, the first ask after each
        // indexes what it brought (about a dozen misses' worth at 10,000 charts).
        let tip = shared && !said.is_empty() && !args.git;
        done.extend(said);
        if tip {
            done.push(
                "tip: capn init --git refreshes the index in the background after each git pull \
                 (post-merge, post-rewrite, post-checkout), so the first ask after one stays fast"
                    .into(),
            );
        }
    }
    if args.nudge || args.no_nudge {
        let on = args.nudge;
        if crate::config::set_key(&store.config_path(), "nudge", on.into())? {
            let mode = if on { "on" } else { "off" };
            done.push(format!(
                "set nudge {mode} in {} (the Stop hook's ask to chart)",
                store.config_name()
            ));
        }
    }
    Ok(())
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

/// Saves the settings files of [`super::project::PROJECT_SETTINGS`], each recorded in `rec` (and the
/// record saved) before it is written. Returns why the record could not be signed, as its last
/// save found (`None`: signed).
///
/// Errors: the record or a settings file cannot be written.
fn save_settings(
    root: &Path,
    files: &[HostFile],
    rec: &mut InstallRecord,
) -> Result<Option<String>> {
    let mut unsigned = None;
    for f in files {
        // Recorded first: a record naming a change that did not happen removes nothing, while a
        // change without a record could never be undone.
        plan::record_change(rec, f);
        unsigned = rec.save(root)?;
        f.file.save()?;
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
    let config = store.config_name();
    Ok(vec![if shared {
        format!(
            "set shared in {config}: the charts are for the team; commit them with \
             git add .capn && git commit (capn never deletes a shared chart on its own)"
        )
    } else {
        format!(
            "set shared off in {config}: .capn/ stays out of git again (.capn/.gitignore); \
             charts committed before stay tracked until git rm -r --cached .capn && git commit"
        )
    }])
}

/// Carries out the skill plan. Returns what it did.
///
/// Errors: the skill cannot be written.
fn install_skill(root: &Path, plan: &SkillPlan) -> Result<Option<String>> {
    let path = skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    match plan {
        SkillPlan::Present | SkillPlan::FromPlugin | SkillPlan::FromUser | SkillPlan::NoSkillHost => {
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
