//! `capn state` (in progress).

use crate::cli::StateArgs;
use std::process::ExitCode;

/// Runs `capn state`.
pub fn run(args: &StateArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
