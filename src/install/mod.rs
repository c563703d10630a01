//! Hook registration: the table of what `capn init` installs (the data files in `hooks-config/`)
//! and a merge into host settings files that never clobbers and never reformats.
//!
//! Rules: a settings file that does not parse, is a symlink (dangling or not) or is not a
//! regular file is never written (the caller reports it and exits 1); every key and every other
//! tool's hook is kept as it was, byte for byte: edits insert or remove only capn's entries
//! through a syntax tree of the file ([`jsonedit`]); our handler is added only where absent (in
//! any of the files that count for that host); registrations of older capn versions are replaced
//! by ours and reported ([`MergeReport::replaced`]) so the install record can put them back; writes
//! are atomic and skipped when nothing changed. Shapes follow Claude Code's hooks docs,
//! "Configuration": `hooks → Event → [{matcher, hooks: [handler]}]`.
//!
//! Older registrations replaced ([`is_legacy`]): capn-hook 0.2's `/usr/bin/env capn context`
//! (also bare `capn context`), capn 0.1's split form `{"command": "/usr/bin/env", "args":
//! ["capn", "context"]}`, and 0.1's Stop hook `capn nudge` (a subcommand that no longer exists,
//! so it failed on every Stop).
//!
//! What `init` adds is written down in the install record ([`record`]); `uninstall` removes
//! the recorded handlers ([`remove_recorded_handler`]) and, for a project without a record, only
//! handlers identical to the table's ([`remove_table_handlers`]).
//!
//! The project install itself: [`plan`] works out everything `capn init` changes (nothing
//! written), [`apply`] writes it, the install record first; [`uninstall`] undoes it; [`user`]
//! is the user-level install. The commands in `cmd/` only turn flags into options and print.

pub(crate) mod allow;
pub(crate) mod apply;
pub(crate) mod git_hook;
pub(crate) mod more_hosts;
pub(crate) mod plan;
pub(crate) mod project;
pub(crate) mod record;
pub(crate) mod refresh_hooks;
pub mod schema;
pub(crate) mod settings;
pub(crate) mod shared;
pub(crate) mod skill;
mod statusline;
pub(crate) mod uninstall;
mod upgrade;
pub(crate) mod user;

pub(crate) use statusline::*;
pub(crate) use upgrade::OLD_SESSION_START_MATCHER;

use crate::jsonedit;
use anyhow::{anyhow, Result};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The capn subcommands older versions registered that ours replace (see the module docs).
const LEGACY_SUBCOMMANDS: [&str; 2] = ["context", "nudge"];

/// A settings file loaded for merging: its bytes as read, and a format-preserving document
/// ([`jsonedit::Doc`]) that edits change. `json` is the document as the hosts read it, kept in
/// step with every edit; change the file only through the edit methods.
#[derive(Debug)]
pub(crate) struct SettingsFile {
    /// Absolute path.
    pub path: PathBuf,
    /// The parsed JSON object (empty when the file does not exist), as of the last edit.
    pub json: Map<String, Value>,
    original: Option<Vec<u8>>,
    doc: jsonedit::Doc,
    /// Where the file is read and written: `path`, or for a user file reached through a
    /// symlink the user made in the home folder, the link's final target
    /// ([`SettingsFile::load_in_home`]).
    real: PathBuf,
}

impl SettingsFile {
    /// Loads a project settings file without following a symlink or blocking on a FIFO
    /// ([`crate::fsutil::read_host_file`]). A missing file is an empty object.
    ///
    /// Errors: the file is a symlink (named, with how to register by hand), a FIFO, a device
    /// or a folder, cannot be read, is not JSON as its host reads it ([`syntax_of`]: trailing
    /// commas never, comments only in Gemini CLI's and Qwen Code's files), is not an object, or its `hooks` value has an unexpected shape. The message names the file and
    /// the reason.
    pub(crate) fn load(path: &Path) -> Result<SettingsFile> {
        if let Some(dir) = linked_folder(path) {
            return Err(anyhow!(
                "could not read settings: {}: its folder {} is a symlink; capn never reads or \
                 writes through a symlink in a project, so nothing was changed. Register the \
                 capn hooks by hand (INSTALL.md, \"Registering by hand\")",
                path.display(),
                dir.display()
            ));
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            let target = std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            return Err(anyhow!(
                "could not read settings: {}: it is a symlink (to {target}); capn never reads or \
                 writes through a symlink in a project, so nothing was changed. Register the capn \
                 hooks by hand in the file it points to (INSTALL.md, \"Registering by hand\")",
                path.display()
            ));
        }
        let bytes = crate::fsutil::read_host_file(path, "settings")?;
        Self::from_bytes(path, bytes)
    }

    /// Loads a user-level settings file (`~/.claude/settings.json`), which is only ever read:
    /// a symlink there (a dotfiles set-up) is followed to its target, still without blocking.
    ///
    /// Errors: as [`SettingsFile::load`], but for symlinks.
    pub(crate) fn load_user(path: &Path) -> Result<SettingsFile> {
        let resolved = crate::fsutil::resolved(path);
        let bytes = crate::fsutil::read_host_file(&resolved, "settings")?;
        Self::from_bytes(path, bytes)
    }

    /// Loads a user-level settings file that `init --user` or `uninstall --user` edits: a
    /// symlink the user made in `home` (on the file or a folder on the way) is followed to its
    /// final target, which is read and later written in its place
    /// ([`crate::fsutil::resolve_user_link`]); without one, as [`SettingsFile::load`].
    ///
    /// Errors: as [`crate::fsutil::resolve_user_link`] (a dangling symlink, one leading to
    /// something other than a regular file), then as [`SettingsFile::load`] for the target.
    pub(crate) fn load_in_home(home: &Path, path: &Path) -> Result<SettingsFile> {
        let user = crate::fsutil::resolve_user_link(home, path)?;
        if !user.linked() {
            return Self::load(path);
        }
        let bytes = crate::fsutil::read_host_file(&user.real, "settings")?;
        let mut file = Self::from_bytes(path, bytes)?;
        file.real = user.real;
        Ok(file)
    }

    /// A settings file from its bytes (`None`: the file does not exist).
    ///
    /// Errors: as [`SettingsFile::load`] for the content.
    pub(crate) fn from_bytes(path: &Path, bytes: Option<Vec<u8>>) -> Result<SettingsFile> {
        let text = bytes.as_deref().unwrap_or_default();
        let doc = jsonedit::Doc::parse_as(text, syntax_of(path)).map_err(|e| {
            anyhow!(
                "could not parse settings: {}: {e}; left untouched (fix it, then run the capn command again)",
                path.display()
            )
        })?;
        let json = doc.value();
        if let Some(h) = json.get("hooks") {
            if !hooks_shape_ok(h) {
                return Err(anyhow!(
                    "could not parse settings: {}: \"hooks\" is not of the shape {{Event: [{{matcher, hooks: [...]}}]}}; left untouched",
                    path.display()
                ));
            }
        }
        Ok(SettingsFile {
            path: path.to_path_buf(),
            json,
            original: bytes,
            doc,
            real: path.to_path_buf(),
        })
    }

    /// Where the file is read and written: [`SettingsFile::path`], or the final target of the
    /// user's symlink ([`SettingsFile::load_in_home`]).
    pub(crate) fn real_path(&self) -> &Path {
        &self.real
    }

    /// Whether the file existed when loaded.
    pub(crate) fn existed(&self) -> bool {
        self.original.is_some()
    }

    /// The file's bytes as loaded (`None`: it did not exist).
    pub(crate) fn original_bytes(&self) -> Option<&[u8]> {
        self.original.as_deref()
    }

    /// The file's bytes as they are now (edits applied).
    pub(crate) fn bytes(&self) -> Vec<u8> {
        self.doc.text().into_bytes()
    }

    /// True when the bytes differ from what was loaded.
    pub(crate) fn changed(&self) -> bool {
        self.original.as_deref().unwrap_or_default() != self.doc.text().as_bytes()
    }

    /// Why this file must not be written, when it changed and cannot be (see
    /// [`crate::fsutil::unwritable_reason`]): checked by `init` and `uninstall` for every file
    /// before any file is touched.
    pub(crate) fn refusal(&self) -> Option<String> {
        if !self.changed() {
            return None;
        }
        crate::fsutil::unwritable_reason(&self.real).map(|why| {
            format!(
                "could not write {}: {why}; nothing was changed",
                self.shown()
            )
        })
    }

    /// The path for messages: `path`, or for a file reached through the user's symlink,
    /// `path (-> target)`.
    pub(crate) fn shown(&self) -> String {
        if self.real == self.path {
            self.path.display().to_string()
        } else {
            format!("{} (-> {})", self.path.display(), self.real.display())
        }
    }

    /// Replaces the whole content with `bytes` (the install record's copy from before `init`).
    ///
    /// Errors: `bytes` do not parse as a settings file.
    pub(crate) fn replace_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.doc = jsonedit::Doc::parse_as(bytes, syntax_of(&self.path)).map_err(|e| {
            anyhow!(
                "could not parse the recorded copy of {}: {e}",
                self.path.display()
            )
        })?;
        self.json = self.doc.value();
        Ok(())
    }

    /// Removes the handler at `hooks[event][group][handler]` (indices as in `json`), and what
    /// that leaves empty. Returns whether it was there.
    pub(crate) fn remove_handler_at(&mut self, event: &str, group: usize, handler: usize) -> bool {
        let done = self.doc.remove_handler(event, group, handler);
        self.json = self.doc.value();
        done
    }

    /// Appends a matcher group to `hooks[event]`.
    pub(crate) fn append_group(&mut self, event: &str, group: &Value) {
        self.doc.append_group(event, group);
        self.json = self.doc.value();
    }

    /// Sets (or with `None` removes) a top-level key.
    pub(crate) fn set_top(&mut self, key: &str, value: Option<&Value>) {
        self.doc.set_top(key, value);
        self.json = self.doc.value();
    }

    /// Sets a field of a top-level object.
    pub(crate) fn set_in_top(&mut self, key: &str, field: &str, value: &Value) {
        self.doc.set_in_top(key, field, value);
        self.json = self.doc.value();
    }

    /// Appends the string `value` to the array `key.field`, creating what is absent (see
    /// [`jsonedit::Doc::append_to_top_array`]).
    pub(crate) fn append_to_top_array(&mut self, key: &str, field: &str, value: &Value) {
        self.doc.append_to_top_array(key, field, value);
        self.json = self.doc.value();
    }

    /// Removes the first element equal to `value` from the array `key.field` and, with
    /// `prune`, what that leaves empty. Returns whether it was there.
    pub(crate) fn remove_from_top_array(
        &mut self,
        key: &str,
        field: &str,
        value: &Value,
        prune: bool,
    ) -> bool {
        let done = self.doc.remove_from_top_array(key, field, value, prune);
        self.json = self.doc.value();
        done
    }

    /// Writes the file atomically when it changed; creates the parent folder. Returns whether
    /// it wrote.
    ///
    /// Errors: the file must not be written ([`SettingsFile::refusal`]), or the folder or the
    /// file cannot be written.
    pub(crate) fn save(&self) -> Result<bool> {
        if !self.changed() {
            return Ok(false);
        }
        if let Some(why) = self.refusal() {
            return Err(anyhow!(why));
        }
        if let Some(parent) = self.real.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| anyhow!("could not create {}: {e}", parent.display()))?;
        }
        crate::fsutil::write_atomic(&self.real, &self.bytes())?;
        Ok(true)
    }
}

/// The JSON the host that reads the settings file at `path` accepts: Gemini CLI and Qwen Code
/// read `settings.json` in their `.gemini` and `.qwen` folders (project or user) through
/// `strip-json-comments`, so comments are valid there; every other file is strict JSON.
pub(crate) fn syntax_of(path: &Path) -> jsonedit::Syntax {
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str());
    let name = path.file_name().and_then(|n| n.to_str());
    match (folder, name) {
        (Some(".gemini" | ".qwen"), Some("settings.json")) => jsonedit::Syntax::Comments,
        _ => jsonedit::Syntax::Strict,
    }
}

fn hooks_shape_ok(h: &Value) -> bool {
    match h {
        Value::Object(events) => events.values().all(|v| {
            v.as_array().is_some_and(|groups| {
                groups
                    .iter()
                    .all(|g| g.get("hooks").is_none_or(|hs| hs.is_array()) && g.is_object())
            })
        }),
        _ => false,
    }
}

/// A handler's command line for messages: `command`, then each string of `args`, space-separated
/// (non-string args are left out; a missing `command` counts as empty).
pub(crate) fn command_line(handler: &Value) -> String {
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let args = handler
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    std::iter::once(command)
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Which capn hook subcommand a handler runs (`session-start`, ...), if it is ours.
pub(crate) fn our_subcommand(handler: &Value) -> Option<String> {
    let command = handler.get("command")?.as_str()?.trim();
    if let Some(args) = handler.get("args").and_then(Value::as_array) {
        if is_capn(command) && args.first().and_then(Value::as_str) == Some("hook") {
            return args.get(1).and_then(Value::as_str).map(str::to_string);
        }
    }
    let mut words = command.split_whitespace();
    let first = words.next()?;
    if is_capn(first) && words.next() == Some("hook") {
        return words.next().map(str::to_string);
    }
    None
}

/// True when the command word `c` runs capn: `capn`, a path ending in `/capn`, or a Windows
/// path ending in `\capn.exe`.
pub(super) fn is_capn(c: &str) -> bool {
    c == "capn" || c.ends_with("/capn") || c.ends_with("\\capn.exe")
}

/// True for a registration of an older capn that ours replaces: the command words (the
/// `command` string split on whitespace, then `args`), after a leading `env` or `/usr/bin/env`,
/// are exactly `capn context` or `capn nudge` (see the module docs).
pub(crate) fn is_legacy(handler: &Value) -> bool {
    let Some(command) = handler.get("command").and_then(Value::as_str) else {
        return false;
    };
    let mut words: Vec<&str> = command.split_whitespace().collect();
    match handler.get("args") {
        None => {}
        Some(Value::Array(args)) => {
            for a in args {
                let Some(a) = a.as_str() else { return false };
                words.push(a);
            }
        }
        Some(_) => return false,
    }
    if matches!(words.first(), Some(&"env" | &"/usr/bin/env" | &"/bin/env")) {
        words.remove(0);
    }
    words.len() == 2 && is_capn(words[0]) && LEGACY_SUBCOMMANDS.contains(&words[1])
}

/// The id of capn's Claude Code plugin in this repository's marketplace
/// (`.claude-plugin/marketplace.json`): `<plugin>@<marketplace>`.
pub(crate) const PLUGIN_ID: &str = "capn@capn-hook";

/// True when any of `files` enables capn's Claude Code plugin (`"enabledPlugins":
/// {"capn@capn-hook": true}`, the settings key Claude Code keeps plugin state in). Its
/// `hooks/hooks.json` then registers capn's hooks and its skill is `/capn:compact-prep`, so `init`
/// registers neither again (a hook in both settings and a plugin runs twice).
pub(crate) fn plugin_enabled(files: &[&Map<String, Value>]) -> bool {
    files.iter().any(|j| {
        j.get("enabledPlugins")
            .and_then(|p| p.get(PLUGIN_ID))
            .and_then(Value::as_bool)
            == Some(true)
    })
}

/// Which older capn a legacy handler ([`is_legacy`]) comes from: `"0.1"` for the split form
/// (`args`) and `capn nudge`, `"0.2"` otherwise.
pub(crate) fn legacy_version(handler: &Value) -> &'static str {
    let nudge = handler
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains("nudge"))
        || handler
            .get("args")
            .is_some_and(|a| a.to_string().contains("nudge"));
    if nudge || handler.get("args").is_some() {
        "0.1"
    } else {
        "0.2"
    }
}

/// Every handler in a settings-shaped object (`{"hooks": {Event: [{matcher, hooks: [handler]}]}}`,
/// Claude Code's hooks docs, "Configuration") as (event, its matcher group, the handler), in file
/// order. Parts of another shape are skipped.
pub(crate) fn handlers(json: &Map<String, Value>) -> Vec<(&str, &Value, &Value)> {
    located(json)
        .into_iter()
        .map(|h| (h.event, h.group, h.handler))
        .collect()
}

/// One handler of a settings object and where it is.
struct Located<'a> {
    event: &'a str,
    group_index: usize,
    index: usize,
    group: &'a Value,
    handler: &'a Value,
}

fn located(json: &Map<String, Value>) -> Vec<Located<'_>> {
    let mut out = Vec::new();
    if let Some(Value::Object(events)) = json.get("hooks") {
        for (event, groups) in events {
            for (gi, g) in groups.as_array().into_iter().flatten().enumerate() {
                let hs = g.get("hooks").and_then(Value::as_array);
                for (hi, h) in hs.into_iter().flatten().enumerate() {
                    out.push(Located {
                        event,
                        group_index: gi,
                        index: hi,
                        group: g,
                        handler: h,
                    });
                }
            }
        }
    }
    out
}

/// The folder holding `path` when it is a symlink: a project's settings are never read or
/// written through one.
fn linked_folder(path: &Path) -> Option<&Path> {
    path.parent()
        .filter(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_symlink()))
}

/// Whether the project settings file at `path` registers capn's hook for `event` (under the
/// event's name, as [`ours_in`] reads it), read the light way a hook can afford on every event:
/// no format-preserving tree, and no parse at all unless the bytes name the event's subcommand.
/// A file that cannot be read (a symlink, or one in a symlinked folder, is not), does not parse,
/// or is beyond [`crate::jsonbound::SETTINGS`] counts as not registering.
pub(crate) fn registers_hook(path: &Path, event: crate::events::HookEvent) -> bool {
    if linked_folder(path).is_some() {
        return false;
    }
    let Ok(Some(bytes)) = crate::fsutil::read_host_file(path, "settings") else {
        return false;
    };
    if memchr::memmem::find(&bytes, event.subcommand().as_bytes()).is_none() {
        return false;
    }
    let Ok((_, text)) = jsonedit::text_of(&bytes) else {
        return false;
    };
    let Ok(Value::Object(json)) = syntax_of(path).read(text) else {
        return false;
    };
    ours_in(&json)
        .iter()
        .any(|(e, sub)| e == event.name() && sub == event.subcommand())
}

/// The (event, subcommand) pairs registered as ours (see [`our_subcommand`]) in a settings
/// object.
pub(crate) fn ours_in(json: &Map<String, Value>) -> Vec<(String, String)> {
    handlers(json)
        .into_iter()
        .filter_map(|(event, _, h)| our_subcommand(h).map(|sub| (event.to_string(), sub)))
        .collect()
}

/// A handler removed from a settings file, with where it was, so it can be put back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Removed {
    /// The settings file.
    pub path: PathBuf,
    /// The event.
    pub event: String,
    /// The matcher of its group (`None`: the group had none).
    pub matcher: Option<Value>,
    /// The handler.
    pub handler: Value,
    /// Its group's index in the event and its index in the group, as it was.
    pub position: (usize, usize),
}

/// Removes handlers matching `pred` from every event, dropping a group, an event and `hooks`
/// when this left them empty. Returns what was removed, in file order.
pub(crate) fn remove_handlers(
    file: &mut SettingsFile,
    pred: &dyn Fn(&Value) -> bool,
) -> Vec<Removed> {
    let found: Vec<(String, usize, usize, Removed)> = located(&file.json)
        .into_iter()
        .filter(|h| pred(h.handler))
        .map(|h| {
            let r = Removed {
                path: file.path.clone(),
                event: h.event.to_string(),
                matcher: h.group.get("matcher").cloned(),
                handler: h.handler.clone(),
                position: (h.group_index, h.index),
            };
            (h.event.to_string(), h.group_index, h.index, r)
        })
        .collect();
    // Last first, so the indices of the ones before stay valid.
    for (event, gi, hi, _) in found.iter().rev() {
        file.remove_handler_at(event, *gi, *hi);
    }
    found.into_iter().map(|(_, _, _, r)| r).collect()
}

/// Puts back a handler an earlier `init` replaced, where it was: into its group at its index
/// when that group (same matcher) is still at `position.0`, else as a group of its own there
/// (at the end when `position` is unknown), unless an equal handler is in that event. Returns
/// whether it added it.
pub(crate) fn put_back(
    file: &mut SettingsFile,
    event: &str,
    matcher: Option<&Value>,
    handler: &Value,
    position: Option<(usize, usize)>,
) -> bool {
    if located(&file.json)
        .iter()
        .any(|h| h.event == event && h.handler == handler)
    {
        return false;
    }
    let mut group = Map::new();
    if let Some(m) = matcher {
        group.insert("matcher".into(), m.clone());
    }
    group.insert("hooks".into(), Value::Array(vec![handler.clone()]));
    let group = Value::Object(group);
    match position {
        Some((gi, hi)) => {
            file.doc.insert_handler(event, gi, hi, handler, &group);
            file.json = file.doc.value();
        }
        None => file.append_group(event, &group),
    }
    true
}

/// What a merge did, for `init`'s report and the install record.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct MergeReport {
    /// capn SessionStart handlers moved off [`OLD_SESSION_START_MATCHER`], with their file.
    pub upgraded: Vec<(PathBuf, usize)>,
    /// Files whose capn tool-hook matcher was widened to file reads
    /// ([`upgrade::OLD_TOOL_MATCHERS`]).
    pub tools_upgraded: Vec<PathBuf>,
    /// Events whose handler was added.
    pub added: Vec<String>,
    /// Every handler added, with its event.
    pub handlers: Vec<(String, Value)>,
    /// Registrations of older capn versions removed (see [`is_legacy`]).
    pub replaced: Vec<Removed>,
}

/// Merges the registrations of `table` (a JSON text shaped like settings, `{"hooks": {...}}`)
/// into `target`, treating handlers already present in `target` or in any of `others` as
/// registered. Legacy handlers are removed from `target` and `others`.
///
/// Errors: `table` is not valid (a bug in the embedded data).
#[cfg(test)]
pub(crate) fn merge(
    table: &str,
    target: &mut SettingsFile,
    others: &mut [&mut SettingsFile],
) -> Result<MergeReport> {
    merge_counting(table, target, others, &[])
}

/// A merge of `table` into `target`, also treating handlers of ours in `read_only` (the user-level files the host
/// merges in, `~/.claude/settings.json`, `~/.codex/hooks.json`) as registered. Those are only
/// read, never changed: a handler registered there is not added again to the project.
///
/// Errors: `table` is not valid (a bug in the embedded data).
pub(crate) fn merge_counting(
    table: &str,
    target: &mut SettingsFile,
    others: &mut [&mut SettingsFile],
    read_only: &[&SettingsFile],
) -> Result<MergeReport> {
    let table: Map<String, Value> = serde_json::from_str(table)?;
    let mut report = MergeReport::default();
    report.replaced.extend(remove_handlers(target, &is_legacy));
    for o in others.iter_mut() {
        report.replaced.extend(remove_handlers(o, &is_legacy));
    }
    report.upgraded = upgrade::upgrade_all(target, others);
    report.tools_upgraded = upgrade::upgrade_tools_all(target, others);
    let mut present = ours_in(&target.json);
    for o in others.iter() {
        present.extend(ours_in(&o.json));
    }
    for o in read_only {
        present.extend(ours_in(&o.json));
    }
    let Some(Value::Object(events)) = table.get("hooks") else {
        return Ok(report);
    };
    for (event, groups) in events {
        for group in groups.as_array().into_iter().flatten() {
            let hs: Vec<&Value> = group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .collect();
            if hs
                .iter()
                .filter_map(|h| our_subcommand(h))
                .all(|s| present.contains(&(event.clone(), s)))
            {
                continue;
            }
            target.append_group(event, group);
            report.added.push(event.clone());
            for h in hs {
                report.handlers.push((event.clone(), h.clone()));
            }
        }
    }
    Ok(report)
}

/// How [`remove_recorded_handler`] found a recorded handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// As `init` added it.
    Exact,
    /// Changed since (a handler of ours running the same subcommand in the same event).
    Edited,
}

/// Removes the handler `init` recorded adding to `event`: the first handler equal to it, else
/// (it was edited since, e.g. by hand as `capn doctor` suggests) the first handler of ours
/// running the same `capn hook` subcommand in that event. A group left without handlers is
/// removed, then an event left without groups, then `hooks` if left empty. `None` when neither
/// is there (already removed).
pub(crate) fn remove_recorded_handler(
    file: &mut SettingsFile,
    event: &str,
    handler: &Value,
) -> Option<Found> {
    let sub = our_subcommand(handler);
    if remove_first(file, event, &|h| h == handler) {
        return Some(Found::Exact);
    }
    let sub = sub.as_deref()?;
    remove_first(file, event, &|h| our_subcommand(h).as_deref() == Some(sub))
        .then_some(Found::Edited)
}

/// Removes the first handler of `event` matching `pred`, dropping what it leaves empty (see
/// [`remove_recorded_handler`]). Returns whether one was removed.
fn remove_first(file: &mut SettingsFile, event: &str, pred: &dyn Fn(&Value) -> bool) -> bool {
    let at = located(&file.json)
        .into_iter()
        .find(|h| h.event == event && pred(h.handler))
        .map(|h| (h.group_index, h.index));
    match at {
        Some((gi, hi)) => file.remove_handler_at(event, gi, hi),
        None => false,
    }
}

/// For a project without an install record: removes the handlers identical to the ones `table`
/// registers (same event, same value), nothing else. Returns the events they were removed from.
///
/// Errors: `table` is not valid (a bug in the embedded data).
pub(crate) fn remove_table_handlers(table: &str, file: &mut SettingsFile) -> Result<Vec<String>> {
    let table: Map<String, Value> = serde_json::from_str(table)?;
    let mut out: Vec<String> = Vec::new();
    for (event, _, h) in handlers(&table) {
        while remove_first(file, event, &|x| x == h) {
            if !out.iter().any(|e| e == event) {
                out.push(event.to_string());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
