//! The Claude Code `statusLine` that `init` sets (ours, wrapping whatever was effective) and
//! that `uninstall` puts back; edits go through the settings file's format-preserving document
//! ([`super::SettingsFile`]). Shapes: Claude Code's status line docs (`statusLine: {type:
//! "command", command, padding}`).

use super::SettingsFile;
use crate::hosts::CLAUDE_TABLE;
use serde_json::{Map, Value};

/// The statusline command `init` installs when there is none to wrap.
pub(crate) const STATUSLINE_COMMAND: &str = "capn statusline";

/// Quotes `s` as one POSIX shell word in single quotes.
pub(crate) fn shell_single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Reads one shell word made of single-quoted parts and `\'` escapes (what
/// [`shell_single_quote`] writes). Returns `None` for anything else.
pub(crate) fn shell_single_unquote(s: &str) -> Option<String> {
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
pub(crate) fn is_init_statusline(command: &str) -> bool {
    command == STATUSLINE_COMMAND
        || command
            .strip_prefix(STATUSLINE_COMMAND)
            .and_then(|rest| rest.strip_prefix(" --wrap "))
            .and_then(|q| shell_single_unquote(q).map(|c| shell_single_quote(&c) == q))
            .unwrap_or(false)
}

/// The `statusLine` value of a settings object, if any.
pub(crate) fn statusline_value(json: &Map<String, Value>) -> Option<&Value> {
    json.get("statusLine")
}

/// True when a statusline command is ours.
pub(crate) fn is_our_statusline(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let first = words.next().unwrap_or("");
    super::is_capn(first) && words.next() == Some("statusline")
}

/// The command ours wraps, if `command` is ours with `--wrap '<theirs>'`.
pub(crate) fn wrapped_statusline(command: &str) -> Option<String> {
    if !is_our_statusline(command) {
        return None;
    }
    let at = command.find(" --wrap ")?;
    shell_single_unquote(&command[at + " --wrap ".len()..])
}

/// The `statusLine.command` string of a settings object, if there is one (Claude Code settings,
/// "statusLine").
pub(crate) fn statusline_command(json: &Map<String, Value>) -> Option<&str> {
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
pub(crate) fn restore_statusline(
    file: &mut SettingsFile,
    before: Option<&Value>,
    after: &Value,
) -> Option<String> {
    let current = file.json.get("statusLine")?.clone();
    let ours = after.get("command").and_then(Value::as_str);
    let same = &current == after;
    if !same && current.get("command").and_then(Value::as_str) != ours {
        return None;
    }
    let before_cmd = before
        .and_then(|b| b.get("command"))
        .and_then(Value::as_str)
        .map(str::to_string);
    match before {
        None => {
            file.set_top("statusLine", None);
            Some("removed the capn statusline".into())
        }
        Some(b) if same || !current.is_object() || before_cmd.is_none() => {
            file.set_top("statusLine", Some(b));
            Some(match before_cmd {
                Some(c) => format!(
                    "restored the statusline {}",
                    crate::present::quote(&c, crate::present::MAX_QUESTION_CHARS)
                ),
                None => "restored the statusline".into(),
            })
        }
        Some(_) => {
            let c = before_cmd.unwrap_or_default();
            file.set_in_top("statusLine", "command", &c.clone().into());
            Some(format!(
                "restored the statusline {}",
                crate::present::quote(&c, crate::present::MAX_QUESTION_CHARS)
            ))
        }
    }
}

/// What [`merge_statusline`] did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum StatuslineChange {
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
pub(crate) fn merge_statusline(
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
    match file.json.get("statusLine") {
        Some(Value::Object(m)) => {
            if !m.contains_key("type") {
                file.set_in_top("statusLine", "type", &"command".into());
            }
            file.set_in_top("statusLine", "command", &command.into());
        }
        Some(_) => {
            let v = serde_json::json!({"type": "command", "command": command});
            file.set_top("statusLine", Some(&v));
        }
        None => {
            let table: Map<String, Value> = serde_json::from_str(CLAUDE_TABLE).unwrap_or_default();
            let mut v = table
                .get("statusLine")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "command"}));
            v["command"] = command.into();
            file.set_top("statusLine", Some(&v));
        }
    }
}

/// For a project without an install record: removes our statusline from a settings object
/// when it is exactly one `init` writes ([`is_init_statusline`]): a wrapped command is put back
/// (unless it is the user-level command, which then applies again by itself), otherwise the key
/// is removed. Returns a description of what it did.
pub(crate) fn unmerge_statusline(
    file: &mut SettingsFile,
    user_command: Option<&str>,
) -> Option<String> {
    let command = statusline_command(&file.json)?.to_string();
    if !is_init_statusline(&command) {
        return None;
    }
    match wrapped_statusline(&command) {
        Some(orig) if Some(orig.as_str()) != user_command => {
            if file.json.get("statusLine").is_some_and(Value::is_object) {
                file.set_in_top("statusLine", "command", &orig.clone().into());
            }
            Some(format!(
                "restored the statusline {}",
                crate::present::quote(&orig, crate::present::MAX_QUESTION_CHARS)
            ))
        }
        _ => {
            file.set_top("statusLine", None);
            Some("removed the capn statusline".into())
        }
    }
}
