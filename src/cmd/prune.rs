//! `capn prune` (in progress).

use std::process::ExitCode;

/// Runs `capn prune`.
pub fn run() -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}
