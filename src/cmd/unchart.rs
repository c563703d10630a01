//! `capn unchart` (in progress).

use crate::cli::UnchartArgs;
use std::process::ExitCode;

/// Runs `capn unchart`.
pub fn run(args: &UnchartArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
