//! Semantic recall: a static embedding model embedded in the binary.
//!
//! The model (`assets/model/`, rebuilt by `tools/build_model.py`) is a model2vec-style static
//! distillation of `sentence-transformers/all-MiniLM-L6-v2` (Apache-2.0, see `NOTICE`): one int8
//! vector of [`Model::dim`] (256) components per WordPiece token of the BERT uncased vocabulary
//! (30,522 tokens), SIF-weighted and, with the default build, refitted on a frozen corpus of
//! software sentences.
//!
//! A text's vector is computed as model2vec's static pooling does:
//! 1. tokenize with the model's own BERT tokenizer ([`tokenizer`]: basic tokenization, then
//!    WordPiece), without `[CLS]`/`[SEP]`;
//! 2. drop special tokens and `[UNK]`, keep the first [`MAX_TOKENS`] tokens;
//! 3. average their rows (the int8 rows times one global scale; the scale and the count cancel in
//!    the next step, so the sum is taken exactly in integers);
//! 4. L2-normalise. A text with no token left (empty, only emoji, ...) gives the zero vector.
//!
//! `tests/fixtures/embed/parity.json` (made by `tools/make_parity.py` with the reference HF
//! `tokenizers` library and numpy) pins token ids and vectors; the tests check both.

pub mod tokenizer;
mod unicode_tables;

use std::sync::OnceLock;

use serde::Deserialize;

pub use tokenizer::Tokenizer;

/// Pooled tokens per text at most (known, non-special tokens, counted from the start).
pub const MAX_TOKENS: usize = 512;

/// Ids never pooled: `[PAD]` 0, `[UNK]` 100, `[CLS]` 101, `[SEP]` 102, `[MASK]` 103.
const DROPPED_IDS: [u32; 5] = [0, 100, 101, 102, 103];

static EMBEDDINGS: &[u8] = include_bytes!("../../assets/model/embeddings.i8");
static VOCAB: &str = include_str!("../../assets/model/vocab.txt");
static VOCAB_INDEX: &[u8] = include_bytes!("../../assets/model/vocab.index");
static CONFIG: &str = include_str!("../../assets/model/config.json");

/// Decision thresholds calibrated for this model (they change whenever the model is rebuilt;
/// `assets/model/README.md` says how they were chosen). Both are cosine-scale numbers.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Thresholds {
    /// Answer gate: a stored chart answers a question when its lexical coverage (0..=1) plus the
    /// cosine between question and chart is at least this.
    pub gate: f32,
    /// Least closeness (lexical coverage + cosine, the gate's measure) for a chart to be offered
    /// as "possibly related" when the gate misses.
    pub related_min: f32,
    /// Answer gate on the question's terms (`crate::recall::gate`): a term whose weight (its IDF
    /// share in the store times its informativeness in general software English, 0..=1) is
    /// below this is generic and never keeps a chart from answering.
    pub salient: f32,
    /// Least cosine between the token vectors of a question word and a chart word for the chart
    /// to match that word by meaning (`crate::recall::gate`).
    pub align: f32,
    /// Share of the question's weight (0..=1) at which one unmatched, non-generic term keeps a
    /// chart from answering; twice this, summed over such terms, does too (`crate::recall::gate`).
    pub salient_share: f32,
    /// Least share of the question's whole weight (0..=1, generic terms included) that a chart
    /// must hold, exactly, by stem or by meaning, to answer it (`crate::recall::gate`).
    pub held: f32,
    /// Least relevance (`crate::recall::semantic::relevance`: closeness plus half the share of
    /// the question the chart's files' text holds, or the cosine times `show_cosine`) for a chart
    /// to be shown on a miss.
    pub show: f32,
    /// Factor on the cosine alone in a chart's relevance (a rewording may share no word).
    pub show_cosine: f32,
    /// Share (0..=1) of a chart's fused rank score from which another chart is *about as close*
    /// to the question (`crate::recall::decide`): a chart that answers by its details or paths
    /// must have no such rival, and a second answer must be about as close as the first.
    pub as_close: f32,
}

#[derive(Deserialize)]
struct Config {
    #[serde(borrow)]
    id: &'static str,
    dim: usize,
    vocab_size: usize,
    thresholds: Thresholds,
}

/// A loaded static embedding model (vocabulary tables plus a view of the embedded int8 matrix).
#[derive(Debug)]
pub struct Model {
    id: &'static str,
    dim: usize,
    thresholds: Thresholds,
    tokenizer: Tokenizer,
    /// Row-major `[vocab_size][dim]` int8 values, stored as bytes (two's complement).
    rows: &'static [u8],
}

impl Model {
    /// Parses the embedded assets. Prefer [`model`], which does this once per process; this is
    /// public for load-time measurements.
    ///
    /// # Panics
    /// When the embedded assets are inconsistent (a build error, caught by the tests).
    pub fn load() -> Model {
        let config: Config = serde_json::from_str(CONFIG).expect("assets/model/config.json");
        let tokenizer = Tokenizer::new(VOCAB, VOCAB_INDEX).expect("assets/model/vocab.index");
        assert_eq!(tokenizer.len(), config.vocab_size, "vocab.txt size");
        assert_eq!(
            EMBEDDINGS.len(),
            config.vocab_size * config.dim,
            "embeddings.i8 size"
        );
        Model {
            id: config.id,
            dim: config.dim,
            thresholds: config.thresholds,
            tokenizer,
            rows: EMBEDDINGS,
        }
    }

    /// Number of components of every vector this model returns (256).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// A short stable identifier of the model's assets (16 hex digits of a SHA-256 over the
    /// matrix, the vocabulary and the pooling rules). Store it with vectors: vectors made under
    /// another id are not comparable and must be recomputed.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The thresholds that belong to this model.
    pub fn thresholds(&self) -> Thresholds {
        self.thresholds
    }

    /// The model's tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The unit-length vector of `text` (`dim()` components), or all zeros when no known token
    /// is left after tokenization (empty text, only unknown symbols).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut acc = vec![0i32; self.dim];
        let mut n = 0usize;
        self.tokenizer.visit(text, |id| {
            if DROPPED_IDS.contains(&id) {
                return true;
            }
            let start = id as usize * self.dim;
            for (a, &b) in acc.iter_mut().zip(&self.rows[start..start + self.dim]) {
                *a += i32::from(b as i8);
            }
            n += 1;
            n < MAX_TOKENS
        });
        let mut out: Vec<f32> = acc.into_iter().map(|v| v as f32).collect();
        let norm = out.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            for v in &mut out {
                *v /= norm;
            }
        }
        out
    }
}

/// The embedded model, loaded on first use (a few milliseconds), or `None` when this build
/// carries none.
pub fn model() -> Option<&'static Model> {
    static MODEL: OnceLock<Model> = OnceLock::new();
    Some(MODEL.get_or_init(Model::load))
}

/// Cosine similarity of two vectors of equal length, in `[-1, 1]`; 0 when either is all zeros.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let (mut ab, mut aa, mut bb) = (0f32, 0f32, 0f32);
    for (&x, &y) in a.iter().zip(b) {
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        ab / (aa.sqrt() * bb.sqrt())
    }
}

#[cfg(test)]
mod tests;
