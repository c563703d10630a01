//! Doctor check: the Claude Code allow rules for capn's read-and-chart commands
//! ([`crate::install::allow`]). Without them Claude Code's default permission mode asks the user
//! before every `capn ask` and `capn chart` the contract has the agent run.

use super::{Check, Loaded};
use crate::hosts::HostSpec;
use crate::install::allow::{blocking, present, Blocked, CLAUDE_ALLOW};

/// Adds one check for `spec` (a host with [`HostSpec::allow_rules`], Claude Code): ok when every
/// rule of [`CLAUDE_ALLOW`] is in one of its settings files that counts (project, local or
/// user), a warning naming the missing ones otherwise.
pub(super) fn check(spec: &HostSpec, files: &[Loaded], checks: &mut Vec<Check>) {
    let what = format!("{} allow rules for capn ask and capn chart", spec.label);
    let mut held: Vec<&str> = Vec::new();
    let mut where_: Vec<&str> = Vec::new();
    let mut parsed = Vec::new();
    for f in files {
        if !spec.owns(f.rel) {
            continue;
        }
        let Some(json) = f.json() else { continue };
        parsed.push((f.rel, json));
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
    // A rule the user's deny or ask rule covers is one init leaves out on purpose: running
    // init again would not add it, so the fix is the user's rule, named.
    let blocked: Vec<Blocked> = missing
        .iter()
        .filter_map(|r| blocking(r, &parsed))
        .collect();
    if !blocked.is_empty() {
        checks.push(blocked_warning(what, spec, &blocked));
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

/// The warning for the rules of [`CLAUDE_ALLOW`] that a user's deny or ask rule keeps out: what
/// the agent then meets, and each user rule (quoted, as data) with its list and file as the fix.
fn blocked_warning(what: String, spec: &HostSpec, blocked: &[Blocked]) -> Check {
    let quoted = |b: &Blocked| crate::present::quote(&b.by, crate::present::MAX_QUESTION_CHARS);
    let why: Vec<String> = blocked
        .iter()
        .map(|b| {
            let effect = match b.list {
                "deny" => format!("the agent cannot run {}", b.command()),
                _ => format!("{} asks before each {}", spec.name, b.command()),
            };
            format!(
                "{} in permissions.{} of {} covers {} ({effect})",
                quoted(b),
                b.list,
                b.file,
                b.rule
            )
        })
        .collect();
    let fix: Vec<String> = blocked
        .iter()
        .map(|b| {
            format!(
                "remove {} from permissions.{} in {}",
                quoted(b),
                b.list,
                b.file
            )
        })
        .collect();
    Check::warn(
        what,
        format!(
            "{}; {} checks deny and ask before allow",
            why.join("; "),
            spec.name
        ),
        Some(format!(
            "{} if the agent should run capn ask and capn chart without a prompt",
            fix.join(" and ")
        )),
    )
}
