//! One charted answer: `.capn/entries/<id>.md` (format version 1, compatible with capn-hook 0.2).
//!
//! ```text
//! ---
//! capn: 1
//! id: 9f3a1c2e
//! at: 2026-07-03T18:00:00.000Z
//! files:
//!   src/api/webhooks.ts: 2f4c...32
//!   "docs/a: b.md": 5e88...
//! ---
//!
//! # Where are payment webhooks handled?
//!
//! Router starts near line 40.
//!
//! ## Also asked as
//! - where do stripe callbacks get processed?
//! ```
//! The `# ` heading is the chart's question (the one capn-hook 0.2 reads); other phrasings the
//! agent confirmed for it (`capn chart "<words>" --like <id>`, or charting the same files with a
//! similar question) follow the details as a last `## Also asked as` section of `- ` lines.
//! Words learned from use are never written here (`super::learned`: they rank, never answer).
//! In a shared store git merges entries line by line (`super::conflict::GITATTRIBUTES`), so
//! two sides' phrasings both land in that section. capn 0.2 reads that section as part of the details (verbatim, so it survives 0.2 reading and
//! listing the entry; charting the same question again in 0.2 replaces the entry, dropping it).
//! Frontmatter keys capn does not know are kept (`Entry::extra`) and written back after
//! `files:`. Rules (format.md, "`.capn/entries/<id>.md`"): keys sorted, `/`-separated, relative to the project
//! root; a key that is not a plain safe token is written as a JSON string literal; readers strip a
//! UTF-8 BOM and accept CRLF; writers emit LF.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The entry format version written in the `capn:` line.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// A parsed entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Entry {
    /// 8, 12 or 16 lowercase hex digits: a prefix of SHA-256 of the question's UTF-8 bytes.
    pub id: String,
    /// RFC 3339 timestamp (format.md: UTC, milliseconds, `Z`), as written; empty when the
    /// entry has none or one that is not an RFC 3339 timestamp of at most [`MAX_AT_BYTES`]
    /// (treated as absent, as a missing `at` always was, so the entry still answers).
    pub at: String,
    /// Backing files: path relative to the project root → 64 lowercase hex digits of SHA-256.
    pub files: BTreeMap<String, String>,
    /// The question (one line, never empty).
    pub question: String,
    /// The details (may be empty; never ends in a newline), without the phrasings section.
    pub details: String,
    /// Other phrasings of the question, confirmed to ask the same thing (one line each, none
    /// equal to the question or to each other once [`crate::recall::gate::normalise_question`]d),
    /// oldest first; at most [`MAX_PHRASINGS`].
    #[serde(default)]
    pub phrasings: Vec<String>,
    /// Frontmatter lines of keys capn does not know, in file order: each key line as
    /// `key: value` (trimmed), the indented or `- ` lines of its YAML block after it as written.
    /// Kept and written back after `files:`, so a rewrite loses nothing another tool or a newer
    /// capn put there.
    #[serde(default)]
    pub extra: Vec<String>,
}

/// The heading of the section that holds an entry's other phrasings (module docs).
pub(crate) const PHRASINGS_HEADING: &str = "## Also asked as";

/// The most other phrasings an entry keeps: adding one more drops the oldest.
pub(crate) const MAX_PHRASINGS: usize = 8;

/// The full lowercase hex SHA-256 of a question; ids are prefixes of it.
pub(crate) fn question_hash(question: &str) -> String {
    crate::hex::encode(&Sha256::digest(question.as_bytes()))
}

/// The id lengths tried in order when a shorter prefix belongs to a different question.
pub(crate) const ID_LENGTHS: [usize; 3] = [8, 12, 16];

/// True when `s` is a valid entry id: 8 to 64 lowercase hex digits.
pub(crate) fn is_valid_id(s: &str) -> bool {
    (8..=64).contains(&s.len()) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The longest `at` value kept, in bytes (`2026-07-03T18:00:00.000Z` is 24; RFC 3339 allows
/// more fraction digits and an offset).
pub(crate) const MAX_AT_BYTES: usize = 40;

/// `at` when it is an RFC 3339 timestamp of at most [`MAX_AT_BYTES`] bytes, else empty: an
/// entry's `at` is entry-controlled text that lands in session records and output (a 70,000-digit
/// one made `offered.json` too big to read).
pub(crate) fn valid_at(at: &str) -> String {
    let ok = at.len() <= MAX_AT_BYTES && chrono::DateTime::parse_from_rfc3339(at).is_ok();
    if ok {
        at.to_string()
    } else {
        String::new()
    }
}

/// True when a file name in the entries folder names an entry file: `*.md`, not hidden (temp
/// files and editors' backups start with a dot). Whether it parses is another matter.
pub(crate) fn is_entry_file_name(name: &str) -> bool {
    name.ends_with(".md") && !name.starts_with('.')
}

/// True when `s` is 64 lowercase hex digits.
pub(crate) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// True when `key` is a well-formed path key: relative to the project root, `/`-separated, with
/// no empty, `.` or `..` component, no NUL and no backslash. Anything else (a hand-edited `../x`,
/// `/etc/x`, a Windows-style `sub\x`) could point outside the project or name another file than
/// meant, so an entry holding it is malformed.
pub(crate) fn is_valid_key(key: &str) -> bool {
    !key.is_empty()
        && !key.contains('\0')
        && !key.contains('\\')
        && key
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// True when a path key must be written as a JSON string literal: it contains `:`, `"`, `#` or a
/// control character, has leading or trailing white space, starts with `-`, or is empty.
pub(crate) fn key_needs_quoting(key: &str) -> bool {
    key.is_empty()
        || key.starts_with('-')
        || key.starts_with(char::is_whitespace)
        || key.ends_with(char::is_whitespace)
        || key
            .chars()
            .any(|c| c == ':' || c == '"' || c == '#' || c.is_control())
}

impl Entry {
    /// Renders the entry in the canonical v1 form (LF line ends, keys sorted).
    pub(crate) fn render(&self) -> String {
        let mut s = String::with_capacity(256 + self.details.len());
        s.push_str("---\n");
        let _ = writeln!(s, "capn: {FORMAT_VERSION}");
        let _ = writeln!(s, "id: {}", self.id);
        let _ = writeln!(s, "at: {}", self.at);
        s.push_str("files:\n");
        for (path, hash) in &self.files {
            if key_needs_quoting(path) {
                let quoted = serde_json::to_string(path).unwrap_or_default();
                let _ = writeln!(s, "  {quoted}: {hash}");
            } else {
                let _ = writeln!(s, "  {path}: {hash}");
            }
        }
        for line in &self.extra {
            let _ = writeln!(s, "{line}");
        }
        s.push_str("---\n\n");
        // foreign-scan: data (the entry file itself)
        let _ = writeln!(s, "# {}", self.question);
        if !self.details.is_empty() {
            s.push('\n');
            s.push_str(&self.details);
            s.push('\n');
        }
        if !self.phrasings.is_empty() {
            let _ = writeln!(s, "\n{PHRASINGS_HEADING}");
            for p in &self.phrasings {
                let _ = writeln!(s, "- {p}");
            }
        }
        s
    }

    /// The other phrasings that count: the newest [`MAX_PHRASINGS`] of [`Entry::phrasings`]
    /// (a hand-edited or cloned entry may hold more; the rest are kept in the file but never
    /// answer, and `chart` drops them when it next adds or takes off a phrasing).
    pub(crate) fn kept_phrasings(&self) -> &[String] {
        &self.phrasings[self.uncounted_phrasings()..]
    }

    /// How many of the oldest [`Entry::phrasings`] do not count (past [`MAX_PHRASINGS`]).
    pub(crate) fn uncounted_phrasings(&self) -> usize {
        self.phrasings.len().saturating_sub(MAX_PHRASINGS)
    }

    /// Every phrasing of the chart that counts, one per line: the question first, then
    /// [`Entry::kept_phrasings`]. What recall indexes, embeds and judges as the chart's question
    /// (an exact re-ask of any line answers).
    pub(crate) fn asked(&self) -> std::borrow::Cow<'_, str> {
        let kept = self.kept_phrasings();
        if kept.is_empty() {
            return std::borrow::Cow::Borrowed(&self.question);
        }
        let mut s = self.question.clone();
        for p in kept {
            s.push('\n');
            s.push_str(p);
        }
        std::borrow::Cow::Owned(s)
    }

    /// True when `question` is one of this chart's phrasings that count (its question or one of
    /// [`Entry::kept_phrasings`]), once case, punctuation and whitespace are set aside.
    pub(crate) fn is_phrasing(&self, question: &str) -> bool {
        crate::recall::gate::normalise_question(question).is_some_and(|n| self.asks_normalised(&n))
    }

    /// [`Entry::is_phrasing`] for a question already normalised.
    fn asks_normalised(&self, norm: &str) -> bool {
        std::iter::once(&self.question)
            .chain(self.kept_phrasings())
            .any(|p| crate::recall::gate::normalise_question(p).as_deref() == Some(norm))
    }

    /// Adds `question` as another phrasing (trimmed, one line), unless it is one already or has
    /// no letter or digit (no ask could match it); keeps the newest [`MAX_PHRASINGS`]. Returns
    /// `None` when nothing changed, else the phrasings dropped to make room, oldest first.
    pub(crate) fn add_phrasing(&mut self, question: &str) -> Option<Vec<String>> {
        let q = question.trim();
        let norm = crate::recall::gate::normalise_question(q)?;
        if q.contains(['\n', '\r']) || self.asks_normalised(&norm) {
            return None;
        }
        // A phrasing past the newest kept ones no longer counts: asked again, it comes back.
        self.phrasings
            .retain(|p| crate::recall::gate::normalise_question(p).as_deref() != Some(&norm));
        self.phrasings.push(q.to_string());
        let over = self.phrasings.len().saturating_sub(MAX_PHRASINGS);
        Some(self.phrasings.drain(..over).collect())
    }

    /// Takes `question` off this chart's other phrasings (once normalised as in
    /// [`Entry::is_phrasing`]), and with it any older ones past [`Entry::kept_phrasings`]: they
    /// answer nothing, and one of them would count again once a newer one is gone. Returns true
    /// when `question` was taken off.
    pub(crate) fn remove_phrasing(&mut self, question: &str) -> bool {
        let norm = crate::recall::gate::normalise_question(question);
        let before = self.kept_phrasings().len();
        self.phrasings = self.kept_phrasings().to_vec();
        self.phrasings
            .retain(|p| crate::recall::gate::normalise_question(p) != norm);
        self.phrasings.len() != before
    }

    /// Parses an entry file's text. `file_id` (the file name without `.md`) is used when the
    /// frontmatter has no `id`. Errors are one-line reasons (the caller adds the file name).
    pub(crate) fn parse(text: &str, file_id: &str) -> Result<Entry, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let text = if text.contains('\r') {
            std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
        } else {
            std::borrow::Cow::Borrowed(text)
        };
        let mut lines = text.split('\n');
        if lines.next().map(str::trim_end) != Some("---") {
            return Err("missing frontmatter (the file must start with ---)".into());
        }
        let front = parse_frontmatter(&mut lines)?;
        let id = front.id.unwrap_or_else(|| file_id.to_string());
        if !is_valid_id(&id) {
            return Err(format!("bad id: {}", clip(&id)));
        }
        if front.files.is_empty() {
            return Err("no backing files".into());
        }
        let (question, details) = parse_body(lines)?;
        let (details, phrasings) = split_phrasings(details);
        Ok(Entry {
            id,
            at: front.at,
            files: front.files,
            question,
            details,
            phrasings,
            extra: front.extra,
        })
    }
}

/// What the frontmatter says ([`parse_frontmatter`]).
#[derive(Default)]
struct Frontmatter {
    id: Option<String>,
    at: String,
    files: BTreeMap<String, String>,
    extra: Vec<String>,
}

/// Reads the frontmatter's lines up to and including the closing `---`. A key capn does not
/// know is kept as `key: value` (trimmed); the indented or `- ` lines that follow it (a YAML
/// block: `review:` then `  owner: bob`, `tags:` then `  - billing`) are its own, kept as they
/// are and never read as keys. Errors: a one-line reason.
fn parse_frontmatter<'a>(lines: &mut impl Iterator<Item = &'a str>) -> Result<Frontmatter, String> {
    let mut front = Frontmatter::default();
    let mut version = None;
    let (mut in_files, mut in_unknown, mut seen_files, mut closed) = (false, false, false, false);
    for line in lines.by_ref() {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let nested = line.starts_with([' ', '\t']);
        if in_files && nested {
            add_file_line(&mut front.files, line)?;
            continue;
        }
        if in_unknown && (nested || line.starts_with("- ")) {
            front.extra.push(line.trim_end().to_string());
            continue;
        }
        (in_files, in_unknown) = (false, false);
        let Some((key, value)) = line.split_once(':') else {
            return Err(format!("bad frontmatter line: {}", clip(line)));
        };
        let value = value.trim();
        let unquoted = || value.trim_matches(|c| c == '"' || c == '\'').to_string();
        match key.trim() {
            "capn" => version = Some(value.to_string()),
            "id" if front.id.is_some() => return Err("two id lines".into()),
            "id" => front.id = Some(unquoted()),
            "at" => front.at = valid_at(&unquoted()),
            "files" if seen_files => {
                return Err("two files: blocks (two versions of this chart were merged: charting its question again resolves it, keeping both sides' phrasings and details)".into())
            }
            "files" if !value.is_empty() && value != "{}" => {
                return Err(format!("bad files line: {}", clip(line)));
            }
            "files" => (seen_files, in_files) = (true, true),
            // Unknown keys are tolerated (forward compatibility) and kept.
            other => {
                front
                    .extra
                    .push(format!("{other}: {value}").trim_end().to_string());
                in_unknown = true;
            }
        }
    }
    if !closed {
        return Err("truncated frontmatter (no closing ---)".into());
    }
    match version.as_deref() {
        Some("1") => Ok(front),
        Some(v) => Err(format!("unsupported format version: capn: {}", clip(v))),
        None => Err("missing 'capn:' version line".into()),
    }
}

/// Parses `key: hash` where key is a plain token or a JSON string literal.
/// Adds one indented `files:` line to `files`. Errors: a bad line, or a key given twice (which
/// hash would be meant is unknowable: report, never guess, since a guess could delete the entry
/// as stale).
fn add_file_line(files: &mut BTreeMap<String, String>, line: &str) -> Result<(), String> {
    let body = line.strip_prefix("  ").unwrap_or_else(|| line.trim_start());
    let (path, hash) = parse_file_line(body)?;
    if files.contains_key(&path) {
        // Two versions of the chart merged line by line (`.capn/.gitattributes`): a re-chart of
        // its question resolves it (store::conflict).
        return Err(format!(
            "duplicate file key: {} (two versions of this chart were merged: charting its question again resolves it, keeping both sides' phrasings and details)",
            clip(&path)
        ));
    }
    files.insert(path, hash);
    Ok(())
}

/// The body after the frontmatter: optional blank lines, the `# <question>` heading, then the
/// details (blank edge lines dropped). Errors: a one-line reason.
fn parse_body<'a>(lines: impl Iterator<Item = &'a str>) -> Result<(String, String), String> {
    let mut question = None;
    let mut rest: Vec<&str> = Vec::new();
    for line in lines {
        if question.is_some() {
            rest.push(line);
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let Some(q) = line.strip_prefix("# ") else {
            return Err(format!("expected '# <question>', found: {}", clip(line)));
        };
        let q = q.trim();
        if q.is_empty() {
            return Err("empty question heading".into());
        }
        question = Some(q.to_string());
    }
    let question = question.ok_or("missing '# <question>' heading")?;
    while rest.first().is_some_and(|l| l.trim().is_empty()) {
        rest.remove(0);
    }
    while rest.last().is_some_and(|l| l.trim().is_empty()) {
        rest.pop();
    }
    Ok((question, rest.join("\n")))
}

/// True when `details`, written as an entry's details, would read back as phrasings: they end in
/// a [`PHRASINGS_HEADING`] section of `- ` lines.
pub(crate) fn details_hold_phrasings(details: &str) -> bool {
    let text = details.replace("\r\n", "\n");
    !split_phrasings(text.trim_end().to_string()).1.is_empty()
}

/// Splits a body's text after the heading into the details and the phrasings: the phrasings are
/// the `- ` lines of a last section headed [`PHRASINGS_HEADING`] (blank lines allowed, nothing
/// else). Without such a section everything is details.
fn split_phrasings(body: String) -> (String, Vec<String>) {
    let lines: Vec<&str> = body.split('\n').collect();
    let Some(at) = lines
        .iter()
        .rposition(|l| l.trim_end() == PHRASINGS_HEADING)
    else {
        return (body, Vec::new());
    };
    let rest = &lines[at + 1..];
    let well_formed = rest
        .iter()
        .all(|l| l.trim().is_empty() || l.starts_with("- "));
    let phrasings: Vec<String> = rest
        .iter()
        .filter_map(|l| l.strip_prefix("- ").map(str::trim))
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    if !well_formed || phrasings.is_empty() {
        return (body, Vec::new());
    }
    let details = lines[..at].join("\n").trim_end().to_string();
    (details, phrasings)
}

fn parse_file_line(line: &str) -> Result<(String, String), String> {
    let (path, rest) = if line.starts_with('"') {
        let mut de = serde_json::Deserializer::from_str(line).into_iter::<String>();
        let path = match de.next() {
            Some(Ok(p)) => p,
            _ => return Err(format!("bad quoted path: {}", clip(line))),
        };
        let consumed = de.byte_offset();
        let rest = line[consumed..]
            .strip_prefix(':')
            .ok_or_else(|| format!("bad file line: {}", clip(line)))?;
        (path, rest)
    } else {
        let (p, h) = line
            .rsplit_once(": ")
            .ok_or_else(|| format!("bad file line: {}", clip(line)))?;
        (p.to_string(), h)
    };
    if !is_valid_key(&path) {
        return Err(format!(
            "bad path key (must be relative to the project root, /-separated, without . or .. or a backslash): {}",
            clip(&path)
        ));
    }
    let hash = rest.trim().to_ascii_lowercase();
    if !is_sha256_hex(&hash) {
        return Err(format!(
            "bad hash for {}: {}",
            clip(&path),
            clip(rest.trim())
        ));
    }
    Ok((path, hash))
}

/// Shortens a string for an error message.
fn clip(s: &str) -> String {
    crate::present::Foreign::new(s).quoted(CLIP_CHARS)
}

/// The most characters of a malformed entry's text a parse error quotes ([`clip`]).
const CLIP_CHARS: usize = 60;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_at_that_is_not_a_short_rfc_3339_time_reads_as_absent() {
        assert_eq!(
            valid_at("2026-07-03T18:00:00.000Z"),
            "2026-07-03T18:00:00.000Z"
        );
        assert_eq!(
            valid_at("2026-07-03T18:00:00+02:00"),
            "2026-07-03T18:00:00+02:00"
        );
        let huge = format!("2026-07-03T18:00:00.000Z{}", "9".repeat(70_000));
        assert_eq!(valid_at(&huge), "");
        assert_eq!(valid_at("yesterday"), "");
        assert_eq!(
            valid_at(&format!("2026-07-03T18:00:00.{}Z", "1".repeat(40))),
            ""
        );
    }

    fn sample() -> Entry {
        let mut files = BTreeMap::new();
        for p in [
            "src/a.ts",
            "docs/a: b.md",
            "-lead.txt",
            " sp.txt",
            "q\"uote.md",
            "hash#tag.md",
            "naïve/日本/🚀.rs",
            "with space.md",
        ] {
            files.insert(p.to_string(), "ab".repeat(32));
        }
        Entry {
            id: "9f3a1c2e".into(),
            at: "2026-07-03T18:00:00.000Z".into(),
            files,
            question: "Where are payment webhooks handled?".into(),
            details: "Router near line 40.\n\nSecond paragraph.".into(),
            phrasings: Vec::new(),
            extra: Vec::new(),
        }
    }

    #[test]
    fn a_yaml_block_under_an_unknown_key_stays_its_own() {
        // `jira:` then `  id: PROJ-12` once read as a second id line; `tags:` then `  - billing`
        // as a bad line; `review:` then `  owner: bob` was flattened on rewrite.
        let block = "jira:\n  id: PROJ-12\ntags:\n  - billing\n- infra\nreview:\n  owner: bob\nsummary: |\n  two\n    lines";
        let text = format!(
            "---\ncapn: 1\nid: 9f3a1c2e\nfiles:\n  src/a.ts: {}\n{block}\n---\n\n# Where?\n",
            "ab".repeat(32)
        );
        let mut e = Entry::parse(&text, "x").unwrap();
        assert_eq!(e.id, "9f3a1c2e");
        assert_eq!(e.extra.join("\n"), block);
        e.add_phrasing("where then?");
        let back = Entry::parse(&e.render(), "x").unwrap();
        assert_eq!(back, e);
        assert!(e.render().contains(&format!("{block}\n---\n")));
    }

    #[test]
    fn frontmatter_keys_capn_does_not_know_survive_a_rewrite() {
        let text =
            "---\ncapn: 1\nowner: alice\nid: 9f3a1c2e\n  tags :  [billing] \nfiles:\n  src/a.ts: "
                .to_string()
                + &"ab".repeat(32)
                + "\nreviewed:\n---\n\n# Where?\n";
        let mut e = Entry::parse(&text, "x").unwrap();
        assert_eq!(e.extra, ["owner: alice", "tags: [billing]", "reviewed:"]);
        e.add_phrasing("where then?");
        let back = Entry::parse(&e.render(), "x").unwrap();
        assert_eq!(back, e);
        assert!(e
            .render()
            .contains("\nowner: alice\ntags: [billing]\nreviewed:\n---\n"));
    }

    #[test]
    fn round_trips_every_kind_of_path() {
        let e = sample();
        let text = e.render();
        assert_eq!(Entry::parse(&text, "9f3a1c2e").unwrap(), e);
        assert!(text.contains("  \"docs/a: b.md\": "));
        assert!(text.contains("  \"-lead.txt\": "));
        assert!(text.contains("  naïve/日本/🚀.rs: "));
        assert!(text.contains("  with space.md: "));
    }

    #[test]
    fn render_matches_the_documented_layout() {
        let mut e = sample();
        e.files = BTreeMap::from([("src/a.ts".to_string(), "0".repeat(64))]);
        e.details = String::new();
        assert_eq!(
            e.render(),
            format!(
                "---\ncapn: 1\nid: 9f3a1c2e\nat: 2026-07-03T18:00:00.000Z\nfiles:\n  src/a.ts: {}\n---\n\n# Where are payment webhooks handled?\n",
                "0".repeat(64)
            )
        );
    }

    #[test]
    fn accepts_crlf_and_bom() {
        let e = sample();
        let text = format!("\u{feff}{}", e.render().replace('\n', "\r\n"));
        assert_eq!(Entry::parse(&text, "x").unwrap(), e);
    }

    #[test]
    fn rejects_malformed_entries() {
        let good = sample().render();
        let cases = [
            ("garbage", "not an entry at all".to_string()),
            (
                "truncated",
                good.lines().take(4).collect::<Vec<_>>().join("\n"),
            ),
            ("bad hash", good.replacen(&"ab".repeat(32), "xyz", 1)),
            ("no question", good.split("# ").next().unwrap().to_string()),
            ("version", good.replace("capn: 1", "capn: 9")),
            ("dotdot key", good.replace("  src/a.ts:", "  ../a.ts:")),
            ("absolute key", good.replace("  src/a.ts:", "  /etc/a.ts:")),
            ("dot key", good.replace("  src/a.ts:", "  src/./a.ts:")),
        ];
        for (name, text) in cases {
            assert!(Entry::parse(&text, "9f3a1c2e").is_err(), "{name} parsed");
        }
    }

    #[test]
    fn phrasings_round_trip_after_the_details_and_dedupe() {
        let mut e = sample();
        assert!(e.add_phrasing("where do stripe callbacks land?").is_some());
        assert!(
            e.add_phrasing("Where do Stripe callbacks land").is_none(),
            "same once normalised"
        );
        assert!(
            e.add_phrasing("where are payment webhooks handled")
                .is_none(),
            "the question itself"
        );
        assert!(e.add_phrasing("two\nlines").is_none());
        let text = e.render();
        assert!(text.ends_with(
            "Second paragraph.\n\n## Also asked as\n- where do stripe callbacks land?\n"
        ));
        assert_eq!(Entry::parse(&text, "x").unwrap(), e);
        assert_eq!(
            e.asked(),
            "Where are payment webhooks handled?\nwhere do stripe callbacks land?"
        );
        e.details.clear();
        assert_eq!(Entry::parse(&e.render(), "x").unwrap(), e);
        for i in 0..MAX_PHRASINGS + 2 {
            e.add_phrasing(&format!("phrasing number {i}"));
        }
        assert_eq!(e.phrasings.len(), MAX_PHRASINGS);
        assert_eq!(e.phrasings[0], "phrasing number 2", "the oldest go first");
    }

    #[test]
    fn adding_a_phrasing_says_what_it_dropped_and_refuses_the_unmatchable() {
        let mut e = sample();
        for i in 0..MAX_PHRASINGS {
            assert_eq!(
                e.add_phrasing(&format!("phrasing number {i}")),
                Some(vec![])
            );
        }
        assert_eq!(
            e.add_phrasing("one more"),
            Some(vec!["phrasing number 0".to_string()])
        );
        assert_eq!(e.add_phrasing("ONE MORE?"), None, "already a phrasing");
        assert_eq!(e.add_phrasing("???"), None, "no letter or digit");
        assert_eq!(e.add_phrasing(" "), None);
        assert!(e.remove_phrasing("one  more"));
        assert!(!e.remove_phrasing("one more"));
        assert_eq!(e.phrasings.len(), MAX_PHRASINGS - 1);
    }

    #[test]
    fn only_the_newest_phrasings_count_however_many_the_file_holds() {
        // A hand-edited or cloned entry is not bound by what `chart` writes: 5,000 phrasings
        // must not all answer, nor make recall read them all.
        let mut e = sample();
        e.phrasings = (0..5000).map(|i| format!("phrasing number {i}")).collect();
        let back = Entry::parse(&e.render(), "x").unwrap();
        assert_eq!(back.phrasings.len(), 5000, "the file keeps them all");
        assert_eq!(back.kept_phrasings().len(), MAX_PHRASINGS);
        assert_eq!(back.kept_phrasings()[0], "phrasing number 4992");
        assert_eq!(back.asked().lines().count(), 1 + MAX_PHRASINGS);
        assert!(back.is_phrasing("phrasing number 4999"));
        assert!(!back.is_phrasing("phrasing number 0"));
        let mut again = back.clone();
        assert_eq!(
            again.add_phrasing("phrasing number 0").map(|d| d.len()),
            Some(4992),
            "the old copy of it goes with the rest"
        );
        assert_eq!(again.phrasings.len(), MAX_PHRASINGS);
        assert_eq!(again.phrasings.last().unwrap(), "phrasing number 0");
    }

    #[test]
    fn a_phrasings_heading_with_other_text_after_it_is_details() {
        let mut e = sample();
        e.details = "## Also asked as\n- not a list of phrasings\n\nbecause this follows".into();
        let back = Entry::parse(&e.render(), "x").unwrap();
        assert_eq!(back.details, e.details);
        assert!(back.phrasings.is_empty());
    }

    #[test]
    fn ids_are_sha256_prefixes() {
        let h = question_hash("Where are payment webhooks handled?");
        assert_eq!(h.len(), 64);
        assert!(is_valid_id(&h[..8]));
        assert!(!is_valid_id("../etc"));
        assert!(!is_valid_id("ABCDEF12"));
    }
}
