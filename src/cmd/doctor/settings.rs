//! Doctor check 3: settings files.

use super::*;

/// One host's settings files and what `capn init` registers there.
pub(super) struct HostSpec {
    pub(super) host: Host,
    pub(super) label: &'static str,
    /// The project files `capn init` writes (relative to the root).
    pub(super) files: &'static [&'static str],
    /// The user-level file the host merges in too (`~/` is the home dir); read, never written.
    pub(super) user_file: &'static str,
    pub(super) table: &'static str,
}

impl HostSpec {
    /// True when `rel` is one of this host's files (project or user level).
    pub(super) fn owns(&self, rel: &str) -> bool {
        self.files.contains(&rel) || self.user_file == rel
    }

    /// Every file of the host, for messages: `a, b or c`.
    pub(super) fn all_files(&self) -> String {
        let mut all: Vec<&str> = self.files.to_vec();
        all.push(self.user_file);
        let last = all.pop().unwrap_or_default();
        if all.is_empty() {
            last.to_string()
        } else {
            format!("{} or {last}", all.join(", "))
        }
    }
}

pub(super) const CLAUDE: HostSpec = HostSpec {
    host: Host::Claude,
    label: "Claude",
    files: &[".claude/settings.json", ".claude/settings.local.json"],
    user_file: "~/.claude/settings.json",
    table: install::CLAUDE_TABLE,
};

pub(super) const CODEX: HostSpec = HostSpec {
    host: Host::Codex,
    label: "Codex",
    files: &[".codex/hooks.json"],
    user_file: "~/.codex/hooks.json",
    table: install::CODEX_TABLE,
};

/// A settings file as doctor read it.
pub(super) struct Loaded {
    pub(super) rel: &'static str,
    /// `None` when it does not parse (reported already).
    pub(super) file: Option<SettingsFile>,
}

impl Loaded {
    pub(super) fn json(&self) -> Option<&Map<String, Value>> {
        self.file.as_ref().filter(|f| f.existed).map(|f| &f.json)
    }
}

/// Loads the project's settings files and the user-level ones (`~/.claude/settings.json`,
/// `~/.codex/hooks.json`, which the hosts merge in), reporting each existing file.
pub(super) fn load_settings(root: &Path, checks: &mut Vec<Check>) -> Vec<Loaded> {
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let mut out = Vec::new();
    for spec in [&CLAUDE, &CODEX] {
        let user = home
            .as_ref()
            .map(|h| (spec.user_file, h.join(&spec.user_file["~/".len()..])));
        let project = spec.files.iter().map(|rel| (*rel, root.join(rel)));
        for (rel, path) in project.chain(user) {
            let user_level = rel.starts_with('~');
            let loaded = if user_level {
                SettingsFile::load_user(&path)
            } else {
                SettingsFile::load(&path)
            };
            match loaded {
                Ok(f) => {
                    if f.existed {
                        checks.push(Check::ok(format!("{rel} parses")));
                    }
                    out.push(Loaded { rel, file: Some(f) });
                }
                Err(e) => {
                    let then = if user_level {
                        String::new()
                    } else {
                        ", then run capn init".to_string()
                    };
                    checks.push(Check::failed(
                        rel.to_string(),
                        format!("{e:#}"),
                        format!(
                            "fix the JSON of {} by hand (capn never rewrites a file that does not parse){then}",
                            path.display()
                        ),
                    ));
                    out.push(Loaded { rel, file: None });
                }
            }
        }
    }
    out
}
