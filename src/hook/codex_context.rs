//! Context reminders for Codex, which has no command status line: the UserPromptSubmit hook
//! under `--host codex` reads the context use from the rollout file Codex passes as
//! `transcript_path`, and delivers the reminder once per crossing of the threshold.
//!
//! What Codex records (a Codex CLI rollout, `tests/fixtures/conformance/transcripts/
//! codex-rollout-1.jsonl`): after each model request an `event_msg` line whose payload is
//! `{"type": "token_count", "info": {"last_token_usage": {"total_tokens": N, ...},
//! "model_context_window": W, ...}}` (`info` may be `null`), and a `compacted` line when the
//! conversation was compacted (followed by a `token_count` with the much smaller count after it).
//! Context use is `100 · last_token_usage.total_tokens / model_context_window`: the tokens of the
//! last request, prompt and reply, over the model's window.
//!
//! Once per crossing ([`super::context_warn`], the rule's one owner): the reminder is given when
//! use is at or above the threshold (`warn_at` of `.capn/config.json`, default 60) and the
//! session has no `context-warned.json`, which it then writes. Use found below the threshold
//! again (only a compaction or a new conversation brings it down), or a `compacted` line after
//! the last count, removes that record: the next crossing warns again. PostCompact re-arms it
//! as well ([`super::rearm_warning`]).
//!
//! Cost on the per-prompt path: the last 64 KiB of the rollout, the last [`TAIL_BYTES`] only when
//! those hold no count (opened without blocking; anything but a regular file is skipped), and
//! only lines holding `token_count` or `compacted` are parsed. Measured (release build, whole
//! process, 300 runs): 1.35 ms median on a 20 MB rollout, against 0.95 ms for the same prompt
//! under `--host claude` and 0.52 ms for `/bin/true`.

use super::context_warn::{self, Delivery};
use super::Ctx;
use crate::session::{Marker, SessionDir};
use serde_json::Value;
use std::path::Path;

/// The most bytes read from the end of a rollout file.
pub(crate) const TAIL_BYTES: u64 = 1 << 20;

/// The first read from the end (a turn's last lines; the whole tail only when they hold no
/// count).
const FIRST_READ: u64 = 64 << 10;

/// What the end of a rollout says about context use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Use {
    /// Percent of the model's window used by the last request.
    Percent(f64),
    /// The conversation was compacted after the last count.
    Compacted,
    /// No usable count in the tail (none yet, unreadable, not a regular file).
    Unknown,
}

/// The reminder for a Codex prompt, if this prompt is the first at or above the threshold since
/// the last crossing (see the module docs).
///
/// Errors: the session's record cannot be written or removed.
pub(crate) fn check(ctx: &Ctx, s: &SessionDir) -> anyhow::Result<Option<String>> {
    let Some(path) = ctx
        .call
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
    else {
        return Ok(None);
    };
    let threshold = context_warn::threshold(ctx.call.project_root());
    match last_use(Path::new(path)) {
        Use::Percent(p) => {
            let m = Marker {
                transcript_path: ctx.call.transcript_path.clone(),
                cwd: ctx.call.cwd.clone(),
                ..Marker::now(super::HookEvent::UserPromptSubmit.name())
            };
            let warned = context_warn::on_use(s, p, threshold, m, Delivery::Now)?;
            Ok(warned.then(|| context_warn::reminder(ctx.host, Some(p), Some(threshold))))
        }
        Use::Compacted => {
            context_warn::below(s, Delivery::Now)?;
            Ok(None)
        }
        Use::Unknown => Ok(None),
    }
}

/// Reads the end of the rollout at `path` (see the module docs).
pub(crate) fn last_use(path: &Path) -> Use {
    let Some((bytes, len)) = read_tail(path, FIRST_READ) else {
        return Use::Unknown;
    };
    match use_in(&bytes) {
        Use::Unknown if len > FIRST_READ => match read_tail(path, TAIL_BYTES) {
            Some((bytes, _)) => use_in(&bytes),
            None => Use::Unknown,
        },
        found => found,
    }
}

/// The context use the last lines of `tail` record (the first line may be cut: it is skipped
/// unless `tail` is the whole file, which the caller cannot tell, so a cut line simply fails to
/// parse).
pub(crate) fn use_in(tail: &[u8]) -> Use {
    for line in tail.rsplit(|b| *b == b'\n') {
        let compacted = memchr::memmem::find(line, b"\"compacted\"").is_some();
        if !compacted && memchr::memmem::find(line, b"token_count").is_none() {
            continue;
        }
        // A line of nested brackets costs far more parsed than its bytes: left unread.
        if !crate::jsonbound::within(line, crate::jsonbound::TRANSCRIPT_LINE) {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        match v.get("type").and_then(Value::as_str) {
            Some("compacted") => return Use::Compacted,
            Some("event_msg") => {}
            _ => continue,
        }
        let payload = &v["payload"];
        if payload.get("type").and_then(Value::as_str) != Some("token_count") {
            continue;
        }
        let info = &payload["info"];
        let used = info["last_token_usage"]["total_tokens"].as_f64();
        let window = info["model_context_window"].as_f64();
        if let (Some(used), Some(window)) = (used, window) {
            if window > 0.0 && used.is_finite() && used >= 0.0 {
                return Use::Percent(100.0 * used / window);
            }
        }
    }
    Use::Unknown
}

/// The last `max` bytes of a regular file, opened without blocking, and the file's length.
#[cfg(unix)]
fn read_tail(path: &Path, max: u64) -> Option<(Vec<u8>, u64)> {
    use rustix::fs::{fstat, open, FileType, Mode, OFlags};
    use std::io::{Read, Seek, SeekFrom};
    let fd = open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let st = fstat(&fd).ok()?;
    if FileType::from_raw_mode(st.st_mode as _) != FileType::RegularFile {
        return None;
    }
    let mut f = std::fs::File::from(fd);
    let len = st.st_size as u64;
    f.seek(SeekFrom::Start(len.saturating_sub(max))).ok()?;
    let mut buf = Vec::new();
    f.take(max).read_to_end(&mut buf).ok()?;
    Some((buf, len))
}

/// The last `max` bytes of a regular file, and the file's length.
#[cfg(not(unix))]
fn read_tail(path: &Path, max: u64) -> Option<(Vec<u8>, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    f.seek(SeekFrom::Start(meta.len().saturating_sub(max)))
        .ok()?;
    let mut buf = Vec::new();
    f.take(max).read_to_end(&mut buf).ok()?;
    Some((buf, meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rollout() -> Vec<u8> {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/conformance/transcripts/codex-rollout-1.jsonl"),
        )
        .unwrap()
    }

    /// The lines of the real rollout up to (and including) line `n` (1-based).
    fn upto(n: usize) -> Vec<u8> {
        let r = rollout();
        let lines: Vec<&[u8]> = r.split(|b| *b == b'\n').take(n).collect();
        lines.join(&b'\n')
    }

    #[test]
    fn reads_the_last_count_of_a_real_rollout() {
        // Line 14: 150,005 of a 190,000 window.
        assert_eq!(
            use_in(&upto(14)),
            Use::Percent(100.0 * 150_005.0 / 190_000.0)
        );
        // Line 31: the `compacted` item after the last count.
        assert_eq!(use_in(&upto(31)), Use::Compacted);
        // Line 35: the count after the compaction (6,416 tokens).
        assert_eq!(use_in(&upto(35)), Use::Percent(100.0 * 6_416.0 / 190_000.0));
        // Before any count.
        assert_eq!(use_in(&upto(8)), Use::Unknown);
        assert_eq!(
            use_in(
                b"{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":null}}"
            ),
            Use::Unknown
        );
    }

    #[test]
    fn a_count_behind_a_large_last_line_is_found_by_the_second_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("rollout.jsonl");
        let mut text = upto(14);
        text.push(b'\n');
        let big = serde_json::json!({"type": "response_item", "payload": {"output": "x".repeat(200_000)}});
        text.extend_from_slice(big.to_string().as_bytes());
        text.push(b'\n');
        std::fs::write(&p, &text).unwrap();
        assert_eq!(last_use(&p), Use::Percent(100.0 * 150_005.0 / 190_000.0));
        assert_eq!(last_use(dir.path()), Use::Unknown);
    }
}
