//! Secrets never enter the memory: the one place that tells whether a text holds one.
//!
//! A chart's question, details and files, its phrasings (confirmed with `--like` or learned from
//! use) and the `/compact-prep` state are written by an agent that has just read `.env` files,
//! configs and logs; in a shared store they are committed and pushed for the whole team. Every
//! one of those writes asks [`refuse`] (or [`find`]) first, and an entry written by hand or
//! pulled from a teammate that holds one is never shown. No word of a charted file is kept
//! under `.capn/`: recall reads a chart's files only to corroborate it, at the time of the ask.
//!
//! What counts ([`rules`]): well-known token formats (gitleaks' published rules: cloud keys,
//! GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google tokens, JWTs, private key blocks...),
//! a URL with a password in it, and a high-entropy value assigned to a secret-like name
//! (`password`, `secret`, `token`, `api_key`...). Words about secrets (`STRIPE_SECRET_KEY`,
//! "rotates the API key"), hashes (SHA-256 or git hex), UUIDs and identifiers are not secrets.
//!
//! A finding names the kind and where (byte offsets, shown as 1-based character positions),
//! never the value. Cost: one Aho-Corasick pass over the text for the rules' keywords, then
//! only the rules whose keyword it holds (and the few without one) run; each regex is compiled
//! once per process, the first time it is needed.

mod rules;
#[cfg(test)]
mod samples;
#[cfg(test)]
mod tests;

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};
use rules::{Check, Rule, RULES};
use std::sync::{LazyLock, OnceLock};

/// What one rule found: its kind and the secret's byte range in the text, never the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Finding {
    /// What it looks like ("an AWS access key ID").
    pub kind: &'static str,
    /// The rule's id (gitleaks' or `capn-…`).
    pub rule: &'static str,
    /// Byte offset of the secret's first byte.
    pub start: usize,
    /// Byte offset just past its last byte.
    pub end: usize,
}

impl Finding {
    /// Where it is in `text` (the text it was found in), for a message: `characters 12-51`
    /// (1-based, inclusive), or `line 3, characters 5-44` when `text` has more than one line,
    /// or `lines 3-30` for a secret that spans lines (a PEM block).
    pub(crate) fn place(&self, text: &str) -> String {
        let bytes = text.as_bytes();
        let start = self.start.min(bytes.len());
        let end = self.end.min(bytes.len()).max(start);
        let line_start = bytes[..start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let first = chars_in(&bytes[line_start..start]) + 1;
        let last = first + chars_in(&bytes[start..end]).max(1) - 1;
        if !bytes.contains(&b'\n') {
            return format!("characters {first}-{last}");
        }
        let line = bytes[..start].iter().filter(|&&b| b == b'\n').count() + 1;
        // A secret over several lines (a PEM block) is named by its lines: a character range
        // counted across line breaks points nowhere a reader can find.
        let inner = bytes[start..end.saturating_sub(1).max(start)]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        if inner > 0 {
            format!("lines {line}-{}", line + inner)
        } else {
            format!("line {line}, characters {first}-{last}")
        }
    }
}

/// UTF-8 characters in `bytes` (a cut character counts once).
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// One matcher over every rule's keywords (ASCII case-insensitive), with the rule each keyword
/// (pattern id) belongs to.
static KEYWORDS: LazyLock<(AhoCorasick, Vec<usize>)> = LazyLock::new(|| {
    let mut words = Vec::new();
    let mut owner = Vec::new();
    for (i, r) in RULES.iter().enumerate() {
        for k in r.keywords {
            words.push(*k);
            owner.push(i);
        }
    }
    // A contiguous NFA builds in a tenth of the time of the DFA the builder would pick, which
    // matters more than search speed on the short texts of a chart.
    let ac = AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .ascii_case_insensitive(true)
        .build(&words)
        .expect("the secret rules' keywords build a matcher");
    (ac, owner)
});

/// Each rule's regex, compiled the first time a text holds one of its keywords.
static COMPILED: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| RULES.iter().map(|_| OnceLock::new()).collect());

/// Rule `i`'s regex (RE2 semantics: ASCII classes, see [`rules`]).
fn regex(i: usize) -> &'static Regex {
    COMPILED[i].get_or_init(|| {
        RegexBuilder::new(RULES[i].regex)
            .unicode(false)
            .size_limit(32 << 20)
            .build()
            .unwrap_or_else(|e| panic!("secret rule {}: {e}", RULES[i].id))
    })
}

/// Texts up to this many bytes are searched for each keyword in turn (a chart's question and
/// details: microseconds); longer ones (a backing file) in one pass of [`KEYWORDS`], whose
/// matcher takes longer to build than a short text takes to search.
const SHORT_TEXT: usize = 16 * 1024;

/// The rules worth running on `text`: those whose keyword it holds (those without one always),
/// and whose [`could_hold`] passes.
fn candidates(text: &[u8]) -> Vec<usize> {
    let mut on: Vec<bool> = RULES.iter().map(|r| r.keywords.is_empty()).collect();
    if text.len() <= SHORT_TEXT {
        let lower = text.to_ascii_lowercase();
        for (i, r) in RULES.iter().enumerate() {
            on[i] |= r
                .keywords
                .iter()
                .any(|k| memchr::memmem::find(&lower, k.as_bytes()).is_some());
        }
    } else {
        let (ac, owner) = &*KEYWORDS;
        for m in ac.find_overlapping_iter(text) {
            on[owner[m.pattern().as_usize()]] = true;
        }
    }
    (0..RULES.len())
        .filter(|&i| on[i] && could_hold(&RULES[i], text))
        .collect()
}

/// A cheap test that `text` could hold what `rule`'s [`Check`] asks for, so that most texts
/// never compile or run capn's own rules: a run of exactly 40 base64 characters
/// ([`Check::Mixed`]), an `@` ([`Check::UrlPassword`]), an `=` or `:` and a run of 12 value
/// characters with two digits ([`Check::Assigned`]).
fn could_hold(rule: &Rule, text: &[u8]) -> bool {
    let b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    match rule.check {
        Check::None => true,
        Check::Mixed => runs(text, b64).any(|r| r.len() == 40),
        Check::UrlPassword => memchr::memchr(b'@', text).is_some(),
        Check::Assigned => {
            memchr::memchr2(b'=', b':', text).is_some()
                && runs(text, |b| b.is_ascii_graphic())
                    .any(|r| r.len() >= 12 && r.iter().filter(|b| b.is_ascii_digit()).count() >= 2)
        }
    }
}

/// The maximal runs of bytes of `text` that satisfy `keep`.
fn runs(text: &[u8], keep: impl Fn(u8) -> bool + Copy) -> impl Iterator<Item = &[u8]> {
    text.split(move |&b| !keep(b)).filter(|r| !r.is_empty())
}

/// Every secret in `text`, in rule order then position (overlapping findings of different rules
/// are all there).
pub(crate) fn find_all(text: &[u8]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut lowered: Option<Vec<u8>> = None;
    for i in candidates(text) {
        let rule = &RULES[i];
        let hay = if rule.lowercase {
            lowered.get_or_insert_with(|| text.to_ascii_lowercase())
        } else {
            text
        };
        for caps in regex(i).captures_iter(hay) {
            // The secret is the last group (the whole match when there is none).
            let Some(m) = caps.get(caps.len() - 1) else {
                continue;
            };
            if confirmed(rule, &caps, &text[m.range()]) {
                out.push(Finding {
                    kind: rule.kind,
                    rule: rule.id,
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
    }
    out
}

/// The first secret in `text` (the leftmost; of two at one place, the first rule's), if any.
pub(crate) fn find(text: &str) -> Option<Finding> {
    find_all(text.as_bytes())
        .into_iter()
        .min_by_key(|f| f.start)
}

/// Whether a match of `rule` is a secret: its entropy and extra [`Check`].
fn confirmed(rule: &Rule, caps: &regex::bytes::Captures<'_>, secret: &[u8]) -> bool {
    if rule.entropy > 0.0 && entropy(secret) < rule.entropy {
        return false;
    }
    match rule.check {
        Check::None => true,
        Check::Mixed => mixed(secret),
        Check::UrlPassword => {
            let user = caps.get(1).map_or(&b""[..], |m| m.as_bytes());
            let pass = caps.get(2).map_or(&b""[..], |m| m.as_bytes());
            !placeholder(pass) && pass != user
        }
        Check::Assigned => assigned_value(secret),
    }
}

/// Shannon entropy of `bytes`, in bits per byte (0 for an empty slice).
pub(crate) fn entropy(bytes: &[u8]) -> f32 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    let n = bytes.len() as f32;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f32 / n;
            -p * p.log2()
        })
        .sum()
}

/// The character classes of a token: upper, lower, digit, other; and how often two neighbours
/// differ in class (a random token switches about every other character, a word or a path
/// rarely).
fn classes(bytes: &[u8]) -> ([usize; 4], usize) {
    let class = |b: u8| match b {
        b'A'..=b'Z' => 0,
        b'a'..=b'z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let mut counts = [0; 4];
    for &b in bytes {
        counts[class(b)] += 1;
    }
    let switches = bytes
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    (counts, switches)
}

/// A random-looking base64/base62 token: upper- and lower-case letters and a digit, switching
/// class at least every third character on average, with high entropy.
fn mixed(bytes: &[u8]) -> bool {
    let ([upper, lower, digit, _], switches) = classes(bytes);
    upper > 0 && lower > 0 && digit > 0 && switches * 8 >= bytes.len() * 3 && entropy(bytes) >= 4.3
}

/// A URL password that stands for one rather than being one.
fn placeholder(pass: &[u8]) -> bool {
    const WORDS: &[&str] = &[
        "password", "passwd", "pass", "pwd", "secret", "changeme", "example", "user", "username",
        "admin", "root", "postgres", "mysql", "redis", "guest", "test", "token", "xxx", "your",
    ];
    let lower = String::from_utf8_lossy(pass).to_ascii_lowercase();
    let bare = lower.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    pass.len() < 3
        || matches!(pass[0], b'$' | b'<' | b'{' | b'[' | b'%' | b'*' | b'.')
        || pass.iter().all(|&b| b == pass[0])
        || WORDS
            .iter()
            .any(|w| bare == *w || bare.starts_with(&format!("{w}_")))
        || bare.starts_with("your")
}

/// The value of `name = value` is a secret rather than a reference to one: long, with letters
/// and at least two digits, not an identifier (`UPPER_SNAKE`, `lower_snake`, a dotted path such
/// as `process.env.API_TOKEN`), and random-looking ([`classes`]).
fn assigned_value(v: &[u8]) -> bool {
    let ([upper, lower, digit, _], switches) = classes(v);
    if v.len() < 12 || upper + lower == 0 || digit < 2 {
        return false;
    }
    let ident = |s: &[u8]| {
        s.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && s.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let dotted = v.contains(&b'.') && v.split(|&b| b == b'.').all(ident);
    let snake = ident(v) && v.contains(&b'_') && (upper == 0 || lower == 0);
    !dotted && !snake && switches * 4 >= v.len()
}

/// Whether one word of a file (a run of letters, digits and `_`) looks like a random token: 16
/// bytes or more, upper- and lower-case letters and two digits or more, switching class at
/// least every third character on average, with high entropy (an identifier such as
/// `useTeam2FASettings` switches far less). The charted files' words that recall compares drop
/// such words.
pub(crate) fn looks_random(word: &str) -> bool {
    let b = word.as_bytes();
    if b.len() < 16 {
        return false;
    }
    let ([upper, lower, digit, _], switches) = classes(b);
    upper > 0 && lower > 0 && digit > 1 && switches * 8 >= b.len() * 3 && entropy(b) >= 3.8
}

/// `Ok` when none of `fields` (what the flag or argument is called, its text) holds a secret;
/// else the refusal for the first that does: `{action}: {field} holds what looks like {kind}
/// ({place}); ...; nothing was written`, naming the kind and where, never the value.
pub(crate) fn refuse(action: &str, fields: &[(&str, &str)]) -> Result<(), crate::error::Refused> {
    for (field, text) in fields {
        if let Some(f) = find(text) {
            return Err(crate::error::Refused(format!(
                "{action}: {field} holds what looks like {} ({}); capn never stores a secret (its memory is shown to agents, and a shared one is committed): leave the value out, name where it lives instead (a variable or file); nothing was written",
                f.kind,
                f.place(text)
            )));
        }
    }
    Ok(())
}
