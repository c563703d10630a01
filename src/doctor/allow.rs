//! Doctor check: the Claude Code allow rules for capn's read-and-chart commands
//! ([`crate::install::allow`]). Without them Claude Code's default permission mode asks the user
//! before every `capn ask` and `capn chart` the contract has the agent run.

use super::{Check, Loaded};
use crate::hosts::CLAUDE;
use crate::install::allow::{present, CLAUDE_ALLOW};

/// Adds one check: ok when every rule of [`CLAUDE_ALLOW`] is in a Claude Code settings file that
/// counts (project, local or user), a warning naming the missing ones otherwise.
pub(super) fn check(files: &[Loaded], checks: &mut Vec<Check>) {
    let what = "Claude allow rules for capn ask and capn chart";
    let mut held: Vec<&str> = Vec::new();
    let mut where_: Vec<&str> = Vec::new();
    for f in files {
        if !(CLAUDE.files.contains(&f.rel) || f.rel == CLAUDE.user_label) {
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
            "no {} in permissions.allow: Claude Code asks before each such command the agent runs",
            missing.join(" or ")
        ),
        Some(format!(
            "capn init (adds {} to {})",
            CLAUDE_ALLOW.join(" and "),
            CLAUDE.files[0]
        )),
    ));
}
