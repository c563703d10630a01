//! Phrasings: one chart, several ways of asking it. The writer finds the chart a question
//! belongs to, so `chart` can learn a rewording instead of piling up near-duplicates:
//!
//! - [`Writer::askers`]: the charts that already have the question as one of their phrasings
//!   (their `# ` question or another, once case, punctuation and whitespace are set aside);
//! - [`Writer::similar_chart`]: a current chart with exactly the given backing files (paths and
//!   hashes) that the question is a rewording of (among those charts alone, it answers the
//!   question, `crate::recall::decide`). Charting a question in other words with the same files
//!   then adds a phrasing to that chart; a different question on the same files (a candidate
//!   at most, or one sharing a word) is a chart of its own ([`Writer::charts_on`] names the
//!   charts it shares its files with);
//! - [`Writer::current_chart`]: the chart `capn chart "<words>" --like <id>` confirms, refused
//!   clearly when the id is no chart or its files changed;
//! - [`Writer::learn_phrasing`]: words the hooks inferred from the agent's reads (learning from
//!   use, `crate::hook::learn`), only when no chart has the words yet; kept apart from the
//!   confirmed phrasings (`super::learned`): they rank, never answer;
//! - [`checked`]: an entry as a reader will parse it, before any writer writes it.

use super::entry::Entry;
use super::index::read_entry;
use super::source::SnapshotSource;
use super::Writer;
use crate::error::Refused;
use crate::recall::{decide, Ask, Source};
use anyhow::Result;
use std::collections::BTreeMap;

impl Writer {
    /// Every chart that has `question` as one of its phrasings that count
    /// ([`Entry::is_phrasing`], read from its file), those whose own question it is first, then
    /// in index order.
    pub(crate) fn askers(&self, question: &str) -> Vec<Entry> {
        let norm = crate::recall::gate::normalise_question(question);
        // By the index marker (its own question, or a phrasing with no term of its own); any
        // other phrasing holds every word of the question.
        let bm25 = &self.snap.bm25;
        let mut docs = bm25.exact_docs(question);
        docs.extend(
            bm25.candidates(question, &|_| true)
                .into_iter()
                .filter(|c| c.coverage >= 1.0 - 1e-4)
                .map(|c| c.doc),
        );
        docs.sort_unstable();
        docs.dedup();
        let mut found: Vec<Entry> = docs
            .into_iter()
            .filter_map(|pos| self.snap.ids.get(pos))
            .filter_map(|id| read_entry(&self.store.entry_path(id), &format!("{id}.md")).ok())
            .filter(|e| e.is_phrasing(question))
            .collect();
        found.sort_by_key(|e| crate::recall::gate::normalise_question(&e.question) != norm);
        found
    }

    /// The positions of the charts backed by exactly `files` (path → SHA-256 hex, as just
    /// hashed), in index order.
    fn same_files(&self, files: &BTreeMap<String, String>) -> Vec<usize> {
        (0..self.snap.len())
            .filter(|&i| {
                self.snap.refs.of(i).len() == files.len()
                    && self.snap.files_of(i).zip(files).all(|((p, h), (fp, fh))| {
                        p == fp && crate::hex::decode32(fh).as_ref() == Some(h)
                    })
            })
            .collect()
    }

    /// The charts backed by exactly `files` (as just hashed), read from their files, in index
    /// order: what `chart` names when it writes a question of its own on them.
    pub(crate) fn charts_on(&self, files: &BTreeMap<String, String>) -> Vec<Entry> {
        let source = SnapshotSource::new(&self.store, &self.snap);
        self.same_files(files)
            .into_iter()
            .filter_map(|doc| source.entry(doc))
            .collect()
    }

    /// A current chart backed by exactly `files` (path → SHA-256 hex, as just hashed) that
    /// `question` is a rewording of: asked of the store, the chart *answers* it (the answer
    /// gate, `crate::recall::decide`; a candidate or a shared word is not enough: one file
    /// answers many questions), unless the question and one of the chart's phrasings both
    /// hold codes ([`codes`]) and not the same ones. The best such chart, read from its file;
    /// `None` when there is none.
    pub(crate) fn similar_chart(
        &self,
        question: &str,
        files: &BTreeMap<String, String>,
    ) -> Option<Entry> {
        let same = self.same_files(files);
        if same.is_empty() {
            return None;
        }
        // No retry on a disagreeing entry file: such a chart is simply left out.
        let source = SnapshotSource::new(&self.store, &self.snap).without_files();
        let text = |doc: usize| source.text(doc);
        let model = crate::embed::model()?;
        let thresholds = model.thresholds();
        // Asked of the whole store, as `ask` would be: it must answer with that chart.
        let ask = Ask {
            query: question,
            limit: self.snap.len(),
            thresholds: &thresholds,
            source: &source,
        };
        let qv = self
            .snap
            .vectors
            .as_ref()
            .map(|v| (v, model.embed(question)));
        let vectors = qv.as_ref().map(|(v, q)| (*v, q.as_slice()));
        // Two questions that both hold codes (words with a digit: `v2`, `oauth2`, "step 3")
        // and not the same ones are about different things: never merged. A code only one of
        // them holds ("429", "v2") narrows the question but does not change it.
        // Every phrasing counts: a chart asked as "v2" has been confirmed to be about v2.
        let asked = codes(question);
        let same_codes = |doc: usize| {
            text(doc).is_some_and(|t| {
                asked.is_empty()
                    || t.question.lines().all(|line| {
                        let held = codes(line);
                        held.is_empty() || held == asked
                    })
            })
        };
        // The charts that could be the one: the whole-store search below (which reads every
        // vector) runs only when there is one.
        let mut eligible = match vectors {
            Some((v, q)) => self.may_answer(&same, question, v, q, thresholds.gate),
            None => same,
        };
        if !asked.is_empty() {
            eligible.retain(|&doc| same_codes(doc));
        }
        if eligible.is_empty() {
            return None;
        }
        let d = decide::search(&self.snap.bm25, vectors, &ask, Some(model));
        let best = d
            .answers
            .iter()
            .map(|h| h.doc)
            .find(|&doc| eligible.binary_search(&doc).is_ok() && same_codes(doc))?;
        source.entry(best)
    }

    /// The charts at `same` (positions, in index order) that can be an answer to `question`,
    /// whatever the rest of the store holds: an answer is an exact re-ask of its chart or
    /// passes the fused ranking's threshold (`crate::recall::semantic::rank`: lexical coverage
    /// plus cosine with `q`, the question's unit vector, at least `gate`), and both are
    /// properties of the chart alone. Computed as that ranking computes them (the same
    /// coverage, the same quantised cosines, read for these charts only), so the whole-store
    /// search is skipped only when it could not have found one: most charts on the same files
    /// ask something else, and that search reads every vector.
    fn may_answer(
        &self,
        same: &[usize],
        question: &str,
        vectors: &crate::recall::semantic::Vectors,
        q: &[f32],
        gate: f32,
    ) -> Vec<usize> {
        let bm25 = &self.snap.bm25;
        let n = vectors.len().min(bm25.len());
        let exact = bm25.exact_docs(question);
        let within: Vec<usize> = same.iter().copied().filter(|&d| d < n).collect();
        let lexical = bm25.candidates(question, &|d| same.binary_search(&d).is_ok());
        let coverage = |doc: usize| {
            lexical
                .iter()
                .find(|c| c.doc == doc)
                .map_or(0.0, |c| c.coverage)
        };
        let cosines = if q.iter().all(|v| *v == 0.0) {
            vec![0.0; within.len()]
        } else {
            vectors.cosines_of(&within, q)
        };
        let passing: Vec<usize> = within
            .iter()
            .zip(cosines)
            .filter(|&(&doc, cosine)| coverage(doc) + cosine.max(0.0) >= gate)
            .map(|(&doc, _)| doc)
            .collect();
        same.iter()
            .copied()
            .filter(|d| exact.contains(d) || passing.binary_search(d).is_ok())
            .collect()
    }

    /// The chart `id` as its file says, when every backing file hashes as charted now: what
    /// `--like` may add a phrasing to.
    ///
    /// Errors ([`Refused`]): `id` is not an entry id, no chart has it, its file does not parse,
    /// or a backing file changed (or cannot be checked).
    pub(crate) fn current_chart(&mut self, id: &str) -> Result<Entry> {
        if !super::entry::is_valid_id(id) {
            return Err(Refused(format!(
                "--like {}: not a chart id (8 to 16 lowercase hex digits, as `capn ask` and `capn list` print them); nothing was written",
                super::printable(id)
            ))
            .into());
        }
        let path = self.store.entry_path(id);
        // Not `exists()`, which follows a symlink: a dangling one is refused as a symlink by
        // `read_entry` below, not reported as a missing chart.
        if std::fs::symlink_metadata(&path).is_err() {
            return Err(Refused(format!(
                "--like {id}: there is no chart {id} (`capn list` shows the charts); nothing was written"
            ))
            .into());
        }
        let e = read_entry(&path, &format!("{id}.md"))
            .map_err(|err| Refused(format!("--like {id}: {err}; nothing was written")))?;
        let root = self.store.root.clone();
        let mut budget = u64::MAX;
        let current = super::entry_is_fresh_within(&root, &e, &mut self.cache, &mut budget);
        if !current {
            let changed = super::changed_files(&root, &e, &mut self.cache);
            let what = if changed.is_empty() {
                "a backing file cannot be checked".to_string()
            } else {
                let names: Vec<String> = changed.iter().map(|f| super::printable(f)).collect();
                format!("its files changed ({})", names.join(", "))
            };
            return Err(Refused(format!(
                "--like {id}: chart {id} is stale: {what}, so it answers nothing; nothing was written. Explore as usual and chart what you find with --files"
            ))
            .into());
        }
        Ok(e)
    }

    /// Learning from use (docs/recall.md, "Learning from use"): adds `question` to the words chart
    /// `id` learned (`super::learned`: they rank it on a miss, never answer), when the agent did not chart
    /// those words itself meanwhile and every code of the words ([`codes`]: a word with a digit)
    /// is one the chart's question or phrasings hold, and the chart still has the backing files
    /// the ask showed (`shown`: those files, at most `shown::MAX_FILES` of them, and how many it
    /// had; a chart re-charted on other files since is [`Learned::NotCurrent`]). Returns what
    /// happened; nothing is written unless [`Learned::Added`].
    ///
    /// Errors: `.capn/learned.json` cannot be written.
    pub(crate) fn learn_phrasing(
        &mut self,
        question: &str,
        id: &str,
        shown: (&[String], usize),
    ) -> Result<Learned> {
        if crate::secret::find(question).is_some() {
            return Ok(Learned::Secret);
        }
        if !self.askers(question).is_empty() {
            return Ok(Learned::AlreadyAsked);
        }
        let Ok(e) = self.current_chart(id) else {
            return Ok(Learned::NotCurrent);
        };
        // Re-charted on other files since the ask showed it: the agent read other files.
        let (files, total) = shown;
        let same = e.files.len() == total && files.iter().all(|f| e.files.contains_key(f));
        if !same {
            return Ok(Learned::NotCurrent);
        }
        // Codes stay apart (as when `chart` merges): words with a code ("v2", "7", "oauth2")
        // the chart's question and phrasings do not hold are about something else.
        let held = codes(&e.asked());
        if !codes(question).is_subset(&held) {
            return Ok(Learned::CodeClash);
        }
        // Kept apart from the confirmed phrasings: it ranks, never answers (store::learned).
        let mut learned = super::learned::LearnedWords::read(&self.store);
        if !learned.add(&e.id, question) {
            return Ok(Learned::AlreadyAsked);
        }
        let ids: std::collections::BTreeSet<&str> =
            self.snap.ids.iter().map(String::as_str).collect();
        learned.keep_only(&ids);
        learned.write(&self.store)?;
        Ok(Learned::Added)
    }
}

impl Writer {
    /// Takes back `question` learned for chart `id` (a Stop that learned it was not the turn's
    /// end); nothing when it is not learned.
    ///
    /// Errors: `.capn/learned.json` cannot be written.
    pub(crate) fn unlearn_phrasing(&mut self, question: &str, id: &str) -> Result<()> {
        let mut learned = super::learned::LearnedWords::read(&self.store);
        if learned.remove(id, question) {
            learned.write(&self.store)?;
        }
        Ok(())
    }
}

/// What [`Writer::learn_phrasing`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Learned {
    /// The words are now learned for the chart (they rank it, never answer).
    Added,
    /// A chart already has those words as its question or a phrasing (the agent charted them,
    /// or confirmed them with `--like`): nothing was written.
    AlreadyAsked,
    /// The chart is gone, does not parse, or is stale: nothing was written.
    NotCurrent,
    /// The words hold a code (`v2`, `7`, `oauth2`) the chart's question and phrasings do not:
    /// nothing was written.
    CodeClash,
    /// The words hold what looks like a secret (`crate::secret`): nothing was written.
    Secret,
}

/// The codes of a text: its words (runs of letters and digits, lowercased) that hold a digit.
fn codes(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.bytes().any(|b| b.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect()
}

/// `entry` as a reader will parse it, checked: it fits the entry size limit and parses back
/// with the same phrasings (CRLF and blank edge lines of the details are normalised by the
/// format, so the index holds what a reader will parse). Nothing is written.
///
/// Errors: [`Refused`] for an oversized entry, or one whose details would read back as
/// phrasings.
pub(crate) fn checked(entry: Entry) -> Result<Entry> {
    let id = entry.id.clone();
    let text = entry.render();
    if text.len() as u64 > crate::fsutil::limits::ENTRY {
        return Err(Refused(format!(
            "refusing to chart: entry {id} would be {} bytes, over the {}-byte limit for an entry (its files, details, phrasings and other frontmatter); nothing was written",
            text.len(),
            crate::fsutil::limits::ENTRY
        ))
        .into());
    }
    if super::conflict::sides(&text).is_some() {
        return Err(Refused(format!(
            "refusing to chart: the details of entry {id} hold git merge conflict markers \
             (<<<<<<<, =======, >>>>>>> lines), which would keep it from ever answering; \
             nothing was written"
        ))
        .into());
    }
    let parsed = Entry::parse(&text, &id)
        .map_err(|e| anyhow::anyhow!("internal error: the new entry does not parse back: {e}"))?;
    if parsed.phrasings != entry.phrasings {
        // Details whose last lines are `## Also asked as` and `- ` items would read back as
        // phrasings (each then answering at 100): the one shape the format cannot hold.
        return Err(phrasing_shaped_details(&format!(
            "the details of entry {id}"
        )));
    }
    Ok(parsed)
}

/// The refusal of `what` (details given or kept) that end in a [`PHRASINGS_HEADING`] list of
/// `- ` lines: written, they would read back as phrasings (each answering at 100).
///
/// [`PHRASINGS_HEADING`]: super::entry::PHRASINGS_HEADING
pub(crate) fn phrasing_shaped_details(what: &str) -> anyhow::Error {
    Refused(format!(
        "refusing to chart: {what} end in a {:?} section of \"- \" lines, which is how an entry lists its other phrasings; reword that heading or add text after the list; nothing was written",
        super::entry::PHRASINGS_HEADING
    ))
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use sha2::{Digest, Sha256};

    /// The charts on the same files that `may_answer` sets aside are never among the answers of
    /// the whole-store search it spares: rewordings, exact re-asks, other questions on the same
    /// file and questions on other files, each probed against every chart on that file.
    #[test]
    fn may_answer_keeps_every_chart_the_whole_search_answers_with() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".capn/entries")).unwrap();
        let store = Store::at(root.clone());
        let mut w = store.open_writer().unwrap();
        let charts = [
            ("a.ts", "Where are Stripe webhooks verified?"),
            ("a.ts", "How are webhook signatures checked?"),
            ("a.ts", "Where is the retry queue for failed payments?"),
            ("a.ts", "Which module rotates the session cookie?"),
            ("b.ts", "Where are Stripe webhooks handled?"),
            ("b.ts", "Where is the rate limit of the public API set?"),
        ];
        for (file, question) in charts {
            std::fs::write(root.join(file), format!("{file}\n")).unwrap();
            let sha = crate::hex::encode(&Sha256::digest(format!("{file}\n").as_bytes()));
            let e = Entry {
                id: crate::store::entry::question_hash(question)[..8].to_string(),
                at: String::new(),
                files: [(file.to_string(), sha)].into_iter().collect(),
                question: question.to_string(),
                details: String::new(),
                phrasings: Vec::new(),
                extra: Vec::new(),
            };
            w.chart(e, &[]).unwrap();
        }
        let model = crate::embed::model().expect("this build embeds a model");
        let thresholds = model.thresholds();
        let v = w.snap.vectors.as_ref().expect("vectors");
        // As `similar_chart` reads the charts: through the store's source, without files.
        let source = SnapshotSource::new(&w.store, &w.snap).without_files();
        let probes = [
            "Where are Stripe webhooks verified?",
            "where are the stripe webhooks verified",
            "Where do we verify Stripe webhooks?",
            "How are the signatures of webhooks checked?",
            "Where are failed payments retried?",
            "Which module rotates session cookies?",
            "Where is the rate limit set?",
            "How is the database migrated?",
        ];
        let mut answered = 0;
        for file in ["a.ts", "b.ts"] {
            let same: Vec<usize> = (0..w.snap.len())
                .filter(|&i| w.snap.files_of(i).any(|(p, _)| p == file))
                .collect();
            for q in probes {
                let ask = Ask {
                    query: q,
                    limit: w.snap.len(),
                    thresholds: &thresholds,
                    source: &source,
                };
                let qv = model.embed(q);
                let d = decide::search(&w.snap.bm25, Some((v, &qv)), &ask, Some(model));
                let kept = w.may_answer(&same, q, v, &qv, thresholds.gate);
                for doc in d.answers.iter().map(|h| h.doc) {
                    if same.contains(&doc) {
                        answered += 1;
                        assert!(kept.contains(&doc), "{q} on {file}: {doc} set aside");
                    }
                }
                assert!(kept.iter().all(|d| same.contains(d)));
            }
        }
        assert!(answered >= 4, "the probes must find answers: {answered}");
    }
}
