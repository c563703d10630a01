//! `capn statusline` (in progress).

use crate::cli::StatuslineArgs;

/// Runs `capn statusline`.
pub fn run(args: &StatuslineArgs) -> anyhow::Result<()> {
    let _ = args;
    crate::hook::drain_stdin();
    Ok(())
}
