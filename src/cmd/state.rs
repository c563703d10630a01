//! `capn state path|save|show [--session <id>]`: the session's `/compact-prep` state file.
//!
//! Which session, the save (markdown on stdin, its headings checked) and the read are
//! [`crate::session::state_file`]'s; this file picks the action and prints the path, the
//! saved line or the state. `show` of a session that continues a compacted conversation under
//! a new id and has no state of its own shows the old id's, and says so on stderr.

use crate::cli::{StateAction, StateArgs};
use crate::session::state_file;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `capn state`. Exit 0 on success; refusals (no session id, bad headings, no state file
/// for `show`) are [`crate::error::Refused`] errors, printed once and mapped to exit 1.
pub(crate) fn run(args: &StateArgs) -> Result<ExitCode> {
    let out = match &args.action {
        StateAction::Path(a) => {
            let s = state_file::resolve(a.session.as_deref())?;
            format!("{}\n", s.state_file().display())
        }
        StateAction::Save(a) => {
            let s = state_file::resolve(a.session.as_deref())?;
            format!("{}\n", state_file::save_from(&s, std::io::stdin().lock())?)
        }
        StateAction::Show(a) => {
            let s = state_file::resolve(a.session.as_deref())?;
            let saved = state_file::read(&s)?;
            if let Some(from) = &saved.continued {
                diag!(
                    "capn: showing the state saved under session {from}, which session {} continues",
                    s.id
                );
            }
            saved.text
        }
    };
    crate::present::print(&out)?;
    Ok(ExitCode::SUCCESS)
}
