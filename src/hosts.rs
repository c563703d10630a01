//! The hosts capn works with ([`Host`]), one table each: the project settings files `init`
//! edits, the user-level file the host merges in too (read, never written), what `init`
//! registers (`hooks-config/<host>.json`), and what the host accepts from a hook on stdout (its
//! top-level and `hookSpecificOutput` keys, its published output schemas). The hooks (their
//! reply check, [`crate::hook::reply`]), `install`, `init`, `uninstall` and `doctor` take these
//! from here; this module imports neither side.
//! Sources: Claude Code's hooks docs (<https://docs.anthropic.com/en/docs/claude-code/hooks>) and
//! Codex's hook schemas (`assets/codex-schemas/`).

use crate::events::HookEvent;

/// Which host's vocabulary and output shapes a hook uses (`--host claude|codex|gemini|qwen|copilot|opencode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Host {
    /// Claude Code.
    #[default]
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
    /// Qwen Code.
    Qwen,
    /// GitHub Copilot CLI, through its own hook files (`.github/hooks/*.json`).
    Copilot,
    /// OpenCode, through capn's plugin (`.opencode/plugins/capn.js`), which runs the hooks.
    OpenCode,
}

impl Host {
    /// Every host, in the order messages list them.
    pub const ALL: [Host; 6] = [
        Host::Claude,
        Host::Codex,
        Host::Gemini,
        Host::Qwen,
        Host::Copilot,
        Host::OpenCode,
    ];

    /// The `--host` value naming the host (`claude`, `codex`, `gemini`, `qwen`, `copilot`,
    /// `opencode`).
    pub fn flag(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Qwen => "qwen",
            Host::Copilot => "copilot",
            Host::OpenCode => "opencode",
        }
    }

    /// The host a `--host` value names; `None` for anything else.
    pub fn from_flag(flag: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|h| h.flag() == flag)
    }
}

/// `--host` takes [`Host::flag`]'s spellings.
impl clap::ValueEnum for Host {
    fn value_variants<'a>() -> &'a [Self] {
        &Host::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.flag()).help(of(*self).name))
    }
}

/// How a host reads the context a hook adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyField {
    /// `{"hookSpecificOutput": {"hookEventName": <the host's event name>, "additionalContext":
    /// <text>}}` (Claude Code, Codex, Gemini CLI, Qwen Code).
    Nested,
    /// `{"additionalContext": <text>}` (GitHub Copilot CLI's own hook files; it ignores
    /// `hookSpecificOutput` except on preToolUse).
    TopLevel,
}

/// What a host does with PreCompact's stdout, so what `capn hook pre-compact` prints there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreCompactReply {
    /// Nothing reaches the summary: print nothing. Codex (plain stdout is ignored and its
    /// schema allows no context), Gemini CLI (PreCompress is advisory), and, as far as seen in
    /// their clients, Copilot CLI (no shape of its preCompact output reached any request) and
    /// Qwen Code (plain stdout did not reach the compression request).
    Nothing,
    /// Plain text on stdout becomes the summary request's "Additional Instructions" (Claude
    /// Code; JSON there is rejected or pasted verbatim).
    PlainText,
    /// The host's usual envelope, whose `additionalContext` the caller adds to the compaction
    /// prompt (capn's OpenCode plugin, `output.context`).
    Envelope,
}

/// The Claude Code registrations (`hooks-config/claude.json`).
pub const CLAUDE_TABLE: &str = include_str!("../hooks-config/claude.json");
/// The Codex registrations (`hooks-config/codex.json`).
pub const CODEX_TABLE: &str = include_str!("../hooks-config/codex.json");
/// The Gemini CLI registrations (`hooks-config/gemini.json`; timeouts in milliseconds).
pub const GEMINI_TABLE: &str = include_str!("../hooks-config/gemini.json");
/// The Qwen Code registrations (`hooks-config/qwen.json`).
pub const QWEN_TABLE: &str = include_str!("../hooks-config/qwen.json");
/// The GitHub Copilot CLI hook file (`hooks-config/copilot.json`), written whole.
pub const COPILOT_TABLE: &str = include_str!("../hooks-config/copilot.json");
/// capn's OpenCode plugin (`hooks-config/opencode.js`), written whole.
pub const OPENCODE_PLUGIN: &str = include_str!("../hooks-config/opencode.js");
/// Codex's PostToolUse output schema.
pub const CODEX_POST_TOOL_USE_OUTPUT: &str =
    include_str!("../assets/codex-schemas/post-tool-use.command.output.schema.json");

/// Codex's SessionStart output schema (`session-start.command.output.schema.json`).
pub const CODEX_SESSION_START_OUTPUT: &str =
    include_str!("../assets/codex-schemas/session-start.command.output.schema.json");
/// The SessionStart output schema of Codex commit 658d027 (`hookSpecificOutput.env`, no nulls):
/// a reply must satisfy both generations.
pub const CODEX_SESSION_START_OUTPUT_658D027: &str = include_str!(
    "../assets/codex-schemas/variants/658d027/session-start.command.output.schema.json"
);
/// Codex's UserPromptSubmit output schema.
pub const CODEX_USER_PROMPT_SUBMIT_OUTPUT: &str =
    include_str!("../assets/codex-schemas/user-prompt-submit.command.output.schema.json");
/// Codex's PreCompact output schema.
pub const CODEX_PRE_COMPACT_OUTPUT: &str =
    include_str!("../assets/codex-schemas/pre-compact.command.output.schema.json");
/// Codex's PreToolUse output schema.
pub const CODEX_PRE_TOOL_USE_OUTPUT: &str =
    include_str!("../assets/codex-schemas/pre-tool-use.command.output.schema.json");
/// Codex's Stop output schema (`decision: "block"` requires a non-blank `reason`).
pub const CODEX_STOP_OUTPUT: &str =
    include_str!("../assets/codex-schemas/stop.command.output.schema.json");
/// Codex's SubagentStart output schema.
pub const CODEX_SUBAGENT_START_OUTPUT: &str =
    include_str!("../assets/codex-schemas/subagent-start.command.output.schema.json");
/// Codex's PostCompact output schema.
pub const CODEX_POST_COMPACT_OUTPUT: &str =
    include_str!("../assets/codex-schemas/post-compact.command.output.schema.json");

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
pub fn codex_event_output_schemas(event: HookEvent) -> Vec<(String, &'static str)> {
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

/// One host's files and registrations.
#[derive(Debug)]
pub struct HostSpec {
    /// The host.
    pub host: Host,
    /// Its short name in check labels (`Claude`, `Codex`).
    pub label: &'static str,
    /// Its product name in messages (`Claude Code`, `Codex`).
    pub name: &'static str,
    /// The project files `capn init` writes, relative to the project root.
    pub files: &'static [&'static str],
    /// The user-level file the host merges in, relative to the home dir.
    pub user_file: &'static str,
    /// [`HostSpec::user_file`] as messages show it (`~/...`).
    pub user_label: &'static str,
    /// What `capn init` registers: the JSON of `hooks-config/<host>.json`.
    pub table: &'static str,
    /// The top-level keys of a hook reply the host knows (others make it report an error);
    /// `None` when its schemas say (Codex).
    pub top_keys: Option<&'static [&'static str]>,
    /// The `hookSpecificOutput` keys the host accepts on an event; `None` when its schemas say.
    pub specific_keys: fn(&str) -> Option<&'static [&'static str]>,
    /// The host's published output schemas for an event, as (name, JSON text); empty for none.
    pub output_schemas: fn(HookEvent) -> Vec<(String, &'static str)>,
    /// The host's names for capn's events where they differ from Claude Code's
    /// ([`crate::events::GEMINI_NAMES`], ...): what it sends as `hook_event_name`, the key in its
    /// hook file, and the `hookEventName` of a reply.
    pub event_names: &'static [(HookEvent, &'static str)],
    /// Where the host reads a hook's context.
    pub reply: ReplyField,
    /// What the host cannot carry, for `init`'s report and the docs (empty: everything).
    pub limits: &'static str,
    /// What PreCompact prints for the host: the instructions for its summary, or nothing.
    pub pre_compact: PreCompactReply,
}

impl HostSpec {
    /// True when `rel` (a project file, or the user file as labelled) is one of this host's.
    pub fn owns(&self, rel: &str) -> bool {
        self.files.contains(&rel) || self.user_label == rel
    }

    /// Every file of the host, for messages: `a, b or c`.
    pub fn all_files(&self) -> String {
        let mut all: Vec<&str> = self.files.to_vec();
        all.push(self.user_label);
        let last = all.pop().unwrap_or_default();
        if all.is_empty() {
            last.to_string()
        } else {
            format!("{} or {last}", all.join(", "))
        }
    }
}

/// Claude Code's accepted `hookSpecificOutput` keys (Claude Code's hooks docs): SessionStart has a
/// few of its own; UserPromptSubmit and PreToolUse take the event name, `additionalContext` and
/// `sessionTitle` (capn prints only the first two).
fn claude_specific_keys(event: &str) -> Option<&'static [&'static str]> {
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

fn no_keys(_: &str) -> Option<&'static [&'static str]> {
    None
}

fn no_schemas(_: HookEvent) -> Vec<(String, &'static str)> {
    Vec::new()
}

/// Claude Code: `.claude/settings.json`, `.claude/settings.local.json`, `~/.claude/settings.json`.
pub const CLAUDE: HostSpec = HostSpec {
    host: Host::Claude,
    label: "Claude",
    name: "Claude Code",
    files: &[".claude/settings.json", ".claude/settings.local.json"],
    user_file: ".claude/settings.json",
    user_label: "~/.claude/settings.json",
    table: CLAUDE_TABLE,
    // The top-level fields every Claude Code hook reply may carry (its hooks docs, "Common JSON fields").
    top_keys: Some(&[
        "continue",
        "stopReason",
        "suppressOutput",
        "systemMessage",
        "terminalSequence",
        "decision",
        "reason",
        "hookSpecificOutput",
    ]),
    specific_keys: claude_specific_keys,
    output_schemas: no_schemas,
    event_names: &[],
    reply: ReplyField::Nested,
    limits: "",
    pre_compact: PreCompactReply::PlainText,
};

/// Codex: `.codex/hooks.json` and `~/.codex/hooks.json`.
pub const CODEX: HostSpec = HostSpec {
    host: Host::Codex,
    label: "Codex",
    name: "Codex",
    files: &[".codex/hooks.json"],
    user_file: ".codex/hooks.json",
    user_label: "~/.codex/hooks.json",
    table: CODEX_TABLE,
    top_keys: None,
    specific_keys: no_keys,
    output_schemas: codex_event_output_schemas,
    event_names: &[],
    reply: ReplyField::Nested,
    limits: "no status line (Codex has no command status line, so no /compact-prep reminder from it; the reminder comes from the token counts in its rollout file); no instructions for the summary (its compaction takes no hook output)",
    pre_compact: PreCompactReply::Nothing,
};

/// The top-level reply keys of Gemini CLI's hook output (its hooks documentation: the common
/// fields plus `hookSpecificOutput`).
const GEMINI_TOP_KEYS: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "hookSpecificOutput",
];

fn context_keys(_: &str) -> Option<&'static [&'static str]> {
    Some(&["hookEventName", "additionalContext"])
}

/// Gemini CLI: `.gemini/settings.json` and `~/.gemini/settings.json` (command hooks, one shell
/// string each, timeouts in milliseconds; docs/hosts.md).
pub const GEMINI: HostSpec = HostSpec {
    host: Host::Gemini,
    label: "Gemini",
    name: "Gemini CLI",
    files: &[".gemini/settings.json"],
    user_file: ".gemini/settings.json",
    user_label: "~/.gemini/settings.json",
    table: GEMINI_TABLE,
    top_keys: Some(GEMINI_TOP_KEYS),
    specific_keys: context_keys,
    output_schemas: no_schemas,
    event_names: &crate::events::GEMINI_NAMES,
    reply: ReplyField::Nested,
    limits: "no recovery after a compression (it has no post-compress event, and PreCompress fires before every model call) and no status line; offers after a search come with the tool's result (AfterTool), since BeforeTool cannot add context",
    pre_compact: PreCompactReply::Nothing,
};

/// Qwen Code: `.qwen/settings.json` and `~/.qwen/settings.json` (Claude-shaped, one shell string
/// per command).
pub const QWEN: HostSpec = HostSpec {
    host: Host::Qwen,
    label: "Qwen",
    name: "Qwen Code",
    files: &[".qwen/settings.json"],
    user_file: ".qwen/settings.json",
    user_label: "~/.qwen/settings.json",
    table: QWEN_TABLE,
    top_keys: CLAUDE.top_keys,
    specific_keys: claude_specific_keys,
    output_schemas: no_schemas,
    event_names: &[],
    reply: ReplyField::Nested,
    limits: "no status line (the context reminder comes from its Stop's context_usage); offers after a search come with the tool's result (PostToolUse), since PreToolUse cannot add context",
    pre_compact: PreCompactReply::Nothing,
};

/// GitHub Copilot CLI's own hook file, `.github/hooks/capn.json` (`~/.copilot/hooks/` for the
/// user). Copilot also runs `.claude/settings.json`, without `args` ([`crate::hook::bare`]).
pub const COPILOT: HostSpec = HostSpec {
    host: Host::Copilot,
    label: "Copilot",
    name: "GitHub Copilot CLI",
    files: &[".github/hooks/capn.json"],
    user_file: ".copilot/hooks/capn.json",
    user_label: "~/.copilot/hooks/capn.json",
    table: COPILOT_TABLE,
    top_keys: None,
    specific_keys: no_keys,
    output_schemas: no_schemas,
    event_names: &crate::events::COPILOT_NAMES,
    reply: ReplyField::TopLevel,
    limits: "no post-compact event (recovery is armed by preCompact and delivered with the next prompt) and no status line",
    pre_compact: PreCompactReply::Nothing,
};

/// OpenCode: no command hooks; capn's plugin `.opencode/plugins/capn.js` (user:
/// `~/.config/opencode/plugins/`) runs `capn hook <event> --host opencode` and puts the context
/// where OpenCode's plugin API lets it (docs/hosts.md).
pub const OPENCODE: HostSpec = HostSpec {
    host: Host::OpenCode,
    label: "OpenCode",
    name: "OpenCode",
    files: &[".opencode/plugins/capn.js"],
    user_file: ".config/opencode/plugins/capn.js",
    user_label: "~/.config/opencode/plugins/capn.js",
    table: OPENCODE_PLUGIN,
    top_keys: CLAUDE.top_keys,
    specific_keys: context_keys,
    output_schemas: no_schemas,
    event_names: &[],
    reply: ReplyField::Nested,
    limits: "no status line; the contract rides in the system prompt of every call, offers after a search are appended to the tool's output, and the recovery after a compaction comes with the next message",
    pre_compact: PreCompactReply::Envelope,
};

/// The hosts a plain `capn init` registers and `capn doctor` checks: Claude Code first.
pub const HOSTS: [&HostSpec; 2] = [&CLAUDE, &CODEX];

/// Every host's table, in [`Host::ALL`]'s order.
pub const ALL_HOSTS: [&HostSpec; 6] = [&CLAUDE, &CODEX, &GEMINI, &QWEN, &COPILOT, &OPENCODE];

/// The table of `host`.
pub fn of(host: Host) -> &'static HostSpec {
    match host {
        Host::Claude => &CLAUDE,
        Host::Codex => &CODEX,
        Host::Gemini => &GEMINI,
        Host::Qwen => &QWEN,
        Host::Copilot => &COPILOT,
        Host::OpenCode => &OPENCODE,
    }
}
