//! `capn list` (in progress).

use crate::cli::ListArgs;
use std::process::ExitCode;

/// Runs `capn list`.
pub fn run(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
