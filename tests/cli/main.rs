//! The integration test binary: every test runs the built `capn` in a temp dir with HOME and the
//! XDG dirs pinned there (see `util`).

mod chart;
mod concurrency;
mod doctor;
mod hooks;
mod init;
mod precision;
mod qa;
mod qa2;
mod schema;
mod semantic;
mod state;
mod statusline;
mod util;
