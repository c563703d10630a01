//! Doctor: which hosts it checks, and the check of a host file capn writes whole.
//!
//! Doctor checks the hosts set up in the project ([`set_up`]): those whose files the install
//! record names (what `capn init` registered, `.capn/install.json`) and those whose files hold a
//! capn registration (in the project or the user's file the host merges in; for a host whose
//! file capn writes whole, that file being there). A host never set up is not failed: one line
//! names the hosts checked and how to add one. With none found at all, it checks the hosts a
//! plain `capn init` sets up (Claude Code and Codex), which then fail with the fix.

use super::Check;
use crate::hosts::HostSpec;
use crate::install::{self, SettingsFile};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One settings file of a host that merges capn's handlers into its settings (not
/// [`HostSpec::whole_file`]), read once per doctor run ([`read_settings`]): which hosts are set
/// up and the checks of those hosts both look at this one read.
pub(super) struct SettingsRead {
    /// Whose file it is.
    pub(super) spec: &'static HostSpec,
    /// The file as messages name it: relative to the project (`.claude/settings.json`), or the
    /// user's (`~/.claude/settings.json`).
    pub(super) rel: &'static str,
    /// Where it is.
    pub(super) path: PathBuf,
    /// What loading it gave ([`SettingsFile::load`]; [`SettingsFile::load_user`] for the user's).
    pub(super) loaded: anyhow::Result<SettingsFile>,
}

/// Reads, once each, the settings files of every host of [`crate::hosts::ALL`] that merges
/// capn's handlers into its settings: its project files under `root`, then its user file (when
/// there is a home folder), in that order.
pub(super) fn read_settings(root: &Path) -> Vec<SettingsRead> {
    let home = crate::env::home_dir();
    let mut out = Vec::new();
    for spec in crate::hosts::ALL.into_iter().filter(|s| !s.whole_file) {
        let user = home
            .as_ref()
            .map(|h| (spec.user_label, h.join(spec.user_file)));
        let project = spec.files.iter().map(|rel| (*rel, root.join(rel)));
        for (rel, path) in project.chain(user) {
            let loaded = if rel.starts_with('~') {
                SettingsFile::load_user(&path)
            } else {
                SettingsFile::load(&path)
            };
            out.push(SettingsRead {
                spec,
                rel,
                path,
                loaded,
            });
        }
    }
    out
}

/// The hosts set up in the project at `root`, in [`crate::hosts::ALL`]'s order (never empty),
/// and the line that names them and the others. `read`: the hosts' settings files
/// ([`read_settings`]).
pub(super) fn set_up(root: &Path, read: &[SettingsRead]) -> (Vec<&'static HostSpec>, Check) {
    let recorded = recorded_files(root);
    let home = crate::env::home_dir();
    let found: Vec<&'static HostSpec> = crate::hosts::ALL
        .into_iter()
        .filter(|s| {
            s.files.iter().any(|f| recorded.iter().any(|r| r == f))
                || registered(s, root, home.as_deref(), read)
        })
        .collect();
    let (specs, how) = if found.is_empty() {
        let always: Vec<_> = crate::hosts::always().collect();
        (
            always,
            "none is set up here; these are the hosts capn init sets up",
        )
    } else {
        (
            found,
            "set up in this project: named in .capn/install.json or registered in their settings",
        )
    };
    let names = |v: &[&HostSpec]| v.iter().map(|s| s.name).collect::<Vec<_>>().join(", ");
    let others: Vec<&HostSpec> = crate::hosts::ALL
        .into_iter()
        .filter(|s| !specs.iter().any(|c| c.host == s.host))
        .collect();
    let mut line = format!("hosts checked: {} ({how})", names(&specs));
    if !others.is_empty() {
        let flags: Vec<&str> = others.iter().map(|s| s.flag).collect();
        line.push_str(&format!(
            "; not set up here, so not checked: {} (capn init --host <host> adds one: {})",
            names(&others),
            flags.join(", ")
        ));
    }
    (specs, Check::ok(line))
}

/// The files the install record of the project at `root` names (settings files `init` changed
/// or created, where it added handlers or the statusline); empty without a record of this user's.
fn recorded_files(root: &Path) -> Vec<String> {
    let install::record::Loaded::Found(r) = install::record::load(root) else {
        return Vec::new();
    };
    let mut files: Vec<String> = r.created_files;
    files.extend(r.handlers.into_iter().map(|h| h.file));
    files.extend(r.files.into_iter().map(|f| f.file));
    files.extend(r.statuslines.into_iter().map(|s| s.file));
    files
}

/// True when the host's files hold a capn registration: for a host whose file capn writes
/// whole, that file (project or user) exists; else a project or user settings file (of `read`,
/// [`read_settings`]) holds a capn hook handler (an older capn's included) or enables capn's
/// plugin for the host.
fn registered(spec: &HostSpec, root: &Path, home: Option<&Path>, read: &[SettingsRead]) -> bool {
    if spec.whole_file {
        let user = home.map(|h| h.join(spec.user_file));
        let project = spec.files.iter().map(|rel| root.join(rel));
        return project
            .chain(user)
            .any(|p| std::fs::symlink_metadata(p).is_ok());
    }
    let loaded = read
        .iter()
        .filter(|r| r.spec.host == spec.host)
        .filter_map(|r| r.loaded.as_ref().ok());
    loaded.filter(|f| f.existed()).any(|f| {
        let ours = install::handlers(&f.json)
            .into_iter()
            .any(|(_, _, h)| install::our_subcommand(h).is_some() || install::is_legacy(h));
        ours || (spec.plugin && install::plugin_enabled(&[&f.json]))
    })
}

/// The check of a host file capn writes whole ([`HostSpec::whole_file`]: Copilot CLI's hook
/// file, OpenCode's plugin), in the project or else the user's: there with capn's bytes (ok), or
/// edited but still registering every hook of the table (a JSON table: ok, saying so; the plugin:
/// a warning, doctor cannot read a script), or missing, not JSON or missing a hook (failed).
pub(super) fn check_own_file(spec: &HostSpec, root: &Path, checks: &mut Vec<Check>) {
    let home = crate::env::home_dir();
    let project = (spec.files[0], Some(root.join(spec.files[0])));
    let user = (spec.user_label, home.map(|h| h.join(spec.user_file)));
    let what = format!("{} hooks", spec.label);
    let fix = format!(
        "delete it, then run capn init --host {} (init leaves an edited file alone)",
        spec.flag
    );
    let mut read = None;
    for (rel, path) in [project, user] {
        let Some(path) = path else { continue };
        match crate::fsutil::read_host_file(&path, rel) {
            Ok(None) => continue,
            Ok(Some(bytes)) => read = Some((rel, bytes)),
            Err(e) => return checks.push(Check::failed(what, format!("{e:#}"), fix)),
        }
        break;
    }
    let Some((rel, bytes)) = read else {
        let why = format!(
            "no {}: {} runs nothing of capn's",
            spec.all_files(),
            spec.name
        );
        return checks.push(Check::failed(
            what,
            why,
            format!("capn init --host {}", spec.flag),
        ));
    };
    if bytes == spec.table.as_bytes() {
        return checks.push(Check::ok(format!(
            "{what}: {rel} is capn's ({} runs it)",
            spec.name
        )));
    }
    let Ok(table) = serde_json::from_str::<Value>(spec.table) else {
        // Not a JSON table (OpenCode's plugin): doctor cannot tell what an edited script runs.
        let why = format!("{rel} was edited since capn init wrote it; doctor cannot tell whether it still runs capn's hooks");
        return checks.push(Check::warn(what, why, Some(fix)));
    };
    match missing_hooks(&table, &bytes) {
        Ok(missing) if missing.is_empty() => checks.push(Check::ok(format!(
            "{what}: {rel} registers every capn hook (edited since capn init wrote it)"
        ))),
        Ok(missing) => checks.push(Check::failed(
            format!("{what} in {rel}"),
            format!("no {}: {} does not run it", missing.join(", "), spec.name),
            fix,
        )),
        Err(why) => checks.push(Check::failed(
            format!("{what} in {rel}"),
            format!("{why}: {} runs nothing of capn's from it", spec.name),
            fix,
        )),
    }
}

/// The hooks of `table` (Copilot CLI's shape: `{"hooks": {event: [{"bash": line, ...}]}}`) that
/// `bytes` does not register, as `` `line` under event ``; a handler counts when its `bash` or
/// `powershell` line has the table's words. Errors: `bytes` is not JSON.
fn missing_hooks(table: &Value, bytes: &[u8]) -> Result<Vec<String>, String> {
    let file: Value = serde_json::from_slice(bytes).map_err(|e| format!("it is not JSON ({e})"))?;
    fn words(v: Option<&Value>) -> Option<Vec<&str>> {
        v.and_then(Value::as_str)
            .map(|s| s.split_whitespace().collect())
    }
    let mut missing = Vec::new();
    let events = table.get("hooks").and_then(Value::as_object);
    for (event, handlers) in events.into_iter().flatten() {
        let Some(want) = handlers.get(0).and_then(|h| words(h.get("bash"))) else {
            continue;
        };
        let there = file
            .pointer(&format!("/hooks/{event}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|h| {
                ["bash", "powershell"]
                    .iter()
                    .any(|k| words(h.get(*k)).as_ref() == Some(&want))
            });
        if !there {
            missing.push(format!("`{}` under {event}", want.join(" ")));
        }
    }
    Ok(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which hosts are set up is decided from the one read handed to it, not from a second read
    /// of the disk: a host whose read file registers capn counts though nothing is on disk, and
    /// its checks get that same file.
    #[test]
    fn the_hosts_set_up_and_their_checks_share_one_read_of_each_file() {
        let root = tempfile::tempdir().unwrap();
        let spec = &crate::hosts::GEMINI;
        let path = root.path().join(spec.files[0]);
        let text = crate::hosts::GEMINI.table.as_bytes().to_vec();
        let read = vec![SettingsRead {
            spec,
            rel: spec.files[0],
            path: path.clone(),
            loaded: SettingsFile::from_bytes(&path, Some(text)),
        }];
        let (specs, _) = set_up(root.path(), &read);
        assert!(specs.iter().any(|s| s.host == spec.host));
        assert!(!specs.iter().any(|s| !s.whole_file && s.host != spec.host));
        let mut checks = Vec::new();
        let files = super::super::load_settings(read, &specs, &mut checks);
        assert_eq!(files.len(), 1);
        assert!(files[0].json().is_some_and(|j| j.contains_key("hooks")));
        assert_eq!(checks[0].what, ".gemini/settings.json parses");
    }
}
