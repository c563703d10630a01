//! `capn chart "<question>" --files a,b [--details ".."]`: record which files answer a question.
//!
//! The checks and the write are the store's ([`crate::store::chart`]); this file refuses a stray
//! positional argument (exit 1 with a one-line reason, before anything is written), hands the
//! rest over and prints the one line the store says.

use crate::cli::ChartArgs;
use crate::error::Refused;
use crate::store::chart::{chart, ChartRequest};
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn chart`: with `--like <id>`, adds the question as another phrasing of that chart;
/// otherwise hashes the files and charts them.
///
/// Errors: [`Refused`] for a second positional argument; [`chart`]'s.
pub(crate) fn run(args: &ChartArgs) -> Result<ExitCode> {
    if let Some(extra) = args.extra.first() {
        // The refusal repeats the argument: never one that holds a secret.
        crate::secret::refuse("refusing to chart", &[("an unexpected argument", extra)])?;
        return Err(Refused(format!(
            "unexpected argument {extra:?}: quote the question, and pass files with --files"
        ))
        .into());
    }
    let said = chart(&ChartRequest {
        question: args.question.as_deref(),
        files: &args.files,
        file: &args.file,
        details: args.details.as_deref(),
        like: args.like.as_deref(),
    })?;
    crate::present::print(&format!("{said}\n"))?;
    Ok(ExitCode::SUCCESS)
}
