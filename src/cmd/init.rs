//! `capn init [--git] [--embedding|--no-embedding]`: set up capn in this project.
//!
//! Creates `.capn/entries/` and `.capn/config.json`, adds `.capn/` to `.gitignore` once, merges
//! the hook registrations of `hooks-config/` into `.claude/settings.json` and `.codex/hooks.json`
//! (see `crate::install`), and with `--git` adds `capn prune` to the post-commit hook git runs
//! (see [`crate::install::git_hook`]). Idempotent: a second run changes nothing and says so. Every
//! settings file is parsed, and the post-commit hook checked, before anything is written, so a
//! broken one stops `init` with nothing changed.

use crate::cli::InitArgs;
use crate::install::record::{self, InstallRecord, RecordedPostCommit, RecordedStatusline};
use crate::install::{self, git_hook, SettingsFile};
use crate::store::Store;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The Claude Code project settings file, relative to the project root.
pub const CLAUDE_SETTINGS: &str = ".claude/settings.json";
/// The Claude Code local settings file, relative to the project root.
pub const CLAUDE_LOCAL_SETTINGS: &str = ".claude/settings.local.json";
/// The Codex hooks file, relative to the project root.
pub const CODEX_HOOKS: &str = ".codex/hooks.json";

/// Runs `capn init`.
pub fn run(args: &InitArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    // A symlinked .capn/ is refused before anything is touched.
    store.check_dirs()?;
    let root = store.root.clone();
    let mut done: Vec<String> = Vec::new();

    // Parse every settings file first: a broken one means nothing is written at all.
    let mut claude = SettingsFile::load(&root.join(CLAUDE_SETTINGS))?;
    let mut claude_local = SettingsFile::load(&root.join(CLAUDE_LOCAL_SETTINGS))?;
    let mut codex = SettingsFile::load(&root.join(CODEX_HOOKS))?;
    // Worked out (and refused, for a hook that is not a shell script) before anything is written.
    let git_hook = if args.git {
        let path = git_hook::post_commit_path(&root)?;
        let plan = git_hook::plan_add(&path)?;
        Some((path, plan))
    } else {
        None
    };

    // What this run adds is merged into what earlier runs recorded (see install::record).
    let mut rec = match record::load(&root) {
        record::Loaded::Found(r) => r,
        record::Loaded::Missing => InstallRecord::default(),
        record::Loaded::Unreadable(why) => {
            done.push(format!(
                "replaced the unreadable install record ({why}); capn uninstall will only remove \
                 what this run records"
            ));
            InstallRecord::default()
        }
    };

    if !store.entries_dir().is_dir() {
        std::fs::create_dir_all(store.entries_dir())
            .with_context(|| format!("could not create {}", store.entries_dir().display()))?;
        done.push("created .capn/".into());
    }
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
    if add_to_gitignore(&root.join(".gitignore"))? {
        done.push("added .capn/ to .gitignore".into());
    }

    // The user-level files count for their host too (only read: never written by init).
    let user_claude = user_settings(USER_CLAUDE_SETTINGS);
    let user_codex = user_settings(USER_CODEX_HOOKS);
    for (table, target, others, user, label) in [
        (
            install::CLAUDE_TABLE,
            &mut claude,
            vec![&mut claude_local],
            &user_claude,
            CLAUDE_SETTINGS,
        ),
        (
            install::CODEX_TABLE,
            &mut codex,
            vec![],
            &user_codex,
            CODEX_HOOKS,
        ),
    ] {
        let mut others = others;
        let user: Vec<&SettingsFile> = user.iter().collect();
        let report = install::merge_counting(table, target, &mut others, &user)?;
        if report.legacy_removed > 0 {
            done.push(format!(
                "replaced the capn-hook 0.2 registration (capn context) in {label}"
            ));
        }
        for event in &report.added {
            done.push(format!("registered the {event} hook in {label}"));
        }
        for (event, handler) in &report.handlers {
            rec.add_handler(label, event, handler);
        }
    }
    let user_statusline = user_statusline_command();
    let statuslines_before = [
        install::statusline_value(&claude.json).cloned(),
        install::statusline_value(&claude_local.json).cloned(),
    ];
    match install::merge_statusline(&mut claude, &mut claude_local, user_statusline.as_deref()) {
        install::StatuslineChange::AlreadyOurs => {}
        install::StatuslineChange::Added => {
            done.push("set the statusline to capn statusline in .claude/settings.json".into())
        }
        install::StatuslineChange::Wrapped(orig) => done.push(format!(
            "set the statusline to capn statusline, wrapping your {orig:?} (capn uninstall restores it)"
        )),
    }
    for ((f, label), before) in [
        (&claude, CLAUDE_SETTINGS),
        (&claude_local, CLAUDE_LOCAL_SETTINGS),
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
    let codex_changed = codex.changed();
    for (f, label) in [
        (&claude, CLAUDE_SETTINGS),
        (&claude_local, CLAUDE_LOCAL_SETTINGS),
        (&codex, CODEX_HOOKS),
    ] {
        // Recorded first: a record naming a change that did not happen removes nothing, while a
        // change without a record could never be undone.
        if !f.existed && f.changed() {
            rec.add_created_file(label);
        }
        rec.save(&root)?;
        f.save()?;
    }

    if !skill_path(&root).exists() {
        rec.skill = true;
        rec.save(&root)?;
    }
    done.extend(install_skill(&root)?);
    if let Some((path, plan)) = git_hook {
        if plan != git_hook::AddPlan::Present {
            let created = matches!(plan, git_hook::AddPlan::Create(_))
                || rec
                    .post_commit
                    .as_ref()
                    .is_some_and(|p| p.created && p.names(&root, &path));
            rec.post_commit = Some(RecordedPostCommit::new(&root, &path, created));
            rec.save(&root)?;
        }
        if git_hook::apply_add(&path, &plan)? {
            done.push(format!(
                "added capn prune to {}",
                crate::store::display_rel(&root, &path)
            ));
        }
    }

    let mut out = std::io::stdout().lock();
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
    Ok(ExitCode::SUCCESS)
}

/// The user-level Claude Code settings file, relative to the home folder.
pub const USER_CLAUDE_SETTINGS: &str = ".claude/settings.json";
/// The user-level Codex hooks file, relative to the home folder.
pub const USER_CODEX_HOOKS: &str = ".codex/hooks.json";

/// The user-level settings file `rel` (relative to the home folder), when there is a home
/// folder and the file parses (a broken user file is doctor's to report, not init's to fix).
fn user_settings(rel: &str) -> Option<SettingsFile> {
    let home = directories::BaseDirs::new()?.home_dir().to_path_buf();
    SettingsFile::load(&home.join(rel)).ok()
}

/// The statusline command in the user's `~/.claude/settings.json`, if any (project settings
/// override it, so ours must wrap it to keep it visible).
pub fn user_statusline_command() -> Option<String> {
    let f = user_settings(USER_CLAUDE_SETTINGS)?;
    f.json
        .get("statusLine")?
        .get("command")?
        .as_str()
        .map(str::to_string)
}

/// Adds a `.capn/` line to `.gitignore` unless an equivalent line is there. Keeps the file's line
/// ending style (CRLF or LF) and adds a line break first when the file lacks a final one.
fn add_to_gitignore(path: &Path) -> Result<bool> {
    let text = crate::fsutil::read_opt(path, ".gitignore", crate::fsutil::limits::HOST_FILE)?
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let present = text.lines().map(|l| l.trim()).any(|l| {
        matches!(
            l,
            ".capn" | ".capn/" | "/.capn" | "/.capn/" | ".capn/*" | "/.capn/*"
        )
    });
    if present {
        return Ok(false);
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut new = text.clone();
    if !new.is_empty() && !new.ends_with('\n') {
        new.push_str(eol);
    }
    new.push_str(".capn/");
    new.push_str(eol);
    crate::fsutil::write_atomic(path, new.as_bytes())?;
    Ok(true)
}

/// Where `init` installs the bundled `/compact-prep` skill (skills reference: project skills live
/// in `.claude/skills/<name>/SKILL.md`).
pub fn skill_path(root: &Path) -> PathBuf {
    root.join(".claude/skills")
        .join(crate::hook::skill::SKILL_NAME)
        .join("SKILL.md")
}

/// Installs the bundled skill when absent. A different file already there is kept (it may hold
/// the user's edits) and reported. Returns what it did.
///
/// Errors: the skill cannot be written.
pub fn install_skill(root: &Path) -> Result<Option<String>> {
    let path = skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    match crate::fsutil::read_opt(&path, "skill", crate::fsutil::limits::HOST_FILE)? {
        Some(text) if text == crate::hook::skill::SKILL_MD.as_bytes() => Ok(None),
        Some(_) => Ok(Some(format!(
            "kept {rel}: it differs from the bundled /compact-prep skill (delete it and run capn init to update)"
        ))),
        None => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("could not create {}", dir.display()))?;
            }
            crate::fsutil::write_atomic(&path, crate::hook::skill::SKILL_MD.as_bytes())?;
            Ok(Some(format!("installed the /compact-prep skill in {rel}")))
        }
    }
}

/// Removes the bundled skill if it is unmodified (and its folder if left empty). Returns what it
/// did.
///
/// Errors: the file cannot be removed.
pub fn uninstall_skill(root: &Path) -> Result<Option<String>> {
    let path = skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    let text = crate::fsutil::read_limited(
        &path,
        crate::fsutil::limits::HOST_FILE,
        crate::fsutil::Follow::Never,
    );
    match text {
        Ok(text) if text == crate::hook::skill::SKILL_MD.as_bytes() => {
            std::fs::remove_file(&path)
                .with_context(|| format!("could not remove {}", path.display()))?;
            if let Some(dir) = path.parent() {
                let _ = std::fs::remove_dir(dir);
                if let Some(skills) = dir.parent() {
                    let _ = std::fs::remove_dir(skills);
                }
            }
            Ok(Some(format!("removed the /compact-prep skill from {rel}")))
        }
        Ok(_) => Ok(Some(format!(
            "kept {rel}: it was changed after capn init installed it"
        ))),
        Err(_) => Ok(None),
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
        assert!(add_to_gitignore(&p).unwrap());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "node_modules\r\ndist\r\n.capn/\r\n"
        );
        assert!(!add_to_gitignore(&p).unwrap());
    }
}
