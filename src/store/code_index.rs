//! The charted files' own text, read when recall needs it: whether a strong candidate's
//! backing files, as charted, hold the words its question lacks ([`files_hold`]). Only `ask`
//! reads them, on a miss, and only the files of the one chart that may be corroborated (what
//! is kept of a file: [`crate::recall::code_text`]). No index of every chart's text is kept:
//! one (`code.bin`) made every miss read it and the first miss after new charts read their
//! files, without choosing better charts to show on held-out questions.
//!
//! Bounds: at most [`crate::recall::code_text::MAX_FILE_BYTES`] of each file (the head of a
//! larger one) and [`MAX_READ_BYTES`] in all per chart; a file is opened under fsutil's rules
//! (never through a symlink leading out of the project, never a FIFO or device), and one that
//! cannot be read as charted corroborates nothing.

pub(crate) use text::files_hold;

mod text;

/// The most bytes of backing files read and hashed to corroborate one chart (8 MiB, about a
/// tenth of a second).
pub(crate) const MAX_READ_BYTES: u64 = 8 << 20;
