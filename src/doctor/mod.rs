//! `capn doctor`: check the installation in this project and say how to fix what is wrong.
//!
//! Run from anywhere in a project (the root is found as for every command,
//! [`crate::store::find_root`]). Each check prints one line, `ok    <what>`, `warn  <what>: <why>`
//! or `FAILED <what>: <why>`, a failure or warning followed by `  fix: <command or edit>`; then a
//! summary line. Exit 0 when nothing failed (warnings included), 1 otherwise.
//!
//! The checks, in order, for the hosts set up in the project (`doctor/hosts.rs`: those the
//! install record names or whose files hold capn's registrations; one line names them and how
//! to add another; with none, Claude Code and Codex, which a plain `capn init` sets up):
//! 1. **`capn` on PATH**: the first executable `capn` in `PATH` (the hooks run it by name); a
//!    warning when it is not the running binary (a stale install).
//! 2. **The store**: `.capn/` with `entries/`; no entry holds what looks like a secret;
//!    `.capn/config.json` parses with valid values.
//! 3. **Settings files** of the hosts checked: `.claude/settings.json`,
//!    `.claude/settings.local.json`, `.codex/hooks.json`, `.gemini/settings.json`,
//!    `.qwen/settings.json`, and the user-level ones the hosts merge in (`~/.claude/settings.json`,
//!    `~/.codex/hooks.json`, ...), parse
//!    ([`SettingsFile::load`]). A registration counts in any of them; identical handlers in several
//!    files run once.
//! 4. **Registrations**, against the tables `capn init` installs (`hooks-config/`): every event
//!    has our handler, with the right subcommand, `type: "command"`, not `async`, a matcher that
//!    covers the table's (Claude Code's matcher syntax), for Claude Code the exec form
//!    with an explicit `timeout`, for Codex `--host codex` and no `args` (Codex runs only
//!    `command`); no capn handler on an event it does not answer, none registered
//!    twice, no capn-hook 0.2 registration; the effective Claude Code `statusLine` is ours (or
//!    wraps another). Gemini CLI and Qwen Code: the same registration checks (timeouts in the
//!    host's unit: milliseconds on Gemini CLI). A file capn writes whole (Copilot CLI's
//!    `.github/hooks/capn.json`, OpenCode's plugin) holds capn's bytes, or, edited, still every
//!    hook of the table (the plugin, a script: a warning).
//! 5. **Hook runs**: every capn handler found for Claude Code, Codex, Gemini CLI or Qwen Code
//!    is run, with the payload that host sends (the host file's `doctor_fields`: its fields and
//!    its event names, Gemini CLI's `BeforeAgent` and `AfterTool`; a step the host never sends,
//!    such as Gemini CLI's SessionStart after a compaction, is not run), but only when its
//!    command line is one of capn's own (`safe_run`): as an argument vector, never through a
//!    shell (exec form: `command` and `args`, resolved through `PATH`, `${CLAUDE_PROJECT_DIR}`
//!    substituted; shell form, and all of Codex, Gemini CLI and Qwen Code: the command split
//!    into words), never a wrapped status line command, never a `capn` inside the repository
//!    (the hosts ask before they run a project's hooks; doctor must not be the way around
//!    that). In the project root, with synthetic payloads in the order of a session that
//!    searches and compacts: SessionStart(startup), PreToolUse (a Grep on Claude Code, a shell
//!    `rg` on Codex), PostToolUse (a `grep_search` on Gemini CLI and Qwen Code),
//!    PreCompact(manual), PostCompact(manual), UserPromptSubmit, SessionStart(compact), Stop,
//!    SubagentStart. Each run gets a temporary `CAPN_STATE_DIR` (so no real marker is touched),
//!    `CLAUDE_PROJECT_DIR` (Gemini CLI and Qwen Code set it too) and, on Claude Code's
//!    SessionStart, a temporary `CLAUDE_ENV_FILE`, and at most [`HOOK_BUDGET`] (or half the
//!    registered timeout, read in the host's unit). Checked: exit 0 (the report names what an
//!    exit 2 makes the host do: the host file's `exit_2`); stdout empty or exactly one JSON
//!    object; nothing at all on PreCompact/PostCompact (a reply there is dropped whole); only
//!    the keys the host accepts on the event and `hookEventName` equal to the host's name of
//!    it; for Codex valid against Codex's output schema of the event
//!    ([`crate::install::schema`]: Codex rejects a reply that fails it); no `continue: false` or
//!    `decision: "block"`; `additionalContext` under
//!    [`crate::hook::text::MAX_CHARS`] and stdout under [`crate::hook::reply::STDOUT_MAX_CHARS`]. What the hooks
//!    are for is checked too: SessionStart injects context (and exports `CAPN_SESSION_ID` on
//!    Claude Code), PreCompact and PostCompact leave their markers, UserPromptSubmit delivers the
//!    recovery after a compaction. The statusline command runs split into words (no shell, and
//!    without what follows `--wrap`) with a synthetic statusline payload: exit 0 and one line
//!    holding the capn segment (`statusline_run.rs`).
//!    Then the `command` of Claude Code's registrations runs alone, as GitHub Copilot CLI runs
//!    it (`doctor/args_dropped.rs`): exit 0, the contract at session start, no tool denied; or,
//!    while Copilot's own hook file registers capn's hooks, exit 0 and nothing printed (as
//!    [`crate::hook::bare`] does there).
//! 6. **A launcher's PATH**: every registered capn command started with `PATH=/usr/bin:/bin`,
//!    as a GUI launcher starts hosts; a warning with the fix when `capn` resolves only through
//!    the user's shell PATH (`doctor/launcher.rs`).
//! 7. **The `/compact-prep` skill** at `.claude/skills/compact-prep/SKILL.md`: present; a copy
//!    that differs from the bundled one is a warning (it may hold the user's edits).
//!
//! Also: the post-commit hook, when it runs `capn prune`, is executable and reaches that line
//! before anything can end it (`doctor/post_commit.rs`), and so are the post-merge,
//! post-rewrite and post-checkout hooks with their `capn refresh` line
//! (`doctor/refresh_hooks.rs`); with capn's Claude Code plugin enabled,
//! the Claude hooks and the skill come from the plugin and are not expected in the settings
//! (`doctor/plugin.rs`).
//!
//! Doctor writes nothing outside its own temporary directory (under `TMPDIR`), which is removed
//! when it ends; it runs in well under a second (about 11 process starts for Claude Code and
//! Codex; Gemini CLI adds 3 hook runs, Qwen Code 7). A `--wrap`ped user statusline is run
//! too, as Claude Code would run it; what that command does is its own.

mod allow;
mod args_dropped;
mod hook_runs;
mod hosts;
mod launcher;
mod path;
mod plugin;
mod post_commit;
mod refresh_hooks;
mod registrations;
mod safe_run;
mod secrets;
mod settings;
mod skill;
mod statusline_run;
mod store;

use crate::cli::DoctorArgs;
use crate::hook::Host;
use crate::hosts::ContextSource;
use crate::install::{self, schema::Schema, SettingsFile};
use crate::session::{self, SessionDir, SessionId};
use crate::store::Store;
use anyhow::{Context, Result};
use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The most one hook run may take (less when half the registered timeout is shorter). Our
/// hooks answer in milliseconds; UserPromptSubmit runs on every prompt.
pub(crate) const HOOK_BUDGET: Duration = Duration::from_secs(2);

/// The most the statusline run may take (it is debounced 300 ms and cancelled by the next
/// update; Claude Code's status line docs).
pub(crate) const STATUSLINE_BUDGET: Duration = Duration::from_secs(1);

/// The most bytes kept of a child's stdout or stderr (the rest is read and dropped).
const CAPTURE_MAX: u64 = 1 << 20;

/// The fix for a missing or broken capn registration.
const FIX_INIT: &str = "capn init";

/// The session id of the synthetic payloads (valid per format.md).
const SESSION_ID: &str = "capn-doctor-0000";

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Nothing to do.
    Ok,
    /// Worth knowing, not a failure (does not change the exit code).
    Warn,
    /// Broken: the exit code becomes 1.
    Failed,
}

/// One line of the report (plus its fix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Check {
    /// The outcome.
    pub status: Status,
    /// What was checked (and, when ok, what was found).
    pub what: String,
    /// Why it is not ok.
    pub why: Option<String>,
    /// The exact command or edit that fixes it.
    pub fix: Option<String>,
}

impl Check {
    fn ok(what: impl Into<String>) -> Check {
        Check {
            status: Status::Ok,
            what: what.into(),
            why: None,
            fix: None,
        }
    }

    fn failed(what: impl Into<String>, why: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            status: Status::Failed,
            what: what.into(),
            why: Some(why.into()),
            fix: Some(fix.into()),
        }
    }

    fn warn(what: impl Into<String>, why: impl Into<String>, fix: Option<String>) -> Check {
        Check {
            status: Status::Warn,
            what: what.into(),
            why: Some(why.into()),
            fix,
        }
    }

    /// The printed lines: `ok    <what>`, `warn  <what>: <why>` or `FAILED <what>: <why>`, then
    /// `  fix: <fix>` when there is one. Ends with a newline. Checks quote commands, paths and
    /// output from files and programs capn did not write, so every part is escaped here, the one
    /// place they are printed ([`crate::present::printable`]: ESC, BEL, line breaks, bidi
    /// overrides... as `\u{1b}`), and a check stays on its own lines.
    pub(crate) fn render(&self) -> String {
        let printable = capped;
        let tag = match self.status {
            Status::Ok => "ok    ",
            Status::Warn => "warn  ",
            Status::Failed => "FAILED ",
        };
        let mut s = format!("{tag}{}", printable(&self.what));
        if let Some(why) = &self.why {
            s.push_str(": ");
            s.push_str(&printable(why));
        }
        s.push('\n');
        if let Some(fix) = &self.fix {
            s.push_str("  fix: ");
            s.push_str(&printable(fix));
            s.push('\n');
        }
        s
    }
}

/// The most characters of one part of a check (what, why, fix) that doctor prints, escapes
/// counted: it quotes commands from settings files it did not write, and an 800 KB committed
/// command printed 3.1 MB.
pub(crate) const MAX_CHECK_CHARS: usize = 2000;

/// `s` for the report: [`crate::present::printable`], cut at [`MAX_CHECK_CHARS`] with
/// `… [capn: N more characters cut]`.
fn capped(s: &str) -> String {
    let p = crate::present::printable(s);
    let n = p.chars().count();
    if n <= MAX_CHECK_CHARS {
        return p;
    }
    let kept: String = p.chars().take(MAX_CHECK_CHARS).collect();
    format!(
        "{kept}{} [capn: {} more characters cut]",
        crate::present::CUT_MARK,
        n - MAX_CHECK_CHARS
    )
}

/// Runs `capn doctor`: prints the report; exit 0 when no check failed, 1 otherwise.
///
/// Errors: the working directory cannot be read, or the temporary directory cannot be created.
pub(crate) fn run(_args: &DoctorArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    use std::fmt::Write as _;
    let mut out = String::new();
    writeln!(
        out,
        "capn doctor in {}",
        crate::present::printable(&store.root.display().to_string())
    )?;
    if !store.exists() {
        // Before `init`: one line that says what to run, not a failed check per registration.
        writeln!(out, "{}", not_set_up())?;
        crate::present::print(&out)?;
        return Ok(ExitCode::from(1));
    }
    let checks = diagnose(&store.root)?;
    for c in &checks {
        out.push_str(&c.render());
    }
    let failed = checks.iter().filter(|c| c.status == Status::Failed).count();
    let warned = checks.iter().filter(|c| c.status == Status::Warn).count();
    let warnings = match warned {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        n => format!(", {n} warnings"),
    };
    let code = if failed == 0 {
        writeln!(out, "capn doctor: all {} checks ok{warnings}", checks.len())?;
        ExitCode::SUCCESS
    } else {
        writeln!(
            out,
            "capn doctor: {failed} of {} checks failed{warnings}",
            checks.len()
        )?;
        ExitCode::from(1)
    };
    crate::present::print(&out)?;
    Ok(code)
}

/// What doctor says in a folder without a store (no `.capn/` here, above, or in the main
/// checkout of a linked worktree): the command to run, naming `capn init --user` when the
/// user-level install is there already.
fn not_set_up() -> String {
    let user =
        crate::install::project::user_settings(crate::install::project::USER_CLAUDE_SETTINGS)
            .is_some_and(|f| !crate::install::ours_in(&f.json).is_empty());
    if user {
        "capn is not set up in this project yet (the user-level hooks from capn init --user stay \
         silent here until it is): run capn init here, then capn doctor again"
            .to_string()
    } else {
        "capn is not set up here: run capn init in this project (or capn init --user once, for \
         every project, then capn init here), then capn doctor again"
            .to_string()
    }
}

/// Runs every check for the project at `root` and returns them in report order. Writes only
/// inside a temporary directory that is removed before it returns.
///
/// Errors: the temporary directory cannot be created.
pub(crate) fn diagnose(root: &Path) -> Result<Vec<Check>> {
    let sandbox = tempfile::Builder::new()
        .prefix("capn-doctor-")
        .tempdir()
        .context("could not create a temporary directory for the hook runs")?;
    let mut checks = Vec::new();
    let path = check_path(root, &mut checks);
    check_store(root, &mut checks);
    // Each host's settings files are read once: which hosts are set up and their checks.
    let read = hosts::read_settings(root);
    let (specs, hosts_line) = hosts::set_up(root, &read);
    checks.push(hosts_line);
    let files = load_settings(read, &specs, &mut checks);
    let post_commit_git = post_commit::check(root, &mut checks);
    refresh_hooks::check(root, post_commit_git, &mut checks);
    let claude = specs.iter().any(|s| s.plugin);
    let from_plugin = claude && plugin::claude_hooks_from_plugin(&files, &mut checks);
    let run = Run {
        root,
        sandbox: sandbox.path(),
        files: &files,
        path: &path,
        git: post_commit_git,
    };
    for spec in &specs {
        check_host(spec, &run, from_plugin, &mut checks)?;
    }
    launcher::check(
        &files,
        root,
        &sandbox.path().join("launcher"),
        &path,
        &mut checks,
    );
    if claude && !from_plugin {
        check_skill(root, &mut checks);
    }
    sandbox
        .close()
        .context("could not remove doctor's temporary directory")?;
    Ok(checks)
}

/// What the checks of every host share: the project, doctor's temporary directory, the
/// settings files read, where `capn` is on `PATH`, and whether the post-commit hook runs
/// `capn prune` (the reinstall fix then takes `--git`).
struct Run<'a> {
    root: &'a Path,
    sandbox: &'a Path,
    files: &'a [Loaded],
    path: &'a OnPath,
    git: bool,
}

impl Run<'_> {
    /// A fresh folder `name` in doctor's temporary directory.
    ///
    /// Errors: it cannot be created.
    fn dir(&self, name: &str) -> Result<PathBuf> {
        let dir = self.sandbox.join(name);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        Ok(dir)
    }
}

/// The checks of one host: a file capn writes whole ([`hosts::check_own_file`]); else its
/// registrations and the runs of its hooks, each with the payload the host sends
/// ([`crate::hosts::HostSpec::doctor_fields`]: Claude Code, Codex, Gemini CLI, Qwen Code), then
/// the bare run of a host that drops `args`, and the statusline. With capn's plugin enabled,
/// Claude Code's hooks come from it: only its statusline is run.
///
/// Errors: a folder in the temporary directory cannot be created.
fn check_host(
    spec: &HostSpec,
    run: &Run,
    from_plugin: bool,
    checks: &mut Vec<Check>,
) -> Result<()> {
    let (root, files) = (run.root, run.files);
    if spec.whole_file {
        hosts::check_own_file(spec, root, checks);
        return Ok(());
    }
    if from_plugin && spec.plugin {
        run_statusline(root, &run.dir("statusline")?, files, run.path, checks);
        return Ok(());
    }
    let found = collect(spec, files);
    check_registrations(spec, files, &found, run.git, search_offers(root), checks);
    if spec.context == ContextSource::StatusLine {
        check_statusline_registration(files, checks);
    }
    if spec.allow_rules {
        allow::check(spec, files, checks);
    }
    let dir = run.dir(&spec.label.to_ascii_lowercase())?;
    run_hooks(spec, root, &dir, &found, run.path, checks);
    let guest = crate::hosts::ALL
        .into_iter()
        .find(|g| g.runs_hooks_of == Some(spec.host));
    if let Some(guest) = guest.filter(|_| spec.exec_form) {
        let dir = run.dir("bare")?;
        args_dropped::check((spec, guest), root, &dir, &found, checks);
    }
    if spec.context == ContextSource::StatusLine {
        run_statusline(root, &run.dir("statusline")?, files, run.path, checks);
    }
    Ok(())
}

use hook_runs::*;
use path::*;
use registrations::*;
use settings::*;
use skill::*;
use statusline_run::*;
use store::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::HookEvent;
    use crate::hosts::CODEX;

    fn codex_input_schema(event: HookEvent) -> Schema {
        let text = match event {
            HookEvent::SessionStart => {
                include_str!("../../assets/codex-schemas/session-start.command.input.schema.json")
            }
            HookEvent::PreCompact => {
                include_str!("../../assets/codex-schemas/pre-compact.command.input.schema.json")
            }
            HookEvent::PostCompact => {
                include_str!("../../assets/codex-schemas/post-compact.command.input.schema.json")
            }
            HookEvent::PreToolUse => {
                include_str!("../../assets/codex-schemas/pre-tool-use.command.input.schema.json")
            }
            HookEvent::UserPromptSubmit => include_str!(
                "../../assets/codex-schemas/user-prompt-submit.command.input.schema.json"
            ),
            HookEvent::PostToolUse => {
                panic!("capn registers no PostToolUse hook for Codex: doctor never sends one")
            }
            HookEvent::Stop => {
                include_str!("../../assets/codex-schemas/stop.command.input.schema.json")
            }
            HookEvent::SubagentStart => {
                include_str!("../../assets/codex-schemas/subagent-start.command.input.schema.json")
            }
        };
        Schema::parse(text).unwrap()
    }

    #[test]
    fn codex_payloads_validate_against_codex_input_schemas() {
        for (event, detail) in SCENARIO {
            if !sends(Host::Codex, event, detail) {
                continue;
            }
            let p = payload(
                Host::Codex,
                event,
                detail,
                SESSION_ID,
                Path::new("/p"),
                Path::new("/t.jsonl"),
            );
            let errs = codex_input_schema(event).validate(&p);
            assert!(errs.is_empty(), "{event}: {errs:?}");
        }
        let p = payload(
            Host::Claude,
            HookEvent::PostCompact,
            Some("auto"),
            "s",
            Path::new("/p"),
            Path::new("/t"),
        );
        assert_eq!(p["trigger"], "auto");
        assert!(p["compact_summary"].is_string());
    }

    #[test]
    fn matchers_follow_the_documented_syntax() {
        let m = |s: &str| Some(Value::String(s.into()));
        assert_eq!(matcher_matches(None, "compact"), Ok(true));
        assert_eq!(matcher_matches(m("").as_ref(), "compact"), Ok(true));
        assert_eq!(matcher_matches(m("*").as_ref(), "compact"), Ok(true));
        assert_eq!(
            matcher_matches(m("startup|compact").as_ref(), "compact"),
            Ok(true)
        );
        assert_eq!(matcher_matches(m("startup").as_ref(), "compact"), Ok(false));
        // A list is exact names, not substrings.
        assert_eq!(
            matcher_matches(m("compacting").as_ref(), "compact"),
            Ok(false)
        );
        // Anything else is an unanchored regular expression.
        assert_eq!(
            matcher_matches(m("^(start.*|comp.*)$").as_ref(), "compact"),
            Ok(true)
        );
        assert_eq!(matcher_matches(m("act$").as_ref(), "compact"), Ok(true));
        assert!(matcher_matches(m("(").as_ref(), "compact").is_err());
    }

    #[test]
    fn claude_output_rules() {
        let none: Vec<(String, Schema)> = Vec::new();
        let ok =
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"hi"}}"#;
        assert_eq!(
            check_output(Host::Claude, "SessionStart", ok, &none),
            Ok(Some("hi".into()))
        );
        assert_eq!(
            check_output(Host::Claude, "PreCompact", "\n", &none),
            Ok(None)
        );
        // PreCompact on Claude Code: plain text (the instructions for the summary), never JSON;
        // on Codex nothing at all.
        assert_eq!(
            check_output(Host::Claude, "PreCompact", "keep the plan\n", &none),
            Ok(Some("keep the plan".into()))
        );
        let e = check_output(Host::Codex, "PreCompact", "keep the plan\n", &none).unwrap_err();
        assert!(e.contains("takes nothing"), "{e}");
        let cases = [
            ("PreCompact", "{}", "printed JSON on PreCompact"),
            ("PostCompact", "{}", "must print nothing"),
            ("SessionStart", "hello", "not one JSON object"),
            ("SessionStart", "{} {}", "not exactly one JSON object"),
            ("SessionStart", r#"{"extra":1}"#, "unknown key"),
            (
                "UserPromptSubmit",
                r#"{"decision":"block","reason":"x"}"#,
                "blocks",
            ),
            ("SessionStart", r#"{"continue":false}"#, "stops the agent"),
            (
                "UserPromptSubmit",
                r#"{"hookSpecificOutput":{"hookEventName":"SessionStart"}}"#,
                "not \"UserPromptSubmit\"",
            ),
            (
                "UserPromptSubmit",
                r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","reloadSkills":true}}"#,
                "not accepted",
            ),
        ];
        for (event, out, want) in cases {
            let e = check_output(Host::Claude, event, out, &none).unwrap_err();
            assert!(e.contains(want), "{out}: {e}");
        }
        let long = json!({"hookSpecificOutput":{"hookEventName":"SessionStart",
            "additionalContext": "x".repeat(crate::hook::text::MAX_CHARS)}})
        .to_string();
        let e = check_output(Host::Claude, "SessionStart", &long, &none).unwrap_err();
        assert!(e.contains("cap"), "{e}");
        let huge = format!(
            "{{\"systemMessage\":\"{}\"}}",
            "y".repeat(crate::hook::reply::STDOUT_MAX_CHARS)
        );
        let e = check_output(Host::Claude, "SessionStart", &huge, &none).unwrap_err();
        assert!(e.contains("stdout is"), "{e}");
    }

    #[test]
    fn codex_output_is_checked_against_its_schema() {
        let schemas = schemas_for(Host::Codex, HookEvent::SessionStart).unwrap();
        assert_eq!(schemas.len(), 2);
        let claude_only =
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","sessionTitle":"t"}}"#;
        // Claude Code accepts it, Codex does not.
        assert!(check_output(Host::Claude, "SessionStart", claude_only, &[]).is_ok());
        let e = check_output(Host::Codex, "SessionStart", claude_only, &schemas).unwrap_err();
        assert!(
            e.contains("session-start.command.output") && e.contains("sessionTitle"),
            "{e}"
        );
        let good = crate::hook::envelope("SessionStart", "context");
        assert_eq!(
            check_output(Host::Codex, "SessionStart", &good, &schemas),
            Ok(Some("context".into()))
        );
    }

    #[test]
    fn invocations_follow_the_host_and_run_only_capn_without_a_shell() {
        let exec = json!({"type":"command","command":"capn","args":["hook","session-start"]});
        let inv = invocation(Host::Claude, &exec, Path::new("/proj")).unwrap();
        assert_eq!(inv.program, "capn");
        assert_eq!(inv.args, ["hook", "session-start"]);
        // Codex runs only `command`: the bare `capn`, which answers the payload as a hook run
        // (`hook::bare`), so doctor runs it the same way.
        let bare = invocation(Host::Codex, &exec, Path::new("/proj")).unwrap();
        assert_eq!(bare.program, "capn");
        assert!(bare.args.is_empty());
        let shell = json!({"command":"capn hook pre-compact --host codex"});
        let inv = invocation(Host::Codex, &shell, Path::new("/proj")).unwrap();
        assert_eq!(inv.program, "capn");
        assert_eq!(inv.args, ["hook", "pre-compact", "--host", "codex"]);
        // A capn inside the project is the repository's code: never run by doctor.
        let inside = json!({"type":"command","command":"${CLAUDE_PROJECT_DIR}/bin/capn","args":["hook","session-start"]});
        assert!(invocation(Host::Claude, &inside, Path::new("/proj")).is_err());
        let chained = json!({"command":"capn hook pre-compact && touch /tmp/x"});
        assert!(invocation(Host::Codex, &chained, Path::new("/proj")).is_err());
    }

    /// The local settings' statusLine wins over the project's, which wins over the user's.
    #[test]
    fn the_effective_statusline_follows_claude_codes_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = |rel: &'static str| {
            let path = match rel.strip_prefix("~/") {
                Some(r) => dir.path().join("home").join(r),
                None => dir.path().join("project").join(rel),
            };
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let sl = json!({"statusLine": {"type": "command", "command": rel}});
            std::fs::write(&path, sl.to_string()).unwrap();
            Loaded {
                rel,
                file: Some(SettingsFile::load(&path).unwrap()),
            }
        };
        let pick = |rels: &[&'static str]| {
            let files: Vec<Loaded> = rels.iter().map(|r| loaded(r)).collect();
            effective_statusline(&files).map(|(rel, sl)| (rel, sl["command"].clone()))
        };
        let (user, project, local) = (
            "~/.claude/settings.json",
            ".claude/settings.json",
            ".claude/settings.local.json",
        );
        assert_eq!(pick(&[user, project, local]), Some((local, json!(local))));
        assert_eq!(pick(&[local, user, project]), Some((local, json!(local))));
        assert_eq!(pick(&[user, project]), Some((project, json!(project))));
        assert_eq!(pick(&[user]), Some((user, json!(user))));
        assert_eq!(pick(&[]), None);
    }

    #[test]
    fn registration_problems_are_named() {
        let o = |handler: Value, matcher: Option<&str>| Ours {
            rel: ".claude/settings.json",
            event: "SessionStart".into(),
            matcher: matcher.map(|m| Value::String(m.into())),
            handler,
            sub: "session-start".into(),
        };
        let want = Some(Value::String("startup|resume|clear|compact".into()));
        let good = o(
            json!({"type":"command","command":"capn","args":["hook","session-start"],"timeout":10}),
            Some("startup|resume|clear|compact"),
        );
        assert!(handler_problems(&CLAUDE, &good, want.as_ref()).is_empty());
        let bad = o(
            json!({"type":"command","command":"capn hook session-start --host codex","async":true}),
            Some("startup"),
        );
        let p = handler_problems(&CLAUDE, &bad, want.as_ref()).join("; ");
        for needle in [
            "shell form",
            "timeout",
            "async",
            "--host codex",
            "resume, clear, compact",
        ] {
            assert!(p.contains(needle), "{needle}: {p}");
        }
        let codex = o(
            json!({"type":"command","command":"capn","args":["hook","session-start"]}),
            None,
        );
        let p = handler_problems(&CODEX, &codex, want.as_ref()).join("; ");
        assert!(
            p.contains("ignores \"args\"") && p.contains("no --host codex"),
            "{p}"
        );
    }

    #[test]
    fn a_hung_command_is_killed_within_its_budget() {
        // A shell whose child hangs (and holds the output pipes open).
        let cmd = if cfg!(windows) {
            crate::process::shell_command("ping -n 600 127.0.0.1 >NUL")
        } else {
            crate::process::shell_command("sleep 600")
        };
        let t = Instant::now();
        let out = run_captured(cmd, b"", Duration::from_millis(200));
        assert!(out.timed_out);
        // A hang guard, not a speed check: the command runs 10 minutes unless it is killed.
        assert!(t.elapsed() < Duration::from_secs(300), "{:?}", t.elapsed());
        if cfg!(windows) {
            return; // the rest needs `cat`
        }
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "cat; echo err >&2; exit 3"]);
        let out = run_captured(cmd, b"in", Duration::from_secs(5));
        assert_eq!(out.stdout, b"in");
        assert_eq!(out.stderr_line().as_deref(), Some("err"));
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
    }

    /// Every event a host's table registers is a step doctor runs for it, with that host's
    /// payload: no registered hook goes unrun (Copilot CLI's and OpenCode's files are checked as
    /// written, not run).
    #[test]
    fn doctor_sends_every_event_each_host_registers() {
        for spec in crate::hosts::ALL.iter().filter(|s| !s.whole_file) {
            for (event, _, _) in table_entries(spec.table) {
                let runs = SCENARIO
                    .iter()
                    .any(|(e, d)| spec.event_name(*e) == event && sends(spec.host, *e, *d));
                assert!(runs, "{} {event}", spec.name);
            }
        }
    }

    /// Gemini CLI registers milliseconds: 10000 there is Claude Code's 10.
    #[test]
    fn a_timeout_is_read_in_the_host_s_unit() {
        let h = json!({ "timeout": 10000 });
        assert_eq!(
            registered_timeout(&h, crate::hosts::GEMINI.timeout_unit),
            10.0
        );
        assert_eq!(registered_timeout(&json!({ "timeout": 10 }), "s"), 10.0);
        assert_eq!(registered_timeout(&json!({}), "ms"), 600.0);
    }

    #[test]
    fn any_registered_timeout_gives_a_budget() {
        for t in [json!(1e300), json!(-1), json!("10"), json!(0.001)] {
            let secs = registered_timeout(&json!({ "timeout": t }), "s");
            let budget = HOOK_BUDGET.min(Duration::from_secs_f64(secs / 2.0));
            assert!(budget <= HOOK_BUDGET, "{t}");
        }
    }

    #[test]
    fn render_shapes() {
        assert_eq!(Check::ok("a").render(), "ok    a\n");
        assert_eq!(
            Check::failed("a", "b", "c").render(),
            "FAILED a: b\n  fix: c\n"
        );
        assert_eq!(Check::warn("a", "b", None).render(), "warn  a: b\n");
    }

    /// A huge quoted command is cut, with a marker (doctor's report stays readable).
    #[test]
    fn a_huge_quoted_text_is_cut_with_a_marker() {
        let why = format!("runs \u{1b}{}", "x".repeat(800_000));
        let r = Check::warn("a", why, None).render();
        assert!(r.len() < MAX_CHECK_CHARS + 100, "{}", r.len());
        assert!(r.starts_with("warn  a: runs \\u{1b}xxx"), "{}", &r[..40]);
        assert!(
            r.ends_with("x… [capn: 798011 more characters cut]\n"),
            "{}",
            &r[r.len() - 60..]
        );
    }
}
