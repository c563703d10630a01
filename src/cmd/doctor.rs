//! `capn doctor` (in progress).

use crate::cli::DoctorArgs;
use std::process::ExitCode;

/// Runs `capn doctor`.
pub fn run(args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
