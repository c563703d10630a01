//! Each entry's backing files, as the index stores them: flat columns (per entry the end of its
//! run, per backing file its path number and recorded SHA-256), decoded from `index.bin` without
//! a copy of the hashes and without an allocation per entry. A search reads the runs of the few
//! entries it returns; only writers and `prune` walk them all.

use crate::recall::blob::{SharedBlob, U32s};
use serde::de::Error as _;
use serde::{Deserialize, Serialize};

/// Per entry (in index order), its backing files: (position in the snapshot's `paths`,
/// recorded SHA-256), in the order the entry lists them (sorted by path).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refs {
    /// End of each entry's run in `paths` (ascending; the last is `paths.len()`).
    ends: Vec<u32>,
    /// Path number of each backing file.
    paths: Vec<u32>,
    /// SHA-256 of each backing file, 32 bytes each, in the order of `paths`.
    hashes: SharedBlob,
}

impl Refs {
    /// Builds the columns from each entry's (path number, SHA-256) run.
    pub fn from_runs<R: IntoIterator<Item = (u32, [u8; 32])>>(
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
            paths,
            hashes: hashes.into(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The run of entry `i` (a position below [`Refs::len`]): its backing files as (path
    /// number, recorded SHA-256).
    pub fn of(&self, i: usize) -> impl ExactSizeIterator<Item = (u32, &[u8; 32])> + '_ {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        let end = self.ends[i] as usize;
        self.paths[start..end]
            .iter()
            .zip(self.hashes.0[start * 32..end * 32].chunks_exact(32))
            .map(|(&p, h)| (p, <&[u8; 32]>::try_from(h).unwrap_or(&[0; 32])))
    }

    /// True when every path number is below `n` (the number of paths the snapshot holds).
    pub fn paths_below(&self, n: usize) -> bool {
        self.paths.iter().all(|&p| (p as usize) < n)
    }
}

impl Serialize for Refs {
    /// Three byte strings: entry ends and path numbers (little-endian `u32`s), then the hashes.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (
            U32s::le_bytes(&self.ends),
            U32s::le_bytes(&self.paths),
            &self.hashes,
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
            paths,
            hashes,
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
}
