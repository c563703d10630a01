//! Qwen Code: `.qwen/settings.json` and the user's `~/.qwen/settings.json` (Claude-shaped, one
//! shell string per command), its tools, and its Stop payload's `context_usage`, which gives
//! the context-use figure.

use super::{ContextSource, Host, HostSpec, PreCompactReply, ReplyField, Setup, ToolKind};

/// The Qwen Code registrations (`hooks-config/qwen.json`).
pub const QWEN_TABLE: &str = include_str!("../../hooks-config/qwen.json");

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
pub const QWEN: HostSpec = HostSpec {
    host: Host::Qwen,
    flag: "qwen",
    label: "Qwen",
    name: "Qwen Code",
    files: &[".qwen/settings.json"],
    user_file: ".qwen/settings.json",
    user_label: "~/.qwen/settings.json",
    user_dir: ".qwen",
    setup: Setup::WhenFound,
    table: QWEN_TABLE,
    whole_file: false,
    top_keys: Some(super::claude::TOP_KEYS),
    specific_keys: super::claude::specific_keys,
    output_schemas: super::no_schemas,
    event_names: &[],
    tools: TOOLS,
    hook_tools: Some(super::gemini::HOOK_TOOLS),
    reply: ReplyField::Nested,
    limits: "no status line (the context reminder comes from its Stop's context_usage); offers after a search come with the tool's result (PostToolUse), since PreToolUse cannot add context",
    pre_compact: PreCompactReply::Nothing,
    pre_compact_arms_recovery: false,
    context: ContextSource::StopPayload,
    prep_skill: false,
    task_list: "the task list (the todo tool)",
    resume_repeats_context: false,
    // Its second UserPromptSubmit of a turn (docs/hosts.md; the captured
    // `payloads/qwen/UserPromptSubmit-2.json`).
    repeats_empty_prompt: true,
    exec_form: false,
    project_dir_var: None,
    env_file_var: None,
    plugin: false,
    allow_rules: false,
    user_rules: false,
    trust_command: None,
    without_capn: None,
    runs_hooks_of: None,
    exit_2: super::exit_2_fails,
    doctor_fields: super::no_doctor_fields,
};
