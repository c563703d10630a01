//! `capn bust <path>`: delete every charted answer backed by a file.

use crate::cli::BustArgs;
use crate::error::Refused;
use crate::store::{paths, Store};
use anyhow::{Context, Result};
use std::io::Write;
use std::process::ExitCode;

/// Runs `capn bust`; prints `busted N entries` (N may be 0). The file need not exist any more.
pub fn run(args: &BustArgs) -> Result<ExitCode> {
    let cwd = std::env::current_dir().context("could not read the working directory")?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let store = Store::discover(&cwd);
    let (key, _) = paths::resolve_key(&store.root, &cwd, args.path.trim()).map_err(Refused)?;
    let n = if store.exists() {
        let mut w = store.open_writer()?;
        let hit: Vec<usize> = match w.snap.paths.binary_search(&key) {
            Ok(p) => (0..w.snap.len())
                .filter(|&i| w.snap.refs[i].iter().any(|(q, _)| *q as usize == p))
                .collect(),
            Err(_) => Vec::new(),
        };
        let n = w.delete_positions(&hit)?;
        w.finish_or_warn();
        n
    } else {
        0
    };
    writeln!(std::io::stdout().lock(), "busted {n} entries")?;
    Ok(ExitCode::SUCCESS)
}
