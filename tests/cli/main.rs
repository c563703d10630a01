//! The integration test binary: every test runs the built `capn` in a temp dir with HOME and the
//! XDG dirs pinned there (see `util`).

mod chart;
mod codex_reminder;
mod concurrency;
mod doctor;
mod guest;
mod handoff;
mod hook_inputs;
mod hooks;
mod hostile;
mod init;
mod offers;
mod plugin;
mod precision;
mod qa;
mod qa2;
mod roundtrip;
mod schema;
mod semantic;
mod state;
mod statusline;
mod usage;
mod util;
