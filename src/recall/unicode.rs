//! Unicode general categories the recall side needs, from the Unicode tables of `regex-syntax`
//! (the `regex` crate's parser, already a dependency): punctuation (`P*`: `Pc Pd Ps Pe Pi Pf
//! Po`) and format characters (`Cf`: the soft hyphen, zero-width space and joiners, bidi marks).
//! Each table is built once, on first use, as sorted ranges searched by bisection.

use std::borrow::Cow;
use std::sync::OnceLock;

/// The ranges of one general category, `name` as `regex` spells it (`P`, `Cf`).
fn ranges(name: &str) -> Vec<(char, char)> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&format!(r"\p{{{name}}}"))
        .expect("a general category regex-syntax knows");
    match hir.kind() {
        regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (r.start(), r.end()))
            .collect(),
        other => unreachable!("\\p{{{name}}} parses to a Unicode class, not {other:?}"),
    }
}

/// True when `c` lies in one of `table`'s ranges.
fn within(table: &[(char, char)], c: char) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// True for a character of general category `P*` (punctuation: `?`, `‽`, `۔`, `〝`, `״`…).
pub(crate) fn is_punctuation(c: char) -> bool {
    static TABLE: OnceLock<Vec<(char, char)>> = OnceLock::new();
    within(TABLE.get_or_init(|| ranges("P")), c)
}

/// True for a format character (general category `Cf`: U+00AD soft hyphen, U+200B zero-width
/// space, U+200D zero-width joiner, U+FEFF, bidi controls…): invisible, not part of any word.
pub(crate) fn is_format(c: char) -> bool {
    static TABLE: OnceLock<Vec<(char, char)>> = OnceLock::new();
    !c.is_ascii() && within(TABLE.get_or_init(|| ranges("Cf")), c)
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
