//! The host settings part of `capn init`: merging each host's hook table into its settings
//! files, the Claude Code status line and allow rules, and the files capn owns whole (Copilot
//! CLI's hooks, OpenCode's plugin). Each edit is made in memory ([`super::plan`]) and recorded
//! in the install record before [`super::apply`] writes it.

use super::more_hosts::{self, OwnFile, OwnPlan};
use super::project::{user_settings, CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS, PROJECT_SETTINGS};
use super::record::{InstallRecord, RecordedReplaced, RecordedStatusline};
use super::SettingsFile;
use crate::hosts::{self, Host};
use anyhow::Result;
use std::path::Path;

/// One project settings file `init` merges capn's handlers into (one of [`PROJECT_SETTINGS`]),
/// as planned: read (or a placeholder for a host not set up), then edited in memory.
pub(crate) struct HostFile {
    /// Whose file it is.
    pub host: Host,
    /// Its path relative to the project root.
    pub rel: &'static str,
    /// Its text and JSON, with this run's edits.
    pub file: SettingsFile,
    /// The install record named nothing in it before this run.
    pub fresh: bool,
}

/// Every file of [`PROJECT_SETTINGS`] under `root`, in that order: parsed for the `selected`
/// hosts (a broken one means nothing is written at all), an unchanged placeholder for another
/// host's (not even read).
///
/// Errors: a selected host's file cannot be read or parsed ([`SettingsFile::load`]).
pub(crate) fn load_host_files(root: &Path, selected: &[Host]) -> Result<Vec<HostFile>> {
    PROJECT_SETTINGS
        .iter()
        .map(|&rel| {
            let host = super::project::host_of_file(rel);
            let file = if selected.contains(&host) {
                SettingsFile::load(&root.join(rel))?
            } else {
                SettingsFile::from_bytes(&root.join(rel), None)?
            };
            Ok(HostFile {
                host,
                rel,
                file,
                fresh: true,
            })
        })
        .collect()
}

/// The settings files of `host` among `files`, in order (the first is the one `init` writes).
pub(crate) fn files_of(files: &mut [HostFile], host: Host) -> Vec<&mut SettingsFile> {
    files
        .iter_mut()
        .filter(|f| f.host == host)
        .map(|f| &mut f.file)
        .collect()
}

/// Claude Code's two project files among `files` (the project's and the local one).
pub(crate) fn claude_files(files: &mut [HostFile]) -> (&mut SettingsFile, &mut SettingsFile) {
    let mut it = files.iter_mut().filter(|f| f.host == Host::Claude);
    match (it.next(), it.next()) {
        (Some(a), Some(b)) => (&mut a.file, &mut b.file),
        _ => unreachable!("PROJECT_SETTINGS holds Claude Code's two files"),
    }
}

/// Merges the hook tables of the `selected` hosts ([`hosts::ALL`]' `table`) into the
/// first of their settings files (in memory), the others only having older registrations
/// replaced, and records what was added and what older registrations were replaced. A host
/// whose only file is capn's own ([`more_hosts::OWN_FILES`]) has none here.
pub(crate) fn merge_hooks(
    root: &Path,
    selected: &[Host],
    files: &mut [HostFile],
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<()> {
    let (claude, local) = claude_files(files);
    let from_plugin = claude_from_plugin(claude, local, user);
    for spec in hosts::ALL.iter().filter(|s| selected.contains(&s.host)) {
        let Some(label) = files.iter().find(|f| f.host == spec.host).map(|f| f.rel) else {
            continue;
        };
        let mut mine = files_of(files, spec.host);
        let Some((target, others)) = mine.split_first_mut() else {
            continue;
        };
        if spec.host == Host::Claude && from_plugin {
            done.push(format!(
                "Claude Code hooks: the capn plugin ({}) registers them; not added to {CLAUDE_SETTINGS}",
                super::PLUGIN_ID
            ));
            continue;
        }
        let user: Vec<&SettingsFile> = user.of(spec.host).into_iter().collect();
        let report = super::merge_counting(spec.table, target, others, &user)?;
        record_merge(root, label, &report, rec, done);
    }
    Ok(())
}

/// True when capn's Claude Code plugin is enabled in the project, local or user settings.
pub(crate) fn claude_from_plugin(
    claude: &SettingsFile,
    local: &SettingsFile,
    user: &UserFiles,
) -> bool {
    let mut all = vec![&claude.json, &local.json];
    all.extend(user.of(Host::Claude).map(|u| &u.json));
    super::plugin_enabled(&all)
}

/// Makes ours the statusline (in memory) and records what it was.
pub(crate) fn merge_statusline(
    claude: &mut SettingsFile,
    claude_local: &mut SettingsFile,
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    let user_statusline = user
        .of(Host::Claude)
        .and_then(|f| super::statusline_command(&f.json))
        .map(str::to_string);
    let statuslines_before = [
        super::statusline_value(&claude.json).cloned(),
        super::statusline_value(&claude_local.json).cloned(),
    ];
    match super::merge_statusline(claude, claude_local, user_statusline.as_deref()) {
        super::StatuslineChange::AlreadyOurs => {}
        super::StatuslineChange::Added => {
            done.push("set the statusline to capn statusline in .claude/settings.json".into())
        }
        super::StatuslineChange::Wrapped(orig) => done.push(format!(
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
        let after = super::statusline_value(&f.json);
        if let Some(after) = after.filter(|a| Some(*a) != before.as_ref()) {
            rec.set_statusline(RecordedStatusline {
                file: label.to_string(),
                before,
                after: after.clone(),
            });
        }
    }
}

/// Adds the allow rules for `capn ask` and `capn chart` ([`super::allow`]) to
/// `.claude/settings.json` (in memory) unless the local or user settings hold them, and records
/// them. One that a deny or ask rule in any of the three files covers is not added: the report
/// names that rule and its file instead (Claude Code checks deny and ask before allow).
pub(crate) fn merge_allow(
    claude: &mut SettingsFile,
    claude_local: &SettingsFile,
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    let mut elsewhere = vec![(CLAUDE_LOCAL_SETTINGS, &claude_local.json)];
    elsewhere.extend(
        user.of(Host::Claude)
            .map(|u| (crate::hosts::CLAUDE.user_label, &u.json)),
    );
    let had = super::allow::has_allow_key(&claude.json);
    let outcome = super::allow::add(claude, CLAUDE_SETTINGS, &elsewhere);
    let added = outcome.added;
    if !had && !added.is_empty() && !rec.allow_made.iter().any(|f| f == CLAUDE_SETTINGS) {
        rec.allow_made.push(CLAUDE_SETTINGS.to_string());
    }
    for rule in added {
        rec.add_allow(CLAUDE_SETTINGS, rule);
        done.push(format!(
            "allowed {rule} in {CLAUDE_SETTINGS} (permissions.allow: no prompt when the agent runs it)"
        ));
    }
    done.extend(outcome.blocked.iter().map(super::allow::Blocked::report));
}

/// Creates a file capn owns whole per `plan`, recorded first (so `uninstall` deletes it);
/// returns what to report.
///
/// Errors: the record or the file cannot be written.
pub(crate) fn own_file_step(
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

/// The user-level settings files of the hosts with project settings files
/// ([`PROJECT_SETTINGS`]), read once per run (only read: `init` never writes them).
pub(crate) struct UserFiles(Vec<(Host, SettingsFile)>);

impl UserFiles {
    /// Reads each host's `user_file` under the home folder; one that is missing, unreadable or
    /// unparseable is left out ([`user_settings`]).
    pub(crate) fn load() -> UserFiles {
        let hosts = hosts::ALL
            .iter()
            .filter(|s| s.files.iter().any(|f| PROJECT_SETTINGS.contains(f)));
        UserFiles(
            hosts
                .filter_map(|s| Some((s.host, user_settings(s.user_file)?)))
                .collect(),
        )
    }

    /// The user-level settings file of `host`, if it was read.
    pub(crate) fn of(&self, host: Host) -> Option<&SettingsFile> {
        self.0.iter().find(|(h, _)| *h == host).map(|(_, f)| f)
    }
}

/// Reports and records what merging one host's table into `label` did: the older registrations
/// replaced (recorded so `uninstall` puts them back), the matchers upgraded, the handlers added
/// (and, for a host beyond Claude Code and Codex, what it cannot carry).
fn record_merge(
    root: &Path,
    label: &str,
    report: &super::MergeReport,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    for r in &report.replaced {
        let file = crate::store::display_rel(root, &r.path);
        done.push(format!(
            "replaced the capn-hook {} registration {} of {} in {file} (capn uninstall puts it back)",
            super::legacy_version(&r.handler),
            crate::present::quote(
                &super::command_line(&r.handler),
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
            super::OLD_SESSION_START_MATCHER
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
    let spec = crate::hosts::of(super::project::host_of_file(label));
    if !report.added.is_empty() && spec.setup != hosts::Setup::Always {
        done.push(format!("{}: {}", spec.name, spec.limits));
    }
    for (event, handler) in &report.handlers {
        rec.add_handler(label, event, handler);
    }
}
