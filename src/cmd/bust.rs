//! `capn bust <path>`: delete every charted answer backed by a file.

use crate::cli::BustArgs;
use crate::error::Refused;
use crate::store::{paths, Store};
use anyhow::{Context, Result};
use std::process::ExitCode;

/// Runs `capn bust`; prints `busted N entries` (`busted 1 entry`; N may be 0). The file need not exist any more;
/// when it does not, stderr says so. Outside any project it says so (exit 0: nothing to bust).
pub(crate) fn run(args: &BustArgs) -> Result<ExitCode> {
    let cwd = std::env::current_dir().context("could not read the working directory")?;
    let cwd = crate::fsutil::resolved(&cwd);
    let store = Store::discover(&cwd);
    if store.is_outside_project() {
        diag!("capn: {}", super::messages::outside_project("bust"));
        return Ok(ExitCode::SUCCESS);
    }
    let (key, abs) = paths::resolve_key(&store.root, &cwd, args.path.trim()).map_err(Refused)?;
    let n = if store.exists() {
        let mut w = store.open_writer()?;
        let n = w.bust(&key)?;
        w.finish_or_warn();
        n
    } else {
        0
    };
    let noun = if n == 1 { "entry" } else { "entries" };
    crate::present::print(&format!("busted {n} {noun}\n"))?;
    if std::fs::symlink_metadata(&abs).is_err() {
        // A file deleted since it was charted is a fine target; a typo is worth knowing.
        diag!(
            "capn: {} does not exist{}",
            args.path.trim(),
            if n == 0 {
                " (check the path: it is relative to the current directory)"
            } else {
                " any more"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
