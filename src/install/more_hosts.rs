//! The hosts beyond Claude Code and Codex ([`crate::hosts`]): which ones `capn init` sets up,
//! and GitHub Copilot CLI's hook file, which capn owns whole.
//!
//! - Gemini CLI (`.gemini/settings.json`) and Qwen Code (`.qwen/settings.json`) list handlers as
//!   Claude Code does, so their tables are merged like Claude Code's and Codex's
//!   ([`super::merge_counting`], format-preserving, recorded for `uninstall`).
//! - Copilot CLI reads every `.github/hooks/*.json`: capn writes its own file,
//!   `.github/hooks/capn.json`, created whole from `hooks-config/copilot.json` and deleted by
//!   `uninstall` only while it still holds exactly those bytes. Copilot also runs the hooks in
//!   `.claude/settings.json` (without their `args`: [`crate::hook::bare`]), which then stand
//!   back while this file exists, so the two never answer twice.

use crate::hosts::{self, Host};
use anyhow::Result;
use std::path::Path;

/// The hosts `capn init` sets up: those named with `--host` (in [`Host::ALL`]'s order, each
/// once), or, with none named, Claude Code and Codex plus each of Gemini CLI and Qwen Code whose
/// folder (`.gemini/`, `.qwen/`) is in the project or in the home folder. Copilot CLI is never
/// added unasked: it already runs capn's Claude Code hooks.
pub fn selected(root: &Path, requested: &[Host]) -> Vec<Host> {
    if !requested.is_empty() {
        return Host::ALL
            .into_iter()
            .filter(|h| requested.contains(h))
            .collect();
    }
    let home = crate::env::home_dir();
    let mut all = vec![Host::Claude, Host::Codex];
    for host in [Host::Gemini, Host::Qwen] {
        if detected(root, home.as_deref(), host) {
            all.push(host);
        }
    }
    all
}

/// True when the host's settings folder (the parent of its first project file) is a folder in
/// the project or in `home` (never followed through a symlink).
fn detected(root: &Path, home: Option<&Path>, host: Host) -> bool {
    let spec = hosts::of(host);
    let Some(dir) = Path::new(spec.files[0]).parent() else {
        return false;
    };
    let is_dir = |base: &Path| {
        std::fs::symlink_metadata(base.join(dir)).is_ok_and(|m| m.file_type().is_dir())
    };
    is_dir(root) || home.is_some_and(is_dir)
}

/// Copilot CLI's hook file of capn's, relative to the project root (`.github/hooks/capn.json`).
pub const COPILOT_FILE: &str = hosts::COPILOT.files[0];

/// What `init` does with [`COPILOT_FILE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopilotPlan {
    /// It holds capn's table already.
    Present,
    /// Create it.
    Create,
    /// It exists with other bytes (edited by hand): left as it is.
    Differs,
}

/// Works out [`CopilotPlan`] for the project, reading [`COPILOT_FILE`] without following a
/// symlink or blocking ([`crate::fsutil::read_host_file`]).
///
/// Errors: the file is a symlink, a FIFO, a folder, or cannot be read (named); nothing was
/// written.
pub fn plan_copilot(root: &Path) -> Result<CopilotPlan> {
    let path = root.join(COPILOT_FILE);
    crate::fsutil::check_inside(root, &path)?;
    Ok(
        match crate::fsutil::read_host_file(&path, "Copilot CLI hooks")? {
            None => CopilotPlan::Create,
            Some(bytes) if bytes == hosts::COPILOT_TABLE.as_bytes() => CopilotPlan::Present,
            Some(_) => CopilotPlan::Differs,
        },
    )
}

/// Creates [`COPILOT_FILE`] with capn's table (atomically; its folders as needed). Returns
/// whether it wrote.
///
/// Errors: a folder or the file cannot be written (named).
pub fn write_copilot(root: &Path, plan: &CopilotPlan) -> Result<bool> {
    if *plan != CopilotPlan::Create {
        return Ok(false);
    }
    let path = root.join(COPILOT_FILE);
    if let Some(parent) = path.parent() {
        crate::fsutil::ensure_dir_inside(root, parent)?;
    }
    crate::fsutil::write_atomic(&path, hosts::COPILOT_TABLE.as_bytes())?;
    Ok(true)
}

/// Deletes [`COPILOT_FILE`] when it holds exactly capn's table (a file edited since is kept,
/// and said so), then the `.github/hooks/` and `.github/` folders if that left them empty.
/// Returns what it did, for `uninstall`'s report.
///
/// Errors: the file cannot be read or deleted (named).
pub fn remove_copilot(root: &Path) -> Result<Option<String>> {
    let path = root.join(COPILOT_FILE);
    if crate::fsutil::check_inside(root, &path).is_err() {
        return Ok(None);
    }
    match crate::fsutil::read_host_file(&path, "Copilot CLI hooks")? {
        None => Ok(None),
        Some(bytes) if bytes == hosts::COPILOT_TABLE.as_bytes() => {
            std::fs::remove_file(&path)
                .map_err(|e| anyhow::anyhow!("could not delete {}: {e}", path.display()))?;
            for dir in [".github/hooks", ".github"] {
                // Only an empty folder goes: remove_dir fails on anything else.
                let _ = std::fs::remove_dir(root.join(dir));
            }
            Ok(Some(format!(
                "deleted {COPILOT_FILE} (the Copilot CLI hooks)"
            )))
        }
        Some(_) => Ok(Some(format!(
            "kept {COPILOT_FILE}: it was edited since capn init wrote it (delete it yourself)"
        ))),
    }
}

/// True when the project at `root` has capn's own Copilot CLI hook file: then Copilot runs it,
/// and capn's Claude Code registrations, which Copilot runs too, stand back. One `stat`.
pub fn copilot_registered(root: &Path) -> bool {
    std::fs::symlink_metadata(root.join(COPILOT_FILE)).is_ok_and(|m| m.file_type().is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_hosts_come_in_table_order_once_and_none_named_detects() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        assert_eq!(
            selected(root, &[Host::Copilot, Host::Gemini, Host::Copilot]),
            [Host::Gemini, Host::Copilot]
        );
        std::fs::create_dir(root.join(".qwen")).unwrap();
        let auto = selected(root, &[]);
        assert!(auto.starts_with(&[Host::Claude, Host::Codex]), "{auto:?}");
        assert!(auto.contains(&Host::Qwen));
        assert!(!auto.contains(&Host::Copilot));
    }

    #[test]
    fn the_copilot_file_is_created_whole_and_removed_only_unedited() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        assert_eq!(plan_copilot(root).unwrap(), CopilotPlan::Create);
        assert!(write_copilot(root, &CopilotPlan::Create).unwrap());
        assert!(copilot_registered(root));
        assert_eq!(plan_copilot(root).unwrap(), CopilotPlan::Present);
        assert!(remove_copilot(root)
            .unwrap()
            .unwrap()
            .starts_with("deleted"));
        assert!(!root.join(".github").exists());
        write_copilot(root, &CopilotPlan::Create).unwrap();
        std::fs::write(root.join(COPILOT_FILE), "{\"version\":1}").unwrap();
        assert_eq!(plan_copilot(root).unwrap(), CopilotPlan::Differs);
        assert!(remove_copilot(root).unwrap().unwrap().starts_with("kept"));
        assert!(root.join(COPILOT_FILE).exists());
    }
}
