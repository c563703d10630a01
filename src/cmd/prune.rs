//! `capn prune [--expired] [--yes]`: delete stale charted answers ([`crate::store::prune`]
//! decides what to delete or only list, and does it); this file prints what it says, or that
//! there is no project here.

use crate::cli::PruneArgs;
use crate::store::prune::{prune, PruneRequest};
use crate::store::Store;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn prune` in the store of the current folder and prints what [`prune`] says
/// (nothing when no chart was stale). Without a store there is nothing to prune (exit 0);
/// outside any project stderr says so.
///
/// Errors: [`prune`]'s.
pub(crate) fn run(args: &PruneArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    if !store.exists() {
        if store.is_outside_project() {
            diag!("capn: {}", super::messages::outside_project("prune"));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let req = PruneRequest {
        expired: args.expired,
        yes: args.yes,
    };
    crate::present::print(&prune(&store, req)?)?;
    Ok(ExitCode::SUCCESS)
}
