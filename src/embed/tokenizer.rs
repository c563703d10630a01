//! The BERT uncased tokenizer of the source model: basic tokenization then WordPiece.
//!
//! Rules (as in Google's BERT `tokenization.py` and HF `tokenizers`' BertNormalizer +
//! BertPreTokenizer + WordPiece, which the model was trained with and model2vec uses):
//! 1. clean: drop U+0000, U+FFFD and control-like characters (table `OTHER`); every whitespace
//!    character (Rust `char::is_whitespace`, plus tab, LF, CR) becomes a space;
//! 2. pad each CJK ideograph (BERT's ranges, [`is_cjk_ideograph`]) with spaces, so it is a word;
//! 3. strip accents: canonical decomposition (NFD), then drop non-spacing marks (table
//!    `NONSPACING_MARK`);
//! 4. lowercase (`char::to_lowercase`, one char may give several);
//! 5. split on whitespace, and isolate every punctuation character (table `PUNCTUATION`, ASCII symbols
//!    included) as a word of its own;
//! 6. WordPiece per word: greedy longest match first from the left, pieces after the first looked
//!    up with the `##` continuation prefix; a word with no full cover, or longer than
//!    [`MAX_WORD_CHARS`] chars, becomes a single `[UNK]`.
//!
//! Special tokens written literally in the text (`[CLS]`) are not recognised: they are plain
//! punctuation and letters here.

use unicode_normalization::UnicodeNormalization;

use super::unicode_tables::{NONSPACING_MARK, OTHER, PUNCTUATION};

/// Words longer than this many chars (after normalisation) become `[UNK]`, as in BERT.
pub const MAX_WORD_CHARS: usize = 100;

/// Id of `[UNK]` in the BERT uncased vocabulary.
pub const UNK_ID: u32 = 100;

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
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

/// Removed by the cleaning step: U+0000, U+FFFD and control-like characters (tab, LF, CR excepted).
fn is_removed(c: char) -> bool {
    match c {
        '\t' | '\n' | '\r' => false,
        '\0' | '\u{FFFD}' => true,
        ' '..='~' => false,
        _ => in_table(OTHER, c),
    }
}

fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// A CJK ideograph in BERT's sense: the CJK Unified Ideographs blocks and extensions A–E, and the
/// compatibility ideographs (not Hiragana, Katakana or Hangul, which are written with spaces).
pub fn is_cjk_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

fn is_mark(c: char) -> bool {
    !c.is_ascii() && in_table(NONSPACING_MARK, c)
}

fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_punctuation()
    } else {
        in_table(PUNCTUATION, c)
    }
}

/// True for a character beyond ASCII of Unicode general category `P*` (punctuation: `‽`, `«`,
/// `؟`, `、`…), from the generated [`PUNCTUATION`] table (whose non-ASCII part is exactly `P*`).
pub(crate) fn is_non_ascii_punctuation(c: char) -> bool {
    !c.is_ascii() && in_table(PUNCTUATION, c)
}

/// True for a format character (general category `Cf`: U+00AD soft hyphen, U+200B zero-width
/// space, U+200D zero-width joiner, U+FEFF, bidi controls…): the generated [`OTHER`] table
/// (`Cc Cf Co Cs`) less the controls (`Cc`) and the private-use areas (`Co`, fixed by the
/// Unicode standard); a `char` is never a surrogate (`Cs`).
pub(crate) fn is_format(c: char) -> bool {
    let private_use = matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD);
    !c.is_ascii() && !c.is_control() && !private_use && in_table(OTHER, c)
}

/// Slots of the precomputed open-addressing table in `vocab.index` (a power of two).
const INDEX_SLOTS: usize = 1 << 16;
/// A free slot.
const INDEX_EMPTY: u16 = 0xFFFF;

/// Home slot of a token whose UTF-8 bytes are `prefix` then `rest`: FNV-1a 64, multiplied by the
/// golden-ratio constant, top 16 bits (`tools/minilm.py` `fnv1a_slot` computes the same).
fn home_slot(prefix: &[u8], rest: &[u8]) -> usize {
    let h = crate::fnv::extend(crate::fnv::extend(crate::fnv::OFFSET, prefix), rest);
    (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48) as usize
}

/// The WordPiece vocabulary over the embedded `vocab.txt` and its precomputed look-up table
/// `vocab.index` (u32 LE start offsets of the `V + 1` tokens, then u16 LE ids in
/// 65,536 linear-probing slots). Nothing is built at load: look-ups read the bytes.
#[derive(Debug)]
pub struct Tokenizer {
    vocab: &'static str,
    offsets: &'static [u8],
    slots: &'static [u8],
    len: usize,
}

/// Why embedded vocabulary assets were rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadVocab(pub &'static str);

impl Tokenizer {
    /// Wraps `vocab` (one token per line, line number = id, final newline) and its `index`
    /// (see the type's documentation) after checking their sizes agree.
    pub fn new(vocab: &'static str, index: &'static [u8]) -> Result<Tokenizer, BadVocab> {
        if !vocab.ends_with('\n') {
            return Err(BadVocab("vocab.txt must end with a newline"));
        }
        let offsets_len = index
            .len()
            .checked_sub(INDEX_SLOTS * 2)
            .filter(|n| n % 4 == 0 && *n >= 8)
            .ok_or(BadVocab("vocab.index has a bad size"))?;
        let len = offsets_len / 4 - 1;
        let (offsets, slots) = index.split_at(offsets_len);
        let t = Tokenizer {
            vocab,
            offsets,
            slots,
            len,
        };
        if t.offset(0) != 0 || t.offset(len) != vocab.len() {
            return Err(BadVocab("vocab.index offsets do not match vocab.txt"));
        }
        Ok(t)
    }

    fn offset(&self, i: usize) -> usize {
        let b = &self.offsets[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    }

    /// The token string of `id` (`##` prefix included for continuations), if `id` is in range.
    pub fn token(&self, id: u32) -> Option<&'static str> {
        let i = id as usize;
        if i >= self.len {
            return None;
        }
        let (a, b) = (self.offset(i), self.offset(i + 1) - 1);
        self.vocab.get(a..b)
    }

    /// Id of the vocabulary entry spelled exactly `token` (continuations with their `##`).
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.lookup("", token)
    }

    /// Id of the token spelled `prefix` + `rest`.
    fn lookup(&self, prefix: &str, rest: &str) -> Option<u32> {
        let mut slot = home_slot(prefix.as_bytes(), rest.as_bytes());
        for _ in 0..INDEX_SLOTS {
            let id = u16::from_le_bytes([self.slots[slot * 2], self.slots[slot * 2 + 1]]);
            if id == INDEX_EMPTY {
                return None;
            }
            let tok = self.token(u32::from(id))?;
            if tok.len() == prefix.len() + rest.len()
                && tok.starts_with(prefix)
                && tok.ends_with(rest)
            {
                return Some(u32::from(id));
            }
            slot = (slot + 1) & (INDEX_SLOTS - 1);
        }
        None
    }

    /// Number of vocabulary entries (ids are `0..len`).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty vocabulary.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// All token ids of `text`, in order, without `[CLS]`/`[SEP]`; `[UNK]` ([`UNK_ID`]) included.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        self.visit(text, |id| {
            out.push(id);
            true
        });
        out
    }

    /// Calls `f` with each token id of `text` in order; stops early when `f` returns false.
    pub fn visit(&self, text: &str, mut f: impl FnMut(u32) -> bool) {
        // Steps 1-2: clean and pad CJK ideographs.
        let mut cleaned = String::with_capacity(text.len() + 8);
        for c in text.chars() {
            if is_removed(c) {
                continue;
            }
            if is_space(c) {
                cleaned.push(' ');
            } else if is_cjk_ideograph(c) {
                cleaned.push(' ');
                cleaned.push(c);
                cleaned.push(' ');
            } else {
                cleaned.push(c);
            }
        }
        // Steps 3-5: strip accents, lowercase, split into words; step 6 per word.
        let mut word = String::with_capacity(32);
        let mut go = true;
        let ascii = cleaned.is_ascii();
        let mut push = |c: char, word: &mut String, go: &mut bool| {
            if !*go {
                return;
            }
            if is_space(c) {
                *go = self.word_pieces(word, &mut f);
                word.clear();
            } else if is_punctuation(c) {
                *go = self.word_pieces(word, &mut f);
                word.clear();
                if *go {
                    let mut b = [0u8; 4];
                    *go = self.word_pieces(c.encode_utf8(&mut b), &mut f);
                }
            } else {
                word.push(c);
            }
        };
        if ascii {
            for c in cleaned.chars() {
                push(c.to_ascii_lowercase(), &mut word, &mut go);
            }
        } else {
            for c in cleaned.nfd().filter(|&c| !is_mark(c)) {
                for l in c.to_lowercase() {
                    push(l, &mut word, &mut go);
                }
            }
        }
        if go {
            self.word_pieces(&word, &mut f);
        }
    }

    /// WordPiece over one word (no whitespace in it); returns false when `f` asked to stop.
    fn word_pieces(&self, word: &str, f: &mut impl FnMut(u32) -> bool) -> bool {
        if word.is_empty() {
            return true;
        }
        if word.chars().count() > MAX_WORD_CHARS {
            return f(UNK_ID);
        }
        // Greedy longest match first; ids are buffered so an unmatched tail makes the whole word
        // a single [UNK], as in BERT.
        let mut ids: [u32; MAX_WORD_CHARS] = [0; MAX_WORD_CHARS];
        let mut n = 0;
        let mut start = 0;
        while start < word.len() {
            let prefix = if start == 0 { "" } else { "##" };
            let rest = &word[start..];
            let mut end = rest.len();
            let mut found = None;
            while end > 0 {
                if let Some(id) = self.lookup(prefix, &rest[..end]) {
                    found = Some(id);
                    break;
                }
                end -= 1;
                while end > 0 && !rest.is_char_boundary(end) {
                    end -= 1;
                }
            }
            match found {
                Some(id) => {
                    ids[n] = id;
                    n += 1;
                    start += end;
                }
                None => return f(UNK_ID),
            }
        }
        ids[..n].iter().all(|&id| f(id))
    }
}
