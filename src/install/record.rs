//! The install record, `.capn/install.json`: what `capn init` added, so that `capn uninstall`
//! removes exactly that and nothing a user wrote.
//!
//! `init` adds to the record what each run added (merged with what earlier runs recorded):
//! every hook handler with its file and event, the statusline it set (the `statusLine` value
//! before and after), the settings files it created, whether it installed the skill, and where
//! it put the `capn prune` line (and whether it created that hook file), and the lines
//! `init --shared` took out of the project's `.gitignore`. `uninstall` removes the
//! recorded items that are still there, deletes a file only when `init` created it and it is now
//! empty, and then deletes the record.
//!
//! **Signed.** The record sits in the project, so it can come with the repository: a record
//! naming a "copy from before init" of the user's settings, or a "replaced registration" that
//! runs anything, would make `uninstall` write it. So the record carries `mac`, an HMAC-SHA256
//! (RFC 2104) of the project's path and the record's content under a key only this user has: 32
//! random bytes in the per-user state dir (`install.key`, mode 0600, made by the first `init`;
//! never a state dir inside the project, where a repository could ship a key). A record without
//! a valid `mac` (from the repository, another user, another project, or a capn that did not sign)
//! is not this user's for this project, and neither is a signed one whose `project` names
//! another path *and* another folder (device and inode): a project moved or renamed keeps its
//! folder, and its record; a copy gets a new folder. Such a record is foreign: `init` starts a new one, and `uninstall` works as
//! without a record (removing only what is identical to what `init` writes, deleting no settings
//! file) and leaves that file alone. When no key can be made, `init` says the record is unsigned.
//!
//! **Why it stays in the project, signed**: a record in the per-user state dir would keep the
//! same guarantees for little less code (the key stays to read older records), while changing
//! what users see: `rm -rf .capn` would no longer take the record with it. That is a format change.
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
//!   "post_commit": {"path": ".git/hooks/post-commit", "created": true},
//!   "refresh_hooks": [{"path": ".git/hooks/post-merge", "created": true}],
//!   "files": [{"file": ".claude/settings.json", "before": "{\n  \"model\": \"x\"\n}\n",
//!              "after_sha256": "9f86d0..."}],
//!   "replaced": [{"file": ".claude/settings.json", "event": "Stop", "matcher": null,
//!                 "handler": {"type": "command", "command": "capn nudge"}}],
//!   "gitignore": {"removed": [{"line": ".capn/\n", "index": 1, "after": "node_modules"}],
//!                 "after_sha256": "2c26b4..."},
//!   "project": {"path": "/home/me/shop", "dev": 2049, "ino": 1835011},
//!   "mac": "5c2e…"
//! }
//! ```

use crate::fsutil::resolved;
use anyhow::Result;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The record's file name inside `.capn/`.
pub(crate) const RECORD_FILE: &str = "install.json";

/// The record format version written.
pub(crate) const RECORD_VERSION: u32 = 1;

/// The file in the per-user state dir ([`crate::session::state_dir`]) holding this user's key
/// for signing install records (32 bytes).
pub(crate) const KEY_FILE: &str = "install.key";

/// Length of the install key, in bytes.
const KEY_LEN: usize = 32;

/// What `capn init` added (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct InstallRecord {
    /// Format version ([`RECORD_VERSION`]).
    pub version: u32,
    /// Settings files `init` created, relative to the project root (`.claude/settings.json`).
    pub created_files: Vec<String>,
    /// Folders `init` created (`.claude`, `.claude/skills`, ...), parents first: `uninstall`
    /// removes each one that is empty again. Left out when empty (a record of an older capn has
    /// none, and its signature covers what it wrote).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<String>,
    /// Hook handlers `init` added.
    pub handlers: Vec<RecordedHandler>,
    /// The statusline `init` set, per settings file (the latest change for each file).
    pub statuslines: Vec<RecordedStatusline>,
    /// Whether `init` installed the `/compact-prep` skill file.
    pub skill: bool,
    /// Where `init --git` put the `capn prune` line, if it did.
    pub post_commit: Option<RecordedPostCommit>,
    /// The post-merge, post-rewrite and post-checkout hooks `init --git` put the `capn refresh`
    /// line in ([`super::refresh_hooks`]), each recorded as the post-commit hook is. Left out
    /// when empty (a record of an older capn has none, and its signature covers what it wrote).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refresh_hooks: Vec<RecordedPostCommit>,
    /// Each settings file `init` changed: its bytes before the first change and the SHA-256 of
    /// what the last change left. While the file still hashes to that, `uninstall` writes the
    /// bytes back (byte-identical); once anything else changed it, capn's entries are removed
    /// one by one instead.
    pub files: Vec<RecordedFile>,
    /// Registrations of older capn versions that `init` replaced (put back by `uninstall`).
    pub replaced: Vec<RecordedReplaced>,
    /// Claude Code `permissions.allow` rules `init` added ([`super::allow`]), as (settings
    /// file, rule); `uninstall` removes exactly these.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<(String, String)>,
    /// Settings files where `init` created `permissions.allow` (dropped again, once empty, by
    /// `uninstall`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow_made: Vec<String>,
    /// The lines `init --shared` took out of the project's `.gitignore` (those that ignore the
    /// whole store, the user's own), which `uninstall` and `init --local` put back. Left out
    /// when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gitignore: Option<RecordedGitignore>,
    /// The project the record was written for (signed with the rest): a record is this
    /// project's when it names this path or this folder (module docs). `None` in records of
    /// an older capn, which signed the path alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<ProjectId>,
    /// Lowercase hex HMAC-SHA256 of the rest under this user's key (module docs); `None` in a
    /// loaded record (checked and taken off) and before saving.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

/// Where and which folder a project was when `init` recorded it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ProjectId {
    /// The project root, resolved (symlinks, `..`).
    pub path: String,
    /// The root folder's device and inode numbers (`stat`): they stay when the folder is moved
    /// or renamed within a file system, and a copy gets new ones.
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
}

impl ProjectId {
    /// The identity of the project at `root` now; `None` when its folder cannot be read.
    pub(crate) fn of(root: &Path) -> Option<ProjectId> {
        let path = dunce::canonicalize(root).ok()?;
        let meta = std::fs::metadata(&path).ok()?;
        let (dev, ino) = folder_identity(&meta);
        Some(ProjectId {
            path: path.to_string_lossy().into_owned(),
            dev,
            ino,
        })
    }

    /// True when `self` and `other` name one folder by its identity: never where the system
    /// gives none (both numbers 0, as on Windows, where std keeps the file index unstable), so
    /// there a moved project is told by its path alone and a copy is never taken for the original.
    pub(crate) fn same_folder(&self, other: &ProjectId) -> bool {
        self.ino != 0 && self.dev == other.dev && self.ino == other.ino
    }
}

/// The device and inode numbers of a folder (`stat`).
#[cfg(unix)]
fn folder_identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// No identity off Unix: (0, 0) (see [`ProjectId::same_folder`]).
#[cfg(not(unix))]
fn folder_identity(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// A settings file as it was before `init` changed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedFile {
    /// The settings file, relative to the project root.
    pub file: String,
    /// Its text before `init` first changed it (`None`: there was no file).
    pub before: Option<String>,
    /// Lowercase hex SHA-256 of the bytes `init` last left in it.
    pub after_sha256: String,
}

/// The lines `init --shared` took out of the project's `.gitignore` (see
/// [`crate::install::shared::take_store_lines`]). Only lines that ignore the whole store are
/// ever put back from it ([`crate::install::shared::restorable`]), whoever wrote the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RecordedGitignore {
    /// The lines, in the order they stood.
    pub removed: Vec<RemovedLine>,
    /// Lowercase hex SHA-256 of the bytes `init` left: while the file still hashes to it, the
    /// lines go back at their indices, which gives the bytes from before `init` exactly.
    pub after_sha256: String,
}

/// One line `init --shared` took out of the project's `.gitignore`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RemovedLine {
    /// The line with its own line end (`\n`, `\r\n`, or none: the file's last line had none).
    pub line: String,
    /// Its index among the file's lines before it was taken out (0: the first line).
    pub index: usize,
    /// The nearest line above it that stayed, without its line end (lossy UTF-8), where it
    /// goes back once the file has changed; `None`: no line above it stayed (it goes back at
    /// the top).
    pub after: Option<String>,
}

/// A registration of an older capn that `init` removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedReplaced {
    /// The settings file, relative to the project root.
    pub file: String,
    /// The event (`SessionStart`, `Stop`, ...).
    pub event: String,
    /// The matcher of the group it was in (`None`: none).
    pub matcher: Option<Value>,
    /// The handler exactly as it was.
    pub handler: Value,
    /// Its group's index in the event and its own index in the group, as they were.
    #[serde(default)]
    pub position: Option<(usize, usize)>,
}

/// Lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    crate::hex::encode(&Sha256::digest(bytes))
}

/// One hook handler `init` added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedHandler {
    /// The settings file, relative to the project root.
    pub file: String,
    /// The event (`SessionStart`, ...).
    pub event: String,
    /// The handler object exactly as added.
    pub handler: Value,
}

/// The statusline `init` set in one settings file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedStatusline {
    /// The settings file, relative to the project root.
    pub file: String,
    /// The `statusLine` value before (`None`: there was none in that file).
    pub before: Option<Value>,
    /// The `statusLine` value `init` left.
    pub after: Value,
}

/// Where `init --git` put the `capn prune` line (or, in [`InstallRecord::refresh_hooks`], a
/// `capn refresh` line).
///
/// The path is only a check, never a target: `uninstall` works on the hook git runs for the
/// project now ([`crate::install::git_hook::post_commit_path`]) and trusts `created` only when
/// this path names that same file. So a record that travelled with a moved project, or names
/// some other file, never makes `uninstall` touch a file that is not this project's hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedPostCommit {
    /// The hook file, relative to the project root when it lies inside it (`.git/hooks/...`);
    /// absolute otherwise (a linked worktree's hooks are the main repository's). Records written
    /// by older versions hold an absolute path even inside the project.
    pub path: PathBuf,
    /// Whether `init` created the file.
    pub created: bool,
    /// The hook's text before `init` first changed it (`None`: it created the file, or an older
    /// capn wrote the record). Left out when `None`, like `after_sha256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Lowercase hex SHA-256 of the text `init` last left in the hook: while the hook still
    /// hashes to it, `uninstall` writes `before` back byte for byte (a line of the user's that
    /// `init` replaced comes back with it); once anything else changed it, only capn's lines
    /// are taken out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_sha256: Option<String>,
}

impl RecordedPostCommit {
    /// The record of the hook at `path` for the project at `root` (relative when inside it).
    pub(crate) fn new(root: &Path, path: &Path, created: bool) -> Self {
        let path = path
            .strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| path.to_path_buf());
        RecordedPostCommit {
            path,
            created,
            before: None,
            after_sha256: None,
        }
    }

    /// The recorded path, resolved against the project root when it is relative.
    pub(crate) fn resolve(&self, root: &Path) -> PathBuf {
        if self.path.is_absolute() {
            self.path.clone()
        } else {
            root.join(&self.path)
        }
    }

    /// True when the record names the hook at `path` (the project's post-commit hook now).
    pub(crate) fn names(&self, root: &Path, path: &Path) -> bool {
        crate::install::git_hook::same_path(&self.resolve(root), path)
    }
}

/// How loading the record went.
#[derive(Debug)]
// A record is loaded once per command; boxing it would only move the size (which crosses
// clippy's threshold on Windows, where `PathBuf` is larger).
#[allow(clippy::large_enum_variant)]
pub(crate) enum Loaded {
    /// There is no record.
    Missing,
    /// The record.
    Found(InstallRecord),
    /// There is a file that is not a record; the reason.
    Unreadable(String),
    /// There is a record, but this user's capn did not write it (no valid `mac`: it came with
    /// the repository, from another user or project, or from a capn that did not sign); the
    /// reason, and the `.gitignore` lines it says `init --shared` took out (only those that
    /// ignore the store are ever put back from it, so a planted one can do no more: see
    /// [`crate::install::shared::restorable`]).
    Foreign(String, Option<RecordedGitignore>),
}

/// The record's path for the project at `root`: in its store folder, or for a linked git
/// worktree using the main checkout's store, in that worktree's own folder there (each checkout
/// has its own settings files, so its own record).
pub(crate) fn record_path(root: &Path) -> PathBuf {
    crate::store::Store::at(root.to_path_buf())
        .local
        .join(RECORD_FILE)
}

/// Loads the record of the project at `root`.
pub(crate) fn load(root: &Path) -> Loaded {
    load_with(root, || user_key(false, root))
}

/// [`load`], checking the signature under the key `key` gives.
fn load_with(root: &Path, key: impl FnOnce() -> std::result::Result<Vec<u8>, String>) -> Loaded {
    let path = record_path(root);
    // Never blocking, never through a symlink (a repository is untrusted input).
    let bytes = match crate::fsutil::read_host_file(&path, "install record") {
        Ok(Some(b)) => b,
        Ok(None) => return Loaded::Missing,
        Err(e) => return Loaded::Unreadable(format!("{e:#}")),
    };
    let mut r = match serde_json::from_slice::<InstallRecord>(&bytes) {
        Ok(r) => r,
        Err(e) => return Loaded::Unreadable(format!("{}: {e}", path.display())),
    };
    let Some(claimed) = r.mac.take() else {
        return Loaded::Foreign("it carries no signature".into(), r.gitignore);
    };
    let key = match key() {
        Ok(key) => key,
        Err(why) => {
            let why = format!("its signature cannot be checked ({why})");
            return Loaded::Foreign(why, r.gitignore);
        }
    };
    let here = resolved(root);
    // A record that names its project signs it; an older one (no `project`) signed the path alone.
    let signed_for = r
        .project
        .as_ref()
        .map_or_else(|| here.clone(), |p| PathBuf::from(&p.path));
    let ok = crate::hex::decode32(&claimed)
        .is_some_and(|m| signer(&key, &signed_for, &r).verify_slice(&m).is_ok());
    if !ok {
        return Loaded::Foreign("its signature is not this user's".into(), r.gitignore);
    }
    if let Some(p) = &r.project {
        // Moved or renamed: another path, the same folder. A copy: another folder.
        let same_folder = ProjectId::of(root).is_some_and(|now| now.same_folder(p));
        if !crate::pathcmp::same(Path::new(&p.path), &here) && !same_folder {
            let why = format!(
                "it was written for the project at {} (this is a copy of it, or it was copied \
                 here)",
                p.path
            );
            return Loaded::Foreign(why, r.gitignore);
        }
    }
    Loaded::Found(r)
}

/// The HMAC of `rec` (whose `mac` is `None`) for the project at `root` under `key`, before
/// finalising. The project's path is signed too (and, in a record that names its project, its
/// folder's identity, `rec.project`): a record copied into another project (with `.capn/`)
/// describes what init did there, not here.
/// `root` is the resolved path (as in [`ProjectId::path`]).
fn signer(key: &[u8], root: &Path, rec: &InstallRecord) -> Hmac<sha2::Sha256> {
    let mut m = Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    m.update(b"capn-hook install record\n");
    m.update(root.as_os_str().as_encoded_bytes());
    m.update(b"\n");
    m.update(&serde_json::to_vec(rec).unwrap_or_default());
    m
}

/// This user's install key ([`KEY_FILE`]) for the project at `root`, made when there is none
/// and `create` is set: 32 bytes from the OS's random source, written whole to a temporary file
/// and hard-linked into place, so concurrent `init`s agree on one key. A key file of another
/// length cannot have signed anything and is replaced (when `create`).
///
/// Errors (the reason, for a message): the state dir cannot be found or lies inside the project
/// (a relative `CAPN_STATE_DIR`: a key the repository ships would be trusted); the key file is
/// not a regular file (a symlink, a FIFO, a folder: left alone) or cannot be read or made.
fn user_key(create: bool, root: &Path) -> std::result::Result<Vec<u8>, String> {
    let dir = crate::session::state_dir().map_err(|e| format!("{e:#}"))?;
    if crate::fsutil::lies_inside(&dir, root) {
        return Err(format!(
            "the state dir {} is inside this project, where a repository could ship a key",
            dir.display()
        ));
    }
    let path = dir.join(KEY_FILE);
    let read = || match crate::fsutil::read_limited(&path, 64, crate::fsutil::Follow::Never) {
        Ok(k) if k.len() == KEY_LEN => Ok(Some(k)),
        // A regular file of another length: replaced below.
        Ok(_) | Err(crate::fsutil::ReadError::TooLarge { .. }) => Ok(None),
        Err(e) if e.is_gone() => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    };
    if let Some(key) = read()? {
        return Ok(key);
    }
    if !create {
        return Err(format!("there is no key at {}", path.display()));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key).map_err(|e| format!("no random bytes: {e}"))?;
    let tmp = dir.join(format!(".{KEY_FILE}.{}.tmp", std::process::id()));
    let written = {
        use std::io::Write;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        // Only this user may read the key. Off Unix the file inherits the folder's ACL: the
        // per-user state dir (`%LOCALAPPDATA%`), which other users cannot read.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(&tmp).and_then(|mut f| {
            f.write_all(&key)?;
            f.sync_all()
        })
    };
    if written.is_ok() && std::fs::hard_link(&tmp, &path).is_err() {
        // There is a file already: another init's key (kept), or one of a wrong length, which
        // never signed anything (replaced; rename never follows a symlink at the path, and a
        // symlink or folder there was refused by the read above).
        if matches!(read(), Ok(None)) {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
    let _ = std::fs::remove_file(&tmp);
    read()?.ok_or_else(|| format!("could not make a key at {}", path.display()))
}

impl InstallRecord {
    /// Adds a handler unless the same one (file, event, value) is recorded.
    pub(crate) fn add_handler(&mut self, file: &str, event: &str, handler: &Value) {
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
    pub(crate) fn set_statusline(&mut self, entry: RecordedStatusline) {
        self.statuslines.retain(|s| s.file != entry.file);
        self.statuslines.push(entry);
    }

    /// Records an allow rule `init` added to `file`, once.
    pub(crate) fn add_allow(&mut self, file: &str, rule: &str) {
        let entry = (file.to_string(), rule.to_string());
        if !self.allow.contains(&entry) {
            self.allow.push(entry);
        }
    }

    /// True when the record names anything `init` did to the settings file `file`.
    pub(crate) fn touches(&self, file: &str) -> bool {
        self.handlers.iter().any(|h| h.file == file)
            || self.statuslines.iter().any(|s| s.file == file)
            || self.replaced.iter().any(|r| r.file == file)
            || self.files.iter().any(|f| f.file == file)
    }

    /// Records that `init` changed the settings file `file` from `before` (`None`: absent) to
    /// `after`. `fresh`: the record named nothing in this file before this run (so `before`
    /// holds nothing of capn's). A copy is kept only while it is exact: when the record holds
    /// one and the file was left as `init` last left it, the older copy stays with the new
    /// hash; when the file was edited in between, or this is not the first change and there is
    /// no copy, none is kept (uninstall then removes capn's entries one by one).
    pub(crate) fn set_file(
        &mut self,
        file: &str,
        before: Option<&[u8]>,
        after: &[u8],
        fresh: bool,
    ) {
        let before_hash = before.map(sha256_hex);
        let old = self.files.iter().position(|f| f.file == file);
        let keep = match old {
            Some(i) if before_hash.as_deref() == Some(self.files[i].after_sha256.as_str()) => {
                Some(self.files[i].before.clone())
            }
            Some(_) => None,
            None if fresh => before
                .map(|b| String::from_utf8(b.to_vec()).ok())
                .map_or(Some(None), |t| t.map(Some)),
            None => None,
        };
        self.files.retain(|f| f.file != file);
        if let Some(before) = keep {
            self.files.push(RecordedFile {
                file: file.to_string(),
                before,
                after_sha256: sha256_hex(after),
            });
        }
    }

    /// The recorded copy of `file` when its bytes now (`current`, `None`: absent) are exactly
    /// what `init` last left: `Some(before)` (`before` is `None` when there was no file).
    pub(crate) fn restorable(&self, file: &str, current: Option<&[u8]>) -> Option<Option<&str>> {
        let f = self.files.iter().find(|f| f.file == file)?;
        (current.map(sha256_hex).as_deref() == Some(f.after_sha256.as_str()))
            .then_some(f.before.as_deref())
    }

    /// Records a registration `init` replaced (once).
    pub(crate) fn add_replaced(&mut self, r: RecordedReplaced) {
        if !self.replaced.contains(&r) {
            self.replaced.push(r);
        }
    }

    /// Records a created settings file (once).
    pub(crate) fn add_created_file(&mut self, file: &str) {
        if !self.created_files.iter().any(|f| f == file) {
            self.created_files.push(file.to_string());
        }
    }

    /// Records that `init` created the folder `dir` (relative to the project root), once.
    pub(crate) fn add_created_dir(&mut self, dir: &str) {
        if !self.created_dirs.iter().any(|d| d == dir) {
            self.created_dirs.push(dir.to_string());
        }
    }

    /// True when `file` is recorded as created by `init`.
    pub(crate) fn created(&self, file: &str) -> bool {
        self.created_files.iter().any(|f| f == file)
    }

    /// True when capn 0.3 wrote this record: it names no project folder (0.3 signed the path
    /// alone). 0.3's `init` added the `.capn/` line to the project's `.gitignore` for a local
    /// store, so only with such a record is that line capn's to take back
    /// ([`crate::install::shared::plan_legacy`]); without one it is the user's (or capn 0.2's).
    pub(crate) fn written_by_0_3(&self) -> bool {
        self.project.is_none()
    }

    /// True when nothing is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.created_files.is_empty()
            && self.created_dirs.is_empty()
            && self.handlers.is_empty()
            && self.statuslines.is_empty()
            && !self.skill
            && self.post_commit.is_none()
            && self.refresh_hooks.is_empty()
            && self.files.is_empty()
            && self.replaced.is_empty()
            && self.gitignore.is_none()
    }

    /// Writes the record atomically to `.capn/install.json` when it differs from what is there
    /// (nothing when it is empty and there is no file), signed with this user's key. Returns why
    /// it could not be signed, if it could not (it is written unsigned then, and `uninstall`
    /// will treat it as foreign): the caller says so.
    ///
    /// Errors: the file cannot be written.
    pub(crate) fn save(&self, root: &Path) -> Result<Option<String>> {
        self.save_with(root, || user_key(true, root))
    }

    /// [`InstallRecord::save`], signing with the key `key` gives.
    fn save_with(
        &self,
        root: &Path,
        key: impl FnOnce() -> std::result::Result<Vec<u8>, String>,
    ) -> Result<Option<String>> {
        let path = record_path(root);
        if self.is_empty() && !path.exists() {
            return Ok(None);
        }
        let mut r = self.clone();
        r.version = RECORD_VERSION;
        r.mac = None;
        r.project = ProjectId::of(root);
        // Unsigned when this user's key cannot be made: `uninstall` then works as without one.
        let unsigned = match key() {
            Ok(key) => {
                r.mac = Some(crate::hex::encode(
                    &signer(&key, &resolved(root), &r).finalize().into_bytes(),
                ));
                None
            }
            Err(why) => Some(why),
        };
        let mut text = serde_json::to_string_pretty(&r)?;
        text.push('\n');
        crate::fsutil::write_if_changed(
            &path,
            text.as_bytes(),
            crate::fsutil::Durability::Durable,
        )?;
        Ok(unsigned)
    }
}

/// Deletes the record of the project at `root` (a missing one is fine).
///
/// Errors: it exists and cannot be removed.
pub(crate) fn remove(root: &Path) -> Result<()> {
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
        // A fixed key: the user's own state dir is never touched by a test.
        let key = || Ok(vec![7u8; KEY_LEN]);
        let load = |root: &Path| load_with(root, key);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".capn")).unwrap();
        assert!(matches!(load(dir.path()), Loaded::Missing));
        InstallRecord::default().save_with(dir.path(), key).unwrap();
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
        assert_eq!(r.save_with(dir.path(), key).unwrap(), None, "signed");
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
