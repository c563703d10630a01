//! `capn refresh`: bring the derived index up to date with the entry files, off the path of the
//! next `ask` ([`crate::store::Store::refresh`]). What `capn init --git` runs in the background
//! after `git pull`, `git pull --rebase` and a branch switch (post-merge, post-rewrite and
//! post-checkout hooks), so the first `ask` after new entries arrive costs a steady miss.

use crate::store::Store;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn refresh` in the store of the current folder. Prints nothing on success, and exits
/// 0 without waiting when another capn holds the store's lock (that writer or a later run does
/// the work). Without a store there is nothing to refresh (exit 0); outside any project stderr
/// says so.
///
/// Errors: [`Store::refresh`]'s (each names the path).
pub(crate) fn run() -> Result<ExitCode> {
    let store = Store::from_env()?;
    if !store.exists() {
        if store.is_outside_project() {
            diag!("capn: {}", super::messages::outside_project("refresh"));
        }
        return Ok(ExitCode::SUCCESS);
    }
    store.refresh()?;
    Ok(ExitCode::SUCCESS)
}
