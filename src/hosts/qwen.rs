//! Qwen Code: `.qwen/settings.json` and the user's `~/.qwen/settings.json` (Claude-shaped, one
//! shell string per command), its tools, its Stop payload's `context_usage`, which gives
//! the context-use figure, what an exit 2 means to it, and the payloads doctor sends as it.

use super::{ContextSource, Host, HostSpec, ToolKind, DOCTOR_PROMPT, DOCTOR_TIMESTAMP};
use crate::events::HookEvent;
use serde_json::{json, Value};

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

/// What an exit 2 makes Qwen Code do (its hooks take Claude Code's exit codes: a blocking error,
/// with stderr as the reason, where the event can block).
fn exit_2(event: HookEvent) -> &'static str {
    match event {
        HookEvent::UserPromptSubmit => "Qwen Code reads it as \"block\" and drops the prompt",
        HookEvent::PreCompact => "Qwen Code reads it as \"block\" and blocks the compaction",
        HookEvent::Stop => {
            "Qwen Code reads it as \"block\" and goes on with stderr as the agent's next instruction"
        }
        _ => "Qwen Code reports the hook as failed",
    }
}

/// The fields Qwen Code sends beside the common ones (the payloads captured from the client):
/// `timestamp`, `permission_mode` and `prompt_id` on every event; `source` and `model`
/// (SessionStart), `prompt` and `submitted_prompt` (UserPromptSubmit), a `grep_search` with its
/// result (PostToolUse), `trigger` with `custom_instructions` (PreCompact) or `compact_summary`
/// (PostCompact), and on Stop the context use (10 %, under the reminder's threshold). Nothing for
/// the events capn does not register for it.
fn doctor_fields(event: HookEvent, detail: &str, search: &str) -> Value {
    let mut v = match event {
        HookEvent::SessionStart => json!({"source": detail, "model": "qwen3-coder-plus"}),
        HookEvent::UserPromptSubmit => {
            json!({"prompt": DOCTOR_PROMPT, "submitted_prompt": DOCTOR_PROMPT})
        }
        HookEvent::PostToolUse => json!({
            "tool_name": "grep_search",
            "tool_input": {"pattern": search},
            "tool_response": {"llmContent": "No matches found", "returnDisplay": "No matches found"},
            "tool_use_id": "capn-doctor-tool-1",
            "duration_ms": 5
        }),
        HookEvent::PreCompact => json!({"trigger": detail, "custom_instructions": ""}),
        HookEvent::PostCompact => json!({
            "trigger": detail,
            "compact_summary": "capn doctor: a synthetic compaction summary."
        }),
        HookEvent::Stop => json!({
            "stop_hook_active": false,
            "last_assistant_message": "capn doctor: a synthetic reply.",
            "context_usage": 0.1,
            "context_limit": 200000
        }),
        HookEvent::PreToolUse | HookEvent::SubagentStart => return json!({}),
    };
    v["timestamp"] = json!(DOCTOR_TIMESTAMP);
    v["permission_mode"] = json!("default");
    v["prompt_id"] = json!("capn-doctor-prompt-1");
    v
}

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
    // It sets QWEN_PROJECT_DIR and CLAUDE_PROJECT_DIR, which capn reads (a shell form: nothing
    // is substituted).
    project_dir_var: Some("CLAUDE_PROJECT_DIR"),
    exit_2,
    doctor_fields,
    ..super::COMMON
};
