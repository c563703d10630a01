//! `capn prune`: delete every stale charted answer.

use crate::store::{stale_positions, Store};
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

/// Runs `capn prune`; prints `pruned N stale entries`, or nothing when none was stale.
pub fn run() -> Result<ExitCode> {
    let store = Store::from_env()?;
    if !store.exists() {
        return Ok(ExitCode::SUCCESS);
    }
    let mut w = store.open_writer()?;
    crate::store::report_malformed(&w.store, &w.snap.malformed);
    let stale = stale_positions(&w.store.root, &w.snap, &mut w.cache);
    let n = w.delete_stale(&stale)?;
    w.finish_or_warn();
    if n > 0 {
        writeln!(std::io::stdout().lock(), "pruned {n} stale entries")?;
    }
    Ok(ExitCode::SUCCESS)
}
