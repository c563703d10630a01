//! capn-hook: a memory for coding agents that survives sessions and compactions.
//!
//! Two halves in one binary:
//! - the **chart** (`store`, `recall`, `embed`, `cmd::{chart,ask,...}`): questions mapped to the files
//!   that answer them, each file pinned by SHA-256; an answer whose files changed is hidden until
//!   they hash as charted again;
//! - **compaction survival** (`hook`, `hook::statusline`, `session`, `cmd::state`): hooks that keep the
//!   decision structure of a long session alive across Claude Code's lossy compaction.
//!
//! [`main_entry`] is the whole program; `main.rs` only calls it.
//!
//! # Layers
//! Lowest first. A module uses only modules of a lower layer (and its own submodules), and no
//! two sibling modules use each other, directly or round a longer circle. `layers.rs` checks both
//! over the source on every `cargo test` and names the file and line of a break.
//! 0. `fnv`: the one non-cryptographic hash (signatures, keys, table slots);
//! 1. `error`, `clock`, `env`, `hex`, `pathcmp`, `present`, `contract`, `embed`, `events`, `jsonbound`:
//!    plain data, the output text rules, the vocabularies (the hook events) and the bounds on
//!    outside JSON;
//! 2. `fsutil`, `jsonedit`, `hosts`, `secret`: the file system, format-preserving JSON edits, the
//!    host tables, the secret rules;
//! 3. `process`, `config`, `session`, `recall`: child processes, `.capn/config.json`, the per-user
//!    session state, and the recall engine (BM25, vectors, the decision);
//! 4. `store`: `.capn/` (entries, freshness, the derived index);
//! 5. `install`: what sets the hosts up;
//! 6. `hook`: what runs inside the hosts;
//! 7. `cli`: the clap definitions;
//! 8. `doctor`: the installation check, which runs the hooks as the hosts do;
//! 9. `cmd`: one file per subcommand; then this file.

// clippy.toml's one-owner checks hold for the product's code; unit tests set up fixtures with
// std::fs and read the environment directly.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

/// Writes one diagnostic line on stderr and ignores any write error (stderr closed, a broken
/// pipe, a full disk). `eprintln!` panics on a write error, which on a hook path would turn into
/// exit 101; every diagnostic a hook or the statusline can print goes through this instead.
macro_rules! diag {
    ($($arg:tt)*) => {
        $crate::write_diag(format_args!($($arg)*))
    };
}

// The public surface is deliberate: `main_entry` (the program), `events` (the hook-event table
// the integration tests drive), `recall` and `embed` (the recall engine the in-process
// evaluations in `examples/` measure), `schema` and `codex_output_schemas` (the Codex
// output-schema checker and the schemas embedded, which the conformance tests compare).
// Everything else is crate-private.
pub(crate) mod cli;
pub(crate) mod clock;
pub(crate) mod cmd;
pub(crate) mod config;
pub(crate) mod contract;
pub(crate) mod doctor;
pub mod embed;
pub(crate) mod env;
pub(crate) mod error;
pub mod events;
pub(crate) mod fnv;
#[cfg(test)]
mod foreign_scan;
pub(crate) mod fsutil;
pub(crate) mod hex;
pub(crate) mod hook;
pub(crate) mod hosts;
pub(crate) mod install;
pub(crate) mod jsonbound;
pub(crate) mod jsonedit;
#[cfg(test)]
mod layers;
pub(crate) mod pathcmp;
pub(crate) mod present;
pub(crate) mod process;
pub mod recall;
pub(crate) mod secret;
pub(crate) mod session;
pub(crate) mod store;

use clap::Parser;
use std::ffi::OsString;
use std::process::ExitCode;

use error::SilentExit;
pub use hosts::codex_output_schemas;
pub use install::schema;

/// Runs `capn` with the given argv (including argv\[0\]) and returns the process exit code.
///
/// Exit codes: 0 success; 1 a refused input, a miss (`ask`) or any other error (printed once on
/// stderr as `capn: <error chain>`); usage errors also exit 1, never 2. Hook subcommands
/// (`capn hook ...`, `capn statusline`) always exit 0: Claude Code reads exit 2 as "block" on
/// UserPromptSubmit and PreCompact (Claude Code's hooks docs, exit code 2), so no hook path may
/// produce it.
pub fn main_entry(args: Vec<OsString>) -> ExitCode {
    if hook::entry::is_hook_invocation(&args) {
        return hook::entry::run(&args, &parse_hook);
    }
    if let Some(code) = hook::entry::bare(&args) {
        return code;
    }
    let cli = match cli::Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e, &args),
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => report(&e),
    }
}

/// Prints clap's usage error `e` about `args` (or, when an argument holds a secret, the refusal
/// that names it without its value) and maps it to an exit code: 0 for `--help`, `--version` and
/// a hook path, 1 otherwise.
fn usage_error(mut e: clap::Error, args: &[OsString]) -> ExitCode {
    use clap::error::ErrorKind;
    if e.kind() == ErrorKind::InvalidSubcommand {
        suggest_transposed(&mut e);
    }
    let code = match e.kind() {
        // A bare `capn` (or `capn state`) is a usage error: help, exit 1 (as 0.2).
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
        // `capn hook x --help` with a bad value lands here: a hook path still exits 0.
        _ if hook::entry::is_hook_command(args) => 0,
        _ => 1,
    };
    // clap's message repeats the argument it could not place: never one holding a secret.
    match secret_in_args(args) {
        Some(refusal) => diag!("capn: {refusal}"),
        None => {
            let _ = e.print();
        }
    }
    ExitCode::from(code)
}

/// The full parser for the hook command lines [`hook::entry`]'s fast path does not recognise.
fn parse_hook(args: &[OsString]) -> Result<hook::entry::Parsed, clap::Error> {
    use hook::entry::Parsed;
    Ok(match cli::Cli::try_parse_from(args)?.command {
        cli::Command::Hook(a) => Parsed::Hook {
            event: a.event,
            host: a.host,
            user: a.user,
        },
        cli::Command::Statusline(a) => Parsed::Statusline(a.into()),
        _ => Parsed::Other,
    })
}

/// The refusal to print a usage error about `args` (argv, argv\[0\] skipped) when one of them
/// holds what looks like a secret ([`secret::find`]): names the argument's position, the kind
/// and the characters, never the value. `None` when none does.
fn secret_in_args(args: &[OsString]) -> Option<String> {
    args.iter().enumerate().skip(1).find_map(|(n, a)| {
        let text = a.to_string_lossy();
        let f = secret::find(&text)?;
        Some(format!(
            "refusing to run: argument {n} holds what looks like {} ({}), and the usage error would repeat it; capn never stores a secret: leave the value out, name where it lives instead (a variable or file); nothing was written",
            f.kind,
            f.place(&text)
        ))
    })
}

/// Runs a parsed command line. `Ok` carries the exit code (a miss is `Ok(1)`), `Err` a failure
/// that [`main_entry`] prints and maps to exit 1.
pub(crate) fn run(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    cmd::dispatch(cli.command)
}

/// Prints an error once on stderr and maps it to an exit code; a broken pipe is a silent success.
fn report(e: &anyhow::Error) -> ExitCode {
    if let Some(silent) = e.downcast_ref::<SilentExit>() {
        return ExitCode::from(silent.code);
    }
    if error::is_broken_pipe(e) {
        return ExitCode::SUCCESS;
    }
    present::write_stderr(&format!("capn: {e:#}"));
    ExitCode::from(1)
}

/// Writes `args` as one escaped, capped line on stderr (`present::foreign::diag_text`) in one
/// locked write, ignoring errors (see `diag!`).
pub(crate) fn write_diag(args: std::fmt::Arguments<'_>) {
    present::write_stderr(&args.to_string());
}

/// Adds clap's "a similar subcommand exists" tip for a swapped pair of letters (`capn aks`),
/// which clap's own similarity measure misses, when clap suggested nothing.
fn suggest_transposed(e: &mut clap::Error) {
    use clap::error::{ContextKind, ContextValue};
    if e.get(ContextKind::SuggestedSubcommand).is_some() {
        return;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return;
    };
    let typed = typed.clone();
    let cmd = <cli::Cli as clap::CommandFactory>::command();
    let near: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|name| typed.len() >= 3 && strsim::osa_distance(&typed, name) == 1)
        .collect();
    if !near.is_empty() {
        e.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(near),
        );
    }
}
