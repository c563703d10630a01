//! Tokeniser: text (a question, details or a file path) to index terms.
//!
//! Steps, identical for docs and queries:
//! 1. Text with any non-ASCII byte loses its format characters (general category `Cf`: the
//!    soft hyphen, zero-width space and joiners, so `pay\u{ad}ment` is `payment`) and is
//!    NFKC-normalised (full-width forms become ASCII, ligatures split); pure ASCII skips this,
//!    and text already in NFKC skips the normalising.
//! 2. The text splits into *words* (runs of letters and digits) and *CJK runs* (Han, Hiragana,
//!    Katakana, Hangul). Everything else separates: spaces, punctuation, `/`, `.`, `_`, `-`,
//!    apostrophes. So `apps/web/get-final-url.ts` gives `apps web get final url ts` and
//!    `redis_streams` gives `redis streams`. Two kinds of symbols make terms of their own,
//!    codes like a word with a digit: a name written with `#` or `+` right after its word
//!    (`C#`, `F#`, `C++` give `c#`, `f#`, `c++`, not `c`), and an operator ([`OPERATORS`]:
//!    `==`, `!=`, `<=`, `&&`, `->`, `::`…) wherever it stands (`a!=b` and `a != b` alike).
//!    (A symbol after a word with non-ASCII letters separates: `café#` is `cafe`.)
//! 3. A word splits at camelCase boundaries: `getFinalUrl` gives `get final url`, `HTTPServer`
//!    gives `http server`, while a plural acronym (`URLs`, `PDFs`) stays whole. A word that split
//!    also yields its whole lowercase form as a [`Piece::Compound`] (`ClickHouse` gives `click`,
//!    `house` and `clickhouse`), so `clickhouse/` in a path still meets `ClickHouse` in prose.
//! 4. Each piece is lowercased (Latin diacritics folded: `é` to `e`); pieces of one character
//!    (`s` of `signer's`, `i` of `iOS`) and of more than [`MAX_TERM_BYTES`] bytes are dropped.
//! 5. English stop words are dropped (checked before stemming), the rest is stemmed with the
//!    Snowball English stemmer (`webhooks`, `webhook` give `webhook`; `signing` gives `sign`).
//!    Words with a digit (`2fa`, `v2`, `s3`, `1234`) are codes: neither stop-listed nor stemmed.
//! 6. A CJK run gives its overlapping character bigrams (`支付回调` gives `支付 付回 回调`); a
//!    one-character run gives that character. They are neither stemmed nor stop-listed.

use super::stopwords::is_stop_word;
use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization;

/// Longest term kept, in UTF-8 bytes; longer pieces (hashes, base64, minified names) are dropped.
pub(crate) const MAX_TERM_BYTES: usize = 48;

/// What a raw piece of text is, before stop-word removal and stemming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// A lowercase word or camelCase part, not yet stop-checked or stemmed.
    Word(&'a str),
    /// The whole lowercase form of a word that split at camelCase boundaries.
    Compound(&'a str),
    /// A CJK character bigram (or a lone CJK character): a final term.
    Cjk(&'a str),
    /// A name or operator written with symbols ([`SYMBOL_NAME_CHARS`], [`OPERATORS`]): `c#`,
    /// `c++`, `f#`, `==`, `!=`, `->`. A final term, a code like a word with a digit.
    Symbol(&'a str),
    /// A one-letter word (`c` of "compile C"), lowercase: no term of its own, but the gate needs
    /// it to tell "C" from a chart's "C#".
    Letter(&'a str),
}

/// Symbols that, written right after a word and before a break, make one name with it: `C#`,
/// `F#`, `C++`, `g++`, `Notepad++`. Such a name is one term (`c#`), not its word.
pub(crate) const SYMBOL_NAME_CHARS: &[u8] = b"#+";

/// Operators kept as terms of their own wherever they stand (`a!=b`, `a != b`, `operator==`):
/// a question about `==` is not one about `!=`. Other runs of these characters separate.
pub(crate) const OPERATORS: [&str; 12] = [
    "==", "!=", "===", "!==", "<=", ">=", "<=>", "&&", "||", "->", "=>", "::",
];

/// Characters [`OPERATORS`] are made of.
const OPERATOR_CHARS: &[u8] = b"=!<>&|-:";

/// True for characters indexed as CJK bigrams.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF        // Hangul Jamo
        | 0x2E80..=0x2FDF      // CJK radicals, Kangxi radicals
        | 0x3005..=0x3007      // 々 〆 〇
        | 0x3040..=0x30FF      // Hiragana, Katakana (with ー)
        | 0x3130..=0x318F      // Hangul compatibility Jamo
        | 0x31F0..=0x31FF      // Katakana phonetic extensions
        | 0x3400..=0x4DBF      // CJK extension A
        | 0x4E00..=0x9FFF      // CJK unified ideographs
        | 0xA960..=0xA97F      // Hangul Jamo extended A
        | 0xAC00..=0xD7FF      // Hangul syllables, Jamo extended B
        | 0xF900..=0xFAFF      // CJK compatibility ideographs
        | 0xFF66..=0xFF9F      // half-width Katakana (NFKC widens them anyway)
        | 0x20000..=0x3134F // CJK extensions B..G
    )
}

/// True for characters that make up words (letters, digits, marks inside a word).
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else {
        (c.is_alphanumeric() || unicode_normalization::char::is_combining_mark(c)) && !is_cjk(c)
    }
}

/// Splits `text` into pieces and calls `emit` for each, in text order.
///
/// `buf` is scratch space reused across calls (no allocation per piece once it has grown).
pub(crate) fn pieces(text: &str, buf: &mut String, emit: &mut dyn FnMut(Piece<'_>)) {
    if text.is_ascii() {
        return ascii_pieces(text, buf, emit);
    }
    let text = super::unicode::strip_format(text);
    let text: Cow<'_, str> = match unicode_normalization::is_nfkc_quick(text.chars()) {
        unicode_normalization::IsNormalized::Yes => text,
        _ => Cow::Owned(text.nfkc().collect()),
    };
    // Words and CJK runs never span whitespace: ASCII segments take the fast path.
    for seg in text.as_ref().split(char::is_whitespace) {
        if seg.is_ascii() {
            ascii_pieces(seg, buf, emit);
        } else {
            unicode_segment(seg, buf, emit);
        }
    }
}

/// [`pieces`] for a whitespace-free segment with non-ASCII characters (already NFKC).
fn unicode_segment(seg: &str, buf: &mut String, emit: &mut dyn FnMut(Piece<'_>)) {
    let mut chars = seg.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        let class: fn(char) -> bool = if is_cjk(c) {
            is_cjk
        } else if is_word_char(c) {
            is_word_char
        } else {
            // An operator beside non-ASCII text ("a!=bの") is still one.
            let skip = if c.is_ascii() {
                operator(seg, start, emit)
            } else {
                c.len_utf8()
            };
            while chars.next_if(|&(i, _)| i < start + skip).is_some() {}
            continue;
        };
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if !class(c) {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        // So is a symbol name ("C#の"): its symbols join the ASCII word before them.
        let sym = seg.as_bytes()[end..]
            .iter()
            .position(|c| !SYMBOL_NAME_CHARS.contains(c))
            .unwrap_or(seg.len() - end);
        if sym > 0 && !is_cjk(c) && seg[start..end].is_ascii() {
            let after = seg[end + sym..].chars().next();
            if !after.is_some_and(is_word_char) {
                while chars.next_if(|&(i, _)| i < end + sym).is_some() {}
                end += sym;
            }
        }
        let run = &seg[start..end];
        if is_cjk(c) {
            cjk_bigrams(run, emit);
        } else if run.is_ascii() {
            ascii_pieces(run, buf, emit);
        } else {
            unicode_word(run, buf, emit);
        }
    }
}

/// Emits the overlapping bigrams of a CJK run (the character itself for a one-character run).
fn cjk_bigrams(run: &str, emit: &mut dyn FnMut(Piece<'_>)) {
    let mut starts = run
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(run.len()));
    let Some(mut a) = starts.next() else { return };
    let Some(mut b) = starts.next() else { return };
    if b == run.len() {
        emit(Piece::Cjk(run));
        return;
    }
    for c in starts {
        emit(Piece::Cjk(&run[a..c]));
        a = b;
        b = c;
    }
}

/// At most this many camelCase cuts are honoured in one word; the rest of it stays one part.
const MAX_CUTS: usize = 15;

const ALNUM: u8 = 1;
const UPPER: u8 = 2;
const LOWER: u8 = 4;

/// Character classes of ASCII bytes (0 for non-ASCII bytes, which the fast path never sees).
static ASCII_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        t[i] = if c.is_ascii_uppercase() {
            ALNUM | UPPER
        } else if c.is_ascii_lowercase() {
            ALNUM | LOWER
        } else if c.is_ascii_digit() {
            ALNUM
        } else {
            0
        };
        i += 1;
    }
    t
};

/// [`pieces`] for ASCII text: scans bytes, no normalisation; a word without capitals is emitted
/// as a slice of `text`, others are lowercased into `buf`.
fn ascii_pieces(text: &str, buf: &mut String, emit: &mut dyn FnMut(Piece<'_>)) {
    let b = text.as_bytes();
    let class = |i: usize| ASCII_CLASS[usize::from(b[i])];
    let n = b.len();
    let mut i = 0;
    while i < n {
        if class(i) & ALNUM == 0 {
            i += operator(text, i, emit);
            continue;
        }
        let start = i;
        i += b[i..]
            .iter()
            .position(|&c| ASCII_CLASS[usize::from(c)] & ALNUM == 0)
            .unwrap_or(n - i);
        let sym = b[i..]
            .iter()
            .position(|c| !SYMBOL_NAME_CHARS.contains(c))
            .unwrap_or(n - i);
        if sym > 0 && b.get(i + sym).is_none_or(|&c| class_of(c) & ALNUM == 0) {
            i += sym;
            if i - start <= MAX_TERM_BYTES {
                buf.clear();
                buf.extend(
                    text[start..i]
                        .bytes()
                        .map(|c| char::from(c.to_ascii_lowercase())),
                );
                emit(Piece::Symbol(buf));
            }
            continue;
        }
        if i - start == 1 && b[start].is_ascii_alphabetic() {
            buf.clear();
            buf.push(char::from(b[start].to_ascii_lowercase()));
            emit(Piece::Letter(buf));
            continue;
        }
        if !b[start..i].iter().any(u8::is_ascii_uppercase) {
            let w = &text[start..i];
            // One letter carries nothing ("a", "s"); one digit does ("step 2", "v 3").
            let single_digit = w.len() == 1 && w.as_bytes()[0].is_ascii_digit();
            if (2..=MAX_TERM_BYTES).contains(&w.len()) || single_digit {
                emit(Piece::Word(w));
            }
            continue;
        }
        let mut cuts = [0usize; MAX_CUTS];
        let mut ncuts = 0;
        for k in start + 1..i {
            let case = |j: usize| {
                if j >= i {
                    Case::Other
                } else if class(j) & UPPER != 0 {
                    Case::Upper
                } else if class(j) & LOWER != 0 {
                    Case::Lower
                } else {
                    Case::Other
                }
            };
            if ncuts < MAX_CUTS && is_cut(case(k - 1), case(k), case(k + 1), case(k + 2)) {
                cuts[ncuts] = k - start;
                ncuts += 1;
            }
        }
        emit_parts(&text[start..i], &cuts[..ncuts], buf, emit);
    }
}

/// The character class of one ASCII byte.
fn class_of(c: u8) -> u8 {
    ASCII_CLASS[usize::from(c)]
}

/// At byte `i` of `text` (not a letter or digit): emits the run of [`OPERATOR_CHARS`] starting
/// there when it is one of [`OPERATORS`]; returns how many bytes to skip (at least one).
fn operator(text: &str, i: usize, emit: &mut dyn FnMut(Piece<'_>)) -> usize {
    let b = &text.as_bytes()[i..];
    let len = b
        .iter()
        .position(|c| !OPERATOR_CHARS.contains(c))
        .unwrap_or(b.len());
    if len < 2 {
        return 1;
    }
    let run = &text[i..i + len];
    if OPERATORS.contains(&run) {
        emit(Piece::Symbol(run));
    }
    len
}

/// Splits a word with non-ASCII letters at camelCase boundaries and emits its parts.
fn unicode_word(w: &str, buf: &mut String, emit: &mut dyn FnMut(Piece<'_>)) {
    let cs: Vec<(usize, char)> = w.char_indices().collect();
    let mut cuts = [0usize; MAX_CUTS];
    let mut ncuts = 0;
    for k in 1..cs.len() {
        if ncuts == MAX_CUTS {
            break;
        }
        let case = |j: usize| cs.get(j).map_or(Case::Other, |&(_, c)| Case::of(c));
        if is_cut(case(k - 1), case(k), case(k + 1), case(k + 2)) {
            cuts[ncuts] = cs[k].0;
            ncuts += 1;
        }
    }
    emit_parts(w, &cuts[..ncuts], buf, emit);
}

/// Letter case of a character, for camelCase splitting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Upper,
    Lower,
    /// Digits, caseless letters, or past the end of the word.
    Other,
}

impl Case {
    fn of(c: char) -> Case {
        if c.is_uppercase() {
            Case::Upper
        } else if c.is_lowercase() {
            Case::Lower
        } else {
            Case::Other
        }
    }
}

/// Whether a camelCase part starts at the current character (`cur`), given its neighbours:
/// - after a lowercase letter: `getFinal` gives `get` + `Final`;
/// - at the last capital of an acronym followed by two or more lowercase letters: `HTTPServer`
///   gives `HTTP` + `Server`, while `URLs` is a plural, not `UR` + `Ls`;
/// - at a capitalised word after a digit: `OAuth2Client` gives `OAuth2` + `Client`, while
///   `get2FA` stays whole.
fn is_cut(prev: Case, cur: Case, next: Case, next2: Case) -> bool {
    use Case::{Lower, Other, Upper};
    cur == Upper
        && match prev {
            Lower => true,
            Upper => next == Lower && next2 == Lower,
            Other => next == Lower,
        }
}

/// Emits the parts of `w` between `cuts` and, when there are cuts, the whole word as a compound.
fn emit_parts(w: &str, cuts: &[usize], buf: &mut String, emit: &mut dyn FnMut(Piece<'_>)) {
    let mut start = 0;
    for &cut in cuts {
        emit_part(&w[start..cut], buf, false, emit);
        start = cut;
    }
    emit_part(&w[start..], buf, false, emit);
    if !cuts.is_empty() {
        emit_part(w, buf, true, emit);
    }
}

/// Lowercases (folding Latin diacritics) one part into `buf` and emits it unless too short or
/// too long.
fn emit_part(part: &str, buf: &mut String, compound: bool, emit: &mut dyn FnMut(Piece<'_>)) {
    // A plural acronym ("PDFs", "IDs") is the acronym: the stemmer cannot see that in "pdfs".
    let part = match part.strip_suffix('s') {
        Some(acr) if acr.len() >= 2 && acr.bytes().all(|b| b.is_ascii_uppercase()) => acr,
        _ => part,
    };
    buf.clear();
    if part.is_ascii() {
        // One letter carries nothing ("a", "s"); one digit does ("step 2", "v 3").
        let single_digit = part.len() == 1 && part.as_bytes()[0].is_ascii_digit();
        if (part.len() < 2 && !single_digit) || part.len() > MAX_TERM_BYTES {
            return;
        }
        buf.extend(part.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        for c in part.chars().flat_map(char::to_lowercase) {
            if c.is_ascii() {
                buf.push(c);
            } else if unicode_normalization::char::is_combining_mark(c) {
                // A mark left after NFKC (no precomposed form): drop it.
            } else {
                let mut d = std::iter::once(c).nfd();
                match (d.next(), d.next()) {
                    (Some(base), Some(_)) if base.is_ascii() => buf.push(base),
                    _ => buf.push(c),
                }
            }
        }
        if buf.chars().nth(1).is_none() || buf.len() > MAX_TERM_BYTES {
            return;
        }
    }
    emit(if compound {
        Piece::Compound(buf)
    } else {
        Piece::Word(buf)
    });
}

/// Turns pieces into final terms: drops stop words and stems words.
pub(crate) struct Analyzer {
    stemmer: Stemmer,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer")
    }
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Analyzer {
    /// The final term for one piece, or `None` for a stop word.
    pub(crate) fn term<'p>(&self, piece: Piece<'p>) -> Option<Cow<'p, str>> {
        match piece {
            // Words with digits ("2fa", "v2", "1234", "s3") are codes, not English: kept as is.
            Piece::Word(w) | Piece::Compound(w) if w.bytes().any(|b| b.is_ascii_digit()) => {
                Some(Cow::Borrowed(w))
            }
            Piece::Word(w) if is_stop_word(w) => None,
            Piece::Word(w) | Piece::Compound(w) => Some(self.stemmer.stem(w)),
            Piece::Cjk(s) | Piece::Symbol(s) => Some(Cow::Borrowed(s)),
            Piece::Letter(_) => None,
        }
    }

    /// The stem of one lowercase word, stop word or not (a word with a digit is kept as is).
    pub(crate) fn stem_word(&self, word: &str) -> String {
        if word.bytes().any(|b| b.is_ascii_digit()) {
            return word.to_string();
        }
        self.stemmer.stem(word).into_owned()
    }

    /// Calls `emit(term, is_compound)` for every term of `text`, in order.
    pub(crate) fn terms(&self, text: &str, emit: &mut dyn FnMut(&str, bool)) {
        let mut buf = String::new();
        pieces(text, &mut buf, &mut |p| {
            if let Some(t) = self.term(p) {
                emit(&t, matches!(p, Piece::Compound(_)));
            }
        });
    }
}

/// The index terms of `text`, in order, exactly as docs and queries are tokenised (stop words
/// dropped, words stemmed, CJK as bigrams, a camelCase word followed by its compound; repeats
/// kept). One owned string per term: for tests and diagnostics, not the hot path.
pub fn analyze(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    Analyzer::default().terms(text, &mut |t, _| out.push(t.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(s: &str) -> Vec<String> {
        analyze(s)
    }

    #[test]
    fn camel_case_splits_and_keeps_the_compound() {
        assert_eq!(terms("getFinalUrl"), ["get", "final", "url", "getfinalurl"]);
        assert_eq!(terms("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(terms("ClickHouse"), ["click", "hous", "clickhous"]);
        assert_eq!(terms("iOS"), ["os", "io"]);
        assert_eq!(terms("OAuth2Client"), ["auth2", "client", "oauth2client"]);
        assert_eq!(terms("OAuth"), ["auth", "oauth"]);
        assert_eq!(terms("S3Bucket"), ["s3", "bucket", "s3bucket"]);
        assert_eq!(terms("get2FA"), ["get2fa"]);
        assert_eq!(terms("DOCUMENT_COMPLETED"), ["document", "complet"]);
        assert_eq!(terms("ÜberCafé"), ["uber", "cafe", "ubercaf"]);
    }

    #[test]
    fn plural_acronyms_stay_whole() {
        assert_eq!(terms("URLs"), ["url"]);
        assert_eq!(terms("PDFs"), ["pdf"]);
        assert_eq!(terms("APIKey"), ["api", "key", "apikey"]);
        assert_eq!(terms("IDs"), ["id"]);
        assert_eq!(
            terms("getPDFsForUser"),
            terms("get pdf for user getpdfsforus")
        );
    }

    #[test]
    fn snake_kebab_and_dots_split() {
        assert_eq!(terms("redis_streams"), ["redi", "stream"]);
        assert_eq!(terms("send-signing-email"), ["send", "sign", "email"]);
        assert_eq!(terms("link.clicked"), ["link", "click"]);
    }

    #[test]
    fn paths_split_into_segments_and_extension() {
        assert_eq!(
            terms("apps/web/lib/middleware/utils/get-final-url.ts"),
            [
                "app",
                "web",
                "lib",
                "middlewar",
                "util",
                "get",
                "final",
                "url",
                "ts"
            ]
        );
        assert_eq!(
            terms("server/polar/checkout/service.py"),
            ["server", "polar", "checkout", "servic", "py"]
        );
        assert_eq!(
            terms("apps/web/app/[domain]/(ee)/$token.tsx"),
            ["app", "web", "app", "domain", "ee", "token", "tsx"]
        );
    }

    #[test]
    fn stemming_merges_inflections() {
        assert_eq!(terms("webhooks"), terms("webhook"));
        assert_eq!(terms("signing"), terms("signs"));
        assert_eq!(terms("payments processed"), ["payment", "process"]);
        assert_eq!(terms("v2 routes 2fa codes"), ["v2", "rout", "2fa", "code"]);
    }

    #[test]
    fn stop_words_and_single_letters_drop() {
        assert_eq!(terms("Where is the webhook handled?"), ["webhook", "handl"]);
        assert_eq!(
            terms("How does a signer's field get saved"),
            ["signer", "field", "get", "save"]
        );
        assert!(terms("what is it and where").is_empty());
    }

    #[test]
    fn single_digits_are_kept_single_letters_are_not() {
        assert_eq!(terms("step 2 of a plan"), ["step", "2", "plan"]);
        assert_eq!(terms("Step 2 of X"), ["step", "2"]);
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(terms("支付回调"), ["支付", "付回", "回调"]);
        assert_eq!(terms("税"), ["税"]);
        assert_eq!(
            terms("Stripe 支付回调在哪里"),
            ["stripe", "支付", "付回", "回调", "调在", "在哪", "哪里"]
        );
        assert_eq!(terms("決済のWebhook"), ["決済", "済の", "webhook"]);
        assert_eq!(terms("결제 웹훅"), ["결제", "웹훅"]);
    }

    #[test]
    fn full_width_and_diacritics_normalise() {
        assert_eq!(terms("ＷＥＢＨＯＯＫ"), terms("webhook"));
        assert_eq!(terms("café résumé"), terms("cafe resume"));
    }

    #[test]
    fn format_characters_are_not_there() {
        assert_eq!(terms("pay\u{ad}ment"), ["payment"]);
        assert_eq!(
            terms("pay\u{200b}ments web\u{200d}hook"),
            ["pay", "ment", "webhook"]
        );
        assert_eq!(terms("\u{feff}C#"), ["c#"]);
    }

    #[test]
    fn symbol_names_and_operators_are_terms_of_their_own() {
        assert_eq!(terms("How do we compile C#?"), ["compil", "c#"]);
        assert_eq!(terms("C++ and F# and g++"), ["c++", "f#", "g++"]);
        assert_eq!(terms("compile C"), ["compil"]);
        assert_eq!(terms("Where is a != b checked?"), ["!=", "check"]);
        assert_eq!(terms("a==b"), ["=="]);
        assert_eq!(terms("operator==(x)"), ["oper", "=="]);
        assert_eq!(
            terms("x -> y, a::b, p && q, r || s, i <= j"),
            ["->", "::", "&&", "||", "<="]
        );
        // Other runs separate, as before; a `+` between letters is no name.
        assert_eq!(
            terms("--files a+b get-final-url"),
            ["file", "get", "final", "url"]
        );
        let mut letters = Vec::new();
        pieces("compile C, x", &mut String::new(), &mut |p| {
            if let Piece::Letter(l) = p {
                letters.push(l.to_string());
            }
        });
        assert_eq!(letters, ["c", "x"]);
    }

    #[test]
    fn overlong_pieces_drop() {
        let hash = "a".repeat(MAX_TERM_BYTES + 1);
        assert!(terms(&hash).is_empty());
        assert_eq!(terms(&format!("{hash} token")), ["token"]);
    }
}
