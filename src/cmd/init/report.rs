//! What `capn init` prints: one line per change, then which of the project files it manages
//! are meant to be committed and which are not.

use crate::hosts::Host;
use crate::install::more_hosts;
use crate::install::project::{CLAUDE_LOCAL_SETTINGS, PROJECT_SETTINGS};
use crate::install::record::InstallRecord;
use crate::install::skill::skill_path;
use crate::install::SettingsFile;
use crate::store::Store;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Prints the report of a run that did `done` (the install record `rec` as it now stands;
/// `changed_hosts`: the hosts whose files changed; `gitignore_changed`: the project's
/// `.gitignore` was edited).
pub(super) fn report(
    root: &Path,
    rec: &InstallRecord,
    changed_hosts: &[Host],
    gitignore_changed: bool,
    mut done: Vec<String>,
) -> Result<ExitCode> {
    // When the search hook was just registered, or the embedding (which offers need) was just
    // switched, say whether offers are on.
    if done
        .iter()
        .any(|l| l.starts_with("registered the PreToolUse hook") || l.starts_with("set embedding "))
    {
        let store = Store::at(root.to_path_buf());
        let config = crate::config::Config::load(&store.config_path());
        done.push(offers_note(&config).replace("{config}", &store.config_name()));
    }
    if !done.is_empty() {
        done.extend(commit_note(root, rec, gitignore_changed));
    }
    for spec in crate::hosts::ALL
        .into_iter()
        .filter(|s| changed_hosts.contains(&s.host))
    {
        if let Some(command) = spec.trust_command {
            let name = spec.name;
            done.push(format!(
                "{name}: project hooks run only once trusted; open {name} here, run {command} and trust the capn hooks"
            ));
        }
    }
    let out = crate::cmd::messages::changes(
        &format!("capn init in {}:", root.display()),
        &done,
        &format!(
            "capn is already set up in {}; nothing changed",
            root.display()
        ),
    );
    crate::present::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// True when the settings file `rel` registers capn hooks.
fn has_our_hooks(root: &Path, rel: &str) -> bool {
    SettingsFile::load(&root.join(rel)).is_ok_and(|f| !crate::install::ours_in(&f.json).is_empty())
}

/// The project files capn put its things in, as the install record `rec` says, that are
/// meant to be committed: the host settings files it changed or created, the files it owns
/// whole, the skill folder, and `.gitignore` when this run edited it (`gitignore_changed`).
fn to_commit(root: &Path, rec: &InstallRecord, gitignore_changed: bool) -> Vec<&'static str> {
    let mut commit = Vec::new();
    if gitignore_changed && root.join(".gitignore").is_file() {
        commit.push(".gitignore");
    }
    // Every host's project settings file but Claude Code's local one (each user's own).
    for rel in PROJECT_SETTINGS
        .into_iter()
        .filter(|r| *r != CLAUDE_LOCAL_SETTINGS)
    {
        if (rec.touches(rel) || rec.created(rel)) && root.join(rel).is_file() {
            commit.push(rel);
        }
    }
    for file in more_hosts::OWN_FILES {
        if rec.created(file.rel) && root.join(file.rel).is_file() {
            commit.push(file.rel);
        }
    }
    if rec.skill && skill_path(root).is_file() {
        commit.push(".claude/skills/compact-prep/");
    }
    commit
}

/// Which of the files `init` manages are meant to be committed, which are not, and what a
/// teammate without capn sees of the hooks among them: the lines for the report.
fn commit_note(root: &Path, rec: &InstallRecord, gitignore_changed: bool) -> Vec<String> {
    let commit = to_commit(root, rec, gitignore_changed);
    let mut lines = Vec::new();
    if !commit.is_empty() {
        // What teammates without capn see, for the hooks this project registers.
        let mut teammates = Vec::new();
        for spec in crate::hosts::ALL {
            let Some(sees) = spec.without_capn else {
                continue;
            };
            let ours = |f: &&str| commit.contains(f) && has_our_hooks(root, f);
            if spec.files.iter().any(ours) {
                teammates.push(format!("{} {sees}", spec.name));
            }
        }
        let note = if teammates.is_empty() {
            String::new()
        } else {
            format!(
                " (teammates without capn: {}; or commit none of them and have everyone run capn \
                 init --user once)",
                teammates.join("; ")
            )
        };
        lines.push(format!("to commit: {}{note}", commit.join(", ")));
    }
    let shared = Store::at(root.to_path_buf()).config().shared;
    // Claude Code's local settings are each user's own: worth naming where Claude Code is set
    // up (or the file is there), not after `init --host copilot` alone.
    let claude = PROJECT_SETTINGS
        .into_iter()
        .filter(|r| r.starts_with(".claude/"))
        .any(|r| rec.touches(r) || rec.created(r) || root.join(r).is_file());
    let mut keep_out: Vec<&str> = if claude {
        vec![CLAUDE_LOCAL_SETTINGS]
    } else {
        Vec::new()
    };
    if !shared {
        keep_out.insert(
            0,
            ".capn/ (ignored; capn init --shared commits the charts instead)",
        );
    }
    if !keep_out.is_empty() {
        lines.push(format!("not to commit: {}", keep_out.join(", ")));
    }
    lines
}

/// Whether the hooks now offer charts unasked (`{config}` stands for the config file's name,
/// [`Store::config_name`]), as [`crate::config::Config::offers_at`] decides:
/// at both moments ([`OFFERS_NOTE`]), at one, at none by the user's switch, or none while the
/// embedding is off ([`OFFERS_OFF_NOTE`]).
fn offers_note(config: &crate::config::Config) -> String {
    use crate::config::OfferMoment;
    if !config.embedding {
        return OFFERS_OFF_NOTE.into();
    }
    match (
        config.offers_at(OfferMoment::Prompt),
        config.offers_at(OfferMoment::Search),
    ) {
        (true, true) => OFFERS_NOTE.into(),
        (true, false) => OFFERS_ONE_NOTE.replace("{at}", "the user's prompt"),
        (false, true) => OFFERS_ONE_NOTE.replace("{at}", "the agent's search"),
        (false, false) => OFFERS_SWITCHED_OFF_NOTE.into(),
    }
}

/// [`OFFERS_NOTE`] when `"offer"` in `.capn/config.json` leaves one moment on (`{at}`).
const OFFERS_ONE_NOTE: &str = "offers: charted answers matching {at} are added to its context (the other moment is off by \"offer\" in {config})";

/// [`OFFERS_NOTE`] when `"offer": false` in `.capn/config.json` switches both moments off.
const OFFERS_SWITCHED_OFF_NOTE: &str =
    "offers: none (\"offer\": false in {config} switches them off)";

/// Said when this run registered PreToolUse: what the hooks now do unasked, and the switch.
const OFFERS_NOTE: &str = "offers: charted answers matching the user's prompt or the agent's search are added to its context (\"offer\": false in {config} turns that off)";

/// [`OFFERS_NOTE`] when embedding is off: the injection gate needs it, so nothing is offered.
const OFFERS_OFF_NOTE: &str = "offers: none while embedding is off (the offer gate needs it; capn init --embedding turns them on)";
