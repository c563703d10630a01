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
//! [`crate::fsutil::limits::MARKER`] bytes. Written atomically without `fsync` and without any
//! lock: two asks at the same instant may keep one of the two, which loses a chance to learn and
//! nothing else. Readers never wait; a record that cannot be read or parsed reads as empty.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The folder of the records under the state dir.
pub const SHOWN_DIR: &str = "shown";

/// The most asks a record keeps (the newest).
pub const MAX_ASKS: usize = 16;

/// How long an ask counts: reads later than this after it are not attributed to it.
pub const MAX_AGE: Duration = Duration::from_secs(30 * 60);

/// The most backing files kept per shown chart (its `total` still counts them all).
pub const MAX_FILES: usize = 16;

/// The longest backing-file path kept, in bytes (a longer one is left out, still counted).
pub const MAX_PATH_BYTES: usize = 512;

/// The longest question recorded, in bytes: a longer one is not recorded at all (a cut question
/// would teach other words than were asked).
pub const MAX_QUESTION_BYTES: usize = 1024;

/// One chart an ask showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownChart {
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
pub struct ShownAsk {
    /// When it was asked, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The question, as asked (trimmed).
    pub question: String,
    /// The candidate and related charts it printed, in the order printed.
    pub charts: Vec<ShownChart>,
}

impl ShownAsk {
    /// An ask of `question` at `at` that showed `charts` (id, backing files, strong), bounded
    /// as the module docs say; `None` for a question over [`MAX_QUESTION_BYTES`] or no charts.
    pub fn new<'a>(
        at: SystemTime,
        question: &str,
        charts: impl IntoIterator<Item = (&'a str, Vec<&'a str>, bool)>,
    ) -> Option<ShownAsk> {
        let question = question.trim();
        if question.len() > MAX_QUESTION_BYTES || question.is_empty() {
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

    /// True when the ask is at most [`MAX_AGE`] old at `now` (and not in its future).
    pub fn is_recent(&self, now: SystemTime) -> bool {
        let now = millis(now);
        self.at <= now && now - self.at <= MAX_AGE.as_millis() as u64
    }
}

/// A project's record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Shown {
    /// The asks, oldest first.
    pub asks: Vec<ShownAsk>,
}

/// `t` in milliseconds since the Unix epoch (0 before it).
pub fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The record of the project at `root` (a resolved project root, as
/// [`crate::store::Store::root`] holds it): `<state_dir>/shown/<16 hex digits>.json`.
pub fn path(state_dir: &Path, root: &Path) -> PathBuf {
    use sha2::Digest;
    let d = sha2::Sha256::digest(root.as_os_str().as_encoded_bytes());
    let key: String = d.iter().take(8).map(|b| format!("{b:02x}")).collect();
    state_dir.join(SHOWN_DIR).join(format!("{key}.json"))
}

/// Reads the record at `path`; empty when it is missing, unreadable, over
/// [`crate::fsutil::limits::MARKER`], not a regular file or not the shape above.
pub fn read(path: &Path) -> Shown {
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
pub fn record(state_dir: &Path, root: &Path, ask: ShownAsk) -> Result<()> {
    let file = path(state_dir, root);
    let mut shown = read(&file);
    let now = UNIX_EPOCH + Duration::from_millis(ask.at);
    shown
        .asks
        .retain(|a| a.question != ask.question && a.is_recent(now));
    shown.asks.push(ask);
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
    let dir = state_dir.join(SHOWN_DIR);
    std::fs::create_dir_all(state_dir)
        .map_err(anyhow::Error::new)
        .and_then(|()| crate::fsutil::ensure_dir_inside(state_dir, &dir))
        .with_context(|| format!("could not create the folder: {}", dir.display()))?;
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
        let later = SystemTime::now() + MAX_AGE + Duration::from_secs(1);
        assert!(!a.is_recent(later));
        assert!(a.is_recent(SystemTime::now()));
    }
}
