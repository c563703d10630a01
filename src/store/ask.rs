//! Asking the store: charted answers that are current and verified, and the stale charts an
//! ask passed over. The whole freshness protocol of a read lives here, so `capn ask` (and any
//! other reader) never handles entry positions, rebuilds or retries:
//!
//! 1. the search runs once over the whole index through the decision (`recall::decide`: fused
//!    with the embedding when the snapshot has vectors, then the answer gate), stale charts
//!    included: a chart ranks by its question, whatever its files say now;
//! 2. every entry it returns is read from its file and must say what the index says; if one was
//!    edited in place, the snapshot is rebuilt from the entry files and the search runs again;
//! 3. only those entries' backing files are checked (stat cache; re-hash only on changed
//!    metadata), so the cost does not grow with the store. A stale chart never answers and is
//!    kept (stale hides, never destroys: it answers again once its files hash as charted, after
//!    a branch switch back, a stash pop or a revert) and reported; one whose files cannot be
//!    checked is left out and kept too. **A stale best match is reported, not replaced**: when
//!    the chart that answers best is not fresh, nothing answers (the other answers of that
//!    search ranked below it; only a fresh version of the very same question, charted on other
//!    files for another branch or teammate, is the same best match), and no candidate is offered; when a lower answer is not fresh,
//!    the fresh answers of the same search still answer (each passed the gate on its own) and
//!    no chart moves up into its place. Candidates are offered down to the first that is not
//!    fresh. The search never runs again without a stale chart, so what answers is what the
//!    same search gave with every chart in it. The stat cache remembers the hash a changed file
//!    had, so a stale chart costs one `stat` per file, unhashed.
//!
//! What `capn ask` prints of the answers is [`text`]'s.

pub(crate) mod text;

use super::entry::Entry;
use super::fresh::StatCache;
use super::index::{self, read_entry, Snapshot};
use super::source::SnapshotSource;
use super::{freshness, Freshness, Store, Writer};
use crate::recall::decide;
use crate::recall::Ask;
use anyhow::{Context, Result};
use std::path::Path;

/// A chart an ask left out because its files changed (it is kept, and answers again once they
/// hash as charted).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hidden {
    /// Entry id.
    pub id: String,
    /// The charted question.
    pub question: String,
    /// Backing files (keys relative to the project root) that changed, vanished or were replaced.
    pub changed: Vec<String>,
}

/// What an ask found: answers with their score (0..=100: 100 for a question asked before in
/// these words, `recall::decide`), best first, or when there are none, candidates; and the stale
/// charts left out on the way.
#[derive(Debug, Default)]
pub(crate) struct Answers {
    /// Verified answers, best first.
    pub hits: Vec<(Entry, u8)>,
    /// Verified candidates (only when there are no answers): strong ones first.
    pub related: Vec<Related>,
    /// Charts this ask left out because their files changed (kept on disk).
    pub hidden: Vec<Hidden>,
}

/// A chart offered on a miss (`recall::decide::Candidate`), verified against its file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Related {
    /// The chart.
    pub entry: Entry,
    /// True when it is probably the same question in other words (passed the ranking's
    /// threshold; only common words it does not hold kept it from answering).
    pub strong: bool,
    /// The question's words the chart does not hold, most telling first.
    pub missing: Vec<String>,
    /// Moved up by words it learned from use ([`super::learned`]): a ranking, never an answer.
    pub learned: bool,
}

/// The store as an ask reads it: under the writers' lock (the derived files it brought up to
/// date are saved) or beside another process that holds it (nothing is written).
enum Reading {
    Locked(Writer),
    Shared(Snapshot, StatCache),
}

impl Reading {
    fn parts(&mut self) -> (&mut Snapshot, &mut StatCache) {
        match self {
            Reading::Locked(w) => (&mut w.snap, &mut w.cache),
            Reading::Shared(snap, cache) => (snap, cache),
        }
    }
}

impl Store {
    /// Asks the store (module docs): at most `limit` verified answers to `question`.
    ///
    /// Errors: the store cannot be read or listed; this build carries no embedding model (the
    /// gate's thresholds live with it).
    pub(crate) fn ask(&self, question: &str, limit: usize) -> Result<Answers> {
        let mut reading = match self.try_open_writer() {
            Some(w) => Reading::Locked(w),
            None => {
                let snap = index::load(self, index::Check::Folder)?;
                let cache = StatCache::load(&self.stat_cache_path(), snap.derived_limit());
                Reading::Shared(snap, cache)
            }
        };
        report_malformed_of(self, &mut reading);
        let (snap, cache) = reading.parts();
        let found = answer(self, snap, question, limit)?;
        let mut found = withhold(settled(&self.root, found, cache));
        promote_learned(self, question, &mut found, cache);
        if let Reading::Locked(w) = reading {
            // Only a reader that holds the lock saves what it brought up to date.
            w.finish_or_warn();
        }
        Ok(found)
    }
}

/// What one decision's charts give once their files are checked (module docs, step 3): the
/// answers that are fresh, unless the best one is not (then only a fresh version of its very
/// question, a chart of the same question on other files, answers; no other chart does, and no
/// candidate is offered: the stale chart is reported in its place); the candidates down to the
/// first that is not fresh. Every stale chart met on the way is in `hidden`.
fn settled(root: &Path, found: Answers, cache: &mut StatCache) -> Answers {
    let mut hidden = Vec::new();
    let mut hits = Vec::new();
    let mut best_hidden = false;
    // The best answer's question: another version of it (a chart of the same question on other
    // files, kept for another branch or teammate) is the same best match, not a lower chart.
    let best = found
        .hits
        .first()
        .and_then(|(e, _)| crate::recall::gate::normalise_question(&e.question));
    for (rank, (e, score)) in found.hits.into_iter().enumerate() {
        match freshness(root, &e, cache) {
            Freshness::Fresh => {
                hits.push((e, score));
                continue;
            }
            Freshness::Stale(changed) => hidden.push(Hidden {
                id: e.id.clone(),
                question: e.question.clone(),
                changed,
            }),
            Freshness::Unchecked => {}
        }
        best_hidden |= rank == 0;
    }
    if best_hidden {
        hits.retain(|(e, _)| crate::recall::gate::normalise_question(&e.question) == best);
    }
    let mut related = Vec::new();
    for r in found.related {
        match freshness(root, &r.entry, cache) {
            Freshness::Fresh => {
                related.push(r);
                continue;
            }
            Freshness::Stale(changed) => hidden.push(Hidden {
                id: r.entry.id.clone(),
                question: r.entry.question.clone(),
                changed,
            }),
            Freshness::Unchecked => {}
        }
        // A chart ranked below one that is hidden is never offered in its place.
        break;
    }
    Answers {
        hits,
        related,
        hidden,
    }
}

/// Learning from use ranks, never answers ([`super::learned`]): on a miss that hid no stale
/// chart, the chart whose learned words are closest to the question (a closeness of at least the
/// answer gate's, `gate`) moves to the first `candidate` line, marked learned. A chart the miss
/// did not show is added there only when the question is words it learned (once normalised)
/// and every backing file hashes as charted. Nothing changes with `"learn": false`.
fn promote_learned(store: &Store, question: &str, found: &mut Answers, cache: &mut StatCache) {
    if !found.hits.is_empty() || !found.hidden.is_empty() || !store.config().learn {
        return;
    }
    let learned = super::learned::LearnedWords::read(store);
    if learned.charts.is_empty() {
        return;
    }
    let min = crate::embed::model().map_or(1.0, |m| m.thresholds().gate);
    let Some((id, closeness)) = super::learned::closest(&learned, question, min) else {
        return;
    };
    let mut r = match found.related.iter().position(|r| r.entry.id == id) {
        Some(i) => found.related.remove(i),
        None if closeness >= super::learned::SAME_WORDS => {
            let Ok(entry) = read_entry(&store.entry_path(id), &format!("{id}.md")) else {
                return;
            };
            if super::withheld::holds_secret(&entry)
                || freshness(&store.root, &entry, cache) != Freshness::Fresh
            {
                return;
            }
            Related {
                missing: not_held(question, &entry),
                entry,
                strong: true,
                learned: true,
            }
        }
        None => return,
    };
    r.strong = true;
    r.learned = true;
    found.related.insert(0, r);
}

/// The words of `question` (lowercase, as asked, each once) none of whose terms the chart's
/// text holds (its question and kept phrasings, details, backing-file paths): the
/// `not_in_chart` of a chart the ranking never compared with the question (one added for words
/// it learned), so that its line, like every `candidate` line, names what the chart lacks.
fn not_held(question: &str, entry: &Entry) -> Vec<String> {
    use crate::recall::analyze;
    let mut text = entry.asked().into_owned();
    for f in std::iter::once(&entry.details).chain(entry.files.keys()) {
        text.push('\n');
        text.push_str(f);
    }
    let held: std::collections::BTreeSet<String> = analyze(&text).into_iter().collect();
    let mut out: Vec<String> = Vec::new();
    for word in question.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        let terms = analyze(&word);
        if !terms.is_empty() && !terms.iter().any(|t| held.contains(t)) && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// `found` without the charts that hold a secret: answers, candidates and stale notes alike
/// (a stale note shows the question). Each one left out is named on stderr once, by id, with
/// where to look (`capn doctor`).
fn withhold(mut found: Answers) -> Answers {
    let mut left_out: Vec<String> = Vec::new();
    let mut keep = |e: &Entry| {
        let secret = super::withheld::holds_secret(e);
        if secret && !left_out.contains(&e.id) {
            left_out.push(e.id.clone());
        }
        !secret
    };
    found.hits.retain(|(e, _)| keep(e));
    found.related.retain(|r| keep(&r.entry));
    found
        .hidden
        .retain(|h| crate::secret::find(&h.question).is_none());
    for id in left_out {
        diag!(
            "capn: chart {} is not shown: it holds what looks like a secret (capn doctor says where)",
            crate::present::printable(&id)
        );
    }
    found
}

/// Reports malformed entry files once per ask.
fn report_malformed_of(store: &Store, reading: &mut Reading) {
    let (snap, _) = reading.parts();
    super::report_malformed(store, &snap.malformed);
}

/// Searches and verifies (module docs, steps 1 and 2), once more after a rebuild when an entry
/// file disagreed with the index.
fn answer(store: &Store, snap: &mut Snapshot, question: &str, limit: usize) -> Result<Answers> {
    if let Some(r) = verified(store, snap, question, limit)? {
        return Ok(r);
    }
    *snap = Snapshot::reloaded(store)?;
    Ok(verified(store, snap, question, limit)?.unwrap_or_default())
}

/// The decision for `ask` (`recall::decide`: BM25 alone when the snapshot has no vectors,
/// embedding off; BM25 and cosine fused otherwise; the gate matches words by meaning with the
/// model's token vectors in both).
fn search(snap: &Snapshot, ask: &Ask<'_>) -> decide::Decision {
    let vectors = match (snap.model, &snap.vectors) {
        (Some(m), Some(v)) => Some((v, m.embed(ask.query))),
        _ => None,
    };
    let vectors = vectors.as_ref().map(|(v, q)| (*v, q.as_slice()));
    decide::search(&snap.bm25, vectors, ask, crate::embed::model())
}

/// The verified answers, or `None` when an entry file read on the way disagrees with the index.
/// A miss reads no index of the charted files' text (it cost every miss a read of it, and the
/// first miss after new charts their files, without choosing better charts to show on held-out
/// questions); only a strong candidate's own files are read, to corroborate it
/// ([`super::code_index::files_hold`]).
fn verified(
    store: &Store,
    snap: &Snapshot,
    question: &str,
    limit: usize,
) -> Result<Option<Answers>> {
    let source = SnapshotSource::new(store, snap);
    let read = |doc: usize| source.entry(doc);
    let thresholds = crate::embed::model()
        .context("this build carries no embedding model")?
        .thresholds();
    let ask = Ask {
        query: question,
        limit,
        thresholds: &thresholds,
        source: &source,
    };
    let decision = search(snap, &ask);
    if source.disagreed() {
        return Ok(None);
    }
    let hits: Option<Vec<(Entry, u8)>> = decision
        .answers
        .iter()
        .map(|h| read(h.doc).map(|e| (e, h.score)))
        .collect();
    let related: Option<Vec<Related>> = decision
        .candidates
        .into_iter()
        .map(|c| {
            read(c.hit.doc).map(|entry| Related {
                entry,
                strong: c.strong,
                missing: c.missing,
                learned: false,
            })
        })
        .collect();
    let (Some(hits), Some(related)) = (hits, related) else {
        return Ok(None);
    };
    Ok(Some(Answers {
        hits,
        related,
        hidden: Vec::new(),
    }))
}
