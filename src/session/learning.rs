//! A session's record for learning from use (docs/recall.md "Learning from use"):
//! the `capn ask` runs the session made, what it did since the last turn's end (file reads and
//! searches, in order), and the phrasings decided but not yet written. The hooks fill it
//! ([`crate::hook::learn`]); [`Record::decide`] holds the rule.
//!
//! One file per session, `<session dir>/learn.json` ([`FILE`]): `{"asks": [{"at": <unix ms>,
//! "question", "root": "<resolved project root>", "post": <seen after the run>, "done"}],
//! "roots": ["<resolved project root>"], "events": [{"at", "search", "file": {"root": <index in
//! roots>, "rel": "<root-relative path>"}}], "overflow": <more events than kept>, "decided":
//! [{"root", "question", "id"}]}`. Bounded: at most [`MAX_ASKS`] asks none older than
//! [`shown::MAX_AGE`], [`MAX_EVENTS`] events, [`MAX_DECIDED`] decisions, and never over
//! [`crate::fsutil::limits::MARKER`] bytes (a record that would be is not written). Written
//! atomically without `fsync` under the session's offer lock; a record that cannot be read or
//! parsed reads as empty.

use super::shown::{self, Shown, ShownAsk, ShownChart};
use super::SessionDir;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

/// The session-dir file of the record.
pub(crate) const FILE: &str = "learn.json";

/// The most asks a session's record keeps (the newest).
pub(crate) const MAX_ASKS: usize = shown::MAX_ASKS;

/// The most tool calls' reads and searches kept per turn; past it the turn counts as having
/// explored further ([`Record::overflow`]).
pub(crate) const MAX_EVENTS: usize = 256;

/// The most decided phrasings waiting for the store lock.
pub(crate) const MAX_DECIDED: usize = shown::MAX_ASKS;

/// How far apart a session's `capn ask` call and the project's record of that ask may be.
pub(crate) const JOIN_WINDOW: Duration = shown::JOIN_WINDOW;

/// One `capn ask` the session ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SessionAsk {
    /// When the hook saw the call, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The question, as `ask` records it (trimmed).
    pub question: String,
    /// The resolved root of the project the call ran in.
    pub root: String,
    /// Seen after the run (a PostToolUse host), not before it.
    pub post: bool,
    /// Settled: learned, refused or rejected by the agent; no read counts for it again.
    pub done: bool,
}

/// A file, by project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileRef {
    /// Index in [`Record::roots`].
    pub root: usize,
    /// Root-relative, `/`-separated.
    pub rel: String,
}

/// One read or search of the turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Event {
    /// When, in milliseconds since the Unix epoch.
    pub at: u64,
    /// A search (Grep, Glob, a shell search, a sub-agent); otherwise a file read.
    pub search: bool,
    /// The file read, or the file a search was limited to; `None` for a search of no one file
    /// or a read outside every project.
    pub file: Option<FileRef>,
}

/// A phrasing decided at a turn's end, waiting for the store lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Decided {
    /// The resolved root of the project asked in.
    pub root: String,
    /// The words to learn.
    pub question: String,
    /// The chart to learn them.
    pub id: String,
    /// Its backing files as the ask showed them (complete only when the chart had no more than
    /// `shown::MAX_FILES`; empty in a record written before they were kept): the chart learns
    /// only while these are still its files.
    #[serde(default)]
    pub files: Vec<String>,
    /// How many backing files it had when shown.
    #[serde(default)]
    pub total: usize,
}

/// The session's record (module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Record {
    /// The session's asks, oldest first.
    pub asks: Vec<SessionAsk>,
    /// The project roots the events name.
    pub roots: Vec<String>,
    /// The turn's reads and searches, in order.
    pub events: Vec<Event>,
    /// More happened this turn than [`MAX_EVENTS`] keeps.
    pub overflow: bool,
    /// Phrasings to write.
    pub decided: Vec<Decided>,
    /// Phrasings the last Stop wrote, until the next prompt: a Stop that another hook blocked
    /// was not the turn's end, so the next one (`stop_hook_active`) takes them back.
    pub last_stop: Vec<Decided>,
    /// Phrasings to take back, waiting for the store lock.
    pub retract: Vec<Decided>,
    /// A tool call of the turn was not recorded (the record was busy or could not be written):
    /// the turn counts as having explored further.
    pub lost: bool,
}

impl Record {
    /// Reads the session's record; empty when missing or unreadable.
    pub(crate) fn read(s: &SessionDir) -> Record {
        use crate::fsutil::{limits, read_limited, Follow};
        read_limited(&s.file(FILE), limits::MARKER, Follow::Never)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// True when an ask of the session is recent and open at `now`: reads and searches matter.
    pub(crate) fn is_listening(&self, now: SystemTime) -> bool {
        self.asks.iter().any(|a| !a.done && recent(a.at, now))
    }

    /// Adds an ask (an earlier one of the same question in the same project is replaced).
    pub(crate) fn add_ask(&mut self, ask: SessionAsk) {
        self.asks
            .retain(|a| a.question != ask.question || a.root != ask.root);
        self.asks.push(ask);
    }

    /// Adds a read or search of `file` (root, relative path) at `at`.
    pub(crate) fn add_event(&mut self, at: u64, search: bool, file: Option<(&str, String)>) {
        if self.events.len() >= MAX_EVENTS {
            self.overflow = true;
            return;
        }
        let file = file.map(|(root, rel)| {
            let i = match self.roots.iter().position(|r| r == root) {
                Some(i) => i,
                None => {
                    self.roots.push(root.to_string());
                    self.roots.len() - 1
                }
            };
            FileRef { root: i, rel }
        });
        self.events.push(Event { at, search, file });
    }

    /// Writes the record (removes it when empty), dropping asks no longer recent and then the
    /// oldest past the bounds.
    pub(crate) fn write(mut self, s: &SessionDir, now: SystemTime) -> Result<()> {
        self.asks.retain(|a| recent(a.at, now));
        let extra = self.asks.len().saturating_sub(MAX_ASKS);
        self.asks.drain(..extra);
        let extra = self.decided.len().saturating_sub(MAX_DECIDED);
        self.decided.drain(..extra);
        for list in [&mut self.last_stop, &mut self.retract] {
            let extra = list.len().saturating_sub(MAX_DECIDED);
            list.drain(..extra);
        }
        if self.asks.is_empty()
            && self.decided.is_empty()
            && self.last_stop.is_empty()
            && self.retract.is_empty()
        {
            return s.remove(FILE);
        }
        let mut text = serde_json::to_string(&self)?;
        if text.len() as u64 > crate::fsutil::limits::MARKER {
            // Fails closed: the turn's events go, and with them any learning from this turn.
            self.events.clear();
            self.roots.clear();
            self.overflow = true;
            text = serde_json::to_string(&self)?;
        }
        if text.len() as u64 > crate::fsutil::limits::MARKER {
            return s.remove(FILE);
        }
        crate::fsutil::write_atomic_with(
            &s.file(FILE),
            text.as_bytes(),
            crate::fsutil::Durability::Transient,
        )
    }

    /// The turn's end: decides what the turn's events teach, adds the phrasings to
    /// [`Record::decided`], marks every ask done (asks close at the turn's end) and clears the
    /// events. `shown_of(root)` is the
    /// project's record of what its asks showed.
    ///
    /// The rule: an event of a file counts for one ask, the most recent of this session (in
    /// the same project, at or before it) whose record ([`joined`]) showed a chart with that
    /// file; none when that ask is done. A chart of the ask is checked once at least half of
    /// its backing files (and at least one) were read, counting files no other chart of the
    /// ask has; searches never count as reads. The ask learns the chart checked that is strong
    /// (a `candidate` line) when the turn did nothing else, before or after the check: no
    /// search, no other call ([`Event::search`] with no file) and no read but of that chart's
    /// files.
    pub(crate) fn decide(&mut self, now: SystemTime, shown_of: &mut dyn FnMut(&str) -> Shown) {
        let joins: Vec<Option<ShownAsk>> = self
            .asks
            .iter()
            .map(|a| (recent(a.at, now)).then(|| joined(a, &shown_of(&a.root)))?)
            .collect();
        let owner: Vec<Option<usize>> = self.events.iter().map(|e| self.owner(e, &joins)).collect();
        for (j, join) in joins.iter().enumerate() {
            let Some(s) = join.as_ref().filter(|_| !self.asks[j].done) else {
                continue;
            };
            let mine = |i: usize| owner[i] == Some(j);
            let reached: Vec<(&ShownChart, usize)> = s
                .charts
                .iter()
                .filter_map(|c| Some((c, self.bar_reached(s, c, &mine)?)))
                .collect();
            if reached.is_empty() {
                continue;
            }
            // Checked: learned now or never.
            self.asks[j].done = true;
            let root = &self.asks[j].root;
            // Every event of the turn, before the check too: the hooks run concurrently, so
            // the record's order need not be the calls' (a Read and a Grep sent together), and
            // an agent that searched or read elsewhere first may have found its answer there.
            let only = |c: &ShownChart| {
                !self.overflow
                    && !self.lost
                    && self.events.iter().all(|e| {
                        e.file.as_ref().is_some_and(|f| {
                            self.roots.get(f.root) == Some(root) && c.files.contains(&f.rel)
                        })
                    })
            };
            let Some((chart, _)) = reached.iter().find(|(c, _)| c.strong && only(c)) else {
                continue;
            };
            self.decided.push(Decided {
                root: root.clone(),
                question: self.asks[j].question.clone(),
                id: chart.id.clone(),
                files: chart.files.clone(),
                total: chart.total,
            });
        }
        // Asks close at the turn's end: a read in a later turn (to edit the file, say) is no
        // answer to an ask the agent may have moved on from.
        for a in &mut self.asks {
            a.done = true;
        }
        self.events.clear();
        self.roots.clear();
        self.overflow = false;
        self.lost = false;
    }

    /// The ask an event counts for (rule in [`Record::decide`]).
    fn owner(&self, e: &Event, joins: &[Option<ShownAsk>]) -> Option<usize> {
        let f = e.file.as_ref()?;
        let root = self.roots.get(f.root)?;
        let j = (0..self.asks.len())
            .filter(|&j| &self.asks[j].root == root && self.asks[j].at <= e.at)
            .filter(|&j| {
                joins[j]
                    .as_ref()
                    .is_some_and(|s| s.charts.iter().any(|c| c.files.contains(&f.rel)))
            })
            .max_by_key(|&j| (self.asks[j].at, j))?;
        (!self.asks[j].done).then_some(j)
    }

    /// The index of the event, among those `mine`, at which `chart`'s own files read reached
    /// its bar ([`bar`]).
    fn bar_reached(
        &self,
        s: &ShownAsk,
        chart: &ShownChart,
        mine: &dyn Fn(usize) -> bool,
    ) -> Option<usize> {
        let mut read = BTreeSet::new();
        // Only reads check a chart: a search limited to its file (a count, a listing) shows
        // the agent next to nothing of it.
        let reads = |i: &usize| mine(*i) && !self.events[*i].search;
        (0..self.events.len()).filter(reads).find(|&i| {
            read.extend(self.events[i].file.as_ref().map(|f| f.rel.clone()));
            own_read(s, chart, &read) >= bar(chart)
        })
    }
}

/// True when `at` (unix ms) is at most [`shown::MAX_AGE`] before `now` and not after it.
fn recent(at: u64, now: SystemTime) -> bool {
    let now = shown::millis(now);
    at <= now && now - at <= shown::MAX_AGE.as_millis() as u64
}

/// The project's record of `ask`: the same question, recorded after the call was seen before
/// the run (or before it was seen after the run), within [`JOIN_WINDOW`].
pub(crate) fn joined(ask: &SessionAsk, shown: &Shown) -> Option<ShownAsk> {
    let w = JOIN_WINDOW.as_millis() as u64;
    shown
        .asks
        .iter()
        .filter(|s| s.question == ask.question)
        .find(|s| match ask.post {
            false => s.at >= ask.at && s.at - ask.at <= w,
            true => s.at <= ask.at && ask.at - s.at <= w,
        })
        .cloned()
}

/// How many of `chart`'s files in `read` no other chart of `ask` has.
fn own_read(ask: &ShownAsk, chart: &ShownChart, read: &BTreeSet<String>) -> usize {
    let shared = |f: &String| {
        ask.charts
            .iter()
            .any(|c| c.id != chart.id && c.files.contains(f))
    };
    chart
        .files
        .iter()
        .filter(|f| read.contains(*f) && !shared(f))
        .count()
}

/// The own files read that make a chart used: half its backing files, at least one.
fn bar(chart: &ShownChart) -> usize {
    chart.total.div_ceil(2).max(1)
}

#[cfg(test)]
mod tests;
