//! Unicode general categories the recall side needs: punctuation (`P*`: `Pc Pd Ps Pe Pi Pf
//! Po`) and format characters (`Cf`: the soft hyphen, zero-width space and joiners, bidi marks),
//! from the tables the embedding's tokenizer already carries (`crate::embed::tokenizer`).

use crate::embed::tokenizer;
use std::borrow::Cow;

/// The ASCII characters of general category `P*` (the others, `$+<=>^`|~`, are symbols).
const ASCII_PUNCTUATION: &str = "!\"#%&'()*,-./:;?@[\\]_{}";

/// True for a character of general category `P*` (punctuation: `?`, `‽`, `۔`, `〝`, `״`…).
pub(crate) fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        ASCII_PUNCTUATION.contains(c)
    } else {
        tokenizer::is_non_ascii_punctuation(c)
    }
}

/// True for a format character (general category `Cf`: U+00AD soft hyphen, U+200B zero-width
/// space, U+200D zero-width joiner, U+FEFF, bidi controls…): invisible, not part of any word.
pub(crate) fn is_format(c: char) -> bool {
    tokenizer::is_format(c)
}

/// `text` without its format characters ([`is_format`]), except that the zero-width space
/// (U+200B), which marks a word break where words are not spaced (Thai, Khmer), becomes a
/// space; borrowed when it has none.
pub(crate) fn strip_format(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || !text.chars().any(is_format) {
        Cow::Borrowed(text)
    } else {
        let kept = |c: char| match c {
            '\u{200b}' => Some(' '),
            c if is_format(c) => None,
            c => Some(c),
        };
        Cow::Owned(text.chars().filter_map(kept).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories() {
        for c in [
            '?', '‽', '۔', '።', '፧', '՞', '〝', '〞', '〔', '〕', '〖', '〗', '״', '«', '、',
        ] {
            assert!(is_punctuation(c), "{c:?}");
        }
        for c in ['a', '+', '=', '€', 'é', '中', ' '] {
            assert!(!is_punctuation(c), "{c:?}");
        }
        for c in ['\u{ad}', '\u{200b}', '\u{200d}', '\u{feff}', '\u{200e}'] {
            assert!(is_format(c), "{c:?}");
        }
        assert!(!is_format('a') && !is_format('\u{301}'));
        assert_eq!(
            strip_format("pay\u{ad}ment\u{200d}s\u{200b}due"),
            "payments due"
        );
        assert!(matches!(strip_format("plain"), Cow::Borrowed(_)));
    }
}
