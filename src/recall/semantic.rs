//! Semantic recall fused with BM25: one vector per entry from the embedded static model
//! (`crate::embed`), cosine against the question's vector, and a combined gate.
//!
//! Why a gate and not a cosine threshold: static embeddings rank synonyms well but the top
//! cosine of an unrelated question overlaps that of a true rewording, so cosine alone cannot
//! decide whether to answer (reference/semantic-recall.md). An entry answers only when its
//! lexical coverage (share of the query's IDF weight it matches, 0..1) plus its cosine reaches
//! the model's `gate`; those are ranked by `0.5 · bm25 / best bm25 + 0.5 · cosine` ([`rank`]).
//! Entries whose coverage + cosine reaches `related_min` are close enough to show on a miss.
//! Both thresholds belong to the model (`assets/model/config.json`); what answers is decided
//! after this step (`super::decide`).

use super::{Ask, Bm25Index, Candidate};
use crate::embed::Model;

/// Scale of the stored int8 components: a unit vector's component `v` is stored as
/// `round(v · 127)`.
const QUANT: f32 = 127.0;

/// Vectors per entry: [`VIEWS`] int8 vectors each (the question alone, and the question with its
/// details), row-major (`len × VIEWS × dim`), kept in their own file (`.capn/vectors.bin`) so that
/// a search can stream them in order without reading the index again. An entry's cosine with a
/// query is the best of its views: details help a rewording that uses their words, but dilute
/// the question's meaning for a question asked in other words (reference/semantic-recall.md:
/// synonyms are where the embedding earns its place).
#[derive(Debug, Clone, Default)]
pub struct Vectors {
    dim: u32,
    /// The int8 components as bytes (two's complement). Empty while `file` holds them.
    data: Vec<u8>,
    /// Opened with [`Vectors::open`] and not read whole: [`Vectors::cosines`] streams the
    /// components through a small buffer (a reader never holds them all in memory: at 10,000
    /// entries that is 5 MB of fresh pages per process, the largest cost of a search there);
    /// anything else reads them whole, once.
    file: Option<std::sync::Arc<Backing>>,
    /// Spliced from a file-backed set without copying it ([`Vectors::splice`]): `data` and
    /// `file` are then unused.
    overlay: Option<std::sync::Arc<Overlay>>,
}

/// Vectors spliced from a file-backed set: which entry of it each one is, or which inserted one.
#[derive(Debug)]
struct Overlay {
    /// The file-backed set spliced from.
    base: Vectors,
    /// Per entry now, in order.
    slots: Vec<Slot>,
    /// The inserted entries' views (each [`VIEWS`] × dim int8 components), in insertion order.
    new: Vec<u8>,
    /// Every component in order, once something needed them whole (and whether `base` read).
    whole: std::sync::OnceLock<(Vec<u8>, bool)>,
}

/// Where an entry of an [`Overlay`] is kept.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// That entry of the base set.
    Base(u32),
    /// That inserted entry.
    New(u32),
}

/// The file behind a [`Vectors`] opened by [`Vectors::open`].
#[derive(Debug)]
struct Backing {
    file: std::fs::File,
    count: usize,
    /// The components read whole, and whether that read succeeded (zeros where it did not).
    whole: std::sync::OnceLock<(Vec<u8>, bool)>,
    /// The last streamed [`Vectors::cosines`]: (query, cosines). `ask` searches again without
    /// the stale charts it found, with the same query over the same file, so the
    /// scan (most of a search's cost) is done once per process.
    last: std::sync::Mutex<Option<(Vec<f32>, Vec<f32>)>>,
}

/// Entries per streamed read in [`Vectors::cosines`] (128 entries of 2 × 256 components: 64 KiB).
const STREAM_ENTRIES: usize = 128;

impl PartialEq for Vectors {
    /// Equal when they hold the same components (wherever they are kept).
    fn eq(&self, other: &Vectors) -> bool {
        self.dim == other.dim && self.components() == other.components()
    }
}

/// Magic bytes of a vectors file.
const FILE_MAGIC: &[u8; 8] = b"CAPNVEC1";
/// Length of a vectors file's header: magic, dim (u32), count (u64), tag (u64), little-endian.
const FILE_HEADER: usize = 8 + 4 + 8 + 8;

/// Vectors stored per entry (see [`Vectors`]).
pub const VIEWS: usize = 2;

/// The texts an entry is embedded from, one per view: its question (with its other phrasings,
/// one per line, `Entry::asked`), and that with its details.
pub fn entry_texts(question: &str, details: &str) -> [String; VIEWS] {
    let full = if details.is_empty() {
        question.to_string()
    } else {
        format!("{question}\n{details}")
    };
    [question.to_string(), full]
}

/// Quantises a unit vector to int8 components.
pub fn quantise(v: &[f32]) -> Vec<i8> {
    v.iter()
        .map(|x| (x * QUANT).round().clamp(-127.0, 127.0) as i8)
        .collect()
}

impl Vectors {
    /// An empty set of `dim`-dimensional vectors.
    pub fn new(dim: usize) -> Vectors {
        Vectors {
            dim: dim as u32,
            data: Vec::new(),
            file: None,
            overlay: None,
        }
    }

    /// Appends one entry: its [`VIEWS`] quantised vectors (`dim` components each), concatenated.
    pub fn push(&mut self, views: &[i8]) {
        debug_assert_eq!(views.len(), VIEWS * self.dim as usize);
        if self.file.is_some() || self.overlay.is_some() {
            let all = self.components().to_vec();
            (self.data, self.file, self.overlay) = (all, None, None);
        }
        self.data.extend(views.iter().map(|&v| v as u8));
    }

    /// The views of entry `i`, concatenated (int8 components).
    pub fn get(&self, i: usize) -> Vec<i8> {
        self.raw(i).iter().map(|&b| b as i8).collect()
    }

    fn raw(&self, i: usize) -> &[u8] {
        let w = VIEWS * self.dim as usize;
        if let Some(o) = &self.overlay {
            return match o.slots[i] {
                Slot::Base(b) => o.base.raw(b as usize),
                Slot::New(k) => &o.new[k as usize * w..(k as usize + 1) * w],
            };
        }
        &self.components()[i * w..(i + 1) * w]
    }

    /// Every component, in memory (a file-backed set is read whole on first use; a read that
    /// fails leaves zeros, so its entries get cosine 0, as for an empty query).
    fn components(&self) -> &[u8] {
        self.read_whole().0
    }

    /// [`Vectors::components`], and false when they are a file-backed set whose read failed
    /// (the zeros stand in for components never read).
    fn read_whole(&self) -> (&[u8], bool) {
        if let Some(o) = &self.overlay {
            let (all, ok) = o.whole.get_or_init(|| {
                let ok = o.base.read_whole().1;
                let all = (0..o.slots.len()).flat_map(|i| self.raw(i)).copied();
                (all.collect(), ok)
            });
            return (all, *ok);
        }
        match &self.file {
            Some(b) => {
                let (all, ok) = b.whole.get_or_init(|| {
                    let mut all = vec![0u8; b.count * VIEWS * self.dim as usize];
                    let ok = read_at(&b.file, FILE_HEADER as u64, &mut all).is_ok();
                    (all, ok)
                });
                (all, *ok)
            }
            None => (&self.data, true),
        }
    }

    /// These vectors with the entries at positions `remove` (ascending) taken out and
    /// `insert` (each entry's concatenated views, [`embed_entry`]) put in at the positions they
    /// get in the result (ascending). A file-backed set is not copied: the result reads the
    /// kept entries from the same file (`Overlay`); one in memory is copied. `None` when a
    /// file-backed set is no longer the size it was opened at (cut short after it was opened:
    /// the zeros that would stand in for unread components would be saved as cosine 0 for
    /// every kept entry), or an inserted entry has the wrong number of components.
    pub fn splice(&self, remove: &[usize], insert: &[(usize, Vec<i8>)]) -> Option<Vectors> {
        let w = VIEWS * self.dim as usize;
        if insert.iter().any(|(_, v)| v.len() != w) {
            return None;
        }
        let (base, slots, mut new) = match (&self.overlay, &self.file) {
            (Some(o), _) => (o.base.clone(), o.slots.clone(), o.new.clone()),
            (None, Some(b)) => {
                let size = b.file.metadata().ok()?.len();
                if size != self.file_len() {
                    return None;
                }
                let slots = (0..b.count as u32).map(Slot::Base).collect();
                (self.clone(), slots, Vec::new())
            }
            (None, None) => return Some(self.splice_copied(remove, insert)),
        };
        let mut out = Vec::with_capacity(slots.len() + insert.len());
        let mut inserted = insert.iter().peekable();
        let mut take = |out: &mut Vec<Slot>, new: &mut Vec<u8>| {
            while let Some((_, v)) = inserted.next_if(|(p, _)| *p == out.len()) {
                out.push(Slot::New((new.len() / w.max(1)) as u32));
                new.extend(v.iter().map(|&x| x as u8));
            }
        };
        for (i, slot) in slots.iter().enumerate() {
            if remove.binary_search(&i).is_err() {
                take(&mut out, &mut new);
                out.push(*slot);
            }
        }
        take(&mut out, &mut new);
        let overlay = Overlay {
            base,
            slots: out,
            new,
            whole: std::sync::OnceLock::new(),
        };
        Some(Vectors {
            dim: self.dim,
            data: Vec::new(),
            file: None,
            overlay: Some(std::sync::Arc::new(overlay)),
        })
    }

    /// [`Vectors::splice`] of a set held in memory: the kept components are copied.
    fn splice_copied(&self, remove: &[usize], insert: &[(usize, Vec<i8>)]) -> Vectors {
        let w = VIEWS * self.dim as usize;
        let mut out = Vectors::new(self.dim as usize);
        let mut inserted = insert.iter().peekable();
        let mut take = |out: &mut Vectors| {
            while let Some((_, v)) = inserted.next_if(|(p, _)| *p == out.len()) {
                out.push(v);
            }
        };
        for i in (0..self.len()).filter(|i| remove.binary_search(i).is_err()) {
            take(&mut out);
            out.data.extend_from_slice(self.raw(i));
        }
        take(&mut out);
        debug_assert_eq!(out.data.len() % w.max(1), 0);
        out
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match &self.file {
            _ if self.dim == 0 => 0,
            _ if self.overlay.is_some() => self.overlay.as_ref().map_or(0, |o| o.slots.len()),
            Some(b) => b.count,
            None => self.data.len() / (VIEWS * self.dim as usize),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Dimensions per vector.
    pub fn dim(&self) -> usize {
        self.dim as usize
    }

    /// Reads the components into memory and lets go of the file they came from (a set opened
    /// with [`Vectors::open`], or spliced from one): Windows cannot replace a file that is still
    /// open, and a writer replaces `vectors.bin` right after. False, with nothing changed, when
    /// that file could not be read whole.
    pub fn detach(&mut self) -> bool {
        if self.file.is_none() && self.overlay.is_none() {
            return true;
        }
        let (all, ok) = self.read_whole();
        if !ok {
            return false;
        }
        let all = all.to_vec();
        (self.data, self.file, self.overlay) = (all, None, None);
        true
    }

    /// The vectors as a file: a header (magic, dim, count, `tag`) and the raw components. The tag
    /// ties the file to the index that names it. `None` when they are spliced from a file that
    /// could not be read whole (its zeros must not be saved as components).
    pub fn to_file_bytes(&self, tag: u64) -> Option<Vec<u8>> {
        let (body, ok) = self.read_whole();
        if !ok {
            return None;
        }
        let mut out = Vec::with_capacity(FILE_HEADER + body.len());
        out.extend_from_slice(FILE_MAGIC);
        out.extend_from_slice(&self.dim.to_le_bytes());
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(body);
        Some(out)
    }

    /// Opens a file written by [`Vectors::to_file_bytes`] (no symlink followed, a regular file
    /// of at most `limit` bytes) and checks its header and size without reading the components:
    /// [`Vectors::cosines`] streams them. `None` unless it holds exactly `count` entries of `dim`
    /// dimensions under `tag`. The opened file is what is read later, so a writer replacing
    /// `vectors.bin` meanwhile (a rename) does not change what this set holds.
    pub fn open(
        path: &std::path::Path,
        limit: u64,
        dim: usize,
        count: usize,
        tag: u64,
    ) -> Option<Vectors> {
        let (file, meta) =
            crate::fsutil::open_regular(path, limit, crate::fsutil::Follow::Never).ok()?;
        let mut header = [0u8; FILE_HEADER];
        read_at(&file, 0, &mut header).ok()?;
        let ok = file_fits(&header, meta.len(), dim, count, tag);
        ok.then(|| Vectors {
            dim: dim as u32,
            data: Vec::new(),
            file: Some(std::sync::Arc::new(Backing {
                file,
                count,
                whole: std::sync::OnceLock::new(),
                last: std::sync::Mutex::new(None),
            })),
            overlay: None,
        })
    }

    /// The size in bytes of the file these vectors are (or would be) stored in
    /// ([`Vectors::to_file_bytes`]): a header and every component.
    pub fn file_len(&self) -> u64 {
        (FILE_HEADER + self.len() * VIEWS * self.dim as usize) as u64
    }

    /// [`Vectors::cosine`] of the entries `docs` alone, in that order: the values
    /// [`Vectors::cosines`] gives them, but a file-backed set not read whole reads only these
    /// entries (one positioned read each). A failed read or a position past the end gives 0.
    pub fn cosines_of(&self, docs: &[usize], q: &[f32]) -> Vec<f32> {
        let (dim, qi) = (self.dim as usize, &QueryI16::new(q));
        let w = VIEWS * dim;
        let base = self.overlay.as_ref().map_or(self, |o| &o.base);
        let streamed = base
            .file
            .as_ref()
            .filter(|b| b.whole.get().is_none() && w > 0);
        let mut buf = vec![0u8; w];
        let mut of_base = |b: usize| match streamed {
            Some(f) if b < f.count => {
                let read = read_at(&f.file, (FILE_HEADER + b * w) as u64, &mut buf);
                read.map_or(0.0, |()| best_view(&buf, dim, qi))
            }
            None if b < base.len() => best_view(base.raw(b), dim, qi),
            _ => 0.0,
        };
        let new = |k: usize, o: &Overlay| best_view(&o.new[k * w..(k + 1) * w], dim, qi);
        docs.iter()
            .map(|&i| match &self.overlay {
                Some(o) => match o.slots.get(i) {
                    Some(Slot::Base(b)) => of_base(*b as usize),
                    Some(Slot::New(k)) => new(*k as usize, o),
                    None => 0.0,
                },
                None => of_base(i),
            })
            .collect()
    }

    /// Cosine between the unit query vector `q` and entry `i`: the best of its views
    /// (approximately, after quantisation; -1..1).
    pub fn cosine(&self, i: usize, q: &[f32]) -> f32 {
        best_view(self.raw(i), self.dim as usize, &QueryI16::new(q))
    }

    /// [`Vectors::cosine`] of every entry, in order (`len()` values). A file-backed set not
    /// read whole is streamed through a 64 KiB buffer; a read that fails gives cosine 0 for the
    /// entries it did not reach.
    pub fn cosines(&self, q: &[f32]) -> Vec<f32> {
        let dim = self.dim as usize;
        let w = VIEWS * dim;
        if let Some(o) = &self.overlay {
            // The base set's cosines (streamed), and the inserted entries' own.
            let base = o.base.cosines(q);
            let qi = &QueryI16::new(q);
            return o
                .slots
                .iter()
                .map(|s| match *s {
                    Slot::Base(b) => base.get(b as usize).copied().unwrap_or(0.0),
                    Slot::New(k) => {
                        best_view(&o.new[k as usize * w..(k as usize + 1) * w], dim, qi)
                    }
                })
                .collect();
        }
        let n = self.len();
        let backing = self.file.as_ref().filter(|b| b.whole.get().is_none());
        let Some(b) = backing.filter(|_| w > 0) else {
            let q = &QueryI16::new(q);
            return (0..n).map(|i| best_view(self.raw(i), dim, q)).collect();
        };
        let query = q;
        if let Ok(last) = b.last.lock() {
            if let Some((_, cosines)) = last.as_ref().filter(|(lq, _)| lq.as_slice() == query) {
                return cosines.clone();
            }
        }
        let q = &QueryI16::new(query);
        let mut out = Vec::with_capacity(n);
        let mut buf = vec![0u8; STREAM_ENTRIES.min(n) * w];
        while out.len() < n {
            let take = STREAM_ENTRIES.min(n - out.len());
            let at = (FILE_HEADER + out.len() * w) as u64;
            if read_at(&b.file, at, &mut buf[..take * w]).is_err() {
                out.resize(n, 0.0);
                break;
            }
            out.extend(
                buf[..take * w]
                    .chunks_exact(w)
                    .map(|e| best_view(e, dim, q)),
            );
        }
        if let Ok(mut last) = b.last.lock() {
            *last = Some((query.to_vec(), out.clone()));
        }
        out
    }
}

/// True when a vectors file of `size` bytes with this `header` (magic, dim, count, tag) holds
/// exactly `count` entries of `dim` dimensions under `tag`.
fn file_fits(header: &[u8; FILE_HEADER], size: u64, dim: usize, count: usize, tag: u64) -> bool {
    let u32_at = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().unwrap_or([0; 4]));
    let u64_at = |i: usize| u64::from_le_bytes(header[i..i + 8].try_into().unwrap_or([0; 8]));
    &header[..8] == FILE_MAGIC
        && u32_at(8) as usize == dim
        && u64_at(12) as usize == count
        && u64_at(20) == tag
        && count
            .checked_mul(VIEWS * dim)
            .and_then(|b| b.checked_add(FILE_HEADER))
            .is_some_and(|total| total as u64 == size)
}

/// A unit query vector with its components as `i16` (scaled by [`QUERY_QUANT`]): the dot
/// product with the int8 entry components is then integer arithmetic, which the compiler turns
/// into packed multiply-adds (`pmaddwd`, in SSE2) and which runs about twice as fast as
/// converting every entry component to `f32`. The rounding moves a cosine by at most
/// `dim / (2 · QUERY_QUANT)` (0.004 at 256 dimensions; in practice about 1e-4).
struct QueryI16(Vec<i16>);

/// Scale of a query component in [`QueryI16`].
const QUERY_QUANT: f32 = 32767.0;

impl QueryI16 {
    fn new(q: &[f32]) -> QueryI16 {
        QueryI16(
            q.iter()
                .map(|x| (x * QUERY_QUANT).round().clamp(-QUERY_QUANT, QUERY_QUANT) as i16)
                .collect(),
        )
    }
}

/// The best cosine of one entry's views (`VIEWS` rows of `dim` int8 components) with `q`.
fn best_view(entry: &[u8], dim: usize, q: &QueryI16) -> f32 {
    entry
        .chunks_exact(dim.max(1))
        .map(|row| dot_i8(row, &q.0) as f32 / (QUANT * QUERY_QUANT))
        .fold(f32::MIN, f32::max)
}

/// The dot product of int8 components (stored as bytes) with `q`, summed in 16 independent
/// `i32` lanes so the compiler can keep them in vector registers: this loop runs over every
/// entry's views on every search. No overflow: |sum| <= dim · 127 · 32767, under 2^31 for
/// `dim` up to 516.
fn dot_i8(row: &[u8], q: &[i16]) -> i32 {
    const LANES: usize = 16;
    let mut acc = [0i32; LANES];
    let rows = row.chunks_exact(LANES);
    let qs = q.chunks_exact(LANES);
    let tail: i32 = rows
        .remainder()
        .iter()
        .zip(qs.remainder())
        .map(|(&a, &b)| i32::from(a as i8) * i32::from(b))
        .sum();
    for (r, q) in rows.zip(qs) {
        for k in 0..LANES {
            acc[k] += i32::from(r[k] as i8) * i32::from(q[k]);
        }
    }
    acc.iter().sum::<i32>() + tail
}

/// Fills `buf` from `file` at byte `offset` (a positioned read: the file's own offset is not
/// used, so clones of a [`Vectors`] can read it independently).
///
/// Errors: the read fails or the file ends first.
fn read_at(file: &std::fs::File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek};
        let mut f = file;
        f.seek(std::io::SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

/// The quantised views of one entry, concatenated (for [`Vectors::push`]).
pub fn embed_entry(model: &Model, question: &str, details: &str) -> Vec<i8> {
    entry_texts(question, details)
        .iter()
        .flat_map(|t| quantise(&model.embed(t)))
        .collect()
}

/// A fused answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FusedHit {
    /// Doc number.
    pub doc: usize,
    /// Display score 0..=100: `100 · fused`.
    pub score: u8,
    /// `0.5 · bm25 / (best bm25 of the query) + 0.5 · cosine` (0..1).
    pub fused: f32,
    /// Cosine with the query (negative values count as 0).
    pub cosine: f32,
    /// Lexical coverage + cosine: the quantity the gate and the related threshold apply to.
    pub closeness: f32,
}

impl FusedHit {
    /// An exact re-ask of chart `doc`: the best possible hit (score 100).
    pub fn exact(doc: usize) -> FusedHit {
        FusedHit {
            doc,
            score: 100,
            fused: 1.0,
            cosine: 1.0,
            closeness: 2.0,
        }
    }
}

/// The ranked charts of one question (the fusion step's output).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranking {
    /// Charts past the ranking's own threshold, best first: the pool answers come from.
    pub passing: Vec<FusedHit>,
    /// Charts close enough to show on a miss (in fused mode, coverage + cosine ≥ `related_min`),
    /// best first by the same fused score; may repeat charts of `passing`.
    pub close: Vec<FusedHit>,
    /// Every chart the question touched at all (a shared term or a positive cosine), unordered:
    /// what [`shown`] picks from when the files' text is weighed in (empty with BM25 alone).
    pub pool: Vec<FusedHit>,
}

/// Weight of the files' text coverage in a chart's relevance ([`relevance`]): three quarters of the
/// chart's own words, so a question the chart's files answer but its words do not say still
/// counts, below one the chart says.
pub const TEXT_COVERAGE_WEIGHT: f32 = 0.75;

/// Weight of the files' text BM25 (as a share of the best chart's) in the order of the charts
/// shown on a miss, beside the fused score's 0.5 BM25 + 0.5 cosine: below either signal of the
/// chart's own words.
pub const TEXT_RANK_WEIGHT: f32 = 0.15;

/// How relevant a chart is to a question, for showing it on a miss: its closeness (coverage +
/// cosine) plus [`TEXT_COVERAGE_WEIGHT`] times the share of the question its files' text holds,
/// or its cosine alone scaled by `show_cosine` (a question in other words than the chart's may
/// share none of them and still mean the same), whichever is larger. Compared with the model's
/// `show`.
pub fn relevance(
    hit: &FusedHit,
    text: Option<&super::code_text::TextScore>,
    show_cosine: f32,
) -> f32 {
    let t = text.map_or(0.0, |t| t.coverage);
    (hit.closeness + TEXT_COVERAGE_WEIGHT * t).max(show_cosine * hit.cosine)
}

/// The charts to show on a miss: those of `ranking.pool` whose [`relevance`]
/// reaches the model's `show`, best first by fused score plus [`TEXT_RANK_WEIGHT`] times their
/// files' text rank. `text` is indexed by doc (`None`: no file text, the chart's words and the
/// cosine alone). With BM25 alone (an empty pool) this is `ranking.close`.
pub fn shown(
    ranking: &Ranking,
    text: Option<&[super::code_text::TextScore]>,
    thresholds: &crate::embed::Thresholds,
) -> Vec<FusedHit> {
    if ranking.pool.is_empty() {
        return ranking.close.clone();
    }
    let of = |doc: usize| text.and_then(|t| t.get(doc));
    let mut out: Vec<(f32, FusedHit)> = ranking
        .pool
        .iter()
        .filter(|h| relevance(h, of(h.doc), thresholds.show_cosine) >= thresholds.show)
        .map(|h| {
            (
                h.fused + TEXT_RANK_WEIGHT * of(h.doc).map_or(0.0, |t| t.rank),
                *h,
            )
        })
        .collect();
    out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.doc.cmp(&b.1.doc)));
    out.into_iter().map(|(_, h)| h).collect()
}

/// Ranks every entry by BM25 and cosine fused (module docs): the fusion step of
/// [`super::decide`]. `passing`: the entries whose coverage + cosine reaches the model's `gate`,
/// by fused score; `close`: those reaching `related_min`, by the same fused score (one order:
/// closeness only selects; ordering weak candidates by it put the right chart first for one
/// fewer of the 60 `para2` dev rewordings). `q` is the query's unit
/// vector. Docs with `ask.allowed(doc)` false are never returned.
pub fn rank(bm25: &Bm25Index, vectors: &Vectors, q: &[f32], ask: &Ask<'_>) -> Ranking {
    let thresholds = ask.thresholds;
    let n = vectors.len().min(bm25.len());
    let mut lexical: Vec<Option<Candidate>> = vec![None; n];
    for c in bm25.candidates(ask.query, &|d| ask.allowed(d)) {
        if c.doc < n {
            lexical[c.doc] = Some(c);
        }
    }
    let q_is_zero = q.iter().all(|v| *v == 0.0);
    let cosines = if q_is_zero {
        vec![0.0; n]
    } else {
        vectors.cosines(q)
    };
    // BM25 is scaled by the best lexical candidate, as in the probe's fused ranking
    // (reference/semantic-recall.md): the cosine half then weighs the same in every store.
    let max_bm25 = lexical
        .iter()
        .flatten()
        .map(|c| c.bm25)
        .fold(0.0f32, f32::max);
    let mut passing = Vec::new();
    let mut close = Vec::new();
    let mut pool = Vec::new();
    for (doc, lex) in lexical.iter().enumerate() {
        let cosine = cosines.get(doc).copied().unwrap_or(0.0).max(0.0);
        let (coverage, bm25_norm) = match lex {
            Some(c) if max_bm25 > 0.0 => (c.coverage, c.bm25 / max_bm25),
            Some(c) => (c.coverage, 0.0),
            None => (0.0, 0.0),
        };
        if lex.is_none() && (cosine <= 0.0 || !ask.allowed(doc)) {
            continue;
        }
        let fused = 0.5 * bm25_norm + 0.5 * cosine;
        let hit = FusedHit {
            doc,
            score: (100.0 * fused).round().clamp(1.0, 100.0) as u8,
            fused,
            cosine,
            closeness: coverage + cosine,
        };
        if hit.closeness >= thresholds.gate {
            passing.push(hit);
        }
        if hit.closeness >= thresholds.related_min {
            close.push(hit);
        }
        pool.push(hit);
    }
    passing.sort_by(|a, b| b.fused.total_cmp(&a.fused).then(a.doc.cmp(&b.doc)));
    close.sort_by(|a, b| b.fused.total_cmp(&a.fused).then(a.doc.cmp(&b.doc)));
    Ranking {
        passing,
        close,
        pool,
    }
}

/// Embeds every entry (question, details) with `model` into a [`Vectors`].
pub fn embed_all<'a, Q: AsRef<str>>(
    model: &Model,
    texts: impl Iterator<Item = (Q, &'a str)>,
) -> Vectors {
    let mut v = Vectors::new(model.dim());
    for (question, details) in texts {
        v.push(&embed_entry(model, question.as_ref(), details));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vectors file opened for streaming gives the cosines of the same vectors held in memory,
    /// across several stream buffers; opened whole on first other use, it is the same set; a
    /// file cut short after it was opened gives cosine 0 (never a panic).
    #[test]
    fn streamed_cosines_are_the_in_memory_ones() {
        let model = crate::embed::model().expect("this build embeds a model");
        let n = STREAM_ENTRIES * 2 + 7;
        let v = embed_all(
            model,
            (0..n).map(|i| {
                (
                    ["payment webhooks", "session cookie", "rate limit"][i % 3],
                    "",
                )
            }),
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.bin");
        std::fs::write(&path, v.to_file_bytes(9).unwrap()).unwrap();
        let q = model.embed("where are webhooks handled");
        let want: Vec<f32> = (0..n).map(|i| v.cosine(i, &q)).collect();
        let limit = 1 << 30;
        assert!(
            Vectors::open(&path, limit, model.dim(), n, 8).is_none(),
            "wrong tag"
        );
        assert!(
            Vectors::open(&path, limit, model.dim(), n + 1, 9).is_none(),
            "wrong count"
        );
        assert!(
            Vectors::open(&path, 100, model.dim(), n, 9).is_none(),
            "over the limit"
        );
        let opened = Vectors::open(&path, limit, model.dim(), n, 9).unwrap();
        assert_eq!(opened.len(), n);
        assert_eq!(opened.cosines(&q), want);
        assert_eq!(opened, v);
        assert_eq!(opened.cosines(&q), want, "read whole after the comparison");
        let cut = Vectors::open(&path, limit, model.dim(), n, 9).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(1000).unwrap();
        let got = cut.cosines(&q);
        assert_eq!(got.len(), n);
        assert!(got[STREAM_ENTRIES..].iter().all(|&c| c == 0.0));
    }

    #[test]
    fn quantised_cosine_is_close_to_the_exact_one() {
        let model = crate::embed::model().unwrap();
        let a = model.embed("where are payment webhooks handled");
        let b = model.embed("stripe event handler for billing");
        let mut v = Vectors::new(model.dim());
        v.push(&[quantise(&b), quantise(&b)].concat());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.bin");
        std::fs::write(&path, v.to_file_bytes(7).unwrap()).unwrap();
        assert_eq!(
            Vectors::open(&path, 1 << 20, model.dim(), 1, 7).as_ref(),
            Some(&v)
        );
        assert!(Vectors::open(&path, 1 << 20, model.dim(), 1, 8).is_none());
        let exact = crate::embed::cosine(&a, &b);
        assert!(
            (v.cosine(0, &a) - exact).abs() < 0.02,
            "{} vs {exact}",
            v.cosine(0, &a)
        );
    }
}
