//! `capn bust` (in progress).

use crate::cli::BustArgs;
use std::process::ExitCode;

/// Runs `capn bust`.
pub fn run(args: &BustArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
