//! `capn init` (in progress).

use crate::cli::InitArgs;
use std::process::ExitCode;

/// Runs `capn init`.
pub fn run(args: &InitArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
