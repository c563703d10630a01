//! `capn init [--git] [--embedding|--no-embedding]`: set up capn in this project.
//!
//! Creates `.capn/entries/` and `.capn/config.json`, adds `.capn/` to `.gitignore` once, merges
//! the hook registrations of `hooks-config/` into `.claude/settings.json` and `.codex/hooks.json`
//! (see `crate::install`), and with `--git` adds `capn prune --expired` to the post-commit hook git runs
//! (see [`crate::install::git_hook`]). Idempotent: a second run changes nothing and says so. Every
//! settings file is parsed, and the post-commit hook checked, before anything is written, so a
//! broken one stops `init` with nothing changed.

use crate::cli::InitArgs;
use crate::install::project::{
    check_project_paths, user_settings, CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS, CODEX_HOOKS,
    PROJECT_SETTINGS, USER_CLAUDE_SETTINGS, USER_CODEX_HOOKS,
};
use crate::install::record::{
    self, InstallRecord, RecordedPostCommit, RecordedReplaced, RecordedStatusline,
};
use crate::install::skill::skill_path;
use crate::install::{self, git_hook, shared, SettingsFile};
use crate::store::Store;
use anyhow::Result;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Everything `init` will change, worked out before anything is written.
struct Plan {
    claude: SettingsFile,
    claude_local: SettingsFile,
    codex: SettingsFile,
    gitignore: Option<Vec<u8>>,
    skill: SkillPlan,
    git_hook: Option<(PathBuf, git_hook::AddPlan)>,
    /// The store is to be shared through git ([`crate::install::shared`]).
    shared: bool,
    store_ignore: shared::StoreIgnore,
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
    // Parse every settings file first: a broken one means nothing is written at all.
    let mut claude = SettingsFile::load(&root.join(CLAUDE_SETTINGS))?;
    let mut claude_local = SettingsFile::load(&root.join(CLAUDE_LOCAL_SETTINGS))?;
    let mut codex = SettingsFile::load(&root.join(CODEX_HOOKS))?;
    // Worked out (and refused, for a hook that is not a shell script) before anything is written.
    let git_hook = if args.git {
        let path = git_hook::post_commit_path(root)?;
        let plan = git_hook::plan_add(&path)?;
        Some((path, plan))
    } else {
        None
    };
    let store = Store::at(root.to_path_buf());
    let shared = args.shared || (!args.local && store.config().shared);
    let store_ignore = shared::plan_store_ignore(&store.dir.join(".gitignore"), shared)?;
    let gitignore = plan_root_gitignore(root, shared)?;
    // The user-level files count for their host too (only read: never written by init).
    let user = UserFiles {
        claude: user_settings(USER_CLAUDE_SETTINGS),
        codex: user_settings(USER_CODEX_HOOKS),
    };
    let skill = if claude_from_plugin(&claude, &claude_local, &user) {
        SkillPlan::FromPlugin
    } else {
        plan_skill(root)?
    };

    // What this run adds is merged into what earlier runs recorded (see install::record).
    let mut rec = earlier_record(root, &mut done);
    let fresh: Vec<bool> = PROJECT_SETTINGS.iter().map(|f| !rec.touches(f)).collect();
    merge_hooks(
        root,
        &mut claude,
        &mut claude_local,
        &mut codex,
        &user,
        &mut rec,
        &mut done,
    )?;
    merge_statusline(&mut claude, &mut claude_local, &user, &mut rec, &mut done);

    // Every refusal before the first write.
    refusals(
        root,
        [&claude, &claude_local, &codex],
        gitignore.is_some(),
        skill,
    )?;
    if store_ignore == shared::StoreIgnore::Write {
        refuse_unwritable(&store.dir.join(".gitignore"))?;
    }
    record_fits(&rec, [&claude, &claude_local, &codex], &fresh)?;
    Ok(Plan {
        claude,
        claude_local,
        codex,
        gitignore,
        skill,
        git_hook,
        shared,
        store_ignore,
        rec,
        fresh,
        done,
    })
}

/// The new bytes of the project's `.gitignore` ([`plan_gitignore_shared`] for a `shared`
/// store, else [`plan_gitignore`]), or `None` when it needs no change.
///
/// Errors: theirs, with what to do instead; nothing has been written.
fn plan_root_gitignore(root: &Path, shared: bool) -> Result<Option<Vec<u8>>> {
    let path = root.join(".gitignore");
    let gitignore = if shared {
        plan_gitignore_shared(&path)
    } else {
        plan_gitignore(&path)
    };
    gitignore.map_err(|e| {
        anyhow::anyhow!(
            "{e:#}; nothing was changed (add the line .capn/ to your .gitignore yourself, or make it a regular file, then run capn init again)"
        )
    })
}

/// What earlier runs recorded (see [`crate::install::record`]), or an empty record, with a line
/// in `done` when the one there is replaced (unreadable, or not this user's).
fn earlier_record(root: &Path, done: &mut Vec<String>) -> InstallRecord {
    match record::load(root) {
        record::Loaded::Found(r) => r,
        record::Loaded::Missing => InstallRecord::default(),
        record::Loaded::Unreadable(why) => {
            done.push(format!(
                "replaced the unreadable install record ({why}); capn uninstall will only remove \
                 what this run records"
            ));
            InstallRecord::default()
        }
        record::Loaded::Foreign(why) => {
            done.push(format!(
                "replaced the install record .capn/install.json: {why} (capn trusts only a \
                 record capn init wrote for you in this project; this one may have come with the \
                 repository); capn uninstall will only remove what this run records"
            ));
            InstallRecord::default()
        }
    }
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
    files: [&SettingsFile; 3],
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
                "could not add .capn/ to {}: {why}; nothing was changed",
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
fn record_fits(rec: &InstallRecord, files: [&SettingsFile; 3], fresh: &[bool]) -> Result<()> {
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

/// Merges the hook tables into the settings files (in memory) and records what was added and
/// what older registrations were replaced.
fn merge_hooks(
    root: &Path,
    claude: &mut SettingsFile,
    claude_local: &mut SettingsFile,
    codex: &mut SettingsFile,
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<()> {
    let from_plugin = claude_from_plugin(claude, claude_local, user);
    let mut hosts = vec![(
        crate::hosts::CODEX_TABLE,
        codex,
        vec![],
        &user.codex,
        CODEX_HOOKS,
    )];
    if from_plugin {
        done.push(format!(
            "Claude Code hooks: the capn plugin ({}) registers them; not added to {CLAUDE_SETTINGS}",
            install::PLUGIN_ID
        ));
    } else {
        hosts.insert(
            0,
            (
                crate::hosts::CLAUDE_TABLE,
                claude,
                vec![claude_local],
                &user.claude,
                CLAUDE_SETTINGS,
            ),
        );
    }
    for (table, target, others, user, label) in hosts {
        let mut others = others;
        let user: Vec<&SettingsFile> = user.iter().collect();
        let report = install::merge_counting(table, target, &mut others, &user)?;
        for r in &report.replaced {
            let file = crate::store::display_rel(root, &r.path);
            done.push(format!(
                "replaced the capn-hook {} registration {} of {} in {file} (capn uninstall puts it back)",
                install::legacy_version(&r.handler),
                crate::present::quote(
                    &crate::install::command_line(&r.handler),
                    crate::present::MAX_QUESTION_CHARS
                ),
                r.event
            ));
            rec.add_replaced(RecordedReplaced {
                file,
                event: r.event.clone(),
                matcher: r.matcher.clone(),
                handler: r.handler.clone(),
                position: Some(r.position),
            });
        }
        for (path, _) in &report.upgraded {
            done.push(format!(
                "registered the SessionStart hook for every source in {} (the matcher {:?} left out forked sessions)",
                crate::store::display_rel(root, path),
                install::OLD_SESSION_START_MATCHER
            ));
        }
        for event in &report.added {
            done.push(format!("registered the {event} hook in {label}"));
        }
        for (event, handler) in &report.handlers {
            rec.add_handler(label, event, handler);
        }
    }
    Ok(())
}

/// True when capn's Claude Code plugin is enabled in the project, local or user settings.
fn claude_from_plugin(claude: &SettingsFile, local: &SettingsFile, user: &UserFiles) -> bool {
    let mut all = vec![&claude.json, &local.json];
    all.extend(user.claude.as_ref().map(|u| &u.json));
    install::plugin_enabled(&all)
}

/// Makes ours the statusline (in memory) and records what it was.
fn merge_statusline(
    claude: &mut SettingsFile,
    claude_local: &mut SettingsFile,
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    let user_statusline = user
        .claude
        .as_ref()
        .and_then(|f| install::statusline_command(&f.json))
        .map(str::to_string);
    let statuslines_before = [
        install::statusline_value(&claude.json).cloned(),
        install::statusline_value(&claude_local.json).cloned(),
    ];
    match install::merge_statusline(claude, claude_local, user_statusline.as_deref()) {
        install::StatuslineChange::AlreadyOurs => {}
        install::StatuslineChange::Added => {
            done.push("set the statusline to capn statusline in .claude/settings.json".into())
        }
        install::StatuslineChange::Wrapped(orig) => done.push(format!(
            "set the statusline to capn statusline, wrapping your {} (capn uninstall restores it)",
            crate::present::quote(&orig, crate::present::MAX_QUESTION_CHARS)
        )),
    }
    for ((f, label), before) in [
        (&*claude, CLAUDE_SETTINGS),
        (&*claude_local, CLAUDE_LOCAL_SETTINGS),
    ]
    .into_iter()
    .zip(statuslines_before)
    {
        let after = install::statusline_value(&f.json);
        if let Some(after) = after.filter(|a| Some(*a) != before.as_ref()) {
            rec.set_statusline(RecordedStatusline {
                file: label.to_string(),
                before,
                after: after.clone(),
            });
        }
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
        gitignore,
        skill,
        git_hook,
        shared,
        store_ignore,
        mut rec,
        fresh,
        mut done,
    } = plan;
    make_store(store, &mut done)?;
    // Writers of .capn/ hold the lock: config.json and install.json are written below.
    let _lock = match lock {
        Some(lock) => Some(lock),
        None => store.lock_for_setup()?,
    };
    set_config(store, args, shared, &mut done)?;
    write_gitignores(store, gitignore, shared, store_ignore, &mut done)?;
    let codex_changed = codex.changed();
    // Why the install record could not be signed, as its latest save found (`None`: signed).
    let mut unsigned = save_settings(&root, [&claude, &claude_local, &codex], fresh, &mut rec)?;
    if let SkillPlan::Install = skill {
        rec.skill = true;
        unsigned = rec.save(&root)?;
    }
    done.extend(install_skill(&root, &skill)?);
    if let Some((path, plan)) = git_hook {
        if plan != git_hook::AddPlan::Present {
            let created = matches!(plan, git_hook::AddPlan::Create(_))
                || rec
                    .post_commit
                    .as_ref()
                    .is_some_and(|p| p.created && p.names(&root, &path));
            rec.post_commit = Some(RecordedPostCommit::new(&root, &path, created));
            unsigned = rec.save(&root)?;
        }
        if git_hook::apply_add(&root, &path, &plan)? {
            done.push(format!(
                "added capn prune --expired to {}",
                crate::store::display_rel(&root, &path)
            ));
        }
    }
    // The record is saved after each step (so a failure part way leaves a record of what was
    // done); the last save says whether the record as it stands could be signed.
    if let Some(why) = unsigned {
        done.push(format!(
            "could not sign the install record ({why}): capn uninstall will treat it as not \
             yours and remove only what is identical to what capn init writes"
        ));
    }
    report(&root, codex_changed, done)
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

/// Sets `embedding` (on for a new store, or as `--embedding`/`--no-embedding` say) and, with
/// `--shared` or `--local`, `shared` in `.capn/config.json`.
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
    Ok(())
}

/// Writes the project's `.gitignore` (the planned bytes, if any) and adds or removes
/// `.capn/.gitignore` as planned.
///
/// Errors: a file cannot be written or removed.
fn write_gitignores(
    store: &Store,
    gitignore: Option<Vec<u8>>,
    shared: bool,
    store_ignore: shared::StoreIgnore,
    done: &mut Vec<String>,
) -> Result<()> {
    if let Some(bytes) = gitignore {
        crate::fsutil::write_atomic(&store.root.join(".gitignore"), &bytes)?;
        done.push(if shared {
            "removed the .capn/ line from .gitignore (shared: the charts are committed)".into()
        } else {
            "added .capn/ to .gitignore".into()
        });
    }
    let store_gitignore = store.dir.join(".gitignore");
    match store_ignore {
        shared::StoreIgnore::Keep => {}
        shared::StoreIgnore::Write => {
            crate::fsutil::write_atomic(&store_gitignore, shared::STORE_GITIGNORE.as_bytes())?;
            done.push(
                "wrote .capn/.gitignore: git tracks only the charts (entries/*.md) and config.json"
                    .into(),
            );
        }
        shared::StoreIgnore::Remove => {
            crate::fsutil::remove_if_exists(&store_gitignore)?;
            done.push("removed .capn/.gitignore".into());
        }
    }
    Ok(())
}

/// Saves the three settings files of [`PROJECT_SETTINGS`], each recorded in `rec` (and the
/// record saved) before it is written. Returns why the record could not be signed, as its last
/// save found (`None`: signed).
///
/// Errors: the record or a settings file cannot be written.
fn save_settings(
    root: &Path,
    files: [&SettingsFile; 3],
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

fn report(root: &Path, codex_changed: bool, mut done: Vec<String>) -> Result<ExitCode> {
    let mut out = String::new();
    // When the search hook was just registered, or the embedding (which offers need) was just
    // switched, say whether offers are on.
    if done
        .iter()
        .any(|l| l.starts_with("registered the PreToolUse hook") || l.starts_with("set embedding "))
    {
        let store = crate::store::Store::at(root.to_path_buf());
        let config = crate::config::Config::load(&store.config_path());
        done.push(if config.embedding {
            OFFERS_NOTE.into()
        } else {
            OFFERS_OFF_NOTE.into()
        });
    }
    if codex_changed {
        done.push(
            "Codex: project hooks run only once trusted; open Codex here, run /hooks and trust the capn hooks"
                .into(),
        );
    }
    if done.is_empty() {
        writeln!(
            out,
            "capn is already set up in {}; nothing changed",
            root.display()
        )?;
    } else {
        writeln!(out, "capn init in {}:", root.display())?;
        for line in &done {
            writeln!(out, "  {line}")?;
        }
    }
    crate::present::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Said when this run registered PreToolUse: what the hooks now do unasked, and the switch.
const OFFERS_NOTE: &str = "offers: charted answers matching the user's prompt or the agent's search are added to its context (\"offer\": false in .capn/config.json turns that off)";

/// [`OFFERS_NOTE`] when embedding is off: the injection gate needs it, so nothing is offered.
const OFFERS_OFF_NOTE: &str = "offers: none while embedding is off (the offer gate needs it; capn init --embedding turns them on)";

/// The user-level settings files, read once per run: `~/.claude/settings.json` and
/// `~/.codex/hooks.json` (each `None` when missing, unreadable or unparseable).
struct UserFiles {
    claude: Option<SettingsFile>,
    codex: Option<SettingsFile>,
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
        "set shared off in .capn/config.json: .capn/ stays out of git again; charts committed \
         before stay tracked until git rm -r --cached .capn && git commit"
            .into()
    }])
}

/// The new bytes of `.gitignore` for a shared store: without the lines that ignore all of
/// `.capn/` ([`shared::without_store_lines`]), or `None` when it has none.
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read.
fn plan_gitignore_shared(path: &Path) -> Result<Option<Vec<u8>>> {
    let bytes = crate::fsutil::read_host_file(path, ".gitignore")?.unwrap_or_default();
    Ok(shared::without_store_lines(&bytes))
}

/// The new bytes of `.gitignore` with a `.capn/` line added ([`shared::with_store_line`]), or
/// `None` when an equivalent line is there.
///
/// Errors: the file is a symlink, a FIFO or other special file, or cannot be read.
fn plan_gitignore(path: &Path) -> Result<Option<Vec<u8>>> {
    let bytes = crate::fsutil::read_host_file(path, ".gitignore")?.unwrap_or_default();
    Ok(shared::with_store_line(bytes))
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

/// Carries out the skill plan. Returns what it did.
///
/// Errors: the skill cannot be written.
fn install_skill(root: &Path, plan: &SkillPlan) -> Result<Option<String>> {
    let path = skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    match plan {
        SkillPlan::Present | SkillPlan::FromPlugin => Ok(None),
        SkillPlan::Differs => Ok(Some(format!(
            "kept {rel}: it differs from the bundled /compact-prep skill (delete it and run capn init to update)"
        ))),
        SkillPlan::Install => {
            crate::install::skill::install(root)?;
            Ok(Some(format!("installed the /compact-prep skill in {rel}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_crlf_and_missing_newline() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".gitignore");
        std::fs::write(&p, "node_modules\r\ndist").unwrap();
        let new = plan_gitignore(&p).unwrap().unwrap();
        assert_eq!(new, b"node_modules\r\ndist\r\n.capn/\r\n");
        std::fs::write(&p, new).unwrap();
        assert!(plan_gitignore(&p).unwrap().is_none());
        // Non-UTF-8 bytes stay as they were.
        std::fs::write(&p, b"caf\xe9/\n").unwrap();
        assert_eq!(plan_gitignore(&p).unwrap().unwrap(), b"caf\xe9/\n.capn/\n");
    }
}
