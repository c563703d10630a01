//! `capn init --user` and `capn uninstall --user`: capn registered once for every project and
//! worktree of this user, in the user-level files each host reads for every session (the
//! hosts' hook settings docs), for each host `capn init` always sets up
//! ([`crate::hosts::always`]): its user file ([`HostSpec::user_file`]: the hooks, and as its
//! spec says the status line and the [`super::allow`] rules), the /compact-prep skill for a host
//! that runs it, and a rules file for a host that takes one ([`HostSpec::user_rules`]). Today:
//! `~/.claude/settings.json`, `~/.claude/skills/compact-prep/SKILL.md`, `~/.codex/hooks.json`
//! and `~/.codex/rules/capn.rules`.
//!
//! In a folder without a store the hooks print nothing ([`crate::hook::run`]), so registering
//! them for every session costs a project without capn nothing.
//!
//! What a run changes is written down first in the user install record,
//! `<state dir>/user-install.json` ([`UserRecord`]): for each file, its bytes from before the
//! first `init --user` (or that it did not exist) and the SHA-256 of the bytes capn left.
//! `uninstall --user` gives a file nobody changed since its bytes from before, byte for byte
//! (or deletes it, and the folders `init --user` made); a file changed since loses only capn's
//! entries. The record lives in the user's own state dir, which no repository can plant, so it
//! is not signed (the project record, `.capn/install.json`, is: [`super::record`]).
//!
//! The same rules as the project install hold: every file is read and every edit made in
//! memory before anything is written; a file that does not parse, is a FIFO or read-only stops
//! the run with nothing changed. One rule differs: the home folder is the user's, not a
//! repository's, so a symlink the user made there (a dotfiles set-up: GNU stow, chezmoi, a
//! dotfiles repository; on the file or on a folder such as `~/.claude`) is followed, and the
//! file it leads to is edited in place, the link left a link
//! ([`crate::fsutil::resolve_user_link`]). A dangling one, or one that leads to something other
//! than a regular file, stops the run with nothing changed.

use super::allow::{self, CODEX_RULES, CODEX_RULES_FILE};
use super::record::sha256_hex;
use super::skill::{self, SkillFile};
use super::SettingsFile;
use crate::fsutil::{resolve_user_link, UserPath};
use crate::hosts::{ContextSource, HostSpec};
use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A host table (`hooks-config/<host>.json`) as `init --user` registers it: each handler
/// runs with `--user` last (an `args` element, or a word of the `command` string), so the hook
/// knows it stands for every project ([`crate::hook::run`]).
///
/// Errors: `table` is not valid JSON (a bug in the embedded data).
pub(crate) fn user_table(table: &str) -> Result<String> {
    let mut v: serde_json::Value = serde_json::from_str(table)?;
    if let Some(events) = v.get_mut("hooks").and_then(|h| h.as_object_mut()) {
        for groups in events.values_mut() {
            for g in groups.as_array_mut().into_iter().flatten() {
                for h in g
                    .get_mut("hooks")
                    .and_then(|h| h.as_array_mut())
                    .into_iter()
                    .flatten()
                {
                    if let Some(args) = h.get_mut("args").and_then(|a| a.as_array_mut()) {
                        args.push("--user".into());
                    } else if let Some(c) = h.get("command").and_then(|c| c.as_str()) {
                        h["command"] = format!("{c} --user").into();
                    }
                }
            }
        }
    }
    Ok(serde_json::to_string(&v)?)
}

/// The record's file name in the state dir.
pub(crate) const RECORD_FILE: &str = "user-install.json";

/// What `init --user` changed, for `uninstall --user`. Paths are relative to the home folder,
/// with `/` separators.
#[derive(Debug, Default, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct UserRecord {
    /// Format version (1).
    pub version: u32,
    /// The files changed or created.
    pub files: Vec<UserFile>,
    /// Folders `init --user` created, outermost first.
    pub dirs: Vec<String>,
    /// The skill file was installed by `init --user`.
    pub skill: bool,
}

/// One file `init --user` changed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct UserFile {
    /// Relative to the home folder.
    pub file: String,
    /// Its text before the first `init --user` (`None`: it did not exist).
    pub before: Option<String>,
    /// SHA-256 (hex) of the bytes the last `init --user` left.
    pub after_sha256: String,
    /// `init --user` created its `permissions.allow` (dropped again, once empty).
    #[serde(default)]
    pub allow_made: bool,
    /// The `permissions.allow` rules `init --user` added ([`allow::CLAUDE_ALLOW`]): a rule the
    /// file held before is the user's, and stays. `None` in a record of a capn that did not
    /// list them: then the rules `before` lacks count as added ([`UserFile::added_rules`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    /// The file written, when `file` is a symlink or lies in a symlinked folder the user made
    /// (absolute; the link was followed and left as it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<String>,
}

impl UserFile {
    /// The rules of [`allow::CLAUDE_ALLOW`] `init --user` added to this file: as recorded, or
    /// for a record that lists none, those its bytes from before lack (all of them when there
    /// was no file; none when those bytes do not parse, so nothing of the user's is taken).
    fn added_rules(&self) -> Vec<&'static str> {
        if let Some(rules) = &self.allow {
            return allow::CLAUDE_ALLOW
                .into_iter()
                .filter(|r| rules.iter().any(|x| x == r))
                .collect();
        }
        let Some(before) = &self.before else {
            return allow::CLAUDE_ALLOW.to_vec();
        };
        match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(before) {
            Ok(json) => {
                let held = allow::present(&json);
                allow::CLAUDE_ALLOW
                    .into_iter()
                    .filter(|r| !held.contains(r))
                    .collect()
            }
            Err(_) => Vec::new(),
        }
    }
}

impl UserRecord {
    /// The record's path: `<state dir>/user-install.json`.
    ///
    /// Errors: the state dir cannot be found ([`crate::session::state_dir`]).
    pub(crate) fn path() -> Result<PathBuf> {
        Ok(crate::session::state_dir()?.join(RECORD_FILE))
    }

    /// Loads the record; `None` when there is none.
    ///
    /// Errors: it cannot be read (bounded, never through a symlink) or parsed.
    pub(crate) fn load() -> Result<Option<UserRecord>> {
        let path = Self::path()?;
        let Some(bytes) = crate::fsutil::read_host_file(&path, "user install record")? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .with_context(|| format!("could not parse the install record {}", path.display()))
    }

    /// Saves the record atomically (creating the state dir).
    ///
    /// Errors: the folder or the file cannot be written.
    pub(crate) fn save(&self) -> Result<()> {
        let path = Self::path()?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("could not create {}", dir.display()))?;
        }
        crate::fsutil::write_atomic(&path, serde_json::to_string_pretty(self)?.as_bytes())
    }

    /// Records that `file` (written at `real` when that differs) now holds `after`, keeping
    /// the `before` of an earlier run.
    fn set(&mut self, file: &str, real: Option<&Path>, before: Option<&[u8]>, after: &[u8]) {
        let after_sha256 = sha256_hex(after);
        let real = real.map(|r| r.display().to_string());
        match self.files.iter_mut().find(|f| f.file == file) {
            Some(f) => {
                f.after_sha256 = after_sha256;
                f.real = real;
            }
            None => self.files.push(UserFile {
                file: file.to_string(),
                before: before.map(|b| String::from_utf8_lossy(b).into_owned()),
                after_sha256,
                allow_made: false,
                allow: None,
                real,
            }),
        }
    }

    fn file(&self, file: &str) -> Option<&UserFile> {
        self.files.iter().find(|f| f.file == file)
    }
}

/// Everything `init --user` will write, worked out first.
#[derive(Debug)]
pub(crate) struct UserPlan {
    home: PathBuf,
    /// The user files of the hosts set up, in [`crate::hosts::always`]'s order.
    settings: Vec<UserSettings>,
    /// The Codex rules file's new bytes, when written, and where.
    rules: Option<(UserPath, Vec<u8>)>,
    /// The skill file, when installed.
    skill: Option<UserPath>,
    /// What the run does, one line each, for the report.
    pub done: Vec<String>,
}

/// One host's user file as `init --user` edits it.
#[derive(Debug)]
struct UserSettings {
    spec: &'static HostSpec,
    file: SettingsFile,
    /// The capn plugin, enabled in the file, registers the host's hooks and skill.
    from_plugin: bool,
    /// This run creates the file's `permissions.allow`.
    allow_made: bool,
    /// The rules of [`allow::CLAUDE_ALLOW`] this run adds.
    allow_added: Vec<&'static str>,
}

/// Reads the user-level files under `home` and makes every edit in memory.
///
/// Errors: a file does not parse, is a special file, is reached through a dangling symlink or
/// one leading to a special file, or must not be written; nothing has been changed.
pub(crate) fn plan_init(home: &Path) -> Result<UserPlan> {
    let mut done = Vec::new();
    let mut settings = Vec::new();
    for spec in crate::hosts::always() {
        settings.push(plan_host(home, spec, &mut done)?);
    }
    let rules = if crate::hosts::always().any(|s| s.user_rules) {
        plan_rules(home, &mut done)?
    } else {
        None
    };
    // The skill is for a host that runs it, unless the capn plugin serves that host.
    let mut skill = None;
    if settings.iter().any(|s| s.spec.prep_skill && !s.from_plugin) {
        let at = resolve_user_link(home, &skill::skill_path(home)).map_err(by_hand)?;
        if skill::read_skill_file(&at.real)? == SkillFile::Missing {
            done.push(format!(
                "installed the /compact-prep skill in {}",
                shown(home, &at.path, &at.real)
            ));
            skill = Some(at);
        }
    }
    let plan = UserPlan {
        home: home.to_path_buf(),
        settings,
        rules,
        skill,
        done,
    };
    refusals(&plan)?;
    Ok(plan)
}

/// `spec`'s user file under `home`, edited in memory: its hooks (unless the capn plugin
/// registers them), the status line for a host whose context use comes from it, the allow
/// rules for a host that takes them. What it does is added to `done`.
///
/// Errors: the file does not parse or is a symlink or a special file.
fn plan_host(home: &Path, spec: &'static HostSpec, done: &mut Vec<String>) -> Result<UserSettings> {
    let path = home.join(spec.user_file);
    let mut file = SettingsFile::load_in_home(home, &path).map_err(by_hand)?;
    let label = &shown(home, &path, file.real_path());
    let from_plugin = spec.plugin && super::plugin_enabled(&[&file.json]);
    if from_plugin {
        done.push(format!(
            "{} hooks and skill: the capn plugin ({}) registers them",
            spec.name,
            super::PLUGIN_ID
        ));
    } else {
        let report = super::merge_counting(&user_table(spec.table)?, &mut file, &mut [], &[])?;
        for event in &report.added {
            done.push(format!("registered the {event} hook in {label}"));
        }
    }
    if spec.context == ContextSource::StatusLine {
        plan_statusline(home, &mut file, label, done)?;
    }
    let (mut allow_made, mut allow_added) = (false, Vec::new());
    if spec.allow_rules {
        allow_made = !allow::has_allow_key(&file.json);
        let outcome = allow::add(&mut file, spec.user_label, &[]);
        done.extend(outcome.unfit_report(label));
        allow_added = outcome.added;
        allow_made &= !allow_added.is_empty();
        for rule in &allow_added {
            done.push(format!("allowed {rule} in {label} (permissions.allow)"));
        }
        // A rule of the user's own that denies or asks first: the allow would do nothing.
        done.extend(outcome.blocked.iter().map(allow::Blocked::report));
    }
    Ok(UserSettings {
        spec,
        file,
        from_plugin,
        allow_made,
        allow_added,
    })
}

/// Sets the status line in `file` (`label`, a user file under `home` as the report names it) to
/// `capn statusline`,
/// wrapping the user's own.
///
/// Errors: none in practice (the empty placeholder for a local file is made in memory).
fn plan_statusline(
    home: &Path,
    file: &mut SettingsFile,
    label: &str,
    done: &mut Vec<String>,
) -> Result<()> {
    let mut none = SettingsFile::from_bytes(&home.join(".none"), None)?;
    match super::merge_statusline(file, &mut none, None) {
        super::StatuslineChange::AlreadyOurs => {}
        super::StatuslineChange::Added => done.push(format!(
            "set the status line to capn statusline in {label}"
        )),
        super::StatuslineChange::Wrapped(c) => done.push(format!(
            "set the status line to capn statusline, wrapping your {c:?} (capn uninstall --user restores it)"
        )),
    }
    Ok(())
}

/// The Codex rules file (where it is written, through the user's symlinks) and its new
/// bytes, or `None` when it is there already (or holds another text, which is kept, and said
/// in `done`).
///
/// Errors: as [`resolve_user_link`], or the file cannot be read.
fn plan_rules(home: &Path, done: &mut Vec<String>) -> Result<Option<(UserPath, Vec<u8>)>> {
    let at = resolve_user_link(home, &home.join(CODEX_RULES_FILE)).map_err(by_hand)?;
    let label = shown(home, &at.path, &at.real);
    match crate::fsutil::read_host_file(&at.real, "Codex rules")? {
        None => {
            done.push(format!(
                "allowed capn ask and capn chart for Codex in {label}"
            ));
            Ok(Some((at, CODEX_RULES.as_bytes().to_vec())))
        }
        Some(b) if b == CODEX_RULES.as_bytes() => Ok(None),
        Some(_) => {
            done.push(format!("kept {label}: it holds another text"));
            Ok(None)
        }
    }
}

/// `path` (under `home`) as the report names it: `~/.claude/settings.json`, and when it was
/// reached through the user's symlink, the file written too:
/// `~/.claude/settings.json (-> ~/dotfiles/claude.json)`.
fn shown(home: &Path, path: &Path, real: &Path) -> String {
    let real_home = crate::fsutil::resolved(home);
    let tilde = |p: &Path| match [home, real_home.as_path()]
        .into_iter()
        .find(|h| p.starts_with(h))
    {
        Some(h) => format!("~/{}", rel(h, p)),
        None => p.display().to_string(),
    };
    if path == real {
        tilde(path)
    } else {
        format!("{} (-> {})", tilde(path), tilde(real))
    }
}

fn by_hand(e: anyhow::Error) -> anyhow::Error {
    anyhow!("{e:#}; capn init --user changed nothing (register the capn hooks by hand: INSTALL.md, \"Registering by hand\")")
}

/// Every refusal before the first write: a settings file, the rules file, the skill or a folder
/// on the way to them that must not be written. A path reached through the user's symlink is
/// judged where it leads (no symlink is left on the way there).
fn refusals(plan: &UserPlan) -> Result<()> {
    for s in &plan.settings {
        if let Some(why) = s.file.refusal() {
            return Err(by_hand(anyhow!(why)));
        }
    }
    let mut paths: Vec<(PathBuf, PathBuf)> = plan
        .settings
        .iter()
        .map(|s| (s.file.path.clone(), s.file.real_path().to_path_buf()))
        .collect();
    let others = plan.rules.iter().map(|(at, _)| at).chain(&plan.skill);
    paths.extend(others.map(|at| (at.path.clone(), at.real.clone())));
    for (path, real) in paths {
        if path == real {
            crate::fsutil::check_inside(&plan.home, &path).map_err(by_hand)?;
        }
        if let Some(why) = crate::fsutil::unwritable_reason(&real) {
            let label = match path == real {
                true => path.display().to_string(),
                false => format!("{} (-> {})", path.display(), real.display()),
            };
            return Err(by_hand(anyhow!("could not write {label}: {why}")));
        }
    }
    Ok(())
}

/// The folders a write to `path` (under `home`) would create, outermost first, relative to
/// `home`.
fn missing_dirs(home: &Path, path: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut at = path.parent();
    while let Some(dir) = at.filter(|d| *d != home && d.starts_with(home)) {
        if dir.exists() {
            break;
        }
        out.insert(0, rel(home, dir));
        at = dir.parent();
    }
    out
}

fn rel(home: &Path, p: &Path) -> String {
    let r = p.strip_prefix(home).unwrap_or(p);
    r.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Carries out `plan`, the record saved before each file is written. Returns the report lines.
///
/// Errors: the record or a file cannot be written.
pub(crate) fn apply_init(plan: UserPlan) -> Result<Vec<String>> {
    let UserPlan {
        home,
        settings,
        rules,
        skill: install_skill,
        done,
    } = plan;
    let mut rec = UserRecord::load()?.unwrap_or_default();
    rec.version = 1;
    let mut writes: Vec<(UserPath, Option<Vec<u8>>, Vec<u8>)> = Vec::new();
    for f in settings.iter().map(|s| &s.file).filter(|f| f.changed()) {
        // Reached through a symlink, a user file lies in an existing folder (the target's):
        // nothing to create on the way.
        let base = match f.real_path() == f.path {
            true => home.clone(),
            false => f.real_path().parent().unwrap_or(&home).to_path_buf(),
        };
        let at = UserPath {
            path: f.path.clone(),
            real: f.real_path().to_path_buf(),
            base,
        };
        writes.push((at, f.original_bytes().map(<[u8]>::to_vec), f.bytes()));
    }
    if let Some((at, bytes)) = rules {
        writes.push((at, None, bytes));
    }
    // Folders are recorded as the hosts name them, under the home folder: uninstall removes
    // them there, through the same symlinked folder as the writes.
    let targets = writes.iter().map(|w| &w.0).chain(&install_skill);
    for t in targets {
        for d in missing_dirs(&home, &t.path) {
            if !rec.dirs.contains(&d) {
                rec.dirs.push(d);
            }
        }
    }
    for (at, before, after) in &writes {
        let real = at.linked().then_some(at.real.as_path());
        rec.set(&rel(&home, &at.path), real, before.as_deref(), after);
    }
    for s in settings.iter().filter(|s| s.spec.allow_rules) {
        record_allow(&mut rec, s);
    }
    rec.skill |= install_skill.is_some();
    if !done.is_empty() {
        rec.save()?;
    }
    for (at, _, after) in &writes {
        if let Some(dir) = at.real.parent() {
            crate::fsutil::ensure_dir_inside(&at.base, dir)?;
        }
        crate::fsutil::write_atomic(&at.real, after)?;
    }
    if let Some(at) = &install_skill {
        skill::install_at(&at.base, &at.real)?;
    }
    Ok(done)
}

/// Records in `rec` the allow rules `init --user` added to `s`'s file (nothing when the record
/// does not hold the file): what earlier runs added (listed, or for a record of an older capn,
/// derived from the bytes from before) and what this one adds.
fn record_allow(rec: &mut UserRecord, s: &UserSettings) {
    let Some(f) = rec.files.iter_mut().find(|f| f.file == s.spec.user_file) else {
        return;
    };
    f.allow_made |= s.allow_made;
    let mut listed: Vec<String> = f.added_rules().into_iter().map(String::from).collect();
    for rule in &s.allow_added {
        if !listed.iter().any(|r| r == rule) {
            listed.push(rule.to_string());
        }
    }
    f.allow = Some(listed);
}

/// Removes what `init --user` added under `home` (see the module docs). Returns the report
/// lines.
///
/// Errors: a file cannot be read, parsed or written; the message names it.
pub(crate) fn uninstall(home: &Path) -> Result<Vec<String>> {
    let rec = UserRecord::load()?;
    let mut done = Vec::new();
    let mut files: Vec<(SettingsFile, String)> = Vec::new();
    for spec in crate::hosts::always() {
        files.push((
            SettingsFile::load_in_home(home, &home.join(spec.user_file))?,
            user_table(spec.table)?,
        ));
    }
    // Resolved before the first write: a dangling symlink stops the run with nothing changed.
    let rules_at = crate::hosts::always()
        .any(|s| s.user_rules)
        .then(|| resolve_user_link(home, &home.join(CODEX_RULES_FILE)))
        .transpose()?;
    let skill_at = crate::hosts::always()
        .any(|s| s.prep_skill)
        .then(|| resolve_user_link(home, &skill::skill_path(home)))
        .transpose()?;
    for (f, _) in &files {
        let real = f.real_path();
        if let Some(why) = crate::fsutil::unwritable_reason(real).filter(|_| f.existed()) {
            anyhow::bail!("could not write {}: {why}; nothing was changed", f.shown());
        }
    }
    for (f, table) in &mut files {
        let key = rel(home, &f.path);
        let recorded = rec.as_ref().and_then(|r| r.file(&key));
        let label = shown(home, &f.path, f.real_path());
        done.extend(undo_settings(f, table, recorded, &label)?);
    }
    if let Some(at) = &rules_at {
        done.extend(undo_rules(home, at, rec.as_ref())?);
    }
    if let Some(at) = skill_at.filter(|_| rec.as_ref().is_none_or(|r| r.skill)) {
        done.extend(undo_skill(home, &at, rec.is_none())?);
    }
    if let Some(r) = &rec {
        // Only the folders init --user made, each once empty (remove_dir does not follow a
        // symlink in the last place; a symlinked folder on the way is the user's, followed as
        // init --user followed it).
        for d in r.dirs.iter().rev() {
            let _ = std::fs::remove_dir(home.join(d));
        }
        crate::fsutil::remove_if_exists(&UserRecord::path()?)?;
    }
    Ok(done)
}

/// Gives one settings file (`label` as the report names it) its bytes from before
/// `init --user` when nothing else changed it, else removes capn's entries from it. A file
/// reached through the user's symlink is written where it leads; one `init --user` created is
/// deleted only when it is no symlink itself (the user's link is never left dangling). Returns
/// what it did.
fn undo_settings(
    f: &mut SettingsFile,
    table: &str,
    recorded: Option<&UserFile>,
    label: &str,
) -> Result<Vec<String>> {
    let current = f.original_bytes().map(<[u8]>::to_vec);
    let is_link = std::fs::symlink_metadata(&f.path).is_ok_and(|m| m.file_type().is_symlink());
    if let (Some(r), Some(now)) = (recorded, &current) {
        if sha256_hex(now) == r.after_sha256 && (r.before.is_some() || !is_link) {
            match &r.before {
                Some(before) => crate::fsutil::write_atomic(f.real_path(), before.as_bytes())?,
                None => crate::fsutil::remove_if_exists(f.real_path())?,
            }
            return Ok(vec![if r.before.is_some() {
                format!("gave {label} back its bytes from before capn init --user")
            } else {
                format!("deleted {label} (capn init --user created it)")
            }]);
        }
    }
    let mut done = Vec::new();
    for event in super::remove_table_handlers(table, f)? {
        done.push(format!("removed the {event} hook from {label}"));
    }
    if let Some(what) = super::unmerge_statusline(f, None) {
        done.push(format!("{what} in {label}"));
    }
    let removed = match recorded {
        // Only the rules init --user added: one the file held before is the user's.
        Some(r) => allow::remove_rules(f, &r.added_rules(), r.allow_made),
        None => allow::remove(f, true),
    };
    for rule in removed {
        done.push(format!("removed the allow rule {rule} from {label}"));
    }
    f.save()?;
    Ok(done)
}

/// Removes the Codex rules file when it holds capn's text (`at`: where it is, through the
/// user's symlinks). A symlink of the user's own at its place is kept (with what it leads to),
/// never left dangling.
///
/// Errors: the file cannot be read or removed.
fn undo_rules(home: &Path, at: &UserPath, rec: Option<&UserRecord>) -> Result<Vec<String>> {
    if rec.is_some_and(|r| r.file(CODEX_RULES_FILE).is_none()) {
        return Ok(Vec::new());
    }
    let label = shown(home, &at.path, &at.real);
    match crate::fsutil::read_host_file(&at.real, "Codex rules")? {
        Some(_) if at.is_link() => Ok(vec![format!("kept {label}: the symlink is yours")]),
        Some(b) if b == CODEX_RULES.as_bytes() => {
            crate::fsutil::remove_if_exists(&at.real)?;
            Ok(vec![format!("removed {label}")])
        }
        Some(_) => Ok(vec![format!(
            "kept {label}: it was changed after capn init --user"
        )]),
        None => Ok(Vec::new()),
    }
}

/// Removes the skill file at `at` (through the user's symlinks) when it is the bundled one,
/// and with `no_record` its own folder once empty; a symlink of the user's own at its place
/// is kept. Returns what it did.
///
/// Errors: the file cannot be read or removed.
fn undo_skill(home: &Path, at: &UserPath, no_record: bool) -> Result<Vec<String>> {
    if skill::read_skill_file(&at.real)? != SkillFile::Bundled {
        return Ok(Vec::new());
    }
    let label = shown(home, &at.path, &at.real);
    if at.is_link() {
        return Ok(vec![format!(
            "kept the /compact-prep skill at {label}: the symlink is yours"
        )]);
    }
    crate::fsutil::remove_if_exists(&at.real)?;
    match at.real.parent() {
        // The skill's own folder, named for it: removed once empty (a real folder only).
        Some(dir) if no_record && std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) => {
            let _ = std::fs::remove_dir(dir);
        }
        _ => {}
    }
    Ok(vec![format!(
        "removed the /compact-prep skill from {label}"
    )])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(before: Option<&str>, allow: Option<&[&str]>) -> UserFile {
        UserFile {
            file: crate::hosts::CLAUDE.user_file.into(),
            before: before.map(str::to_string),
            after_sha256: String::new(),
            allow_made: false,
            allow: allow.map(|a| a.iter().map(|r| r.to_string()).collect()),
            real: None,
        }
    }

    #[test]
    fn the_rules_init_added_are_listed_or_derived_from_the_bytes_before() {
        let listed = recorded(None, Some(&["Bash(capn chart:*)"]));
        assert_eq!(listed.added_rules(), ["Bash(capn chart:*)"]);
        // A record of an older capn: what the file held before is the user's.
        let older = recorded(
            Some(r#"{"permissions": {"allow": ["Bash(capn ask:*)"]}}"#),
            None,
        );
        assert_eq!(older.added_rules(), ["Bash(capn chart:*)"]);
        assert_eq!(recorded(None, None).added_rules(), allow::CLAUDE_ALLOW);
        assert!(recorded(Some("{ not json"), None).added_rules().is_empty());
    }
}
