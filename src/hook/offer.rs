//! Proactive recall (docs/offers.md): charted answers offered to the agent, unasked, at the two
//! moments that matter: the user's prompt (UserPromptSubmit) and the agent's search
//! (PreToolUse on Grep, Glob, a sub-agent launch or a shell search).
//!
//! An offer is a short block in `additionalContext`: one line saying where the lines come from and
//! that they are quoted data ([`crate::present`] owns how entry text is shown),
//! then one line `capn: "<question>" -> "<file>", ... (<where the chart came from>)`: the gate
//! offers at most one chart per text.
//! Every rule that keeps offers rare and right has one owner: when an offer is looked for, the
//! session's record and the text here ([`offers`], the one entry point of both moments); which
//! chart a text points at in [`crate::recall::offer`]; whether that chart may be shown in
//! [`crate::store::Store::offer`]:
//! - a prompt that is a slash command or very short is not recalled over
//!   ([`crate::recall::offer::is_recallable_prompt`]);
//! - the injection gate ([`crate::recall::offer::select`]) is stricter than `ask`'s;
//! - an offered entry's backing files are checked (SHA-256, through the stat cache:
//!   [`crate::store::entry_is_fresh_within`]) just before it is offered: a stale chart is never
//!   offered, and when the chart the gate picks is stale, nothing is (never a chart ranked below
//!   it in its place; `ask` reports the stale one);
//! - once per session: an entry offered once is not offered again until it is re-charted (its
//!   `at` changes) or a compaction drops the earlier context ([`forget`]); sub-agents keep their
//!   own record, since they do not see the main conversation;
//! - both moments are on by default; `.capn/config.json` `"offer": false` switches both off,
//!   `"offer": {"prompt": false}` or `{"search": false}` one of them, and `"embedding": false`
//!   both (the one owner of whether offers are on: [`crate::config::Config::offers_at`]).

use super::Ctx;
use crate::session::SessionDir;
use crate::store::Store;
use anyhow::Result;
use std::collections::BTreeMap;

/// The moment of an offer (the config's, which says whether offers are on at it).
pub(crate) use crate::config::OfferMoment as Moment;

/// Prefix of the files in the session dir that record what was offered (`offered.json` for the
/// main conversation, `offered-<agent>.json` for a sub-agent).
pub(crate) const OFFERED_PREFIX: &str = "offered";

/// The lock that makes an offer's record exact under parallel hooks (Claude Code runs a turn's
/// tool calls, and so their PreToolUse hooks, in parallel): one file in the state dir, shared by
/// all sessions (it is held only to read and write one small record, and a file made once costs
/// a new session nothing; creating a file is most of a small hook's system time). Never deleted,
/// so no hook ever locks a file another has just replaced.
pub(crate) const OFFER_LOCK: &str = "offer.lock";

/// [`OFFER_LOCK`] for session `s`: in the state dir that holds its `sessions/` folder.
pub(super) fn offer_lock_path(s: &SessionDir) -> std::path::PathBuf {
    s.path
        .parent()
        .and_then(std::path::Path::parent)
        .map_or_else(|| s.file(OFFER_LOCK), |state| state.join(OFFER_LOCK))
}

/// The offered-state file for the call's agent (the main conversation when none).
fn offered_file(ctx: &Ctx) -> String {
    match &ctx.call.agent {
        Some(agent) => format!("{OFFERED_PREFIX}-{agent}.json"),
        None => format!("{OFFERED_PREFIX}.json"),
    }
}

/// Forgets every offer of the session (a compaction dropped the context they were made in).
pub(crate) fn forget(s: &SessionDir) {
    let Ok(rd) = std::fs::read_dir(&s.path) else {
        return;
    };
    for de in rd.flatten() {
        if de.file_name().to_string_lossy().starts_with(OFFERED_PREFIX) {
            let _ = std::fs::remove_file(de.path());
        }
    }
}

/// The questions of the charts offered to the main conversation of session `s` (its
/// `offered.json`), at most `max`, read from the entries of the call's project (each bounded
/// and parsed as `capn ask` does; an entry that is gone or malformed is skipped). Empty without
/// a record or a store.
pub(crate) fn offered_questions(ctx: &Ctx, s: &SessionDir, max: usize) -> Vec<String> {
    let Some(offered) = read_offered(s, &format!("{OFFERED_PREFIX}.json")) else {
        return Vec::new();
    };
    let Some(root) = ctx.call.project_root() else {
        return Vec::new();
    };
    let store = Store::at(root);
    let mut out = Vec::new();
    for id in offered.keys() {
        if out.len() >= max {
            break;
        }
        if !crate::store::entry::is_valid_id(id) {
            continue;
        }
        let Ok(bytes) = crate::fsutil::read_limited(
            &store.entry_path(id),
            crate::fsutil::limits::ENTRY,
            crate::fsutil::Follow::Never,
        ) else {
            continue;
        };
        if let Ok(e) = crate::store::entry::Entry::parse(&String::from_utf8_lossy(&bytes), id) {
            out.push(e.question);
        }
    }
    out
}

/// What was offered: entry id -> [`stamp`] of its `at` when offered. `None` when the record
/// exists but cannot be read or parsed (over [`crate::fsutil::limits::MARKER`], corrupt, not a
/// regular file): then nothing is offered (failing closed: reading it as "nothing offered yet"
/// would offer every chart again on each search).
fn read_offered(s: &SessionDir, name: &str) -> Option<BTreeMap<String, String>> {
    match crate::fsutil::read_limited(
        &s.file(name),
        crate::fsutil::limits::MARKER,
        crate::fsutil::Follow::Never,
    ) {
        Ok(b) => serde_json::from_slice(&b).ok(),
        Err(crate::fsutil::ReadError::NotFound) => Some(BTreeMap::new()),
        Err(_) => None,
    }
}

/// What the record keeps of an entry's `at`: the value itself when it is at most
/// [`crate::store::entry::MAX_AT_BYTES`] (as entries parse it), else a 16-hex-digit SHA-256
/// prefix of it, so the record never holds entry-controlled text unbounded.
fn stamp(at: &str) -> String {
    if at.len() <= crate::store::entry::MAX_AT_BYTES {
        return at.to_string();
    }
    use sha2::Digest;
    let d = sha2::Sha256::digest(at.as_bytes());
    let hex: String = d.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The offer block for `intent` at `moment`, or `None` when nothing passes (a prompt not worth
/// recalling over, [`crate::recall::offer::is_recallable_prompt`]; offers off; no store or no
/// valid session; the store offers no chart). Records what it offers.
///
/// Errors: the store cannot be listed, or the session's record cannot be written (then nothing
/// is offered: an offer that is not recorded would be repeated).
pub(crate) fn offers(ctx: &Ctx, moment: Moment, intent: &str) -> Result<Option<String>> {
    if moment == Moment::Prompt && !crate::recall::offer::is_recallable_prompt(intent) {
        return Ok(None);
    }
    let Some(s) = ctx.session()? else {
        return Ok(None);
    };
    let cwd = ctx
        .call
        .cwd
        .as_deref()
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::current_dir().ok());
    let Some(cwd) = cwd else { return Ok(None) };
    let store = Store::at(crate::store::hook_root(&cwd));
    if !store.exists() || store.check_dirs().is_err() {
        return Ok(None);
    }
    if !store.config().offers_at(moment) {
        return Ok(None);
    }
    let name = offered_file(ctx);
    let Some(offered) = read_offered(&s, &name) else {
        return Ok(None);
    };
    let skip = |e: &crate::store::entry::Entry| offered.get(&e.id) == Some(&stamp(&e.at));
    let Some(e) = store.offer(intent, &skip)? else {
        return Ok(None);
    };
    if !claim(&s, &name, &e)? {
        return Ok(None);
    }
    let origin = crate::store::provenance::origin(&store.root, &entry_key(&e.id));
    let lines = vec![line(&e.question, e.files.keys(), origin)];
    Ok(Some(render(moment, &lines)))
}

/// The entry file's path relative to the project root, as git's index names it.
fn entry_key(id: &str) -> String {
    format!("{}/entries/{id}.md", crate::store::STORE_DIR)
}

/// How long a hook waits for [`OFFER_LOCK`] before it offers nothing: every holder keeps it for
/// one small read and write, so only a stuck holder keeps a hook waiting this long, and a hook
/// must return promptly whatever happens.
pub(super) const OFFER_LOCK_WAIT: crate::store::lock::Wait = crate::store::lock::Wait {
    notice_after: std::time::Duration::MAX,
    give_up_after: std::time::Duration::from_secs(1),
};

/// Records `e` as offered in the session's file `name`, under [`OFFER_LOCK`]: the record is read
/// again under the lock, so of several hooks that picked the same chart at once exactly one
/// offers it (`Ok(true)`), and no hook's record is lost to another's write. `Ok(false)` when the
/// lock stays held for [`OFFER_LOCK_WAIT`].
///
/// Errors: the session dir, the lock or the record cannot be written.
fn claim(s: &SessionDir, name: &str, e: &crate::store::entry::Entry) -> Result<bool> {
    s.ensure()?;
    let lock_path = offer_lock_path(s);
    let held =
        crate::store::lock::StoreLock::acquire_within(&lock_path, OFFER_LOCK_WAIT, &mut || {})?;
    let Some(_lock) = held else {
        return Ok(false);
    };
    let Some(mut offered) = read_offered(s, name) else {
        return Ok(false);
    };
    let at = stamp(&e.at);
    if offered.get(&e.id) == Some(&at) {
        return Ok(false);
    }
    offered.insert(e.id.clone(), at);
    let text = serde_json::to_string(&offered)?;
    // A record that would not be read back is not written: the offer is not made.
    if text.len() as u64 > crate::fsutil::limits::MARKER {
        return Ok(false);
    }
    crate::fsutil::write_atomic_with(
        &s.file(name),
        text.as_bytes(),
        crate::fsutil::Durability::Transient,
    )?;
    Ok(true)
}

/// One offer line: `capn: "<question>" -> "<file>", "<file>" (<where it came from>)`, quoted,
/// escaped and capped by [`crate::present::chart_line`]; the origin is left out when capn cannot
/// tell it ([`crate::store::provenance`]).
fn line<'a>(
    question: &str,
    files: impl ExactSizeIterator<Item = &'a String>,
    origin: crate::store::provenance::Origin,
) -> String {
    let chart = crate::present::chart_line(question, files);
    match origin.label() {
        Some(label) => format!("capn: {chart} ({label})"),
        None => format!("capn: {chart}"),
    }
}

/// The block: where the lines come from and that they are data ([`crate::present::DATA_FRAME`]),
/// then the lines.
fn render(moment: Moment, lines: &[String]) -> String {
    let head = match (moment, lines.len()) {
        (Moment::Prompt, 1) => "capn: a charted answer that matches this prompt (from this project's capn chart, its files checked unchanged just now; read them before searching).",
        (Moment::Search, 1) => "capn: a charted answer that matches this search (from this project's capn chart, its files checked unchanged just now; it may make the search unnecessary).",
        (Moment::Prompt, _) => "capn: charted answers that match this prompt (from this project's capn chart, files checked unchanged just now; read them before searching).",
        (Moment::Search, _) => "capn: charted answers that match this search (from this project's capn chart, files checked unchanged just now; they may make the search unnecessary).",
    };
    let mut out = String::from(head);
    out.push(' ');
    out.push_str(crate::present::DATA_FRAME);
    for l in lines {
        out.push('\n');
        out.push_str(l);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_line_bounded_and_quoted() {
        let files: Vec<String> = (0..7).map(|i| format!("src/f{i}.ts")).collect();
        let l = line(
            "Where is \"x\"\nhandled?",
            files.iter(),
            crate::store::provenance::Origin::Unknown,
        );
        assert_eq!(
            l,
            r#"capn: "Where is \"x\"\nhandled?" -> "src/f0.ts", "src/f1.ts", "src/f2.ts", "src/f3.ts", "src/f4.ts", (+2 more)"#
        );
    }
}
