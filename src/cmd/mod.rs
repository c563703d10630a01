//! One file per user subcommand; [`dispatch`] routes a parsed command to it.

pub mod ask;
pub mod bust;
pub mod chart;
pub mod context;
pub mod doctor;
pub mod init;
pub mod list;
pub mod messages;
pub mod prune;
pub mod state;
pub mod unchart;
pub mod uninstall;

use crate::cli::Command;
use std::process::ExitCode;

/// Runs one parsed subcommand; `Ok` carries the exit code.
pub fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Init(a) => init::run(&a),
        Command::Context(_) => context::run(),
        Command::Ask(a) => ask::run(&a),
        Command::Chart(a) => chart::run(&a),
        Command::Unchart(a) => unchart::run(&a),
        Command::Bust(a) => bust::run(&a),
        Command::Prune(a) => prune::run(&a),
        Command::List(a) => list::run(&a),
        Command::State(a) => state::run(&a),
        Command::Uninstall(a) => uninstall::run(&a),
        Command::Doctor(a) => doctor::run(&a),
        Command::Hook(a) => {
            crate::hook::guard(|| crate::hook::run(a.event, a.host));
            Ok(ExitCode::SUCCESS)
        }
        Command::Statusline(a) => {
            crate::hook::guard(|| crate::hook::statusline::run(&a.into()));
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    /// Each subcommand depends only on the lower layers and [`super::messages`]: no file under
    /// `src/cmd/` names another subcommand's module (issue 23: uninstall took init's internals,
    /// four commands took ask's).
    #[test]
    fn no_command_imports_another() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cmd");
        let commands: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                let stem = name.strip_suffix(".rs").unwrap_or(&name).to_string();
                (stem != "mod" && stem != "messages").then_some(stem)
            })
            .collect();
        assert!(commands.len() >= 10, "{commands:?}");
        let mut files = vec![];
        for sub in ["", "doctor"] {
            for e in std::fs::read_dir(dir.join(sub)).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("cmd/mod.rs") {
                    files.push(p);
                }
            }
        }
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap();
            let own = p.file_stem().unwrap().to_string_lossy().into_owned();
            for c in commands.iter().filter(|c| **c != own) {
                for path in [format!("crate::cmd::{c}"), format!("super::{c}::")] {
                    assert!(
                        !text.contains(&path),
                        "{} uses {path}: move the shared rule to a lower layer or cmd/messages.rs",
                        p.display()
                    );
                }
            }
        }
    }
}
