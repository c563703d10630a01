//! The integration test binary: every test runs the built `capn` in a temp dir with HOME and the
//! XDG dirs pinned there (see `util`).

mod chart;
mod chart_store;
mod codex_reminder;
mod concurrency;
mod doctor;
mod doctor_files;
mod fork;
mod git_scenarios;
mod guest;
mod handoff;
mod hook_budget;
mod hook_inputs;
mod hooks;
mod hooks_markers;
mod hooks_under_failure;
mod hostile;
mod hostile_content;
mod init;
mod init_git;
mod inject;
mod install_edges;
mod offers;
mod phrasing_edges;
mod phrasings;
mod plugin;
mod precision;
mod readme_examples;
mod roundtrip;
mod schema;
mod semantic;
mod state;
mod statusline;
mod store_edges;
mod usage;
mod util;
