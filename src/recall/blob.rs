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

/// Bytes serialised like [`Blob`] but, when decoded by [`decode_shared`], not copied: a view
/// into the buffer the file was read into, which stays alive as long as a view of it does. For
/// the large columns a search reads only a little of (postings, backing-file hashes, the entry
/// listing): copying them on every load cost a fresh page per 4 KiB (at 10,000 charts, 3 MB).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SharedBlob(pub(crate) bytes::Bytes);

impl Serialize for SharedBlob {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl From<Vec<u8>> for SharedBlob {
    fn from(v: Vec<u8>) -> SharedBlob {
        SharedBlob(bytes::Bytes::from(v))
    }
}

thread_local! {
    /// The buffer [`decode_shared`] is decoding on this thread, if any.
    static SOURCE: std::cell::RefCell<Option<bytes::Bytes>> = const { std::cell::RefCell::new(None) };
}

/// Decodes postcard `bytes` into `T`, its [`SharedBlob`]s as views into `bytes` (no copy);
/// `None` when they do not decode.
pub(crate) fn decode_shared<T: serde::de::DeserializeOwned>(bytes: &bytes::Bytes) -> Option<T> {
    /// Clears the source however decoding ends.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            SOURCE.with(|s| s.borrow_mut().take());
        }
    }
    SOURCE.with(|s| *s.borrow_mut() = Some(bytes.clone()));
    let _reset = Reset;
    postcard::from_bytes(bytes).ok()
}

struct SharedVisitor;

impl<'de> Visitor<'de> for SharedVisitor {
    type Value = bytes::Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<bytes::Bytes, E> {
        // A view when `v` lies inside the buffer being decoded (pointer range check), else a copy.
        let view = SOURCE.with(|s| {
            let s = s.borrow();
            let src = s.as_ref()?;
            let (lo, hi) = (src.as_ptr() as usize, src.as_ptr() as usize + src.len());
            let (start, end) = (v.as_ptr() as usize, v.as_ptr() as usize + v.len());
            (lo <= start && end <= hi).then(|| src.slice(start - lo..end - lo))
        });
        Ok(view.unwrap_or_else(|| bytes::Bytes::copy_from_slice(v)))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<bytes::Bytes, E> {
        Ok(bytes::Bytes::from(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bytes::Bytes, A::Error> {
        BlobVisitor.visit_seq(seq).map(bytes::Bytes::from)
    }
}

impl<'de> Deserialize<'de> for SharedBlob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SharedBlob, D::Error> {
        d.deserialize_bytes(SharedVisitor).map(SharedBlob)
    }
}

/// A `u32` array serialised as one byte string of little-endian words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct U32s(pub(crate) Vec<u32>);

impl U32s {
    /// `words` serialised as a [`U32s`] would be, without owning them.
    pub(crate) fn le_bytes(words: &[u32]) -> Blob {
        Blob(words.iter().flat_map(|v| v.to_le_bytes()).collect())
    }
}

impl Serialize for U32s {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        U32s::le_bytes(&self.0).serialize(s)
    }
}

/// Reads a [`U32s`] straight from the serialised bytes (no intermediate byte vector).
struct U32sVisitor;

impl U32sVisitor {
    fn words<E: de::Error>(bytes: &[u8]) -> Result<Vec<u32>, E> {
        if !bytes.len().is_multiple_of(4) {
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

    /// Decoded by `decode_shared`, a shared blob is a view into the decoded buffer; decoded
    /// otherwise (plain postcard, JSON), a copy with the same bytes.
    #[test]
    fn shared_blobs_are_views_into_the_decoded_buffer() {
        let value = (7u32, SharedBlob::from(vec![1, 2, 3, 4]), U32s(vec![9, 10]));
        let buf = bytes::Bytes::from(postcard::to_stdvec(&value).unwrap());
        let back: (u32, SharedBlob, U32s) = decode_shared(&buf).unwrap();
        assert_eq!(back, value);
        let (lo, hi) = (buf.as_ptr() as usize, buf.as_ptr() as usize + buf.len());
        let at = back.1 .0.as_ptr() as usize;
        assert!(lo <= at && at < hi, "a view, not a copy");
        let copied: (u32, SharedBlob, U32s) = postcard::from_bytes(&buf).unwrap();
        assert_eq!(copied, value);
        let json = serde_json::to_string(&value).unwrap();
        assert_eq!(
            serde_json::from_str::<(u32, SharedBlob, U32s)>(&json).unwrap(),
            value
        );
        assert!(decode_shared::<(u32, SharedBlob, U32s)>(&buf.slice(..3)).is_none());
    }

    #[test]
    fn u32s_reject_a_ragged_length() {
        let bytes = postcard::to_stdvec(&Blob(vec![1, 2, 3])).unwrap();
        assert!(postcard::from_bytes::<U32s>(&bytes).is_err());
    }
}
