//! Compact storage for the index: byte blobs serialised as one byte string (a `memcpy` to load, not
//! one serde call per element), `u32` arrays stored as little-endian bytes, and the LEB128 varints
//! the postings use.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Bytes serialised with `serialize_bytes` (postcard: a length, then the raw bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Blob(pub(crate) Vec<u8>);

impl Serialize for Blob {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

struct BlobVisitor;

impl<'de> Visitor<'de> for BlobVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        // Self-describing formats without a bytes type (JSON) write a sequence of numbers.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(b) = seq.next_element::<u8>()? {
            out.push(b);
        }
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Blob, D::Error> {
        d.deserialize_byte_buf(BlobVisitor).map(Blob)
    }
}

/// A `u32` array serialised as one byte string of little-endian words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct U32s(pub(crate) Vec<u32>);

impl Serialize for U32s {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = self.0.iter().flat_map(|v| v.to_le_bytes()).collect();
        s.serialize_bytes(&bytes)
    }
}

/// Reads a [`U32s`] straight from the serialised bytes (no intermediate byte vector).
struct U32sVisitor;

impl U32sVisitor {
    fn words<E: de::Error>(bytes: &[u8]) -> Result<Vec<u32>, E> {
        if bytes.len() % 4 != 0 {
            return Err(E::invalid_length(bytes.len(), &"a multiple of 4 bytes"));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

impl<'de> Visitor<'de> for U32sVisitor {
    type Value = Vec<u32>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string of little-endian u32 words")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u32>, E> {
        Self::words(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<u32>, A::Error> {
        Self::words(&BlobVisitor.visit_seq(seq)?)
    }
}

impl<'de> Deserialize<'de> for U32s {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<U32s, D::Error> {
        d.deserialize_bytes(U32sVisitor).map(U32s)
    }
}

/// Appends `v` as an unsigned LEB128 varint (7 bits a byte, low bits first).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*pos`, advancing it; `None` when truncated or longer than a `u32`.
pub(crate) fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= u32::from(b & 0x7F).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let values = [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX];
        let mut buf = Vec::new();
        for &v in &values {
            put_varint(&mut buf, v);
        }
        let mut pos = 0;
        for &v in &values {
            assert_eq!(get_varint(&buf, &mut pos), Some(v));
        }
        assert_eq!(pos, buf.len());
        assert_eq!(get_varint(&buf, &mut pos), None);
        assert_eq!(get_varint(&[0x80, 0x80], &mut 0), None);
    }

    #[test]
    fn blobs_round_trip_through_postcard_and_json() {
        let blob = Blob(vec![0, 1, 2, 255]);
        let words = U32s(vec![0, 7, u32::MAX]);
        let bytes = postcard::to_stdvec(&(&blob, &words)).unwrap();
        let back: (Blob, U32s) = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, (blob.clone(), words.clone()));
        let json = serde_json::to_string(&(&blob, &words)).unwrap();
        let back: (Blob, U32s) = serde_json::from_str(&json).unwrap();
        assert_eq!(back, (blob, words));
    }

    #[test]
    fn u32s_reject_a_ragged_length() {
        let bytes = postcard::to_stdvec(&Blob(vec![1, 2, 3])).unwrap();
        assert!(postcard::from_bytes::<U32s>(&bytes).is_err());
    }
}
