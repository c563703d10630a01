//! The integration test binary: every test runs the built `capn` in a temp dir with HOME and the
//! XDG dirs pinned there (see `util`).

// Tests set up their fixtures with std::fs and read the environment directly (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod args_dropped;
mod breaker_fixes;
mod budgets;
mod chart;
mod chart_store;
mod code_text;
mod codex_reminder;
mod compaction;
mod concurrency;
mod delta;
mod doc_links;
mod doctor;
mod doctor_files;
mod doctor_hosts;
mod foreign;
mod fork;
mod git_scenarios;
mod git_shared;
mod git_traces;
mod git_versions;
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
mod install_examples;
mod json_bounds;
mod learn;
mod learn_leaks;
mod nudge;
mod offers;
mod other_hosts;
mod own_words;
mod phrasing_edges;
mod phrasings;
mod plugin;
mod precision;
mod readme_examples;
mod readme_quickstart;
mod refresh;
mod roundtrip;
mod schema;
mod secrets;
mod semantic;
mod state;
mod statusline;
mod store_edges;
mod symbols;
mod trust_recall;
mod usage;
mod user_data;
mod user_install;
mod util;
