//! Error types that callers branch on, and helpers for classifying errors.

use std::fmt;

/// Exit with `code` without printing anything more (the command already said what it had to).
///
/// Returned as an `anyhow::Error` and recognised by `main_entry` via `downcast_ref`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SilentExit {
    /// The process exit code.
    pub code: u8,
}

impl fmt::Display for SilentExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exit {}", self.code)
    }
}

impl std::error::Error for SilentExit {}

/// A refused input: printed as one line, exit 1, nothing written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Refused(pub String);

/// True when any error in the chain is an I/O error of kind `BrokenPipe` (stdout closed by a
/// reader such as `head`): that is a silent success, not a failure.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
