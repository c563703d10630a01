//! Gemini CLI: `.gemini/settings.json` and the user's `~/.gemini/settings.json` (command hooks,
//! one shell string each, timeouts in milliseconds; docs/hosts.md), its names for the events
//! and its tools.

use super::{Host, HostSpec, ToolKind};
use crate::events::HookEvent;

/// The Gemini CLI registrations (`hooks-config/gemini.json`; timeouts in milliseconds).
pub(super) const GEMINI_TABLE: &str = include_str!("../../hooks-config/gemini.json");

/// Gemini CLI's names where they differ from Claude Code's (docs/hosts.md):
/// BeforeAgent (the prompt), BeforeTool and AfterTool. Its PreCompress is left out: it fires
/// before every model call, so it says nothing about a compression; it has no post-compress
/// event.
pub(super) const GEMINI_NAMES: [(HookEvent, &str); 3] = [
    (HookEvent::UserPromptSubmit, "BeforeAgent"),
    (HookEvent::PreToolUse, "BeforeTool"),
    (HookEvent::PostToolUse, "AfterTool"),
];

/// The top-level reply keys of Gemini CLI's hook output (its hooks documentation: the common
/// fields plus `hookSpecificOutput`).
const TOP_KEYS: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "hookSpecificOutput",
];

/// Gemini CLI's tools (the payloads captured from the client): `grep_search`
/// (`search_file_content` before it), `glob`, `read_file`, `run_shell_command`, `invoke_agent`,
/// `write_file` and `replace`.
const TOOLS: &[(&str, ToolKind)] = &[
    ("grep_search", ToolKind::Grep),
    ("search_file_content", ToolKind::Grep),
    ("glob", ToolKind::Glob),
    ("read_file", ToolKind::Read),
    ("run_shell_command", ToolKind::Shell),
    ("invoke_agent", ToolKind::Subagent),
    ("write_file", ToolKind::Edit),
    ("replace", ToolKind::Edit),
];

/// The matcher of the tool hooks in `hooks-config/gemini.json` and `hooks-config/qwen.json`.
pub(super) const HOOK_TOOLS: &[&str] = &[
    "grep_search",
    "search_file_content",
    "glob",
    "read_file",
    "run_shell_command",
    "task",
    "invoke_agent",
];

/// Gemini CLI: `.gemini/settings.json` and `~/.gemini/settings.json`.
pub(crate) const GEMINI: HostSpec = HostSpec {
    host: Host::Gemini,
    flag: "gemini",
    label: "Gemini",
    name: "Gemini CLI",
    files: &[".gemini/settings.json"],
    user_file: ".gemini/settings.json",
    user_label: "~/.gemini/settings.json",
    user_dir: ".gemini",
    table: GEMINI_TABLE,
    top_keys: Some(TOP_KEYS),
    specific_keys: super::context_keys,
    event_names: &GEMINI_NAMES,
    tools: TOOLS,
    hook_tools: Some(HOOK_TOOLS),
    timeout_unit: "ms",
    limits: "no recovery after a compression (it has no post-compress event, and PreCompress fires before every model call) and no status line; offers after a search come with the tool's result (AfterTool), since BeforeTool cannot add context",
    ..super::COMMON
};
