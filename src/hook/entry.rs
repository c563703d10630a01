//! The hook paths' entry: which argv is a hook run (`capn hook ...`, `capn statusline`, and a
//! bare `capn` with a payload on stdin), its parsing, and the run under [`super::guard`], so
//! every outcome exits 0 and stdout holds one JSON object or nothing.
//!
//! The forms `capn init` registers are recognised here without building the clap command tree
//! (a sizeable share of a no-op hook's time); anything else goes through the full command line's
//! parser, which the caller passes in ([`Parse`]), so a usage error reads as clap words it.

use super::{HookEvent, Host};
use std::ffi::OsString;
use std::process::ExitCode;

/// A hook command line as the full parser read it.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// `capn hook <event> [--host ..] [--user]`.
    Hook {
        /// The event to answer.
        event: HookEvent,
        /// Whose vocabulary and shapes to use.
        host: Host,
        /// Registered by `capn init --user`: silent without a store.
        user: bool,
    },
    /// `capn statusline [--warn-at N] [--wrap CMD]`.
    Statusline(super::statusline::Options),
    /// Any other subcommand (not a hook path: nothing runs).
    Other,
}

/// The full command line's parser (argv including argv\[0\]), for the forms the fast path does
/// not recognise; its error is what clap prints for a usage error.
pub(crate) type Parse<'a> = &'a dyn Fn(&[OsString]) -> Result<Parsed, clap::Error>;

/// True for `capn hook ...` and `capn statusline ...`: the paths that must exit 0 whatever happens.
pub(crate) fn is_hook_command(args: &[OsString]) -> bool {
    matches!(
        args.get(1).and_then(|a| a.to_str()),
        Some("hook") | Some("statusline")
    )
}

/// True for a hook or statusline run that is not asking for help or the version (those are
/// answered by clap without reading stdin, so they never block on a terminal). Only the
/// arguments before a `--` count: after it, `--help` is a plain value (a usage error for these
/// commands, which still exits 0 and, for the statusline, still prints a line).
pub(crate) fn is_hook_invocation(args: &[OsString]) -> bool {
    is_hook_command(args)
        && !args
            .iter()
            .skip(2)
            .take_while(|a| *a != "--")
            .any(|a| a == "--help" || a == "-h" || a == "--version" || a == "-V")
}

/// Runs a hook or statusline command line ([`is_hook_invocation`]) under [`super::guard`]:
/// always exit 0.
pub(crate) fn run(args: &[OsString], parse: Parse<'_>) -> ExitCode {
    super::guard(|| run_argv(args, parse))
}

/// A bare `capn` (argv is only argv\[0\]) whose stdin is not a terminal and not empty: a host
/// that ran a registration without its `args` ([`super::bare`]), answered as a hook (exit 0
/// whatever happens). `None` (then the caller prints the usage and exits 1) for any other argv,
/// a terminal or an empty stdin.
pub(crate) fn bare(args: &[OsString]) -> Option<ExitCode> {
    use std::io::IsTerminal;
    if args.len() != 1 || std::io::stdin().is_terminal() {
        return None;
    }
    let bytes = super::read_stdin_bytes();
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(super::guard(|| super::bare::run(&bytes)))
}

/// Parses and runs a hook or statusline command line; usage errors are reported on stderr and
/// swallowed (the caller, [`super::guard`], turns every outcome into exit 0).
fn run_argv(args: &[OsString], parse: Parse<'_>) -> anyhow::Result<()> {
    // `--user` last: the form `capn init --user` registers ([`super::run`]'s `user`).
    let user = args.len() > 2 && args[1] == "hook" && args.last().is_some_and(|a| a == "--user");
    let core = if user { &args[..args.len() - 1] } else { args };
    if let Some((event, host)) = fast_hook_args(core) {
        return super::run(event, host, user);
    }
    let defaults = super::statusline::Options::default();
    if args.len() == 2 && args[1] == "statusline" {
        return super::statusline::run(&defaults);
    }
    let parsed = match parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            if args.get(1).is_some_and(|a| a == "statusline") {
                // The status line must always print a line: report the usage error and run
                // with the defaults.
                diag!("capn: {}", e.render().to_string().trim_end());
                return super::statusline::run(&defaults);
            }
            super::drain_stdin();
            anyhow::bail!("{}", e.render().to_string().trim_end());
        }
    };
    match parsed {
        Parsed::Hook { event, host, user } => super::run(event, host, user),
        Parsed::Statusline(options) => super::statusline::run(&options),
        Parsed::Other => Ok(()),
    }
}

/// `capn hook <event> [--host claude|codex]` exactly as `capn init` registers it, or `None`
/// (then the full parser runs, with its error reporting).
fn fast_hook_args(args: &[OsString]) -> Option<(HookEvent, Host)> {
    let words: Vec<&str> = args.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    let (event, rest) = match words.as_slice() {
        [_, "hook", event, rest @ ..] => (*event, rest),
        _ => return None,
    };
    let event = HookEvent::from_subcommand(event)?;
    let host = match rest {
        [] => Host::default(),
        ["--host", flag] => Host::from_flag(flag)?,
        [flag] => Host::from_flag(flag.strip_prefix("--host=")?)?,
        _ => return None,
    };
    Some((event, host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registered_hook_forms_skip_clap_and_others_do_not() {
        let a = |v: &[&str]| fast_hook_args(&argv(v));
        assert_eq!(
            a(&["capn", "hook", "session-start"]),
            Some((HookEvent::SessionStart, Host::Claude))
        );
        assert_eq!(
            a(&["capn", "hook", "user-prompt-submit", "--host", "codex"]),
            Some((HookEvent::UserPromptSubmit, Host::Codex))
        );
        assert_eq!(a(&["capn", "hook", "bogus"]), None);
        assert_eq!(a(&["capn", "hook", "pre-compact", "--host", "nope"]), None);
        assert_eq!(a(&["capn", "hook", "pre-compact", "extra"]), None);
        assert_eq!(a(&["capn", "ask", "x"]), None);
    }

    fn argv(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn help_after_dash_dash_is_still_a_hook_run() {
        assert!(is_hook_invocation(&argv(&["capn", "statusline"])));
        assert!(!is_hook_invocation(&argv(&[
            "capn",
            "statusline",
            "--help"
        ])));
        assert!(!is_hook_invocation(&argv(&["capn", "hook", "-V"])));
        assert!(is_hook_invocation(&argv(&[
            "capn",
            "statusline",
            "--",
            "--help"
        ])));
        assert!(is_hook_invocation(&argv(&[
            "capn", "hook", "x", "--", "-h"
        ])));
        assert!(!is_hook_invocation(&argv(&["capn", "ask", "x"])));
    }
}
