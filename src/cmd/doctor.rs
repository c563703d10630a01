//! `capn doctor`: check the installation in this project and say how to fix what is wrong.
//!
//! Run from anywhere in a project (the root is found as for every command,
//! [`crate::store::find_root`]). Each check prints one line, `ok    <what>`, `warn  <what>: <why>`
//! or `FAILED <what>: <why>`, a failure or warning followed by `  fix: <command or edit>`; then a
//! summary line. Exit 0 when nothing failed (warnings included), 1 otherwise.
//!
//! The checks, in order:
//! 1. **`capn` on PATH**: the first executable `capn` in `PATH` (the hooks run it by name); a
//!    warning when it is not the running binary (a stale install).
//! 2. **The store**: `.capn/` with `entries/`; `.capn/config.json` parses with valid values.
//! 3. **Settings files**: `.claude/settings.json`, `.claude/settings.local.json`,
//!    `.codex/hooks.json`, and the user-level `~/.claude/settings.json` and `~/.codex/hooks.json`
//!    that the hosts merge in (hooks reference, 1.1 and 5), parse ([`SettingsFile::load`]). A
//!    registration counts in any of them; identical handlers in several files run once.
//! 4. **Registrations**, against the tables `capn init` installs (`hooks-config/`): every event
//!    has our handler, with the right subcommand, `type: "command"`, not `async`, a matcher that
//!    covers the table's (hooks reference, 1.1 "Matcher syntax"), for Claude Code the exec form
//!    with an explicit `timeout`, for Codex `--host codex` and no `args` (Codex runs only
//!    `command`, section 5); no capn handler on an event it does not answer, none registered
//!    twice, no capn-hook 0.2 registration; the effective Claude Code `statusLine` is ours (or
//!    wraps another).
//! 5. **Hook runs**: every capn handler found is run as the host runs it (exec form: `command` +
//!    `args`, resolved through `PATH`, `${CLAUDE_PROJECT_DIR}` substituted; shell form and all of
//!    Codex: `sh -c <command>`), in the project root, with synthetic payloads ([`payload`]) in
//!    the order of a session that compacts: SessionStart(startup), PreCompact(manual),
//!    PostCompact(manual), UserPromptSubmit, SessionStart(compact). Each run gets a temporary
//!    `CAPN_STATE_DIR` (so no real marker is touched), `CLAUDE_PROJECT_DIR` (Claude Code only)
//!    and, on SessionStart, a temporary `CLAUDE_ENV_FILE`, and at most [`HOOK_BUDGET`] (or half
//!    the registered timeout). Checked: exit 0 (exit 2 blocks on Claude Code, section 1.2); stdout
//!    empty or exactly one JSON object (section 1.5); nothing at all on PreCompact/PostCompact
//!    (section 1.4: a reply there is dropped whole); for Claude Code only the keys the event
//!    accepts and `hookEventName` equal to the event; for Codex valid against Codex's output
//!    schema of the event ([`crate::install::schema`], section 5 "Strict parsing"); no
//!    `continue: false` or `decision: "block"`; `additionalContext` under
//!    [`crate::hook::text::MAX_CHARS`] and stdout under [`STDOUT_MAX_CHARS`]. What the hooks
//!    are for is checked too: SessionStart injects context (and exports `CAPN_SESSION_ID` on
//!    Claude Code), PreCompact and PostCompact leave their markers, UserPromptSubmit delivers the
//!    recovery after a compaction. The statusline command runs through `sh -c` with a synthetic
//!    statusline payload: exit 0 and one line holding the capn segment.
//! 6. **A launcher's PATH**: every registered capn command started with `PATH=/usr/bin:/bin`,
//!    as a GUI launcher starts hosts; a warning with the fix when `capn` resolves only through
//!    the user's shell PATH (`doctor/launcher.rs`).
//! 7. **The `/compact-prep` skill** at `.claude/skills/compact-prep/SKILL.md`: present; a copy
//!    that differs from the bundled one is a warning (it may hold the user's edits).
//!
//! Also: the post-commit hook, when it runs `capn prune`, is executable and reaches that line
//! before anything can end it (`doctor/post_commit.rs`); with capn's Claude Code plugin enabled,
//! the Claude hooks and the skill come from the plugin and are not expected in the settings
//! (`doctor/plugin.rs`).
//!
//! Doctor writes nothing outside its own temporary directory (under `TMPDIR`), which is removed
//! when it ends; it runs in well under a second (about 11 process starts). A `--wrap`ped user
//! statusline is run too, as Claude Code would run it; what that command does is its own.

mod launcher;
mod plugin;
mod post_commit;
mod safe_run;

use crate::cli::DoctorArgs;
use crate::hook::Host;
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
pub const HOOK_BUDGET: Duration = Duration::from_secs(2);

/// The most the statusline run may take (it is debounced 300 ms and cancelled by the next
/// update; hooks reference, section 2).
pub const STATUSLINE_BUDGET: Duration = Duration::from_secs(1);

/// The most characters a hook's stdout may hold: far below Claude Code's 10,000-character cap on
/// output strings (hooks reference, 1.5 "How `additionalContext` is delivered"), leaving room for
/// the JSON around an `additionalContext` under [`crate::hook::text::MAX_CHARS`].
pub const STDOUT_MAX_CHARS: usize = 4_000;

/// The most bytes kept of a child's stdout or stderr (the rest is read and dropped).
const CAPTURE_MAX: u64 = 1 << 20;

/// The fix for a missing or broken capn registration.
const FIX_INIT: &str = "capn init";

/// The session id of the synthetic payloads (valid per format.md).
const SESSION_ID: &str = "capn-doctor-0000";

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Nothing to do.
    Ok,
    /// Worth knowing, not a failure (does not change the exit code).
    Warn,
    /// Broken: the exit code becomes 1.
    Failed,
}

/// One line of the report (plus its fix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
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
    /// `  fix: <fix>` when there is one. Ends with a newline.
    pub fn render(&self) -> String {
        let tag = match self.status {
            Status::Ok => "ok    ",
            Status::Warn => "warn  ",
            Status::Failed => "FAILED ",
        };
        let mut s = format!("{tag}{}", self.what);
        if let Some(why) = &self.why {
            s.push_str(": ");
            s.push_str(why);
        }
        s.push('\n');
        if let Some(fix) = &self.fix {
            s.push_str("  fix: ");
            s.push_str(fix);
            s.push('\n');
        }
        s
    }
}

/// Runs `capn doctor`: prints the report; exit 0 when no check failed, 1 otherwise.
///
/// Errors: the working directory cannot be read, or the temporary directory cannot be created.
pub fn run(_args: &DoctorArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    let checks = diagnose(&store.root)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "capn doctor in {}", store.root.display())?;
    for c in &checks {
        out.write_all(c.render().as_bytes())?;
    }
    let failed = checks.iter().filter(|c| c.status == Status::Failed).count();
    let warned = checks.iter().filter(|c| c.status == Status::Warn).count();
    let warnings = match warned {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        n => format!(", {n} warnings"),
    };
    if failed == 0 {
        writeln!(out, "capn doctor: all {} checks ok{warnings}", checks.len())?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(
            out,
            "capn doctor: {failed} of {} checks failed{warnings}",
            checks.len()
        )?;
        Ok(ExitCode::from(1))
    }
}

/// Runs every check for the project at `root` and returns them in report order. Writes only
/// inside a temporary directory that is removed before it returns.
///
/// Errors: the temporary directory cannot be created.
pub fn diagnose(root: &Path) -> Result<Vec<Check>> {
    let sandbox = tempfile::Builder::new()
        .prefix("capn-doctor-")
        .tempdir()
        .context("could not create a temporary directory for the hook runs")?;
    let mut checks = Vec::new();
    let path = check_path(&mut checks);
    check_store(root, &mut checks);
    let files = load_settings(root, &mut checks);
    let post_commit_git = post_commit::check(root, &mut checks);
    let from_plugin = plugin::claude_hooks_from_plugin(&files, &mut checks);
    for spec in [&CLAUDE, &CODEX] {
        if from_plugin && spec.host == Host::Claude {
            let dir = sandbox.path().join("statusline");
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("could not create {}", dir.display()))?;
            run_statusline(root, &dir, &files, &path, &mut checks);
            continue;
        }
        let found = collect(spec, &files);
        check_registrations(spec, &files, &found, post_commit_git, &mut checks);
        if spec.host == Host::Claude {
            check_statusline_registration(&files, &mut checks);
        }
        let dir = sandbox.path().join(spec.label.to_ascii_lowercase());
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        run_hooks(spec, root, &dir, &found, &path, &mut checks);
        if spec.host == Host::Claude {
            let dir = sandbox.path().join("statusline");
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("could not create {}", dir.display()))?;
            run_statusline(root, &dir, &files, &path, &mut checks);
        }
    }
    launcher::check(
        &files,
        root,
        &sandbox.path().join("launcher"),
        &path,
        &mut checks,
    );
    if !from_plugin {
        check_skill(root, &mut checks);
    }
    sandbox
        .close()
        .context("could not remove doctor's temporary directory")?;
    Ok(checks)
}

// ---------------------------------------------------------------------------------------------
// 1. capn on PATH

/// Where `capn` on PATH is, relative to the running binary.
#[derive(Debug, Clone)]
enum OnPath {
    /// No executable `capn` in any PATH directory.
    Missing,
    /// The running binary.
    Same,
    /// Another file.
    Other(PathBuf),
}

fn exe_name() -> String {
    format!("capn{}", std::env::consts::EXE_SUFFIX)
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// The first executable `capn` in `PATH`, and the non-executable `capn` files seen before it.
fn find_on_path() -> (Option<PathBuf>, Vec<PathBuf>) {
    let mut skipped = Vec::new();
    let Some(path) = std::env::var_os("PATH") else {
        return (None, skipped);
    };
    for dir in std::env::split_paths(&path) {
        if dir.as_os_str().is_empty() {
            continue;
        }
        let p = dir.join(exe_name());
        if is_executable(&p) {
            return (Some(p), skipped);
        }
        if p.exists() {
            skipped.push(p);
        }
    }
    (None, skipped)
}

/// The command that installs capn, or puts this binary's folder on PATH.
fn path_fix() -> String {
    let dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    match dir {
        Some(d) => format!(
            "cargo install --path . (in the capn-hook source), or add this binary's folder to PATH: export PATH=\"{}:$PATH\"",
            d.display()
        ),
        None => "cargo install --path . (in the capn-hook source)".to_string(),
    }
}

fn check_path(checks: &mut Vec<Check>) -> OnPath {
    let what = "capn on PATH";
    let (found, skipped) = find_on_path();
    let Some(found) = found else {
        let mut why = "no executable capn in any PATH directory; the hooks and the statusline run `capn` by name".to_string();
        if !skipped.is_empty() {
            let list: Vec<String> = skipped.iter().map(|p| p.display().to_string()).collect();
            why.push_str(&format!(" (not executable: {})", list.join(", ")));
        }
        checks.push(Check::failed(what, why, path_fix()));
        return OnPath::Missing;
    };
    let me = std::env::current_exe().and_then(std::fs::canonicalize);
    let same = me
        .as_ref()
        .ok()
        .is_some_and(|me| std::fs::canonicalize(&found).is_ok_and(|f| &f == me));
    if same {
        checks.push(Check::ok(format!(
            "{what}: {} (this binary, capn {})",
            found.display(),
            env!("CARGO_PKG_VERSION")
        )));
        return OnPath::Same;
    }
    let mut version = Command::new(&found);
    version.arg("--version");
    let out = run_captured(version, b"", STATUSLINE_BUDGET);
    let reported = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let reported = if out.success() && !reported.is_empty() {
        reported
    } else {
        "no version".to_string()
    };
    let me = me
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "unknown".into());
    checks.push(Check::warn(
        format!("{what}: {}", found.display()),
        format!(
            "it is not this binary ({me}, capn {}); it reports {reported:?}, and the hooks run it",
            env!("CARGO_PKG_VERSION")
        ),
        Some(format!(
            "if it is stale: cargo install --path . (in the capn-hook source), or put {} first on PATH",
            Path::new(&me).parent().unwrap_or(Path::new(".")).display()
        )),
    ));
    OnPath::Other(found)
}

// ---------------------------------------------------------------------------------------------
// 2. The store

fn check_store(root: &Path, checks: &mut Vec<Check>) {
    let store = Store::at(root.to_path_buf());
    if !store.exists() {
        checks.push(Check::failed(
            "store .capn/",
            format!("{} does not exist", store.dir.display()),
            FIX_INIT,
        ));
        return;
    }
    match crate::cmd::statusline::chart_count(root) {
        Some(n) => checks.push(Check::ok(format!(
            "store .capn/ ({n} chart{})",
            if n == 1 { "" } else { "s" }
        ))),
        None => checks.push(Check::failed(
            "store .capn/",
            format!("{} is missing", store.entries_dir().display()),
            FIX_INIT,
        )),
    }
    let path = store.config_path();
    use crate::fsutil::{limits, read_limited, Follow, ReadError};
    let text = match read_limited(&path, limits::CONFIG, Follow::Never)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
    {
        Ok(t) => t,
        Err(ReadError::NotFound) => return,
        Err(e) => {
            checks.push(Check::failed(
                ".capn/config.json",
                format!("could not read {}: {e}", path.display()),
                format!("make {} readable", path.display()),
            ));
            return;
        }
    };
    let fix = format!(
        "edit {} (keys: \"embedding\": true|false, \"warn_at\": 1..100), or delete it and run capn init",
        path.display()
    );
    let problem = match serde_json::from_str::<Value>(&text) {
        Err(e) => Some(format!("{} is not JSON: {e}", path.display())),
        Ok(Value::Object(m)) => {
            let mut p = Vec::new();
            if m.get("embedding").is_some_and(|v| !v.is_boolean()) {
                p.push(format!(
                    "\"embedding\" is {}, not true or false",
                    m["embedding"]
                ));
            }
            if m.get("warn_at")
                .is_some_and(|v| !v.as_u64().is_some_and(|n| (1..=100).contains(&n)))
            {
                p.push(format!(
                    "\"warn_at\" is {}, not an integer 1..100 (the statusline uses {} instead)",
                    m["warn_at"],
                    crate::config::DEFAULT_WARN_AT
                ));
            }
            (!p.is_empty()).then(|| format!("{}: {}", path.display(), p.join("; ")))
        }
        Ok(_) => Some(format!("{} is not a JSON object", path.display())),
    };
    match problem {
        None => checks.push(Check::ok(".capn/config.json parses")),
        Some(why) => checks.push(Check::failed(".capn/config.json", why, fix)),
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Settings files

/// One host's settings files and what `capn init` registers there.
struct HostSpec {
    host: Host,
    label: &'static str,
    /// The project files `capn init` writes (relative to the root).
    files: &'static [&'static str],
    /// The user-level file the host merges in too (`~/` is the home dir); read, never written.
    user_file: &'static str,
    table: &'static str,
}

impl HostSpec {
    /// True when `rel` is one of this host's files (project or user level).
    fn owns(&self, rel: &str) -> bool {
        self.files.contains(&rel) || self.user_file == rel
    }

    /// Every file of the host, for messages: `a, b or c`.
    fn all_files(&self) -> String {
        let mut all: Vec<&str> = self.files.to_vec();
        all.push(self.user_file);
        let last = all.pop().unwrap_or_default();
        if all.is_empty() {
            last.to_string()
        } else {
            format!("{} or {last}", all.join(", "))
        }
    }
}

const CLAUDE: HostSpec = HostSpec {
    host: Host::Claude,
    label: "Claude",
    files: &[".claude/settings.json", ".claude/settings.local.json"],
    user_file: "~/.claude/settings.json",
    table: install::CLAUDE_TABLE,
};

const CODEX: HostSpec = HostSpec {
    host: Host::Codex,
    label: "Codex",
    files: &[".codex/hooks.json"],
    user_file: "~/.codex/hooks.json",
    table: install::CODEX_TABLE,
};

/// A settings file as doctor read it.
struct Loaded {
    rel: &'static str,
    /// `None` when it does not parse (reported already).
    file: Option<SettingsFile>,
}

impl Loaded {
    fn json(&self) -> Option<&Map<String, Value>> {
        self.file.as_ref().filter(|f| f.existed).map(|f| &f.json)
    }
}

/// Loads the project's settings files and the user-level ones (`~/.claude/settings.json`,
/// `~/.codex/hooks.json`, which the hosts merge in), reporting each existing file.
fn load_settings(root: &Path, checks: &mut Vec<Check>) -> Vec<Loaded> {
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let mut out = Vec::new();
    for spec in [&CLAUDE, &CODEX] {
        let user = home
            .as_ref()
            .map(|h| (spec.user_file, h.join(&spec.user_file["~/".len()..])));
        let project = spec.files.iter().map(|rel| (*rel, root.join(rel)));
        for (rel, path) in project.chain(user) {
            let user_level = rel.starts_with('~');
            let loaded = if user_level {
                SettingsFile::load_user(&path)
            } else {
                SettingsFile::load(&path)
            };
            match loaded {
                Ok(f) => {
                    if f.existed {
                        checks.push(Check::ok(format!("{rel} parses")));
                    }
                    out.push(Loaded { rel, file: Some(f) });
                }
                Err(e) => {
                    let then = if user_level {
                        String::new()
                    } else {
                        ", then run capn init".to_string()
                    };
                    checks.push(Check::failed(
                        rel.to_string(),
                        format!("{e:#}"),
                        format!(
                            "fix the JSON of {} by hand (capn never rewrites a file that does not parse){then}",
                            path.display()
                        ),
                    ));
                    out.push(Loaded { rel, file: None });
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// 4. Registrations

/// A capn handler found in a settings file.
#[derive(Debug, Clone)]
struct Ours {
    rel: &'static str,
    event: String,
    matcher: Option<Value>,
    handler: Value,
    sub: String,
}

/// Everything of capn's registered for one host.
struct Found {
    ours: Vec<Ours>,
    /// (file, event) of each capn-hook 0.2 handler.
    legacy: Vec<(&'static str, String)>,
}

fn collect(spec: &HostSpec, files: &[Loaded]) -> Found {
    let mut found = Found {
        ours: Vec::new(),
        legacy: Vec::new(),
    };
    for f in files.iter().filter(|f| spec.owns(f.rel)) {
        let Some(json) = f.json() else {
            continue;
        };
        for (event, g, h) in install::handlers(json) {
            if let Some(sub) = install::our_subcommand(h) {
                found.ours.push(Ours {
                    rel: f.rel,
                    event: event.to_string(),
                    matcher: g.get("matcher").cloned(),
                    handler: h.clone(),
                    sub,
                });
            } else if install::is_legacy(h) {
                found.legacy.push((f.rel, event.to_string()));
            }
        }
    }
    found
}

/// The (event, matcher, handler) triples of a registration table.
fn table_entries(table: &str) -> Vec<(String, Option<Value>, Value)> {
    let t: Map<String, Value> = serde_json::from_str(table).unwrap_or_default();
    install::handlers(&t)
        .into_iter()
        .map(|(event, g, h)| (event.to_string(), g.get("matcher").cloned(), h.clone()))
        .collect()
}

/// The event a capn hook subcommand answers.
fn event_of(sub: &str) -> Option<&'static str> {
    match sub {
        "session-start" => Some("SessionStart"),
        "pre-compact" => Some("PreCompact"),
        "post-compact" => Some("PostCompact"),
        "user-prompt-submit" => Some("UserPromptSubmit"),
        _ => None,
    }
}

/// True when a matcher selects `value` (hooks reference, 1.1 "Matcher syntax": `*`, `""` or no
/// matcher match everything; only `[A-Za-z0-9_- ,|]` is a list of exact names; anything else an
/// unanchored regular expression). `Err` for a regular expression that does not compile.
fn matcher_matches(matcher: Option<&Value>, value: &str) -> std::result::Result<bool, String> {
    let m = match matcher {
        None | Some(Value::Null) => return Ok(true),
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(format!("matcher {other} is not a string")),
    };
    if m.is_empty() || m == "*" {
        return Ok(true);
    }
    let is_list = m
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_- ,|".contains(c));
    if is_list {
        return Ok(m.split(['|', ',']).map(str::trim).any(|n| n == value));
    }
    regex::Regex::new(m)
        .map(|re| re.is_match(value))
        .map_err(|e| format!("matcher {m:?} is not a valid regular expression: {e}"))
}

/// The words of a handler's command line (exec form: `command` then `args`).
fn words(handler: &Value) -> Vec<String> {
    let mut w: Vec<String> = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if let Some(args) = handler.get("args").and_then(Value::as_array) {
        w.extend(args.iter().map(|a| a.as_str().unwrap_or("").to_string()));
    }
    w
}

/// True when the words carry `--host codex` (or `--host=codex`).
fn says_codex(words: &[String]) -> bool {
    words
        .windows(2)
        .any(|p| p[0] == "--host" && p[1] == "codex")
        || words.iter().any(|w| w == "--host=codex")
}

/// What is wrong with one capn handler registered where the table wants it.
fn handler_problems(spec: &HostSpec, o: &Ours, table_matcher: Option<&Value>) -> Vec<String> {
    let h = &o.handler;
    let mut p = Vec::new();
    match h.get("type").and_then(Value::as_str) {
        Some("command") => {}
        other => p.push(format!(
            "\"type\" is {}, not \"command\": the host does not run it as a program",
            other.map_or("missing".to_string(), |t| format!("{t:?}"))
        )),
    }
    if h.get("async").and_then(Value::as_bool) == Some(true) {
        p.push("\"async\": true: the host ignores an async hook's output".into());
    }
    let w = words(h);
    match spec.host {
        Host::Claude => {
            if !h.get("args").is_some_and(Value::is_array) {
                p.push("shell form (\"command\" without \"args\"): capn registers the exec form, which no shell can break".into());
            }
            match h.get("timeout") {
                None => p.push("no explicit \"timeout\" (the default is 600 s)".into()),
                Some(t) if !t.as_f64().is_some_and(|t| t > 0.0) => p.push(format!(
                    "\"timeout\" is {t}, not a positive number of seconds"
                )),
                Some(_) => {}
            }
            if says_codex(&w) {
                p.push("it answers with --host codex on Claude Code".into());
            }
        }
        Host::Codex => {
            if h.get("args").is_some() {
                p.push("Codex ignores \"args\" and runs only \"command\"".into());
            }
            if !says_codex(&w) {
                p.push("no --host codex: Codex gets the Claude Code wording".into());
            }
            if let Some(t) = h.get("timeout") {
                if !t.as_f64().is_some_and(|t| t > 0.0) {
                    p.push(format!(
                        "\"timeout\" is {t}, not a positive number of seconds"
                    ));
                }
            }
        }
    }
    if let Some(Value::String(want)) = table_matcher {
        let mut missing = Vec::new();
        for v in want.split('|') {
            match matcher_matches(o.matcher.as_ref(), v) {
                Ok(true) => {}
                Ok(false) => missing.push(v),
                Err(e) => {
                    p.push(e);
                    break;
                }
            }
        }
        if !missing.is_empty() {
            p.push(format!(
                "matcher {} does not select {}: the hook does not run then",
                o.matcher.as_ref().map_or("(none)".into(), Value::to_string),
                missing.join(", ")
            ));
        }
    }
    p
}

/// The command `capn uninstall && capn init` (with `--git` when the post-commit hook runs
/// `capn prune`, which uninstall removes).
fn reinstall_cmd(git: bool) -> String {
    format!(
        "capn uninstall && capn init{}",
        if git { " --git" } else { "" }
    )
}

/// A handler as the line a user reads: `capn hook session-start` (exec form args joined).
fn display(handler: &Value) -> String {
    let mut s = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    if let Some(args) = handler.get("args").and_then(Value::as_array) {
        for a in args {
            let a = a.as_str().unwrap_or("");
            s.push(' ');
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                s.push_str(&install::shell_single_quote(a));
            } else {
                s.push_str(a);
            }
        }
    }
    s
}

fn check_registrations(
    spec: &HostSpec,
    files: &[Loaded],
    found: &Found,
    git: bool,
    checks: &mut Vec<Check>,
) {
    let broken: Vec<&str> = files
        .iter()
        .filter(|f| spec.owns(f.rel) && f.file.is_none())
        .map(|f| f.rel)
        .collect();
    let table = table_entries(spec.table);
    for (event, table_matcher, table_handler) in &table {
        let Some(want) = install::our_subcommand(table_handler) else {
            continue;
        };
        let what = format!("{} {event} hook", spec.label);
        let matches: Vec<&Ours> = found
            .ours
            .iter()
            .filter(|o| &o.event == event && o.sub == want)
            .collect();
        if matches.is_empty() {
            let mut why = format!(
                "no `{}` handler under {event} in {}",
                display(table_handler),
                spec.all_files()
            );
            if !broken.is_empty() {
                why.push_str(&format!(" ({} does not parse)", broken.join(", ")));
            }
            checks.push(Check::failed(what, why, FIX_INIT));
            continue;
        }
        let table_json = Value::to_string(table_handler);
        for o in &matches {
            let problems = handler_problems(spec, o, table_matcher.as_ref());
            if problems.is_empty() {
                let timeout = o
                    .handler
                    .get("timeout")
                    .and_then(Value::as_f64)
                    .map_or(String::new(), |t| format!(", timeout {t} s"));
                let form = if o.handler.get("args").is_some() {
                    "exec form"
                } else {
                    "sh -c"
                };
                checks.push(Check::ok(format!(
                    "{what} registered in {}: {} ({form}{timeout})",
                    o.rel,
                    display(&o.handler)
                )));
            } else {
                checks.push(Check::failed(
                    format!("{what} in {}", o.rel),
                    problems.join("; "),
                    format!(
                        "in {}, replace that handler with {table_json} (or run: {})",
                        o.rel,
                        reinstall_cmd(git)
                    ),
                ));
            }
        }
        // Identical handlers in several files run once (hooks reference, 1.1 "Execution");
        // anything else runs once per copy.
        let mut distinct: Vec<&Ours> = Vec::new();
        let mut dup_in_file = false;
        for o in &matches {
            if distinct.iter().any(|d| d.rel == o.rel) {
                dup_in_file = true;
            }
            if !distinct.iter().any(|d| d.handler == o.handler) {
                distinct.push(o);
            }
        }
        if distinct.len() > 1 || dup_in_file {
            let places: Vec<String> = matches
                .iter()
                .map(|o| format!("{}: {}", o.rel, display(&o.handler)))
                .collect();
            checks.push(Check::failed(
                format!("{what} registered once"),
                format!(
                    "it is registered {} times ({}), so it runs more than once",
                    matches.len(),
                    places.join("; ")
                ),
                format!("keep one: remove the others from {}", {
                    let mut rels: Vec<&str> = matches.iter().map(|o| o.rel).collect();
                    rels.dedup();
                    rels.join(" and ")
                }),
            ));
        }
    }
    // capn handlers the table does not have: a wrong subcommand or a wrong event.
    for o in &found.ours {
        let expected = table.iter().any(|(e, _, h)| {
            e == &o.event && install::our_subcommand(h).as_deref() == Some(&o.sub)
        });
        if expected {
            continue;
        }
        let why = match event_of(&o.sub) {
            Some(e) if e != o.event => format!(
                "that is the {e} hook; on {} it answers nothing (it checks hook_event_name)",
                o.event
            ),
            Some(_) => format!("capn does not register a {} hook for {}", o.event, spec.label),
            None => format!(
                "`{}` is not a capn hook (capn hook takes session-start, pre-compact, post-compact or user-prompt-submit)",
                o.sub
            ),
        };
        checks.push(Check::failed(
            format!(
                "{} {} hook in {} runs `{}`",
                spec.label,
                o.event,
                o.rel,
                display(&o.handler)
            ),
            why,
            format!("remove that handler from {}, then run capn init", o.rel),
        ));
    }
    for (rel, event) in &found.legacy {
        checks.push(Check::failed(
            format!("{} {event} hook in {rel}", spec.label),
            "the capn-hook 0.2 registration (`capn context`) is still there; 0.3's hooks replace it",
            "capn init (replaces it)",
        ));
    }
}

/// The effective Claude Code statusline command and where it comes from: the local settings
/// override the project's, which override the user's `~/.claude/settings.json`.
fn effective_statusline(files: &[Loaded]) -> Option<(&'static str, Value)> {
    for rel in [
        ".claude/settings.local.json",
        ".claude/settings.json",
        CLAUDE.user_file,
    ] {
        let sl = files
            .iter()
            .find(|f| f.rel == rel)
            .and_then(Loaded::json)
            .and_then(|j| j.get("statusLine"));
        if let Some(sl) = sl {
            return Some((rel, sl.clone()));
        }
    }
    None
}

fn check_statusline_registration(files: &[Loaded], checks: &mut Vec<Check>) {
    let what = "Claude statusLine";
    let Some((rel, sl)) = effective_statusline(files) else {
        checks.push(Check::failed(
            what,
            format!("no statusLine in {}", CLAUDE.all_files()),
            FIX_INIT,
        ));
        return;
    };
    let command = sl.get("command").and_then(Value::as_str).unwrap_or("");
    if !install::is_our_statusline(command) {
        checks.push(Check::failed(
            what,
            format!("{rel} runs {command:?}, not capn statusline"),
            "capn init (ours then wraps it, so both show)",
        ));
        return;
    }
    if sl.get("type").and_then(Value::as_str) != Some("command") {
        checks.push(Check::failed(
            what,
            format!("{rel}: statusLine \"type\" is not \"command\""),
            format!("in {rel}, set statusLine.type to \"command\""),
        ));
        return;
    }
    match install::wrapped_statusline(command) {
        Some(theirs) => checks.push(Check::ok(format!(
            "{what} is capn statusline in {rel}, wrapping {theirs:?}"
        ))),
        None => checks.push(Check::ok(format!("{what} is capn statusline in {rel}"))),
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Hook runs

/// One step of the synthetic session: the event, and its `source` (SessionStart) or `trigger`
/// (PreCompact, PostCompact).
const SCENARIO: [(&str, Option<&str>); 5] = [
    ("SessionStart", Some("startup")),
    ("PreCompact", Some("manual")),
    ("PostCompact", Some("manual")),
    ("UserPromptSubmit", None),
    ("SessionStart", Some("compact")),
];

/// A synthetic stdin payload for `event` as `host` sends it, in session `sid`: the common fields
/// (hooks reference, 1.3 and 5) plus `source` (SessionStart), `trigger` (PreCompact,
/// PostCompact; `detail`), `prompt` (UserPromptSubmit) and the host's own fields (Claude Code:
/// `custom_instructions`, `compact_summary`; Codex: `model`, `turn_id`, `permission_mode`). The
/// Codex payloads validate against Codex's input schemas.
pub fn payload(
    host: Host,
    event: &str,
    detail: Option<&str>,
    sid: &str,
    cwd: &Path,
    transcript: &Path,
) -> Value {
    let mut v = json!({
        "session_id": sid,
        "transcript_path": transcript.display().to_string(),
        "cwd": cwd.display().to_string(),
        "hook_event_name": event,
    });
    let detail = detail.unwrap_or("");
    let extra = match (host, event) {
        (Host::Claude, "SessionStart") => json!({"source": detail, "model": "claude-sonnet-5"}),
        (Host::Claude, "PreCompact") => json!({"trigger": detail, "custom_instructions": ""}),
        (Host::Claude, "PostCompact") => json!({
            "trigger": detail,
            "compact_summary": "capn doctor: a synthetic compaction summary."
        }),
        (Host::Claude, "UserPromptSubmit") => json!({
            "prompt": "capn doctor: a synthetic prompt",
            "permission_mode": "default"
        }),
        (Host::Codex, "SessionStart") => json!({
            "source": detail, "model": "gpt-5.5", "permission_mode": "default"
        }),
        (Host::Codex, "PreCompact" | "PostCompact") => json!({
            "trigger": detail, "model": "gpt-5.5", "turn_id": "capn-doctor-turn-1"
        }),
        (Host::Codex, "UserPromptSubmit") => json!({
            "prompt": "capn doctor: a synthetic prompt",
            "model": "gpt-5.5",
            "permission_mode": "default",
            "turn_id": "capn-doctor-turn-2"
        }),
        _ => json!({}),
    };
    if let (Value::Object(m), Value::Object(x)) = (&mut v, extra) {
        m.extend(x);
    }
    v
}

/// A synthetic Claude Code statusline payload (hooks reference, section 2): 42.5 % of a
/// 200,000-token window in use, below the default warning threshold.
pub fn statusline_payload(sid: &str, root: &Path, transcript: &Path) -> Value {
    let root = root.display().to_string();
    json!({
        "hook_event_name": "Status",
        "session_id": sid,
        "transcript_path": transcript.display().to_string(),
        "cwd": root,
        "version": "2.1.240",
        "model": {"id": "claude-sonnet-5", "display_name": "Sonnet 5"},
        "workspace": {"current_dir": root, "project_dir": root},
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": 0.01, "total_duration_ms": 1000, "total_api_duration_ms": 500,
                 "total_lines_added": 0, "total_lines_removed": 0},
        "context_window": {
            "total_input_tokens": 85000, "total_output_tokens": 1200,
            "context_window_size": 200000, "used_percentage": 42.5, "remaining_percentage": 57.5,
            "current_usage": {"input_tokens": 5000, "output_tokens": 1200,
                              "cache_creation_input_tokens": 10000, "cache_read_input_tokens": 70000}
        },
        "exceeds_200k_tokens": false
    })
}

/// How doctor starts a handler: the program and its arguments, without a shell.
use safe_run::SafeRun as Invocation;

/// Claude Code's exec form substitutes its path placeholders verbatim (hooks reference, 1.1).
fn substitute(s: &str, root: &Path) -> String {
    let r = root.display().to_string();
    s.replace("${CLAUDE_PROJECT_DIR}", &r)
        .replace("$CLAUDE_PROJECT_DIR", &r)
}

/// How doctor starts a registered handler: only when its command line is one of capn's own
/// ([`safe_run`]), as an argument vector without a shell. The exec form's placeholders are
/// substituted as the host does (hooks reference, 1.1); a shell-form line is split into words.
///
/// Errors: why the handler is not run (it is not capn's own command line).
fn invocation(host: Host, handler: &Value, root: &Path) -> Result<Invocation, String> {
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let argv: Vec<String> = match (host, handler.get("args").and_then(Value::as_array)) {
        (Host::Claude, Some(args)) => std::iter::once(substitute(command.trim(), root))
            .chain(
                args.iter()
                    .map(|a| substitute(a.as_str().unwrap_or(""), root)),
            )
            .collect(),
        _ => safe_run::split_shell(&command).ok_or_else(|| {
            format!("not run by capn doctor: `{command}` does not parse as a command line")
        })?,
    };
    safe_run::check(&argv, root)
}

/// What a child process did.
#[derive(Debug, Default)]
struct Outcome {
    status: Option<ExitStatus>,
    spawn_error: Option<std::io::Error>,
    timed_out: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
}

impl Outcome {
    fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// The first non-empty stderr line, cut to 200 characters.
    fn stderr_line(&self) -> Option<String> {
        let text = String::from_utf8_lossy(&self.stderr);
        let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        Some(line.chars().take(200).collect())
    }
}

/// Runs `cmd` with `stdin`, capturing stdout and stderr (at most [`CAPTURE_MAX`] bytes each),
/// and kills it (its whole process group on Unix) after `budget`.
fn run_captured(mut cmd: Command, stdin: &[u8], budget: Duration) -> Outcome {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                spawn_error: Some(e),
                ..Outcome::default()
            }
        }
    };
    if let Some(mut sin) = child.stdin.take() {
        let data = stdin.to_vec();
        // Detached: a child that never reads its stdin must not hold doctor up.
        std::thread::spawn(move || {
            let _ = sin.write_all(&data);
        });
    }
    let (tx, rx) = mpsc::channel::<(u8, Vec<u8>)>();
    fn reader(
        pipe: Option<impl Read + Send + 'static>,
        which: u8,
        tx: mpsc::Sender<(u8, Vec<u8>)>,
    ) {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = (&mut p).take(CAPTURE_MAX).read_to_end(&mut buf);
                let _ = std::io::copy(&mut p, &mut std::io::sink());
            }
            let _ = tx.send((which, buf));
        });
    }
    reader(child.stdout.take(), 0, tx.clone());
    reader(child.stderr.take(), 1, tx);
    let mut out = Outcome::default();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                out.status = Some(status);
                break;
            }
            Ok(None) if start.elapsed() >= budget => {
                crate::process::kill_group(&mut child);
                out.status = child.wait().ok();
                out.timed_out = true;
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                crate::process::kill_group(&mut child);
                out.spawn_error = Some(e);
                break;
            }
        }
    }
    out.elapsed = start.elapsed();
    // A grandchild may still hold the pipes open: wait a little, then keep what arrived.
    let until = Instant::now() + Duration::from_millis(250);
    for _ in 0..2 {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok((0, b)) => out.stdout = b,
            Ok((_, b)) => out.stderr = b,
            Err(_) => break,
        }
    }
    out
}

/// The registered timeout of a handler in seconds (the hosts' default is 600; capped at a day so
/// any registered number makes a valid [`Duration`]).
fn registered_timeout(handler: &Value) -> f64 {
    handler
        .get("timeout")
        .and_then(Value::as_f64)
        .filter(|t| *t > 0.0)
        .map_or(600.0, |t| t.min(86_400.0))
}

/// Checks a hook's stdout against what the host accepts for `event`. `Ok` carries the
/// `additionalContext` (if any); `Err` the reason the host would reject or misread the reply.
fn check_output(
    host: Host,
    event: &str,
    stdout: &str,
    schemas: &[(&str, Schema)],
) -> std::result::Result<Option<String>, String> {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let snippet: String = trimmed.chars().take(80).collect();
    if matches!(event, "PreCompact" | "PostCompact") {
        return Err(format!(
            "printed {snippet:?} on {event}, which must print nothing (a reply there is dropped whole)"
        ));
    }
    let chars = stdout.chars().count();
    if chars > STDOUT_MAX_CHARS {
        return Err(format!(
            "stdout is {chars} characters; capn keeps it under {STDOUT_MAX_CHARS} (Claude Code cuts at 10,000)"
        ));
    }
    if !trimmed.starts_with('{') {
        return Err(format!(
            "stdout is not one JSON object: {snippet:?} (plain text or a stray line before the JSON)"
        ));
    }
    let v: Value = serde_json::from_str(trimmed)
        .map_err(|e| format!("stdout is not exactly one JSON object: {e}"))?;
    let obj = v.as_object().ok_or("stdout is not a JSON object")?;
    if host == Host::Claude {
        // Hooks reference, 1.5 "Universal fields".
        const TOP: [&str; 8] = [
            "continue",
            "stopReason",
            "suppressOutput",
            "systemMessage",
            "terminalSequence",
            "decision",
            "reason",
            "hookSpecificOutput",
        ];
        if let Some(k) = obj.keys().find(|k| !TOP.contains(&k.as_str())) {
            return Err(format!(
                "unknown key {k:?}: Claude Code reports a hook error for the reply"
            ));
        }
    }
    if obj.get("continue") == Some(&Value::Bool(false)) {
        return Err("\"continue\": false stops the agent".into());
    }
    if obj.get("decision").and_then(Value::as_str) == Some("block") {
        return Err(format!("\"decision\": \"block\" blocks {event}"));
    }
    let mut context = None;
    if let Some(h) = obj.get("hookSpecificOutput") {
        let h = h
            .as_object()
            .ok_or("\"hookSpecificOutput\" is not an object")?;
        match h.get("hookEventName").and_then(Value::as_str) {
            Some(e) if e == event => {}
            Some(e) => {
                return Err(format!(
                "hookSpecificOutput.hookEventName is {e:?}, not {event:?}: the reply is rejected"
            ))
            }
            None => {
                return Err("hookSpecificOutput has no hookEventName: the reply is rejected".into())
            }
        }
        if host == Host::Claude {
            // Hooks reference, 1.4: SessionStart and UserPromptSubmit outputs.
            let allowed: &[&str] = match event {
                "SessionStart" => &[
                    "hookEventName",
                    "additionalContext",
                    "sessionTitle",
                    "reloadSkills",
                    "watchPaths",
                    "initialUserMessage",
                ],
                _ => &["hookEventName", "additionalContext", "sessionTitle"],
            };
            if let Some(k) = h.keys().find(|k| !allowed.contains(&k.as_str())) {
                return Err(format!("hookSpecificOutput.{k} is not accepted on {event}"));
            }
        }
        if let Some(c) = h.get("additionalContext") {
            let c = c
                .as_str()
                .ok_or("hookSpecificOutput.additionalContext is not a string")?;
            let n = c.chars().count();
            if n >= crate::hook::text::MAX_CHARS {
                return Err(format!(
                    "additionalContext is {n} characters; capn's cap is under {}",
                    crate::hook::text::MAX_CHARS
                ));
            }
            context = Some(c.to_string());
        }
    }
    for (name, s) in schemas {
        let errs = s.validate(&v);
        if !errs.is_empty() {
            return Err(format!(
                "does not match Codex's {name} schema: {}",
                errs.join("; ")
            ));
        }
    }
    Ok(context)
}

/// Compiles the embedded Codex output schemas of `event` (none for Claude Code).
fn schemas_for(
    host: Host,
    event: &str,
) -> std::result::Result<Vec<(&'static str, Schema)>, String> {
    if host != Host::Codex {
        return Ok(Vec::new());
    }
    install::schema::codex_output_schemas(event)
        .into_iter()
        .map(|(name, text)| {
            Schema::parse(text)
                .map(|s| (name, s))
                .map_err(|e| format!("the embedded Codex schema {name} cannot be used: {e}"))
        })
        .collect()
}

/// The fix for a hook run that failed.
fn run_fix(spec: &HostSpec, o: &Ours, out: &Outcome, path: &OnPath) -> String {
    let not_found = out
        .spawn_error
        .as_ref()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        || out.status.and_then(|s| s.code()) == Some(127);
    if not_found
        && invocation(spec.host, &o.handler, Path::new("/"))
            .is_ok_and(|inv| runs_capn_by_name(&inv))
    {
        return path_fix();
    }
    let table = table_entries(spec.table);
    let want = table
        .iter()
        .find(|(e, _, h)| e == &o.event && install::our_subcommand(h).as_deref() == Some(&o.sub))
        .or_else(|| table.iter().find(|(e, _, _)| e == &o.event));
    if let Some((_, _, h)) = want {
        if h != &o.handler {
            return format!("in {}, replace that handler with {h}", o.rel);
        }
    }
    if let OnPath::Other(p) = path {
        return format!(
            "the hooks run {}, not this capn: update it with cargo install --path . (in the capn-hook source)",
            p.display()
        );
    }
    format!(
        "none from here: capn {} answers wrongly; please report it with this output",
        env!("CARGO_PKG_VERSION")
    )
}

/// Why a finished run is not a success, if it is not.
/// What ran: a hook for an event, or the statusline.
#[derive(Debug, Clone, Copy)]
enum Runs<'a> {
    Hook(Host, &'a str),
    Statusline,
}

/// Why a finished run is not a success (spawn error, timeout, non-zero exit), if it is not.
fn exit_problem(
    runs: Runs<'_>,
    program: &str,
    out: &Outcome,
    budget: Duration,
    timeout: f64,
) -> Option<String> {
    let stderr = out
        .stderr_line()
        .map(|l| format!(" (stderr: {l})"))
        .unwrap_or_default();
    if let Some(e) = &out.spawn_error {
        if e.kind() == std::io::ErrorKind::NotFound {
            return Some(format!("could not run {program}: not found"));
        }
        return Some(format!("could not run {program}: {e}"));
    }
    let ms = budget.as_millis();
    let (host, event) = match runs {
        Runs::Hook(host, event) => (host, event),
        Runs::Statusline => {
            if out.timed_out {
                return Some(format!(
                    "no line within {ms} ms; Claude Code debounces the status line by 300 ms and cancels a run when the next update comes"
                ));
            }
            return match out.status?.code() {
                Some(0) => None,
                Some(c) => Some(format!(
                    "exit {c}: Claude Code blanks the status line{stderr}"
                )),
                None => Some(format!("killed by a signal{stderr}")),
            };
        }
    };
    if out.timed_out {
        return Some(format!(
            "no answer within {ms} ms (registered timeout {timeout} s); the host discards a late reply"
        ));
    }
    let status = out.status?;
    match status.code() {
        Some(0) => None,
        // Hooks reference, 1.2 (Claude Code) and 5 (Codex).
        Some(2) => Some(format!(
            "exit 2: {}{stderr}",
            match (host, event) {
                (Host::Claude, "UserPromptSubmit") =>
                    "Claude Code reads it as \"block\" and erases the prompt",
                (Host::Claude, "PreCompact") =>
                    "Claude Code reads it as \"block\" and blocks the compaction",
                (Host::Claude, _) =>
                    "Claude Code reports the hook as failed (and blocks where it can)",
                (Host::Codex, "UserPromptSubmit") =>
                    "Codex reads it as \"block\" and blocks the prompt",
                (Host::Codex, _) => "Codex reports the hook as failed",
            }
        )),
        Some(127) => Some(format!("exit 127: command not found{stderr}")),
        Some(c) => Some(format!(
            "exit {c}: the host reports the hook as failed{stderr}"
        )),
        None => Some(format!("killed by a signal ({status}){stderr}")),
    }
}

fn run_hooks(
    spec: &HostSpec,
    root: &Path,
    dir: &Path,
    found: &Found,
    path: &OnPath,
    checks: &mut Vec<Check>,
) {
    let state = dir.join("state");
    let transcript = dir.join("transcript.jsonl");
    let Some(id) = SessionId::parse(SESSION_ID) else {
        return;
    };
    let session = SessionDir::new(&state, &id);
    let mut env_files = 0;
    let mut skipped: Vec<String> = Vec::new();
    for (event, detail) in SCENARIO {
        let mut handlers: Vec<&Ours> = Vec::new();
        for o in found.ours.iter().filter(|o| o.event == event) {
            // An identical handler in several files runs once (hooks reference, 1.1).
            if !handlers.iter().any(|h| h.handler == o.handler) {
                handlers.push(o);
            }
        }
        for o in handlers {
            if o.handler.get("type").and_then(Value::as_str) != Some("command") {
                continue; // not run by the host as a program; reported by the registration check
            }
            let inv = match invocation(spec.host, &o.handler, root) {
                Ok(inv) => inv,
                Err(why) => {
                    checks.push(Check::warn(
                        format!("{} {event} runs `{}`", spec.label, display(&o.handler)),
                        why,
                        None,
                    ));
                    continue;
                }
            };
            if matches!(path, OnPath::Missing) && runs_capn_by_name(&inv) {
                if !skipped.contains(&o.event) {
                    skipped.push(o.event.clone());
                }
                continue;
            }
            let label = match detail {
                Some(d) => format!("{} {event}({d})", spec.label),
                None => format!("{} {event}", spec.label),
            };
            let what = format!("{label} runs `{}`", display(&o.handler));
            let schemas = match schemas_for(spec.host, event) {
                Ok(s) => s,
                Err(e) => {
                    checks.push(Check::failed(what, e, "none from here: please report it"));
                    continue;
                }
            };
            let mut cmd = Command::new(&inv.program);
            cmd.args(&inv.args)
                .current_dir(root)
                .env(session::STATE_DIR_ENV, &state)
                .env_remove("CAPN_SESSION_ID")
                .env_remove("CLAUDE_CODE_SESSION_ID")
                .env_remove("CLAUDE_ENV_FILE")
                .env_remove("CLAUDE_PROJECT_DIR");
            let env_file = (spec.host == Host::Claude && event == "SessionStart").then(|| {
                env_files += 1;
                dir.join(format!("claude-env-{env_files}.sh"))
            });
            if spec.host == Host::Claude {
                cmd.env("CLAUDE_PROJECT_DIR", root);
            }
            if let Some(f) = &env_file {
                cmd.env("CLAUDE_ENV_FILE", f);
            }
            let timeout = registered_timeout(&o.handler);
            let budget = HOOK_BUDGET.min(Duration::from_secs_f64(timeout / 2.0));
            let marker_before = session.has(session::COMPACTED);
            let bytes =
                payload(spec.host, event, detail, SESSION_ID, root, &transcript).to_string();
            let out = run_captured(cmd, bytes.as_bytes(), budget);
            let fail = |why: String| Check::failed(what.clone(), why, run_fix(spec, o, &out, path));
            if let Some(why) = exit_problem(
                Runs::Hook(spec.host, event),
                &inv.program,
                &out,
                budget,
                timeout,
            ) {
                checks.push(fail(why));
                continue;
            }
            let Ok(stdout) = std::str::from_utf8(&out.stdout) else {
                checks.push(fail("stdout is not valid UTF-8".to_string()));
                continue;
            };
            let context = match check_output(spec.host, event, stdout, &schemas) {
                Ok(c) => c.filter(|c| !c.trim().is_empty()),
                Err(why) => {
                    checks.push(fail(why));
                    continue;
                }
            };
            let ms = out.elapsed.as_millis();
            let said = match &context {
                Some(c) => format!("{} characters of context", c.chars().count()),
                None => "no output".to_string(),
            };
            let problem = match event {
                "SessionStart" if context.is_none() => Some(match detail {
                    Some("compact") => {
                        "printed no context: the compaction recovery is not injected".to_string()
                    }
                    _ => "printed no context: the ask-before-search contract is not injected"
                        .to_string(),
                }),
                "SessionStart" => env_file.as_ref().and_then(|f| {
                    let line = format!("export CAPN_SESSION_ID={SESSION_ID}");
                    let text = crate::fsutil::read_limited(
                        f,
                        crate::fsutil::limits::HOST_FILE,
                        crate::fsutil::Follow::Anywhere,
                    )
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                    (!text.lines().any(|l| l == line)).then(|| {
                        format!("did not append `{line}` to $CLAUDE_ENV_FILE: /compact-prep and capn state cannot find the session")
                    })
                }),
                "PreCompact" if !session.has(session::PRECOMPACT) => Some(
                    "left no precompact.json in the session's state dir: the recovery cannot say whether /compact-prep ran"
                        .to_string(),
                ),
                "PostCompact" if !session.has(session::COMPACTED) => Some(
                    "left no compaction marker (compacted.json): the recovery would not reach the next prompt"
                        .to_string(),
                ),
                "UserPromptSubmit" if marker_before && context.is_none() => Some(
                    "printed no context after a compaction: the recovery is not delivered"
                        .to_string(),
                ),
                _ => None,
            };
            match problem {
                Some(why) => {
                    let stderr = out
                        .stderr_line()
                        .map(|l| format!(" (stderr: {l})"))
                        .unwrap_or_default();
                    checks.push(fail(format!("{why}{stderr}")))
                }
                None => {
                    let schema_note = if schemas.is_empty() || context.is_none() {
                        String::new()
                    } else {
                        ", valid for Codex".to_string()
                    };
                    checks.push(Check::ok(format!("{what}: {said}{schema_note} ({ms} ms)")));
                }
            }
        }
    }
    if !skipped.is_empty() {
        checks.push(Check::failed(
            format!("{} hooks", spec.label),
            format!(
                "not run ({}): they start `capn` by name and it is not on PATH, so the host cannot run them either",
                skipped.join(", ")
            ),
            path_fix(),
        ));
    }
}

/// True when an invocation starts `capn` by bare name (exec form, or the first word of the
/// shell command), so it depends on `capn` being on PATH.
fn runs_capn_by_name(inv: &Invocation) -> bool {
    inv.by_name()
}

fn run_statusline(
    root: &Path,
    dir: &Path,
    files: &[Loaded],
    path: &OnPath,
    checks: &mut Vec<Check>,
) {
    let Some((rel, sl)) = effective_statusline(files) else {
        return;
    };
    let Some(command) = sl.get("command").and_then(Value::as_str) else {
        return;
    };
    if !install::is_our_statusline(command) {
        return;
    }
    let what = format!("Claude statusline runs `{command}`");
    let checked = safe_run::split_shell(command)
        .ok_or_else(|| format!("not run by capn doctor: `{command}` does not parse"))
        .and_then(|argv| safe_run::check(&argv, root));
    let inv = match checked {
        Ok(inv) => inv,
        Err(why) => {
            checks.push(Check::warn("Claude statusline", why, None));
            return;
        }
    };
    if matches!(path, OnPath::Missing) && runs_capn_by_name(&inv) {
        checks.push(Check::failed(
            "Claude statusline",
            format!("`{command}` not run: it starts `capn` by name and it is not on PATH"),
            path_fix(),
        ));
        return;
    }
    // Without a shell, and without `--wrap`: the wrapped command is the repository's own.
    let mut cmd = Command::new(&inv.program);
    cmd.args(&inv.args)
        .current_dir(root)
        .env(session::STATE_DIR_ENV, dir.join("state"))
        .env_remove("CAPN_SESSION_ID")
        .env_remove("CLAUDE_ENV_FILE")
        .env_remove("CLAUDE_PROJECT_DIR");
    let payload = statusline_payload(SESSION_ID, root, &dir.join("transcript.jsonl")).to_string();
    let out = run_captured(cmd, payload.as_bytes(), STATUSLINE_BUDGET);
    let fix = if out
        .spawn_error
        .as_ref()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        || out.status.and_then(|s| s.code()) == Some(127)
    {
        path_fix()
    } else {
        format!(
            "in {rel}, set statusLine.command to \"{}\" (or run: capn uninstall && capn init)",
            install::STATUSLINE_COMMAND
        )
    };
    if let Some(why) = exit_problem(Runs::Statusline, "sh", &out, STATUSLINE_BUDGET, 1.0) {
        checks.push(Check::failed(what, why, fix));
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let text = stdout.strip_suffix('\n').unwrap_or(&stdout);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let wraps = install::wrapped_statusline(command).is_some();
    let last = lines.last().copied().unwrap_or("");
    let problem = if text.trim().is_empty() {
        Some("printed nothing: Claude Code shows an empty status line".to_string())
    } else if lines.len() != 1 && !wraps {
        Some(format!("printed {} lines, not one", lines.len()))
    } else if !last.contains("ctx ") {
        Some(format!("the capn segment (ctx …) is missing from {last:?}"))
    } else {
        None
    };
    match problem {
        Some(why) => checks.push(Check::failed(what, why, fix)),
        None => {
            let shown: String = last.chars().filter(|c| !c.is_control()).take(80).collect();
            checks.push(Check::ok(format!(
                "{what}: one line, {shown:?} ({} ms)",
                out.elapsed.as_millis()
            )));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 6. The skill

fn check_skill(root: &Path, checks: &mut Vec<Check>) {
    let path = crate::cmd::init::skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    let what = "/compact-prep skill";
    match crate::fsutil::read_host_file(&path, "skill") {
        Ok(Some(text)) if text == crate::hook::skill::SKILL_MD.as_bytes() => {
            checks.push(Check::ok(format!("{what} installed ({rel})")))
        }
        Ok(Some(_)) => checks.push(Check::warn(
            format!("{what} in {rel}"),
            "it differs from the bundled skill (your edits, or an older capn's copy)",
            Some(format!(
                "to take the bundled one: rm {} && capn init",
                path.display()
            )),
        )),
        Ok(None) => checks.push(Check::failed(
            what,
            format!("{} does not exist", path.display()),
            FIX_INIT,
        )),
        Err(e) => checks.push(Check::failed(
            what,
            format!("{e:#}"),
            format!(
                "replace {} with a regular file: rm {} && capn init",
                path.display(),
                path.display()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codex_input_schema(event: &str) -> Schema {
        let text = match event {
            "SessionStart" => include_str!(
                "../../tests/fixtures/conformance/codex-schemas/session-start.command.input.schema.json"
            ),
            "PreCompact" => include_str!(
                "../../tests/fixtures/conformance/codex-schemas/pre-compact.command.input.schema.json"
            ),
            "PostCompact" => include_str!(
                "../../tests/fixtures/conformance/codex-schemas/post-compact.command.input.schema.json"
            ),
            _ => include_str!(
                "../../tests/fixtures/conformance/codex-schemas/user-prompt-submit.command.input.schema.json"
            ),
        };
        Schema::parse(text).unwrap()
    }

    #[test]
    fn codex_payloads_validate_against_codex_input_schemas() {
        for (event, detail) in SCENARIO {
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
            "PostCompact",
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
        let none: Vec<(&str, Schema)> = Vec::new();
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
        let cases = [
            ("PreCompact", "{}", "must print nothing"),
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
        let huge = format!("{{\"systemMessage\":\"{}\"}}", "y".repeat(STDOUT_MAX_CHARS));
        let e = check_output(Host::Claude, "SessionStart", &huge, &none).unwrap_err();
        assert!(e.contains("stdout is"), "{e}");
    }

    #[test]
    fn codex_output_is_checked_against_its_schema() {
        let schemas = schemas_for(Host::Codex, "SessionStart").unwrap();
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
        // Codex runs only `command`: a bare `capn` with no arguments is not a hook line.
        assert!(invocation(Host::Codex, &exec, Path::new("/proj")).is_err());
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
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30"]);
        let t = Instant::now();
        let out = run_captured(cmd, b"", Duration::from_millis(200));
        assert!(out.timed_out);
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "cat; echo err >&2; exit 3"]);
        let out = run_captured(cmd, b"in", Duration::from_secs(5));
        assert_eq!(out.stdout, b"in");
        assert_eq!(out.stderr_line().as_deref(), Some("err"));
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
    }

    #[test]
    fn any_registered_timeout_gives_a_budget() {
        for t in [json!(1e300), json!(-1), json!("10"), json!(0.001)] {
            let secs = registered_timeout(&json!({ "timeout": t }));
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
}
