//! Index construction: tokenise every doc once, intern terms, collect per-field term
//! frequencies, then write the sorted dictionary and the postings with precomputed BM25F weights.

use super::blob::put_varint;
use super::tokenize::{self, Analyzer, Piece};
use super::{Bm25Index, Doc, Params, RawIndex};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash: a fast non-cryptographic hasher for the interning maps (keys are not adversarial).
#[derive(Default)]
pub(super) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.write_u64(u64::from_le_bytes(tail));
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the low bits (hashbrown's bucket index) weak: rotate the strong
        // high bits down.
        self.0.rotate_left(26)
    }
}

pub(super) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Marks a cached word that is a stop word.
const STOP: u32 = u32::MAX;

/// A word of at most 24 bytes packed into three little-endian words, zero-padded (words hold no
/// NUL, so the key is unique): hashed in one round and compared without `memcmp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ShortKey([u64; 3]);

impl ShortKey {
    fn new(w: &str) -> Option<ShortKey> {
        if w.len() > 24 {
            return None;
        }
        let mut key = [0u64; 3];
        for (i, &b) in w.as_bytes().iter().enumerate() {
            key[i / 8] |= u64::from(b) << (8 * (i % 8));
        }
        Some(ShortKey(key))
    }
}

impl std::hash::Hash for ShortKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.0[0] ^ self.0[1].rotate_left(21) ^ self.0[2].rotate_left(42));
    }
}

/// One term's occurrence in one doc during the build: raw term frequency per field.
#[derive(Clone, Copy)]
struct Posting {
    term: u32,
    doc: u32,
    tf: [u8; 3],
}

/// No doc yet (in [`Builder::current`]).
const NONE: u32 = u32::MAX;

/// Accumulates terms and per-field term frequencies during the build.
#[derive(Default)]
struct Builder {
    /// Term → term id (ids count up from 0 in order of first sight).
    ids: FxMap<String, u32>,
    /// Term id → term.
    names: Vec<String>,
    /// Word piece (lowercase, unstemmed) → term id or [`STOP`], so each distinct word is stemmed
    /// once; short words are keyed by [`ShortKey`].
    short_words: FxMap<ShortKey, u32>,
    long_words: FxMap<String, u32>,
    /// Every (term, doc) posting, in doc order.
    postings: Vec<Posting>,
    /// Term id → (doc, index in `postings`) of its latest posting; doc [`NONE`] before the first.
    /// Checking the doc here keeps the hot path off the large `postings` array.
    current: Vec<(u32, u32)>,
}

impl Builder {
    /// Adds the term `key` to doc `d` with no field frequency (a marker only looked up, never
    /// scored), once per doc.
    fn add_marker(&mut self, key: &str, d: u32) {
        let id = self.intern(key);
        let cur = &mut self.current[id as usize];
        if cur.0 != d {
            *cur = (d, self.postings.len() as u32);
            self.postings.push(Posting {
                term: id,
                doc: d,
                tf: [0; 3],
            });
        }
    }

    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(term.to_string());
        self.ids.insert(term.to_string(), id);
        self.current.push((NONE, 0));
        id
    }

    fn term_id(&mut self, analyzer: &Analyzer, piece: Piece<'_>) -> u32 {
        let Piece::Word(w) = piece else {
            return analyzer.term(piece).map_or(STOP, |t| self.intern(&t));
        };
        if let Some(key) = ShortKey::new(w) {
            if let Some(&id) = self.short_words.get(&key) {
                return id;
            }
            let id = analyzer.term(piece).map_or(STOP, |t| self.intern(&t));
            self.short_words.insert(key, id);
            id
        } else {
            if let Some(&id) = self.long_words.get(w) {
                return id;
            }
            let id = analyzer.term(piece).map_or(STOP, |t| self.intern(&t));
            self.long_words.insert(w.to_string(), id);
            id
        }
    }

    /// Adds the terms of `text` as field `field` of doc `doc`; returns how many terms it had.
    fn add(
        &mut self,
        analyzer: &Analyzer,
        buf: &mut String,
        doc: u32,
        field: usize,
        text: &str,
    ) -> u32 {
        let mut count = 0u32;
        tokenize::pieces(text, buf, &mut |p| {
            let id = self.term_id(analyzer, p);
            if id == STOP {
                return;
            }
            count += 1;
            let cur = &mut self.current[id as usize];
            if cur.0 == doc {
                if let Some(p) = self.postings.get_mut(cur.1 as usize) {
                    p.tf[field] = p.tf[field].saturating_add(1);
                }
            } else {
                *cur = (doc, self.postings.len() as u32);
                let mut tf = [0u8; 3];
                tf[field] = 1;
                self.postings.push(Posting { term: id, doc, tf });
            }
        });
        count
    }
}

impl Bm25Index {
    /// Builds the index over `docs` with explicit scoring parameters (for evaluation).
    pub fn build_with(docs: &[Doc<'_>], params: &Params) -> Bm25Index {
        let analyzer = Analyzer::default();
        let mut buf = String::new();
        let mut b = Builder::default();
        let mut lens: Vec<[u32; 3]> = Vec::with_capacity(docs.len());
        for (doc_no, doc) in docs.iter().enumerate() {
            let d = doc_no as u32;
            let q = b.add(&analyzer, &mut buf, d, 0, doc.question);
            let det = b.add(&analyzer, &mut buf, d, 1, doc.details);
            let files: u32 = doc
                .files
                .iter()
                .map(|f| b.add(&analyzer, &mut buf, d, 2, f))
                .sum();
            lens.push([q, det, files]);
            // The exact re-ask marker: a term only `exact_doc` looks up (no field counts it).
            if let Some(key) = super::gate::exact_key(doc.question) {
                b.add_marker(&key, d);
            }
        }
        let field_scale = field_scales(&lens, params);

        // Terms in byte order; `rank[id]` is a term's position in it.
        let nterms = b.names.len();
        let mut order: Vec<u32> = (0..nterms as u32).collect();
        order.sort_unstable_by(|&x, &y| b.names[x as usize].cmp(&b.names[y as usize]));
        let mut rank = vec![0u32; nterms];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        // Counting sort of the postings by term rank; stable, so each term's run stays in doc
        // order. `start[r]..start[r + 1]` is term rank r's run in `perm`.
        let mut start = vec![0u32; nterms + 1];
        for p in &b.postings {
            start[rank[p.term as usize] as usize + 1] += 1;
        }
        for r in 0..nterms {
            start[r + 1] += start[r];
        }
        let mut fill = start.clone();
        let mut perm = vec![0u32; b.postings.len()];
        for (i, p) in b.postings.iter().enumerate() {
            let slot = &mut fill[rank[p.term as usize] as usize];
            perm[*slot as usize] = i as u32;
            *slot += 1;
        }

        let mut raw = RawIndex {
            n_docs: docs.len() as u32,
            ..RawIndex::default()
        };
        raw.postings.0.reserve(b.postings.len() * 2);
        raw.terms.reserve(b.names.iter().map(String::len).sum());
        for (r, &id) in order.iter().enumerate() {
            raw.terms.push_str(&b.names[id as usize]);
            raw.term_ends.0.push(raw.terms.len() as u32);
            let run = &perm[start[r] as usize..start[r + 1] as usize];
            raw.df.0.push(run.len() as u32);
            let mut prev = 0u32;
            for &i in run {
                let p = &b.postings[i as usize];
                put_varint(&mut raw.postings.0, p.doc - prev);
                prev = p.doc;
                let scale = &field_scale[p.doc as usize];
                let tf: f32 = (0..3).map(|f| scale[f] * f32::from(p.tf[f])).sum();
                let w = tf / (params.k1 + tf);
                // w is in [0, 1): adding 0.5 and truncating rounds (no libm call).
                raw.postings.0.push((w * 255.0 + 0.5).max(1.0) as u8);
            }
            raw.posting_ends.0.push(raw.postings.0.len() as u32);
        }
        Bm25Index { raw }
    }
}

/// Per doc and field, the BM25F factor `W_f / (1 − B_f + B_f · len_f / avglen_f)`, from each
/// doc's field lengths `lens` (in terms).
fn field_scales(lens: &[[u32; 3]], params: &Params) -> Vec<[f32; 3]> {
    let n = lens.len().max(1) as f32;
    let mut avg = [0f32; 3];
    for l in lens {
        for f in 0..3 {
            avg[f] += l[f] as f32;
        }
    }
    for a in &mut avg {
        *a = (*a / n).max(1.0);
    }
    lens.iter()
        .map(|l| {
            std::array::from_fn(|f| {
                params.weight[f] / (1.0 - params.b[f] + params.b[f] * l[f] as f32 / avg[f])
            })
        })
        .collect()
}
