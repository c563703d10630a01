//! Lenient JSON for what hosts write: their stdin payloads and transcript lines.
//!
//! serde_json is strict where hosts are not: a UTF-8 byte-order mark before the value, a lone
//! UTF-16 surrogate escape (`"\ud83d"`, a string cut inside an emoji), an invalid escape, a raw
//! control character or invalid UTF-8 inside a string each make the whole value fail, and with it
//! the numbers capn needs (context use, session id). [`from_slice`] first tries
//! the bytes as they are (the fast, usual case), then once more after [`repair`], which changes
//! only the offending characters inside strings.

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

/// The most bytes of a string (or object key) a [`Bounded`] value keeps (cut on a character
/// boundary): the most any hook field needs (`crate::hook::call::MAX_PROMPT_BYTES`,
/// `MAX_FIELD_BYTES`), and more than `MAX_PATH_BYTES`, so a longer path stays too long.
pub(crate) const MAX_STRING_BYTES: usize = 8192;

/// The most items of an array (members of an object) a [`Bounded`] value keeps.
pub(crate) const MAX_ITEMS: usize = 256;

/// The deepest nesting a [`Bounded`] value keeps; deeper containers read as empty.
pub(crate) const MAX_DEPTH: usize = 16;

/// The most values (scalars and containers) one [`Bounded`] value keeps in all; the rest is
/// skipped.
pub(crate) const MAX_NODES: usize = 4096;

/// A JSON value bounded while it is parsed: strings cut to [`MAX_STRING_BYTES`],
/// arrays and objects to [`MAX_ITEMS`], nesting to [`MAX_DEPTH`], the whole to [`MAX_NODES`].
/// What is not kept is skipped with [`IgnoredAny`], so a 16 MB array costs one scan of its bytes
/// and no memory (the full `serde_json::Value` of one took 1.1 GB).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bounded(pub Value);

impl<'de> Deserialize<'de> for Bounded {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bounded, D::Error> {
        let budget = Cell::new(MAX_NODES);
        Seed {
            budget: &budget,
            depth: 0,
        }
        .deserialize(d)
        .map(Bounded)
    }
}

/// One level of a [`Bounded`] parse: the nodes left to keep and the current depth.
#[derive(Clone, Copy)]
struct Seed<'a> {
    budget: &'a Cell<usize>,
    depth: usize,
}

impl Seed<'_> {
    /// Takes one node from the budget; false when none is left.
    fn take(&self) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(1));
        left > 0
    }

    fn inner(&self) -> Self {
        Seed {
            budget: self.budget,
            depth: self.depth + 1,
        }
    }

    /// True when a container at this depth keeps no items.
    fn too_deep(&self) -> bool {
        self.depth >= MAX_DEPTH
    }
}

/// `s` cut to at most `max` bytes on a character boundary, as an owned string.
fn cut_str(s: &str, max: usize) -> String {
    let mut at = s.len().min(max);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    s[..at].to_string()
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(cut_str(v, MAX_STRING_BYTES)))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while !self.too_deep() && out.len() < MAX_ITEMS && self.take() {
            match seq.next_element_seed(self.inner())? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while !self.too_deep() && out.len() < MAX_ITEMS && self.take() {
            let Some(key) = map.next_key::<Cow<'de, str>>()? else {
                return Ok(Value::Object(out));
            };
            let value = map.next_value_seed(self.inner())?;
            // A key given twice takes its last value, as in JavaScript's JSON.parse.
            out.insert(cut_str(&key, MAX_STRING_BYTES), value);
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Value::Object(out))
    }
}

/// The byte a JSON object starts with (RFC 8259, section 4).
pub(crate) const OBJECT_OPEN: u8 = b'{';

/// `bytes` without a leading UTF-8 byte-order mark (and the white space before it).
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
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
pub(crate) fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
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
    // Bounded while parsed, so this fallback costs no more memory than the first try.
    let Bounded(value) = serde_json::from_slice(&fixed).ok()?;
    serde_json::from_value(value).ok()
}

/// Rewrites what serde_json rejects inside JSON strings, leaving everything else byte for byte:
/// a lone surrogate escape becomes `\ufffd`, an invalid escape `\x` becomes `\\x` (the
/// backslash kept as a character), a raw control character becomes its `\u00XX` escape, and
/// invalid UTF-8 becomes U+FFFD. Borrowed when there was nothing to change.
pub(crate) fn repair(bytes: &[u8]) -> Cow<'_, [u8]> {
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

    #[test]
    fn a_bounded_value_keeps_the_first_items_and_skips_the_rest() {
        let big = format!(
            r#"{{"a":[{}0],"s":"{}","d":{}0{}}}"#,
            "1,".repeat(100_000),
            "é".repeat(MAX_STRING_BYTES),
            "[".repeat(40),
            "]".repeat(40)
        );
        let Bounded(v) = serde_json::from_str(&big).unwrap();
        assert_eq!(v["a"].as_array().unwrap().len(), MAX_ITEMS);
        assert_eq!(v["s"].as_str().unwrap().len(), MAX_STRING_BYTES);
        let mut d = &v["d"];
        let mut depth = 0;
        while let Some(inner) = d.as_array().and_then(|a| a.first()) {
            d = inner;
            depth += 1;
        }
        assert!(depth < MAX_DEPTH, "{depth}");
        let many = format!("[{}0]", "[0,0,0,0,0,0,0,0,0,0],".repeat(2000));
        let Bounded(v) = serde_json::from_str(&many).unwrap();
        let kept: usize = v
            .as_array()
            .unwrap()
            .iter()
            .map(|a| 1 + a.as_array().map_or(0, |a| a.len()))
            .sum();
        assert!(kept <= MAX_NODES, "{kept}");
        let Bounded(dup) = serde_json::from_str(r#"{"k":1,"k":2}"#).unwrap();
        assert_eq!(dup["k"], 2);
    }
}
