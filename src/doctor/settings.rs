//! Doctor check 3: settings files.

use super::*;

pub(super) use crate::hosts::{HostSpec, CLAUDE};

/// A settings file as doctor read it.
pub(super) struct Loaded {
    pub(super) rel: &'static str,
    /// `None` when it does not parse (reported already).
    pub(super) file: Option<SettingsFile>,
}

impl Loaded {
    pub(super) fn json(&self) -> Option<&Map<String, Value>> {
        self.file.as_ref().filter(|f| f.existed()).map(|f| &f.json)
    }
}

/// Loads the settings files of the hosts in `specs` that merge capn's handlers into their
/// settings (not [`HostSpec::whole_file`]): the project's and the user-level ones
/// (`~/.claude/settings.json`, `~/.codex/hooks.json`, ..., which the hosts merge in), reporting
/// each existing file.
pub(super) fn load_settings(
    root: &Path,
    specs: &[&HostSpec],
    checks: &mut Vec<Check>,
) -> Vec<Loaded> {
    let home = crate::env::home_dir();
    let mut out = Vec::new();
    for spec in specs.iter().filter(|s| !s.whole_file) {
        let user = home
            .as_ref()
            .map(|h| (spec.user_label, h.join(spec.user_file)));
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
                    if f.existed() {
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
