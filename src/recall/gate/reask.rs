//! The exact re-ask's normal form: a question asked again as written, give or take case,
//! punctuation and whitespace, is found by its index marker ([`exact_key`]) and confirmed
//! against the chart's own text ([`normalise_question`]) before it answers ([`super::apply`]).

use super::super::tokenize::OPERATORS;
use super::super::unicode::{is_punctuation, strip_format};
use std::borrow::Cow;

/// The normalised form of a question for exact re-asks: format characters (soft hyphen,
/// zero-width space…) removed, NFKC (full-width forms become ASCII, as in the tokeniser),
/// lowercase, every run of whitespace and sentence punctuation (`is_sentence_punctuation`:
/// `?`, `,`, quotes, brackets, `-`, `‽`, `。`…) replaced by one space, trimmed. The other
/// symbols of a run are words of their own: an operator of the tokeniser's
/// (`OPERATORS`: `==`, `!=`, `->`… even where its characters are sentence punctuation), or a
/// run of other symbols (`#`, `++`). So "C#?", "(C#)" and "C#。" are all `c #`, "operator=="
/// and "a!=b" are `operator ==` and `a != b` as with spaces, while "C", "C#" and "C++" stay
/// three questions and "==" and "!=" two. Identifiers stay apart the same way: `_` is part of
/// a word, and a `.` between two word characters is too, so "`__init__`", "init", "`io_read`",
/// "`io.read`" and "io read" are five questions, while a sentence's own full stop ("…main.")
/// is set aside. `None` when nothing is left.
pub fn normalise_question(question: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    let question = strip_format(question);
    let text: Cow<'_, str> = if question.is_ascii() {
        question
    } else {
        Cow::Owned(question.nfkc().collect())
    };
    let chars: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut run = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let joins = c == '.'
            && i > 0
            && is_word_char(chars[i - 1])
            && chars.get(i + 1).is_some_and(|&n| is_word_char(n));
        if is_word_char(c) || joins {
            symbol_run(&mut out, &run);
            run.clear();
            out.push(c);
        } else if c.is_whitespace() {
            symbol_run(&mut out, &run);
            run.clear();
            gap(&mut out);
        } else {
            run.push(c);
        }
    }
    symbol_run(&mut out, &run);
    let trimmed = out.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// True for the characters of a word in [`normalise_question`]: letters, digits and `_` (an
/// identifier's, as in `__init__` or `io_read`).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Ends `out`'s current word (one space, none at the start or after a space).
fn gap(out: &mut String) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// Appends a run of non-word, non-space characters to `out` as [`normalise_question`] says:
/// operators and other symbols as words of their own, sentence punctuation as a break.
fn symbol_run(out: &mut String, run: &str) {
    if run.is_empty() {
        return;
    }
    gap(out);
    let mut rest = run;
    while let Some(c) = rest.chars().next() {
        let op = OPERATORS
            .iter()
            .filter(|op| rest.starts_with(*op))
            .max_by_key(|op| op.len());
        if let Some(op) = op {
            gap(out);
            out.push_str(op);
            gap(out);
            rest = &rest[op.len()..];
            continue;
        }
        if is_sentence_punctuation(c) {
            gap(out);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    gap(out);
}

/// Characters that only shape a sentence, so [`normalise_question`] sets them aside: in ASCII
/// the sentence marks, quotes and brackets `.,;:?!'"`()[]{}<>-/\|` (not `#`, `+`, `=`, `*`,
/// `&`, `@`, `%`, `$`, `~`, `^`, which can be part of a name or an operator); beyond ASCII every
/// character of Unicode general category `P*` (`¿`, `«»`, `„“`, `‽`, `؟`, `۔`, `።`, `՞`, `、。`,
/// `〝〞`, `〔〕`, `״`…), as they stand after NFKC.
fn is_sentence_punctuation(c: char) -> bool {
    if c.is_ascii() {
        ".,;:?!'\"`()[]{}<>-/\\|".contains(c)
    } else {
        is_punctuation(c)
    }
}

/// The index term that marks a chart's question for exact re-asks: `\u{1}` and the 16 hex
/// digits of a 64-bit FNV-1a hash of [`normalise_question`]. The control character keeps it apart
/// from every term the tokeniser can produce. A hash collision costs nothing: an exact re-ask is
/// confirmed against the entry's own question before it answers ([`super::apply`]). `None` for a
/// question with no letters or digits. (Computed for every entry whenever a writer rebuilds the
/// index, so it is kept cheap: SHA-256 and a `format!` per byte cost `chart` a third more.)
pub fn exact_key(question: &str) -> Option<String> {
    let norm = normalise_question(question)?;
    let h = crate::fnv::extend(crate::fnv::OFFSET, norm.as_bytes());
    Some(format!("\u{1}{h:016x}"))
}

/// True when the asked question (`asked`, already [`normalise_question`]d) and a chart's
/// question text (`chart`: its question and other phrasings, one a line) name the same thing as
/// different identifiers: a word of one and a word of the other are made of the same letters
/// and digits in the same order, split differently by `_` and `.` (`__init__` and `init`,
/// `io_read` and `io.read`), and the chart's questions never use the asked form itself. Such a
/// chart asks about another identifier, as a chart of "C#" does for "C": it is not an answer
/// (the tokeniser reads both forms as the same terms, so the gate alone would let it answer).
/// Details and paths are not read: they name identifiers in passing (`_id` beside "id").
pub fn identifier_clash(asked: &str, chart: &str) -> bool {
    let parts = |w: &str| -> Vec<String> {
        w.split(['_', '.'])
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    let held: Vec<String> = chart
        .lines()
        .filter_map(normalise_question)
        .flat_map(|n| n.split(' ').map(str::to_string).collect::<Vec<_>>())
        .collect();
    asked.split(' ').any(|w| {
        let p = parts(w);
        !p.is_empty()
            && !held.iter().any(|h| h == w)
            && held.iter().any(|h| h != w && parts(h) == p)
    })
}
