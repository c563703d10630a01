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

/// The settings files of the hosts in `specs` among `read` (every host's, read once:
/// [`super::hosts::read_settings`]; a [`HostSpec::whole_file`] host has none there): the
/// project's and the user-level ones (`~/.claude/settings.json`, `~/.codex/hooks.json`, ...,
/// which the hosts merge in), reporting each existing file, and each that does not load.
pub(super) fn load_settings(
    read: Vec<super::hosts::SettingsRead>,
    specs: &[&HostSpec],
    checks: &mut Vec<Check>,
) -> Vec<Loaded> {
    let mut out = Vec::new();
    for r in read {
        if !specs.iter().any(|s| s.host == r.spec.host) {
            continue;
        }
        let rel = r.rel;
        match r.loaded {
            Ok(f) => {
                if f.existed() {
                    checks.push(Check::ok(format!("{rel} parses")));
                }
                out.push(Loaded { rel, file: Some(f) });
            }
            Err(e) => {
                let then = if rel.starts_with('~') {
                    String::new()
                } else {
                    ", then run capn init".to_string()
                };
                checks.push(Check::failed(
                    rel.to_string(),
                    format!("{e:#}"),
                    format!(
                        "fix the JSON of {} by hand (capn never rewrites a file that does not parse){then}",
                        r.path.display()
                    ),
                ));
                out.push(Loaded { rel, file: None });
            }
        }
    }
    out
}
