//! Index construction: tokenise every doc once, intern terms, collect per-field term
//! frequencies, then write the sorted dictionary and the postings with those frequencies (the
//! BM25F weights depend on every doc's length, so they are computed when searching, and a doc
//! added or removed changes only its own postings: `Bm25Index::splice`).

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

/// One posting: (doc, term frequency per field).
pub(super) type Posted = (u32, [u8; 3]);

/// Each term (sorted by bytes) with its postings, in doc order.
pub(super) type Runs = Vec<(String, Vec<Posted>)>;

/// Tokenises `docs` (each with the doc number it gets) into per-term posting runs and per-doc
/// field lengths (in terms).
pub(super) fn analyse<'d>(
    docs: impl Iterator<Item = (u32, &'d Doc<'d>)>,
) -> (Runs, Vec<(u32, [u32; 3])>) {
    let analyzer = Analyzer::default();
    let mut buf = String::new();
    let mut b = Builder::default();
    let mut lens = Vec::new();
    for (d, doc) in docs {
        // The question field, a phrasing (line) at a time: the chart's own question (its first
        // line) gets the exact re-ask marker, a term only `exact_docs` looks up (no field counts
        // it); so does another phrasing that has no term of its own ("where is it?": only
        // common words), which nothing else would find. One with terms ranks among the first
        // charts when asked again, where `gate::apply` reads it (a marker for every phrasing
        // made the index a fifth larger at three phrasings an entry).
        let mut q = 0;
        for (i, line) in doc.question.split('\n').enumerate() {
            let terms = b.add(&analyzer, &mut buf, d, 0, line);
            q += terms;
            if i == 0 || terms == 0 {
                if let Some(key) = super::gate::exact_key(line) {
                    b.add_marker(&key, d);
                }
            }
        }
        let det = b.add(&analyzer, &mut buf, d, 1, doc.details);
        let files: u32 = doc
            .files
            .iter()
            .map(|f| b.add(&analyzer, &mut buf, d, 2, f))
            .sum();
        lens.push((d, [q, det, files]));
    }
    let mut runs: Runs = b.names.into_iter().map(|t| (t, Vec::new())).collect();
    for p in &b.postings {
        runs[p.term as usize].1.push((p.doc, p.tf));
    }
    for r in &mut runs {
        r.1.sort_unstable_by_key(|&(d, _)| d);
    }
    runs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    (runs, lens)
}

/// The stored index of `n_docs` docs with field lengths `lens` from term runs sorted by term
/// (each in doc order; empty runs are dropped). Postings: doc delta (varint), then the term
/// frequency per field (3 bytes).
pub(super) fn assemble<'t>(
    n_docs: u32,
    lens: Vec<[u32; 3]>,
    runs: impl Iterator<Item = (&'t str, &'t [(u32, [u8; 3])])>,
) -> RawIndex {
    let mut raw = RawIndex {
        n_docs,
        lens: super::blob::U32s(lens.iter().flatten().copied().collect()),
        ..RawIndex::default()
    };
    let mut postings = Vec::new();
    for (term, run) in runs.filter(|(_, r)| !r.is_empty()) {
        raw.terms.push_str(term);
        raw.term_ends.0.push(raw.terms.len() as u32);
        raw.df.0.push(run.len() as u32);
        let mut prev = 0u32;
        for &(doc, tf) in run {
            put_varint(&mut postings, doc - prev);
            prev = doc;
            postings.extend_from_slice(&tf);
        }
        raw.posting_ends.0.push(postings.len() as u32);
    }
    raw.postings = postings.into();
    raw
}

impl Bm25Index {
    /// Builds the index over `docs` with explicit scoring parameters (for evaluation).
    pub fn build_with(docs: &[Doc<'_>], params: &Params) -> Bm25Index {
        let (runs, lens) = analyse(docs.iter().enumerate().map(|(i, d)| (i as u32, d)));
        let raw = assemble(
            docs.len() as u32,
            lens.into_iter().map(|(_, l)| l).collect(),
            runs.iter().map(|(t, r)| (t.as_str(), r.as_slice())),
        );
        Bm25Index::from_raw(raw, *params)
    }
}

/// Per doc and field, the BM25F factor `W_f / (1 − B_f + B_f · len_f / avglen_f)`, from each
/// doc's field lengths `lens` (in terms).
pub(super) fn field_scales(lens: &[[u32; 3]], params: &Params) -> Vec<[f32; 3]> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Docs over a small vocabulary, so terms are shared, appear and vanish with single docs.
    fn corpus() -> Vec<(String, String, Vec<String>)> {
        let words = [
            "payment", "webhook", "stripe", "invoice", "session", "cookie", "signed", "route",
            "login", "page", "rendered", "queue", "retry", "cron", "upload",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        (0..40)
            .map(|i| {
                let q: Vec<&str> = (0..1 + next(5)).map(|_| words[next(words.len())]).collect();
                let d: Vec<&str> = (0..next(8)).map(|_| words[next(words.len())]).collect();
                let f = format!("src/{}/{}_{i}.ts", words[next(4)], words[next(words.len())]);
                (
                    format!("Where is the {} {i}?", q.join(" ")),
                    d.join(" "),
                    vec![f],
                )
            })
            .collect()
    }

    fn docs(c: &[(String, String, Vec<String>)]) -> Vec<Doc<'_>> {
        c.iter()
            .map(|(q, d, f)| Doc {
                question: q,
                details: d,
                files: f,
            })
            .collect()
    }

    /// A spliced index searches as the index built over its docs does (scores, order, IDF).
    fn assert_same(spliced: &Bm25Index, built: &Bm25Index) {
        let queries = [
            "stripe payment webhook retry",
            "how is the session cookie signed",
            "refunds issued",
            "cron queue upload page",
            "where is the cron queue?",
        ];
        assert_eq!(spliced.len(), built.len());
        for q in queries {
            let all = |_: usize| true;
            assert_eq!(
                format!("{:?}", spliced.candidates(q, &all)),
                format!("{:?}", built.candidates(q, &all)),
                "{q}"
            );
            assert_eq!(
                format!("{:?}", spliced.search(q, 10, &all)),
                format!("{:?}", built.search(q, 10, &all))
            );
            assert_eq!(spliced.query_weight(q), built.query_weight(q));
            assert_eq!(spliced.exact_docs(q), built.exact_docs(q));
        }
        // Serialised, it loads as the built index.
        let bytes = postcard::to_stdvec(spliced).unwrap();
        assert_eq!(bytes, postcard::to_stdvec(built).unwrap());
    }

    #[test]
    fn a_splice_gives_the_index_a_build_over_the_result_gives() {
        let all = corpus();
        let full = Bm25Index::build(&docs(&all));
        // Start from every third doc left out, then put them back and take others out.
        let kept: Vec<usize> = (0..all.len()).filter(|i| i % 3 != 0).collect();
        let start: Vec<_> = kept.iter().map(|&i| all[i].clone()).collect();
        let base = Bm25Index::build(&docs(&start));
        let back: Vec<(usize, Doc<'_>)> = (0..all.len())
            .filter(|i| i % 3 == 0)
            .map(|i| (i, docs(&all[i..=i]).remove(0)))
            .collect();
        let spliced = base.splice(&[], &back).unwrap();
        assert_same(&spliced, &full);
        assert_eq!(
            *spliced.stored(),
            *full.stored(),
            "inserting gives the full build"
        );
        // Remove docs 1, 2 and 39 and insert two at new positions 0 and 5.
        let removed = spliced.splice(&[1, 2, 39], &[]).unwrap();
        let mut rest = all.clone();
        rest.remove(39);
        rest.remove(2);
        rest.remove(1);
        assert_same(&removed, &Bm25Index::build(&docs(&rest)));
        assert_eq!(
            *removed.stored(),
            *Bm25Index::build(&docs(&rest)).stored(),
            "removing"
        );
        let extra = [
            (
                "How are refunds issued?".to_string(),
                String::new(),
                vec!["src/refund.ts".to_string()],
            ),
            (
                "Where is the cron queue?".to_string(),
                "retry".to_string(),
                vec![],
            ),
        ];
        let ins = [
            (0, docs(&extra[..1]).remove(0)),
            (5, docs(&extra[1..]).remove(0)),
        ];
        let both = removed.splice(&[], &ins).unwrap();
        rest.insert(0, extra[0].clone());
        rest.insert(5, extra[1].clone());
        assert_same(&both, &Bm25Index::build(&docs(&rest)));
        assert_eq!(
            *both.stored(),
            *Bm25Index::build(&docs(&rest)).stored(),
            "inserting new terms"
        );
        // Everything out, then a bad request.
        let none = both
            .splice(&(0..rest.len()).collect::<Vec<_>>(), &[])
            .unwrap();
        assert_eq!(*none.stored(), *Bm25Index::build(&[]).stored());
        assert!(both.splice(&[3, 2], &[]).is_err());
        assert!(both
            .splice(&[], &[(rest.len() + 1, docs(&extra[..1]).remove(0))])
            .is_err());
    }
}
