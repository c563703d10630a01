//! Hook registration: the table of what `capn init` installs (the data files in `hooks-config/`)
//! and a merge into host settings files that never clobbers.
//!
//! Rules: a settings file that does not parse is never written (the caller reports it and exits
//! 1); every key and every other tool's hook is kept as it was; our handler is added only where
//! absent (in any of the files that count for that host); the capn-hook 0.2 registration
//! (`/usr/bin/env capn context`) is replaced by ours; writes are atomic and skipped when nothing
//! changed. Shapes follow the Claude Code hooks reference, "Registration":
//! `hooks → Event → [{matcher, hooks: [handler]}]`.
//!
//! What `init` adds is written down in the install record ([`record`]); `uninstall` removes
//! the recorded handlers ([`remove_recorded_handler`]) and, for a project without a record, only
//! handlers identical to the table's ([`remove_table_handlers`]).

pub mod git_hook;
pub mod record;
pub mod schema;

use anyhow::{anyhow, Result};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The Claude Code registrations (`hooks-config/claude.json`).
pub const CLAUDE_TABLE: &str = include_str!("../../hooks-config/claude.json");
/// The Codex registrations (`hooks-config/codex.json`).
pub const CODEX_TABLE: &str = include_str!("../../hooks-config/codex.json");

/// The command strings of the capn-hook 0.2 registration that ours replaces.
const LEGACY_COMMANDS: [&str; 2] = ["/usr/bin/env capn context", "capn context"];

/// A settings file loaded for merging.
#[derive(Debug)]
pub struct SettingsFile {
    /// Absolute path.
    pub path: PathBuf,
    /// The parsed JSON object (empty when the file does not exist).
    pub json: Map<String, Value>,
    /// Whether the file existed.
    pub existed: bool,
    original: Option<Map<String, Value>>,
}

impl SettingsFile {
    /// Loads a settings file. A missing file is an empty object.
    ///
    /// Errors: the file exists but cannot be read, is not JSON (comments and trailing commas
    /// included), is not an object, or its `hooks` value has an unexpected shape. The message
    /// names the file and the reason.
    pub fn load(path: &Path) -> Result<SettingsFile> {
        let bytes = match crate::fsutil::read_limited(
            path,
            crate::fsutil::limits::HOST_FILE,
            crate::fsutil::Follow::Never,
        ) {
            Ok(b) => b,
            Err(crate::fsutil::ReadError::NotFound) => {
                return Ok(SettingsFile {
                    path: path.to_path_buf(),
                    json: Map::new(),
                    existed: false,
                    original: None,
                })
            }
            Err(e) => {
                return Err(anyhow!(
                    "could not read settings: {}: {e}; left untouched (capn never writes through a symlink or into a special file: register the hooks by hand)",
                    path.display()
                ))
            }
        };
        let text = String::from_utf8(bytes).map_err(|_| {
            anyhow!(
                "could not read settings: {}: not valid UTF-8; left untouched",
                path.display()
            )
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let json = if text.trim().is_empty() {
            Map::new()
        } else {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(m)) => m,
                Ok(_) => {
                    return Err(anyhow!(
                        "could not parse settings: {}: not a JSON object; left untouched",
                        path.display()
                    ))
                }
                Err(e) => {
                    return Err(anyhow!(
                        "could not parse settings: {}: {e}; left untouched (fix it, then run capn init again)",
                        path.display()
                    ))
                }
            }
        };
        if let Some(h) = json.get("hooks") {
            let ok = match h {
                Value::Object(events) => events.values().all(|v| {
                    v.as_array().is_some_and(|groups| {
                        groups
                            .iter()
                            .all(|g| g.get("hooks").is_none_or(|hs| hs.is_array()) && g.is_object())
                    })
                }),
                _ => false,
            };
            if !ok {
                return Err(anyhow!(
                    "could not parse settings: {}: \"hooks\" is not of the shape {{Event: [{{matcher, hooks: [...]}}]}}; left untouched",
                    path.display()
                ));
            }
        }
        Ok(SettingsFile {
            path: path.to_path_buf(),
            original: Some(json.clone()),
            json,
            existed: true,
        })
    }

    /// True when the JSON differs from what was loaded.
    pub fn changed(&self) -> bool {
        self.original.as_ref() != Some(&self.json)
            && !(self.original.is_none() && self.json.is_empty())
    }

    /// Writes the file atomically (pretty, 2 spaces, final newline) when it changed; creates the
    /// parent folder. Returns whether it wrote.
    ///
    /// Errors: the folder or the file cannot be written.
    pub fn save(&self) -> Result<bool> {
        if !self.changed() {
            return Ok(false);
        }
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| anyhow!("could not create {}: {e}", parent.display()))?;
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(self.json.clone()))?;
        text.push('\n');
        crate::fsutil::write_atomic(&self.path, text.as_bytes())?;
        Ok(true)
    }
}

/// Which capn hook subcommand a handler runs (`session-start`, ...), if it is ours.
pub fn our_subcommand(handler: &Value) -> Option<String> {
    let command = handler.get("command")?.as_str()?.trim();
    let is_capn = |c: &str| c == "capn" || c.ends_with("/capn") || c.ends_with("\\capn.exe");
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

/// True for the capn-hook 0.2 registration.
pub fn is_legacy(handler: &Value) -> bool {
    handler.get("args").is_none()
        && handler
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| LEGACY_COMMANDS.contains(&c.trim()))
}

/// Every handler in a settings-shaped object (`{"hooks": {Event: [{matcher, hooks: [handler]}]}}`,
/// hooks reference "Registration") as (event, its matcher group, the handler), in file order.
/// Parts of another shape are skipped.
pub fn handlers(json: &Map<String, Value>) -> Vec<(&str, &Value, &Value)> {
    let mut out = Vec::new();
    if let Some(Value::Object(events)) = json.get("hooks") {
        for (event, groups) in events {
            for g in groups.as_array().into_iter().flatten() {
                for h in g
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    out.push((event.as_str(), g, h));
                }
            }
        }
    }
    out
}

/// The (event, subcommand) pairs registered as ours (see [`our_subcommand`]) in a settings
/// object.
pub fn ours_in(json: &Map<String, Value>) -> Vec<(String, String)> {
    handlers(json)
        .into_iter()
        .filter_map(|(event, _, h)| our_subcommand(h).map(|sub| (event.to_string(), sub)))
        .collect()
}

/// Removes handlers matching `pred` from every event, dropping groups and events left empty.
/// Returns how many handlers were removed.
pub fn remove_handlers(json: &mut Map<String, Value>, pred: &dyn Fn(&Value) -> bool) -> usize {
    let mut removed = 0;
    let Some(Value::Object(events)) = json.get_mut("hooks") else {
        return 0;
    };
    for groups in events.values_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        for g in groups.iter_mut() {
            if let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) {
                let before = hs.len();
                hs.retain(|h| !pred(h));
                removed += before - hs.len();
            }
        }
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|hs| !hs.is_empty())
        });
    }
    if removed > 0 {
        events.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
        if events.is_empty() {
            json.remove("hooks");
        }
    }
    removed
}

/// What a merge did, for `init`'s report and the install record.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Events whose handler was added.
    pub added: Vec<String>,
    /// Every handler added, with its event.
    pub handlers: Vec<(String, Value)>,
    /// Number of capn-hook 0.2 handlers removed.
    pub legacy_removed: usize,
}

/// Merges the registrations of `table` (a JSON text shaped like settings, `{"hooks": {...}}`)
/// into `target`, treating handlers already present in `target` or in any of `others` as
/// registered. Legacy handlers are removed from `target` and `others`.
///
/// Errors: `table` is not valid (a bug in the embedded data).
pub fn merge(
    table: &str,
    target: &mut SettingsFile,
    others: &mut [&mut SettingsFile],
) -> Result<MergeReport> {
    merge_counting(table, target, others, &[])
}

/// [`merge`], also treating handlers of ours in `read_only` (the user-level files the host
/// merges in, `~/.claude/settings.json`, `~/.codex/hooks.json`) as registered. Those are only
/// read, never changed: a handler registered there is not added again to the project.
///
/// Errors: `table` is not valid (a bug in the embedded data).
pub fn merge_counting(
    table: &str,
    target: &mut SettingsFile,
    others: &mut [&mut SettingsFile],
    read_only: &[&SettingsFile],
) -> Result<MergeReport> {
    let table: Map<String, Value> = serde_json::from_str(table)?;
    let mut report = MergeReport::default();
    report.legacy_removed += remove_handlers(&mut target.json, &is_legacy);
    for o in others.iter_mut() {
        report.legacy_removed += remove_handlers(&mut o.json, &is_legacy);
    }
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
            let subs: Vec<String> = group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(our_subcommand)
                .collect();
            if subs
                .iter()
                .all(|s| present.contains(&(event.clone(), s.clone())))
            {
                continue;
            }
            let hooks = target
                .json
                .entry("hooks")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(h) = hooks {
                let list = h
                    .entry(event.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = list {
                    list.push(group.clone());
                }
            }
            report.added.push(event.clone());
            for h in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                report.handlers.push((event.clone(), h.clone()));
            }
        }
    }
    Ok(report)
}

/// How [`remove_recorded_handler`] found a recorded handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
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
pub fn remove_recorded_handler(
    json: &mut Map<String, Value>,
    event: &str,
    handler: &Value,
) -> Option<Found> {
    let sub = our_subcommand(handler);
    let found = remove_first(json, event, &|h| h == handler)
        .then_some(Found::Exact)
        .or_else(|| {
            let sub = sub.as_deref()?;
            remove_first(json, event, &|h| our_subcommand(h).as_deref() == Some(sub))
                .then_some(Found::Edited)
        })?;
    Some(found)
}

/// Removes the first handler of `event` matching `pred`, dropping what it leaves empty (see
/// [`remove_recorded_handler`]). Returns whether one was removed.
fn remove_first(json: &mut Map<String, Value>, event: &str, pred: &dyn Fn(&Value) -> bool) -> bool {
    let Some(Value::Object(events)) = json.get_mut("hooks") else {
        return false;
    };
    let Some(Value::Array(groups)) = events.get_mut(event) else {
        return false;
    };
    let mut removed = false;
    for g in groups.iter_mut() {
        let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        if let Some(i) = hs.iter().position(pred) {
            hs.remove(i);
            removed = true;
            break;
        }
    }
    if !removed {
        return false;
    }
    groups.retain(|g| {
        g.get("hooks")
            .and_then(Value::as_array)
            .is_none_or(|hs| !hs.is_empty())
    });
    if groups.is_empty() {
        events.remove(event);
    }
    if events.is_empty() {
        json.remove("hooks");
    }
    true
}

/// For a project without an install record: removes the handlers identical to the ones `table`
/// registers (same event, same value), nothing else. Returns the events they were removed from.
///
/// Errors: `table` is not valid (a bug in the embedded data).
pub fn remove_table_handlers(table: &str, json: &mut Map<String, Value>) -> Result<Vec<String>> {
    let table: Map<String, Value> = serde_json::from_str(table)?;
    let mut out: Vec<String> = Vec::new();
    for (event, _, h) in handlers(&table) {
        while remove_first(json, event, &|x| x == h) {
            if !out.iter().any(|e| e == event) {
                out.push(event.to_string());
            }
        }
    }
    Ok(out)
}

/// The statusline command `init` installs when there is none to wrap.
pub const STATUSLINE_COMMAND: &str = "capn statusline";

/// Quotes `s` as one POSIX shell word in single quotes.
pub fn shell_single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Reads one shell word made of single-quoted parts and `\'` escapes (what
/// [`shell_single_quote`] writes). Returns `None` for anything else.
pub fn shell_single_unquote(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.trim().chars().peekable();
    chars.peek()?;
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '\\' => out.push(chars.next()?),
            _ => return None,
        }
    }
    Some(out)
}

/// True when `command` is exactly a statusline command `init` writes: [`STATUSLINE_COMMAND`],
/// or it with `--wrap '<command>'` quoted as [`shell_single_quote`] quotes.
pub fn is_init_statusline(command: &str) -> bool {
    command == STATUSLINE_COMMAND
        || command
            .strip_prefix(STATUSLINE_COMMAND)
            .and_then(|rest| rest.strip_prefix(" --wrap "))
            .and_then(|q| shell_single_unquote(q).map(|c| shell_single_quote(&c) == q))
            .unwrap_or(false)
}

/// The `statusLine` value of a settings object, if any.
pub fn statusline_value(json: &Map<String, Value>) -> Option<&Value> {
    json.get("statusLine")
}

/// True when a statusline command is ours.
pub fn is_our_statusline(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let first = words.next().unwrap_or("");
    (first == "capn" || first.ends_with("/capn")) && words.next() == Some("statusline")
}

/// The command ours wraps, if `command` is ours with `--wrap '<theirs>'`.
pub fn wrapped_statusline(command: &str) -> Option<String> {
    if !is_our_statusline(command) {
        return None;
    }
    let at = command.find(" --wrap ")?;
    shell_single_unquote(&command[at + " --wrap ".len()..])
}

fn statusline_command(json: &Map<String, Value>) -> Option<&str> {
    json.get("statusLine")?.get("command")?.as_str()
}

/// Undoes the statusline `init` recorded setting in this settings object (`before` the value
/// it found, `after` the value it left):
/// - still `after`: back to `before` (the key removed when there was none);
/// - the same command but other fields edited since: the command is put back (`before`'s), or
///   the key removed when there was none before;
/// - another command: kept (`None`).
///
/// Returns a description of what it did.
pub fn restore_statusline(
    json: &mut Map<String, Value>,
    before: Option<&Value>,
    after: &Value,
) -> Option<String> {
    let current = json.get("statusLine")?;
    let ours = after.get("command").and_then(Value::as_str);
    let same = current == after;
    if !same && current.get("command").and_then(Value::as_str) != ours {
        return None;
    }
    let before_cmd = before
        .and_then(|b| b.get("command"))
        .and_then(Value::as_str)
        .map(str::to_string);
    match before {
        None => {
            json.remove("statusLine");
            Some("removed the capn statusline".into())
        }
        Some(b) if same || !current.is_object() || before_cmd.is_none() => {
            json.insert("statusLine".into(), b.clone());
            Some(match before_cmd {
                Some(c) => format!("restored the statusline {c:?}"),
                None => "restored the statusline".into(),
            })
        }
        Some(_) => {
            let c = before_cmd.unwrap_or_default();
            if let Some(Value::Object(m)) = json.get_mut("statusLine") {
                m.insert("command".into(), c.clone().into());
            }
            Some(format!("restored the statusline {c:?}"))
        }
    }
}

/// What [`merge_statusline`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum StatuslineChange {
    /// Ours was already the effective statusline.
    AlreadyOurs,
    /// Ours was added (nothing to wrap).
    Added,
    /// Ours now wraps this existing command.
    Wrapped(String),
}

/// Makes ours the effective Claude Code statusline, wrapping whatever was effective before.
/// `local` (`.claude/settings.local.json`) overrides `project` (`.claude/settings.json`), which
/// overrides the user's `~/.claude/settings.json` (`user_command`). Other statusLine fields
/// (padding, ...) are kept.
pub fn merge_statusline(
    project: &mut SettingsFile,
    local: &mut SettingsFile,
    user_command: Option<&str>,
) -> StatuslineChange {
    let (target, existing) = if let Some(c) = statusline_command(&local.json) {
        let c = c.to_string();
        (local, Some(c))
    } else if let Some(c) = statusline_command(&project.json) {
        let c = c.to_string();
        (project, Some(c))
    } else {
        (project, user_command.map(str::to_string))
    };
    match existing {
        Some(c) if is_our_statusline(&c) => StatuslineChange::AlreadyOurs,
        Some(c) if !c.trim().is_empty() => {
            let command = format!("{STATUSLINE_COMMAND} --wrap {}", shell_single_quote(&c));
            set_statusline_command(target, &command);
            StatuslineChange::Wrapped(c)
        }
        _ => {
            set_statusline_command(target, STATUSLINE_COMMAND);
            StatuslineChange::Added
        }
    }
}

fn set_statusline_command(file: &mut SettingsFile, command: &str) {
    let table: Map<String, Value> = serde_json::from_str(CLAUDE_TABLE).unwrap_or_default();
    let entry = file
        .json
        .entry("statusLine")
        .or_insert_with(|| table.get("statusLine").cloned().unwrap_or(Value::Null));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Value::Object(m) = entry {
        m.entry("type").or_insert_with(|| "command".into());
        m.insert("command".into(), command.into());
    }
}

/// For a project without an install record: removes our statusline from a settings object
/// when it is exactly one `init` writes ([`is_init_statusline`]): a wrapped command is put back
/// (unless it is the user-level command, which then applies again by itself), otherwise the key
/// is removed. Returns a description of what it did.
pub fn unmerge_statusline(
    json: &mut Map<String, Value>,
    user_command: Option<&str>,
) -> Option<String> {
    let command = statusline_command(json)?.to_string();
    if !is_init_statusline(&command) {
        return None;
    }
    match wrapped_statusline(&command) {
        Some(orig) if Some(orig.as_str()) != user_command => {
            if let Some(Value::Object(m)) = json.get_mut("statusLine") {
                m.insert("command".into(), orig.clone().into());
            }
            Some(format!("restored the statusline {orig:?}"))
        }
        _ => {
            json.remove("statusLine");
            Some("removed the capn statusline".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(json: Value) -> SettingsFile {
        let Value::Object(m) = json else { panic!() };
        SettingsFile {
            path: PathBuf::from("/nonexistent/settings.json"),
            original: Some(m.clone()),
            json: m,
            existed: true,
        }
    }

    #[test]
    fn recognises_our_handlers_in_both_forms() {
        let exec = serde_json::json!({"command":"capn","args":["hook","session-start"]});
        let shell =
            serde_json::json!({"command":"/usr/local/bin/capn hook post-compact --host codex"});
        assert_eq!(our_subcommand(&exec).as_deref(), Some("session-start"));
        assert_eq!(our_subcommand(&shell).as_deref(), Some("post-compact"));
        assert!(our_subcommand(&serde_json::json!({"command":"capncrunch hook x"})).is_none());
        assert!(is_legacy(
            &serde_json::json!({"type":"command","command":"/usr/bin/env capn context"})
        ));
    }

    #[test]
    fn merge_adds_once_keeps_others_and_replaces_legacy() {
        let mut f = file(serde_json::json!({
            "model": "x",
            "hooks": {
                "SessionStart": [
                    {"matcher": "startup", "hooks": [{"type":"command","command":"/usr/bin/env capn context"}]},
                    {"hooks": [{"type":"command","command":"other-tool start"}]}
                ],
                "Stop": [{"hooks": [{"type":"command","command":"notify"}]}]
            }
        }));
        let r = merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
        assert_eq!(r.legacy_removed, 1);
        assert!(r.added.contains(&"SessionStart".to_string()));
        let ss = f.json["hooks"]["SessionStart"].as_array().unwrap();
        assert_eq!(ss.len(), 2, "{ss:?}");
        assert_eq!(ss[0]["hooks"][0]["command"], "other-tool start");
        assert_eq!(f.json["hooks"]["Stop"][0]["hooks"][0]["command"], "notify");
        assert_eq!(f.json["model"], "x");
        let again = merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
        assert_eq!(again, MergeReport::default());
    }

    #[test]
    fn shell_quoting_round_trips() {
        for s in ["plain", "it's", "a 'b' c", "$HOME/x \\ y", ""] {
            assert_eq!(
                shell_single_unquote(&shell_single_quote(s)).as_deref(),
                Some(s)
            );
        }
        let cmd = format!(
            "capn statusline --wrap {}",
            shell_single_quote("~/bin/sl.sh 'x'")
        );
        assert_eq!(wrapped_statusline(&cmd).as_deref(), Some("~/bin/sl.sh 'x'"));
        assert!(wrapped_statusline("capn statusline").is_none());
    }

    #[test]
    fn statusline_wraps_the_effective_one_and_unmerge_restores_it() {
        let mut project = file(
            serde_json::json!({"statusLine":{"type":"command","command":"mine.sh","padding":2}}),
        );
        let mut local = file(serde_json::json!({}));
        let change = merge_statusline(&mut project, &mut local, None);
        assert_eq!(change, StatuslineChange::Wrapped("mine.sh".into()));
        assert_eq!(project.json["statusLine"]["padding"], 2);
        assert_eq!(
            merge_statusline(&mut project, &mut local, None),
            StatuslineChange::AlreadyOurs
        );
        unmerge_statusline(&mut project.json, None).unwrap();
        assert_eq!(
            project.json["statusLine"],
            serde_json::json!({"type":"command","command":"mine.sh","padding":2})
        );
        // A user-level statusline is wrapped in the project file, and uninstall just removes ours.
        let mut project = file(serde_json::json!({}));
        assert_eq!(
            merge_statusline(&mut project, &mut local, Some("user.sh")),
            StatuslineChange::Wrapped("user.sh".into())
        );
        unmerge_statusline(&mut project.json, Some("user.sh")).unwrap();
        assert!(project.json.get("statusLine").is_none());
    }

    #[test]
    fn recorded_handlers_are_removed_exactly_or_as_edited() {
        let mut f = file(serde_json::json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}));
        let r = merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
        assert_eq!(r.handlers.len(), 4);
        let (event, h) = &r.handlers[0];
        assert_eq!(
            remove_recorded_handler(&mut f.json, event, h),
            Some(Found::Exact)
        );
        assert_eq!(remove_recorded_handler(&mut f.json, event, h), None);
        assert!(f.json["hooks"].get(event).is_none(), "empty event left");
        let (event, h) = &r.handlers[1];
        f.json["hooks"][event][0]["hooks"][0]["timeout"] = 99.into();
        assert_eq!(
            remove_recorded_handler(&mut f.json, event, h),
            Some(Found::Edited)
        );
        for (event, h) in &r.handlers[2..] {
            remove_recorded_handler(&mut f.json, event, h).unwrap();
        }
        assert_eq!(
            Value::Object(f.json.clone()),
            serde_json::json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}})
        );
    }

    #[test]
    fn without_a_record_only_exact_table_handlers_go() {
        let mut f = file(serde_json::json!({}));
        merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
        let hand =
            serde_json::json!({"type":"command","command":"capn","args":["hook","pre-compact"]});
        f.json["hooks"]["PreCompact"][0]["hooks"]
            .as_array_mut()
            .unwrap()
            .push(hand.clone());
        let removed = remove_table_handlers(CLAUDE_TABLE, &mut f.json).unwrap();
        assert_eq!(removed.len(), 4);
        assert_eq!(f.json["hooks"]["PreCompact"][0]["hooks"][0], hand);
        assert_eq!(f.json["hooks"].as_object().unwrap().len(), 1);
    }

    #[test]
    fn init_statusline_commands_are_recognised_exactly() {
        assert!(is_init_statusline("capn statusline"));
        assert!(is_init_statusline("capn statusline --wrap 'mine.sh'"));
        assert!(is_init_statusline(&format!(
            "capn statusline --wrap {}",
            shell_single_quote("it's")
        )));
        assert!(!is_init_statusline("capn statusline --warn-at 70"));
        assert!(!is_init_statusline("capn statusline --wrap mine.sh"));
        assert!(!is_init_statusline("/usr/local/bin/capn statusline"));
    }

    #[test]
    fn restore_statusline_cases() {
        let after = serde_json::json!({"type":"command","command":"capn statusline --wrap 'a'"});
        let before = serde_json::json!({"command":"a"});
        let mut j = Map::new();
        j.insert("statusLine".into(), after.clone());
        assert!(restore_statusline(&mut j, Some(&before), &after).is_some());
        assert_eq!(j["statusLine"], before);
        // Other fields edited: only the command goes back.
        let mut edited = after.clone();
        edited["padding"] = 2.into();
        j.insert("statusLine".into(), edited);
        restore_statusline(&mut j, Some(&before), &after).unwrap();
        assert_eq!(
            j["statusLine"],
            serde_json::json!({"type":"command","command":"a","padding":2})
        );
        // None before: the key goes.
        j.insert("statusLine".into(), after.clone());
        restore_statusline(&mut j, None, &after).unwrap();
        assert!(j.get("statusLine").is_none());
        // The command changed since: kept.
        let other = serde_json::json!({"command":"b"});
        j.insert("statusLine".into(), other.clone());
        assert!(restore_statusline(&mut j, None, &after).is_none());
        assert_eq!(j["statusLine"], other);
    }

    #[test]
    fn registration_in_local_settings_counts() {
        let mut local = file(
            serde_json::json!({"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"capn","args":["hook","session-start"]}]}]}}),
        );
        let mut main = file(serde_json::json!({}));
        let r = merge(CLAUDE_TABLE, &mut main, &mut [&mut local]).unwrap();
        assert!(!r.added.contains(&"SessionStart".to_string()));
        assert!(main.json["hooks"].get("SessionStart").is_none());
        assert!(r.added.contains(&"PreCompact".to_string()));
    }
}
