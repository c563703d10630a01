//! `capn prune`: delete every stale charted answer.

use crate::store::Store;
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

/// Runs `capn prune`; prints `pruned N stale entries` (`pruned 1 stale entry`) and then one line
/// per deleted chart, `  "<question>" (<files>)`, or nothing when none was stale. Outside any
/// project it says so on stderr (exit 0: there was nothing to prune).
pub fn run() -> Result<ExitCode> {
    let store = Store::from_env()?;
    if !store.exists() {
        if super::ask::is_outside_project(&store) {
            diag!("capn: {}", super::ask::outside_project("prune"));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut w = store.open_writer()?;
    let removed = w.prune()?;
    w.finish_or_warn();
    let n = removed.len();
    if n > 0 {
        let noun = if n == 1 { "entry" } else { "entries" };
        let mut out = format!("pruned {n} stale {noun}\n");
        for e in &removed {
            out.push_str(&format!(
                "  {}\n",
                super::ask::named_chart(&e.question, e.files.keys())
            ));
        }
        std::io::stdout().lock().write_all(out.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
