//! FNV-1a 64 (Fowler–Noll–Vo, the 64-bit offset basis and prime of the reference
//! description): the one non-cryptographic hash capn uses for signatures and keys that only
//! have to notice a change or spread table slots (never where an attacker gains from a
//! collision: every such use confirms against the real data).

/// The FNV-1a 64 offset basis: the hash of no bytes.
pub(crate) const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV 64 prime.
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// `h` continued over `bytes` (start from [`OFFSET`]).
pub(crate) fn extend(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    /// The reference test vectors of FNV-1a 64.
    #[test]
    fn matches_the_reference_vectors() {
        assert_eq!(super::extend(super::OFFSET, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::extend(super::OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            super::extend(super::OFFSET, b"foobar"),
            0x8594_4171_f739_67e8
        );
    }
}
