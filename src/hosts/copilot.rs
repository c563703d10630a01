//! GitHub Copilot CLI, through its own hook file `.github/hooks/capn.json` (`~/.copilot/hooks/`
//! for the user), which capn writes whole: its camelCase event names, its tools, its top-level
//! reply. Copilot also runs `.claude/settings.json`, without `args` (`crate::hook::bare`).

use super::{Host, HostSpec, ReplyField, Setup, ToolKind};
use crate::events::HookEvent;

/// The GitHub Copilot CLI hook file (`hooks-config/copilot.json`), written whole.
pub(super) const COPILOT_TABLE: &str = include_str!("../../hooks-config/copilot.json");

/// GitHub Copilot CLI's names for the events capn handles, in its own hook files
/// (`.github/hooks/*.json`: camelCase; the payloads captured from the client). It has no
/// post-compact event.
pub(super) const COPILOT_NAMES: [(HookEvent, &str); 5] = [
    (HookEvent::SessionStart, "sessionStart"),
    (HookEvent::UserPromptSubmit, "userPromptSubmitted"),
    (HookEvent::PreToolUse, "preToolUse"),
    (HookEvent::PostToolUse, "postToolUse"),
    (HookEvent::PreCompact, "preCompact"),
];

/// Copilot CLI's tools (the payloads captured from the client): `grep`, `glob`, `task`, `view`
/// (a read) and `bash`.
const TOOLS: &[(&str, ToolKind)] = &[
    ("grep", ToolKind::Grep),
    ("glob", ToolKind::Glob),
    ("task", ToolKind::Subagent),
    ("view", ToolKind::Read),
    ("bash", ToolKind::Shell),
];

/// GitHub Copilot CLI's own hook file.
pub(crate) const COPILOT: HostSpec = HostSpec {
    host: Host::Copilot,
    flag: "copilot",
    label: "Copilot",
    name: "GitHub Copilot CLI",
    files: &[".github/hooks/capn.json"],
    user_file: ".copilot/hooks/capn.json",
    user_label: "~/.copilot/hooks/capn.json",
    user_dir: ".copilot",
    setup: Setup::Asked,
    table: COPILOT_TABLE,
    whole_file: true,
    event_names: &COPILOT_NAMES,
    tools: TOOLS,
    // What it is shown through Claude Code's registrations it runs.
    hook_tools: Some(super::claude::HOOK_TOOLS),
    reply: ReplyField::TopLevel,
    limits: "no post-compact event (recovery is armed by preCompact and delivered with the next prompt) and no status line",
    pre_compact_arms_recovery: true,
    runs_hooks_of: Some(Host::Claude),
    ..super::COMMON
};
