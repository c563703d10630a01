//! Context use from a Claude Code transcript (JSONL), read backwards from the end.
//!
//! Used by the statusline when `context_window` has no usable numbers (Claude Code's transcript
//! format is undocumented; tests/fixtures/conformance/transcripts/ holds captured ones): the
//! context is the usage of the last main-chain assistant message (`isSidechain != true`, no
//! `isApiErrorMessage`, not `<synthetic>`) after the last `compact_boundary`, as input +
//! cache_read + cache_creation tokens. If a boundary is met first while scanning backwards, nothing
//! after it has usage yet: the answer is the boundary's `compactMetadata.postTokens`, else unknown.
//!
//! The file is never loaded whole: it is read in 64 KiB chunks from the end through one buffer,
//! only lines that contain `"usage"` or `compact_boundary` are parsed (a line longer than a chunk
//! is read a second time only then), and at most [`MAX_SCAN_BYTES`] are read.

use super::wire::{lenient, Usage};
use serde::Deserialize;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most bytes read from the end of a transcript before giving up (unknown).
pub(crate) const MAX_SCAN_BYTES: u64 = 32 * 1024 * 1024;

/// The first read from the end.
const CHUNK: usize = 64 * 1024;

/// What a backwards scan found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Found {
    /// Context tokens of the last main-chain assistant message after the last boundary.
    Tokens(f64),
    /// The last boundary's `compactMetadata.postTokens` (no usage after it yet).
    PostCompact(f64),
    /// Nothing usable (no usage, a boundary without postTokens, unreadable file, scan cap).
    Unknown,
}

impl Found {
    /// The token count, if known.
    pub(crate) fn tokens(self) -> Option<f64> {
        match self {
            Found::Tokens(t) | Found::PostCompact(t) => Some(t),
            Found::Unknown => None,
        }
    }
}

/// One transcript line, the fields the scan reads.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Line {
    #[serde(rename = "type", deserialize_with = "lenient")]
    kind: Option<String>,
    #[serde(deserialize_with = "lenient")]
    subtype: Option<String>,
    #[serde(rename = "isSidechain", deserialize_with = "lenient")]
    is_sidechain: Option<bool>,
    #[serde(rename = "isApiErrorMessage", deserialize_with = "lenient")]
    is_api_error: Option<serde_json::Value>,
    /// Parsed as a struct, not through [`lenient`]: its `content` (tool output, often huge) is
    /// skipped unread, so the bounded value `lenient` builds never spends its budget on it
    /// before `usage`. A `message` that is not an object fails the line, which then has no
    /// usage to read anyway.
    message: Option<Message>,
    #[serde(rename = "compactMetadata", deserialize_with = "lenient")]
    compact_metadata: Option<CompactMetadata>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Message {
    #[serde(deserialize_with = "lenient")]
    model: Option<String>,
    #[serde(deserialize_with = "lenient")]
    usage: Option<Usage>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CompactMetadata {
    #[serde(rename = "postTokens", deserialize_with = "lenient")]
    post_tokens: Option<f64>,
}

/// What one line means for the scan.
enum Verdict {
    Skip,
    Done(Found),
}

fn judge(line: &[u8]) -> Verdict {
    if !has_needle(line) {
        return Verdict::Skip;
    }
    let Some(l) = super::json::from_slice::<Line>(line) else {
        return Verdict::Skip;
    };
    if l.is_sidechain == Some(true) {
        return Verdict::Skip;
    }
    match l.kind.as_deref() {
        Some("system") if l.subtype.as_deref() == Some("compact_boundary") => {
            Verdict::Done(match l.compact_metadata.and_then(|m| m.post_tokens) {
                Some(t) if t.is_finite() && t >= 0.0 => Found::PostCompact(t),
                _ => Found::Unknown,
            })
        }
        Some("assistant") => {
            let api_error = matches!(
                l.is_api_error,
                Some(ref v) if !v.is_null() && v != &serde_json::Value::Bool(false)
            );
            let Some(msg) = l.message else {
                return Verdict::Skip;
            };
            if api_error || msg.model.as_deref() == Some("<synthetic>") {
                return Verdict::Skip;
            }
            match msg.usage.and_then(|u| u.context_tokens()) {
                Some(t) => Verdict::Done(Found::Tokens(t)),
                None => Verdict::Skip,
            }
        }
        _ => Verdict::Skip,
    }
}

/// Scans the transcript at `path` backwards (see the module docs). An unreadable file, and
/// anything that is not a regular file (a FIFO, whose `open` blocks until a writer appears, a
/// device, a folder), is [`Found::Unknown`].
pub(crate) fn last_context(path: &Path) -> Found {
    // The host names the transcript (outside the project): symlinks are followed, but the
    // opened file must be regular and the open must not block.
    let Ok((mut f, _)) =
        crate::fsutil::open_regular(path, u64::MAX, crate::fsutil::Follow::Anywhere)
    else {
        return Found::Unknown;
    };
    let Ok(len) = f.seek(SeekFrom::End(0)) else {
        return Found::Unknown;
    };
    scan_backwards(&mut f, len, MAX_SCAN_BYTES)
}

/// Substrings that make a line worth parsing.
const NEEDLES: [&[u8]; 2] = [b"compact_boundary", b"\"usage\""];
/// The longest needle, in bytes.
const NEEDLE_MAX: usize = 16;

fn has_needle(bytes: &[u8]) -> bool {
    NEEDLES
        .iter()
        .any(|n| memchr::memmem::find(bytes, n).is_some())
}

/// A line whose end has been read but whose start lies before the part read so far. Only its
/// extent, whether it contains a needle, and its first few bytes are kept, so a huge line (a
/// tool result of many MB) costs no memory; it is read again only if it has a needle.
struct Tail {
    /// File offset just past the line's last byte.
    end: u64,
    /// A needle was seen in the part read so far.
    needle: bool,
    /// The first (up to `NEEDLE_MAX - 1`) bytes of the part read so far, to catch a needle that
    /// straddles two reads.
    head: Vec<u8>,
    /// Nothing of the line has been read yet.
    fresh: bool,
}

impl Tail {
    fn new(end: u64) -> Tail {
        Tail {
            end,
            needle: false,
            head: Vec::new(),
            fresh: true,
        }
    }

    /// Adds `piece`, the bytes just before the part read so far.
    fn prepend(&mut self, piece: &[u8]) {
        self.fresh = false;
        if !self.needle {
            let edge = &piece[piece.len().saturating_sub(NEEDLE_MAX - 1)..];
            let mut joint = Vec::with_capacity(edge.len() + self.head.len());
            joint.extend_from_slice(edge);
            joint.extend_from_slice(&self.head);
            self.needle = has_needle(piece) || has_needle(&joint);
        }
        let mut head = piece[..piece.len().min(NEEDLE_MAX - 1)].to_vec();
        let room = (NEEDLE_MAX - 1).saturating_sub(head.len());
        head.extend_from_slice(&self.head[..self.head.len().min(room)]);
        self.head = head;
    }

    /// Judges the whole line, which starts at `start`: skipped without a needle, else read
    /// again in one piece and parsed.
    fn judge<R: Read + Seek>(self, r: &mut R, start: u64) -> Verdict {
        if !self.needle {
            return Verdict::Skip;
        }
        let mut line = Vec::new();
        if r.seek(SeekFrom::Start(start)).is_err()
            || r.by_ref()
                .take(self.end - start)
                .read_to_end(&mut line)
                .is_err()
        {
            return Verdict::Done(Found::Unknown);
        }
        judge(trim(&line))
    }
}

/// The backwards scan over any seekable reader of length `len`, reading at most `cap` bytes in
/// chunks of [`CHUNK`] through one buffer. Lines that end inside a chunk are judged in place; a
/// line that spans chunks is tracked as a [`Tail`] and read again only if it can matter.
fn scan_backwards<R: Read + Seek>(r: &mut R, len: u64, cap: u64) -> Found {
    let floor = len.saturating_sub(cap);
    let mut pos = len;
    let mut buf = vec![0u8; CHUNK];
    let mut tail = Tail::new(len);
    while pos > floor {
        let start = pos.saturating_sub(CHUNK as u64).max(floor);
        let n = (pos - start) as usize;
        if r.seek(SeekFrom::Start(start)).is_err() || r.read_exact(&mut buf[..n]).is_err() {
            return Found::Unknown;
        }
        pos = start;
        let chunk = &buf[..n];
        let mut end = n;
        let mut first = true;
        while let Some(nl) = memchr::memrchr(b'\n', &chunk[..end]) {
            let verdict = if first && !tail.fresh {
                // The segment after the last newline completes the line tracked in `tail`.
                let mut t = std::mem::replace(&mut tail, Tail::new(0));
                t.prepend(&chunk[nl + 1..end]);
                t.judge(r, start + nl as u64 + 1)
            } else {
                judge(trim(&chunk[nl + 1..end]))
            };
            if let Verdict::Done(found) = verdict {
                return found;
            }
            first = false;
            end = nl;
        }
        if first {
            // No newline at all: the whole chunk is the middle of the tracked line.
            tail.prepend(chunk);
        } else {
            tail = Tail::new(start + end as u64);
            tail.prepend(&chunk[..end]);
        }
        if pos == 0 {
            let t = std::mem::replace(&mut tail, Tail::new(0));
            return match t.judge(r, 0) {
                Verdict::Done(found) => found,
                Verdict::Skip => Found::Unknown,
            };
        }
    }
    Found::Unknown
}

fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.trim_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn scan(text: &str) -> Found {
        let b = text.as_bytes().to_vec();
        let len = b.len() as u64;
        scan_backwards(&mut Cursor::new(b), len, MAX_SCAN_BYTES)
    }

    const A1: &str = r#"{"type":"assistant","isSidechain":false,"message":{"model":"m","usage":{"input_tokens":1,"cache_read_input_tokens":100,"cache_creation_input_tokens":10,"output_tokens":5}}}"#;
    const A2: &str = r#"{"type":"assistant","message":{"usage":{"input_tokens":2,"cache_read_input_tokens":200,"cache_creation_input_tokens":20}}}"#;
    const SIDE: &str =
        r#"{"type":"assistant","isSidechain":true,"message":{"usage":{"input_tokens":9999}}}"#;
    const ERR: &str = r#"{"type":"assistant","isApiErrorMessage":true,"message":{"usage":{"input_tokens":9999}}}"#;
    const SYN: &str =
        r#"{"type":"assistant","message":{"model":"<synthetic>","usage":{"input_tokens":0}}}"#;
    const BOUNDARY: &str = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":170251}}"#;
    const BOUNDARY_POST: &str = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":170251,"postTokens":4321}}"#;
    const USER: &str = r#"{"type":"user","message":{"content":"mentions \"usage\" and compact_boundary in text"}}"#;

    #[test]
    fn last_main_chain_usage_wins() {
        let t = [A1, A2, SIDE, ERR, SYN, USER].join("\n") + "\n";
        assert_eq!(scan(&t), Found::Tokens(222.0));
    }

    #[test]
    fn boundary_without_later_usage_is_post_tokens_or_unknown() {
        assert_eq!(scan(&[A1, BOUNDARY, USER].join("\n")), Found::Unknown);
        assert_eq!(
            scan(&[A1, BOUNDARY_POST, USER].join("\n")),
            Found::PostCompact(4321.0)
        );
        assert_eq!(
            scan(&[A2, BOUNDARY, USER, A1].join("\n")),
            Found::Tokens(111.0)
        );
    }

    #[test]
    fn empty_and_garbage_are_unknown() {
        assert_eq!(scan(""), Found::Unknown);
        assert_eq!(scan("not json\n{\n"), Found::Unknown);
        assert_eq!(
            scan(A1),
            Found::Tokens(111.0),
            "single line without newline"
        );
        assert_eq!(
            last_context(Path::new("/nonexistent/capn/t.jsonl")),
            Found::Unknown
        );
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(last_context(dir.path()), Found::Unknown);
        #[cfg(unix)]
        {
            let fifo = dir.path().join("t.jsonl");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success());
            if made {
                // Without the check, open() blocks until a writer appears: bound the wait.
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let _ = tx.send(last_context(&fifo));
                });
                let got = rx.recv_timeout(std::time::Duration::from_secs(5));
                assert_eq!(got, Ok(Found::Unknown));
            }
        }
    }

    #[test]
    fn lines_spanning_many_chunks_and_crlf() {
        let big = format!(
            r#"{{"type":"assistant","message":{{"content":"{}","usage":{{"input_tokens":7}}}}}}"#,
            "x".repeat(3 * CHUNK + 17)
        );
        let t = format!("{A1}\r\n{big}\r\n{}\r\n", "y".repeat(CHUNK * 2));
        assert_eq!(scan(&t), Found::Tokens(7.0));
    }

    #[test]
    fn needles_straddling_chunk_edges_are_found() {
        // One line longer than a chunk whose `"usage"` starts `k` bytes before the edge of the
        // last chunk (k = 1..=6 straddle it); a different usage on the line before it would
        // win if the straddling needle were missed.
        let fixed_after = r#"","usage":{"input_tokens":5},"tail":""#.len() + r#""}}"#.len() + 1;
        for k in 0..=8 {
            let t_len = CHUNK + 2 + k - fixed_after;
            let line = format!(
                r#"{{"type":"assistant","message":{{"pad":"{}","usage":{{"input_tokens":5}},"tail":"{}"}}}}"#,
                "p".repeat(100),
                "t".repeat(t_len)
            );
            let text = format!("{A1}\n{line}\n");
            let needle_at = text.find(r#""usage":{"input_tokens":5}"#).unwrap();
            assert_eq!(text.len() - CHUNK - needle_at, k, "test setup");
            assert_eq!(scan(&text), Found::Tokens(5.0), "k = {k}");
        }
    }

    #[test]
    fn scan_stops_at_the_cap() {
        let t = format!("{A1}\n{}\n", "z".repeat(1000));
        let len = t.len() as u64;
        assert_eq!(
            scan_backwards(&mut Cursor::new(t.into_bytes()), len, 500),
            Found::Unknown
        );
    }

    #[test]
    fn conformance_transcripts() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conformance/transcripts");
        // 1.jsonl ends with a manual compaction and no usage after it, no postTokens.
        assert_eq!(last_context(&dir.join("1.jsonl")), Found::Unknown);
        // 2.jsonl: last main-chain usage after the auto compaction: 1 + 39727 + 874.
        assert_eq!(last_context(&dir.join("2.jsonl")), Found::Tokens(40602.0));
    }
}
