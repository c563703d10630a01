//! The install record, `.capn/install.json`: what `capn init` added, so that `capn uninstall`
//! removes exactly that and nothing a user wrote.
//!
//! `init` adds to the record what each run added (merged with what earlier runs recorded):
//! every hook handler with its file and event, the statusline it set (the `statusLine` value
//! before and after), the settings files it created, whether it installed the skill, and where
//! it put the `capn prune` line (and whether it created that hook file). `uninstall` removes the
//! recorded items that are still there, deletes a file only when `init` created it and it is now
//! empty, and then deletes the record.
//!
//! Shape (version 1; unknown keys are ignored):
//!
//! ```json
//! {
//!   "version": 1,
//!   "created_files": [".claude/settings.json"],
//!   "handlers": [{"file": ".claude/settings.json", "event": "SessionStart",
//!                 "handler": {"type": "command", "command": "capn", "args": ["hook", "session-start"], "timeout": 10}}],
//!   "statuslines": [{"file": ".claude/settings.json", "before": null,
//!                    "after": {"type": "command", "command": "capn statusline", "padding": 0}}],
//!   "skill": true,
//!   "post_commit": {"path": ".git/hooks/post-commit", "created": true}
//! }
//! ```

use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The record's file name inside `.capn/`.
pub const RECORD_FILE: &str = "install.json";

/// The record format version written.
pub const RECORD_VERSION: u32 = 1;

/// What `capn init` added (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InstallRecord {
    /// Format version ([`RECORD_VERSION`]).
    pub version: u32,
    /// Settings files `init` created, relative to the project root (`.claude/settings.json`).
    pub created_files: Vec<String>,
    /// Hook handlers `init` added.
    pub handlers: Vec<RecordedHandler>,
    /// The statusline `init` set, per settings file (the latest change for each file).
    pub statuslines: Vec<RecordedStatusline>,
    /// Whether `init` installed the `/compact-prep` skill file.
    pub skill: bool,
    /// Where `init --git` put the `capn prune` line, if it did.
    pub post_commit: Option<RecordedPostCommit>,
}

/// One hook handler `init` added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedHandler {
    /// The settings file, relative to the project root.
    pub file: String,
    /// The event (`SessionStart`, ...).
    pub event: String,
    /// The handler object exactly as added.
    pub handler: Value,
}

/// The statusline `init` set in one settings file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedStatusline {
    /// The settings file, relative to the project root.
    pub file: String,
    /// The `statusLine` value before (`None`: there was none in that file).
    pub before: Option<Value>,
    /// The `statusLine` value `init` left.
    pub after: Value,
}

/// Where `init --git` put the `capn prune` line.
///
/// The path is only a check, never a target: `uninstall` works on the hook git runs for the
/// project now ([`crate::install::git_hook::post_commit_path`]) and trusts `created` only when
/// this path names that same file. So a record that travelled with a moved project, or names
/// some other file, never makes `uninstall` touch a file that is not this project's hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedPostCommit {
    /// The hook file, relative to the project root when it lies inside it (`.git/hooks/...`);
    /// absolute otherwise (a linked worktree's hooks are the main repository's). Records written
    /// by older versions hold an absolute path even inside the project.
    pub path: PathBuf,
    /// Whether `init` created the file.
    pub created: bool,
}

impl RecordedPostCommit {
    /// The record of the hook at `path` for the project at `root` (relative when inside it).
    pub fn new(root: &Path, path: &Path, created: bool) -> Self {
        let path = path
            .strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| path.to_path_buf());
        RecordedPostCommit { path, created }
    }

    /// The recorded path, resolved against the project root when it is relative.
    pub fn resolve(&self, root: &Path) -> PathBuf {
        if self.path.is_absolute() {
            self.path.clone()
        } else {
            root.join(&self.path)
        }
    }

    /// True when the record names the hook at `path` (the project's post-commit hook now).
    pub fn names(&self, root: &Path, path: &Path) -> bool {
        crate::install::git_hook::same_path(&self.resolve(root), path)
    }
}

/// How loading the record went.
#[derive(Debug)]
pub enum Loaded {
    /// There is no record.
    Missing,
    /// The record.
    Found(InstallRecord),
    /// There is a file that is not a record; the reason.
    Unreadable(String),
}

/// The record's path for the project at `root`.
pub fn record_path(root: &Path) -> PathBuf {
    root.join(crate::store::STORE_DIR).join(RECORD_FILE)
}

/// Loads the record of the project at `root`.
pub fn load(root: &Path) -> Loaded {
    let path = record_path(root);
    let read = crate::fsutil::read_limited(
        &path,
        crate::fsutil::limits::HOST_FILE,
        crate::fsutil::Follow::Never,
    );
    let bytes = match read {
        Ok(b) => b,
        Err(crate::fsutil::ReadError::NotFound) => return Loaded::Missing,
        Err(e) => return Loaded::Unreadable(format!("{}: {e}", path.display())),
    };
    match serde_json::from_slice::<InstallRecord>(&bytes) {
        Ok(r) => Loaded::Found(r),
        Err(e) => Loaded::Unreadable(format!("{}: {e}", path.display())),
    }
}

impl InstallRecord {
    /// Adds a handler unless the same one (file, event, value) is recorded.
    pub fn add_handler(&mut self, file: &str, event: &str, handler: &Value) {
        let h = RecordedHandler {
            file: file.to_string(),
            event: event.to_string(),
            handler: handler.clone(),
        };
        if !self.handlers.contains(&h) {
            self.handlers.push(h);
        }
    }

    /// Records the statusline `init` just set in a file, replacing an older entry for that file
    /// (the newest `before` is the one to go back to).
    pub fn set_statusline(&mut self, entry: RecordedStatusline) {
        self.statuslines.retain(|s| s.file != entry.file);
        self.statuslines.push(entry);
    }

    /// Records a created settings file (once).
    pub fn add_created_file(&mut self, file: &str) {
        if !self.created_files.iter().any(|f| f == file) {
            self.created_files.push(file.to_string());
        }
    }

    /// True when `file` is recorded as created by `init`.
    pub fn created(&self, file: &str) -> bool {
        self.created_files.iter().any(|f| f == file)
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.created_files.is_empty()
            && self.handlers.is_empty()
            && self.statuslines.is_empty()
            && !self.skill
            && self.post_commit.is_none()
    }

    /// Writes the record atomically to `.capn/install.json` when it differs from what is there
    /// (nothing when it is empty and there is no file).
    ///
    /// Errors: the file cannot be written.
    pub fn save(&self, root: &Path) -> Result<()> {
        let path = record_path(root);
        if self.is_empty() && !path.exists() {
            return Ok(());
        }
        let mut r = self.clone();
        r.version = RECORD_VERSION;
        let mut text = serde_json::to_string_pretty(&r)?;
        text.push('\n');
        crate::fsutil::write_if_changed(
            &path,
            text.as_bytes(),
            crate::fsutil::Durability::Durable,
        )?;
        Ok(())
    }
}

/// Deletes the record of the project at `root` (a missing one is fine).
///
/// Errors: it exists and cannot be removed.
pub fn remove(root: &Path) -> Result<()> {
    let path = record_path(root);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(anyhow::anyhow!("could not remove {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_merges_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".capn")).unwrap();
        assert!(matches!(load(dir.path()), Loaded::Missing));
        InstallRecord::default().save(dir.path()).unwrap();
        assert!(
            !record_path(dir.path()).exists(),
            "an empty record is not written"
        );
        let mut r = InstallRecord::default();
        let h = serde_json::json!({"command": "capn", "args": ["hook", "pre-compact"]});
        r.add_handler(".claude/settings.json", "PreCompact", &h);
        r.add_handler(".claude/settings.json", "PreCompact", &h);
        r.add_created_file(".codex/hooks.json");
        r.add_created_file(".codex/hooks.json");
        r.save(dir.path()).unwrap();
        let Loaded::Found(back) = load(dir.path()) else {
            panic!("not found")
        };
        assert_eq!(back.handlers.len(), 1);
        assert_eq!(back.created_files, [".codex/hooks.json"]);
        assert_eq!(back.version, RECORD_VERSION);
        std::fs::write(record_path(dir.path()), "{nope").unwrap();
        assert!(matches!(load(dir.path()), Loaded::Unreadable(_)));
        remove(dir.path()).unwrap();
        remove(dir.path()).unwrap();
        assert!(matches!(load(dir.path()), Loaded::Missing));
    }
}
