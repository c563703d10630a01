//! Bounds on JSON capn did not write (transcript lines, host settings files), checked in one
//! linear pass before it is parsed.
//!
//! A byte bound alone does not bound a parse: parsed, every value becomes one of tens of bytes
//! (more in a format-preserving tree), so a megabyte of nested brackets, or of `0,0,0`, costs
//! hundreds of megabytes and seconds of CPU. [`beyond`] counts the values and the nesting depth
//! without allocating, skipping strings (and, where the format allows them, comments), so a
//! caller can leave such a document unread instead.

/// How deep and how many values a document may hold ([`beyond`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// The deepest nesting of arrays and objects allowed (the top-level object counts 1).
    pub max_depth: usize,
    /// The most values allowed in all, counted as the arrays and objects plus the commas that
    /// separate elements and members (so every value but a container's first, which its
    /// bracket stands for).
    pub max_values: usize,
    /// Whether `//` and `/* */` comments may appear (JSONC: Gemini CLI's and Qwen Code's
    /// settings); brackets inside them do not count.
    pub comments: bool,
}

/// A host settings file: real ones nest 6 deep and hold a few hundred values; these bounds
/// leave room for a hundred times that.
pub(crate) const SETTINGS: Bounds = Bounds {
    max_depth: 64,
    max_values: 50_000,
    comments: false,
};

/// One transcript line (a message with its tool calls and results, parsed a line at a time):
/// deep tool inputs and large structured results pass (text is one value however long); a line
/// of a hundred thousand values or more (a few megabytes once parsed) is left unread.
pub(crate) const TRANSCRIPT_LINE: Bounds = Bounds {
    max_depth: 64,
    max_values: 100_000,
    comments: false,
};

/// Why `bytes` is beyond `bounds` ("nested deeper than 64 levels", "holds more than 50000
/// values"), or `None` when it is within them. Unbalanced or invalid JSON is
/// judged only on what was counted: the parser that follows reports it.
pub(crate) fn beyond(bytes: &[u8], bounds: Bounds) -> Option<String> {
    let (mut depth, mut values) = (0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i + 1),
            b'[' | b'{' => {
                depth += 1;
                if depth > bounds.max_depth {
                    return Some(format!("nested deeper than {} levels", bounds.max_depth));
                }
                values += 1;
            }
            // A line break and a comment are nodes of their own in a format-preserving tree.
            b',' | b'\n' => values += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'/' if bounds.comments => match comment_end(bytes, i) {
                Ok(end) if end > i => {
                    values += 1;
                    i = end;
                }
                Ok(_) => {}
                Err(why) => return Some(why.to_string()),
            },
            _ => {}
        }
        if values > bounds.max_values {
            return Some(format!("holds more than {} values", bounds.max_values));
        }
        i += 1;
    }
    None
}

/// True when `bytes` is within `bounds` ([`beyond`]).
pub(crate) fn within(bytes: &[u8], bounds: Bounds) -> bool {
    beyond(bytes, bounds).is_none()
}

/// The index of the quote closing the string whose content starts at `i` (escapes skipped), or
/// the last index when it never closes.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    // memchr2 over the string's text: a transcript line is mostly one long string.
    while let Some(n) = bytes
        .get(i..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        i += n;
        if bytes[i] == b'"' {
            return i;
        }
        i += 2;
    }
    bytes.len()
}

/// The index of the last byte of the comment starting at `i` (a `/`; a line comment ends before
/// its line break), or `i` when no comment starts there.
///
/// Errors: a line comment ended by a lone carriage return, which readers disagree on (JSONC
/// parsers end the comment there; Gemini CLI's `strip-json-comments` reads on to the next line
/// feed), so the host and capn would not read the same settings.
fn comment_end(bytes: &[u8], i: usize) -> Result<usize, &'static str> {
    match bytes.get(i + 1) {
        Some(b'/') => match memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
            None => Ok(bytes.len()),
            Some(n) if bytes[i + n] == b'\r' && bytes.get(i + n + 1) != Some(&b'\n') => Err(
                "has a // comment ended by a lone carriage return, which the host and capn would read differently",
            ),
            Some(n) => Ok(i + n - 1),
        },
        Some(b'*') => {
            Ok(memchr::memmem::find(&bytes[i + 2..], b"*/").map_or(bytes.len(), |n| i + n + 3))
        }
        _ => Ok(i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Bounds = Bounds {
        max_depth: 3,
        max_values: 4,
        comments: false,
    };

    #[test]
    fn depth_and_count_are_what_parsing_would_build() {
        assert!(!within(br#"{"a":[1,{"b":[]}]}"#, SMALL));
        assert_eq!(beyond(br#"{"a":[1,{"b":2}]}"#, SMALL), None);
        assert_eq!(
            beyond(br#"[[[[1]]]]"#, SMALL).as_deref(),
            Some("nested deeper than 3 levels")
        );
        assert_eq!(
            beyond(br#"[[],[],[]]"#, SMALL).as_deref(),
            Some("holds more than 4 values")
        );
        assert_eq!(
            beyond(br#"[0,0,0,0,0]"#, SMALL).as_deref(),
            Some("holds more than 4 values")
        );
        assert_eq!(beyond(br#"[0,0,0,0]"#, SMALL), None);
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = br#"{"a":"[[[[{{{{\"[[[[","b":"\\"}"#;
        assert!(within(text, SMALL));
        let jsonc = b"{ // [[[[[[\n \"a\": /* {{{{{{ */ 1 }";
        assert!(!within(jsonc, SMALL));
        assert!(within(
            jsonc,
            Bounds {
                comments: true,
                ..SMALL
            }
        ));
        // A line comment ends at its line break (LF or CRLF), never at a lone CR.
        let c = Bounds {
            comments: true,
            ..SMALL
        };
        assert!(within(b"{ // [[[[\r\n \"a\": 1 }", c));
        assert_eq!(
            beyond(b"{ // x\r \"a\": [[[[[[1]]]]]] }", c).as_deref(),
            Some("has a // comment ended by a lone carriage return, which the host and capn would read differently")
        );
        // Line breaks count as values (nodes of a format-preserving tree).
        assert_eq!(
            beyond(b"{\n\n\n\n\n}", SMALL).as_deref(),
            Some("holds more than 4 values")
        );
        // An unclosed string or comment ends the scan without a panic.
        assert!(within(br#"{"a":"[[[[["#, SMALL));
        assert!(within(
            b"{ /* [[[[[[",
            Bounds {
                comments: true,
                ..SMALL
            }
        ));
    }
}
