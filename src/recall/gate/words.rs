//! The gate's word matching: which chart words a question word matches (stems, derivations,
//! codes, symbol names) and how a chart's words are read for it (`super`'s module docs, step 2).

use super::super::stopwords::is_stop_word;
use super::super::tokenize::{pieces, Analyzer, Piece};
use super::super::{Bm25Index, Doc};
use crate::embed::Model;
use std::collections::{BTreeSet, HashSet};

/// A bare word of a question (`c` of "compile C") that some chart holds written with a name
/// symbol (`c#`, `c++`; [`crate::recall::tokenize::SYMBOL_NAME_CHARS`]): a chart that holds
/// such a form and not the bare word names another thing, so it does not answer.
#[derive(Debug, Clone)]
pub(super) struct Suffixed {
    /// The word as asked, lowercase.
    pub(super) word: String,
    /// Its index term, if it has one (a one-letter word has none).
    pub(super) term: Option<String>,
    /// Docs holding a symbol form of the word (ascending).
    pub(super) forms: Vec<u32>,
    /// Docs holding its term (ascending).
    pub(super) bare: Vec<u32>,
}

/// What a name symbol run may be after a word, as [`Suffixed`] looks the forms up.
pub(super) const NAME_SUFFIXES: [&str; 3] = ["#", "+", "++"];

/// True when two words are made of several WordPieces each, begin with the same pieces and then
/// both go on differently (`std ##in` and `std ##out`, `user ##name` and `user ##id`): the shared
/// pieces, not the meaning, make their mean vectors close, so they are different things of one
/// root and must not align by vector. (`derived` still matches an agent noun; a word whose
/// pieces begin the other's, `postgres` and `postgresql`, may align.)
pub(super) fn shares_a_root_only(model: &Model, a: &str, b: &str) -> bool {
    let (pa, pb) = (model.tokenizer().tokenize(a), model.tokenizer().tokenize(b));
    let common = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
    common > 0 && common < pa.len() && common < pb.len()
}

/// True when two stems are one word's derivations: the longer is the shorter (at least
/// [`DERIVED_MIN_STEM`] letters) plus an agent-noun suffix ([`AGENT_SUFFIXES`]: "handl" of
/// `handled`/`handling` and "handler"; "process" and "processor"). Porter stemming merges
/// inflections, not derivations, and the token vectors place some just under `align`
/// ("handler"/"handled" 0.50). Any other addition makes another word ("count"/"country",
/// "check"/"checkout", "state"/"statement").
pub(super) fn derived(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= DERIVED_MIN_STEM
        && short.bytes().all(|c| c.is_ascii_alphabetic())
        && long
            .strip_prefix(short)
            .is_some_and(|suffix| AGENT_SUFFIXES.contains(&suffix))
}

/// Shortest stem [`derived`] extends (shorter ones begin unrelated words: "sign"/"signal").
pub(super) const DERIVED_MIN_STEM: usize = 5;

/// What [`derived`] lets a stem add: the agent noun of a verb (`handle` → `handler`,
/// `process` → `processor`), as stems.
pub(super) const AGENT_SUFFIXES: [&str; 2] = ["er", "or"];

/// A word with a digit (`oauth2`, `s3`, `v2`) or a symbol (`c#`, `c++`, `==`) is a code, as in
/// the tokeniser: it matches only exactly, never by meaning (its WordPiece rows are mostly those
/// of its letters).
pub(super) fn is_code(word: &str) -> bool {
    word.bytes()
        .any(|b| b.is_ascii_digit() || b.is_ascii_punctuation())
}

impl Suffixed {
    /// The entry for bare word `w` (piece `p`) when some chart of `bm25` holds a symbol form
    /// of it.
    pub(super) fn new(
        bm25: &Bm25Index,
        analyzer: &Analyzer,
        p: Piece<'_>,
        w: &str,
    ) -> Option<Suffixed> {
        let mut form = String::with_capacity(w.len() + 2);
        let mut forms: Vec<u32> = Vec::new();
        for suffix in NAME_SUFFIXES {
            form.clear();
            form.push_str(w);
            form.push_str(suffix);
            if bm25.df(&form).is_some() {
                forms.extend(bm25.docs_with(&form));
            }
        }
        if forms.is_empty() {
            return None;
        }
        forms.sort_unstable();
        forms.dedup();
        let term = analyzer.term(p).map(|t| t.into_owned());
        Some(Suffixed {
            word: w.to_string(),
            bare: term.as_deref().map_or_else(Vec::new, |t| bm25.docs_with(t)),
            term,
            forms,
        })
    }
}

/// A chart's distinct words (lowercase, unstemmed, stop words left out) over its question,
/// details and file paths: what question words are aligned with.
pub(super) fn doc_words(doc: &Doc<'_>) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    doc_pieces(doc, &mut |p| {
        if let Piece::Word(w) = p {
            if !is_stop_word(w) {
                words.insert(w.to_string());
            }
        }
    });
    words
}

/// Every piece of a chart's question, details and file paths, in that order.
fn doc_pieces(doc: &Doc<'_>, emit: &mut dyn FnMut(Piece<'_>)) {
    let mut buf = String::new();
    let texts = [doc.question, doc.details]
        .into_iter()
        .chain(doc.files.iter().map(String::as_str));
    for text in texts {
        pieces(text, &mut buf, emit);
    }
}

/// A chart's words for alignment ([`doc_words`]), read at most once per judgement and only when
/// a rule needs them.
pub(super) struct ChartWords<'a> {
    pub(super) load: &'a mut dyn FnMut() -> Option<BTreeSet<String>>,
    pub(super) got: Option<BTreeSet<String>>,
}

impl ChartWords<'_> {
    /// The words; `None` when they cannot be read.
    pub(super) fn get(&mut self) -> Option<&BTreeSet<String>> {
        if self.got.is_none() {
            self.got = Some((self.load)()?);
        }
        self.got.as_ref()
    }
}

/// A chart's index terms (stemmed, as BM25 sees them) and its words ([`doc_words`]).
pub(super) fn doc_vocabulary(doc: &Doc<'_>) -> (HashSet<String>, BTreeSet<String>) {
    let analyzer = Analyzer::default();
    let mut terms = HashSet::new();
    doc_pieces(doc, &mut |p| {
        if let Some(term) = analyzer.term(p) {
            terms.insert(term.into_owned());
        }
    });
    (terms, doc_words(doc))
}

/// Dot product (the cosine of two unit vectors).
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
