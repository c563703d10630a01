//! Doctor check: capn's Claude Code plugin ([`crate::install::PLUGIN_ID`]) enabled in the
//! settings. Its `hooks/hooks.json` registers the hooks and ships the `/capn:compact-prep`
//! skill, so the settings' registrations and the project skill are not expected then (doctor
//! cannot run hooks Claude Code loads from its plugin cache); the status line still comes from
//! the settings and is checked as usual.

use super::{Check, Loaded};

/// True (and an ok line) when the plugin is enabled in any settings file read.
pub(super) fn claude_hooks_from_plugin(files: &[Loaded], checks: &mut Vec<Check>) -> bool {
    let jsons: Vec<_> = files.iter().filter_map(Loaded::json).collect();
    if !crate::install::plugin_enabled(&jsons) {
        return false;
    }
    checks.push(Check::ok(format!(
        "Claude hooks and the /capn:compact-prep skill come from the capn plugin ({} in \
         enabledPlugins); not registered in the settings, so they run once",
        crate::install::PLUGIN_ID
    )));
    true
}
