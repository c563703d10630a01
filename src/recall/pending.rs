//! A splice of the BM25 index kept beside the stored layout instead of written into it
//! ([`Bm25Index::splice`]): the stored doc numbers' new numbers, the inserted docs' postings and
//! every doc's field lengths. Searching merges the two per query term, which costs what the
//! query's postings cost; re-encoding every posting (what a store of 10,000 charts spent on each
//! `chart`) happens only when the index is serialised ([`Bm25Index::stored`]).

use super::build::{analyse, assemble, field_scales, Posted, Runs};
use super::{Bm25Index, Doc, RawIndex};
use std::sync::Arc;

/// A stored doc that a splice removed.
const GONE: u32 = u32::MAX;

/// The splices applied since the stored layout: see the module docs.
#[derive(Debug)]
pub(super) struct Pending {
    /// Docs after the splices.
    n: u32,
    /// Per stored doc, its number now ([`GONE`]: removed); ascending over the kept ones.
    old_to_new: Vec<u32>,
    /// The inserted docs' postings: per term (sorted by bytes), in doc order, numbered now.
    runs: Runs,
    /// Per doc (numbered now), the length in terms of each field.
    lens: Vec<[u32; 3]>,
}

/// A term of the (spliced) index: its number in the stored dictionary, or its postings merged.
pub(super) enum TermRef {
    Stored(usize),
    Merged(Vec<Posted>),
}

/// Postings of a [`TermRef`], in doc order.
pub(super) enum PostingsIter<'a, S: Iterator<Item = Posted>> {
    Stored(S),
    Merged(std::slice::Iter<'a, Posted>),
}

impl<S: Iterator<Item = Posted>> Iterator for PostingsIter<'_, S> {
    type Item = Posted;

    fn next(&mut self) -> Option<Posted> {
        match self {
            PostingsIter::Stored(s) => s.next(),
            PostingsIter::Merged(m) => m.next().copied(),
        }
    }
}

/// `a` and `b` (each sorted by term) merged: a term in both gets both runs, in doc order.
fn merge_runs(a: Runs, b: Runs) -> Runs {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut b = b.into_iter().peekable();
    for (term, mut run) in a {
        while let Some(x) = b.next_if(|(t, _)| *t < term) {
            out.push(x);
        }
        if let Some((_, extra)) = b.next_if(|(t, _)| *t == term) {
            run.extend(extra);
            run.sort_unstable_by_key(|&(d, _)| d);
        }
        out.push((term, run));
    }
    out.extend(b);
    out
}

impl Bm25Index {
    /// This index with the docs at positions `remove` (ascending) taken out and `insert` put in,
    /// each at the doc number it gets in the result (ascending): the same index as a build over
    /// the resulting docs (searches give the same results; `Bm25Index::stored` is the same
    /// layout), for the cost of tokenising only the new ones. The stored layout is shared, not
    /// rewritten: the change is kept beside it (`Pending`).
    ///
    /// Errors: a position is out of range, out of order, or the numbering has gaps.
    pub fn splice(
        &self,
        remove: &[usize],
        insert: &[(usize, Doc<'_>)],
    ) -> Result<Bm25Index, String> {
        let n_old = self.len();
        let n_new = n_old + insert.len() - remove.len().min(n_old);
        let bad = remove.windows(2).any(|w| w[0] >= w[1])
            || remove.last().is_some_and(|&r| r >= n_old)
            || insert.windows(2).any(|w| w[0].0 >= w[1].0)
            || insert.last().is_some_and(|&(p, _)| p >= n_new);
        if bad {
            return Err("splice positions out of order or range".into());
        }
        // Doc number before this splice -> after it (GONE: removed), skipping inserted numbers.
        let mut mid_to_new = vec![GONE; n_old];
        let (mut next, mut ins, mut rem) = (0usize, 0usize, 0usize);
        for (old, slot) in mid_to_new.iter_mut().enumerate() {
            if remove.get(rem) == Some(&old) {
                rem += 1;
                continue;
            }
            while insert.get(ins).is_some_and(|&(p, _)| p == next) {
                ins += 1;
                next += 1;
            }
            *slot = next as u32;
            next += 1;
        }
        let mut lens = vec![[0u32; 3]; n_new];
        for (old, &new) in mid_to_new.iter().enumerate() {
            if new != GONE {
                lens[new as usize] = self.doc_lens(old);
            }
        }
        let (new_runs, new_lens) = analyse(insert.iter().map(|(p, d)| (*p as u32, d)));
        for (d, l) in new_lens {
            lens[d as usize] = l;
        }
        let renumber = |d: u32| mid_to_new.get(d as usize).copied().unwrap_or(GONE);
        let (old_to_new, old_runs) = match &self.pending {
            Some(p) => {
                let runs: Runs = p
                    .runs
                    .iter()
                    .map(|(t, r)| {
                        let r: Vec<Posted> = r
                            .iter()
                            .map(|&(d, tf)| (renumber(d), tf))
                            .filter(|&(d, _)| d != GONE)
                            .collect();
                        (t.clone(), r)
                    })
                    .filter(|(_, r)| !r.is_empty())
                    .collect();
                let map = p
                    .old_to_new
                    .iter()
                    .map(|&m| if m == GONE { GONE } else { renumber(m) });
                (map.collect(), runs)
            }
            None => ((0..n_old as u32).map(renumber).collect(), Vec::new()),
        };
        let pending = Pending {
            n: n_new as u32,
            old_to_new,
            runs: merge_runs(old_runs, new_runs),
            lens,
        };
        Ok(Bm25Index {
            raw: Arc::clone(&self.raw),
            params: self.params,
            scales: field_scales(&pending.lens, &self.params),
            pending: Some(Arc::new(pending)),
        })
    }

    /// The stored layout of this index: the one it was loaded or built with, or, after a
    /// [`Bm25Index::splice`], the layout a build over the resulting docs gives (every posting
    /// re-encoded: what writing the index costs).
    pub(super) fn stored(&self) -> std::borrow::Cow<'_, RawIndex> {
        let Some(p) = &self.pending else {
            return std::borrow::Cow::Borrowed(&self.raw);
        };
        let mut merged: Vec<(&str, Vec<Posted>)> = Vec::new();
        let mut extra = p.runs.iter().peekable();
        for t in 0..self.raw.term_ends.0.len() {
            let term = self.stored_term(t);
            while let Some((nt, run)) = extra.next_if(|(nt, _)| nt.as_str() < term) {
                merged.push((nt.as_str(), run.clone()));
            }
            let mut run: Vec<Posted> = self.renumbered(p, t).collect();
            if let Some((_, more)) = extra.next_if(|(nt, _)| nt.as_str() == term) {
                run.extend_from_slice(more);
                run.sort_unstable_by_key(|&(d, _)| d);
            }
            merged.push((term, run));
        }
        merged.extend(extra.map(|(t, r)| (t.as_str(), r.clone())));
        std::borrow::Cow::Owned(assemble(
            p.n,
            p.lens.clone(),
            merged.iter().map(|(t, r)| (*t, r.as_slice())),
        ))
    }

    /// The stored postings of stored term `t`, numbered as after the splices `p`.
    fn renumbered<'a>(&'a self, p: &'a Pending, t: usize) -> impl Iterator<Item = Posted> + 'a {
        self.stored_postings(t).filter_map(|(d, tf)| {
            let n = *p.old_to_new.get(d as usize)?;
            (n != GONE).then_some((n, tf))
        })
    }

    /// The docs now (after any splice).
    pub(super) fn doc_count(&self) -> u32 {
        self.pending.as_ref().map_or(self.raw.n_docs, |p| p.n)
    }

    /// The field lengths of doc `d` now (zeros when out of range).
    pub(super) fn doc_lens(&self, d: usize) -> [u32; 3] {
        if let Some(p) = &self.pending {
            return p.lens.get(d).copied().unwrap_or([0; 3]);
        }
        self.raw
            .lens
            .0
            .get(3 * d..3 * d + 3)
            .map_or([0; 3], |c| [c[0], c[1], c[2]])
    }

    /// The term `term` when some doc holds it now.
    pub(super) fn lookup(&self, term: &str) -> Option<TermRef> {
        let stored = self.stored_lookup(term);
        let Some(p) = &self.pending else {
            return stored.map(TermRef::Stored);
        };
        let mut run: Vec<Posted> = stored
            .map(|t| self.renumbered(p, t).collect())
            .unwrap_or_default();
        if let Ok(i) = p.runs.binary_search_by(|(t, _)| t.as_str().cmp(term)) {
            run.extend_from_slice(&p.runs[i].1);
            run.sort_unstable_by_key(|&(d, _)| d);
        }
        (!run.is_empty()).then_some(TermRef::Merged(run))
    }

    /// How many docs hold the term `t`.
    pub(super) fn df_of(&self, t: &TermRef) -> u32 {
        match t {
            TermRef::Stored(i) => self.raw.df.0[*i],
            TermRef::Merged(run) => run.len() as u32,
        }
    }

    /// The postings of the term `t`: (doc, term frequency per field), in doc order.
    pub(super) fn postings<'a>(
        &'a self,
        t: &'a TermRef,
    ) -> PostingsIter<'a, impl Iterator<Item = Posted> + 'a> {
        match t {
            TermRef::Stored(i) => PostingsIter::Stored(self.stored_postings(*i)),
            TermRef::Merged(run) => PostingsIter::Merged(run.iter()),
        }
    }
}
