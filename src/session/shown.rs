//! What `capn ask` showed on a miss, for learning from use (docs/recall.md "Learning
//! from use"): each ask's question and the candidate and related charts it printed, with their
//! backing files. The hooks that see the agent's file reads ([`crate::hook::learn`]) look here to
//! tell which shown chart the agent then used.
//!
//! One record per project, `<state dir>/shown/<key>.json` ([`path`]; the key is a SHA-256 prefix
//! of the project root, since `ask` knows no session id: the hooks attribute by project and
//! time, joined with the asks each session made: [`crate::session::learning`]). Shape:
//! `{"asks": [{"at": <unix ms>, "question": "<as asked>", "charts": [{"id", "files":
//! [<root-relative paths>], "total": <backing files>, "strong": <candidate line>}]}]}`, oldest first, at most
//! [`MAX_ASKS`] asks none older than [`MAX_AGE`], and never over
//! [`crate::fsutil::limits::MARKER`] bytes. Beside them, `"claims": [{"at", "key": "<SHA-256
//! prefix of the question>", "session"}]`: the sessions whose hooks saw a call that asks those
//! words ([`claim`], at most [`MAX_CLAIMS`], none older than [`MAX_AGE`]); a run of a question
//! two sessions claimed near it is no session's ([`Shown::contested`]). Written atomically
//! without `fsync`, read again and written under the record's lock ([`lock_path`], which the
//! writers' callers hold), so concurrent asks keep each other's records. Readers
//! never wait; a record that cannot be read or parsed reads as empty.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The folder of the records under the state dir.
pub(crate) const SHOWN_DIR: &str = "shown";

/// The most asks a record keeps (the newest).
pub(crate) const MAX_ASKS: usize = 16;

/// How long an ask counts: reads later than this after it are not attributed to it.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(30 * 60);

/// The most backing files kept per shown chart (its `total` still counts them all).
pub(crate) const MAX_FILES: usize = 16;

/// The longest backing-file path kept, in bytes (a longer one is left out, still counted).
pub(crate) const MAX_PATH_BYTES: usize = 512;

/// The longest question recorded, in bytes: a longer one is not recorded at all (a cut question
/// would teach other words than were asked).
pub(crate) const MAX_QUESTION_BYTES: usize = 1024;

/// The most claims a record keeps (the newest).
pub(crate) const MAX_CLAIMS: usize = 4 * MAX_ASKS;

/// How far apart a session's call that asks and a run of the same words may be and still be
/// joined ([`crate::session::learning::joined`]), or contest each other ([`Shown::contested`]).
pub(crate) const JOIN_WINDOW: Duration = Duration::from_secs(5 * 60);

/// The longest wait for a record's lock ([`lock_path`]); past it the record is not written (a
/// chance to learn lost, nothing else).
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(1);

/// A session's hook saw a call that asks a question (it may not have run: refused, say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Claim {
    /// When, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The question's [`question_key`].
    pub key: String,
    /// The session id.
    pub session: String,
}

/// A short key of a question as asked (trimmed): the first 16 hex digits of its SHA-256.
pub(crate) fn question_key(question: &str) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(question.trim().as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// One chart an ask showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShownChart {
    /// Entry id.
    pub id: String,
    /// Its backing files (project-root-relative, as the entry keys them), at most [`MAX_FILES`].
    pub files: Vec<String>,
    /// How many backing files it has in all.
    pub total: usize,
    /// Printed as a `candidate` (probably charted already, in other words), not as `related`
    /// (possibly related): only such a chart is learned. A record without it reads as `false`.
    #[serde(default)]
    pub strong: bool,
}

/// One ask that missed and showed charts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShownAsk {
    /// When it was asked, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The question, as asked (trimmed).
    pub question: String,
    /// The candidate and related charts it printed, in the order printed.
    pub charts: Vec<ShownChart>,
}

impl ShownAsk {
    /// An ask of `question` at `at` that showed `charts` (id, backing files, strong), bounded
    /// as the module docs say; `None` for a question over [`MAX_QUESTION_BYTES`], one holding
    /// what looks like a secret (it is never kept), or no charts.
    pub(crate) fn new<'a>(
        at: SystemTime,
        question: &str,
        charts: impl IntoIterator<Item = (&'a str, Vec<&'a str>, bool)>,
    ) -> Option<ShownAsk> {
        let question = question.trim();
        if question.len() > MAX_QUESTION_BYTES
            || question.is_empty()
            || crate::secret::find(question).is_some()
        {
            return None;
        }
        let charts: Vec<ShownChart> = charts
            .into_iter()
            .map(|(id, files, strong)| ShownChart {
                id: id.to_string(),
                strong,
                total: files.len(),
                files: files
                    .into_iter()
                    .filter(|f| f.len() <= MAX_PATH_BYTES)
                    .take(MAX_FILES)
                    .map(str::to_string)
                    .collect(),
            })
            .collect();
        (!charts.is_empty()).then(|| ShownAsk {
            at: millis(at),
            question: question.to_string(),
            charts,
        })
    }
}

/// A project's record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Shown {
    /// The asks, oldest first.
    pub asks: Vec<ShownAsk>,
    /// The sessions' claims, oldest first.
    pub claims: Vec<Claim>,
}

impl Shown {
    /// True when a session other than `session` claimed `ask`'s words within [`JOIN_WINDOW`]
    /// of it: the run may be that session's, so it is none's.
    pub(crate) fn contested(&self, ask: &ShownAsk, session: &str) -> bool {
        let key = question_key(&ask.question);
        let w = JOIN_WINDOW.as_millis() as u64;
        self.claims
            .iter()
            .any(|c| c.key == key && c.session != session && c.at.abs_diff(ask.at) <= w)
    }
}

/// `t` in milliseconds since the Unix epoch (0 before it).
pub(crate) fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The record of the project at `root` (a resolved project root, as
/// [`crate::store::Store::root`] holds it): `<state_dir>/shown/<16 hex digits>.json`.
pub(crate) fn path(state_dir: &Path, root: &Path) -> PathBuf {
    use sha2::Digest;
    let d = sha2::Sha256::digest(root.as_os_str().as_encoded_bytes());
    let key: String = d.iter().take(8).map(|b| format!("{b:02x}")).collect();
    state_dir.join(SHOWN_DIR).join(format!("{key}.json"))
}

/// Reads the record at `path`; empty when it is missing, unreadable, over
/// [`crate::fsutil::limits::MARKER`], not a regular file or not the shape above.
pub(crate) fn read(path: &Path) -> Shown {
    use crate::fsutil::{limits, read_limited, Follow};
    read_limited(path, limits::MARKER, Follow::Never)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Adds `ask` to the record of the project at `root` under `state_dir`: an earlier ask of the
/// same question and asks no longer recent are dropped, then the oldest until at most
/// [`MAX_ASKS`] remain and the record fits [`crate::fsutil::limits::MARKER`].
///
/// Errors: the folder or the record cannot be written (the path is named).
pub(crate) fn record(state_dir: &Path, root: &Path, ask: ShownAsk) -> Result<()> {
    let now = UNIX_EPOCH + Duration::from_millis(ask.at);
    update(state_dir, root, now, &mut |shown| {
        shown.asks.retain(|a| a.question != ask.question);
        shown.asks.push(ask.clone());
    })
}

/// Records that session `session`'s hook saw, at `at`, a call that asks `question` in the
/// project at `root` (module docs).
///
/// Errors: as [`record`].
pub(crate) fn claim(
    state_dir: &Path,
    root: &Path,
    at: SystemTime,
    question: &str,
    session: &str,
) -> Result<()> {
    let c = Claim {
        at: millis(at),
        key: question_key(question),
        session: session.to_string(),
    };
    update(state_dir, root, at, &mut |shown| {
        shown
            .claims
            .retain(|o| o.key != c.key || o.session != c.session);
        shown.claims.push(c.clone());
    })
}

/// The lock file of the record of the project at `root` (`<key>.lock` beside it), its folder
/// created: a writer ([`record`], [`claim`]) holds it, waiting at most [`LOCK_WAIT`], so that
/// concurrent writers keep each other's changes.
///
/// Errors: the folder cannot be created (the path is named).
pub(crate) fn lock_path(state_dir: &Path, root: &Path) -> Result<PathBuf> {
    let dir = state_dir.join(SHOWN_DIR);
    std::fs::create_dir_all(state_dir)
        .map_err(anyhow::Error::new)
        .and_then(|()| crate::fsutil::ensure_dir_inside(state_dir, &dir))
        .with_context(|| format!("could not create the folder: {}", dir.display()))?;
    Ok(path(state_dir, root).with_extension("lock"))
}

/// Reads the record of the project at `root`, applies `change`, drops what is no longer recent
/// at `now` and the oldest past the bounds, and writes it (the caller holds [`lock_path`]).
fn update(
    state_dir: &Path,
    root: &Path,
    now: SystemTime,
    change: &mut dyn FnMut(&mut Shown),
) -> Result<()> {
    let file = path(state_dir, root);
    lock_path(state_dir, root)?;
    let mut shown = read(&file);
    change(&mut shown);
    // Only the old go: another process may have written a moment later than `now`.
    let recent = |at: u64| millis(now).saturating_sub(at) <= MAX_AGE.as_millis() as u64;
    shown.asks.retain(|a| recent(a.at));
    shown.claims.retain(|c| recent(c.at));
    let extra = shown.claims.len().saturating_sub(MAX_CLAIMS);
    shown.claims.drain(..extra);
    let text = loop {
        let drop = shown.asks.len().saturating_sub(MAX_ASKS);
        shown.asks.drain(..drop);
        let text = serde_json::to_string(&shown)?;
        if text.len() as u64 <= crate::fsutil::limits::MARKER || shown.asks.len() <= 1 {
            break text;
        }
        shown.asks.remove(0);
    };
    if text.len() as u64 > crate::fsutil::limits::MARKER {
        return Ok(());
    }
    crate::fsutil::write_atomic_with(&file, text.as_bytes(), crate::fsutil::Durability::Transient)
        .with_context(|| format!("could not record what ask showed: {}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(at: SystemTime, q: &str) -> ShownAsk {
        ShownAsk::new(at, q, [("ab12cd34", vec!["src/a.rs", "src/b.rs"], true)]).unwrap()
    }

    #[test]
    fn the_record_keeps_the_newest_recent_asks_once_each() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Path::new("/p");
        let now = SystemTime::now();
        let old = now - MAX_AGE - Duration::from_secs(1);
        record(tmp.path(), root, ask(old, "old one")).unwrap();
        for i in 0..MAX_ASKS + 3 {
            record(tmp.path(), root, ask(now, &format!("q{i}"))).unwrap();
        }
        record(tmp.path(), root, ask(now, "q5")).unwrap();
        let got = read(&path(tmp.path(), root));
        assert_eq!(got.asks.len(), MAX_ASKS);
        assert_eq!(got.asks.last().unwrap().question, "q5");
        assert!(got.asks.iter().all(|a| a.question != "old one"));
        assert_eq!(got.asks.iter().filter(|a| a.question == "q5").count(), 1);
        assert!(read(&path(tmp.path(), Path::new("/other"))).asks.is_empty());
    }

    #[test]
    fn a_run_two_sessions_claimed_is_contested() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Path::new("/p");
        let now = SystemTime::now();
        claim(tmp.path(), root, now, " q ", "s1").unwrap();
        record(tmp.path(), root, ask(now, "q")).unwrap();
        let got = read(&path(tmp.path(), root));
        assert_eq!(got.asks.len(), 1);
        assert!(!got.contested(&got.asks[0], "s1"));
        assert!(got.contested(&got.asks[0], "s2"));
        claim(tmp.path(), root, now, "q", "s2").unwrap();
        claim(tmp.path(), root, now, "q", "s2").unwrap();
        let got = read(&path(tmp.path(), root));
        assert_eq!(got.claims.len(), 2);
        assert!(got.contested(&got.asks[0], "s1"));
        // Another question's claim contests nothing.
        let other = ask(now, "another");
        assert!(!got.contested(&other, "s1"));
    }

    #[test]
    fn asks_are_bounded() {
        let long = "x".repeat(MAX_QUESTION_BYTES + 1);
        assert!(ShownAsk::new(SystemTime::now(), &long, [("a", vec!["f"], true)]).is_none());
        let files: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        let a = ShownAsk::new(
            SystemTime::now(),
            "q",
            [("a", files.iter().map(String::as_str).collect(), true)],
        )
        .unwrap();
        assert_eq!(a.charts[0].files.len(), MAX_FILES);
        assert_eq!(a.charts[0].total, 40);
    }
}
