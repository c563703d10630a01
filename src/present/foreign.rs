//! Text capn did not write, as a type ([`Foreign`]), and the two sinks every line capn prints
//! goes through ([`print()`] for stdout, [`diag_text`] for stderr).
//!
//! Anything read from `.capn/` (entries, `config.json`), host settings, hook payloads,
//! transcripts or git output is held as a [`Foreign`] on its way to a model or a terminal. The
//! type has no `Display`, no `Serialize` and no `Deref` to `str`: the only ways to show it are
//! its render methods ([`Foreign::quoted`], [`Foreign::shown`]), which escape, cap and frame it
//! as data, so `format!("{x}")` on one does not compile. `foreign_scan.rs` checks over the
//! source, on every `cargo test`, that no output site prints a foreign value another way.

use super::{is_hidden, is_lookalike, printable, quote, CUT_MARK};
use std::io::Write;

/// Text capn did not write (an entry's question or path key, a config value, bytes of a
/// malformed entry, git's output...). Shown only through [`Foreign::quoted`] (a JSON string
/// literal: escaped, capped, framed as data) or [`Foreign::shown`] (escaped and capped, for a
/// terminal line). `Debug` prints the quoted form too, capped at [`super::MAX_QUESTION_CHARS`].
#[derive(Clone, PartialEq, Eq, Default)]
pub(crate) struct Foreign(String);

impl Foreign {
    /// Wraps `text` (read from somewhere capn does not own).
    pub(crate) fn new(text: impl Into<String>) -> Foreign {
        Foreign(text.into())
    }

    /// A JSON value read from a file capn does not own (a `.capn/config.json` setting), as
    /// compact JSON text; a long value is cut to its first [`MAX_VALUE_BYTES`] bytes before it is
    /// held.
    pub(crate) fn json(value: &serde_json::Value) -> Foreign {
        let text = value.to_string();
        let mut end = text.len().min(MAX_VALUE_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Foreign(text[..end].to_string())
    }

    /// As a JSON string literal on one line: `"`, `\`, hidden characters and every Unicode
    /// Quotation_Mark look-alike escaped, at most `max_chars` characters between the quotes
    /// ([`quote`]).
    pub(crate) fn quoted(&self, max_chars: usize) -> String {
        quote(&self.0, max_chars)
    }

    /// For a terminal line, unquoted: hidden characters and look-alike quotes escaped, at most
    /// `max_chars` characters, ending in [`CUT_MARK`] when cut.
    pub(crate) fn shown(&self, max_chars: usize) -> String {
        let pieces: Vec<String> = self
            .0
            .chars()
            .map(|c| {
                if is_hidden(c) || is_lookalike(c) {
                    c.escape_unicode().collect()
                } else {
                    c.to_string()
                }
            })
            .collect();
        let total: usize = pieces.iter().map(|p| p.chars().count()).sum();
        if total <= max_chars {
            return pieces.concat();
        }
        let mut out = String::new();
        let mut n = 0usize;
        for p in &pieces {
            let k = p.chars().count();
            if n + k > max_chars.saturating_sub(1) {
                break;
            }
            out.push_str(p);
            n += k;
        }
        out.push(CUT_MARK);
        out
    }
}

impl std::fmt::Debug for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.quoted(super::MAX_QUESTION_CHARS))
    }
}

/// The most bytes of one foreign JSON value held for a message ([`Foreign::json`]).
pub(super) const MAX_VALUE_BYTES: usize = 1024;

/// The most characters of one diagnostic on stderr ([`diag_text`]); the rest is cut.
pub(super) const MAX_DIAG_CHARS: usize = 2000;

/// `message` as one stderr line: every hidden character escaped (a newline inside it too, so a
/// message is one line whatever it carries), cut at [`MAX_DIAG_CHARS`] characters. Every
/// diagnostic (`diag!`) and the final error go through this.
pub(super) fn diag_text(message: &str) -> String {
    let mut line = printable(message.trim_end_matches('\n'));
    if line.chars().count() > MAX_DIAG_CHARS {
        line = line.chars().take(MAX_DIAG_CHARS - 1).collect();
        line.push(CUT_MARK);
    }
    line.push('\n');
    line
}

/// Writes `text` on stdout in one write and flushes: each line with its hidden characters
/// escaped ([`printable`]; a JSON line from [`super::json_line`] has none, so it is unchanged),
/// the line breaks kept. Every stdout write of capn goes through here, but the status line
/// ([`print_status_line`]).
///
/// Errors: stdout cannot be written (a broken pipe is the caller's to map).
pub(crate) fn print(text: &str) -> std::io::Result<()> {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&printable(line));
    }
    write_stdout(&out)
}

/// Writes the status line: capn's own segment after the user's wrapped statusline command's
/// output, passed as it came (that command is the user's own, configured in their settings; its
/// colours are its point). `own` is printed through [`printable`].
///
/// Errors: stdout cannot be written.
pub(crate) fn print_status_line(wrapped: Option<&str>, own: &str) -> std::io::Result<()> {
    let line = match wrapped {
        Some(w) => format!("{w} │ {}\n", printable(own)),
        None => format!("{}\n", printable(own)),
    };
    write_stdout(&line)
}

/// Writes one diagnostic on stderr ([`diag_text`]), ignoring write errors.
pub(crate) fn write_stderr(message: &str) {
    let _ = std::io::stderr()
        .lock()
        .write_all(diag_text(message).as_bytes());
}

/// Writes a message of several lines on stderr: each line as [`diag_text`] makes it (escaped,
/// capped), the line breaks kept; write errors ignored.
pub(crate) fn write_stderr_lines(text: &str) {
    let out: String = text
        .trim_end_matches('\n')
        .split('\n')
        .map(diag_text)
        .collect();
    let _ = std::io::stderr().lock().write_all(out.as_bytes());
}

/// Writes `text` on stdout and flushes (the sinks above decide what `text` may hold).
fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_text_is_escaped_capped_and_quoted() {
        let f = Foreign::new("a\u{1b}]0;x\u{7}\u{202e}\u{2028}\u{e0041}\u{ff62}b");
        assert_eq!(
            f.quoted(200),
            r#""a\u001b]0;x\u0007\u202e\u2028\udb40\udc41\uff62b""#
        );
        assert_eq!(
            f.shown(200),
            "a\\u{1b}]0;x\\u{7}\\u{202e}\\u{2028}\\u{e0041}\\u{ff62}b"
        );
        assert_eq!(Foreign::new("abcdef").shown(4), "abc…");
        assert_eq!(Foreign::new("abcd").shown(4), "abcd");
        assert_eq!(
            Foreign::new("x".repeat(5000)).quoted(10).chars().count(),
            12
        );
        assert_eq!(format!("{:?}", Foreign::new("\n")), r#""\n""#);
    }

    #[test]
    fn a_diagnostic_is_one_escaped_capped_line() {
        assert_eq!(diag_text("a\nb\u{1b}"), "a\\nb\\u{1b}\n");
        let long = diag_text(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), MAX_DIAG_CHARS + 1);
    }

    #[test]
    fn a_json_value_is_held_capped() {
        let v = serde_json::Value::String("y".repeat(100_000));
        assert!(Foreign::json(&v).shown(usize::MAX).chars().count() <= MAX_VALUE_BYTES);
    }
}
