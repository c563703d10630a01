//! `capn list [--json]`: every entry, read directly from the entry files
//! ([`crate::store::list`] reads and renders them); this file prints the listing, and on stderr
//! that there is nothing to list.

use crate::cli::ListArgs;
use crate::store::{list::list, Store};
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn list` in the store of the current folder: the human listing, or with `--json` one
/// object per line ([`list`] says what each holds). With no entry and without `--json`, stderr
/// says so (or that this is not inside a project).
///
/// Errors: [`list`]'s.
pub(crate) fn run(args: &ListArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    let listing = list(&store, args.json)?;
    crate::present::print(&listing.text)?;
    if !args.json && listing.empty {
        if store.is_outside_project() {
            diag!("capn: {}", super::messages::outside_project("list"));
        } else {
            diag!("capn: nothing charted yet");
        }
    }
    Ok(ExitCode::SUCCESS)
}
