//! One file per user subcommand; [`dispatch`] routes a parsed command to it.

pub(crate) mod ask;
pub(crate) mod bust;
pub(crate) mod chart;
pub(crate) mod context;
pub(crate) mod init;
pub(crate) mod list;
pub(crate) mod messages;
pub(crate) mod prune;
pub(crate) mod refresh;
pub(crate) mod state;
pub(crate) mod unchart;
pub(crate) mod uninstall;
pub(crate) mod user;

use crate::cli::Command;
use std::process::ExitCode;

/// Runs one parsed subcommand; `Ok` carries the exit code.
pub(crate) fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Init(a) if a.user => user::init(),
        Command::Init(a) => init::run(&a),
        Command::Context(_) => context::run(),
        Command::Ask(a) => ask::run(&a),
        Command::Chart(a) => chart::run(&a),
        Command::Unchart(a) => unchart::run(&a),
        Command::Bust(a) => bust::run(&a),
        Command::Prune(a) => prune::run(&a),
        Command::Refresh(_) => refresh::run(),
        Command::List(a) => list::run(&a),
        Command::State(a) => state::run(&a),
        Command::Uninstall(a) if a.user => user::uninstall(),
        Command::Uninstall(a) => uninstall::run(&a),
        Command::Doctor(a) => crate::doctor::run(&a),
        Command::Hook(a) => {
            crate::hook::guard(|| crate::hook::run(a.event, a.host, a.user));
            Ok(ExitCode::SUCCESS)
        }
        Command::Statusline(a) => {
            crate::hook::guard(|| crate::hook::statusline::run(&a.into()));
            Ok(ExitCode::SUCCESS)
        }
    }
}
