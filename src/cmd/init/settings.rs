//! The host settings part of `capn init` (split from init.rs, which had grown past 800 lines):
//! merging each host's hook table into its settings files, the Claude Code status line and
//! allow rules, and the files capn owns whole (Copilot CLI's hooks, OpenCode's plugin).

use crate::hosts::Host;
use crate::install::more_hosts::{self, OwnFile, OwnPlan};
use crate::install::project::{
    user_settings, CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS, CODEX_HOOKS, GEMINI_SETTINGS,
    QWEN_SETTINGS,
};
use crate::install::record::{InstallRecord, RecordedReplaced, RecordedStatusline};
use crate::install::{self, SettingsFile};
use anyhow::Result;
use std::path::Path;

/// The settings files the hook tables are merged into (see [`merge_hooks`]).
pub(super) struct Targets<'a> {
    pub(super) claude: &'a mut SettingsFile,
    pub(super) claude_local: &'a mut SettingsFile,
    pub(super) codex: &'a mut SettingsFile,
    pub(super) gemini: &'a mut SettingsFile,
    pub(super) qwen: &'a mut SettingsFile,
}

/// Merges the hook tables of the `selected` hosts into their settings files (in memory) and
/// records what was added and what older registrations were replaced.
pub(super) fn merge_hooks(
    root: &Path,
    selected: &[Host],
    t: Targets<'_>,
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<()> {
    let from_plugin = claude_from_plugin(t.claude, t.claude_local, user);
    let gemini_user = user_settings(crate::hosts::GEMINI.user_file);
    let qwen_user = user_settings(crate::hosts::QWEN.user_file);
    let mut hosts = Vec::new();
    if selected.contains(&Host::Claude) && from_plugin {
        done.push(format!(
            "Claude Code hooks: the capn plugin ({}) registers them; not added to {CLAUDE_SETTINGS}",
            install::PLUGIN_ID
        ));
    } else if selected.contains(&Host::Claude) {
        let others = vec![t.claude_local];
        hosts.push((
            crate::hosts::CLAUDE_TABLE,
            t.claude,
            others,
            &user.claude,
            CLAUDE_SETTINGS,
        ));
    }
    if selected.contains(&Host::Codex) {
        hosts.push((
            crate::hosts::CODEX_TABLE,
            t.codex,
            vec![],
            &user.codex,
            CODEX_HOOKS,
        ));
    }
    if selected.contains(&Host::Gemini) {
        hosts.push((
            crate::hosts::GEMINI_TABLE,
            t.gemini,
            vec![],
            &gemini_user,
            GEMINI_SETTINGS,
        ));
    }
    if selected.contains(&Host::Qwen) {
        hosts.push((
            crate::hosts::QWEN_TABLE,
            t.qwen,
            vec![],
            &qwen_user,
            QWEN_SETTINGS,
        ));
    }
    for (table, target, others, user, label) in hosts {
        let mut others = others;
        let user: Vec<&SettingsFile> = user.iter().collect();
        let report = install::merge_counting(table, target, &mut others, &user)?;
        record_merge(root, label, &report, rec, done);
    }
    Ok(())
}

/// True when capn's Claude Code plugin is enabled in the project, local or user settings.
pub(super) fn claude_from_plugin(
    claude: &SettingsFile,
    local: &SettingsFile,
    user: &UserFiles,
) -> bool {
    let mut all = vec![&claude.json, &local.json];
    all.extend(user.claude.as_ref().map(|u| &u.json));
    install::plugin_enabled(&all)
}

/// Makes ours the statusline (in memory) and records what it was.
pub(super) fn merge_statusline(
    claude: &mut SettingsFile,
    claude_local: &mut SettingsFile,
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    let user_statusline = user
        .claude
        .as_ref()
        .and_then(|f| install::statusline_command(&f.json))
        .map(str::to_string);
    let statuslines_before = [
        install::statusline_value(&claude.json).cloned(),
        install::statusline_value(&claude_local.json).cloned(),
    ];
    match install::merge_statusline(claude, claude_local, user_statusline.as_deref()) {
        install::StatuslineChange::AlreadyOurs => {}
        install::StatuslineChange::Added => {
            done.push("set the statusline to capn statusline in .claude/settings.json".into())
        }
        install::StatuslineChange::Wrapped(orig) => done.push(format!(
            "set the statusline to capn statusline, wrapping your {} (capn uninstall restores it)",
            crate::present::quote(&orig, crate::present::MAX_QUESTION_CHARS)
        )),
    }
    for ((f, label), before) in [
        (&*claude, CLAUDE_SETTINGS),
        (&*claude_local, CLAUDE_LOCAL_SETTINGS),
    ]
    .into_iter()
    .zip(statuslines_before)
    {
        let after = install::statusline_value(&f.json);
        if let Some(after) = after.filter(|a| Some(*a) != before.as_ref()) {
            rec.set_statusline(RecordedStatusline {
                file: label.to_string(),
                before,
                after: after.clone(),
            });
        }
    }
}

/// Adds the allow rules for `capn ask` and `capn chart` ([`install::allow`]) to
/// `.claude/settings.json` (in memory) unless the local or user settings hold them, and records
/// them.
pub(super) fn merge_allow(
    claude: &mut SettingsFile,
    claude_local: &SettingsFile,
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    let mut elsewhere = vec![&claude_local.json];
    elsewhere.extend(user.claude.as_ref().map(|u| &u.json));
    let had = install::allow::has_allow_key(&claude.json);
    let added = install::allow::add(claude, &elsewhere);
    if !had && !added.is_empty() && !rec.allow_made.iter().any(|f| f == CLAUDE_SETTINGS) {
        rec.allow_made.push(CLAUDE_SETTINGS.to_string());
    }
    for rule in added {
        rec.add_allow(CLAUDE_SETTINGS, rule);
        done.push(format!(
            "allowed {rule} in {CLAUDE_SETTINGS} (permissions.allow: no prompt when the agent runs it)"
        ));
    }
}

/// Creates a file capn owns whole per `plan`, recorded first (so `uninstall` deletes it);
/// returns what to report.
///
/// Errors: the record or the file cannot be written.
pub(super) fn own_file_step(
    root: &Path,
    file: &OwnFile,
    plan: &OwnPlan,
    rec: &mut InstallRecord,
    unsigned: &mut Option<String>,
) -> Result<Option<String>> {
    let spec = crate::hosts::of(file.host);
    Ok(match plan {
        OwnPlan::Present => None,
        OwnPlan::Differs => Some(format!(
            "left {} as it is: it differs from what capn writes (delete it and run capn init --host {} again to replace it)",
            file.rel,
            file.host.flag()
        )),
        OwnPlan::Create => {
            rec.add_created_file(file.rel);
            *unsigned = rec.save(root)?;
            more_hosts::write_own(root, file, plan)?;
            Some(format!(
                "registered the {} hooks in {} ({})",
                spec.name, file.rel, spec.limits
            ))
        }
    })
}

/// The user-level settings files, read once per run: `~/.claude/settings.json` and
/// `~/.codex/hooks.json` (each `None` when missing, unreadable or unparseable).
pub(super) struct UserFiles {
    pub(super) claude: Option<SettingsFile>,
    pub(super) codex: Option<SettingsFile>,
}

/// Reports and records what merging one host's table into `label` did: the older registrations
/// replaced (recorded so `uninstall` puts them back), the matchers upgraded, the handlers added
/// (and, for a host beyond Claude Code and Codex, what it cannot carry).
fn record_merge(
    root: &Path,
    label: &str,
    report: &install::MergeReport,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    for r in &report.replaced {
        let file = crate::store::display_rel(root, &r.path);
        done.push(format!(
            "replaced the capn-hook {} registration {} of {} in {file} (capn uninstall puts it back)",
            install::legacy_version(&r.handler),
            crate::present::quote(
                &crate::install::command_line(&r.handler),
                crate::present::MAX_QUESTION_CHARS
            ),
            r.event
        ));
        rec.add_replaced(RecordedReplaced {
            file,
            event: r.event.clone(),
            matcher: r.matcher.clone(),
            handler: r.handler.clone(),
            position: Some(r.position),
        });
    }
    for (path, _) in &report.upgraded {
        done.push(format!(
            "registered the SessionStart hook for every source in {} (the matcher {:?} left out forked sessions)",
            crate::store::display_rel(root, path),
            install::OLD_SESSION_START_MATCHER
        ));
    }
    for path in &report.tools_upgraded {
        done.push(format!(
            "the tool hook in {} now also runs on file reads (learning from use: a missed ask's words are learned for the chart whose files the agent reads)",
            crate::store::display_rel(root, path)
        ));
    }
    for event in &report.added {
        done.push(format!("registered the {event} hook in {label}"));
    }
    let spec = crate::hosts::of(crate::install::project::host_of_file(label));
    if !report.added.is_empty() && !matches!(spec.host, Host::Claude | Host::Codex) {
        done.push(format!("{}: {}", spec.name, spec.limits));
    }
    for (event, handler) in &report.handlers {
        rec.add_handler(label, event, handler);
    }
}
