//! The hosts beyond Claude Code and Codex ([`crate::hosts`]): which ones `capn init` sets up,
//! and GitHub Copilot CLI's hook file, which capn owns whole.
//!
//! - Gemini CLI (`.gemini/settings.json`) and Qwen Code (`.qwen/settings.json`) list handlers as
//!   Claude Code does, so their tables are merged like Claude Code's and Codex's
//!   ([`super::merge_counting`], format-preserving, recorded for `uninstall`).
//! - Copilot CLI reads every `.github/hooks/*.json`, and OpenCode every `.opencode/plugins/*.js`:
//!   capn writes its own file there ([`OWN_FILES`], the hosts with
//!   [`hosts::HostSpec::whole_file`]: `.github/hooks/capn.json` from
//!   `hooks-config/copilot.json`, `.opencode/plugins/capn.js` from `hooks-config/opencode.js`),
//!   created whole and deleted by `uninstall` only while it still holds exactly those bytes.
//!   Copilot also runs the hooks in `.claude/settings.json` (without their `args`:
//!   [`crate::hook::bare`]), which then stand back for each event whose job its file registers
//!   capn's hook for ([`guest_file`]), so the two never answer twice; a file Copilot cannot run
//!   capn from (not JSON, no `capn hook` line) leaves them answering.

use crate::events::HookEvent;
use crate::hosts::{self, Host, HostSpec, Setup};
use anyhow::Result;
use std::path::Path;

/// The hosts `capn init` sets up: those named with `--host` (in [`Host::ALL`]'s order, each
/// once), or, with none named, those set up always ([`Setup::Always`]: Claude Code and Codex)
/// plus each of those set up when found ([`Setup::WhenFound`]: Gemini CLI, Qwen Code,
/// OpenCode) whose folder (`.gemini/`, `.qwen/`, `.opencode/`) is in the project, or its user
/// folder in the home folder. Copilot CLI is never added unasked ([`Setup::Asked`]): it already
/// runs capn's Claude Code hooks.
pub(crate) fn selected(root: &Path, requested: &[Host]) -> Vec<Host> {
    if !requested.is_empty() {
        return Host::ALL
            .into_iter()
            .filter(|h| requested.contains(h))
            .collect();
    }
    let home = crate::env::home_dir();
    let always = hosts::ALL.iter().filter(|s| s.setup == Setup::Always);
    let found = hosts::ALL
        .iter()
        .filter(|s| s.setup == Setup::WhenFound && detected(root, home.as_deref(), s));
    always.chain(found).map(|s| s.host).collect()
}

/// True when the host's settings folder (the first folder of its project file: `.gemini`,
/// `.qwen`, `.opencode`) is a folder in the project, or its user folder
/// ([`hosts::HostSpec::user_dir`]: `~/.gemini`, `~/.config/opencode`) is one in `home` (never
/// followed through a symlink).
fn detected(root: &Path, home: Option<&Path>, spec: &HostSpec) -> bool {
    let Some(dir) = Path::new(spec.files[0]).components().next() else {
        return false;
    };
    let is_dir_at = |base: &Path, d: &Path| {
        std::fs::symlink_metadata(base.join(d)).is_ok_and(|m| m.file_type().is_dir())
    };
    is_dir_at(root, Path::new(&dir)) || home.is_some_and(|h| is_dir_at(h, Path::new(spec.user_dir)))
}

/// A file capn owns whole in a project ([`hosts::HostSpec::whole_file`]): Copilot CLI's hook
/// file, or OpenCode's plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OwnFile {
    /// The host it is for.
    pub host: Host,
    /// Where it goes, relative to the project root (the host's first project file).
    pub rel: &'static str,
    /// Its exact content ([`crate::hosts::HostSpec::table`]).
    pub bytes: &'static [u8],
}

/// How many hosts have a file capn owns whole.
const OWN_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < hosts::ALL.len() {
        n += hosts::ALL[i].whole_file as usize;
        i += 1;
    }
    n
};

/// Every file capn owns whole, in [`hosts::ALL`]'s order.
pub(crate) const OWN_FILES: [OwnFile; OWN_COUNT] = {
    let mut out = [OwnFile {
        host: Host::ALL[0],
        rel: "",
        bytes: &[],
    }; OWN_COUNT];
    let (mut i, mut j) = (0, 0);
    while i < hosts::ALL.len() {
        let spec = hosts::ALL[i];
        if spec.whole_file {
            out[j] = OwnFile {
                host: spec.host,
                rel: spec.files[0],
                bytes: spec.table.as_bytes(),
            };
            j += 1;
        }
        i += 1;
    }
    out
};

/// What `init` does with an [`OwnFile`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OwnPlan {
    /// It holds capn's bytes already.
    Present,
    /// Create it.
    Create,
    /// It exists with other bytes (edited by hand): left as it is.
    Differs,
}

/// Works out [`OwnPlan`] for `file` in the project, reading it without following a symlink or
/// blocking ([`crate::fsutil::read_host_file`]).
///
/// Errors: a folder on the way is a symlink, or the file is a symlink, a FIFO, a folder, or
/// cannot be read (named); nothing was written.
pub(crate) fn plan_own(root: &Path, file: &OwnFile) -> Result<OwnPlan> {
    let path = root.join(file.rel);
    crate::fsutil::check_inside(root, &path)?;
    Ok(match crate::fsutil::read_host_file(&path, file.rel)? {
        None => OwnPlan::Create,
        Some(bytes) if bytes == file.bytes => OwnPlan::Present,
        Some(_) => OwnPlan::Differs,
    })
}

/// Creates `file` with capn's bytes (atomically; its folders as needed). Returns whether it
/// wrote.
///
/// Errors: a folder or the file cannot be written (named).
pub(crate) fn write_own(root: &Path, file: &OwnFile, plan: &OwnPlan) -> Result<bool> {
    if *plan != OwnPlan::Create {
        return Ok(false);
    }
    let path = root.join(file.rel);
    if let Some(parent) = path.parent() {
        crate::fsutil::ensure_dir_inside(root, parent)?;
    }
    crate::fsutil::write_atomic(&path, file.bytes)?;
    Ok(true)
}

/// Deletes `file` when it holds exactly capn's bytes (a file edited since is kept, and said
/// so). Its folders stay: `uninstall` removes those the install record says `init` made.
/// Returns what it did, for `uninstall`'s report.
///
/// Errors: the file cannot be read or deleted (named).
pub(crate) fn remove_own(root: &Path, file: &OwnFile) -> Result<Option<String>> {
    let path = root.join(file.rel);
    if crate::fsutil::check_inside(root, &path).is_err() {
        return Ok(None);
    }
    let name = hosts::of(file.host).name;
    match crate::fsutil::read_host_file(&path, file.rel)? {
        None => Ok(None),
        Some(bytes) if bytes == file.bytes => {
            std::fs::remove_file(&path)
                .map_err(|e| anyhow::anyhow!("could not delete {}: {e}", path.display()))?;
            Ok(Some(format!("deleted {} (the {name} hooks)", file.rel)))
        }
        Some(_) => Ok(Some(format!(
            "kept {}: it was edited since capn init wrote it (delete it yourself)",
            file.rel
        ))),
    }
}

/// What the project holds of capn's own file for a host that also runs another host's
/// registrations ([`hosts::HostSpec::runs_hooks_of`]: Copilot CLI's `.github/hooks/capn.json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GuestFile {
    /// No such file.
    Absent,
    /// The file (relative to the root: capn's own, else another of the host's files there)
    /// registers capn's hooks for these events (each a `capn hook <subcommand> --host <host>`
    /// line the host runs, under the host's name for that same event; at least one, counting
    /// the host's other files there): the host runs them, so capn's registrations it runs too
    /// (without their `args`) stand back for each event one of these does the job of
    /// ([`HookEvent::same_duty`]).
    Registers(String, Vec<HookEvent>),
    /// The file is there but registers no capn hook the host can run, and why (it does not
    /// parse, names no `capn hook` line, is a symlink or too large): the host gets nothing from
    /// it, so capn's other registrations it runs answer.
    Unusable(&'static str, String),
}

/// What the project at `root` holds of capn's own files for hosts that also run another host's
/// registrations ([`GuestFile`]): the first that registers capn's hooks, else the first that is
/// there. Reads each such file (bounded, never through a symlink or a FIFO) only when it exists.
/// The host runs every hook file of that folder (Copilot CLI: each `.github/hooks/*.json`), so
/// the capn hooks another one there registers count too ([`other_files`]).
pub(crate) fn guest_file(root: &Path) -> GuestFile {
    let mut unusable = None;
    for f in OWN_FILES
        .iter()
        .filter(|f| f.host.spec().runs_hooks_of.is_some())
    {
        let path = root.join(f.rel);
        let (mut events, why) = match crate::fsutil::read_host_file(&path, f.rel) {
            Ok(None) => (Vec::new(), None),
            Ok(Some(bytes)) => match registers_capn(&bytes, f.host.spec()) {
                Ok(events) => (events, None),
                Err(why) => (Vec::new(), Some(why)),
            },
            Err(e) => (Vec::new(), Some(format!("{e:#}"))),
        };
        let own = !events.is_empty();
        let (other, more) = other_files(root, f);
        events.extend(more);
        if !events.is_empty() {
            events.sort_by_key(|e| HookEvent::ALL.iter().position(|a| a == e));
            events.dedup();
            let name = if own { f.rel.to_string() } else { other };
            return GuestFile::Registers(name, events);
        }
        if let Some(why) = why {
            unusable.get_or_insert(GuestFile::Unusable(f.rel, why));
        }
    }
    unusable.unwrap_or(GuestFile::Absent)
}

/// The most other hook files [`other_files`] reads, and the most bytes of each: a hook file is a
/// few hundred bytes, and a bare run reads them on every event.
const OTHER_FILES: usize = 16;
const OTHER_FILE_BYTES: u64 = 64 * 1024;

/// The capn hooks the other `.json` files beside `f` register (the host runs them all): the
/// first such file's path relative to `root` (empty when none) and the events (one may come
/// from several files). At most
/// [`OTHER_FILES`] files of at most [`OTHER_FILE_BYTES`] each, in name order, never through a
/// symlink; what cannot be read is passed over.
fn other_files(root: &Path, f: &OwnFile) -> (String, Vec<HookEvent>) {
    let (mut first, mut events) = (String::new(), Vec::new());
    let Some(dir) = Path::new(f.rel).parent() else {
        return (first, events);
    };
    let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
        return (first, events);
    };
    let mut names: Vec<String> = rd
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json") && dir.join(n) != Path::new(f.rel))
        .collect();
    names.sort();
    for name in names.into_iter().take(OTHER_FILES) {
        let path = root.join(dir).join(&name);
        let follow = crate::fsutil::Follow::Never;
        let Ok(bytes) = crate::fsutil::read_limited(&path, OTHER_FILE_BYTES, follow) else {
            continue;
        };
        let Ok(found) = registers_capn(&bytes, f.host.spec()) else {
            continue;
        };
        if first.is_empty() {
            first = format!("{}/{name}", dir.display());
        }
        events.extend(found);
    }
    (first, events)
}

/// The key of a Copilot CLI hook entry whose command runs on this system: `bash` (Linux,
/// macOS) or `powershell` (Windows).
const RUN_KEY: &str = if cfg!(windows) { "powershell" } else { "bash" };

/// True when the command line `line` runs capn's hook for `event` as host `flag` (`capn hook
/// <subcommand> ... --host <flag> ...`), and nothing else: no `;`, `&`, `|`, backquote or `$(`
/// that would run another command beside it or decide its exit status. Redirections pass.
fn runs_capn_hook(line: &str, event: HookEvent, flag: &str) -> bool {
    if line.contains([';', '&', '|', '`', '\n']) || line.contains("$(") {
        return false;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    words.first().is_some_and(|w| super::is_capn(w))
        && words.get(1) == Some(&"hook")
        && words.get(2) == Some(&event.subcommand())
        && words.windows(2).any(|w| w == ["--host", flag])
}

/// The events `bytes`, a hook file in Copilot CLI's shape (`{"hooks": {event: [{"bash": ...,
/// "powershell": ...}]}}`, `hooks-config/copilot.json`), registers capn for: each event whose
/// name in `spec` ([`HostSpec::event_names`]) holds a `capn hook` line for that same event (a
/// line for another event answers nothing there: capn's hook sees the wrong payload). In
/// [`HookEvent::ALL`]'s order, each once; `Err` with why when there is none.
fn registers_capn(bytes: &[u8], spec: &HostSpec) -> std::result::Result<Vec<HookEvent>, String> {
    const NONE: &str = "it registers no `capn hook` command under the event it answers, so the host runs nothing of capn's from it";
    // Read on every bare run: no parse of a file whose parse would cost far more than its
    // bytes.
    if let Some(why) = crate::jsonbound::beyond(bytes, crate::jsonbound::SETTINGS) {
        return Err(format!(
            "it is {why}, far more than a hook file holds, so capn does not read it"
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("it is not JSON ({e}), so the host skips it"))?;
    let events = v.get("hooks").and_then(serde_json::Value::as_object);
    let runs_capn_for = |event: HookEvent| {
        events
            .and_then(|m| m.get(event.name_in(spec.event_names)))
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|h| h.get(RUN_KEY).and_then(serde_json::Value::as_str))
            .any(|line| runs_capn_hook(line, event, spec.flag))
    };
    let found: Vec<HookEvent> = HookEvent::ALL
        .into_iter()
        .filter(|e| runs_capn_for(*e))
        .collect();
    if found.is_empty() {
        return Err(NONE.into());
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_hosts_come_in_table_order_once_and_none_named_detects() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        assert_eq!(
            selected(root, &[Host::Copilot, Host::Gemini, Host::Copilot]),
            [Host::Gemini, Host::Copilot]
        );
        std::fs::create_dir(root.join(".qwen")).unwrap();
        let auto = selected(root, &[]);
        assert!(auto.starts_with(&[Host::Claude, Host::Codex]), "{auto:?}");
        assert!(auto.contains(&Host::Qwen));
        assert!(!auto.contains(&Host::Copilot));
    }

    #[test]
    fn own_files_are_created_whole_and_removed_only_unedited() {
        for file in OWN_FILES {
            let tmp = tempfile::tempdir().unwrap();
            let root = tmp.path();
            assert_eq!(plan_own(root, &file).unwrap(), OwnPlan::Create);
            assert!(write_own(root, &file, &OwnPlan::Create).unwrap());
            let guest = file.host.spec().runs_hooks_of.is_some();
            assert_eq!(
                guest_file(root),
                if guest {
                    GuestFile::Registers(file.rel.to_string(), GUEST_EVENTS.to_vec())
                } else {
                    GuestFile::Absent
                }
            );
            assert_eq!(plan_own(root, &file).unwrap(), OwnPlan::Present);
            let said = remove_own(root, &file).unwrap().unwrap();
            assert!(said.starts_with("deleted"), "{said}");
            assert!(!root.join(file.rel).exists());
            write_own(root, &file, &OwnPlan::Create).unwrap();
            std::fs::write(root.join(file.rel), "edited").unwrap();
            assert_eq!(plan_own(root, &file).unwrap(), OwnPlan::Differs);
            let said = remove_own(root, &file).unwrap().unwrap();
            assert!(said.starts_with("kept"), "{said}");
            assert!(root.join(file.rel).exists());
        }
    }

    /// The events capn's own Copilot file (`hooks-config/copilot.json`) registers, in
    /// [`HookEvent::ALL`]'s order.
    const GUEST_EVENTS: [HookEvent; 4] = [
        HookEvent::SessionStart,
        HookEvent::PreCompact,
        HookEvent::UserPromptSubmit,
        HookEvent::PostToolUse,
    ];

    /// Copilot's file stands capn's other registrations back only when Copilot can run capn from
    /// it: JSON with a `capn hook` line under the event that line answers; and only for those
    /// events.
    #[test]
    fn a_guest_file_registers_capn_only_as_json_with_a_capn_hook_line() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        assert_eq!(guest_file(root), GuestFile::Absent);
        let rel = ".github/hooks/capn.json";
        std::fs::create_dir_all(root.join(".github/hooks")).unwrap();
        // One entry for `event`, running `line` under this system's key (or `key`).
        let entry = |event: &str, key: &str, line: &str| {
            serde_json::json!({"hooks": {event: [{key: line}]}}).to_string()
        };
        let other_key = if cfg!(windows) { "bash" } else { "powershell" };
        let start = "capn hook session-start --host copilot";
        let cases: Vec<(String, Result<Vec<HookEvent>, &str>)> = vec![
            ("garbage".into(), Err("not JSON")),
            (
                entry("sessionStart", RUN_KEY, "echo hi"),
                Err("no `capn hook`"),
            ),
            (
                entry(
                    "sessionStart",
                    RUN_KEY,
                    "capn hook pre-compact --host copilot",
                ),
                Err("no `capn hook`"),
            ),
            // What Copilot would not run, or whose answer it would not take or would fail.
            (
                entry("sessionStart", other_key, start),
                Err("no `capn hook`"),
            ),
            (
                entry(
                    "sessionStart",
                    RUN_KEY,
                    "capn hook session-start --host claude",
                ),
                Err("no `capn hook`"),
            ),
            (
                entry("sessionStart", RUN_KEY, &format!("{start}; exit 1")),
                Err("no `capn hook`"),
            ),
            (
                entry(
                    "sessionStart",
                    RUN_KEY,
                    &format!("/opt/bin/{start} 2>/dev/null"),
                ),
                Ok(vec![HookEvent::SessionStart]),
            ),
            (
                serde_json::json!({"hooks": {
                    "preCompact": [{RUN_KEY: "capn hook pre-compact --host copilot"}],
                    "postToolUse": [{RUN_KEY: "echo x"},
                                    {RUN_KEY: "capn hook post-tool-use --host copilot"}]}})
                .to_string(),
                Ok(vec![HookEvent::PreCompact, HookEvent::PostToolUse]),
            ),
            (
                crate::hosts::of(Host::Copilot).table.to_string(),
                Ok(GUEST_EVENTS.to_vec()),
            ),
        ];
        for (text, want) in cases {
            std::fs::write(root.join(rel), &text).unwrap();
            match (guest_file(root), want) {
                (GuestFile::Registers(r, got), Ok(want)) => {
                    assert_eq!(r, rel);
                    assert_eq!(got, want, "{text}");
                }
                (GuestFile::Unusable(r, got), Err(want)) => {
                    assert_eq!(r, rel);
                    assert!(got.contains(want), "{text}: {got}");
                }
                (got, _) => panic!("{text}: {got:?}"),
            }
        }
    }

    /// Copilot runs every hook file of the folder: another one's capn hooks count too, and name
    /// the file when capn's own registers none.
    #[test]
    fn another_hook_file_beside_capn_s_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let rel = ".github/hooks/capn.json";
        std::fs::create_dir_all(root.join(".github/hooks")).unwrap();
        let entry = |event: &str, line: &str| {
            serde_json::json!({"hooks": {event: [{RUN_KEY: line}]}}).to_string()
        };
        std::fs::write(root.join(rel), entry("sessionStart", "echo hi")).unwrap();
        let other = entry(
            "userPromptSubmitted",
            "capn hook user-prompt-submit --host copilot",
        );
        std::fs::write(root.join(".github/hooks/mine.json"), other).unwrap();
        assert_eq!(
            guest_file(root),
            GuestFile::Registers(
                ".github/hooks/mine.json".into(),
                vec![HookEvent::UserPromptSubmit]
            )
        );
    }

    /// The bare run stands back for an event where the guest file does that event's job:
    /// Copilot's postToolUse gives the search offers PreToolUse gives elsewhere.
    #[test]
    fn search_offers_are_one_duty_and_every_other_event_its_own() {
        assert!(HookEvent::PreToolUse.same_duty(HookEvent::PostToolUse));
        assert!(HookEvent::PostToolUse.same_duty(HookEvent::PreToolUse));
        for a in HookEvent::ALL {
            assert!(a.same_duty(a));
            for b in HookEvent::ALL {
                let search = [HookEvent::PreToolUse, HookEvent::PostToolUse];
                let pair = search.contains(&a) && search.contains(&b);
                assert_eq!(a.same_duty(b), a == b || pair, "{a:?} {b:?}");
            }
        }
    }
}
