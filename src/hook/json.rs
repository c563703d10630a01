//! Lenient JSON for what hosts write: their stdin payloads and transcript lines.
//!
//! serde_json is strict where hosts are not: a UTF-8 byte-order mark before the value, a lone
//! UTF-16 surrogate escape (`"\ud83d"`, a string cut inside an emoji), an invalid escape, a raw
//! control character or invalid UTF-8 inside a string each make the whole value fail, and with it
//! the numbers capn needs (context use, session id). [`parse_value`] and [`from_slice`] first try
//! the bytes as they are (the fast, usual case), then once more after [`repair`], which changes
//! only the offending characters inside strings.

use serde::de::DeserializeOwned;
use std::borrow::Cow;

/// `bytes` without a leading UTF-8 byte-order mark (and the white space before it).
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    bytes[start..]
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(bytes)
}

/// Parses one JSON value into `T` (a BOM allowed; repaired as the module docs say when the
/// bytes as they are do not parse; a key given twice takes its last value). `None` when even the
/// repaired bytes do not parse.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    let bytes = strip_bom(bytes);
    if let Ok(v) = serde_json::from_slice(bytes) {
        return Some(v);
    }
    let fixed = repair(bytes);
    if let Ok(v) = serde_json::from_slice(&fixed) {
        return Some(v);
    }
    // A key given twice makes typed structs fail ("duplicate field"); as a JSON value the last
    // one wins, as in JavaScript's JSON.parse, which is what the hosts themselves do.
    let value: serde_json::Value = serde_json::from_slice(&fixed).ok()?;
    serde_json::from_value(value).ok()
}

/// [`from_slice`] into an ignored value: `Some(())` when `bytes` hold one JSON value.
pub fn parse_value(bytes: &[u8]) -> Option<()> {
    from_slice::<serde::de::IgnoredAny>(bytes).map(|_| ())
}

/// Rewrites what serde_json rejects inside JSON strings, leaving everything else byte for byte:
/// a lone surrogate escape becomes `\ufffd`, an invalid escape `\x` becomes `\\x` (the
/// backslash kept as a character), a raw control character becomes its `\u00XX` escape, and
/// invalid UTF-8 becomes U+FFFD. Borrowed when there was nothing to change.
pub fn repair(bytes: &[u8]) -> Cow<'_, [u8]> {
    let text = String::from_utf8_lossy(bytes);
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len() + 16);
    let mut changed = matches!(text, Cow::Owned(_));
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !in_string {
            in_string = c == b'"';
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = false;
                out.push(c);
                i += 1;
            }
            b'\\' => {
                let (piece, used, fixed) = escape_at(&b[i..]);
                out.extend_from_slice(&piece);
                changed |= fixed;
                i += used;
            }
            c if c < 0x20 => {
                out.extend_from_slice(format!("\\u{c:04x}").as_bytes());
                changed = true;
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(bytes)
    }
}

/// The four hex digits after `\u` at the start of `s`, as a number.
fn hex4(s: &[u8]) -> Option<u16> {
    let h = s.get(2..6)?;
    if s.get(..2)? != b"\\u" {
        return None;
    }
    u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
}

/// The escape at the start of `s` (which starts with a backslash): what to write, how many
/// bytes it consumed, and whether it had to be changed.
fn escape_at(s: &[u8]) -> (Cow<'static, [u8]>, usize, bool) {
    match s.get(1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
            (Cow::Owned(s[..2].to_vec()), 2, false)
        }
        Some(b'u') => match hex4(s) {
            Some(hi @ 0xD800..=0xDBFF) => match hex4(&s[6..]) {
                Some(0xDC00..=0xDFFF) => (Cow::Owned(s[..12].to_vec()), 12, false),
                _ => {
                    let _ = hi;
                    (Cow::Borrowed(b"\\ufffd"), 6, true)
                }
            },
            Some(0xDC00..=0xDFFF) => (Cow::Borrowed(b"\\ufffd"), 6, true),
            Some(_) => (Cow::Owned(s[..6].to_vec()), 6, false),
            None => (Cow::Borrowed(b"\\\\"), 1, true),
        },
        // An invalid escape, or a backslash at the very end: keep the backslash as a character.
        _ => (Cow::Borrowed(b"\\\\"), 1, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn a_lone_surrogate_keeps_the_rest_of_the_value() {
        let line = br#"{"text":"cut \ud83d","usage":{"input_tokens":130000}}"#;
        assert!(serde_json::from_slice::<Value>(line).is_err());
        let v: Value = from_slice(line).unwrap();
        assert_eq!(v["usage"]["input_tokens"], 130000);
        assert_eq!(v["text"], "cut \u{fffd}");
    }

    #[test]
    fn a_duplicate_key_takes_its_last_value() {
        #[derive(serde::Deserialize)]
        struct P {
            session_id: String,
        }
        let p: P = from_slice(br#"{"session_id":"a","session_id":"b"}"#).unwrap();
        assert_eq!(p.session_id, "b");
    }

    #[test]
    fn pairs_escapes_and_bom_are_kept_or_fixed() {
        let v: Value = from_slice(b"\xef\xbb\xbf{\"a\":\"\\ud83d\\ude00 \\q \\udc00\"}").unwrap();
        assert_eq!(v["a"], "\u{1f600} \\q \u{fffd}");
        let v: Value = from_slice(b"{\"a\":\"tab\there\", \"b\":\"\xff\"}").unwrap();
        assert_eq!(v["a"], "tab\there");
        assert_eq!(v["b"], "\u{fffd}");
        assert!(matches!(repair(br#"{"ok":"\n\u00e9"}"#), Cow::Borrowed(_)));
        assert!(from_slice::<Value>(b"{\"a\":").is_none());
    }
}
