//! Learning from use (docs/recall.md, "Learning from use"): when the session's `capn ask`
//! missed and showed a strong candidate ([`crate::session::shown`]), and the agent then read
//! that chart's backing files and did nothing else that turn, the question's words are learned
//! for that chart ([`crate::store::learned`]): they move it up among the lines a later miss
//! shows, never make it answer.
//!
//! - [`observe`] (PreToolUse, and the PostToolUse that stands in for it on Gemini CLI, Qwen Code
//!   and Copilot CLI): a shell call that runs `capn ask "<q>"` is recorded as the session's ask
//!   (in its project); while the session has a recent open ask, each file read
//!   ([`super::turn_tools::classify`]: Read, `read_file`, `view`, shell `cat`/`sed -n`/`head`...)
//!   and each search (Grep, Glob, a shell search, a sub-agent) is recorded in order, bounded
//!   ([`crate::session::learning`]), and so is any other call (a listing, `git show`, a shell
//!   call that reads and runs something else): it counts as exploring. A call that neither
//!   asks, reads nor explores returns before any file is looked at; one that does costs one
//!   failed `open` in a session that asked nothing recently.
//! - [`settle`] (Stop, and the next UserPromptSubmit, whichever comes first) applies the rule of
//!   [`crate::session::learning::Record::decide`] to the turn (every ask of the turn closes
//!   there) and keeps what it decided only when the hooks saw every tool call of the turn
//!   ([`every_call_seen`]: at Stop, from the host's transcript); it writes them through
//!   [`crate::store::Writer::learn_phrasing`], only in the project the ask was made in: not when
//!   a chart already has those words, the chart is stale or gone, or the words hold a code the
//!   chart does not. A refusal is final. The store lock is only tried: when it is busy the
//!   decisions wait for the next turn's end.
//!
//! Neither changes what the hook prints; both are off with `"learn": false` in
//! `.capn/config.json` (`ask` then records nothing, and [`settle`] drops the session's record).

use super::Ctx;
use crate::recall::intent::tool_call::ToolUse;
use crate::session::learning::{Decided, Record, SessionAsk, FILE};
use crate::session::shown;
use crate::session::{SessionDir, SessionId};
use crate::store::Store;
use anyhow::Result;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

/// The path a content or file-name search (any host's: [`ToolUse::parse`]) is limited to
/// (Gemini CLI's `dir_path`), if any.
fn search_path(tool: &str, input: &Value) -> Option<String> {
    match ToolUse::parse(tool, input) {
        ToolUse::Grep { path, .. } | ToolUse::Glob { path, .. } => Some(path),
        _ => None,
    }
    .filter(|p| !p.is_empty())
}

/// `p` (absolute, or relative to `cwd`) relative to `root`, `/`-separated, with `.` and `..`
/// taken lexically; `None` outside `root`.
fn relative(p: &str, cwd: &Path, roots: &[&Path]) -> Option<String> {
    let joined = cwd.join(p);
    let mut norm = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                norm.pop();
            }
            other => norm.push(other),
        }
    }
    let rel = roots.iter().find_map(|r| norm.strip_prefix(r).ok())?;
    let parts: Vec<&str> = rel
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect::<Option<_>>()?;
    let rel = parts.join("/");
    (!parts.is_empty() && rel.len() <= shown::MAX_PATH_BYTES).then_some(rel)
}

/// Records the session's asks and, while one is open, its reads and searches (module docs).
/// `post`: the call is seen after it ran (PostToolUse). Never fails the hook: a problem is one
/// line on stderr.
pub(crate) fn observe(ctx: &Ctx, tool: &str, input: &Value, post: bool) {
    if let Err(e) = try_observe(ctx, tool, input, post) {
        diag!("capn: learning from this tool call skipped: {e:#}");
        mark_lost(ctx);
    }
}

/// The session-dir file whose presence says a tool call of the turn went unrecorded.
const LOST: &str = "learn.lost";

/// Marks the session's turn as having lost a tool call (fails closed: it learns nothing).
/// Written without the record's lock, which may be what failed.
fn mark_lost(ctx: &Ctx) {
    let Some(id) = ctx.call.session_id.as_deref().and_then(SessionId::parse) else {
        return;
    };
    let Ok(state) = crate::session::state_dir() else {
        return;
    };
    let s = SessionDir::new(&state, &id);
    let path = s.file(LOST);
    let done = s.ensure().and_then(|_| {
        crate::fsutil::write_atomic_with(&path, b"", crate::fsutil::Durability::Transient)
    });
    if let Err(e) = done {
        diag!("capn: could not mark a tool call unrecorded: {e:#}");
    }
}

fn try_observe(ctx: &Ctx, tool: &str, input: &Value, post: bool) -> Result<()> {
    let call = super::turn_tools::classify(tool, input);
    let grep_path = search_path(tool, input);
    // A sub-agent's calls: its asks are not the session's (its main transcript shows none of
    // its calls), and whatever it does counts as exploring.
    let sub = ctx.call.is_subagent();
    let asked: Vec<&String> = call
        .asked
        .iter()
        .filter(|q| q.len() <= shown::MAX_QUESTION_BYTES && !sub)
        .collect();
    // Anything else the agent does that is not a read, an edit or a capn run (a listing, `git
    // show`, a tool capn does not know) may look at other files: it counts as exploring further.
    let other = sub
        || call.other
        || (call.reads.is_empty()
            && call.edits.is_empty()
            && !call.search
            && !call.asks
            && !call.charts);
    if asked.is_empty() && call.reads.is_empty() && !call.search && !other {
        return Ok(());
    }
    // Quietly: a malformed session id is reported by the hooks that write for it, not here,
    // so that this hook's output stays what it was.
    let Some(id) = ctx.call.session_id.as_deref().and_then(SessionId::parse) else {
        return Ok(());
    };
    let state = crate::session::state_dir()?;
    let s = SessionDir::new(&state, &id);
    let now = SystemTime::now();
    if asked.is_empty() && !Record::read(&s).is_listening(now) {
        return Ok(());
    }
    let Some(cwd) = ctx.cwd() else {
        return Ok(());
    };
    let found = crate::store::hook_root(&cwd);
    let root = crate::fsutil::resolved(&found);
    let Some(root_text) = root.to_str().map(str::to_string) else {
        return Ok(());
    };
    s.ensure()?;
    let lock = super::offer::offer_lock_path(&s);
    let wait = super::offer::OFFER_LOCK_WAIT;
    let Some(_held) = crate::store::lock::StoreLock::acquire_within(&lock, wait, &mut || {})?
    else {
        anyhow::bail!("the session's record is busy");
    };
    let mut rec = Record::read(&s);
    let at = shown::millis(now);
    let roots = [root.as_path(), found.as_path()];
    if rec.is_listening(now) && !sub {
        for p in &call.reads {
            let file = relative(p, &cwd, &roots).map(|r| (root_text.as_str(), r));
            rec.add_event(at, false, file);
        }
        if call.search {
            // After the reads of the same call: a search there counts as exploring further.
            let file = grep_path.and_then(|p| relative(&p, &cwd, &roots));
            rec.add_event(at, true, file.map(|r| (root_text.as_str(), r)));
        } else if other {
            rec.add_event(at, true, None);
        }
    } else if rec.is_listening(now) {
        rec.add_event(at, true, None);
    }
    for q in asked {
        claim(&state, &root, now, q, &id)?;
        rec.add_ask(SessionAsk {
            at,
            question: q.clone(),
            root: root_text.clone(),
            post,
            done: false,
        });
    }
    rec.write(&s, now)
}

/// Notes in the project's record of asks ([`shown::claim`]) that session `id` asked `q`:
/// another session's hook may see the same words asked, and a run near both is neither's.
///
/// Errors: the record is busy or cannot be written (the turn then learns nothing).
fn claim(state: &Path, root: &Path, now: SystemTime, q: &str, id: &SessionId) -> Result<()> {
    let Some(_held) = crate::store::lock::StoreLock::hold_shown(state, root)? else {
        anyhow::bail!("the project's record of asks is busy");
    };
    shown::claim(state, root, now, q, id.as_str())
}

/// Applies the session's turn to its asks and writes the phrasings learned (module docs).
/// Never fails the hook: a problem is one line on stderr.
pub(crate) fn settle(ctx: &Ctx, stop: bool) {
    if let Err(e) = try_settle(ctx, stop) {
        diag!("capn: learning from use skipped: {e:#}");
    }
}

fn try_settle(ctx: &Ctx, stop: bool) -> Result<()> {
    if ctx.call.is_subagent() {
        return Ok(());
    }
    let Some(s) = ctx.session()? else {
        return Ok(());
    };
    let lost = std::fs::symlink_metadata(s.file(LOST)).is_ok();
    if std::fs::symlink_metadata(s.file(FILE)).is_err() {
        return s.remove(LOST);
    }
    let Some(cwd) = ctx.cwd() else {
        return Ok(());
    };
    let lock = super::offer::offer_lock_path(&s);
    let wait = super::offer::OFFER_LOCK_WAIT;
    let Some(_held) = crate::store::lock::StoreLock::acquire_within(&lock, wait, &mut || {})?
    else {
        return Ok(());
    };
    let store = Store::at(crate::store::hook_root(&cwd));
    if !store.exists() || store.check_dirs().is_err() || !store.config().learn {
        s.remove(LOST)?;
        return s.remove(FILE);
    }
    let now = SystemTime::now();
    let mut rec = Record::read(&s);
    rec.lost |= lost;
    // A Stop another hook blocked was not the turn's end: this turn learns nothing, and what
    // that Stop learned is taken back. A prompt ends the turn for good.
    let blocked = stop && ctx.call.stop_hook_active;
    let last = std::mem::take(&mut rec.last_stop);
    if blocked {
        rec.retract.extend(last);
    }
    let state = crate::session::state_dir()?;
    let before = rec.decided.len();
    // A run of the words another session's hook also saw asked may be that session's.
    let session = ctx.call.session_id.as_deref().unwrap_or_default();
    rec.decide(now, &mut |root| {
        let mut s = shown::read(&shown::path(&state, Path::new(root)));
        let asks = std::mem::take(&mut s.asks);
        s.asks = asks
            .into_iter()
            .filter(|a| !s.contested(a, session))
            .collect();
        s
    });
    s.remove(LOST)?;
    // "Nothing else after the read" must be seen, not assumed from the hooks' silence.
    if rec.decided.len() > before && (blocked || !every_call_seen(ctx, stop)) {
        rec.decided.truncate(before);
    }
    let here = crate::fsutil::resolved(&store.root);
    // Learning lands only in the project asked in.
    let elsewhere = |d: &Decided| crate::fsutil::resolved(Path::new(&d.root)) != here;
    rec.decided.retain(|d| !elsewhere(d));
    rec.retract.retain(|d| !elsewhere(d));
    write_learned(&store, &mut rec, stop);
    rec.write(&s, now)
}

/// Takes back [`Record::retract`] and writes [`Record::decided`] (remembered in
/// [`Record::last_stop`] at a Stop), while the store lock can be had: when it is busy they wait
/// for the next turn's end. Learned or refused, a decision is not tried again.
fn write_learned(store: &Store, rec: &mut Record, stop: bool) {
    if rec.decided.is_empty() && rec.retract.is_empty() {
        return;
    }
    let Some(mut w) = store.try_open_writer() else {
        return;
    };
    for d in std::mem::take(&mut rec.retract) {
        if let Err(e) = w.unlearn_phrasing(&d.question, &d.id) {
            let id = crate::store::printable(&d.id);
            diag!("capn: could not take back a phrasing of chart {id}: {e:#}");
        }
    }
    for d in std::mem::take(&mut rec.decided) {
        match w.learn_phrasing(&d.question, &d.id, (&d.files, d.total)) {
            Ok(crate::store::phrasing::Learned::Added) if stop => rec.last_stop.push(d),
            Ok(_) => {}
            Err(e) => {
                let id = crate::store::printable(&d.id);
                diag!("capn: could not learn a phrasing for chart {id}: {e:#}");
            }
        }
    }
    w.finish_or_warn();
}

/// True when the hooks saw every tool call of the turn that may have shown the agent a file:
/// on a host whose tool hook sees every call ([`crate::hosts::HostSpec::hook_tools`] is `None`:
/// OpenCode's plugin), or at Stop when the turn in the host's
/// transcript ([`super::turn::read`], read whole) is written to its end ([`caught_up`]) and
/// called no tool but those the registered tool hook is shown and edits
/// ([`super::turn_tools::shown_to_hook`]). Otherwise (no Stop, no transcript, one that lags,
/// a turn too long to read whole, an MCP tool...) nothing is learned.
fn every_call_seen(ctx: &Ctx, stop: bool) -> bool {
    if ctx.host.spec().hook_tools.is_none() {
        return true;
    }
    let path = ctx
        .call
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty());
    let Some(turn) = path
        .filter(|_| stop)
        .and_then(|p| super::turn::read(Path::new(p)))
    else {
        return false;
    };
    // A sub-agent's own calls are not in this transcript; a refused or failed call may have
    // been recorded as a read that showed nothing.
    turn.complete
        && caught_up(ctx.call.last_message.as_deref(), turn.final_text.as_deref())
        && turn.subagents == 0
        && turn.errors == 0
        && turn
            .tool_names
            .iter()
            .all(|n| super::turn_tools::shown_to_hook(ctx.host, n))
}

/// True when the transcript holds the turn to its end: its last assistant text, with no tool
/// call after it (`final_text`), is the reply the Stop payload names (`last_assistant_message`,
/// cut to [`super::json::MAX_STRING_BYTES`] while parsed: then its start). A host may write its transcript in batches, so at Stop the calls
/// the agent made last (an MCP read, say) may not be in it yet; a transcript written in order
/// that ends with the reply holds them. Without the payload's reply nothing tells: false.
fn caught_up(reply: Option<&str>, final_text: Option<&str>) -> bool {
    let (Some(raw), Some(text)) = (reply, final_text) else {
        return false;
    };
    let (reply, text) = (raw.trim(), text.trim());
    let cut = raw.len() + 4 >= super::json::MAX_STRING_BYTES;
    !text.is_empty() && (reply == text || (cut && text.starts_with(reply)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_made_relative_to_the_project() {
        let root = Path::new("/p/root");
        let cwd = Path::new("/p/root/src");
        let roots = [root];
        assert_eq!(relative("a.rs", cwd, &roots).as_deref(), Some("src/a.rs"));
        assert_eq!(
            relative("../lib/./b.rs", cwd, &roots).as_deref(),
            Some("lib/b.rs")
        );
        assert_eq!(
            relative("/p/root/c.rs", cwd, &roots).as_deref(),
            Some("c.rs")
        );
        assert_eq!(relative("/elsewhere/c.rs", cwd, &roots), None);
        assert_eq!(relative("../..", cwd, &roots), None);
    }

    #[test]
    fn a_transcript_is_caught_up_when_it_ends_with_the_reply() {
        assert!(caught_up(Some(" Done.\n"), Some("Done.")));
        assert!(!caught_up(Some("Done."), Some("Let me check lib/x.rs.")));
        assert!(!caught_up(None, Some("Done.")));
        assert!(!caught_up(Some("Done."), None));
        assert!(!caught_up(Some(""), Some("")));
        // A reply cut while parsed: its start.
        let long = "word ".repeat(4000);
        let cut = &long[..super::super::json::MAX_STRING_BYTES];
        assert!(caught_up(Some(cut), Some(&long)));
        assert!(!caught_up(Some(&long[..100]), Some(&long)));
    }

    #[test]
    fn read_paths_cover_the_hosts_read_tools() {
        let read_paths = |t: &str, v: &Value| super::super::turn_tools::classify(t, v).reads;
        let j = |v: &str| serde_json::from_str::<Value>(v).unwrap();
        assert_eq!(read_paths("Read", &j(r#"{"file_path":"/a"}"#)), ["/a"]);
        assert_eq!(read_paths("read_file", &j(r#"{"path":"b"}"#)), ["b"]);
        assert_eq!(read_paths("view", &j(r#"{"path":"c"}"#)), ["c"]);
        assert_eq!(
            read_paths("Bash", &j(r#"{"command":"sed -n 1,20p src/x.rs"}"#)),
            ["src/x.rs"]
        );
        assert_eq!(
            search_path("Grep", &j(r#"{"pattern":"x","path":"src/y.rs"}"#)).as_deref(),
            Some("src/y.rs")
        );
        assert!(read_paths("Bash", &j(r#"{"command":"cargo build"}"#)).is_empty());
    }
}
