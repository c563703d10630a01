//! `capn init --user` and `capn uninstall --user` (flags of `init` and `uninstall`, one file for
//! both): the user-level install of [`crate::install::user`], with its report.

use crate::cmd::messages::changes;
use crate::install::user;
use anyhow::{anyhow, Result};
use std::fmt::Write as _;
use std::process::ExitCode;

fn home() -> Result<std::path::PathBuf> {
    crate::env::home_dir().ok_or_else(|| anyhow!("could not find the home folder"))
}

/// Runs `capn init --user`: plans every edit, then writes, then reports.
///
/// Errors: a refusal (nothing changed) or a failed write, naming the file.
pub(crate) fn init() -> Result<ExitCode> {
    let home = home()?;
    let plan = user::plan_init(&home)?;
    let done = user::apply_init(plan)?;
    let mut out = changes(
        &format!("capn init --user in {}:", home.display()),
        &done,
        "capn is already set up for every project of this user; nothing changed",
    );
    writeln!(
        out,
        "Every project and worktree now gets the capn hooks; they stay silent where there is no \
         .capn/ store. Start one in a project with: cd <project> && capn init"
    )?;
    for spec in crate::hosts::always() {
        if let Some(command) = spec.trust_command {
            let name = spec.name;
            writeln!(
                out,
                "{name}: hooks run once trusted; open {name}, run {command} and trust the capn hooks"
            )?;
        }
    }
    crate::present::print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `capn uninstall --user`.
///
/// Errors: a file cannot be read, parsed or written, naming it.
pub(crate) fn uninstall() -> Result<ExitCode> {
    let home = home()?;
    let done = user::uninstall(&home)?;
    let out = changes(
        &format!("capn uninstall --user in {}:", home.display()),
        &done,
        &format!(
            "no user-level capn install found in {}; nothing changed",
            home.display()
        ),
    );
    crate::present::print(&out)?;
    Ok(ExitCode::SUCCESS)
}
