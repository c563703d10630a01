//! `capn prune [--expired] [--yes]`: delete stale charted answers (capn never does on its own:
//! a stale chart is hidden and answers again once its files hash as charted).

use crate::cli::PruneArgs;
use crate::store::Store;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn prune`. Prints `pruned N stale entries` (`pruned 1 stale entry`) and then one
/// line per deleted chart, `  "<question>" (<files>)`, or nothing when none was deleted.
///
/// - In a shared store (`capn init --shared`) without `--yes`, nothing is deleted: it prints
///   `N stale entries (kept: ...)` and the same lines, and says how to delete them.
/// - A chart current in another checkout of the repository is kept, and counted: `kept N stale
///   charts that are current in another checkout of this repository`.
/// - `--expired` applies the retention rule only ([`crate::store::retention`]): `pruned N
///   entries stale for over D days`; in a shared store nothing, and a line that says so.
///
/// Outside any project it says so on stderr (exit 0: there was nothing to prune).
pub fn run(args: &PruneArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    if !store.exists() {
        if store.is_outside_project() {
            diag!("capn: {}", super::messages::outside_project("prune"));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let config = store.config();
    let mut w = store.open_writer()?;
    let mut out = String::new();
    if args.expired {
        let now_s = crate::clock::now_ns() / 1_000_000_000;
        let expired = w.prune_expired(config.stale_days, now_s)?;
        w.finish_or_warn();
        if config.shared {
            out.push_str(
                "retention is off in a shared store (a teammate's branch may hold the files); capn prune lists the stale charts, capn prune --yes deletes them\n",
            );
        }
        let n = expired.deleted.len();
        if n > 0 {
            let noun = if n == 1 { "entry" } else { "entries" };
            out.push_str(&format!(
                "pruned {n} {noun} stale for over {} days\n",
                config.stale_days
            ));
            out.push_str(&named(&expired.deleted));
        }
    } else if config.shared && !args.yes {
        let stale = w.stale_entries()?;
        w.finish_or_warn();
        let n = stale.len();
        if n > 0 {
            let noun = if n == 1 { "entry" } else { "entries" };
            out.push_str(&format!(
                "{n} stale {noun} (kept: this store is shared, and a teammate's branch may hold the files they were charted on; capn prune --yes deletes them):\n"
            ));
            out.push_str(&named(&stale));
        }
    } else {
        let pruned = w.prune()?;
        w.finish_or_warn();
        let n = pruned.deleted.len();
        if n > 0 {
            let noun = if n == 1 { "entry" } else { "entries" };
            out.push_str(&format!("pruned {n} stale {noun}\n"));
            out.push_str(&named(&pruned.deleted));
        }
        if pruned.kept > 0 {
            let (noun, is) = if pruned.kept == 1 {
                ("chart", "is")
            } else {
                ("charts", "are")
            };
            out.push_str(&format!(
                "kept {} stale {noun} that {is} current in another checkout of this repository\n",
                pruned.kept
            ));
        }
    }
    crate::present::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// One line per chart, `  "<question>" (<files>)`.
fn named(entries: &[crate::store::entry::Entry]) -> String {
    entries
        .iter()
        .map(|e| {
            format!(
                "  {}\n",
                crate::present::named_chart(&e.question, e.files.keys())
            )
        })
        .collect()
}
