//! Learning from use (issue 33; docs/recall.md, "Learning from use"): when `capn ask` missed and
//! showed candidate or related charts ([`crate::session::shown`]), and the agent then read the
//! backing files of one of them, the question's words become a phrasing of that chart, as if the
//! agent had confirmed it with `capn chart "<words>" --like <id>`.
//!
//! - [`observe`] (PreToolUse, and the PostToolUse that stands in for it on Gemini CLI, Qwen Code
//!   and Copilot CLI): a tool call that reads files ([`read_paths`]: Read, `read_file`, `view`,
//!   shell `cat`/`sed -n`/`head`..., a Grep or Glob whose path names a file) is matched against
//!   the project's asks of the last [`shown::MAX_AGE`]; a read of a shown chart's backing file is
//!   recorded as pending evidence in the session dir ([`PENDING`], at most [`MAX_PENDING`] asks,
//!   [`MAX_READS`] files each). A call that reads nothing returns before any file is looked at;
//!   one that reads files costs one failed `open` when no ask showed anything recently.
//! - [`settle`] (Stop, and the next UserPromptSubmit, whichever comes first): each pending ask
//!   whose evidence names exactly one chart ([`used_chart`]) is applied through the store path
//!   `--like` uses ([`crate::store::Writer::learn_phrasing`]): not when a chart already has those
//!   words (the agent charted or confirmed them itself), nor when the chart is stale or gone.
//!   The store lock is only tried: when it is busy the evidence stays pending.
//!
//! Neither changes what the hook prints; both are off with `"learn": false` in
//! `.capn/config.json` (`ask` then records nothing, and [`settle`] drops what is pending).

use super::Ctx;
use crate::session::shown::{self, ShownAsk};
use crate::session::SessionDir;
use crate::store::Store;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

/// The session-dir file that holds the pending evidence.
pub const PENDING: &str = "learn.json";

/// The most asks with pending evidence a session keeps (the newest).
pub const MAX_PENDING: usize = shown::MAX_ASKS;

/// The most files read recorded per ask.
pub const MAX_READS: usize = 64;

/// One ask the agent read a shown chart's file after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct PendingAsk {
    /// The ask as `capn ask` recorded it.
    ask: ShownAsk,
    /// The shown charts' backing files read since (project-root-relative).
    read: BTreeSet<String>,
    /// Settled: learned, or refused (already charted, stale); kept until it ages out so that
    /// later reads do not open it again.
    done: bool,
}

/// The session's pending evidence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
struct Pending {
    asks: Vec<PendingAsk>,
}

impl Pending {
    fn read(s: &SessionDir) -> Pending {
        use crate::fsutil::{limits, read_limited, Follow};
        read_limited(&s.file(PENDING), limits::MARKER, Follow::Never)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Writes the record (removes it when empty), dropping asks no longer recent and then the
    /// oldest past [`MAX_PENDING`]. A record over [`crate::fsutil::limits::MARKER`] is not
    /// written.
    fn write(mut self, s: &SessionDir, now: SystemTime) -> Result<()> {
        self.asks.retain(|a| a.ask.is_recent(now));
        let extra = self.asks.len().saturating_sub(MAX_PENDING);
        self.asks.drain(..extra);
        if self.asks.is_empty() {
            return s.remove(PENDING);
        }
        let text = serde_json::to_string(&self)?;
        if text.len() as u64 > crate::fsutil::limits::MARKER {
            return Ok(());
        }
        crate::fsutil::write_atomic_with(
            &s.file(PENDING),
            text.as_bytes(),
            crate::fsutil::Durability::Transient,
        )
    }
}

/// The files a tool call reads, as the payload names them (absolute, or relative to the call's
/// `cwd`): [`super::turn_tools::classify`]'s reads (Read, `read_file`, `view`, shell `cat`,
/// `head`, `tail`, `nl`, `sed -n`...), and the path of a Grep or Glob (Gemini CLI's
/// `dir_path`), which counts only when it names a shown chart's file.
pub fn read_paths(tool: &str, input: &Value) -> Vec<String> {
    let mut reads = super::turn_tools::classify(tool, input).reads;
    if matches!(
        tool,
        "Grep" | "Glob" | "grep_files" | "grep_search" | "search_file_content" | "glob"
    ) {
        let s = |k: &str| {
            input
                .get(k)
                .and_then(Value::as_str)
                .filter(|p| !p.is_empty())
        };
        reads.extend(s("path").or_else(|| s("dir_path")).map(str::to_string));
    }
    reads
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
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The chart of `ask` the agent used, by what it `read` since: the one shown chart of which it
/// read at least half of the backing files (and at least one), counting only files no other
/// chart of the ask has; `None` when no chart or more than one passes.
pub fn used_chart<'a>(ask: &'a ShownAsk, read: &BTreeSet<String>) -> Option<&'a str> {
    let shared = |f: &String, own: &str| {
        ask.charts
            .iter()
            .any(|c| c.id != own && c.files.contains(f))
    };
    let mut used = ask.charts.iter().filter(|c| {
        let own = c
            .files
            .iter()
            .filter(|f| read.contains(*f) && !shared(f, &c.id))
            .count();
        own >= 1 && own * 2 >= c.total
    });
    let first = used.next()?;
    used.next().is_none().then_some(first.id.as_str())
}

/// The call's `cwd` when absolute, else the process's.
fn call_cwd(ctx: &Ctx) -> Option<PathBuf> {
    ctx.call
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::current_dir().ok())
}

/// Records what the tool call read of the charts recent asks showed (module docs). Never fails
/// the hook: a problem is one line on stderr.
pub fn observe(ctx: &Ctx, tool: &str, input: &Value) {
    if let Err(e) = try_observe(ctx, tool, input) {
        diag!("capn: learning from this read skipped: {e:#}");
    }
}

fn try_observe(ctx: &Ctx, tool: &str, input: &Value) -> Result<()> {
    let reads = read_paths(tool, input);
    if reads.is_empty() {
        return Ok(());
    }
    let Some(cwd) = call_cwd(ctx) else {
        return Ok(());
    };
    let found = crate::store::hook_root(&cwd);
    let root = crate::fsutil::resolved(&found);
    let state = crate::session::state_dir()?;
    let recorded = shown::read(&shown::path(&state, &root));
    if recorded.asks.is_empty() {
        return Ok(());
    }
    let now = SystemTime::now();
    let roots = [root.as_path(), found.as_path()];
    let rels: BTreeSet<String> = reads
        .iter()
        .filter_map(|p| relative(p, &cwd, &roots))
        .collect();
    let hits: Vec<(&ShownAsk, Vec<&String>)> = recorded
        .asks
        .iter()
        .filter(|a| a.is_recent(now))
        .map(|a| {
            let shown_files = |f: &&String| a.charts.iter().any(|c| c.files.contains(f));
            (a, rels.iter().filter(shown_files).collect::<Vec<_>>())
        })
        .filter(|(_, files)| !files.is_empty())
        .collect();
    if hits.is_empty() {
        return Ok(());
    }
    let Some(s) = ctx.session()? else {
        return Ok(());
    };
    s.ensure()?;
    let lock = super::offer::offer_lock_path(&s);
    let wait = super::offer::OFFER_LOCK_WAIT;
    let Some(_held) = crate::store::lock::StoreLock::acquire_within(&lock, wait, &mut || {})?
    else {
        return Ok(());
    };
    let mut pending = Pending::read(&s);
    for (ask, files) in hits {
        let at = pending
            .asks
            .iter()
            .position(|p| p.ask.at == ask.at && p.ask.question == ask.question);
        let p = match at {
            Some(i) => &mut pending.asks[i],
            None => {
                pending.asks.push(PendingAsk {
                    ask: ask.clone(),
                    read: BTreeSet::new(),
                    done: false,
                });
                pending.asks.last_mut().expect("just pushed")
            }
        };
        for f in files {
            if !p.done && p.read.len() < MAX_READS {
                p.read.insert(f.clone());
            }
        }
    }
    pending.asks.sort_by_key(|p| p.ask.at);
    pending.write(&s, now)
}

/// Applies the session's pending evidence (module docs). Never fails the hook: a problem is one
/// line on stderr.
pub fn settle(ctx: &Ctx) {
    if let Err(e) = try_settle(ctx) {
        diag!("capn: learning from use skipped: {e:#}");
    }
}

fn try_settle(ctx: &Ctx) -> Result<()> {
    if ctx.call.is_subagent() {
        return Ok(());
    }
    let Some(s) = ctx.session()? else {
        return Ok(());
    };
    if std::fs::symlink_metadata(s.file(PENDING)).is_err() {
        return Ok(());
    }
    let Some(cwd) = call_cwd(ctx) else {
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
        return s.remove(PENDING);
    }
    let mut pending = Pending::read(&s);
    let mut writer = None;
    for p in pending.asks.iter_mut().filter(|p| !p.done) {
        let Some(id) = used_chart(&p.ask, &p.read) else {
            continue;
        };
        if writer.is_none() {
            writer = store.try_open_writer();
        }
        // The store is busy: everything stays pending for the next turn's end.
        let Some(w) = writer.as_mut() else {
            break;
        };
        if let Err(e) = w.learn_phrasing(&p.ask.question, id) {
            let id = crate::store::printable(id);
            diag!("capn: could not learn a phrasing for chart {id}: {e:#}");
        }
        p.done = true;
    }
    if let Some(w) = writer {
        w.finish_or_warn();
    }
    pending.write(&s, SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(charts: &[(&str, &[&str])]) -> ShownAsk {
        ShownAsk::new(
            SystemTime::now(),
            "q",
            charts.iter().map(|(id, f)| (*id, f.to_vec())),
        )
        .unwrap()
    }

    fn read(files: &[&str]) -> BTreeSet<String> {
        files.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn the_chart_used_is_the_one_whose_own_files_were_read() {
        let a = ask(&[("a", &["x", "s"]), ("b", &["y", "s", "z"])]);
        assert_eq!(used_chart(&a, &read(&["x"])), Some("a"));
        // A file both have counts for neither.
        assert_eq!(used_chart(&a, &read(&["s"])), None);
        // One of b's three files is under half.
        assert_eq!(used_chart(&a, &read(&["y", "s"])), None);
        assert_eq!(used_chart(&a, &read(&["y", "z"])), Some("b"));
        // Both used: neither is learned.
        assert_eq!(used_chart(&a, &read(&["x", "y", "z"])), None);
        assert_eq!(used_chart(&a, &read(&[])), None);
    }

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
    fn read_paths_cover_the_hosts_read_tools() {
        let j = |v: &str| serde_json::from_str::<Value>(v).unwrap();
        assert_eq!(read_paths("Read", &j(r#"{"file_path":"/a"}"#)), ["/a"]);
        assert_eq!(read_paths("read_file", &j(r#"{"path":"b"}"#)), ["b"]);
        assert_eq!(read_paths("view", &j(r#"{"path":"c"}"#)), ["c"]);
        assert_eq!(
            read_paths("Bash", &j(r#"{"command":"sed -n 1,20p src/x.rs"}"#)),
            ["src/x.rs"]
        );
        assert_eq!(
            read_paths("Grep", &j(r#"{"pattern":"x","path":"src/y.rs"}"#)),
            ["src/y.rs"]
        );
        assert!(read_paths("Bash", &j(r#"{"command":"cargo build"}"#)).is_empty());
    }
}
