//! The hosts capn installs into, one table each: the project settings files `init` edits, the
//! user-level file the host merges in too (read, never written), and what `init` registers
//! (`hooks-config/<host>.json`). `init`, `uninstall` and `doctor` take their paths from here.
//! Sources: hooks reference, sections 1.1 (Claude Code settings files) and 5 (Codex hooks.json).

use crate::hook::Host;

/// One host's files and registrations.
#[derive(Debug)]
pub struct HostSpec {
    /// The host.
    pub host: Host,
    /// Its name in messages (`Claude`, `Codex`).
    pub label: &'static str,
    /// The project files `capn init` writes, relative to the project root.
    pub files: &'static [&'static str],
    /// The user-level file the host merges in, relative to the home dir.
    pub user_file: &'static str,
    /// [`HostSpec::user_file`] as messages show it (`~/...`).
    pub user_label: &'static str,
    /// What `capn init` registers: the JSON of `hooks-config/<host>.json`.
    pub table: &'static str,
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

/// Claude Code: `.claude/settings.json`, `.claude/settings.local.json`, `~/.claude/settings.json`.
pub const CLAUDE: HostSpec = HostSpec {
    host: Host::Claude,
    label: "Claude",
    files: &[".claude/settings.json", ".claude/settings.local.json"],
    user_file: ".claude/settings.json",
    user_label: "~/.claude/settings.json",
    table: super::CLAUDE_TABLE,
};

/// Codex: `.codex/hooks.json` and `~/.codex/hooks.json`.
pub const CODEX: HostSpec = HostSpec {
    host: Host::Codex,
    label: "Codex",
    files: &[".codex/hooks.json"],
    user_file: ".codex/hooks.json",
    user_label: "~/.codex/hooks.json",
    table: super::CODEX_TABLE,
};

/// Both hosts, Claude Code first.
pub const HOSTS: [&HostSpec; 2] = [&CLAUDE, &CODEX];
