//! The `capn` binary: hands argv to the library and returns its exit code.
//!
//! All logic lives in the library: `capn_hook::main_entry` parses the arguments, runs the
//! command and maps its outcome to an exit code (errors are printed and mapped in one place,
//! `report` in lib.rs; hook subcommands never reach it: they exit 0 whatever happens).

use std::process::ExitCode;

fn main() -> ExitCode {
    capn_hook::main_entry(std::env::args_os().collect())
}
