//! Gemini CLI: `.gemini/settings.json` and the user's `~/.gemini/settings.json` (command hooks,
//! one shell string each, timeouts in milliseconds; docs/hosts.md), its names for the events
//! and its tools, what an exit 2 means to it, and the payloads doctor sends as it.

use super::{Host, HostSpec, ToolKind, DOCTOR_PROMPT, DOCTOR_TIMESTAMP};
use crate::events::HookEvent;
use serde_json::{json, Value};

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

/// What an exit 2 makes Gemini CLI do (its hooks reference: a "system block", with stderr as
/// the reason; any other non-zero exit is a warning and the CLI goes on).
fn exit_2(event: HookEvent) -> &'static str {
    match event {
        HookEvent::UserPromptSubmit => {
            "Gemini CLI reads it as a block and stops the turn before the model sees the prompt"
        }
        HookEvent::PostToolUse => {
            "Gemini CLI reads it as a block and gives the agent stderr instead of the tool's result"
        }
        _ => "Gemini CLI reads it as a block, with stderr as the reason",
    }
}

/// The fields Gemini CLI sends beside the common ones (the payloads captured from the client):
/// `timestamp` on every event, `source` (SessionStart), `prompt` (BeforeAgent), and a
/// `grep_search` with its result as the AfterTool call. Nothing for SessionStart after a
/// compaction (Gemini CLI fires none after `/compress`) or for the events it does not have or
/// capn does not register for it (PreCompress fires before every model call).
fn doctor_fields(event: HookEvent, detail: &str, search: &str) -> Value {
    let mut v = match event {
        HookEvent::SessionStart if detail != "compact" => json!({"source": detail}),
        HookEvent::UserPromptSubmit => json!({"prompt": DOCTOR_PROMPT}),
        HookEvent::PostToolUse => json!({
            "tool_name": "grep_search",
            "tool_input": {"pattern": search},
            "tool_response": {
                "llmContent": format!("No matches found for pattern \"{search}\" in the workspace directory."),
                "returnDisplay": "No matches found"
            }
        }),
        _ => return json!({}),
    };
    v["timestamp"] = json!(DOCTOR_TIMESTAMP);
    v
}

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
    // It sets GEMINI_PROJECT_DIR and, for Claude-shaped hooks, CLAUDE_PROJECT_DIR, which capn
    // reads (a shell form: nothing is substituted).
    project_dir_var: Some("CLAUDE_PROJECT_DIR"),
    exit_2,
    doctor_fields,
    limits: "no recovery after a compression (it has no post-compress event, and PreCompress fires before every model call) and no status line; offers after a search come with the tool's result (AfterTool), since BeforeTool cannot add context",
    ..super::COMMON
};
