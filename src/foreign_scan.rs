//! The foreign-text check: text capn did not write reaches stdout, stderr or a hook's
//! JSON only through the presentation owner (`present.rs`, `present/foreign.rs`). It reads the
//! sources under `src/` (code outside `#[cfg(test)]`, as `layers.rs` does) and fails
//! `cargo test`, naming the file and line, when:
//!
//! - a print macro (`println!`, `print!`, `eprintln!`, `eprint!`, `dbg!`) is used anywhere:
//!   stdout goes through `present::print` (hidden characters escaped per line), stderr through
//!   `diag!` (one escaped, capped line);
//! - `std::io::stdout()` or `stderr()` is opened outside `present/foreign.rs`, the sinks' owner;
//! - `serde_json::to_string`, `to_string_pretty`, `to_vec` or `to_writer` is called outside the
//!   files that serialise capn's own files ([`OWN_FILE_WRITERS`]): JSON that is printed goes
//!   through `present::json_line`, which escapes hidden characters and look-alike quotes;
//! - an output or message macro (`diag!`, `write!`, `writeln!`, `format!`, `bail!`, `anyhow!`)
//!   carries a chart's foreign text (an entry's `.question`, `.details`, `.phrasings`,
//!   `.asked()`, `.extra`, a config value) without one of the owner's renderings
//!   ([`RENDERINGS`]); a line that builds data rather than output says so with a
//!   `foreign-scan: data` comment on it or the line above;
//! - `present::Foreign` gains `Display`, `Serialize`, `Deref`, `AsRef` or `Borrow`: its only
//!   renderings are its own methods.

use crate::layers::{code_lines, source_files, src_dir};
use std::path::Path;

/// Files that serialise JSON into capn's own files (not output), each with what it writes.
const OWN_FILE_WRITERS: &[(&str, &str)] = &[
    ("install/record.rs", ".capn/install.json"),
    ("store/map.rs", ".capn/map.json"),
    ("store/entry.rs", "a quoted path key inside an entry file"),
    (
        "install/plan.rs",
        "the size of install.json before it is written",
    ),
    ("session.rs", "session markers"),
    ("hook/offer.rs", "the session's offered.json record"),
    ("store/retention.rs", ".capn/stale.json"),
    ("store/learned.rs", ".capn/learned.json"),
    ("hook/stop.rs", "the session's nudge.json record"),
    ("session/learning.rs", "the session's learn.json record"),
    (
        "session/shown.rs",
        "the state dir's record of what ask showed",
    ),
    (
        "install/user.rs",
        "the user-level settings it edits and user-install.json",
    ),
];

/// The owner's renderings: an argument holding one of these is shown through the owner.
const RENDERINGS: &[&str] = &[
    "present::",
    "printable(",
    "quote(",
    ".quoted(",
    ".shown(",
    "named_chart(",
    "chart_line(",
    "clip(",
    "shown(",
    ".len()",
    ".is_empty()",
    ".count()",
];

/// Accesses that yield a chart's foreign text.
const FOREIGN_FIELDS: &[&str] = &[
    ".question",
    ".details",
    ".phrasings",
    ".asked()",
    ".extra",
    "kept_phrasings()",
];

/// The macros whose arguments become output or a message.
const MESSAGE_MACROS: &[&str] = &[
    "diag!(",
    "write!(",
    "writeln!(",
    "format!(",
    "bail!(",
    "anyhow!(",
];

/// One source file's code as text, with the source line of each byte offset's line.
struct Code {
    rel: String,
    text: String,
    lines: Vec<usize>,
    raw: Vec<String>,
}

fn code_of(path: &Path) -> Code {
    let raw_text = std::fs::read_to_string(path).unwrap();
    let mut text = String::new();
    let mut lines = Vec::new();
    for (n, line) in code_lines(&raw_text) {
        text.push_str(&line);
        text.push('\n');
        lines.push(n);
    }
    let rel = path
        .strip_prefix(src_dir())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    Code {
        rel,
        text,
        lines,
        raw: raw_text.lines().map(str::to_string).collect(),
    }
}

impl Code {
    /// The source line (1-based) of byte offset `at` of the code text.
    fn line_at(&self, at: usize) -> usize {
        self.lines[self.text[..at].matches('\n').count()]
    }

    /// True when the source line `n` or the one above says it builds data, not output.
    fn says_data(&self, n: usize) -> bool {
        let has = |i: usize| {
            self.raw
                .get(i.wrapping_sub(1))
                .is_some_and(|l| l.contains("foreign-scan: data"))
        };
        has(n) || has(n - 1)
    }

    /// The text of the balanced parentheses opening at `open` (exclusive), or the rest.
    fn args_at(&self, open: usize) -> &str {
        let mut depth = 0i64;
        for (i, b) in self.text[open..].bytes().enumerate() {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return &self.text[open + 1..open + i];
                    }
                }
                _ => {}
            }
        }
        &self.text[open..]
    }
}

/// The top-level comma-separated pieces of a macro's arguments.
fn split_args(args: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start, mut in_str, mut esc) = (Vec::new(), 0i64, 0, false, false);
    for (i, b) in args.bytes().enumerate() {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[start..]);
    out
}

/// Every break of the module's rules in `code`, as `file:line: what`.
fn breaks(code: &Code) -> Vec<String> {
    let mut out = Vec::new();
    let at = |i: usize| format!("src/{}:{}", code.rel, code.line_at(i));
    for m in ["println!", "print!(", "eprintln!", "eprint!(", "dbg!("] {
        for (i, _) in code.text.match_indices(m) {
            out.push(format!("{}: {m} (use present::print or diag!)", at(i)));
        }
    }
    if code.rel != "present/foreign.rs" {
        for m in ["io::stdout()", "io::stderr()"] {
            for (i, _) in code.text.match_indices(m) {
                out.push(format!(
                    "{}: {m} outside the sinks of present/foreign.rs",
                    at(i)
                ));
            }
        }
    }
    if !OWN_FILE_WRITERS.iter().any(|(f, _)| *f == code.rel) {
        for m in [
            "serde_json::to_string",
            "serde_json::to_vec",
            "serde_json::to_writer",
        ] {
            for (i, _) in code.text.match_indices(m) {
                out.push(format!(
                    "{}: {m} (printed JSON goes through present::json_line)",
                    at(i)
                ));
            }
        }
    }
    for mac in MESSAGE_MACROS {
        for (i, _) in code.text.match_indices(mac) {
            let preceded = code.text[..i].chars().next_back();
            if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let open = i + mac.len() - 1;
            let line = code.line_at(i);
            if code.says_data(line) {
                continue;
            }
            for arg in split_args(code.args_at(open)).into_iter().skip(1) {
                let foreign = FOREIGN_FIELDS.iter().any(|f| arg.contains(f));
                let rendered = RENDERINGS.iter().any(|r| arg.contains(r));
                if foreign && !rendered {
                    out.push(format!(
                        "{}: {mac}..) carries foreign text raw: {} (show it through present)",
                        at(i),
                        arg.trim()
                    ));
                }
            }
        }
    }
    out
}

/// The ways `Foreign` could be shown without the owner.
fn foreign_bypasses(code: &Code) -> Vec<String> {
    let mut out = Vec::new();
    for t in [
        "Display",
        "Serialize",
        "Deref",
        "AsRef",
        "Borrow",
        "ToString",
    ] {
        let imp =
            regex::Regex::new(&format!(r"impl[^{{;]*\b{t}\b[^{{;]*\bfor\s+Foreign\b")).unwrap();
        for m in imp.find_iter(&code.text) {
            out.push(format!(
                "src/{}:{}: Foreign must not implement {t}",
                code.rel,
                code.line_at(m.start())
            ));
        }
    }
    let derive = regex::Regex::new(r"#\[derive\(([^)]*)\)\]\s*pub struct Foreign\b").unwrap();
    for c in derive.captures_iter(&code.text) {
        if c[1].contains("Serialize") {
            out.push(format!(
                "src/{}: Foreign must not derive Serialize",
                code.rel
            ));
        }
    }
    out
}

#[test]
fn foreign_text_reaches_output_only_through_the_owner() {
    let mut found = Vec::new();
    for (path, _) in source_files() {
        let code = code_of(&path);
        found.extend(breaks(&code));
        found.extend(foreign_bypasses(&code));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The check finds what it is for: each rule on a made-up source.
#[test]
fn the_scan_catches_each_kind_of_bypass() {
    let code = |rel: &str, text: &str| Code {
        rel: rel.into(),
        text: format!("{text}\n"),
        lines: (1..=text.lines().count()).collect(),
        raw: text.lines().map(str::to_string).collect(),
    };
    let c = code(
        "cmd/x.rs",
        "println!(\"{}\", e.question);\nlet _ = std::io::stdout().lock();\nlet q = serde_json::to_string(&e.question);\ndiag!(\"capn: {}\", e.details);\ndiag!(\"capn: {}\", present::quote(&e.question, 9));\n// foreign-scan: data\nlet d = format!(\"{}\\n\\n{d}\", e.details);",
    );
    let b = breaks(&c);
    assert_eq!(b.len(), 4, "{b:?}");
    assert!(b[0].starts_with("src/cmd/x.rs:1: println!"));
    assert!(b.iter().any(|l| l.contains(":2: io::stdout()")));
    assert!(b.iter().any(|l| l.contains(":3: serde_json::to_string")));
    assert!(b
        .iter()
        .any(|l| l.contains(":4: diag!(..) carries foreign text raw: e.details")));
    let f = code(
        "present/foreign.rs",
        "impl std::fmt::Display for Foreign {}\n#[derive(Clone, Serialize)]\npub struct Foreign(String);",
    );
    assert_eq!(foreign_bypasses(&f).len(), 2);
}
