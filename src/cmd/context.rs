//! `capn context` (in progress).

use std::process::ExitCode;

/// Runs `capn context`.
pub fn run() -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}
