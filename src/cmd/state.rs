//! `capn state path|save|show [--session <id>]`: the session's `/compact-prep` state file.
//!
//! The session id comes from `--session` (an empty value counts as absent, so a skill can pass
//! an unexpanded `"${CLAUDE_SESSION_ID}"` safely), else `$CAPN_SESSION_ID` (exported by the
//! SessionStart hook through `CLAUDE_ENV_FILE`). With neither, or with an id that does not match
//! format.md, the command exits 1 with a message that says how to get one: this is the skill's
//! hard stop.
//!
//! `show` of a session that continues a compacted conversation under a new id (it took over the
//! old id's marker, see [`crate::hook::handoff`]) and has no state of its own shows the old id's.
//!
//! `save` reads markdown on stdin and checks the nine headings of format.md ("State file") in
//! order: each present exactly once, in order, and no other `#`/`##` heading (outside fenced
//! code blocks). On any problem it lists every one of them and writes nothing; otherwise it
//! writes `state.md` atomically.

use crate::cli::{SessionArg, StateAction, StateArgs};
use crate::error::Refused;
use crate::session::{self, SessionDir, SessionId};
use anyhow::{Context, Result};
use std::io::Read;
use std::process::ExitCode;

pub use crate::session::STATE_HEADINGS as HEADINGS;

/// The largest state file `save` accepts, in bytes.
pub const MAX_STATE_BYTES: usize = 1024 * 1024;

/// Environment variable that names the session for `capn state`.
pub const SESSION_ENV: &str = crate::env::SESSION_ID;

/// Runs `capn state`. Exit 0 on success; refusals (no session id, bad headings, no state file
/// for `show`) are [`Refused`] errors, printed once and mapped to exit 1.
pub fn run(args: &StateArgs) -> Result<ExitCode> {
    match &args.action {
        StateAction::Path(a) => {
            let s = resolve(a)?;
            crate::present::print(&format!("{}\n", s.state_file().display()))?;
        }
        StateAction::Save(a) => {
            let s = resolve(a)?;
            let text = read_input()?;
            save(&s, &text)?;
            crate::present::print(&format!(
                "saved {}: all {} headings present, in order\n",
                s.state_file().display(),
                HEADINGS.len()
            ))?;
        }
        StateAction::Show(a) => {
            let mut s = resolve(a)?;
            // A session continuing a compacted conversation under a new id reads the state
            // saved under the old id until it saves its own (see crate::hook::handoff).
            if !s.state_file().exists() {
                if let Some(from) = crate::hook::handoff::continued_from(&s) {
                    if from.state_file().exists() {
                        diag!(
                            "capn: showing the state saved under session {}, which session {} continues",
                            from.id,
                            s.id
                        );
                        s = from;
                    }
                }
            }
            let path = s.state_file();
            let read = crate::fsutil::read_limited(
                &path,
                MAX_STATE_BYTES as u64,
                crate::fsutil::Follow::Never,
            );
            let text = match read {
                Ok(t) => t,
                Err(crate::fsutil::ReadError::NotFound) => {
                    return Err(Refused(format!(
                        "no state saved for session {} yet: {} does not exist (run /compact-prep)",
                        s.id,
                        path.display()
                    ))
                    .into())
                }
                Err(e) => {
                    return Err(e)
                        .with_context(|| format!("could not read state file: {}", path.display()))
                }
            };
            crate::present::print(&String::from_utf8_lossy(&text))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The session dir named by `--session`, else `$CAPN_SESSION_ID`.
///
/// Errors: [`Refused`] when neither is set (with how to get one) or the id does not match
/// format.md; the state dir cannot be determined.
pub fn resolve(a: &SessionArg) -> Result<SessionDir> {
    let from_env = crate::env::get(SESSION_ENV);
    let raw = a
        .session
        .as_deref()
        .filter(|s| !s.is_empty())
        .or(from_env.as_deref().filter(|s| !s.is_empty()));
    let Some(raw) = raw else {
        return Err(Refused(
            "no session id: CAPN_SESSION_ID is not set and --session was not given. The \
             SessionStart hook exports CAPN_SESSION_ID through CLAUDE_ENV_FILE: run `capn init` \
             and restart the session, or pass --session <id>"
                .into(),
        )
        .into());
    };
    let Some(id) = SessionId::parse(raw) else {
        return Err(Refused(format!(
            "invalid session id {:?}: it must match ^[A-Za-z0-9][A-Za-z0-9._-]{{0,127}}$",
            raw.chars().take(64).collect::<String>()
        ))
        .into());
    };
    Ok(SessionDir::new(&session::state_dir()?, &id))
}

/// Reads the markdown for `save` from stdin: at most [`MAX_STATE_BYTES`], UTF-8, BOM removed.
fn read_input() -> Result<String> {
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_STATE_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .context("could not read the state from stdin")?;
    if buf.len() > MAX_STATE_BYTES {
        return Err(Refused(format!(
            "refusing to save the state: it is larger than {MAX_STATE_BYTES} bytes; nothing was written"
        ))
        .into());
    }
    let text = String::from_utf8(buf).map_err(|_| {
        Refused("refusing to save the state: stdin is not valid UTF-8; nothing was written".into())
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}

/// Checks `text` and writes it as the session's state file (a trailing newline is added when
/// missing).
///
/// Errors: [`Refused`] when `text` holds what looks like a secret ([`crate::secret`]) or
/// listing every heading problem (nothing written); the write failed.
pub fn save(s: &SessionDir, text: &str) -> Result<()> {
    crate::secret::refuse("refusing to save the state", &[("the state", text)])?;
    let problems = check_headings(text);
    if !problems.is_empty() {
        let mut msg = String::from(
            "refusing to save the state: its headings do not match the state file format",
        );
        for p in &problems {
            msg.push_str("\n  - ");
            msg.push_str(p);
        }
        msg.push_str("\nexpected exactly these headings, in this order:");
        for h in HEADINGS {
            msg.push_str("\n  ");
            msg.push_str(h);
        }
        msg.push_str("\nnothing was written");
        return Err(Refused(msg).into());
    }
    s.ensure()?;
    let mut body = text.to_string();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    crate::fsutil::write_atomic(&s.state_file(), body.as_bytes())
        .with_context(|| format!("could not save state file: {}", s.state_file().display()))
}

/// One `#` or `##` heading found in the text.
struct Found {
    /// 1-based line number.
    line: usize,
    /// Index into [`HEADINGS`], or `None` for a heading that is not one of them.
    which: Option<usize>,
    /// The heading as written (trimmed).
    text: String,
}

/// Every problem with the headings of `text`, one line each; empty when it is valid. Reports
/// missing headings, duplicates, unexpected `#`/`##` headings and out-of-order headings (those
/// outside the longest run that is in order, so one misplaced heading is reported once).
pub fn check_headings(text: &str) -> Vec<String> {
    let found = scan_headings(text);
    let mut problems = Vec::new();
    let mut first: [Option<usize>; 9] = [None; 9];
    for (k, f) in found.iter().enumerate() {
        match f.which {
            Some(i) if first[i].is_none() => first[i] = Some(k),
            Some(i) => problems.push(format!(
                "duplicate: {} at line {} (first at line {})",
                HEADINGS[i],
                f.line,
                found[first[i].unwrap_or(k)].line
            )),
            None => problems.push(format!(
                "unexpected heading at line {}: {} (use ### or deeper inside a section)",
                f.line,
                crate::present::quote(&f.text, crate::present::MAX_QUESTION_CHARS)
            )),
        }
    }
    for (i, h) in HEADINGS.iter().enumerate() {
        if first[i].is_none() {
            problems.push(format!("missing: {h}"));
        }
    }
    // Present headings in the order they appear, as indices into HEADINGS.
    let mut seq: Vec<(usize, usize)> = first
        .iter()
        .enumerate()
        .filter_map(|(i, k)| k.map(|k| (k, i)))
        .collect();
    seq.sort();
    let idx: Vec<usize> = seq.iter().map(|&(_, i)| i).collect();
    let keep = longest_increasing(&idx);
    for (pos, &(k, i)) in seq.iter().enumerate() {
        if keep.contains(&pos) {
            continue;
        }
        let after = if i == 0 { None } else { Some(HEADINGS[i - 1]) };
        let before = HEADINGS.get(i + 1).copied();
        let place = match (after, before) {
            (Some(a), Some(b)) => format!("after {a} and before {b}"),
            (None, Some(b)) => format!("first, before {b}"),
            (Some(a), None) => format!("last, after {a}"),
            (None, None) => String::new(),
        };
        problems.push(format!(
            "out of order: {} at line {} belongs {place}",
            HEADINGS[i], found[k].line
        ));
    }
    problems
}

/// Positions (into `v`) of one longest strictly increasing subsequence of `v`.
fn longest_increasing(v: &[usize]) -> Vec<usize> {
    let n = v.len();
    let mut len = vec![1usize; n];
    let mut prev = vec![usize::MAX; n];
    for i in 0..n {
        for j in 0..i {
            if v[j] < v[i] && len[j] + 1 > len[i] {
                len[i] = len[j] + 1;
                prev[i] = j;
            }
        }
    }
    let Some(mut at) = (0..n).max_by_key(|&i| (len[i], std::cmp::Reverse(i))) else {
        return Vec::new();
    };
    let mut out = vec![at];
    while prev[at] != usize::MAX {
        at = prev[at];
        out.push(at);
    }
    out
}

/// The `#` and `##` ATX headings of `text` outside fenced code blocks.
fn scan_headings(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        if indent <= 3 {
            let c = body.chars().next().unwrap_or(' ');
            if c == '`' || c == '~' {
                let run = body.chars().take_while(|&x| x == c).count();
                if run >= 3 {
                    match fence {
                        None => {
                            fence = Some((c, run));
                            continue;
                        }
                        Some((fc, fr)) if fc == c && run >= fr && body[run..].trim().is_empty() => {
                            fence = None;
                            continue;
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        let hashes = body.chars().take_while(|&c| c == '#').count();
        if !(1..=2).contains(&hashes) {
            continue;
        }
        let rest = &body[hashes..];
        if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
            continue;
        }
        out.push(Found {
            line: n + 1,
            which: HEADINGS.iter().position(|h| *h == body),
            text: body.to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(order: &[usize]) -> String {
        order
            .iter()
            .map(|&i| format!("{}\n\ncontent {i}\n\n", HEADINGS[i]))
            .collect()
    }

    #[test]
    fn all_nine_in_order_pass() {
        assert!(check_headings(&doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8])).is_empty());
        let crlf = doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8]).replace('\n', "\r\n");
        assert!(check_headings(&crlf).is_empty());
    }

    #[test]
    fn missing_headings_are_all_listed() {
        let p = check_headings(&doc(&[0, 1, 2, 4, 5, 6, 8]));
        assert_eq!(
            p,
            ["missing: ## TaskList Summary", "missing: ## Editing Files"]
        );
        assert_eq!(check_headings("").len(), 9);
    }

    #[test]
    fn one_misplaced_heading_is_reported_once() {
        let p = check_headings(&doc(&[1, 2, 3, 4, 5, 6, 7, 8, 0]));
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("out of order: # Compact Prep State at line"),
            "{p:?}"
        );
        assert!(p[0].contains("first, before ## Active Plan"));
        let p = check_headings(&doc(&[0, 2, 1, 3, 4, 5, 6, 7, 8]));
        assert_eq!(p.len(), 1, "{p:?}");
    }

    #[test]
    fn duplicates_and_unexpected_headings_are_refused() {
        let mut d = doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8]);
        d.push_str("## Active Plan\n## Notes\n# Another\n### Fine\n#hashtag is not a heading\n");
        let p = check_headings(&d);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].starts_with("duplicate: ## Active Plan"));
        assert!(p[1].contains("\"## Notes\""));
        assert!(p[2].contains("\"# Another\""));
    }

    #[test]
    fn code_fences_hide_comment_lines() {
        let mut d = doc(&[0, 1, 2, 3, 4, 5, 6, 7]);
        d.push_str("## Recovery Notes\n```bash\n# run the tests\ncargo test\n```\n~~~\n## not a heading\n~~~\n");
        assert!(check_headings(&d).is_empty(), "{:?}", check_headings(&d));
    }

    #[test]
    fn near_misses_do_not_count() {
        let d = doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8])
            .replace("## TaskList Summary", "## Task List Summary");
        let p = check_headings(&d);
        assert!(
            p.iter().any(|x| x == "missing: ## TaskList Summary"),
            "{p:?}"
        );
        assert!(p.iter().any(|x| x.contains("\"## Task List Summary\"")));
    }
}
