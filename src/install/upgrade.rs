//! Upgrades of capn's own registrations from older versions that `init` makes in place, so an
//! older install is not left half-working: capn 0.3's SessionStart matcher, and the tool
//! matchers from before learning from use ran the tool hook on file reads
//! ([`OLD_TOOL_MATCHERS`]).

use super::{located, our_subcommand, put_back, SettingsFile};
use crate::events::HookEvent;
use serde_json::Value;

/// The SessionStart matcher capn 0.3 registered. It leaves out `fork` (Claude Code reports a
/// forked session as `fork` since 2.1.214) and any source added later, so such a session got no
/// contract; capn now registers SessionStart without a matcher (Claude Code's hooks docs: an
/// omitted matcher matches every source) and [`upgrade_matchers`] drops this one.
pub(crate) const OLD_SESSION_START_MATCHER: &str = "startup|resume|clear|compact";

/// Upgrades capn's own SessionStart registrations in `file` in place: each handler of ours
/// (`capn hook session-start`) in a group whose matcher is exactly
/// [`OLD_SESSION_START_MATCHER`] moves to a group without a matcher at the same place (the
/// group itself loses its matcher when it held only capn's handler; another tool's handler in
/// it keeps its group and matcher). Edits are format-preserving; the handler stays byte for byte
/// what it was, so the install record and `uninstall` still find it. A matcher the user chose
/// (any other value) is left alone: `capn doctor` names it. Returns how many handlers moved.
pub(super) fn upgrade_matchers(file: &mut SettingsFile) -> usize {
    let ours =
        |h: &Value| our_subcommand(h).as_deref() == Some(HookEvent::SessionStart.subcommand());
    let old: Vec<(usize, usize, Value, bool)> = located(&file.json)
        .into_iter()
        .filter(|h| {
            h.event == HookEvent::SessionStart.name()
                && h.group.get("matcher").and_then(Value::as_str) == Some(OLD_SESSION_START_MATCHER)
                && ours(h.handler)
        })
        .map(|h| {
            let only_ours = h
                .group
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().all(ours));
            (h.group_index, h.index, h.handler.clone(), only_ours)
        })
        .collect();
    let event = HookEvent::SessionStart.name();
    for (gi, hi, handler, only_ours) in old.iter().rev() {
        if *only_ours {
            file.doc.remove_group_key(event, *gi, "matcher");
            file.json = file.doc.value();
        } else if file.remove_handler_at(event, *gi, *hi) {
            put_back(file, event, None, handler, Some((*gi, *hi)));
        }
    }
    old.len()
}

/// The tool-hook matchers capn registered before learning from use (docs/recall.md) needed the
/// agent's file reads, each with the one that replaces it: Claude Code's PreToolUse gains
/// `Read`, Gemini CLI's AfterTool and Qwen Code's PostToolUse gain `read_file`.
pub(super) const OLD_TOOL_MATCHERS: [(&str, &str); 2] = [
    (
        "Grep|Glob|Bash|Task|Agent",
        "Grep|Glob|Read|Bash|Task|Agent",
    ),
    (
        "grep_search|search_file_content|glob|run_shell_command|task|invoke_agent",
        "grep_search|search_file_content|glob|read_file|run_shell_command|task|invoke_agent",
    ),
];

/// Upgrades capn's own tool-hook groups in `file` in place: a group whose matcher is exactly one
/// of [`OLD_TOOL_MATCHERS`] and whose every handler is capn's `hook pre-tool-use` or `hook
/// post-tool-use` gets the new matcher (format-preserving; the handlers stay byte for byte, so
/// the install record and `uninstall` still find them). A group that holds another tool's
/// handler, or a matcher the user chose, is left alone: `capn doctor` names the tools it misses.
/// Returns how many groups changed.
pub(super) fn upgrade_tool_matchers(file: &mut SettingsFile) -> usize {
    let ours = |h: &Value| {
        let sub = our_subcommand(h);
        [HookEvent::PreToolUse, HookEvent::PostToolUse]
            .iter()
            .any(|e| sub.as_deref() == Some(e.subcommand()))
    };
    let mut old: Vec<(String, usize, &str)> = located(&file.json)
        .into_iter()
        .filter_map(|h| {
            let m = h.group.get("matcher")?.as_str()?;
            let (_, new) = OLD_TOOL_MATCHERS.iter().find(|(o, _)| *o == m)?;
            let hs = h.group.get("hooks").and_then(Value::as_array)?;
            hs.iter()
                .all(ours)
                .then(|| (h.event.to_string(), h.group_index, *new))
        })
        .collect();
    old.dedup();
    for (event, gi, new) in &old {
        file.doc.set_group_string(event, *gi, "matcher", new);
    }
    if !old.is_empty() {
        file.json = file.doc.value();
    }
    old.len()
}

/// [`upgrade_tool_matchers`] on `target` and each of `others`: the files changed.
pub(super) fn upgrade_tools_all(
    target: &mut SettingsFile,
    others: &mut [&mut SettingsFile],
) -> Vec<std::path::PathBuf> {
    std::iter::once(target)
        .chain(others.iter_mut().map(|o| &mut **o))
        .filter_map(|f| (upgrade_tool_matchers(f) > 0).then(|| f.path.clone()))
        .collect()
}

/// [`upgrade_matchers`] on `target` and each of `others`: the files changed, with how many
/// handlers moved in each.
pub(super) fn upgrade_all(
    target: &mut SettingsFile,
    others: &mut [&mut SettingsFile],
) -> Vec<(std::path::PathBuf, usize)> {
    std::iter::once(target)
        .chain(others.iter_mut().map(|o| &mut **o))
        .filter_map(|f| {
            let n = upgrade_matchers(f);
            (n > 0).then(|| (f.path.clone(), n))
        })
        .collect()
}
