//! Doctor check: the Claude Code allow rules for capn's read-and-chart commands
//! ([`crate::install::allow`]). Without them Claude Code's default permission mode asks the user
//! before every `capn ask` and `capn chart` the contract has the agent run.

use super::{Check, Loaded};
use crate::hosts::HostSpec;
use crate::install::allow::{present, CLAUDE_ALLOW};

/// Adds one check for `spec` (a host with [`HostSpec::allow_rules`], Claude Code): ok when every
/// rule of [`CLAUDE_ALLOW`] is in one of its settings files that counts (project, local or
/// user), a warning naming the missing ones otherwise.
pub(super) fn check(spec: &HostSpec, files: &[Loaded], checks: &mut Vec<Check>) {
    let what = format!("{} allow rules for capn ask and capn chart", spec.label);
    let mut held: Vec<&str> = Vec::new();
    let mut where_: Vec<&str> = Vec::new();
    for f in files {
        if !spec.owns(f.rel) {
            continue;
        }
        let Some(json) = f.json() else { continue };
        let found = present(json);
        if !found.is_empty() {
            where_.push(f.rel);
        }
        held.extend(found);
    }
    let missing: Vec<&str> = CLAUDE_ALLOW
        .into_iter()
        .filter(|r| !held.contains(r))
        .collect();
    if missing.is_empty() {
        checks.push(Check::ok(format!(
            "{what} (permissions.allow in {})",
            where_.join(", ")
        )));
        return;
    }
    checks.push(Check::warn(
        what,
        format!(
            "no {} in permissions.allow: {} asks before each such command the agent runs",
            missing.join(" or "),
            spec.name
        ),
        Some(format!(
            "capn init (adds {} to {})",
            CLAUDE_ALLOW.join(" and "),
            spec.files[0]
        )),
    ));
}
