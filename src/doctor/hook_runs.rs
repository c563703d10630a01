//! Doctor check 5: hook runs.

use super::*;
use crate::events::HookEvent;

/// One step of the synthetic session: the event, and its `source` (SessionStart) or `trigger`
/// (PreCompact, PostCompact). PreToolUse and PostToolUse are a search (Claude Code's Grep,
/// Codex's shell `rg`, Gemini CLI's and Qwen Code's `grep_search`), the call that takes the
/// offer path. A host runs only the steps its [`crate::hosts::HostSpec::doctor_fields`] gives
/// fields for ([`sends`]).
pub(super) const SCENARIO: [(HookEvent, Option<&str>); 9] = [
    (HookEvent::SessionStart, Some("startup")),
    (HookEvent::PreToolUse, None),
    (HookEvent::PostToolUse, None),
    (HookEvent::PreCompact, Some("manual")),
    (HookEvent::PostCompact, Some("manual")),
    (HookEvent::UserPromptSubmit, None),
    (HookEvent::SessionStart, Some("compact")),
    (HookEvent::Stop, None),
    (HookEvent::SubagentStart, None),
];

/// The search of the synthetic PreToolUse payloads: words no chart is likely to hold, so the run
/// goes through the whole offer path and normally offers nothing.
const SEARCH_PATTERN: &str = "capnDoctorSyntheticSearch";

/// The fields `host` sends beside the common ones for `event` (with `detail`): the host file's
/// [`crate::hosts::HostSpec::doctor_fields`], searching [`SEARCH_PATTERN`].
fn host_fields(host: Host, event: HookEvent, detail: Option<&str>) -> Value {
    (host.spec().doctor_fields)(event, detail.unwrap_or(""), SEARCH_PATTERN)
}

/// True when `host` sends `event` (with `detail`) in doctor's session: its
/// [`crate::hosts::HostSpec::doctor_fields`] gives fields for it. An event the host has not
/// (Gemini CLI's compaction events) or sends otherwise (its SessionStart after a compression) is
/// not run, whatever is registered for it.
pub(super) fn sends(host: Host, event: HookEvent, detail: Option<&str>) -> bool {
    host_fields(host, event, detail)
        .as_object()
        .is_some_and(|m| !m.is_empty())
}

/// A synthetic stdin payload for `event` as `host` sends it, in session `sid`: the common fields
/// (Claude Code's hook input, Codex's input schemas; `hook_event_name` in the host's spelling,
/// [`HostSpec::event_name`]) plus `source` (SessionStart), `trigger` (PreCompact, PostCompact;
/// `detail`), `prompt` (UserPromptSubmit), the tool call (PreToolUse, PostToolUse: a search of
/// [`SEARCH_PATTERN`]) and the host's own fields: the host file's
/// [`crate::hosts::HostSpec::doctor_fields`]. The Codex payloads validate against Codex's input
/// schemas.
pub(super) fn payload(
    host: Host,
    event: HookEvent,
    detail: Option<&str>,
    sid: &str,
    cwd: &Path,
    transcript: &Path,
) -> Value {
    let mut v = json!({
        "session_id": sid,
        "transcript_path": transcript.display().to_string(),
        "cwd": cwd.display().to_string(),
        "hook_event_name": host.spec().event_name(event),
    });
    let extra = host_fields(host, event, detail);
    if let (Value::Object(m), Value::Object(x)) = (&mut v, extra) {
        m.extend(x);
    }
    v
}

/// A synthetic Claude Code statusline payload (its status line docs): 42.5 % of a
/// 200,000-token window in use, below the default warning threshold.
pub(super) fn statusline_payload(sid: &str, root: &Path, transcript: &Path) -> Value {
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

/// The exec form substitutes the host's project-folder placeholder (`${CLAUDE_PROJECT_DIR}` and
/// `$CLAUDE_PROJECT_DIR`: [`crate::hosts::HostSpec::project_dir_var`]) verbatim (Claude Code's
/// hooks docs).
pub(super) fn substitute(s: &str, var: Option<&str>, root: &Path) -> String {
    let Some(var) = var else {
        return s.to_string();
    };
    let r = root.display().to_string();
    s.replace(&format!("${{{var}}}"), &r)
        .replace(&format!("${var}"), &r)
}

/// How doctor starts a registered handler: only when its command line is one of capn's own
/// ([`safe_run`]), as an argument vector without a shell. The exec form's placeholders are
/// substituted as the host does (Claude Code's hooks docs); a shell-form line is split into words.
///
/// Errors: why the handler is not run (it is not capn's own command line).
pub(super) fn invocation(host: Host, handler: &Value, root: &Path) -> Result<Invocation, String> {
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let spec = host.spec();
    let var = spec.project_dir_var;
    let argv: Vec<String> = match handler.get("args").and_then(Value::as_array) {
        Some(args) if spec.exec_form => std::iter::once(substitute(command.trim(), var, root))
            .chain(
                args.iter()
                    .map(|a| substitute(a.as_str().unwrap_or(""), var, root)),
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
pub(super) struct Outcome {
    pub(super) status: Option<ExitStatus>,
    pub(super) spawn_error: Option<std::io::Error>,
    pub(super) timed_out: bool,
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: Vec<u8>,
    pub(super) elapsed: Duration,
}

impl Outcome {
    pub(super) fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// True when the program was not found: the spawn failed with `NotFound`, or a shell ran it
    /// and exited 127 ("command not found", POSIX `sh`).
    pub(super) fn not_found(&self) -> bool {
        self.spawn_error
            .as_ref()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
            || self.status.and_then(|s| s.code()) == Some(127)
    }

    /// The first non-empty stderr line, cut to 200 characters.
    pub(super) fn stderr_line(&self) -> Option<String> {
        let text = String::from_utf8_lossy(&self.stderr);
        let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        Some(line.chars().take(200).collect())
    }
}

/// Runs `cmd` with `stdin`, capturing stdout and stderr (at most [`CAPTURE_MAX`] bytes each),
/// and kills it (its whole process group on Unix) after `budget`.
pub(super) fn run_captured(mut cmd: Command, stdin: &[u8], budget: Duration) -> Outcome {
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

/// The registered timeout of a handler in seconds, read in the host's `unit`
/// ([`HostSpec::timeout_unit`]: `s`, or `ms` on Gemini CLI); 600 when none is registered (Claude
/// Code's and Codex's default; Gemini CLI's is shorter, but either is far over doctor's budget).
/// Capped at a day so any registered number makes a valid [`Duration`].
pub(super) fn registered_timeout(handler: &Value, unit: &str) -> f64 {
    let per_second = if unit == "ms" { 1000.0 } else { 1.0 };
    handler
        .get("timeout")
        .and_then(Value::as_f64)
        .filter(|t| *t > 0.0)
        .map_or(600.0, |t| (t / per_second).min(86_400.0))
}

/// Checks a hook's stdout against what the host accepts for `event` (the host's name for it,
/// [`HostSpec::event_name`]; [`crate::hook::reply`], the hooks' own rule) and, for Codex,
/// against its output schemas. `Ok` carries the `additionalContext` (if any); `Err` the reason
/// the host would reject or misread the reply.
pub(super) fn check_output(
    host: Host,
    event: &str,
    stdout: &str,
    schemas: &[(String, Schema)],
) -> std::result::Result<Option<String>, String> {
    let validate = |v: &Value| {
        for (name, s) in schemas {
            let errs = s.validate(v);
            if !errs.is_empty() {
                return Err(format!(
                    "does not match Codex's {name} schema: {}",
                    errs.join("; ")
                ));
            }
        }
        Ok(())
    };
    crate::hook::reply::check(host, event, stdout, &validate)
}

/// Compiles the embedded Codex output schemas of `event` (none for Claude Code).
pub(super) fn schemas_for(
    host: Host,
    event: HookEvent,
) -> std::result::Result<Vec<(String, Schema)>, String> {
    (crate::hosts::of(host).output_schemas)(event)
        .into_iter()
        .map(|(name, text)| match Schema::parse(text) {
            Ok(s) => Ok((name, s)),
            Err(e) => Err(format!(
                "the embedded Codex schema {name} cannot be used: {e}"
            )),
        })
        .collect()
}

/// The fix for a hook run that failed.
pub(super) fn run_fix(spec: &HostSpec, o: &Ours, out: &Outcome, path: &OnPath) -> String {
    if out.not_found()
        && invocation(spec.host, &o.handler, Path::new("/")).is_ok_and(|inv| inv.by_name())
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

/// What ran: a hook for an event, or the statusline.
#[derive(Debug, Clone, Copy)]
pub(super) enum Runs {
    Hook(Host, HookEvent),
    Statusline,
}

/// Why a finished run is not a success (spawn error, timeout, non-zero exit), if it is not.
pub(super) fn exit_problem(
    runs: Runs,
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
        // Half the registered timeout: that close, the host discards a late reply. Doctor's own
        // bound, far below it: the host would wait, but every event waits as long.
        let why = if budget.as_secs_f64() * 2.0 >= timeout {
            "the host discards a late reply"
        } else {
            "the host would wait, but a hook this slow holds up every event"
        };
        return Some(format!(
            "no answer within {ms} ms (registered timeout {timeout} s); {why}"
        ));
    }
    let status = out.status?;
    match status.code() {
        Some(0) => None,
        // Exit 2 is a blocking error on every host that runs command hooks: the host acts on
        // stderr, each its own way (`HostSpec::exit_2`).
        Some(2) => Some(format!("exit 2: {}{stderr}", (host.spec().exit_2)(event))),
        Some(127) => Some(format!("exit 127: command not found{stderr}")),
        Some(c) => Some(format!(
            "exit {c}: the host reports the hook as failed{stderr}"
        )),
        None => Some(format!("killed by a signal ({status}){stderr}")),
    }
}

pub(super) fn run_hooks(
    spec: &HostSpec,
    root: &Path,
    dir: &Path,
    found: &Found,
    path: &OnPath,
    checks: &mut Vec<Check>,
) {
    let Some(id) = SessionId::parse(SESSION_ID) else {
        return;
    };
    let state = dir.join("state");
    let run = HookRun {
        spec,
        root,
        dir,
        path,
        session: SessionDir::new(&state, &id),
        transcript: dir.join("transcript.jsonl"),
        state,
        env_files: std::cell::Cell::new(0),
    };
    let mut skipped: Vec<String> = Vec::new();
    for (event, detail) in SCENARIO {
        if !sends(spec.host, event, detail) {
            continue;
        }
        let name = spec.event_name(event);
        let mut handlers: Vec<&Ours> = Vec::new();
        for o in found.ours.iter().filter(|o| o.event == name) {
            // An identical handler in several files runs once (Claude Code's hooks docs).
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
                        format!("{} {name} runs `{}`", spec.label, display(&o.handler)),
                        why,
                        None,
                    ));
                    continue;
                }
            };
            if matches!(path, OnPath::Missing) && inv.by_name() {
                if !skipped.contains(&o.event) {
                    skipped.push(o.event.clone());
                }
                continue;
            }
            checks.push(run.handler(o, &inv, event, detail));
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

/// What the runs of one host's hooks share: the synthetic session's state dir and transcript.
struct HookRun<'a> {
    spec: &'a HostSpec,
    root: &'a Path,
    dir: &'a Path,
    path: &'a OnPath,
    state: PathBuf,
    session: SessionDir,
    transcript: PathBuf,
    /// CLAUDE_ENV_FILEs handed out so far (one per SessionStart run).
    env_files: std::cell::Cell<usize>,
}

impl HookRun<'_> {
    /// Runs one handler for `event` as the host would and judges what it did.
    fn handler(&self, o: &Ours, inv: &Invocation, event: HookEvent, detail: Option<&str>) -> Check {
        let spec = self.spec;
        let name = spec.event_name(event);
        let label = match detail {
            Some(d) => format!("{} {name}({d})", spec.label),
            None => format!("{} {name}", spec.label),
        };
        let what = format!("{label} runs `{}`", display(&o.handler));
        let schemas = match schemas_for(spec.host, event) {
            Ok(s) => s,
            Err(e) => return Check::failed(what, e, "none from here: please report it"),
        };
        let env_file = spec
            .env_file_var
            .filter(|_| event == HookEvent::SessionStart)
            .map(|_| {
                self.env_files.set(self.env_files.get() + 1);
                self.dir
                    .join(format!("claude-env-{}.sh", self.env_files.get()))
            });
        let cmd = self.command(inv, env_file.as_deref());
        let timeout = registered_timeout(&o.handler, spec.timeout_unit);
        let budget = HOOK_BUDGET.min(Duration::from_secs_f64(timeout / 2.0));
        let marker_before = self.session.has(session::COMPACTED);
        let bytes = payload(
            spec.host,
            event,
            detail,
            SESSION_ID,
            self.root,
            &self.transcript,
        )
        .to_string();
        let out = run_captured(cmd, bytes.as_bytes(), budget);
        let fail =
            |why: String| Check::failed(what.clone(), why, run_fix(spec, o, &out, self.path));
        let runs = Runs::Hook(spec.host, event);
        if let Some(why) = exit_problem(runs, &inv.program, &out, budget, timeout) {
            return fail(why);
        }
        let Ok(stdout) = std::str::from_utf8(&out.stdout) else {
            return fail("stdout is not valid UTF-8".to_string());
        };
        let context = match check_output(spec.host, name, stdout, &schemas) {
            Ok(c) => c.filter(|c| !c.trim().is_empty()),
            Err(why) => return fail(why),
        };
        let seen = Seen {
            context: context.as_deref(),
            env_file: env_file.as_deref(),
            marker_before,
        };
        if let Some(why) = self.problem(event, detail, &seen) {
            let stderr = out
                .stderr_line()
                .map(|l| format!(" (stderr: {l})"))
                .unwrap_or_default();
            return fail(format!("{why}{stderr}"));
        }
        let said = match &context {
            Some(c) => format!("{} characters of context", c.chars().count()),
            None => "no output".to_string(),
        };
        let schema_note = if schemas.is_empty() || context.is_none() {
            ""
        } else {
            ", valid for Codex"
        };
        let ms = out.elapsed.as_millis();
        Check::ok(format!("{what}: {said}{schema_note} ({ms} ms)"))
    }

    /// The command for `inv`, in the project, with the sandboxed state dir and the host's
    /// environment (Claude Code: CLAUDE_PROJECT_DIR, and CLAUDE_ENV_FILE on SessionStart).
    fn command(&self, inv: &Invocation, env_file: Option<&Path>) -> Command {
        let mut cmd = safe_run::command(inv, None);
        cmd.current_dir(self.root)
            .env(session::STATE_DIR_ENV, &self.state)
            .env_remove("CAPN_SESSION_ID")
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .env_remove("CLAUDE_ENV_FILE")
            .env_remove("CLAUDE_PROJECT_DIR");
        if let Some(var) = self.spec.project_dir_var {
            cmd.env(var, self.root);
        }
        if let (Some(var), Some(f)) = (self.spec.env_file_var, env_file) {
            cmd.env(var, f);
        }
        cmd
    }

    /// What is missing after a run that the host accepted: the context SessionStart must inject,
    /// the export it must append, the markers PreCompact and PostCompact must leave, the recovery
    /// the next prompt must deliver.
    fn problem(&self, event: HookEvent, detail: Option<&str>, seen: &Seen<'_>) -> Option<String> {
        match event {
            HookEvent::SessionStart if seen.context.is_none() => Some(match detail {
                Some("compact") => {
                    "printed no context: the compaction recovery is not injected".to_string()
                }
                _ => "printed no context: the ask-before-search contract is not injected"
                    .to_string(),
            }),
            HookEvent::SessionStart => seen.env_file.and_then(|f| {
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
            HookEvent::PreCompact if !self.session.has(session::PRECOMPACT) => {
                // Only a host that runs the skill has /compact-prep (`HostSpec::prep_skill`).
                let prep = if self.spec.prep_skill {
                    "/compact-prep ran"
                } else {
                    "the session state was saved"
                };
                Some(format!("left no precompact.json in the session's state dir: the recovery cannot say whether {prep}"))
            }
            HookEvent::PostCompact if !self.session.has(session::COMPACTED) => Some(
                "left no compaction marker (compacted.json): the recovery would not reach the next prompt"
                    .to_string(),
            ),
            HookEvent::UserPromptSubmit if seen.marker_before && seen.context.is_none() => Some(
                "printed no context after a compaction: the recovery is not delivered".to_string(),
            ),
            _ => None,
        }
    }
}

/// What one hook run left to judge.
struct Seen<'a> {
    /// The injected context, if any.
    context: Option<&'a str>,
    /// The CLAUDE_ENV_FILE it was given (SessionStart on Claude Code).
    env_file: Option<&'a Path>,
    /// Whether a compaction marker was waiting before the run.
    marker_before: bool,
}
