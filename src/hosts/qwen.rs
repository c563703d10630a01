//! Qwen Code: `.qwen/settings.json` and the user's `~/.qwen/settings.json` (Claude-shaped, one
//! shell string per command), its tools, and its Stop payload's `context_usage`, which gives
//! the context-use figure.

use super::{ContextSource, Host, HostSpec, ToolKind};

/// The Qwen Code registrations (`hooks-config/qwen.json`).
pub(super) const QWEN_TABLE: &str = include_str!("../../hooks-config/qwen.json");

/// Qwen Code's tools (the payloads captured from the client): Gemini CLI's names, with `task`
/// for a sub-agent and `edit` for an edit.
const TOOLS: &[(&str, ToolKind)] = &[
    ("grep_search", ToolKind::Grep),
    ("glob", ToolKind::Glob),
    ("read_file", ToolKind::Read),
    ("run_shell_command", ToolKind::Shell),
    ("task", ToolKind::Subagent),
    ("write_file", ToolKind::Edit),
    ("edit", ToolKind::Edit),
];

/// Qwen Code: `.qwen/settings.json` and `~/.qwen/settings.json`.
pub(crate) const QWEN: HostSpec = HostSpec {
    host: Host::Qwen,
    flag: "qwen",
    label: "Qwen",
    name: "Qwen Code",
    files: &[".qwen/settings.json"],
    user_file: ".qwen/settings.json",
    user_label: "~/.qwen/settings.json",
    user_dir: ".qwen",
    table: QWEN_TABLE,
    top_keys: Some(super::claude::TOP_KEYS),
    specific_keys: super::claude::specific_keys,
    tools: TOOLS,
    hook_tools: Some(super::gemini::HOOK_TOOLS),
    limits: "no status line (the context reminder comes from its Stop's context_usage); offers after a search come with the tool's result (PostToolUse), since PreToolUse cannot add context",
    context: ContextSource::StopPayload,
    // Its second UserPromptSubmit of a turn (docs/hosts.md; the captured
    // `payloads/qwen/UserPromptSubmit-2.json`).
    repeats_empty_prompt: true,
    ..super::COMMON
};
