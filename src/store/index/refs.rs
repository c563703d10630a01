//! Each entry's backing files, as the index stores them: flat columns (per entry the end of its
//! run, per backing file its path number and recorded SHA-256), decoded from `index.bin` without
//! a copy of the hashes and without an allocation per entry. A search reads the runs of the few
//! entries it returns; only writers and `prune` walk them all.

use crate::recall::blob::{SharedBlob, U32s};
use serde::de::Error as _;
use serde::{Deserialize, Serialize};

/// Per entry (in index order), its backing files: (position in the snapshot's `paths`,
/// recorded SHA-256), in the order the entry lists them (sorted by path).
///
/// As loaded or built, the runs are contiguous (`starts` is `None`). A [`Refs::splice`] keeps
/// the columns and only appends the inserted entries' runs (their hashes in `more_hashes`), so
/// splicing a few entries into a store of 10,000 copies no hash and allocates nothing per
/// entry; the columns are made contiguous again only when written (`Refs::flat`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Refs {
    /// End of each entry's run in `paths` (the last is `paths.len()` while contiguous).
    ends: Vec<u32>,
    /// Start of each entry's run in `paths`, once spliced (`None`: the previous entry's end).
    starts: Option<Vec<u32>>,
    /// Path number of each backing file (runs of entries removed by a splice stay, unused).
    paths: Vec<u32>,
    /// SHA-256 of each backing file, 32 bytes each, in the order of `paths`.
    hashes: SharedBlob,
    /// SHA-256 of the backing files past `hashes` (runs appended by [`Refs::splice`]).
    more_hashes: Vec<u8>,
}

impl PartialEq for Refs {
    /// Equal when every entry has the same run (however the columns are laid out).
    fn eq(&self, other: &Refs) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.of(i).eq(other.of(i)))
    }
}

impl Eq for Refs {}

impl Refs {
    /// Builds the columns from each entry's (path number, SHA-256) run.
    pub(crate) fn from_runs<R: IntoIterator<Item = (u32, [u8; 32])>>(
        runs: impl IntoIterator<Item = R>,
    ) -> Refs {
        let (mut ends, mut paths, mut hashes) = (Vec::new(), Vec::new(), Vec::new());
        for run in runs {
            for (p, h) in run {
                paths.push(p);
                hashes.extend_from_slice(&h);
            }
            ends.push(paths.len() as u32);
        }
        Refs {
            ends,
            starts: None,
            paths,
            hashes: hashes.into(),
            more_hashes: Vec::new(),
        }
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Where the run of entry `i` lies in `paths`: (start, end).
    fn span(&self, i: usize) -> (usize, usize) {
        let start = match &self.starts {
            Some(s) => s[i],
            None if i == 0 => 0,
            None => self.ends[i - 1],
        };
        (start as usize, self.ends[i] as usize)
    }

    /// The run of entry `i` (a position below [`Refs::len`]): its backing files as (path
    /// number, recorded SHA-256).
    pub(crate) fn of(&self, i: usize) -> impl ExactSizeIterator<Item = (u32, &[u8; 32])> + '_ {
        let (start, end) = self.span(i);
        // A run lies wholly in the loaded hashes or wholly in the appended ones.
        let base = self.hashes.0.len() / 32;
        let hashes = if end <= base {
            &self.hashes.0[start * 32..end * 32]
        } else {
            &self.more_hashes[(start - base) * 32..(end - base) * 32]
        };
        self.paths[start..end]
            .iter()
            .zip(hashes.chunks_exact(32))
            .map(|(&p, h)| (p, <&[u8; 32]>::try_from(h).unwrap_or(&[0; 32])))
    }

    /// Appends one run to the columns; returns where it lies (start, end).
    fn push_run(&mut self, run: Vec<(u32, [u8; 32])>) -> (usize, usize) {
        let start = self.paths.len();
        for (p, h) in run {
            self.paths.push(p);
            self.more_hashes.extend_from_slice(&h);
        }
        (start, self.paths.len())
    }

    /// These runs with every path number `p` renumbered to `renumber[p]` (`None`: kept), the entries at
    /// positions `kept` (ascending) kept in that order and the runs `new` put in so that run `k`
    /// lands at position `at[k]` (ascending; past the end: last, in order). Costs a pass over
    /// the path-number column and one over the entries; no hash is copied. A path number that
    /// `renumber` does not cover (only dropped runs have one) becomes 0.
    pub(crate) fn splice(
        mut self,
        renumber: Option<&[u32]>,
        kept: &[usize],
        new: Vec<Vec<(u32, [u8; 32])>>,
        at: &[usize],
    ) -> Refs {
        if let Some(renumber) = renumber {
            for p in &mut self.paths {
                *p = renumber.get(*p as usize).copied().unwrap_or(0);
            }
        }
        let n = kept.len() + new.len();
        let (mut starts, mut ends) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut kept = kept.iter();
        let mut new = new.into_iter().zip(at).peekable();
        while starts.len() < n {
            let (s, e) = match new.next_if(|&(_, &p)| p == starts.len()) {
                Some((run, _)) => self.push_run(run),
                None => match kept.next() {
                    Some(&i) => self.span(i),
                    None => {
                        let run = new.next().map(|(r, _)| r).unwrap_or_default();
                        self.push_run(run)
                    }
                },
            };
            starts.push(s as u32);
            ends.push(e as u32);
        }
        self.starts = Some(starts);
        self.ends = ends;
        self
    }

    /// These runs with contiguous columns (what is written): borrowed when they already are.
    fn flat(&self) -> std::borrow::Cow<'_, Refs> {
        if self.starts.is_none() && self.more_hashes.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let runs = (0..self.len()).map(|i| self.of(i).map(|(p, h)| (p, *h)).collect::<Vec<_>>());
        std::borrow::Cow::Owned(Refs::from_runs(runs))
    }

    /// True when every path number is below `n` (the number of paths the snapshot holds).
    pub(crate) fn paths_below(&self, n: usize) -> bool {
        self.paths.iter().all(|&p| (p as usize) < n)
    }
}

impl Serialize for Refs {
    /// Three byte strings: entry ends and path numbers (little-endian `u32`s), then the hashes.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let flat = self.flat();
        (
            U32s::le_bytes(&flat.ends),
            U32s::le_bytes(&flat.paths),
            &flat.hashes,
        )
            .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Refs {
    /// Errors: the columns do not fit together (ends not ascending or not ending at the number
    /// of paths, hashes not 32 bytes per path).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Refs, D::Error> {
        let (U32s(ends), U32s(paths), hashes) = <(U32s, U32s, SharedBlob)>::deserialize(d)?;
        let ascending = ends.windows(2).all(|w| w[0] <= w[1]);
        if !ascending
            || ends.last().map_or(0, |&e| e as usize) != paths.len()
            || hashes.0.len() != paths.len() * 32
        {
            return Err(D::Error::custom("inconsistent backing-file table"));
        }
        Ok(Refs {
            ends,
            starts: None,
            paths,
            hashes,
            more_hashes: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_round_trip_and_bad_tables_are_refused() {
        let runs = vec![
            vec![(0u32, [1u8; 32]), (2, [2; 32])],
            vec![],
            vec![(1, [3; 32])],
        ];
        let refs = Refs::from_runs(runs.clone());
        assert_eq!(refs.len(), 3);
        for (i, run) in runs.iter().enumerate() {
            let got: Vec<(u32, [u8; 32])> = refs.of(i).map(|(p, h)| (p, *h)).collect();
            assert_eq!(&got, run);
        }
        assert!(refs.paths_below(3) && !refs.paths_below(2));
        let bytes = bytes::Bytes::from(postcard::to_stdvec(&refs).unwrap());
        let back: Refs = crate::recall::blob::decode_shared(&bytes).unwrap();
        assert_eq!(back, refs);
        // Ends that go back, or hashes missing, are refused rather than indexed out of bounds.
        let bad = (
            U32s(vec![2, 1, 3]),
            U32s(vec![0, 1, 2]),
            SharedBlob::from(vec![0; 96]),
        );
        assert!(postcard::from_bytes::<Refs>(&postcard::to_stdvec(&bad).unwrap()).is_err());
        let bad = (
            U32s(vec![3]),
            U32s(vec![0, 1, 2]),
            SharedBlob::from(vec![0; 64]),
        );
        assert!(postcard::from_bytes::<Refs>(&postcard::to_stdvec(&bad).unwrap()).is_err());
    }

    /// A splice renumbers and reorders runs without copying the hashes; what it gives (and
    /// writes) is what building the columns from the resulting runs gives, splice after splice.
    #[test]
    fn a_splice_gives_what_building_from_the_runs_gives() {
        let h = |b: u8| [b; 32];
        let refs = Refs::from_runs(vec![
            vec![(0u32, h(1)), (2, h(2))],
            vec![(1, h(3))],
            vec![],
            vec![(2, h(4))],
        ]);
        // Path 1 dropped (only entry 1 used it), a new path lands between 0 and 2.
        let renumber = [0, 0, 2];
        let spliced = refs.clone().splice(
            Some(&renumber),
            &[0, 2, 3],
            vec![vec![(1, h(5))], vec![(0, h(6)), (2, h(7))]],
            &[0, 4],
        );
        let want = Refs::from_runs(vec![
            vec![(1, h(5))],
            vec![(0, h(1)), (2, h(2))],
            vec![],
            vec![(2, h(4))],
            vec![(0, h(6)), (2, h(7))],
        ]);
        assert_eq!(spliced, want);
        let bytes = |r: &Refs| postcard::to_stdvec(r).unwrap();
        assert_eq!(bytes(&spliced), bytes(&want));
        // Again, over the spliced columns: the first two entries go, one comes in between.
        let again = spliced.splice(None, &[2, 3, 4], vec![vec![(1, h(8))]], &[1]);
        let want = Refs::from_runs(vec![
            vec![],
            vec![(1, h(8))],
            vec![(2, h(4))],
            vec![(0, h(6)), (2, h(7))],
        ]);
        assert_eq!(again, want);
        assert_eq!(bytes(&again), bytes(&want));
    }
}
