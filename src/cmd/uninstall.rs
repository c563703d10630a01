//! `capn uninstall [--purge]`: remove exactly what `capn init` installed, and nothing else
//! ([`crate::install::uninstall`] says what that is and does it); this file prints what was
//! removed and kept, and that the charts stay.

use crate::cli::UninstallArgs;
use crate::install::uninstall;
use crate::store::Store;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn uninstall` in the project of the current folder and prints what it did.
///
/// Errors: [`uninstall::uninstall`]'s.
pub(crate) fn run(args: &UninstallArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    let outcome = uninstall::uninstall(&store, args.purge)?;
    report(&store, &outcome.done, &outcome.kept)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints what was removed (`done`) and kept, and that the charts stay.
fn report(store: &Store, done: &[String], kept: &[String]) -> Result<()> {
    let root = &store.root;
    use std::fmt::Write as _;
    let all: Vec<&String> = done.iter().chain(kept).collect();
    let mut out = crate::cmd::messages::changes(
        &format!("capn uninstall in {}:", root.display()),
        &all,
        &format!("nothing of capn's is installed in {}", root.display()),
    );
    if !kept.is_empty() {
        writeln!(
            out,
            "  (remove the kept hooks by hand if you want them gone: capn doctor lists them)"
        )?;
    }
    if store.exists() && !store.is_borrowed() {
        writeln!(
            out,
            "kept .capn/ (your charts{}); capn uninstall --purge deletes it",
            match store.shared_in_git() {
                Some(true) => ", committed for the team",
                Some(false) => ", out of git's sight",
                None => "",
            }
        )?;
    }
    crate::present::print(&out)?;
    Ok(())
}
