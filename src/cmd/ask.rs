//! `capn ask` (in progress).

use crate::cli::AskArgs;
use std::process::ExitCode;

/// Runs `capn ask`.
pub fn run(args: &AskArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
