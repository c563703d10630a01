//! OpenCode: no command hooks; capn's plugin `.opencode/plugins/capn.js` (user:
//! `~/.config/opencode/plugins/`) runs `capn hook <event> --host opencode` on every tool call
//! and puts the context where OpenCode's plugin API lets it (docs/hosts.md).

use super::{Host, HostSpec, PreCompactReply, ToolKind};

/// capn's OpenCode plugin (`hooks-config/opencode.js`), written whole.
pub(super) const OPENCODE_PLUGIN: &str = include_str!("../../hooks-config/opencode.js");

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
pub(crate) const OPENCODE: HostSpec = HostSpec {
    host: Host::OpenCode,
    flag: "opencode",
    label: "OpenCode",
    name: "OpenCode",
    files: &[".opencode/plugins/capn.js"],
    user_file: ".config/opencode/plugins/capn.js",
    user_label: "~/.config/opencode/plugins/capn.js",
    user_dir: ".config/opencode",
    table: OPENCODE_PLUGIN,
    whole_file: true,
    top_keys: Some(super::claude::TOP_KEYS),
    specific_keys: super::context_keys,
    tools: TOOLS,
    limits: "no status line; the contract rides in the system prompt of every call, offers after a search are appended to the tool's output, and the recovery after a compaction comes with the next message",
    pre_compact: PreCompactReply::Envelope,
    ..super::COMMON
};
