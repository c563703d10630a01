//! The stat cache's layout on disk (`.capn/stat.bin`): one column per field, looked up in place
//! ([`CacheFile`]), and the record kept per backing file ([`Cached`], [`Stamp`]).

use crate::recall::blob::{Blob, U32s};
use serde::{Deserialize, Serialize};

/// Version of the stat cache layout; a mismatch discards the cache.
pub(super) const CACHE_VERSION: u32 = 4;

/// Metadata that identifies one version of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Stamp {
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    pub(super) ctime_ns: i64,
    pub(super) ino: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
/// One backing file as last hashed.
pub(super) struct Cached {
    pub(super) stamp: Stamp,
    pub(super) hash: [u8; 32],
    /// When the hash was computed (Unix ns).
    pub(super) hashed_at_ns: i64,
    /// The hashes of the same content with every CRLF as LF and with every line end as CRLF
    /// ([`super::line_end_hashes`]), once a comparison needed them.
    pub(super) alts: Option<[[u8; 32]; 2]>,
}

/// The stat cache on disk, column by column: the keys (sorted by bytes, concatenated, with
/// their end offsets), then per key five little-endian 64-bit numbers (size, mtime ns, ctime ns,
/// inode, hashed-at ns) in one byte string, the 32-byte hashes in another and the two line-end
/// hashes (64 bytes, all zero when not computed) in a third. Loading it is a
/// few copies whatever its size; a lookup is a binary search over the keys, so a reader that
/// checks a handful of files never decodes the rest.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct CacheFile {
    version: u32,
    keys: Blob,
    key_ends: U32s,
    numbers: Blob,
    hashes: Blob,
    alts: Blob,
}

impl CacheFile {
    /// `files`, sorted by key.
    pub(super) fn encode<'a>(files: impl Iterator<Item = (&'a str, &'a Cached)>) -> CacheFile {
        let mut f = CacheFile {
            version: CACHE_VERSION,
            ..CacheFile::default()
        };
        for (k, c) in files {
            f.keys.0.extend_from_slice(k.as_bytes());
            f.key_ends.0.push(f.keys.0.len() as u32);
            for n in [
                c.stamp.size,
                c.stamp.mtime_ns as u64,
                c.stamp.ctime_ns as u64,
                c.stamp.ino,
                c.hashed_at_ns as u64,
            ] {
                f.numbers.0.extend_from_slice(&n.to_le_bytes());
            }
            f.hashes.0.extend_from_slice(&c.hash);
            match &c.alts {
                Some([lf, crlf]) => {
                    f.alts.0.extend_from_slice(lf);
                    f.alts.0.extend_from_slice(crlf);
                }
                None => f.alts.0.extend_from_slice(&[0u8; 64]),
            }
        }
        f
    }

    /// True when the columns fit together (a file that does not is discarded; keys out of order
    /// only make lookups miss, which re-hashes).
    pub(super) fn is_valid(&self) -> bool {
        let n = self.key_ends.0.len();
        self.version == CACHE_VERSION
            && self.numbers.0.len() == n * 40
            && self.hashes.0.len() == n * 32
            && self.alts.0.len() == n * 64
            && self.key_ends.0.windows(2).all(|w| w[0] <= w[1])
            && self.key_ends.0.last().map_or(0, |&e| e as usize) == self.keys.0.len()
    }

    pub(super) fn len(&self) -> usize {
        self.key_ends.0.len()
    }

    pub(super) fn key(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            self.key_ends.0[i - 1] as usize
        };
        &self.keys.0[start..self.key_ends.0[i] as usize]
    }

    pub(super) fn cached(&self, i: usize) -> Cached {
        let num = |j: usize| {
            let at = i * 40 + j * 8;
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.numbers.0[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let mut hash = [0u8; 32];
        hash.copy_from_slice(&self.hashes.0[i * 32..i * 32 + 32]);
        let mut lf = [0u8; 32];
        let mut crlf = [0u8; 32];
        lf.copy_from_slice(&self.alts.0[i * 64..i * 64 + 32]);
        crlf.copy_from_slice(&self.alts.0[i * 64 + 32..i * 64 + 64]);
        let alts = (lf != [0u8; 32]).then_some([lf, crlf]);
        Cached {
            alts,
            stamp: Stamp {
                size: num(0),
                mtime_ns: num(1) as i64,
                ctime_ns: num(2) as i64,
                ino: num(3),
            },
            hash,
            hashed_at_ns: num(4) as i64,
        }
    }

    pub(super) fn find(&self, key: &str) -> Option<Cached> {
        let mut lo = 0;
        let mut hi = self.len();
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.key(mid).cmp(key.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.cached(mid)),
            }
        }
        None
    }
}
