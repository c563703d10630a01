//! The `capn` binary: parse arguments, run, map the outcome to an exit code.
//!
//! All logic lives in the library (`capn_hook::run`); this file only maps errors to exit codes in
//! one place. Hook subcommands never reach the error path: they exit 0 whatever happens.

use std::process::ExitCode;

fn main() -> ExitCode {
    capn_hook::main_entry(std::env::args_os().collect())
}
