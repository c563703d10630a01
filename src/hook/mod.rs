//! Hook subcommands: bounded stdin read, lenient parse, and a guard that turns every outcome
//! (errors, panics) into exit 0.

use crate::cli::{HookEvent, Host};
use std::io::Read;
use std::process::ExitCode;

/// Runs `f` and exits 0 whatever happens: errors and panics are reported on stderr only.
pub fn guard(f: impl FnOnce() -> anyhow::Result<()>) -> ExitCode {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("capn: {e:#}"),
        Err(_) => eprintln!("capn: internal error (panic) in a hook; ignored"),
    }
    ExitCode::SUCCESS
}

/// Reads and discards all of stdin (the host may otherwise see a broken pipe).
pub fn drain_stdin() {
    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
}

/// Reads all of stdin into a string (lossy UTF-8).
pub fn read_stdin() -> String {
    let mut buf = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Runs one hook event (placeholder until the hook suite lands).
pub fn run(event: HookEvent, host: Host) -> anyhow::Result<()> {
    let _ = (event, host);
    drain_stdin();
    Ok(())
}
