//! `capn uninstall` (in progress).

use crate::cli::UninstallArgs;
use std::process::ExitCode;

/// Runs `capn uninstall`.
pub fn run(args: &UninstallArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
