//! OpenCode: no command hooks; capn's plugin `.opencode/plugins/capn.js` (user:
//! `~/.config/opencode/plugins/`) runs `capn hook <event> --host opencode` on every tool call
//! and puts the context where OpenCode's plugin API lets it (docs/hosts.md).

use super::{ContextSource, Host, HostSpec, PreCompactReply, ReplyField, Setup, ToolKind};

/// capn's OpenCode plugin (`hooks-config/opencode.js`), written whole.
pub const OPENCODE_PLUGIN: &str = include_str!("../../hooks-config/opencode.js");

/// OpenCode's tools: `read`, `edit` and `write` (their file is `filePath`), `bash`, `grep` (its
/// file filter: `include`), `glob`, `task` and `todowrite`.
const TOOLS: &[(&str, ToolKind)] = &[
    ("read", ToolKind::Read),
    ("edit", ToolKind::Edit),
    ("write", ToolKind::Edit),
    ("bash", ToolKind::Shell),
    ("grep", ToolKind::Grep),
    ("glob", ToolKind::Glob),
    ("task", ToolKind::Subagent),
    ("todowrite", ToolKind::Plan),
];

/// OpenCode, through capn's plugin.
pub const OPENCODE: HostSpec = HostSpec {
    host: Host::OpenCode,
    flag: "opencode",
    label: "OpenCode",
    name: "OpenCode",
    files: &[".opencode/plugins/capn.js"],
    user_file: ".config/opencode/plugins/capn.js",
    user_label: "~/.config/opencode/plugins/capn.js",
    user_dir: ".config/opencode",
    setup: Setup::WhenFound,
    table: OPENCODE_PLUGIN,
    whole_file: true,
    top_keys: Some(super::claude::TOP_KEYS),
    specific_keys: super::context_keys,
    output_schemas: super::no_schemas,
    event_names: &[],
    tools: TOOLS,
    // The plugin runs on every tool call.
    hook_tools: None,
    reply: ReplyField::Nested,
    limits: "no status line; the contract rides in the system prompt of every call, offers after a search are appended to the tool's output, and the recovery after a compaction comes with the next message",
    pre_compact: PreCompactReply::Envelope,
    pre_compact_arms_recovery: false,
    context: ContextSource::Unknown,
    prep_skill: false,
    task_list: "the task list (the todo tool)",
    resume_repeats_context: false,
    repeats_empty_prompt: false,
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
