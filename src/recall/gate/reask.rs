//! The exact re-ask's normal form: a question asked again as written, give or take case,
//! punctuation and whitespace, is found by its index marker ([`exact_key`]) and confirmed
//! against the chart's own text ([`normalise_question`]) before it answers ([`super::apply`]).

/// The normalised form of a question for exact re-asks: NFKC (full-width forms become ASCII, as
/// in the tokeniser), lowercase, every run of whitespace and sentence punctuation
/// ([`SENTENCE_PUNCTUATION`]: `?`, `,`, quotes, brackets, `-`…) replaced by one space, trimmed.
/// A run holding any other symbol is kept as written, so "C++" and "C#" stay apart from "C",
/// and "==" from "!=". `None` when nothing is left.
pub fn normalise_question(question: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    let text: std::borrow::Cow<'_, str> = if question.is_ascii() {
        std::borrow::Cow::Borrowed(question)
    } else {
        std::borrow::Cow::Owned(question.nfkc().collect())
    };
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let gap = |out: &mut String| {
        if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    };
    let flush = |out: &mut String, run: &mut String| {
        if run.chars().any(|c| !SENTENCE_PUNCTUATION.contains(c)) {
            out.push_str(run);
        } else if !run.is_empty() {
            gap(out);
        }
        run.clear();
    };
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            flush(&mut out, &mut run);
            out.push(c);
        } else if c.is_whitespace() {
            flush(&mut out, &mut run);
            gap(&mut out);
        } else {
            run.push(c);
        }
    }
    flush(&mut out, &mut run);
    let trimmed = out.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// Characters that only shape a sentence, so [`normalise_question`] drops them: a symbol run
/// made only of these is a word break. As they stand after NFKC (which already turns full-width
/// `？！，` and the Greek question mark into ASCII): ASCII sentence marks, quotes and brackets;
/// typographic quotes (`‘’‚‛“”„‟‹›«»`); hyphens and dashes (`‐‒–—―`; `‑` becomes `‐`); `…`;
/// the Spanish opening `¿¡`; Arabic `،؛؟`; CJK `、。` and corner and angle brackets (`「」『』【】
/// 〈〉《》`); Devanagari `।॥`. Symbols that can be part of a name (`#`, `+`, `=`, `*`, `&`,
/// `@`, `%`, the math minus) are not here.
const SENTENCE_PUNCTUATION: &str = concat!(
    ".,;:?!'\"`()[]{}<>-_/\\|",
    "\u{2018}\u{2019}\u{201a}\u{201b}\u{201c}\u{201d}\u{201e}\u{201f}\u{2039}\u{203a}\u{ab}\u{bb}",
    "\u{2010}\u{2012}\u{2013}\u{2014}\u{2015}\u{2026}\u{bf}\u{a1}",
    "\u{60c}\u{61b}\u{61f}\u{3001}\u{3002}\u{300c}\u{300d}\u{300e}\u{300f}\u{3010}\u{3011}",
    "\u{3008}\u{3009}\u{300a}\u{300b}\u{964}\u{965}",
);

/// The index term that marks a chart's question for exact re-asks: `\u{1}` and the 16 hex
/// digits of a 64-bit FNV-1a hash of [`normalise_question`]. The control character keeps it apart
/// from every term the tokeniser can produce. A hash collision costs nothing: an exact re-ask is
/// confirmed against the entry's own question before it answers ([`super::apply`]). `None` for a
/// question with no letters or digits. (Computed for every entry whenever a writer rebuilds the
/// index, so it is kept cheap: SHA-256 and a `format!` per byte cost `chart` a third more.)
pub fn exact_key(question: &str) -> Option<String> {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let norm = normalise_question(question)?;
    let h = norm
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    Some(format!("\u{1}{h:016x}"))
}
