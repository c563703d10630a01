//! Claude Code: `.claude/settings.json`, `.claude/settings.local.json` and the user's
//! `~/.claude/settings.json`, in the exec form (`command` plus `args`); its tool names, its reply
//! keys (its hooks docs, <https://docs.anthropic.com/en/docs/claude-code/hooks>), the status line
//! that gives the context-use figure, and the payloads doctor sends as it.

use super::{ContextSource, Host, HostSpec, PreCompactReply, Setup, ToolKind, DOCTOR_PROMPT};
use crate::events::HookEvent;
use serde_json::{json, Value};

/// The Claude Code registrations (`hooks-config/claude.json`).
pub(crate) const CLAUDE_TABLE: &str = include_str!("../../hooks-config/claude.json");

/// The top-level fields every Claude Code hook reply may carry (its hooks docs, "Common JSON
/// fields"); Qwen Code and OpenCode's plugin take the same.
pub(super) const TOP_KEYS: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "terminalSequence",
    "decision",
    "reason",
    "hookSpecificOutput",
];

/// Claude Code's accepted `hookSpecificOutput` keys (Claude Code's hooks docs): SessionStart has a
/// few of its own; UserPromptSubmit and PreToolUse take the event name, `additionalContext` and
/// `sessionTitle` (capn prints only the first two).
pub(super) fn specific_keys(event: &str) -> Option<&'static [&'static str]> {
    Some(match HookEvent::from_name(event) {
        Some(HookEvent::SessionStart) => &[
            "hookEventName",
            "additionalContext",
            "sessionTitle",
            "reloadSkills",
            "watchPaths",
            "initialUserMessage",
        ],
        _ => &["hookEventName", "additionalContext", "sessionTitle"],
    })
}

/// Claude Code's tools (its tools reference): `Explore` is the sub-agent some transcripts name.
const TOOLS: &[(&str, ToolKind)] = &[
    ("Grep", ToolKind::Grep),
    ("Glob", ToolKind::Glob),
    ("Task", ToolKind::Subagent),
    ("Agent", ToolKind::Subagent),
    ("Explore", ToolKind::Subagent),
    ("Read", ToolKind::Read),
    ("NotebookRead", ToolKind::Read),
    ("Edit", ToolKind::Edit),
    ("Write", ToolKind::Edit),
    ("MultiEdit", ToolKind::Edit),
    ("NotebookEdit", ToolKind::Edit),
    ("TodoWrite", ToolKind::Plan),
    ("ExitPlanMode", ToolKind::Plan),
    ("Bash", ToolKind::Shell),
];

/// The matcher of the tool hook in `hooks-config/claude.json` (`Grep|Glob|Read|Bash|Task|Agent`).
pub(super) const HOOK_TOOLS: &[&str] = &["Grep", "Glob", "Read", "Bash", "Task", "Agent"];

/// What an exit 2 makes Claude Code do (its hooks docs, "Exit code 2 behavior").
fn exit_2(event: HookEvent) -> &'static str {
    match event {
        HookEvent::UserPromptSubmit => "Claude Code reads it as \"block\" and erases the prompt",
        HookEvent::PreCompact => "Claude Code reads it as \"block\" and blocks the compaction",
        _ => "Claude Code reports the hook as failed (and blocks where it can)",
    }
}

/// The fields Claude Code sends beside the common ones (its hooks docs, "Hook input"):
/// `source` and `model` (SessionStart), `custom_instructions` (PreCompact), `compact_summary`
/// (PostCompact), `permission_mode`, and a `Grep` search as the PreToolUse call.
fn doctor_fields(event: HookEvent, detail: &str, search: &str) -> Value {
    match event {
        HookEvent::SessionStart => json!({"source": detail, "model": "claude-sonnet-5"}),
        HookEvent::PreCompact => json!({"trigger": detail, "custom_instructions": ""}),
        HookEvent::PostCompact => json!({
            "trigger": detail,
            "compact_summary": "capn doctor: a synthetic compaction summary."
        }),
        HookEvent::UserPromptSubmit => json!({
            "prompt": DOCTOR_PROMPT,
            "permission_mode": "default"
        }),
        HookEvent::PreToolUse => json!({
            "tool_name": "Grep",
            "tool_input": {"pattern": search, "output_mode": "files_with_matches"},
            "tool_use_id": "capn-doctor-tool-1",
            "permission_mode": "default"
        }),
        HookEvent::Stop => json!({
            "stop_hook_active": false,
            "last_assistant_message": "capn doctor: a synthetic reply.",
            "permission_mode": "default"
        }),
        HookEvent::SubagentStart => json!({
            "agent_id": "capn-doctor-agent-1",
            "agent_type": "Explore"
        }),
        // Not registered: doctor runs only what the table registers.
        HookEvent::PostToolUse => json!({}),
    }
}

/// Claude Code: `.claude/settings.json`, `.claude/settings.local.json`, `~/.claude/settings.json`.
pub(crate) const CLAUDE: HostSpec = HostSpec {
    host: Host::Claude,
    flag: "claude",
    label: "Claude",
    name: "Claude Code",
    files: &[".claude/settings.json", ".claude/settings.local.json"],
    user_file: ".claude/settings.json",
    user_label: "~/.claude/settings.json",
    user_dir: ".claude",
    setup: Setup::Always,
    table: CLAUDE_TABLE,
    top_keys: Some(TOP_KEYS),
    specific_keys,
    tools: TOOLS,
    hook_tools: Some(HOOK_TOOLS),
    pre_compact: PreCompactReply::PlainText,
    context: ContextSource::StatusLine,
    prep_skill: true,
    task_list: "the task list (TaskList)",
    exec_form: true,
    project_dir_var: Some("CLAUDE_PROJECT_DIR"),
    env_file_var: Some("CLAUDE_ENV_FILE"),
    plugin: true,
    allow_rules: true,
    exit_2,
    doctor_fields,
    without_capn: Some("reports a failed capn hook at each event and blocks nothing"),
    ..super::COMMON
};
