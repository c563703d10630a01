//! `capn unchart <id>`: delete one charted answer.

use crate::cli::UnchartArgs;
use crate::error::Refused;
use crate::store::Store;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn unchart`. Exit 1 with `unknown id: <id>` when no entry has that id, and with the
/// outside-project message outside any project.
pub(crate) fn run(args: &UnchartArgs) -> Result<ExitCode> {
    let id = args.id.trim();
    let store = Store::from_env()?;
    if store.is_outside_project() {
        return Err(Refused(super::messages::outside_project("unchart")).into());
    }
    if !crate::store::entry::is_valid_id(id) || !store.exists() {
        return Err(Refused(format!("unknown id: {id}")).into());
    }
    let mut w = store.open_writer()?;
    // A malformed entry file with this id can still be removed by hand-picked id.
    let done = w.unchart(id)?;
    w.finish_or_warn();
    if done == crate::store::ops::Unchart::Unknown {
        return Err(Refused(format!("unknown id: {id}")).into());
    }
    crate::present::print(&format!("uncharted {id}\n"))?;
    Ok(ExitCode::SUCCESS)
}
