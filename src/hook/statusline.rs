//! `capn statusline [--warn-at N] [--wrap "<command>"]`: the Claude Code status line segment.
//!
//! Reads the statusline JSON on stdin (Claude Code's status line docs), prints exactly one line and
//! exits 0 whatever happens (the caller, [`crate::hook::guard`], maps errors to exit 0 and this
//! module prints its line before anything can fail). The line is
//! `<model> · ctx <N>% <bar> · <K> charts`, with `ctx --` when the use is unknown, `ctx >999%`
//! for a bogus use above 999% ([`crate::hook::text::percent_label`]), and the chart segment only
//! when the project has a `.capn/` store.
//!
//! Context use, first that applies (the fallbacks when the host's numbers are missing):
//! 1. `context_window.used_percentage`;
//! 2. `context_window.current_usage` tokens / window;
//! 3. the transcript, read backwards ([`crate::hook::transcript`]) / window.
//!
//! The window is `context_window.context_window_size`, else 1,000,000 when the model id has a
//! `[1m]` suffix, else 200,000. A `[1m]` model that reports a 200,000 window is not trusted
//! (the host may report the default 200,000 for a 1M model): its use is recomputed over 1,000,000
//! tokens.
//!
//! When the use reaches the threshold (`--warn-at`, else `warn_at` in `.capn/config.json`, else
//! 60), the line ends with `/compact-prep` and the session is warned once per crossing, through
//! the next prompt ([`super::context_warn`], the rule's one owner). An unknown use never writes
//! or clears anything.
//!
//! `--wrap` runs the user's existing statusline command through `sh -c` with the same stdin,
//! waits at most [`WRAP_TIMEOUT`], prints its output and appends this segment to its last line.

use super::context_warn::{self, Delivery};
use super::transcript;
use super::wire::StatusInput;
use crate::session::{self, Marker, SessionDir, SessionId};
use anyhow::Context;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long `--wrap` waits for the wrapped command (the statusline is debounced 300 ms and a
/// new update cancels a run in flight).
pub(crate) const WRAP_TIMEOUT: Duration = Duration::from_millis(200);

/// The most output kept from the wrapped command (16 KiB: a status line is one line; a command
/// that writes more is cut there and ended).
pub(crate) const WRAP_MAX_BYTES: usize = 16 * 1024;

/// How long the statusline waits for the transcript fallback (a file on a stalled network
/// mount must not hold the line back); past it the use is unknown (`ctx --`).
pub(crate) const TRANSCRIPT_TIMEOUT: Duration = Duration::from_millis(300);

/// The default window, in tokens.
pub(crate) const DEFAULT_WINDOW: f64 = 200_000.0;
/// The window of a `[1m]` model, in tokens.
pub(crate) const ONE_M_WINDOW: f64 = 1_000_000.0;

/// Cells in the usage bar.
pub(crate) const BAR_CELLS: usize = 10;

/// How `capn statusline` was asked to run (from its command line).
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Percent of context use to warn at (1..=100); `None`: `.capn/config.json`, else 60.
    pub warn_at: Option<u8>,
    /// The user's own statusline command, run first with the same stdin, ours appended.
    pub wrap: Option<String>,
}

/// Runs `capn statusline`: always prints one line.
pub(crate) fn run(args: &Options) -> anyhow::Result<()> {
    let stdin = crate::hook::read_stdin_bytes();
    let input = StatusInput::parse(&stdin).unwrap_or_default();
    let wrapped = args.wrap.as_deref().map(|cmd| run_wrapped(cmd, &stdin));
    drop(stdin);
    let seg = segment(&input, args.warn_at);
    let own_out = match &wrapped {
        Some(Some(out)) if !out.trim().is_empty() => Some(out.trim_end_matches(['\n', '\r'])),
        _ => None,
    };
    crate::present::print_status_line(own_out, &seg.text)
        .context("could not write the status line to stdout")?;
    if let (Some(p), Some(t)) = (seg.percent, seg.threshold) {
        if let Err(e) = maybe_warn(&input, p, t) {
            diag!("capn: {e:#}");
        }
    }
    Ok(())
}

/// The computed segment.
#[derive(Debug)]
pub(crate) struct Segment {
    /// The printed text.
    pub text: String,
    /// Context use in percent, when known.
    pub percent: Option<f64>,
    /// The warning threshold in percent, resolved only when the use is known.
    pub threshold: Option<u8>,
}

/// Builds the segment for `input`. The threshold is `warn_at`, else `.capn/config.json`'s
/// `warn_at`, else 60, and is resolved only when the use is known (the config is not read
/// otherwise).
pub(crate) fn segment(input: &StatusInput, warn_at: Option<u8>) -> Segment {
    let root = project_root(input);
    let percent = context_percent(input);
    let mut threshold = None;
    let mut parts: Vec<String> = Vec::with_capacity(3);
    if let Some(m) = &input.model {
        if let Some(name) = m
            .display_name
            .as_deref()
            .or(m.id.as_deref())
            .filter(|s| !s.trim().is_empty())
        {
            // Payload text on the user's terminal: every hidden character (bidi overrides,
            // zero-width and tag characters, U+2028) escaped, not only controls.
            parts.push(crate::present::printable_capped(name, 60));
        }
    }
    match percent {
        Some(p) => {
            // The store's config, read under the store's rules (a symlinked .capn/ or a FIFO
            // config.json gives the default).
            let t = warn_at.unwrap_or_else(|| context_warn::threshold(Some(root.clone())));
            threshold = Some(t);
            let mut s = format!("ctx {} {}", crate::hook::text::percent_label(p), bar(p));
            if context_warn::reached(p, t) {
                s.push_str(" /");
                s.push_str(crate::install::skill::SKILL_NAME);
            }
            parts.push(s);
        }
        None => parts.push("ctx --".to_string()),
    }
    if let Some(n) = chart_count(&root) {
        parts.push(format!("{n} chart{}", if n == 1 { "" } else { "s" }));
    }
    Segment {
        text: parts.join(" · "),
        percent,
        threshold,
    }
}

/// The usage bar: [`BAR_CELLS`] cells, filled in proportion to `percent` (clamped to 0..=100).
pub(crate) fn bar(percent: f64) -> String {
    let filled = ((percent.clamp(0.0, 100.0) / 100.0) * BAR_CELLS as f64).round() as usize;
    let mut s = String::with_capacity(BAR_CELLS * 3);
    for i in 0..BAR_CELLS {
        s.push(if i < filled { '█' } else { '░' });
    }
    s
}

/// The model id, if any.
fn model_id(input: &StatusInput) -> Option<&str> {
    input.model.as_ref().and_then(|m| m.id.as_deref())
}

/// True when the model id marks a 1,000,000-token window (`[1m]`, any case).
pub(crate) fn is_one_m(model_id: Option<&str>) -> bool {
    model_id.is_some_and(|id| id.to_ascii_lowercase().contains("[1m]"))
}

/// Context use in percent, or `None` when unknown (see the module docs for the order).
pub(crate) fn context_percent(input: &StatusInput) -> Option<f64> {
    let cw = input.context_window.clone().unwrap_or_default();
    let one_m = is_one_m(model_id(input));
    let reported = cw.context_window_size.filter(|w| w.is_finite() && *w > 0.0);
    let distrust = one_m && reported.is_some_and(|w| w <= DEFAULT_WINDOW);
    let window = match reported {
        Some(w) if !distrust => w,
        _ if one_m => ONE_M_WINDOW,
        _ => DEFAULT_WINDOW,
    };
    if !distrust {
        if let Some(p) = cw.used_percentage.filter(|p| p.is_finite() && *p >= 0.0) {
            return Some(p);
        }
    }
    if let Some(t) = cw.current_usage.as_ref().and_then(|u| u.context_tokens()) {
        return Some(t / window * 100.0);
    }
    if distrust {
        // A used_percentage over the wrong window is still better than the transcript guess.
        if let (Some(p), Some(w)) = (cw.used_percentage.filter(|p| p.is_finite()), reported) {
            return Some(p * w / window);
        }
    }
    let path = input
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty() && p.len() <= super::call::MAX_PATH_BYTES)?;
    let path = PathBuf::from(path);
    within(TRANSCRIPT_TIMEOUT, move || transcript::last_context(&path))?
        .tokens()
        .map(|t| t / window * 100.0)
}

/// Runs `f` on its own thread and waits at most `limit` for its result; `None` when it takes
/// longer (the thread is left behind and ends with the process) or cannot be started.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .spawn(move || {
            let _ = tx.send(f());
        })
        .ok()?;
    rx.recv_timeout(limit).ok()
}

/// The project whose charts to count: `workspace.project_dir`, else `cwd`, else
/// `workspace.current_dir`, else the process's working directory, resolved with
/// [`crate::store::find_root`]. A path longer than [`super::call::MAX_PATH_BYTES`] counts as
/// absent (its ancestor walk would cost seconds).
pub(crate) fn project_root(input: &StatusInput) -> PathBuf {
    let ws = input.workspace.as_ref();
    let dir = ws
        .and_then(|w| w.project_dir.as_deref())
        .or(input.cwd.as_deref())
        .or(ws.and_then(|w| w.current_dir.as_deref()))
        .filter(|d| !d.is_empty() && d.len() <= super::call::MAX_PATH_BYTES)
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    crate::store::find_root(&dir)
}

/// The number of `*.md` files in `<root>/.capn/entries` (one readdir), or `None` when the
/// project has no store.
pub(crate) fn chart_count(root: &Path) -> Option<usize> {
    let store = crate::store::Store::at(root.to_path_buf());
    // A symlinked store is not counted (nor read): it could lead anywhere.
    store.check_dirs().ok()?;
    let rd = match std::fs::read_dir(store.entries_dir()) {
        Ok(rd) => rd,
        Err(_) => return store.dir.is_dir().then_some(0),
    };
    Some(
        rd.flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                crate::store::entry::is_entry_file_name(&name)
            })
            .count(),
    )
}

/// Writes the context-warning marker when `percent` reached `threshold` and the session was not
/// warned since its last compaction; withdraws an undelivered one when `percent` is below the
/// threshold again. Does nothing without a valid session id.
///
/// Errors: the state dir cannot be determined or a marker cannot be written.
pub(crate) fn maybe_warn(input: &StatusInput, percent: f64, threshold: u8) -> anyhow::Result<()> {
    let Some(id) = input.session_id.as_deref().and_then(SessionId::parse) else {
        return Ok(());
    };
    let s = SessionDir::new(&session::state_dir()?, &id);
    let m = Marker {
        transcript_path: input.transcript_path.clone(),
        cwd: input.cwd.clone(),
        ..Marker::now("statusline")
    };
    context_warn::on_use(&s, percent, threshold, m, Delivery::NextPrompt).map(drop)
}

/// Runs `cmd` through the host's shell ([`crate::process::shell_command`]: `sh -c`; on Windows
/// Git Bash, else `cmd /c`) with `stdin` on its standard input and returns its standard
/// output, or `None` when it could not start or produced nothing within [`WRAP_TIMEOUT`].
/// A command still running at the deadline, or past [`WRAP_MAX_BYTES`] of output, is killed;
/// output it wrote before that (up to the limit) is kept.
/// Its stderr goes to ours.
pub(crate) fn run_wrapped(cmd: &str, stdin: &[u8]) -> Option<String> {
    let deadline = Instant::now() + WRAP_TIMEOUT;
    let mut command = crate::process::shell_command(cmd);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // Its own process group, so a timeout can end the command's children too.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            diag!("capn: could not run the wrapped statusline command: {e}");
            return None;
        }
    };
    if let Some(mut sin) = child.stdin.take() {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = sin.write_all(&data);
        });
    }
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    if let Some(mut sout) = child.stdout.take() {
        let out = out.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match sout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let Ok(mut o) = out.lock() else { break };
                        let room = WRAP_MAX_BYTES - o.len();
                        o.extend_from_slice(&buf[..n.min(room)]);
                        if o.len() >= WRAP_MAX_BYTES {
                            break;
                        }
                    }
                }
            }
            let _ = done_tx.send(());
        });
    }
    // Wait for end of output (EOF) within the deadline, then for the exit.
    let eof = done_rx
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .is_ok();
    let capped = out.lock().is_ok_and(|o| o.len() >= WRAP_MAX_BYTES);
    let mut exited = false;
    while !exited && !capped {
        match child.try_wait() {
            Ok(Some(_)) => exited = true,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            _ => break,
        }
    }
    if capped {
        crate::process::kill_group(&mut child);
        diag!(
            "capn: the wrapped statusline command wrote more than {WRAP_MAX_BYTES} bytes; cut there"
        );
    } else if !eof || !exited {
        crate::process::kill_group(&mut child);
        diag!(
            "capn: the wrapped statusline command did not finish within {} ms",
            WRAP_TIMEOUT.as_millis()
        );
    }
    let bytes = out.lock().map(|o| o.clone()).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (!text.trim().is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(j: &str) -> StatusInput {
        StatusInput::parse(j.as_bytes()).unwrap()
    }

    #[test]
    fn percent_prefers_used_percentage_then_current_usage() {
        let i = parse(
            r#"{"context_window":{"used_percentage":42.5,"context_window_size":200000,"current_usage":{"input_tokens":1}}}"#,
        );
        assert_eq!(context_percent(&i), Some(42.5));
        let i = parse(
            r#"{"context_window":{"used_percentage":null,"context_window_size":200000,"current_usage":{"input_tokens":100000,"cache_read_input_tokens":20000,"output_tokens":99999}}}"#,
        );
        assert_eq!(context_percent(&i), Some(60.0));
    }

    #[test]
    fn window_comes_from_size_then_model() {
        let i = parse(
            r#"{"model":{"id":"claude-opus-4-7[1m]"},"context_window":{"current_usage":{"input_tokens":100000}}}"#,
        );
        assert_eq!(context_percent(&i), Some(10.0));
        let i = parse(
            r#"{"model":{"id":"claude-opus-4-7"},"context_window":{"current_usage":{"input_tokens":100000}}}"#,
        );
        assert_eq!(context_percent(&i), Some(50.0));
    }

    #[test]
    fn one_m_model_reporting_200k_is_not_trusted() {
        let i = parse(
            r#"{"model":{"id":"claude-opus-4-6[1m]"},"context_window":{"context_window_size":200000,"used_percentage":100,"current_usage":{"input_tokens":300000}}}"#,
        );
        assert_eq!(context_percent(&i), Some(30.0));
    }

    #[test]
    fn nulls_without_transcript_are_unknown() {
        let i = parse(r#"{"context_window":{"current_usage":null,"used_percentage":null}}"#);
        assert_eq!(context_percent(&i), None);
        assert_eq!(context_percent(&StatusInput::default()), None);
    }

    #[test]
    fn slow_work_is_cut_off() {
        assert_eq!(within(Duration::from_secs(600), || 7), Some(7));
        // The work waits for a release that comes only after `within` returned: it can only
        // return by cutting the work off, however loaded the machine is.
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let slow = within(Duration::from_millis(20), move || {
            let _ = wait.recv();
            7
        });
        assert_eq!(slow, None);
        drop(release);
    }

    #[test]
    fn bar_fills_in_tenths_and_clamps() {
        assert_eq!(bar(0.0), "░░░░░░░░░░");
        assert_eq!(bar(42.5), "████░░░░░░");
        assert_eq!(bar(250.0), "██████████");
        assert_eq!(bar(-3.0), "░░░░░░░░░░");
    }

    #[test]
    fn segment_text_shapes() {
        let i = parse(
            r#"{"model":{"display_name":"Opus"},"cwd":"/nonexistent/capn-x","context_window":{"used_percentage":61.9}}"#,
        );
        assert_eq!(
            segment(&i, Some(60)).text,
            "Opus · ctx 61% ██████░░░░ /compact-prep"
        );
        assert_eq!(segment(&i, Some(70)).text, "Opus · ctx 61% ██████░░░░");
        let i = parse(r#"{"cwd":"/nonexistent/capn-x"}"#);
        assert_eq!(segment(&i, None).text, "ctx --");
    }

    /// Format characters in the model name are escaped, never printed raw.
    #[test]
    fn the_model_name_is_shown_with_hidden_characters_escaped() {
        let input = StatusInput::parse(
            br#"{"model":{"id":"x","display_name":"Op\u202eus\u200b\udb40\udc41\u2028X"},"cwd":"/nonexistent/capn-x"}"#,
        )
        .unwrap();
        let seg = segment(&input, None);
        assert!(
            seg.text
                .starts_with(r"Op\u{202e}us\u{200b}\u{e0041}\u{2028}X"),
            "{}",
            seg.text
        );
        assert!(!seg.text.chars().any(crate::present::is_hidden));
    }
}
