//! Questions that ask for the opposite of what a chart says: "Where are emails received?"
//! against the chart "Where are emails sent?", "How does a user log out?" against "…log in?",
//! "…marked as unpaid?" against "…marked as paid?".
//!
//! The answer gate ([`super::gate`]) matches words by meaning with token vectors, and
//! distributional vectors put opposites close: they occur in the same contexts ("sent" and
//! "received" 0.75, "enabled" and "disabled" 0.80, "paid" and "unpaid" 0.57 in the embedded
//! model), and a particle ("in", "out") is a stop word that weighs nothing. So opposites are
//! told apart here, by form and by a list, before any vector is consulted:
//!
//! - **Negating prefix.** `un-` or `non-` before a word of at least four letters (`unpaid` /
//!   `paid`, `unlock` / `lock`, `nonblocking` / `blocking`). Other negating prefixes (`in-`,
//!   `dis-`) also begin ordinary words (`input`/`put`, `display`/`play`), so their pairs are
//!   listed instead.
//! - **Listed pairs** ([`PAIRS`]): opposite actions and states of software English (send /
//!   receive, enable / disable, upload / download, encrypt / decrypt, …), compared by stem so
//!   inflections count (`sends`, `sending`). Written for this gate from general vocabulary, not
//!   from any benchmark's questions.
//! - **Opposite particles** after the same word: `log in` / `log out`, `turn on` / `turn off`,
//!   `scale up` / `scale down`.
//!
//! A question word contradicts a chart when the chart's question holds its opposite and not the
//! word itself (by stem or an irregular form: "sent" holds "send"), and the question does not
//! name the opposite too (then it asks about both): such a chart is at most a "related"
//! suggestion, however close it ranks. The chart's details and paths do not count either way:
//! they name the other side in passing ("catches unhandled rejections") or point elsewhere
//! ("downloads are served from cdn.ts, not here").

use super::tokenize::{pieces, Analyzer, Piece};
use std::collections::HashSet;

/// Opposite words of software English, both directions implied. Irregular forms are listed
/// beside their stems (`sent` / `received`).
pub const PAIRS: &[(&str, &str)] = &[
    ("send", "receive"),
    ("sent", "received"),
    ("sender", "receiver"),
    ("sender", "recipient"),
    ("enable", "disable"),
    ("allow", "disallow"),
    ("allow", "deny"),
    ("accept", "reject"),
    ("approve", "reject"),
    ("show", "hide"),
    ("shown", "hidden"),
    ("visible", "hidden"),
    ("visible", "invisible"),
    ("open", "close"),
    ("start", "stop"),
    ("begin", "end"),
    ("create", "delete"),
    ("create", "destroy"),
    ("add", "remove"),
    ("insert", "remove"),
    ("push", "pull"),
    ("upload", "download"),
    ("import", "export"),
    ("read", "write"),
    ("reader", "writer"),
    ("encrypt", "decrypt"),
    ("encode", "decode"),
    ("serialize", "deserialize"),
    ("serialise", "deserialise"),
    ("compress", "decompress"),
    ("connect", "disconnect"),
    ("login", "logout"),
    ("signin", "signout"),
    ("signup", "signout"),
    ("subscribe", "unsubscribe"),
    ("register", "deregister"),
    ("activate", "deactivate"),
    ("active", "inactive"),
    ("valid", "invalid"),
    ("complete", "incomplete"),
    ("correct", "incorrect"),
    ("secure", "insecure"),
    ("public", "private"),
    ("input", "output"),
    ("inbound", "outbound"),
    ("incoming", "outgoing"),
    ("request", "response"),
    ("success", "failure"),
    ("succeed", "fail"),
    ("successful", "failed"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("increase", "decrease"),
    ("increment", "decrement"),
    ("upgrade", "downgrade"),
    ("first", "last"),
    ("before", "after"),
    ("next", "previous"),
    ("online", "offline"),
    ("install", "uninstall"),
    ("install", "remove"),
    ("install", "delete"),
    ("acquire", "release"),
    ("connect", "disconnect"),
    ("encode", "decode"),
    ("compress", "decompress"),
    ("save", "load"),
    ("mount", "unmount"),
    ("grant", "revoke"),
    ("attach", "detach"),
    ("expand", "collapse"),
    ("credit", "debit"),
    ("deposit", "withdraw"),
    ("buy", "sell"),
    ("ascending", "descending"),
    ("asc", "desc"),
    ("include", "exclude"),
    ("pause", "resume"),
    ("suspend", "resume"),
    ("freeze", "unfreeze"),
    ("select", "deselect"),
    ("synchronous", "asynchronous"),
    ("sync", "async"),
    ("lock", "unlock"),
    ("paid", "unpaid"),
    ("upvote", "downvote"),
    ("light", "dark"),
    ("external", "internal"),
    ("enqueue", "dequeue"),
    ("allowlist", "denylist"),
    ("whitelist", "blacklist"),
    ("upstream", "downstream"),
    ("old", "new"),
];

/// Irregular forms of one word, so a chart saying "sent" holds the asked "send" (the stemmer
/// merges regular inflections only).
const SAME: &[(&str, &str)] = &[
    ("send", "sent"),
    ("write", "written"),
    ("write", "wrote"),
    ("hide", "hidden"),
    ("hide", "hid"),
    ("show", "shown"),
    ("begin", "began"),
    ("begin", "begun"),
    ("buy", "bought"),
    ("sell", "sold"),
    ("lose", "lost"),
    ("win", "won"),
    ("get", "got"),
    ("run", "ran"),
    ("find", "found"),
    ("make", "made"),
    ("build", "built"),
];

/// [`PAIRS`] with each word's stem, worked out once per process: (word, stem, word, stem).
fn pair_stems() -> &'static [(&'static str, String, &'static str, String)] {
    static STEMS: std::sync::OnceLock<Vec<(&str, String, &str, String)>> =
        std::sync::OnceLock::new();
    STEMS.get_or_init(|| {
        let analyzer = Analyzer::default();
        PAIRS
            .iter()
            .map(|&(a, b)| (a, analyzer.stem_word(a), b, analyzer.stem_word(b)))
            .collect()
    })
}

/// Particles that reverse a verb ("log in" / "log out" / "log off"): each of the first set is
/// the opposite of each of the second.
const PARTICLES: (&[&str], &[&str]) = (&["in", "on", "up"], &["out", "off", "down"]);

/// Negating prefixes recognised by form (module docs).
const NEGATING: &[&str] = &["un", "non"];

/// A word and its stem.
type WordStem = (String, String);

/// What a question could contradict, found once per question.
#[derive(Debug, Clone, Default)]
pub struct Opposable {
    /// Per question word that has opposites: the word as asked, its stem, its opposites (word
    /// and stem).
    words: Vec<(String, String, Vec<WordStem>)>,
    /// Per "word particle" pair of the question: the phrase as asked, the word's stem, the
    /// particle, and the opposite particles.
    phrases: Vec<(String, String, &'static str, &'static [&'static str])>,
}

impl Opposable {
    /// The words and phrases of `question` that have opposites.
    pub fn of(question: &str) -> Opposable {
        let analyzer = Analyzer::default();
        let words = words_of(question);
        let stems: Vec<String> = words.iter().map(|w| analyzer.stem_word(w)).collect();
        let mut out = Opposable::default();
        for (w, stem) in words.iter().zip(&stems) {
            let mut opposites: Vec<WordStem> = pair_stems()
                .iter()
                .filter_map(|(a, sa, b, sb)| {
                    if sa == stem {
                        Some((b.to_string(), sb.clone()))
                    } else if sb == stem {
                        Some((a.to_string(), sa.clone()))
                    } else {
                        None
                    }
                })
                .collect();
            for p in NEGATING {
                if let Some(rest) = w.strip_prefix(p).filter(|r| r.len() >= 4) {
                    opposites.push((rest.to_string(), analyzer.stem_word(rest)));
                }
                // The positive word's negated forms (`paid` → `unpaid`).
                if w.len() >= 4 {
                    let negated = format!("{p}{w}");
                    let s = analyzer.stem_word(&negated);
                    opposites.push((negated, s));
                }
            }
            opposites.retain(|(_, o)| o != stem);
            if !opposites.is_empty() {
                out.words.push((w.clone(), stem.clone(), opposites));
            }
        }
        // A question that names both sides ("rejects mismatches, and accepted messages…") asks
        // about both: neither word contradicts a chart holding the other.
        let asked: HashSet<&String> = stems.iter().collect();
        out.words
            .retain(|(_, _, opposites)| !opposites.iter().any(|(_, o)| asked.contains(o)));
        for (i, pair) in words.windows(2).enumerate() {
            let (ups, downs) = PARTICLES;
            for (set, other) in [(ups, downs), (downs, ups)] {
                if let Some(&p) = set.iter().find(|p| **p == pair[1]) {
                    out.phrases
                        .push((format!("{} {p}", pair[0]), stems[i].clone(), p, other));
                }
            }
        }
        out
    }

    /// Keeps only the opposites `keep(word, stem)` allows (the gate keeps those a store could
    /// hold: indexed terms, and stop words, which the index leaves out), and the words left
    /// with one. So most questions have nothing to check, and no chart text is read for them.
    pub fn retain(&mut self, keep: &dyn Fn(&str, &str) -> bool) {
        for (_, _, opposites) in &mut self.words {
            opposites.retain(|(w, s)| keep(w, s));
        }
        self.words.retain(|(_, _, opposites)| !opposites.is_empty());
    }

    /// True when the question has nothing a chart could contradict (the common case: no chart
    /// text needs reading).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.phrases.is_empty()
    }

    /// The question word or phrase (as asked) whose opposite the chart's question holds while
    /// not holding it (by stem or an irregular form); `None` when there is none. Only the chart's
    /// question counts: its details often name the other side in passing ("catches unhandled
    /// rejections", "downloads are served elsewhere").
    pub fn contradicted<'a>(&'a self, chart_question: &str) -> Option<&'a str> {
        if self.is_empty() {
            return None;
        }
        let analyzer = Analyzer::default();
        let words = words_of(chart_question);
        let stemmed: Vec<String> = words.iter().map(|w| analyzer.stem_word(w)).collect();
        let mut stems: HashSet<String> = stemmed.iter().cloned().collect();
        // An irregular form holds its base word too ("sent" holds "send").
        for w in &words {
            for &(base, form) in SAME {
                if w == form {
                    stems.insert(analyzer.stem_word(base));
                }
            }
        }
        let bigrams: HashSet<(&str, &str)> = stemmed
            .iter()
            .zip(words.iter().skip(1))
            .map(|(s, next)| (s.as_str(), next.as_str()))
            .collect();
        for (word, stem, opposites) in &self.words {
            if !stems.contains(stem) && opposites.iter().any(|(_, o)| stems.contains(o)) {
                return Some(word);
            }
        }
        for (phrase, stem, particle, opposites) in &self.phrases {
            let has = |p: &str| bigrams.contains(&(stem.as_str(), p));
            if !has(particle) && opposites.iter().any(|o| has(o)) {
                return Some(phrase);
            }
        }
        None
    }
}

/// The lowercase words of `text` in order, stop words kept (particles are stop words); camelCase
/// parts and codes as the tokeniser splits them.
fn words_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = String::new();
    pieces(text, &mut buf, &mut |p| {
        if let Piece::Word(w) = p {
            out.push(w.to_string());
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contradicted(question: &str, chart: &str) -> Option<String> {
        Opposable::of(question)
            .contradicted(chart)
            .map(str::to_string)
    }

    /// Question, chart, and the question word the chart holds the opposite of.
    const CONTRADICTED: [(&str, &str, &str); 13] = [
        // A tester's repros on capn-hook's own code: removing is not installing, releasing a
        // lock is not acquiring it.
        (
            "How are hooks removed from Claude Code settings?",
            "How are hooks installed into Claude Code settings?",
            "removed",
        ),
        (
            "How is the store lock released?",
            "How is the store lock acquired?",
            "released",
        ),
        (
            "Where are emails received?",
            "Where are emails sent?",
            "received",
        ),
        (
            "How does a user log out?",
            "How does a user log in?",
            "log out",
        ),
        (
            "Where is an invoice marked as unpaid?",
            "Where is an invoice marked as paid?",
            "unpaid",
        ),
        (
            "where is the account unlocked",
            "where is the account locked",
            "unlocked",
        ),
        (
            "which files decrypt the token",
            "which files encrypt the token",
            "decrypt",
        ),
        (
            "Where are invalid coupons rejected?",
            "Where are valid coupons accepted?",
            "invalid",
        ),
        (
            "how are users disabled",
            "how are users enabled",
            "disabled",
        ),
        (
            "Where is the last page rendered?",
            "Where is the first page rendered?",
            "last",
        ),
        (
            "where is the login handled in the app",
            "where is logout handled",
            "login",
        ),
        (
            "How does a user log off?",
            "How does a user log in?",
            "log off",
        ),
        (
            "Where are files downloaded?",
            "Where are files uploaded?",
            "downloaded",
        ),
    ];

    /// Question and chart pairs that hold no opposite of each other.
    const NOT_CONTRADICTED: [(&str, &str); 7] = [
        // The chart holds the word itself too (it covers both directions).
        (
            "Where are emails received?",
            "Where are emails sent and received?",
        ),
        // The question names both sides.
        (
            "where are rejected and accepted messages counted",
            "where are rejected messages counted",
        ),
        // Rewordings and inflections.
        ("where do we send emails", "Where are emails sent?"),
        ("How does a user sign in?", "How does a user log in?"),
        (
            "where is the unique key checked",
            "where is the que key checked",
        ),
        ("where is input parsed", "where is put handled"),
        ("How does a user log in?", "How does a user log in?"),
    ];

    #[test]
    fn opposites_contradict_and_the_same_words_do_not() {
        for (q, chart, word) in CONTRADICTED {
            assert_eq!(
                contradicted(q, chart).as_deref(),
                Some(word),
                "{q} / {chart}"
            );
        }
        for (q, chart) in NOT_CONTRADICTED {
            assert_eq!(contradicted(q, chart), None, "{q} / {chart}");
        }
    }
}
