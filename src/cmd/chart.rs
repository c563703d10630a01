//! `capn chart` (in progress).

use crate::cli::ChartArgs;
use std::process::ExitCode;

/// Runs `capn chart`.
pub fn run(args: &ChartArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
