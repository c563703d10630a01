//! `capn init [--git] [--embedding|--no-embedding] [--nudge|--no-nudge]`: set up capn in this
//! project.
//!
//! Creates `.capn/entries/`, `.capn/config.json` and `.capn/.gitignore` (which keeps a local
//! store out of git without touching the project's `.gitignore`: see
//! [`crate::install::shared`]), merges the hook registrations of `hooks-config/` into each host's
//! settings files, and with `--git` adds `capn prune --expired` to the post-commit hook git runs
//! (see [`crate::install::git_hook`]) and `capn refresh` to its post-merge, post-rewrite and
//! post-checkout hooks ([`crate::install::refresh_hooks`]). Idempotent: a second run changes nothing and says so. The
//! plan and its writes are [`crate::install::plan`] and [`crate::install::apply`]: every settings
//! file is parsed, and the post-commit hook checked, before anything is written, so a broken one
//! stops `init` with nothing changed. This file turns the flags into options and prints the
//! report.

use crate::cli::InitArgs;
use crate::install::apply;
use crate::install::plan::InitOptions;
use crate::store::Store;
use anyhow::Result;
use std::process::ExitCode;

mod report;

/// Runs `capn init` in the project of the current folder and prints what it did.
///
/// Errors: a refusal (nothing changed), or a failed write naming the file.
pub(crate) fn run(args: &InitArgs) -> Result<ExitCode> {
    let store = Store::from_env()?;
    let opts = InitOptions {
        hosts: args.hosts.clone(),
        git: args.git,
        embedding: args.embedding,
        no_embedding: args.no_embedding,
        shared: args.shared,
        local: args.local,
        nudge: args.nudge,
        no_nudge: args.no_nudge,
    };
    let outcome = apply::init(&store, &opts)?;
    report::report(
        &store.root,
        &outcome.rec,
        &outcome.changed_hosts,
        outcome.gitignore_changed,
        outcome.done,
    )
}
