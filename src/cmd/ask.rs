//! `capn ask "<question>" [--limit N]`: recall charted answers, best first, as JSONL.
//!
//! The store does the asking and says what to print ([`Store::ask_text`]: freshness, the answer
//! gate, verification against the entry files, the JSONL answers or the miss text); this command
//! checks its arguments and prints: JSONL answers on stdout, or on a miss the text on stderr.

use crate::cli::AskArgs;
use crate::present;
use crate::store::Store;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn ask`: exit 0 with hits on stdout, exit 1 with a nudge on stderr on a miss.
///
/// Errors: [`crate::error::Refused`] for a stray argument or no question; the store's.
pub(crate) fn run(args: &AskArgs) -> Result<ExitCode> {
    let question = checked_question(args)?;
    let store = Store::from_env()?;
    // A .capn that is a symlink, a file or a FIFO is an error to report, not an empty store.
    store.check_dirs()?;
    if store.is_outside_project() {
        diag!("capn: {}", super::messages::outside_project("ask"));
        return Ok(ExitCode::from(1));
    }
    let text = store.ask_text(question, args.limit as usize)?;
    if !text.answered() {
        if !store.exists() {
            diag!("capn: {}", super::messages::no_store(&store.root));
        }
        present::write_stderr_lines(&text.stderr);
        return Ok(ExitCode::from(1));
    }
    if !text.stderr.is_empty() {
        present::write_stderr_lines(&text.stderr);
    }
    present::print(&text.stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// The question of `args`, trimmed.
///
/// Errors: [`crate::error::Refused`] for an argument after the question (the refusal shows how
/// to quote it, unless an argument holds a secret) or a question that is empty.
fn checked_question(args: &AskArgs) -> Result<&str> {
    if !args.extra.is_empty() {
        // The refusal repeats the arguments: never one that holds a secret.
        let extras: Vec<(&str, &str)> = args
            .extra
            .iter()
            .map(|e| ("an unexpected argument", e.as_str()))
            .collect();
        crate::secret::refuse("refusing to ask", &extras)?;
        let whole = std::iter::once(args.question.as_str())
            .chain(args.extra.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(crate::error::Refused(format!(
            "unexpected argument {}: quote the question: capn ask {}",
            present::quote(&args.extra[0], present::MAX_QUESTION_CHARS),
            present::quote(&whole, present::MAX_ASK_QUESTION_CHARS)
        ))
        .into());
    }
    let question = args.question.trim();
    if question.is_empty() {
        return Err(
            crate::error::Refused("missing question: capn ask \"<question>\"".into()).into(),
        );
    }
    Ok(question)
}
