//! The answer gate: may this chart be given as *the answer* to this question, or is it at most a
//! "related" suggestion?
//!
//! Ranking (BM25, cosine) says which chart is closest; it cannot say whether the closest chart
//! answers. A near miss ("Where are payment refunds handled?" against the chart "Where are
//! payment webhooks handled?") shares most of its words with the chart and scores high, yet asks
//! about something the chart does not cover. What separates it from a rewording is a word that
//! carries a good part of the question's meaning and that the chart does not contain in any form.
//! So the gate weighs every term of the question and asks whether the chart matches it:
//!
//! 1. **Weight.** A term's weight `w` (0..=1) is its IDF in the store as a share of the largest
//!    IDF the store gives (a term no chart contains), `idf(df) / idf(0)`, times the same measure
//!    taken in general software English (`background.rs`: the stem's document frequency in the
//!    model's frozen corpus of 50,383 software sentences). A term most charts share ("document"
//!    in a document-signing app) does not tell charts apart; a word every question about code
//!    uses ("code", "file", "handle") tells nothing either; both weigh little. A term weighing
//!    less than `salient` (0.4: a word in about 1 of 100 software sentences, or in about a third
//!    of a small store's charts) is generic and does not block an answer, unless it alone
//!    carries twice `salient_share` (30%) of the question: then it is the subject of a short
//!    question made of common words ("creating a custom field from settings"), and a chart
//!    without it answers some other question.
//! 2. **Matching.** A term is matched when the chart's question, details or file paths contain it
//!    exactly or by stem (the BM25 analysis: `webhooks` and `webhook` are one term), or as a
//!    derivation (`handled` and `handler`, `derived`), or when one
//!    of the chart's words means nearly the same at the token level: the cosine of the two words'
//!    vectors from the embedded model (the mean of each word's WordPiece rows, `crate::embed`)
//!    reaches `align`. Inflections and close synonyms reach it ("verification"/"verified",
//!    "pick"/"chosen"); different things of one kind do not ("refunds"/"webhooks"). A word with a
//!    digit or a symbol is a code (`oauth2`, `s3`, `c#`, `c++`, `==`, `!=`), as in the
//!    tokeniser, and matches only exactly. A bare word ("C") is not matched by the same word
//!    written as a symbol name (`C#`, `C++`): a chart that holds only such a form fails outright.
//! 3. **Salience.** A term's share of the question is `w / Σ w` over the question's terms. The
//!    chart answers unless an unmatched, non-generic term carries at least `salient_share` of the
//!    question (0.15) or such terms together carry twice that. A long question can leave a few
//!    minor words unmatched; a short one cannot leave out its subject. Nor can a chart answer
//!    that holds less than `held` (0.5) of the question's whole weight, generic terms included
//!    ("where are raw Stripe payloads persisted before processing?" against a chart of outgoing
//!    webhook payloads in raw formats: each missing word is common, together they are most of
//!    the question).
//!
//! Before these steps, a chart that holds the opposite of a question word instead of the word
//! ("sent" for "received", "log in" for "log out") fails outright ([`super::opposites`]): token
//! vectors put opposites close, so alignment would admit them.
//!
//! A chart that fails is at most "related". All four thresholds belong to the model
//! (`assets/model/config.json`); the gate applies in both search modes (with the embedding off,
//! the token vectors still align words: they are part of the binary, not of the store).
//!
//! The exact re-ask is separate: a question that equals a chart's question, or one of its other
//! phrasings, once case, punctuation and whitespace are set aside ([`exact_key`],
//! [`normalise_question`]) is always that chart's answer ([`apply`]).

use super::background;
use super::opposites::Opposable;
use super::stopwords::is_stop_word;
use super::tokenize::{pieces, Analyzer, Piece};
use super::{Bm25Index, Doc};
use crate::embed::{Model, Thresholds};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

mod reask;
mod words;
pub use reask::{exact_key, identifier_clash, normalise_question};
use words::{
    derived, doc_vocabulary, doc_words, dot, is_code, shares_a_root_only, ChartWords, Suffixed,
    NAME_SUFFIXES,
};

/// One distinct term of a question, with what the gate needs to judge it.
#[derive(Debug, Clone)]
struct QueryTerm {
    /// The index term (stemmed).
    term: String,
    /// The word it came from, lowercased and unstemmed (for token-level alignment).
    word: String,
    /// The term's weight `w`, 0..=1 (see the module docs).
    salience: f32,
    /// True for the whole form of a camelCase word (`getFinalUrl`), beside its parts.
    compound: bool,
    /// The docs holding the term (ascending), for terms that weigh at least the `min_salience`
    /// given to [`Question::new`] or carry a tenth of the question (`HEAVY_LOOKUP`); empty for
    /// the others, which never block.
    docs: Vec<u32>,
    /// The docs holding the term (ascending), whatever its weight: whether a chart holds most
    /// of the question ([`Question::mostly_unheld`]) counts generic terms too.
    held_by: Vec<u32>,
    /// The docs whose own words (question and other phrasings, not details or paths) hold the
    /// term (ascending), whatever its weight ([`Question::own_share`]).
    own_by: Vec<u32>,
}

/// How much higher than `salient` a word's weight may be for it to count as common when the gate
/// judges whether a turned-down chart is a strong candidate ([`Question::is_strong`]).
pub const STRONG_SALIENT: f32 = 1.25;

/// Share of a question's weight from which a term's docs are looked up even when it weighs less
/// than `min_salience` ([`Question::new`]): below every setting of `2 · salient_share` the
/// gate is run with (halving the shipped 0.15 gives 0.15).
const HEAVY_LOOKUP: f32 = 0.1;

/// One term of a question judged against one chart ([`Question::explain`], for diagnostics).
#[derive(Debug, Clone)]
pub struct TermReport {
    /// The word as asked (lowercase, unstemmed).
    pub word: String,
    /// Its index term (stemmed).
    pub term: String,
    /// Its informativeness in general software English (0..=1).
    pub background: f32,
    /// Its weight `w` (module docs).
    pub salience: f32,
    /// Its share of the question's total weight.
    pub share: f32,
    /// True when the chart holds the term exactly or by stem.
    pub exact: bool,
    /// The chart word whose token vector is closest to the word's.
    pub aligned: String,
    /// That cosine.
    pub cosine: f32,
}

/// A question analysed for the gate against one store.
#[derive(Debug, Clone, Default)]
pub struct Question {
    terms: Vec<QueryTerm>,
    /// [`normalise_question`] of the question.
    norm: Option<String>,
    /// Docs whose question is this one, asked again ([`Bm25Index::exact_docs`]).
    exact: Vec<usize>,
    /// Token vectors of words met so far (question and chart words), by word.
    vectors: RefCell<HashMap<String, Vec<f32>>>,
    /// Stems of words met so far, by word (for [`derived`]; candidates share words).
    stems: RefCell<HashMap<String, String>>,
    /// What a chart could contradict ([`super::opposites`]).
    opposable: Opposable,
    /// The question's bare words that some chart holds only as a symbol name ([`Suffixed`]).
    suffixed: Vec<Suffixed>,
}

impl Question {
    /// Analyses `query` against `bm25` (for document frequencies). Terms are unique; a camelCase
    /// compound the store has never seen is left out, as in the BM25 query (its parts carry it).
    /// For terms weighing at least `min_salience` (the gate's `salient`), the docs holding them
    /// are looked up once, so judging a candidate needs no entry text unless words must be
    /// aligned by meaning.
    pub fn new(bm25: &Bm25Index, query: &str, min_salience: f32) -> Question {
        let analyzer = Analyzer::default();
        let mut seen = HashSet::new();
        let mut terms = Vec::new();
        let mut buf = String::new();
        let idf_max = bm25.idf_of(0);
        let mut suffixed: Vec<Suffixed> = Vec::new();
        pieces(query, &mut buf, &mut |p| {
            if let Piece::Word(w) | Piece::Letter(w) = p {
                if !suffixed.iter().any(|s| s.word == w) {
                    suffixed.extend(Suffixed::new(bm25, &analyzer, p, w));
                }
            }
            let Some(term) = analyzer.term(p) else { return };
            let compound = matches!(p, Piece::Compound(_));
            if !seen.insert(term.to_string()) {
                return;
            }
            let df = bm25.df(&term);
            if compound && df.is_none() {
                return;
            }
            let r_store = if idf_max > 0.0 {
                bm25.idf_of(df.unwrap_or(0)) / idf_max
            } else {
                1.0
            };
            let word = match p {
                Piece::Word(w)
                | Piece::Compound(w)
                | Piece::Cjk(w)
                | Piece::Symbol(w)
                | Piece::Letter(w) => w.to_string(),
            };
            let salience = r_store * background::informativeness(&term);
            terms.push(QueryTerm {
                salience,
                compound,
                docs: Vec::new(),
                held_by: Vec::new(),
                own_by: Vec::new(),
                term: term.into_owned(),
                word,
            });
        });
        // Each term's docs, read in one pass over its postings: all of them, and those whose
        // question field holds it. A term that weighs at least `min_salience`, or that alone
        // carries a good part of a short question's weight (it can block however generic it
        // is: module docs, step 3), keeps them as `docs` too.
        let total: f32 = terms.iter().map(|q| q.salience).sum();
        for q in &mut terms {
            (q.held_by, q.own_by) = bm25.docs_with_fields(&q.term);
            if q.salience >= min_salience || q.salience >= HEAVY_LOOKUP * total {
                q.docs = q.held_by.clone();
            }
        }
        Question {
            terms,
            norm: normalise_question(query),
            exact: bm25.exact_docs(query),
            vectors: RefCell::default(),
            stems: RefCell::default(),
            opposable: {
                // Only opposites this store could hold: an indexed term, or a stop word.
                let mut o = Opposable::of(query);
                o.retain(&|word, stem| bm25.df(stem).is_some() || is_stop_word(word));
                o
            },
            suffixed,
        }
    }

    /// True when doc `doc`'s questions name one of this question's identifiers in another
    /// form ([`identifier_clash`]: `init` against `__init__`, `io_read` against `io.read`).
    /// Only asked of a chart that would otherwise answer (its text is read for the answer
    /// anyway).
    fn names_another_identifier(
        &self,
        doc: usize,
        text: &dyn Fn(usize) -> Option<DocText>,
    ) -> bool {
        let Some(norm) = &self.norm else {
            return false;
        };
        text(doc).is_some_and(|d| identifier_clash(norm, &d.question))
    }

    /// The question's bare word that doc `doc` holds only as a symbol name ([`Suffixed`]).
    fn suffixed_only(&self, doc: usize) -> Option<&str> {
        let d = u32::try_from(doc).ok()?;
        self.suffixed
            .iter()
            .find(|s| s.forms.binary_search(&d).is_ok() && s.bare.binary_search(&d).is_err())
            .map(|s| s.word.as_str())
    }

    /// Per doc, the evidence that this text points at it: the summed weight of this text's
    /// salient terms (those weighing at least the `min_salience` given to [`Question::new`])
    /// that the doc holds in its question, details or paths, and how many they are. For the
    /// injection gate ([`super::offer`]), where the text is a prompt or a search, not a question.
    pub fn evidence(&self) -> HashMap<usize, (f32, usize)> {
        let mut out: HashMap<usize, (f32, usize)> = HashMap::new();
        for q in &self.terms {
            for &d in &q.docs {
                let e = out.entry(d as usize).or_default();
                e.0 += q.salience;
                e.1 += 1;
            }
        }
        out
    }

    /// For diagnostics: every term as (word, salience, camelCase compound, docs holding it; the
    /// docs only for terms weighing at least the `min_salience` given to [`Question::new`]).
    pub fn terms(&self) -> Vec<(&str, f32, bool, &[u32])> {
        self.terms
            .iter()
            .map(|q| (q.word.as_str(), q.salience, q.compound, q.docs.as_slice()))
            .collect()
    }

    /// The summed weight of this text's terms that doc `doc` holds in its question, details or
    /// paths, counting only terms weighing at least the `min_salience` given to
    /// [`Question::new`]. For the injection gate ([`super::offer`]).
    pub fn held_weight(&self, doc: usize) -> f32 {
        let Ok(d) = u32::try_from(doc) else {
            return 0.0;
        };
        self.terms
            .iter()
            .filter(|q| q.docs.binary_search(&d).is_ok())
            .map(|q| q.salience)
            .sum()
    }

    /// The share (0..=1) of the question's weight carried by its terms that come from `words`
    /// (as asked, lowercase: [`Question::missing`]'s words).
    pub fn share_of(&self, words: &[String]) -> f32 {
        let total = self.weight();
        if total <= 0.0 {
            return 0.0;
        }
        let of: f32 = self
            .terms
            .iter()
            .filter(|q| words.contains(&q.word))
            .map(|q| q.salience)
            .sum();
        of / total
    }

    /// How many terms the question has (camelCase compounds not counted beside their parts).
    pub fn term_count(&self) -> usize {
        self.terms.iter().filter(|q| !q.compound).count()
    }

    /// The summed weight of the text's terms (the denominator of every share).
    pub fn weight(&self) -> f32 {
        self.terms.iter().map(|q| q.salience).sum()
    }

    /// True when `doc`'s question is this question asked again.
    pub fn is_exact(&self, doc: usize) -> bool {
        self.exact.contains(&doc)
    }

    /// For diagnostics: every term of the question judged against `doc`.
    pub fn explain(&self, doc: &Doc<'_>, model: &Model) -> Vec<TermReport> {
        let (doc_terms, doc_words) = doc_vocabulary(doc);
        let total: f32 = self.terms.iter().map(|q| q.salience).sum::<f32>().max(1e-6);
        let doc_vecs: Vec<(&String, Vec<f32>)> =
            doc_words.iter().map(|w| (w, model.embed(w))).collect();
        self.terms
            .iter()
            .map(|q| {
                let v = model.embed(&q.word);
                let (best, cos) = doc_vecs
                    .iter()
                    .map(|(w, d)| (w.as_str(), dot(&v, d)))
                    .fold(("", f32::MIN), |a, b| if b.1 > a.1 { b } else { a });
                TermReport {
                    word: q.word.clone(),
                    term: q.term.clone(),
                    background: background::informativeness(&q.term),
                    salience: q.salience,
                    share: q.salience / total,
                    exact: doc_terms.contains(&q.term),
                    aligned: best.to_string(),
                    cosine: cos,
                }
            })
            .collect()
    }

    /// The unmatched salient term (its word, as asked) that keeps `doc` from answering, or
    /// `None` when `doc` may answer (see the module docs). `model` gives the token vectors for
    /// matching by meaning; without it only exact and stemmed matches count.
    pub fn unmatched<'q>(
        &'q self,
        doc: &Doc<'_>,
        model: Option<&Model>,
        t: &Thresholds,
    ) -> Option<&'q str> {
        if let Some(word) = self.contradicted(doc) {
            return Some(word);
        }
        let (terms, words) = doc_vocabulary(doc);
        let suffixed_only = self.suffixed.iter().find(|s| {
            let form = |suffix: &&str| terms.contains(&format!("{}{suffix}", s.word));
            NAME_SUFFIXES.iter().any(form) && !s.term.as_ref().is_some_and(|t| terms.contains(t))
        });
        if let Some(s) = suffixed_only {
            return Some(&s.word);
        }
        self.judge(
            &|q| terms.contains(&q.term),
            &mut || Some(words.clone()),
            model,
            t,
        )
        .flatten()
    }

    /// [`Question::unmatched`] for doc number `doc` of the index the question was made with:
    /// exact and stemmed matches come from the index; `text` is read only when words must be
    /// aligned by meaning. `None` when that text cannot be read.
    pub fn unmatched_doc<'q>(
        &'q self,
        doc: usize,
        text: &dyn Fn(usize) -> Option<DocText>,
        model: Option<&Model>,
        t: &Thresholds,
    ) -> Option<Option<&'q str>> {
        // Unreadable text skips this check: the index alone then judges, as without a model.
        if let Some(t) = (!self.opposable.is_empty()).then(|| text(doc)).flatten() {
            if let Some(word) = self.contradicted(&t.as_doc()) {
                return Some(Some(word));
            }
        }
        if let Some(word) = self.suffixed_only(doc) {
            return Some(Some(word));
        }
        let has =
            |q: &QueryTerm| u32::try_from(doc).is_ok_and(|d| q.held_by.binary_search(&d).is_ok());
        self.judge(
            &has,
            &mut || text(doc).map(|d| doc_words(&d.as_doc())),
            model,
            t,
        )
    }

    /// True when `doc`, which the gate turned down, is stopped only by common words: it holds
    /// no opposite of a question word and would answer if words weighing under
    /// [`STRONG_SALIENT`] × `salient` (in about one software sentence of two hundred, not one of
    /// a hundred) counted as generic. Such a chart is probably this question in other words; a
    /// chart that lacks a rarer word (the name of another thing: "passkey", "shopify", "csv")
    /// probably asks something else, however high it ranks.
    pub fn is_strong(
        &self,
        doc: usize,
        text: &dyn Fn(usize) -> Option<DocText>,
        model: Option<&Model>,
        t: &Thresholds,
    ) -> bool {
        // A chart stopped because the common words it lacks are most of the question is
        // stopped only by common words: strong, if it passes the rest.
        let lenient = Thresholds {
            salient: (t.salient * STRONG_SALIENT).min(1.0),
            held: 0.0,
            ..*t
        };
        self.unmatched_doc(doc, text, model, &lenient) == Some(None)
    }

    /// The share (0..=1) of the question's whole weight, generic terms included, that doc
    /// `doc`'s own words hold: its question and other phrasings (the words the agent asked or
    /// confirmed), exactly, by stem or by meaning as the gate matches words, leaving its details
    /// and paths aside. Details name functions, flags and files in passing; what they hold says
    /// the chart mentions a word, not that it is about it (`super::decide` weighs this share
    /// against `held`). `text` is read only when words must be aligned by meaning; `None` when
    /// it cannot be read.
    pub fn own_share(
        &self,
        doc: usize,
        text: &dyn Fn(usize) -> Option<DocText>,
        model: Option<&Model>,
        t: &Thresholds,
    ) -> Option<f32> {
        let total = self.weight();
        if total <= 0.0 {
            return Some(1.0);
        }
        let d = u32::try_from(doc).ok()?;
        let mut words: Option<BTreeSet<String>> = None;
        let mut held = 0.0f32;
        for q in &self.terms {
            if q.own_by.binary_search(&d).is_ok() {
                held += q.salience;
                continue;
            }
            let Some(m) = model.filter(|_| !is_code(&q.word)) else {
                continue;
            };
            if words.is_none() {
                let own = text(doc)?;
                words = Some(doc_words(&Doc {
                    question: &own.question,
                    details: "",
                    files: &[],
                }));
            }
            if words
                .as_ref()
                .is_some_and(|w| self.aligns(m, &q.word, w, t.align))
            {
                held += q.salience;
            }
        }
        Some(held / total)
    }

    /// The words of the question (as asked, lowercase) that doc `doc` does not hold in any form
    /// the gate accepts: its opposite word first, if it holds one instead, then every
    /// non-generic term (or one heavy enough to block however generic: module docs, step 1;
    /// or any term, when the chart lacks more than `1 - held` of the question's weight)
    /// that is neither held exactly or by stem nor aligned by meaning, largest share first.
    /// What a candidate's reader needs to tell a rewording from a near miss; empty when the
    /// text cannot be read and the index alone holds everything.
    pub fn missing(
        &self,
        doc: usize,
        text: &dyn Fn(usize) -> Option<DocText>,
        model: Option<&Model>,
        t: &Thresholds,
    ) -> Vec<String> {
        let total = self.weight();
        if total <= 0.0 {
            return Vec::new();
        }
        let chart = text(doc);
        let mut out: Vec<String> = chart
            .as_ref()
            .and_then(|d| self.contradicted(&d.as_doc()))
            .map(str::to_string)
            .into_iter()
            .chain(self.suffixed_only(doc).map(str::to_string))
            .collect();
        let words = chart.as_ref().map(|d| doc_words(&d.as_doc()));
        let heavy = 2.0 * t.salient_share * total;
        let d = u32::try_from(doc).unwrap_or(u32::MAX);
        let unheld = |q: &&QueryTerm| q.held_by.binary_search(&d).is_err();
        // When the chart lacks most of the question, its common words count too (`held`).
        let unheld_share: f32 = self.terms.iter().filter(unheld).map(|q| q.salience).sum();
        let most = unheld_share > (1.0 - t.held) * total;
        let mut terms: Vec<&QueryTerm> = self
            .terms
            .iter()
            .filter(|q| most || q.salience >= t.salient || q.salience >= heavy)
            .filter(unheld)
            .collect();
        terms.sort_by(|a, b| b.salience.total_cmp(&a.salience));
        for q in terms {
            let aligned = match (model.filter(|_| !is_code(&q.word)), &words) {
                (Some(m), Some(w)) => self.aligns(m, &q.word, w, t.align),
                _ => false,
            };
            if !aligned && !out.contains(&q.word) {
                out.push(q.word.clone());
            }
        }
        out
    }

    /// The word or phrase of the question whose opposite `doc` holds instead of it
    /// ([`super::opposites`]): such a chart never answers.
    fn contradicted(&self, doc: &Doc<'_>) -> Option<&str> {
        self.opposable.contradicted(doc.question)
    }

    /// The gate's rule (module docs, step 3): `has(term)` says whether the chart holds a term
    /// exactly or by stem; `words()` gives the chart's words for alignment (called at most once,
    /// and only when needed; `None` when they cannot be read, which makes the result `None`).
    fn judge<'q>(
        &'q self,
        has: &dyn Fn(&QueryTerm) -> bool,
        words: &mut dyn FnMut() -> Option<BTreeSet<String>>,
        model: Option<&Model>,
        t: &Thresholds,
    ) -> Option<Option<&'q str>> {
        let total: f32 = self.terms.iter().map(|q| q.salience).sum();
        if total <= 0.0 {
            return Some(None);
        }
        let mut words = ChartWords {
            load: words,
            got: None,
        };
        match self.salient_unmatched(has, &mut words, model, t, total)? {
            Some(word) => Some(Some(word)),
            None => self.mostly_unheld(has, &mut words, model, t, total),
        }
    }

    /// [`Question::judge`]'s first rule: the heaviest unmatched non-generic term, when such
    /// terms block (module docs, step 3).
    fn salient_unmatched<'q>(
        &'q self,
        has: &dyn Fn(&QueryTerm) -> bool,
        words: &mut ChartWords<'_>,
        model: Option<&Model>,
        t: &Thresholds,
        total: f32,
    ) -> Option<Option<&'q str>> {
        let heavy = 2.0 * t.salient_share;
        let mut missing: Vec<(&QueryTerm, f32)> = self
            .terms
            .iter()
            .filter(|q| (q.salience >= t.salient || q.salience >= heavy * total) && !has(q))
            .map(|q| (q, q.salience / total))
            .collect();
        let sum: f32 = missing.iter().map(|(_, share)| share).sum();
        if missing.iter().all(|(_, share)| *share < t.salient_share) && sum < 2.0 * t.salient_share
        {
            // Even if none of them aligns, these cannot block: no token vectors needed.
            return Some(None);
        }
        // Largest share first: the first term that does not align is the one to report.
        missing.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut unmatched = 0.0f32;
        let mut worst = None;
        for (q, share) in missing {
            if let Some(m) = model.filter(|_| !is_code(&q.word)) {
                if self.aligns(m, &q.word, words.get()?, t.align) {
                    continue;
                }
            }
            unmatched += share;
            let worst = *worst.get_or_insert(q.word.as_str());
            if share >= t.salient_share || unmatched >= 2.0 * t.salient_share {
                return Some(Some(worst));
            }
        }
        Some(None)
    }

    /// The heaviest term of the question when the chart holds, in any form the gate accepts,
    /// less than `held` (0.5) of the question's whole weight, generic words included: a chart
    /// that holds only a few of a question's words answers some other question, even when each
    /// missing word alone is too common to block. `None` inside when it holds enough; outer
    /// `None` when the chart's words cannot be read.
    fn mostly_unheld<'q>(
        &'q self,
        has: &dyn Fn(&QueryTerm) -> bool,
        words: &mut ChartWords<'_>,
        model: Option<&Model>,
        t: &Thresholds,
        total: f32,
    ) -> Option<Option<&'q str>> {
        let mut unheld: Vec<&QueryTerm> = self.terms.iter().filter(|q| !has(q)).collect();
        let share = |u: &[&QueryTerm]| u.iter().map(|q| q.salience).sum::<f32>() / total;
        if share(&unheld) <= 1.0 - t.held {
            return Some(None);
        }
        if let Some(m) = model {
            let w = words.get()?;
            unheld.retain(|q| is_code(&q.word) || !self.aligns(m, &q.word, w, t.align));
        }
        if share(&unheld) <= 1.0 - t.held {
            return Some(None);
        }
        unheld.sort_by(|a, b| b.salience.total_cmp(&a.salience));
        Some(unheld.first().map(|q| q.word.as_str()))
    }

    /// True when one of `words` is a derivation of `word` ([`derived`]) or has a token vector
    /// within cosine `align` of its. Stems and vectors are computed once per word per question
    /// (candidates share words).
    fn aligns(&self, model: &Model, word: &str, words: &BTreeSet<String>, align: f32) -> bool {
        let mut cache = self.vectors.borrow_mut();
        let v = cache
            .entry(word.to_string())
            .or_insert_with(|| model.embed(word))
            .clone();
        let analyzer = Analyzer::default();
        let mut stems = self.stems.borrow_mut();
        let stem = stems
            .entry(word.to_string())
            .or_insert_with(|| analyzer.stem_word(word))
            .clone();
        words.iter().any(|w| {
            let s = stems
                .entry(w.clone())
                .or_insert_with(|| analyzer.stem_word(w));
            if derived(&stem, s) || stem == *s {
                return true;
            }
            let d = cache.entry(w.clone()).or_insert_with(|| model.embed(w));
            dot(&v, d) >= align && !shares_a_root_only(model, word, w)
        })
    }
}

/// One entry's text, owned (what the gate reads for a candidate).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocText {
    /// The charted question, and each of its other phrasings on a line of its own
    /// (`Entry::asked`).
    pub question: String,
    /// The details (may be empty).
    pub details: String,
    /// Backing file paths relative to the project root.
    pub files: Vec<String>,
}

impl DocText {
    /// The text as a [`Doc`].
    pub fn as_doc(&self) -> Doc<'_> {
        Doc {
            question: &self.question,
            details: &self.details,
            files: &self.files,
        }
    }
}

/// The most candidates the gate reads per question, best first (as many as `ask` prints by
/// default: 5 answers, or 3 suggestions and some to spare): past these, lower-ranked charts are
/// not considered as answers. It bounds the entry files `ask` reads on a near miss.
pub const MAX_CHECKS: usize = 8;

/// The gate applied to ranked candidates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gated {
    /// Doc numbers that answer, best first: exact re-asks first, then the ranked candidates
    /// whose every salient term is matched; at most `limit`.
    pub answers: Vec<usize>,
    /// The answers that are exact re-asks: of the chart's question or one of its other
    /// phrasings (found by an index marker, or in the ranked charts' text).
    pub exact: Vec<usize>,
    /// Ranked candidates that failed the gate (at most "related"), best first, each with
    /// whether it is *strong* ([`Question::is_strong`]).
    pub demoted: Vec<(usize, bool)>,
}

pub use super::Ask;

/// Applies the gate to `ranked` (doc numbers, best first, each already past the ranking's own
/// threshold), with the question's exact re-asks put first: the charts found by its index
/// marker (their own question, or another phrasing with no term of its own), then the first
/// [`MAX_CHECKS`] ranked charts whose text holds it as another phrasing (no marker, which at
/// three phrasings an entry made the index a fifth larger: a phrasing with terms, asked
/// again, holds every word of the question, so it ranks among the first). A candidate whose
/// text cannot be read (or, for an exact re-ask, no longer says the question) is neither
/// answer nor demoted.
pub fn apply(question: &Question, ranked: &[usize], ask: &Ask<'_>, model: Option<&Model>) -> Gated {
    let mut out = Gated::default();
    let says = |doc: usize| {
        ask.text(doc).is_some_and(|d| {
            d.question
                .lines()
                .any(|l| normalise_question(l) == question.norm)
        })
    };
    for &doc in &question.exact {
        if out.answers.len() < ask.limit && ask.allowed(doc) && says(doc) {
            out.answers.push(doc);
        }
    }
    for &doc in ranked.iter().take(MAX_CHECKS) {
        if out.answers.len() < ask.limit
            && question.norm.is_some()
            && !out.answers.contains(&doc)
            && says(doc)
        {
            out.answers.push(doc);
        }
    }
    out.exact = out.answers.clone();
    for &doc in ranked.iter().take(MAX_CHECKS) {
        if out.answers.len() >= ask.limit {
            break;
        }
        if out.answers.contains(&doc) {
            continue;
        }
        match question.unmatched_doc(doc, &|d| ask.text(d), model, ask.thresholds) {
            Some(None) if question.names_another_identifier(doc, &|d| ask.text(d)) => {
                out.demoted.push((doc, false));
            }
            Some(None) => out.answers.push(doc),
            Some(Some(_)) => {
                let strong = question.is_strong(doc, &|d| ask.text(d), model, ask.thresholds);
                out.demoted.push((doc, strong));
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
