//! The hook-event vocabulary, in one place: the events capn handles, each with the host's name
//! for it (`hook_event_name` on stdin, `hookEventName` in a reply, the key in a settings file's
//! `hooks`) and the `capn hook` subcommand that answers it. Every other module converts through
//! [`HookEvent`] (Claude Code and Codex share the names: Claude Code's hooks docs,
//! <https://docs.anthropic.com/en/docs/claude-code/hooks>, and Codex's hook schemas):
//! outside this table no code spells an event's name or subcommand as a string literal (tests
//! and doc comments quote them as wire text), which a test here checks over `src/`.

/// The hook events capn handles (Claude Code's hooks docs: SessionStart, PreCompact, PostCompact,
/// UserPromptSubmit, PreToolUse, Stop; and SubagentStart, which Claude Code and Codex fire when
/// a sub-agent starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    /// SessionStart: the contract, or the recovery after a compaction.
    SessionStart,
    /// PreCompact: instructions for the summary (what to keep, the saved state), and a record of
    /// whether a fresh /compact-prep state exists.
    PreCompact,
    /// PostCompact: drop the session's compaction marker; check the summary against the saved
    /// state.
    PostCompact,
    /// UserPromptSubmit: recovery or context reminder, once; offers.
    UserPromptSubmit,
    /// PreToolUse: offers before a search (Grep, Glob, sub-agents, shell greps).
    PreToolUse,
    /// PostToolUse: the same offers after a search, for hosts whose pre-tool event cannot add
    /// context but whose post-tool event can (Gemini CLI's AfterTool, Qwen Code's PostToolUse,
    /// Copilot CLI's postToolUse: the text is appended to the tool's result).
    PostToolUse,
    /// Stop: the end of a turn; asks once to chart a turn that explored hard (docs/nudge.md).
    Stop,
    /// SubagentStart: the short contract for a sub-agent that searches (SessionStart does not
    /// fire for sub-agents, so they never hear the main one).
    SubagentStart,
}

/// Each event with its host name and its subcommand: the one table the conversions read.
const NAMES: [(HookEvent, &str, &str); 8] = [
    (HookEvent::SessionStart, "SessionStart", "session-start"),
    (HookEvent::PreCompact, "PreCompact", "pre-compact"),
    (HookEvent::PostCompact, "PostCompact", "post-compact"),
    (
        HookEvent::UserPromptSubmit,
        "UserPromptSubmit",
        "user-prompt-submit",
    ),
    (HookEvent::PreToolUse, "PreToolUse", "pre-tool-use"),
    (HookEvent::PostToolUse, "PostToolUse", "post-tool-use"),
    (HookEvent::Stop, "Stop", "stop"),
    (HookEvent::SubagentStart, "SubagentStart", "subagent-start"),
];

impl HookEvent {
    /// Every event, in the order the registration tables list them.
    pub const ALL: [HookEvent; 8] = [
        HookEvent::SessionStart,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::Stop,
        HookEvent::SubagentStart,
    ];

    fn row(self) -> &'static (HookEvent, &'static str, &'static str) {
        &NAMES[self as usize]
    }

    /// The host's name (`SessionStart`): `hook_event_name` on stdin, `hookEventName` in a reply.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// The `capn hook` subcommand that answers the event (`session-start`).
    pub fn subcommand(self) -> &'static str {
        self.row().2
    }

    /// The event a host name stands for; `None` for an event capn does not handle
    /// (`SessionEnd`).
    pub fn from_name(name: &str) -> Option<HookEvent> {
        NAMES.iter().find(|r| r.1 == name).map(|r| r.0)
    }

    /// The name `host_names` (a host's names where they differ from Claude Code's,
    /// `crate::hosts::HostSpec::event_names`) gives the event, else [`HookEvent::name`].
    pub fn name_in(self, host_names: &[(HookEvent, &'static str)]) -> &'static str {
        host_names
            .iter()
            .find(|(e, _)| *e == self)
            .map_or(self.name(), |(_, n)| n)
    }

    /// True when capn's hooks for the two events give the agent the same thing: the same event,
    /// or the search offers, which come before a search (PreToolUse) or, on hosts whose hooks
    /// cannot add context before a tool, with its result (PostToolUse). A host that runs capn
    /// for one of a pair has what the other would give.
    pub fn same_duty(self, other: HookEvent) -> bool {
        let search = |e| matches!(e, HookEvent::PreToolUse | HookEvent::PostToolUse);
        self == other || (search(self) && search(other))
    }

    /// The event a `capn hook` subcommand answers; `None` for anything else.
    pub fn from_subcommand(sub: &str) -> Option<HookEvent> {
        NAMES.iter().find(|r| r.2 == sub).map(|r| r.0)
    }

    /// True when the host takes nothing on stdout for the event on any host (PostCompact: a
    /// reply there is dropped whole; Claude Code's hooks docs). PreCompact depends on the host:
    /// `crate::hosts::PreCompactReply`.
    pub fn prints_nothing(self) -> bool {
        matches!(self, HookEvent::PostCompact)
    }

    /// True when a reply may block the event with `{"decision":"block","reason":..}` (Stop: the
    /// agent goes on with the reason as its next instruction; Claude Code's hooks docs, Codex's
    /// `stop.command.output` schema). No other event of capn's ever blocks.
    pub fn may_block(self) -> bool {
        matches!(self, HookEvent::Stop)
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `capn hook <event>` takes the subcommand spellings.
impl clap::ValueEnum for HookEvent {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.subcommand()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_rows_are_in_variant_order_and_convert_both_ways() {
        for (i, e) in HookEvent::ALL.into_iter().enumerate() {
            assert_eq!(NAMES[i].0, e);
            assert_eq!(HookEvent::from_name(e.name()), Some(e));
            assert_eq!(HookEvent::from_subcommand(e.subcommand()), Some(e));
        }
        assert_eq!(HookEvent::PreToolUse.name(), "PreToolUse");
        assert_eq!(
            HookEvent::UserPromptSubmit.subcommand(),
            "user-prompt-submit"
        );
        assert_eq!(HookEvent::from_name("SessionEnd"), None);
        assert_eq!(HookEvent::from_subcommand("stop"), Some(HookEvent::Stop));
        assert_eq!(HookEvent::from_subcommand("SessionStart"), None);
    }

    /// The code of every other file under `src/` (tests and comments aside, as the layer check
    /// reads it) holds no event name or subcommand as a string literal.
    #[test]
    fn no_other_module_spells_an_event_out() {
        let quoted: Vec<String> = NAMES
            .iter()
            .flat_map(|r| [format!("\"{}\"", r.1), format!("\"{}\"", r.2)])
            .collect();
        let mut found = Vec::new();
        let mut files = 0;
        for (p, _) in crate::layers::source_files() {
            // opposites.rs is a list of English word pairs (`("start", "stop")`), not events.
            if p.ends_with("src/events.rs") || p.ends_with("src/recall/opposites.rs") {
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&p).unwrap();
            for (n, line) in crate::layers::code_lines(&text) {
                if quoted.iter().any(|q| line.contains(q.as_str())) {
                    let rel = p.strip_prefix(crate::layers::src_dir()).unwrap().display();
                    found.push(format!("src/{rel}:{n}: {}", line.trim()));
                }
            }
        }
        assert!(
            files > 20,
            "only {files} files read under {}",
            crate::layers::src_dir().display()
        );
        assert!(
            found.is_empty(),
            "use HookEvent instead:\n{}",
            found.join("\n")
        );
    }
}
