//! Lowercase hexadecimal, as capn writes digests (SHA-256, HMAC-SHA256) in its files.

/// Lowercase hex of bytes (a table look-up per nibble), two digits per byte.
pub(crate) fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// Decodes exactly 64 hex digits (either case) into 32 bytes; `None` for any other text.
pub(crate) fn decode32(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, chunk) in s.as_bytes().chunks(2).enumerate() {
        let hi = char::from(chunk[0]).to_digit(16)?;
        let lo = char::from(chunk[1]).to_digit(16)?;
        out[i] = u8::try_from(hi * 16 + lo).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_and_decode_round_trip() {
        let bytes: [u8; 32] = std::array::from_fn(|i| (i * 37) as u8);
        let text = encode(&bytes);
        assert_eq!(text.len(), 64);
        assert_eq!(&text[..6], "00254a");
        assert_eq!(decode32(&text), Some(bytes));
        assert_eq!(decode32(&text.to_uppercase()), Some(bytes));
        assert_eq!(decode32(&text[..62]), None);
        assert_eq!(decode32(&format!("{}zz", &text[..62])), None);
        assert_eq!(decode32(&"é".repeat(32)), None);
    }
}
