//! The charted files' own text as recall evidence: identifiers, comments and strings,
//! reduced to the words the tokeniser indexes.
//!
//! [`extract`] turns a backing file's bytes into plain words for the file-text index
//! (`analyze` then splits camelCase, snake_case and paths and stems them like any other text).
//! What it drops: binary files (a NUL byte in the first [`SNIFF`] bytes), runs that are not
//! words (numbers, hex and base64 blobs, anything over [`MAX_WORD`] bytes) and the keywords of
//! common programming languages, which say nothing about what a file is for. Bounds: callers
//! read at most [`MAX_FILE_BYTES`] of a file; the words kept per file are at most
//! [`MAX_FILE_WORDS`].

use super::Bm25Index;

/// One chart's file-text evidence for one question.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TextScore {
    /// The file-text BM25 as a share of the best chart's for this question, 0..=1.
    pub rank: f32,
    /// Share of the question's IDF mass (in the file-text index) the chart's files hold, 0..=1.
    pub coverage: f32,
}

/// Every chart's [`TextScore`] for `query` in the file-text index `code` (doc numbers as in
/// the chart index), `n` long; charts whose files hold none of the words score 0.
pub fn scores(
    code: &Bm25Index,
    query: &str,
    allowed: &dyn Fn(usize) -> bool,
    n: usize,
) -> Vec<TextScore> {
    let mut out = vec![TextScore::default(); n];
    let cands = code.candidates(query, allowed);
    let best = cands.iter().map(|c| c.bm25).fold(0.0f32, f32::max);
    if best <= 0.0 {
        return out;
    }
    for c in cands {
        if let Some(s) = out.get_mut(c.doc) {
            *s = TextScore {
                rank: c.bm25 / best,
                coverage: c.coverage,
            };
        }
    }
    out
}

/// The most bytes of one backing file read for its text (256 KiB): the head of a larger file.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The most words kept from one file.
pub const MAX_FILE_WORDS: usize = 20_000;

/// Bytes looked at for a NUL to tell a binary file.
pub const SNIFF: usize = 8 * 1024;

/// The most distinct words a chart's files add to the file-text index ([`distinctive`]): the
/// index stays about the size of the charts' own (a few KiB per chart), so loading it costs an
/// ask on a miss well under a millisecond at 1,000 charts.
pub const MAX_CHART_WORDS: usize = 128;

/// Longest run kept as a word, in bytes (longer ones are blobs, hashes, minified code).
pub const MAX_WORD: usize = 48;

/// Keywords of common languages (JavaScript/TypeScript, Python, Rust, Go, Java, Ruby, shell):
/// syntax, not subject matter. Compared lowercase.
const KEYWORDS: &[&str] = &[
    "async",
    "await",
    "const",
    "def",
    "elif",
    "else",
    "export",
    "extends",
    "false",
    "fn",
    "func",
    "impl",
    "import",
    "let",
    "mut",
    "nil",
    "none",
    "null",
    "pub",
    "readonly",
    "return",
    "self",
    "true",
    "undefined",
    "var",
    "void",
    "yield",
];

/// The words of a file's bytes, space-separated, for the file-text index; empty for a binary
/// file. Invalid UTF-8 is replaced, never an error.
pub fn extract(bytes: &[u8]) -> String {
    if bytes[..bytes.len().min(SNIFF)].contains(&0) {
        return String::new();
    }
    extract_words(&String::from_utf8_lossy(bytes))
}

/// [`extract`] of text already decoded.
pub fn extract_words(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(text.len() / 2);
    let mut kept = 0;
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if kept == MAX_FILE_WORDS {
            break;
        }
        if is_word(word) {
            out.push_str(word);
            out.push(' ');
            kept += 1;
        }
    }
    out
}

/// The `max` most telling distinct words of `words` (the [`extract`] of a chart's files), space
/// separated, each once: ranked by `ln(1 + occurrences)` times how informative the word's terms
/// are in general software English (`background::informativeness`, the most informative of its
/// terms), ties by first occurrence. Identifiers and domain words a file is about rank above the
/// vocabulary every file shares.
pub fn distinctive(words: &str, max: usize) -> String {
    distinctive_with(words, max, &mut Default::default())
}

/// [`distinctive`] with `memo` keeping each word's informativeness across calls (one index
/// update analyses each word of a codebase once, not once per chart holding it).
pub fn distinctive_with(
    words: &str,
    max: usize,
    memo: &mut std::collections::HashMap<String, f32>,
) -> String {
    let mut seen: std::collections::HashMap<&str, (usize, usize)> = Default::default();
    for (i, w) in words.split_ascii_whitespace().enumerate() {
        seen.entry(w).or_insert((i, 0)).1 += 1;
    }
    let mut ranked: Vec<(f32, usize, &str)> = seen
        .into_iter()
        .map(|(w, (first, n))| {
            let info = match memo.get(w) {
                Some(&i) => i,
                None => {
                    let i = super::analyze(w)
                        .iter()
                        .map(|t| super::background::informativeness(t))
                        .fold(0.0f32, f32::max);
                    memo.insert(w.to_string(), i);
                    i
                }
            };
            ((n as f32).ln_1p() * info, first, w)
        })
        .filter(|(score, _, _)| *score > 0.0)
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.truncate(max);
    ranked.sort_by_key(|r| r.1);
    let mut out = String::new();
    for (_, _, w) in ranked {
        out.push_str(w);
        out.push(' ');
    }
    out
}

/// True for a run worth indexing: 2 to [`MAX_WORD`] bytes, with a letter, not a long run of
/// mostly digits (`v2` and `s3` stay, `a1b2c3d4e5f6`-like ids too; `123456` and `0xbeef` go),
/// not a keyword, not a random-looking token ([`crate::secret::looks_random`]).
fn is_word(w: &str) -> bool {
    let w = w.trim_matches('_');
    if w.len() < 2 || w.len() > MAX_WORD {
        return false;
    }
    let letters = w.chars().filter(|c| c.is_alphabetic()).count();
    let digits = w.chars().filter(char::is_ascii_digit).count();
    let hex = w.len() > 2 && (w.starts_with("0x") || w.starts_with("0X"));
    if letters == 0 || (digits > letters && w.len() > 4) || hex {
        return false;
    }
    !KEYWORDS.iter().any(|k| w.eq_ignore_ascii_case(k)) && !crate::secret::looks_random(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_identifiers_comments_and_strings() {
        let src = b"// Sends the signing email\nexport async function sendSigningEmail(doc_id: string) {\n  return t('Please sign');\n}\n";
        assert_eq!(
            extract(src),
            "Sends the signing email function sendSigningEmail doc_id string t Please sign "
                .replace(" t ", " ")
        );
    }

    #[test]
    fn drops_binary_blobs_numbers_and_keywords() {
        assert_eq!(extract(b"abc\0def"), "");
        let blob = "a".repeat(MAX_WORD + 1);
        assert_eq!(
            extract(format!("{blob} 12345 0xdeadbeef v2 ok").as_bytes()),
            "v2 ok "
        );
        assert_eq!(extract(b"const x = null; let y"), "");
    }

    #[test]
    fn bounds_the_words_of_one_file() {
        let big = "word ".repeat(MAX_FILE_WORDS + 10);
        assert_eq!(
            extract(big.as_bytes())
                .split(' ')
                .filter(|w| !w.is_empty())
                .count(),
            MAX_FILE_WORDS
        );
    }
}

/// The file text in the decision: charts shown and answers corroborated by their files.
#[cfg(test)]
mod decision_tests {
    use super::*;
    use crate::recall::{decide, semantic, Ask, Doc};

    /// A store of charts (question, file text) with its chart index, vectors and text index.
    struct Store {
        bm25: Bm25Index,
        code: Bm25Index,
        vectors: semantic::Vectors,
        qs: Vec<String>,
    }

    fn store(charts: &[(&str, &str)]) -> Store {
        let model = crate::embed::model().expect("this build embeds a model");
        let files: Vec<Vec<String>> = (0..charts.len())
            .map(|i| vec![format!("src/f{i}.ts")])
            .collect();
        let docs: Vec<Doc<'_>> = charts
            .iter()
            .zip(&files)
            .map(|((q, _), f)| Doc {
                question: q,
                details: "",
                files: f,
            })
            .collect();
        let texts: Vec<String> = charts
            .iter()
            .map(|(_, t)| distinctive(&extract(t.as_bytes()), MAX_CHART_WORDS))
            .collect();
        let tdocs: Vec<Doc<'_>> = texts
            .iter()
            .map(|t| Doc {
                question: "",
                details: t,
                files: &[],
            })
            .collect();
        Store {
            bm25: Bm25Index::build(&docs),
            code: Bm25Index::build(&tdocs),
            vectors: semantic::embed_all(model, charts.iter().map(|(q, _)| (*q, ""))),
            qs: charts.iter().map(|(q, _)| q.to_string()).collect(),
        }
    }

    /// The store's charts, each backed by `src/f{doc}.ts`, with the file-text index when
    /// `with_code`.
    struct WithCode<'a> {
        s: &'a Store,
        with_code: bool,
    }

    impl crate::recall::Source for WithCode<'_> {
        fn text(&self, d: usize) -> Option<crate::recall::gate::DocText> {
            self.s.qs.get(d).map(|q| crate::recall::gate::DocText {
                question: q.clone(),
                details: String::new(),
                files: vec![format!("src/f{d}.ts")],
            })
        }

        fn code(&self) -> Option<&Bm25Index> {
            self.with_code.then_some(&self.s.code)
        }
    }

    fn ask(s: &Store, query: &str, with_code: bool) -> decide::Decision {
        let model = crate::embed::model().unwrap();
        let t = model.thresholds();
        let ask = Ask {
            query,
            limit: 5,
            thresholds: &t,
            source: &WithCode { s, with_code },
        };
        let q = model.embed(query);
        decide::search(&s.bm25, Some((&s.vectors, &q)), &ask, Some(model))
    }

    const CHARTS: [(&str, &str); 4] = [
        ("Where is a finished document sealed into its final PDF with its certificate and audit trail?", "// Seals a completed document: stamps the certificate page and signs the PDF.\nexport async function sealDocument(documentId: string) {\n  const pdf = await loadPdf(documentId);\n  await addCertificatePage(pdf);\n  await signPdfWithKey(pdf, process.env.SIGNING_KEY);\n  await sendCompletedEmail(documentId);\n}\n"),
        ("Where are organisation members invited?", "// Invites a member to the organisation and syncs billing seats.\nexport async function inviteMember(orgId: string, email: string) {\n  await createInvitation(orgId, email);\n  await syncSeatCount(orgId);\n}\n"),
        ("Where are payment webhooks verified and handled?", "// Verifies the Stripe signature and dispatches the event to a handler.\nexport function handleStripeWebhook(body: string, signature: string) {\n  const event = verifySignature(body, signature);\n  dispatchEvent(event);\n}\n"),
        ("How is the colour palette applied?", "// Applies the user's colour preferences to the page.\nexport function applyPalette(palette: string) { document.body.dataset.palette = palette; }\n"),
    ];

    fn shown(d: &decide::Decision) -> (Vec<usize>, Vec<usize>) {
        (
            d.answers.iter().map(|h| h.doc).collect(),
            d.candidates.iter().map(|c| c.hit.doc).collect(),
        )
    }

    /// A chart stopped only by a common word its files hold answers (without the files' text it
    /// is a candidate); in a short question the lacking word is what it asks and stays lacking.
    #[test]
    fn a_strong_candidate_whose_files_hold_the_missing_word_answers() {
        let s = store(&CHARTS);
        let page =
            "where is a finished document sealed into its final PDF page with its certificate?";
        assert_eq!(shown(&ask(&s, page, true)), (vec![0], vec![]));
        assert_eq!(shown(&ask(&s, page, false)), (vec![], vec![0]));
        // In a short question the lacking word is what it asks: never made up by the files.
        let body = "how is the colour palette applied to the body?";
        assert_eq!(shown(&ask(&s, body, true)), (vec![], vec![3]));
        // A rarer word (another thing) never answers, even when the files hold it.
        let stripe = "where are stripe webhooks verified and handled?";
        assert_eq!(shown(&ask(&s, stripe, true)), (vec![], vec![2]));
    }

    /// The files' text shows a chart whose words do not name what is asked; an unrelated
    /// question still shows nothing.
    #[test]
    fn the_files_text_shows_a_chart_and_an_unrelated_question_shows_nothing() {
        let s = store(&CHARTS);
        let q = "where is the stripe signature checked?";
        assert_eq!(shown(&ask(&s, q, false)), (vec![], vec![]));
        assert_eq!(shown(&ask(&s, q, true)).1.first(), Some(&2));
        let helm = "where is the kubernetes helm chart deployed?";
        assert_eq!(shown(&ask(&s, helm, true)), (vec![], vec![]));
    }
}
