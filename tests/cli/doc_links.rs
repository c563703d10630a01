//! Every relative link in README.md, INSTALL.md and docs/*.md resolves: the file (or folder)
//! exists, and a `#anchor` names a heading of the target as GitHub renders it (its slug rules:
//! lower case; letters, digits, spaces, `-` and `_` kept, everything else dropped; spaces become
//! `-`; a repeated heading gets `-1`, `-2`, ...). Links inside code are not links.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents checked: README.md, INSTALL.md and every docs/*.md.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![repo().join("README.md"), repo().join("INSTALL.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// `text` without fenced code blocks (their lines become empty) and without inline code spans.
fn prose_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push(String::new());
            continue;
        }
        if fenced {
            out.push(String::new());
            continue;
        }
        // Drop `code spans` (an odd backtick leaves the rest of the line as it is).
        let mut kept = String::new();
        let mut parts = line.split('`');
        let mut inside = false;
        for part in parts.by_ref() {
            if !inside {
                kept.push_str(part);
            }
            inside = !inside;
        }
        out.push(kept);
    }
    out
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    let text = heading.replace('`', "");
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a markdown file's headings, duplicates numbered as GitHub numbers them.
fn anchors(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut fenced = false;
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base = slug(title);
        let mut s = base.clone();
        let mut n = 0;
        while out.contains(&s) {
            n += 1;
            s = format!("{base}-{n}");
        }
        out.push(s);
    }
    out
}

/// The targets of the inline links `[text](target)` in `line`.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.to_string());
        rest = &after[end..];
    }
    out
}

/// Every broken relative link in `doc`, as `file:line: target (why)`.
fn broken_links(doc: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(doc).unwrap();
    let dir = doc.parent().unwrap();
    let mut out = Vec::new();
    for (n, line) in prose_lines(&text).iter().enumerate() {
        for target in link_targets(line) {
            if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                doc.to_path_buf()
            } else {
                dir.join(file)
            };
            let at = format!("{}:{}: {target}", doc.display(), n + 1);
            if !path.exists() {
                out.push(format!("{at} (no such file)"));
                continue;
            }
            if let Some(a) = anchor {
                if !anchors(&path).iter().any(|x| x == a) {
                    out.push(format!("{at} (no heading with that anchor)"));
                }
            }
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let docs = documents();
    assert!(docs.len() >= 12, "{docs:?}");
    let broken: Vec<String> = docs.iter().flat_map(|d| broken_links(d)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_checker_finds_what_github_would_not() {
    assert_eq!(
        slug(" Setting up a project: `capn init` or the plugin"),
        "setting-up-a-project-capn-init-or-the-plugin"
    );
    assert_eq!(
        slug(" Proactive offers (on by default)"),
        "proactive-offers-on-by-default"
    );
    let tmp = tempfile::tempdir().unwrap();
    let doc = tmp.path().join("a.md");
    std::fs::write(tmp.path().join("b.md"), "# Title\n\n## Same\n\n## Same\n").unwrap();
    std::fs::write(
        &doc,
        "[ok](b.md#same-1) [bad](b.md#nothing) [gone](c.md) `[code](c.md)`\n```\n[x](c.md)\n```\n[web](https://example.com/x#y)\n",
    )
    .unwrap();
    let broken = broken_links(&doc);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(
        broken[0].ends_with("b.md#nothing (no heading with that anchor)"),
        "{broken:?}"
    );
    assert!(broken[1].ends_with("c.md (no such file)"), "{broken:?}");
}
