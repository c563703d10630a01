//! Codex: `.codex/hooks.json` and the user's `~/.codex/hooks.json` (shell command lines), its
//! tool names, the output schemas it publishes (`assets/codex-schemas/`, which decide what a
//! reply may hold), the rollout file that gives the context-use figure, and the payloads doctor
//! sends as it (they validate against its input schemas).

use super::{ContextSource, Host, HostSpec, Setup, ToolKind, DOCTOR_PROMPT};
use crate::events::HookEvent;
use serde_json::{json, Value};

/// The Codex registrations (`hooks-config/codex.json`).
pub(super) const CODEX_TABLE: &str = include_str!("../../hooks-config/codex.json");
/// Codex's PostToolUse output schema.
pub(super) const CODEX_POST_TOOL_USE_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/post-tool-use.command.output.schema.json");

/// Codex's SessionStart output schema (`session-start.command.output.schema.json`).
pub(crate) const CODEX_SESSION_START_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/session-start.command.output.schema.json");
/// The SessionStart output schema of Codex commit 658d027 (`hookSpecificOutput.env`, no nulls):
/// a reply must satisfy both generations.
pub(crate) const CODEX_SESSION_START_OUTPUT_658D027: &str = include_str!(
    "../../assets/codex-schemas/variants/658d027/session-start.command.output.schema.json"
);
/// Codex's UserPromptSubmit output schema.
pub(crate) const CODEX_USER_PROMPT_SUBMIT_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/user-prompt-submit.command.output.schema.json");
/// Codex's PreCompact output schema.
pub(crate) const CODEX_PRE_COMPACT_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/pre-compact.command.output.schema.json");
/// Codex's PreToolUse output schema.
pub(super) const CODEX_PRE_TOOL_USE_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/pre-tool-use.command.output.schema.json");
/// Codex's Stop output schema (`decision: "block"` requires a non-blank `reason`).
pub(super) const CODEX_STOP_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/stop.command.output.schema.json");
/// Codex's SubagentStart output schema.
pub(super) const CODEX_SUBAGENT_START_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/subagent-start.command.output.schema.json");
/// Codex's PostCompact output schema.
pub(super) const CODEX_POST_COMPACT_OUTPUT: &str =
    include_str!("../../assets/codex-schemas/post-compact.command.output.schema.json");

/// The embedded Codex output schema of `event`
/// (`assets/codex-schemas/<subcommand>.command.output.schema.json`).
fn codex_output_schema(event: HookEvent) -> &'static str {
    match event {
        HookEvent::SessionStart => CODEX_SESSION_START_OUTPUT,
        HookEvent::PreCompact => CODEX_PRE_COMPACT_OUTPUT,
        HookEvent::PostCompact => CODEX_POST_COMPACT_OUTPUT,
        HookEvent::UserPromptSubmit => CODEX_USER_PROMPT_SUBMIT_OUTPUT,
        HookEvent::PreToolUse => CODEX_PRE_TOOL_USE_OUTPUT,
        HookEvent::PostToolUse => CODEX_POST_TOOL_USE_OUTPUT,
        HookEvent::Stop => CODEX_STOP_OUTPUT,
        HookEvent::SubagentStart => CODEX_SUBAGENT_START_OUTPUT,
    }
}

/// The embedded Codex output schemas a reply to `event` must satisfy, as `(name, schema text)`:
/// the schema of the event, named after its file (`session-start.command.output`), then for
/// SessionStart the 658d027 generation (`session-start.command.output (658d027)`).
pub(super) fn codex_event_output_schemas(event: HookEvent) -> Vec<(String, &'static str)> {
    let name = format!("{}.command.output", event.subcommand());
    let mut all = vec![(name.clone(), codex_output_schema(event))];
    if event == HookEvent::SessionStart {
        all.push((
            format!("{name} (658d027)"),
            CODEX_SESSION_START_OUTPUT_658D027,
        ));
    }
    all
}

/// `codex_event_output_schemas` of the event a host event name (`SessionStart`,
/// `PreCompact`, `PostCompact`, `UserPromptSubmit`, `PreToolUse`, `Stop`, `SubagentStart`)
/// stands for; empty for other names.
pub fn codex_output_schemas(event: &str) -> Vec<(String, &'static str)> {
    HookEvent::from_name(event).map_or_else(Vec::new, codex_event_output_schemas)
}

/// Codex's tools (its rollout files): the shell under its several names, `read_file`,
/// `grep_files`, `apply_patch` and `update_plan`. Its hooks name the shell `Bash` too.
const TOOLS: &[(&str, ToolKind)] = &[
    ("shell", ToolKind::Shell),
    ("shell_command", ToolKind::Shell),
    ("exec_command", ToolKind::Shell),
    ("local_shell_call", ToolKind::Shell),
    ("Bash", ToolKind::Shell),
    ("read_file", ToolKind::Read),
    ("grep_files", ToolKind::Grep),
    ("apply_patch", ToolKind::Patch),
    ("update_plan", ToolKind::Plan),
];

/// What an exit 2 makes Codex do (its hook docs: a block on UserPromptSubmit).
fn exit_2(event: HookEvent) -> &'static str {
    match event {
        HookEvent::UserPromptSubmit => "Codex reads it as \"block\" and blocks the prompt",
        _ => "Codex reports the hook as failed",
    }
}

/// The fields Codex sends beside the common ones (its input schemas): `model`,
/// `permission_mode`, `turn_id`, and a `Bash` call running `rg` as the PreToolUse search.
fn doctor_fields(event: HookEvent, detail: &str, search: &str) -> Value {
    match event {
        HookEvent::PreToolUse => json!({
            "tool_name": "Bash",
            "tool_input": {"command": format!("rg -n {search}")},
            "tool_use_id": "capn-doctor-tool-1",
            "model": "gpt-5.5",
            "permission_mode": "default"
        }),
        HookEvent::SessionStart => json!({
            "source": detail, "model": "gpt-5.5", "permission_mode": "default"
        }),
        HookEvent::PreCompact | HookEvent::PostCompact => json!({
            "trigger": detail, "model": "gpt-5.5", "turn_id": "capn-doctor-turn-1"
        }),
        HookEvent::UserPromptSubmit => json!({
            "prompt": DOCTOR_PROMPT,
            "model": "gpt-5.5",
            "permission_mode": "default",
            "turn_id": "capn-doctor-turn-2"
        }),
        HookEvent::Stop => json!({
            "stop_hook_active": false,
            "last_assistant_message": "capn doctor: a synthetic reply.",
            "model": "gpt-5.5",
            "permission_mode": "default",
            "turn_id": "capn-doctor-turn-2"
        }),
        HookEvent::SubagentStart => json!({
            "agent_id": "capn-doctor-agent-1",
            "agent_type": "default",
            "model": "gpt-5.5",
            "permission_mode": "default",
            "turn_id": "capn-doctor-turn-3"
        }),
        // Not registered: doctor runs only what the table registers.
        HookEvent::PostToolUse => json!({}),
    }
}

/// Codex: `.codex/hooks.json` and `~/.codex/hooks.json`.
pub(crate) const CODEX: HostSpec = HostSpec {
    host: Host::Codex,
    flag: "codex",
    label: "Codex",
    name: "Codex",
    files: &[".codex/hooks.json"],
    user_file: ".codex/hooks.json",
    user_label: "~/.codex/hooks.json",
    user_dir: ".codex",
    setup: Setup::Always,
    table: CODEX_TABLE,
    output_schemas: codex_event_output_schemas,
    tools: TOOLS,
    hook_tools: Some(&[
        "shell",
        "shell_command",
        "exec_command",
        "local_shell_call",
        "Bash",
    ]),
    limits: "no status line (Codex has no command status line, so no /compact-prep reminder from it; the reminder comes from the token counts in its rollout file); no instructions for the summary (its compaction takes no hook output)",
    context: ContextSource::Rollout,
    task_list: "the task list (the plan tool)",
    resume_repeats_context: true,
    exit_2,
    doctor_fields,
    user_rules: true,
    trust_command: Some("/hooks"),
    without_capn: Some("runs project hooks only once they trust them"),
    ..super::COMMON
};
