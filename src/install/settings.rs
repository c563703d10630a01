//! The host settings part of `capn init`: merging each host's hook table into its settings
//! files, the status line and allow rules of a host that takes them (its spec says:
//! [`HostSpec::context`], [`HostSpec::allow_rules`]), and the files capn owns whole (Copilot
//! CLI's hooks, OpenCode's plugin). Each edit is made in memory ([`super::plan`]) and recorded
//! in the install record before [`super::apply`] writes it. Every host is handled as its spec
//! says; none is named here.

use super::more_hosts::{self, OwnFile, OwnPlan};
use super::project::{user_settings, PROJECT_SETTINGS};
use super::record::{InstallRecord, RecordedReplaced, RecordedStatusline};
use super::SettingsFile;
use crate::hosts::{self, Host, HostSpec};
use anyhow::Result;
use serde_json::{Map, Value};
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
    for spec in hosts::ALL.iter().filter(|s| selected.contains(&s.host)) {
        let Some(label) = files.iter().find(|f| f.host == spec.host).map(|f| f.rel) else {
            continue;
        };
        if from_plugin(spec, files, user) {
            done.push(format!(
                "{} hooks: the capn plugin ({}) registers them; not added to {label}",
                spec.name,
                super::PLUGIN_ID
            ));
            continue;
        }
        let mut mine = files_of(files, spec.host);
        let Some((target, others)) = mine.split_first_mut() else {
            continue;
        };
        let user: Vec<&SettingsFile> = user.of(spec.host).into_iter().collect();
        let report = super::merge_counting(spec.table, target, others, &user)?;
        record_merge(root, label, &report, rec, done);
    }
    Ok(())
}

/// True when `spec`'s hooks come from capn's plugin for it ([`HostSpec::plugin`]): the plugin
/// is enabled in one of its project files among `files` or in its user file.
pub(crate) fn from_plugin(spec: &HostSpec, files: &[HostFile], user: &UserFiles) -> bool {
    if !spec.plugin {
        return false;
    }
    let mut all: Vec<&Map<String, Value>> = files
        .iter()
        .filter(|f| f.host == spec.host)
        .map(|f| &f.file.json)
        .collect();
    all.extend(user.of(spec.host).map(|u| &u.json));
    super::plugin_enabled(&all)
}

/// The host settings a feature of `spec` edits: its project files among `files` (the one `init`
/// writes first: [`files_of`]) each with its label, and the user file that counts too (read
/// only) with its label.
type HostFiles<'a> = (
    Vec<(&'static str, &'a mut SettingsFile)>,
    Option<(&'static str, &'a SettingsFile)>,
);

/// `spec`'s files among `files` and in `user`, as [`HostFiles`] says.
fn host_files<'a>(
    spec: &HostSpec,
    files: &'a mut [HostFile],
    user: &'a UserFiles,
) -> HostFiles<'a> {
    let mine = files
        .iter_mut()
        .filter(|f| f.host == spec.host)
        .map(|f| (f.rel, &mut f.file))
        .collect();
    (mine, user.of(spec.host).map(|u| (spec.user_label, u)))
}

/// Makes ours the statusline of `spec` (a host whose context use comes from it:
/// [`HostSpec::context`]) in memory, in its project file or in the second one that overrides it
/// (Claude Code's local settings) when that one sets the statusline, and records what it was.
///
/// Errors: none in practice (the empty placeholder for a host without a second file is made in
/// memory).
pub(crate) fn merge_statusline(
    spec: &HostSpec,
    files: &mut [HostFile],
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) -> Result<()> {
    let (mut mine, user) = host_files(spec, files, user);
    let user_statusline = user
        .and_then(|(_, f)| super::statusline_command(&f.json))
        .map(str::to_string);
    let statuslines_before: Vec<Option<Value>> = mine
        .iter()
        .map(|(_, f)| super::statusline_value(&f.json).cloned())
        .collect();
    let mut none = SettingsFile::from_bytes(Path::new(""), None)?;
    let change = match mine.as_mut_slice() {
        [] => return Ok(()),
        [(_, project)] => super::merge_statusline(project, &mut none, user_statusline.as_deref()),
        [(_, project), (_, local), ..] => {
            super::merge_statusline(project, local, user_statusline.as_deref())
        }
    };
    match change {
        super::StatuslineChange::AlreadyOurs => {}
        super::StatuslineChange::Added => done.push(format!(
            "set the statusline to capn statusline in {}",
            mine[0].0
        )),
        super::StatuslineChange::Wrapped(orig) => done.push(format!(
            "set the statusline to capn statusline, wrapping your {} (capn uninstall restores it)",
            crate::present::quote(&orig, crate::present::MAX_QUESTION_CHARS)
        )),
    }
    for ((label, f), before) in mine.into_iter().take(2).zip(statuslines_before) {
        let after = super::statusline_value(&f.json);
        if let Some(after) = after.filter(|a| Some(*a) != before.as_ref()) {
            rec.set_statusline(RecordedStatusline {
                file: label.to_string(),
                before,
                after: after.clone(),
            });
        }
    }
    Ok(())
}

/// Adds the allow rules for `capn ask` and `capn chart` ([`super::allow`]) to the project file
/// of `spec` (a host that takes them: [`HostSpec::allow_rules`]) in memory unless its other
/// project files or its user file hold them, and records them. One that a deny or ask rule in
/// any of those files covers is not added: the report names that rule and its file instead
/// (Claude Code checks deny and ask before allow). Nor are they added to a `permissions` of
/// another type, which stays as it is: the report names the file and the key.
pub(crate) fn merge_allow(
    spec: &HostSpec,
    files: &mut [HostFile],
    user: &UserFiles,
    rec: &mut InstallRecord,
    done: &mut Vec<String>,
) {
    let (mut mine, user) = host_files(spec, files, user);
    let Some(((label, target), others)) = mine.split_first_mut() else {
        return;
    };
    let label = *label;
    let mut elsewhere: Vec<(&'static str, &Map<String, Value>)> =
        others.iter().map(|(l, f)| (*l, &f.json)).collect();
    elsewhere.extend(user.map(|(l, u)| (l, &u.json)));
    let had = super::allow::has_allow_key(&target.json);
    let outcome = super::allow::add(target, label, &elsewhere);
    done.extend(outcome.unfit_report(label));
    let added = outcome.added;
    if !had && !added.is_empty() && !rec.allow_made.iter().any(|f| f == label) {
        rec.allow_made.push(label.to_string());
    }
    for rule in added {
        rec.add_allow(label, rule);
        done.push(format!(
            "allowed {rule} in {label} (permissions.allow: no prompt when the agent runs it)"
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
