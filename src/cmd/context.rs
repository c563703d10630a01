//! `capn context`: prints the ask-before-search contract ([`crate::contract::CONTRACT`]) that
//! the SessionStart hook injects. No store access, no side effects.

pub(crate) use crate::contract::CONTRACT;
use std::process::ExitCode;

/// Prints [`CONTRACT`] on stdout.
pub(crate) fn run() -> anyhow::Result<ExitCode> {
    crate::present::print(CONTRACT)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_is_short_and_names_the_commands() {
        assert!(CONTRACT.chars().count() < 2000, "{}", CONTRACT.len());
        for needle in [
            "capn ask",
            "capn chart",
            "--files",
            "--details",
            "unchart",
            "bust",
        ] {
            assert!(CONTRACT.contains(needle), "missing {needle}");
        }
    }
}
