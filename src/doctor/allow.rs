//! Doctor check: the Claude Code allow rules for capn's read-and-chart commands
//! ([`crate::install::allow`]). Without them Claude Code's default permission mode asks the user
//! before every `capn ask` and `capn chart` the contract has the agent run.

use super::{Check, Loaded};
use crate::hosts::HostSpec;
use crate::install::allow::{all_blocking, present, unfit_allow, Blocked, CLAUDE_ALLOW};

/// Adds one check for `spec` (a host with [`HostSpec::allow_rules`], Claude Code): a warning
/// naming every deny or ask rule of the user's that covers `capn ask` or `capn chart` (in any
/// settings file that counts: project, local or user; such a rule decides before any allow);
/// else ok when every rule of [`CLAUDE_ALLOW`] is in one of those files, a warning naming the
/// missing ones otherwise, and, where a file's `permissions` is of another type than init can
/// add to ([`unfit_allow`]), that file and key as the reason.
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
    // A deny or ask rule of the user's that covers a command decides before any allow, held
    // or missing: init leaves that allow out on purpose, so the fix is the user's rule, named.
    let blocked: Vec<Blocked> = CLAUDE_ALLOW
        .into_iter()
        .flat_map(|r| all_blocking(r, &parsed))
        .collect();
    if !blocked.is_empty() {
        checks.push(blocked_warning(what, spec, &blocked));
        return;
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
    let mut why = format!(
        "no {} in permissions.allow: {} asks before each such command the agent runs",
        missing.join(" or "),
        spec.name
    );
    let unfit: Vec<_> = parsed
        .iter()
        .filter_map(|(rel, json)| Some((*rel, unfit_allow(json)?)))
        .collect();
    let fix = if unfit.is_empty() {
        format!(
            "capn init (adds {} to {})",
            CLAUDE_ALLOW.join(" and "),
            spec.files[0]
        )
    } else {
        let said: Vec<String> = unfit
            .iter()
            .map(|(rel, u)| format!("in {rel}, {}", u.phrase()))
            .collect();
        why.push_str(&format!(
            "; capn init adds no rule to what it cannot read: {}",
            said.join("; ")
        ));
        let edits: Vec<String> = unfit
            .iter()
            .map(|(rel, u)| format!("make \"{}\" in {rel} {}", u.key, u.want))
            .collect();
        format!("{}, then run capn init", edits.join(" and "))
    };
    checks.push(Check::warn(what, why, Some(fix)));
}

/// The warning for the rules of [`CLAUDE_ALLOW`] that a user's deny or ask rule keeps out: each
/// user rule once (quoted, as data) with its list, its file, the commands it covers and what the
/// agent then meets, and removing it as the fix.
fn blocked_warning(what: String, spec: &HostSpec, blocked: &[Blocked]) -> Check {
    // The user's rules in the order found, each with the commands it covers.
    let mut rules: Vec<(&Blocked, Vec<&str>)> = Vec::new();
    for b in blocked {
        match rules
            .iter_mut()
            .find(|(o, _)| (&o.by, o.list, o.file) == (&b.by, b.list, b.file))
        {
            Some((_, cmds)) => cmds.push(b.command()),
            None => rules.push((b, vec![b.command()])),
        }
    }
    let quoted = |b: &Blocked| crate::present::quote(&b.by, crate::present::MAX_QUESTION_CHARS);
    let why: Vec<String> = rules
        .iter()
        .map(|(b, cmds)| {
            let cmds = cmds.join(" and ");
            let effect = match b.list {
                "deny" => format!("the agent cannot run {cmds}"),
                _ => format!("{} asks before each {cmds}", spec.name),
            };
            format!(
                "{} in permissions.{} of {}: {effect}",
                quoted(b),
                b.list,
                b.file
            )
        })
        .collect();
    let fix: Vec<String> = rules
        .iter()
        .map(|(b, _)| {
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
