//! `capn prune`: delete every stale charted answer.

use crate::store::Store;
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

/// Runs `capn prune`; prints `pruned N stale entries` (`pruned 1 stale entry`), or nothing when
/// none was stale.
pub fn run() -> Result<ExitCode> {
    let store = Store::from_env()?;
    if !store.exists() {
        return Ok(ExitCode::SUCCESS);
    }
    let mut w = store.open_writer()?;
    let n = w.prune()?.len();
    w.finish_or_warn();
    if n > 0 {
        let noun = if n == 1 { "entry" } else { "entries" };
        writeln!(std::io::stdout().lock(), "pruned {n} stale {noun}")?;
    }
    Ok(ExitCode::SUCCESS)
}
