//! The hosts capn works with ([`Host`]), one file each (`claude.rs`, `codex.rs`, `gemini.rs`,
//! `qwen.rs`, `copilot.rs`, `opencode.rs`) holding its [`HostSpec`]: the project settings files
//! `init` edits, the user-level file the host merges in too (read, never written), what `init`
//! registers (`hooks-config/<host>.json`), its names for the events and for its tools, what it
//! accepts from a hook on stdout (its top-level and `hookSpecificOutput` keys, its published
//! output schemas), where its context-use figure comes from, the wording its texts need and the
//! payloads `doctor` sends as it. The hooks, `install`, `init`, `uninstall` and `doctor` iterate
//! over [`ALL`] or ask a host's spec ([`of`]) instead of matching on the host; this module
//! imports neither side.
//! Sources: Claude Code's hooks docs (<https://docs.anthropic.com/en/docs/claude-code/hooks>) and
//! Codex's hook schemas (`assets/codex-schemas/`).

mod claude;
mod codex;
mod copilot;
mod gemini;
mod opencode;
mod qwen;

pub(crate) use claude::{CLAUDE, CLAUDE_TABLE};
pub use codex::codex_output_schemas;
pub(crate) use codex::CODEX;
#[cfg(test)]
pub(crate) use codex::{
    CODEX_PRE_COMPACT_OUTPUT, CODEX_SESSION_START_OUTPUT, CODEX_USER_PROMPT_SUBMIT_OUTPUT,
};
pub(crate) use copilot::COPILOT;
pub(crate) use gemini::GEMINI;
pub(crate) use opencode::OPENCODE;
pub(crate) use qwen::QWEN;

use crate::events::HookEvent;

/// Which host's vocabulary and output shapes a hook uses (`--host claude|codex|gemini|qwen|copilot|opencode`).
/// A variant indexes [`ALL`]: its spec is `ALL[host as usize]` ([`of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Host {
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

/// Every host's spec, in the order messages list them (Claude Code first): the one list of
/// hosts, which everything that handles "each host" iterates.
pub(crate) const ALL: [&HostSpec; 6] = [&CLAUDE, &CODEX, &GEMINI, &QWEN, &COPILOT, &OPENCODE];

impl Host {
    /// Every host, in [`ALL`]'s order.
    pub(crate) const ALL: [Host; ALL.len()] = {
        let mut all = [Host::Claude; ALL.len()];
        let mut i = 0;
        while i < ALL.len() {
            all[i] = ALL[i].host;
            i += 1;
        }
        all
    };

    /// The host's spec ([`of`]).
    pub(crate) fn spec(self) -> &'static HostSpec {
        of(self)
    }

    /// The `--host` value naming the host (`claude`, `codex`, `gemini`, `qwen`, `copilot`,
    /// `opencode`): [`HostSpec::flag`].
    pub(crate) fn flag(self) -> &'static str {
        of(self).flag
    }

    /// The host a `--host` value names; `None` for anything else.
    pub(crate) fn from_flag(flag: &str) -> Option<Host> {
        ALL.iter().find(|s| s.flag == flag).map(|s| s.host)
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

/// The spec of `host`.
pub(crate) fn of(host: Host) -> &'static HostSpec {
    ALL[host as usize]
}

/// The hosts a plain `capn init` registers ([`Setup::Always`]), and those `capn doctor` checks
/// when no host is set up in the project: Claude Code first, then Codex.
pub(crate) fn always() -> impl Iterator<Item = &'static HostSpec> {
    ALL.into_iter().filter(|s| s.setup == Setup::Always)
}

/// The event a payload's `hook_event_name` stands for, in any host's spelling: Claude Code's,
/// Codex's and Qwen Code's ([`HookEvent::from_name`]), or one of a host's
/// [`HostSpec::event_names`] (Copilot CLI's `userPromptSubmitted`, Gemini CLI's `AfterTool`).
/// `None` for an event capn does not handle.
pub(crate) fn event_from_wire_name(name: &str) -> Option<HookEvent> {
    HookEvent::from_name(name).or_else(|| {
        ALL.iter()
            .flat_map(|s| s.event_names)
            .find(|(_, n)| *n == name)
            .map(|(e, _)| *e)
    })
}

/// What a tool does, by the name a host gives it ([`HostSpec::tools`]); what the hooks read from
/// a call's input follows from it (`crate::recall::intent::tool_call`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolKind {
    /// A search of file contents by pattern (Claude Code's `Grep`).
    Grep,
    /// A search of file names by glob (Claude Code's `Glob`).
    Glob,
    /// A sub-agent launch (Claude Code's `Task`): a search whose own calls the turn does not see.
    Subagent,
    /// A file read (Claude Code's `Read`).
    Read,
    /// A file edit or write (Claude Code's `Edit`, `Write`).
    Edit,
    /// A patch (Codex's `apply_patch`): its text names the files it edits.
    Patch,
    /// A plan or task-list update (Claude Code's `TodoWrite`): it looks at no file.
    Plan,
    /// A shell command line (Claude Code's `Bash`).
    Shell,
}

/// What a tool named `name` does, as any host names it (the union of the hosts'
/// [`HostSpec::tools`]: a host may run another's registrations, and the names do not clash);
/// `None` for a tool no host table names (an MCP tool, a web fetch).
pub(crate) fn tool_kind(name: &str) -> Option<ToolKind> {
    ALL.iter()
        .flat_map(|s| s.tools)
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
}

/// How a host reads the context a hook adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyField {
    /// `{"hookSpecificOutput": {"hookEventName": <the host's event name>, "additionalContext":
    /// <text>}}` (Claude Code, Codex, Gemini CLI, Qwen Code).
    Nested,
    /// `{"additionalContext": <text>}` (GitHub Copilot CLI's own hook files; it ignores
    /// `hookSpecificOutput` except on preToolUse).
    TopLevel,
}

/// What a host does with PreCompact's stdout, so what `capn hook pre-compact` prints there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PreCompactReply {
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

/// Where the context-use figure behind the reminder comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContextSource {
    /// capn's status line, which the host runs with the context window's figures (Claude Code).
    StatusLine,
    /// The token counts in the host's rollout file, read on each prompt (Codex).
    Rollout,
    /// The Stop payload's `context_usage` (Qwen Code).
    StopPayload,
    /// None: the host gives hooks no figure, so no reminder.
    Unknown,
}

/// When `capn init` sets a host up without `--host`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Setup {
    /// Always (Claude Code, Codex). `capn doctor` checks these hosts when none is set up in the
    /// project; it runs the hooks of every host set up that has payloads
    /// ([`HostSpec::doctor_fields`]: these two, Gemini CLI and Qwen Code).
    Always,
    /// When its settings folder is in the project or its user folder in the home folder
    /// ([`HostSpec::user_dir`]).
    WhenFound,
    /// Only when named with `--host` (Copilot CLI already runs capn's Claude Code hooks).
    Asked,
}

/// The extra fields of a synthetic payload `doctor` sends as a host for an event, beside the
/// common ones: `(event, detail, search)`, where `detail` is SessionStart's `source` or the
/// compaction's `trigger` and `search` the pattern of the PreToolUse or PostToolUse search. An
/// empty object for an event doctor does not run for the host (one it has not, or one it never
/// sends with that `detail`).
pub(crate) type DoctorFields = fn(HookEvent, &str, &str) -> serde_json::Value;

/// The `timestamp` of doctor's synthetic payloads for the hosts that send one (Gemini CLI, Qwen
/// Code: ISO 8601 in UTC, as they send it).
pub(super) const DOCTOR_TIMESTAMP: &str = "2026-12-01T12:00:00.000Z";

/// The prompt of doctor's synthetic UserPromptSubmit payloads.
pub(super) const DOCTOR_PROMPT: &str = "capn doctor: a synthetic prompt";

/// One host's files, registrations, vocabulary and reply shapes.
#[derive(Debug)]
pub(crate) struct HostSpec {
    /// The host.
    pub host: Host,
    /// Its `--host` value (`claude`).
    pub flag: &'static str,
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
    /// The host's user folder, relative to the home dir, whose presence says the host is
    /// installed ([`Setup::WhenFound`]).
    pub user_dir: &'static str,
    /// When `capn init` sets the host up unasked.
    pub setup: Setup,
    /// What `capn init` registers: the JSON of `hooks-config/<host>.json`.
    pub table: &'static str,
    /// capn writes the host's project file whole (a file of its own in a folder the host
    /// reads every file of: Copilot CLI's `.github/hooks/`, OpenCode's `.opencode/plugins/`)
    /// and deletes it only unedited; else it merges its handlers into the host's settings.
    pub whole_file: bool,
    /// The top-level keys of a hook reply the host knows (others make it report an error);
    /// `None` when its schemas say (Codex).
    pub top_keys: Option<&'static [&'static str]>,
    /// The `hookSpecificOutput` keys the host accepts on an event; `None` when its schemas say.
    pub specific_keys: fn(&str) -> Option<&'static [&'static str]>,
    /// The host's published output schemas for an event, as (name, JSON text); empty for none.
    pub output_schemas: fn(HookEvent) -> Vec<(String, &'static str)>,
    /// The host's names for capn's events where they differ from Claude Code's
    /// (`gemini::GEMINI_NAMES`, `copilot::COPILOT_NAMES`): what it sends as `hook_event_name`, the key in its
    /// hook file, and the `hookEventName` of a reply.
    pub event_names: &'static [(HookEvent, &'static str)],
    /// The host's tools capn reads, by name: searches, reads, edits, plans and its shell.
    pub tools: &'static [(&'static str, ToolKind)],
    /// The tools whose calls the tool hook `init` registers is shown (its matcher); `None`
    /// when the hook sees every call (OpenCode's plugin).
    pub hook_tools: Option<&'static [&'static str]>,
    /// Where the host reads a hook's context.
    pub reply: ReplyField,
    /// What the host cannot carry, for `init`'s report and the docs (empty: everything).
    pub limits: &'static str,
    /// What PreCompact prints for the host: the instructions for its summary, or nothing.
    pub pre_compact: PreCompactReply,
    /// The host has no post-compact event: its PreCompact also arms the recovery the next
    /// prompt delivers (Copilot CLI).
    pub pre_compact_arms_recovery: bool,
    /// Where the context-use figure comes from.
    pub context: ContextSource,
    /// The host runs capn's compact-prep skill as a slash command (`/compact-prep`), so the
    /// texts name it; elsewhere they speak of the saved session state.
    pub prep_skill: bool,
    /// The host's task list as the recovery text names it (`the task list (TaskList)`).
    pub task_list: &'static str,
    /// On a resume the host injects every earlier SessionStart context again (Codex's `codex
    /// exec resume`), so a seen session gets no second contract.
    pub resume_repeats_context: bool,
    /// The host fires UserPromptSubmit again with `prompt: ""` on each tool-result
    /// continuation (Qwen Code): such a repeat is not a new turn.
    pub repeats_empty_prompt: bool,
    /// Its registrations run a program with `args`, without a shell, with the host's path
    /// placeholders substituted (Claude Code's exec form); else `command` is a shell line.
    pub exec_form: bool,
    /// The variable naming the project folder the host sets for a hook (`CLAUDE_PROJECT_DIR`).
    pub project_dir_var: Option<&'static str>,
    /// The variable naming the file a SessionStart hook appends `export` lines to
    /// (`CLAUDE_ENV_FILE`).
    pub env_file_var: Option<&'static str>,
    /// The host's hooks may come from capn's plugin for it instead of its settings (Claude
    /// Code's plugin).
    pub plugin: bool,
    /// Its settings take `permissions.allow` rules, to which `init` adds capn's read-and-chart
    /// commands (`crate::install::allow`), so the agent runs them unasked.
    pub allow_rules: bool,
    /// Its user folder takes a rules file allowing capn's read-and-chart commands
    /// (`crate::install::allow::CODEX_RULES`, Codex's `prefix_rule`), which `init --user` writes
    /// and `uninstall --user` removes.
    pub user_rules: bool,
    /// The host runs hooks only once the user trusts them, in this command (Codex's `/hooks`):
    /// the reports of `init` and `init --user` say so when they registered its hooks.
    pub trust_command: Option<&'static str>,
    /// What a teammate without capn sees of capn's hooks in a committed project file of the
    /// host, after its name (`runs project hooks only once they trust them`), for `init`'s
    /// report; `None`: nothing to say.
    pub without_capn: Option<&'static str>,
    /// Another host whose registrations this one also runs, without their `args` (Copilot CLI
    /// runs `.claude/settings.json`).
    pub runs_hooks_of: Option<Host>,
    /// The unit of a handler's `timeout` in the host's settings, for doctor's report: `s`, or
    /// `ms` (Gemini CLI).
    pub timeout_unit: &'static str,
    /// What an exit 2 of a hook for an event makes the host do, for doctor's report.
    pub exit_2: fn(HookEvent) -> &'static str,
    /// The extra fields of doctor's synthetic payloads for the host.
    pub doctor_fields: DoctorFields,
}

impl HostSpec {
    /// True when `rel` (a project file, or the user file as labelled) is one of this host's.
    pub(crate) fn owns(&self, rel: &str) -> bool {
        self.files.contains(&rel) || self.user_label == rel
    }

    /// Every file of the host, for messages: `a, b or c`.
    pub(crate) fn all_files(&self) -> String {
        let mut all: Vec<&str> = self.files.to_vec();
        all.push(self.user_label);
        let last = all.pop().unwrap_or_default();
        if all.is_empty() {
            last.to_string()
        } else {
            format!("{} or {last}", all.join(", "))
        }
    }

    /// The host's name for `event` ([`HostSpec::event_names`], else [`HookEvent::name`]).
    pub(crate) fn event_name(&self, event: HookEvent) -> &'static str {
        event.name_in(self.event_names)
    }

    /// True when the tool hook registered for the host is shown a call of the tool `name`
    /// ([`HostSpec::hook_tools`]).
    pub(crate) fn hook_sees(&self, name: &str) -> bool {
        self.hook_tools.is_none_or(|t| t.contains(&name))
    }
}

/// What a host has unless its file says otherwise: the common case, so that each host file
/// states its identity (host, flag, names, files, table, tools) and only where it differs. The
/// identity fields here are blanks that every host replaces; a test checks none is left blank.
const COMMON: HostSpec = HostSpec {
    host: Host::Claude,
    flag: "",
    label: "",
    name: "",
    files: &[],
    user_file: "",
    user_label: "",
    user_dir: "",
    setup: Setup::WhenFound,
    table: "",
    whole_file: false,
    top_keys: None,
    specific_keys: no_keys,
    output_schemas: no_schemas,
    event_names: &[],
    tools: &[],
    hook_tools: None,
    reply: ReplyField::Nested,
    limits: "",
    pre_compact: PreCompactReply::Nothing,
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
    timeout_unit: "s",
    exit_2: exit_2_fails,
    doctor_fields: no_doctor_fields,
};

/// No `hookSpecificOutput` keys from here: the host's schemas say ([`HostSpec::specific_keys`]).
fn no_keys(_: &str) -> Option<&'static [&'static str]> {
    None
}

/// No published output schemas ([`HostSpec::output_schemas`]).
fn no_schemas(_: HookEvent) -> Vec<(String, &'static str)> {
    Vec::new()
}

/// The `hookSpecificOutput` keys of a host that takes context alone: the event name and
/// `additionalContext`.
fn context_keys(_: &str) -> Option<&'static [&'static str]> {
    Some(&["hookEventName", "additionalContext"])
}

/// What an exit 2 means on a host whose docs do not say more than "failed".
fn exit_2_fails(_: HookEvent) -> &'static str {
    "the host reports the hook as failed (and may block)"
}

/// No doctor payloads: doctor runs no hook of the host (Copilot CLI's and OpenCode's files are
/// checked as written, not run).
fn no_doctor_fields(_: HookEvent, _: &str, _: &str) -> serde_json::Value {
    serde_json::json!({})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_host_indexes_its_own_spec_and_its_flag_round_trips() {
        for (i, spec) in ALL.iter().enumerate() {
            assert_eq!(spec.host as usize, i, "{}", spec.name);
            assert_eq!(Host::from_flag(spec.flag), Some(spec.host));
            assert_eq!(of(spec.host).name, spec.name);
        }
        assert_eq!(Host::from_flag("cursor"), None);
        // Every host replaced COMMON's blank identity.
        for spec in ALL {
            let blanks = [
                spec.flag,
                spec.label,
                spec.name,
                spec.user_file,
                spec.user_label,
            ];
            assert!(blanks.iter().all(|b| !b.is_empty()), "{}", spec.name);
            assert!(
                !spec.user_dir.is_empty() && !spec.table.is_empty(),
                "{}",
                spec.name
            );
            assert!(
                !spec.files.is_empty() && !spec.tools.is_empty(),
                "{}",
                spec.name
            );
            let same = ALL
                .iter()
                .filter(|s| s.flag == spec.flag || s.name == spec.name);
            assert_eq!(same.count(), 1, "{}", spec.name);
        }
        let always: Vec<Host> = always().map(|s| s.host).collect();
        assert_eq!(always, [Host::Claude, Host::Codex]);
    }

    #[test]
    fn tool_names_mean_one_thing_across_hosts() {
        for a in ALL {
            for b in ALL {
                for (n, k) in a.tools {
                    if let Some((_, other)) = b.tools.iter().find(|(m, _)| m == n) {
                        assert_eq!(k, other, "{n}: {} and {}", a.name, b.name);
                    }
                }
            }
        }
        assert_eq!(tool_kind("grep_search"), Some(ToolKind::Grep));
        assert_eq!(tool_kind("mcp__x__y"), None);
    }

    #[test]
    fn wire_names_of_every_host_convert() {
        assert_eq!(
            event_from_wire_name("userPromptSubmitted"),
            Some(HookEvent::UserPromptSubmit)
        );
        assert_eq!(
            event_from_wire_name("AfterTool"),
            Some(HookEvent::PostToolUse)
        );
        assert_eq!(event_from_wire_name("PreCompress"), None);
        assert_eq!(event_from_wire_name("SessionEnd"), None);
    }
}
