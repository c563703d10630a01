//! The layer check: every module imports only from layers below its own, as the `# Layers`
//! list in `lib.rs` states, and no two sibling modules import each other (directly or round a
//! longer circle). It reads the sources under `src/` (code outside `#[cfg(test)]` and comments),
//! so a change that breaks the order fails `cargo test` with the file and line.

use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One reference from a source file to a module path, e.g. `recall::gate` from `store/index.rs:26`.
struct Reference {
    from: Vec<String>,
    to: Vec<String>,
    at: String,
}

/// The crate's `src/` folder.
pub(crate) fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The ranks of the top-level modules, from lib.rs's `# Layers` list: `N. `a`, `b`` lines.
fn ranks() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).expect("read src/lib.rs");
    let item = Regex::new(r"^//! (\d+)\. (.*)$").unwrap();
    let name = Regex::new(r"`(\w+)`").unwrap();
    let mut ranks = BTreeMap::new();
    let mut inside = false;
    for line in lib.lines() {
        if line.starts_with("//! # ") {
            inside = line == "//! # Layers";
            continue;
        }
        let Some(c) = item.captures(line).filter(|_| inside) else {
            continue;
        };
        let rank: usize = c[1].parse().unwrap();
        for n in name.captures_iter(&c[2]) {
            ranks.insert(n[1].to_string(), rank);
        }
    }
    assert!(!ranks.is_empty(), "lib.rs has no `# Layers` list");
    ranks
}

/// Every `.rs` file under `src/` but this one and those only tests compile ([`without_test_only`]),
/// with its module path ([`modules`]): what the checks that read the sources (here, and
/// `events.rs`'s) walk.
pub(crate) fn source_files() -> Vec<(PathBuf, Vec<String>)> {
    let mut files = Vec::new();
    modules(&src_dir(), &[], &mut files);
    let texts: Vec<String> = files
        .iter()
        .map(|(p, _)| std::fs::read_to_string(p).unwrap())
        .collect();
    without_test_only(files, &texts)
}

/// `files` (with their texts, in the same order) without the modules a parent declares under
/// `#[cfg(test)]` (`#[cfg(test)] mod tests;` in `recall/gate.rs` makes `recall/gate/tests.rs`
/// test code) and everything below them: such a file is to the checks what an inline
/// `#[cfg(test)] mod tests { .. }` is to [`code_lines`].
fn without_test_only(
    files: Vec<(PathBuf, Vec<String>)>,
    texts: &[String],
) -> Vec<(PathBuf, Vec<String>)> {
    let test_only: Vec<Vec<String>> = files
        .iter()
        .zip(texts)
        .flat_map(|((_, here), text)| {
            test_only_children(text).into_iter().map(|child| {
                let mut m = here.clone();
                m.push(child);
                m
            })
        })
        .collect();
    files
        .into_iter()
        .filter(|(_, m)| !test_only.iter().any(|t| m.starts_with(t)))
        .collect()
}

/// The names of the file modules `text` declares under `#[cfg(test)]`: `tests` for
/// `#[cfg(test)]` then `mod tests;` (other attributes may come between; an inline `mod x { .. }`
/// has no file and is not named).
fn test_only_children(text: &str) -> Vec<String> {
    let decl = Regex::new(r"^(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*;$").unwrap();
    let mut out = Vec::new();
    let mut after_cfg_test = false;
    for line in text.lines() {
        let code = strip_comment(line).trim();
        if code == "#[cfg(test)]" {
            after_cfg_test = true;
        } else if after_cfg_test && !code.is_empty() && !code.starts_with("#[") {
            if let Some(c) = decl.captures(code) {
                out.push(c[1].to_string());
            }
            after_cfg_test = false;
        }
    }
    out
}

/// Every `.rs` file under `dir` with its module path (`src/store/index/apply.rs` →
/// `[store, index, apply]`; `mod.rs` and `lib.rs` name their folder).
fn modules(dir: &Path, path: &[String], out: &mut Vec<(PathBuf, Vec<String>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            let mut sub = path.to_vec();
            sub.push(stem);
            modules(&p, &sub, out);
        } else if p.extension().is_some_and(|e| e == "rs") && !p.ends_with("src/layers.rs") {
            let mut m = path.to_vec();
            if !matches!(stem.as_str(), "mod" | "lib" | "main") {
                m.push(stem);
            }
            out.push((p, m));
        }
    }
}

/// The code of a file that counts: every line but comments and the items under a
/// `#[cfg(test)]` (a test module, or a single test-only item), which are skipped through the end
/// of their braces (or their `;`).
pub(crate) fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // Inside a test-only item: its brace depth so far, and whether its body has opened.
    let mut skipping: Option<(i64, bool)> = None;
    for (i, line) in text.lines().enumerate() {
        let code = strip_comment(line);
        if let Some((depth, opened)) = skipping.as_mut() {
            *depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            *opened |= code.contains('{');
            let ended = (*opened && *depth <= 0) || (!*opened && code.trim_end().ends_with(';'));
            if ended {
                skipping = None;
            }
            continue;
        }
        if code.trim() == "#[cfg(test)]" {
            skipping = Some((0, false));
            continue;
        }
        if !code.trim().is_empty() {
            out.push((i + 1, code.to_string()));
        }
    }
    out
}

/// `line` without its `//` comment; a `//` inside a string literal (`"//?/"`) is kept.
fn strip_comment(line: &str) -> &str {
    let (mut in_string, mut escaped) = (false, false);
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// `segments` (as written after `crate`, `super` or `self`) resolved against module `here`.
fn resolve(here: &[String], head: &str, segments: &[&str]) -> Vec<String> {
    let mut path: Vec<String> = match head {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        _ => here[..here.len().saturating_sub(1)].to_vec(),
    };
    for s in segments {
        match *s {
            "super" => {
                path.pop();
            }
            "self" => {}
            s => path.push(s.to_string()),
        }
    }
    path
}

/// The paths a `use` tree names: `a::{b, c::{d}}` → `a::b`, `a::c::d`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap_or("").trim().to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
    for (i, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

/// Every reference to a module path in `file`, whose module path is `here`.
fn references(file: &Path, here: &[String]) -> Vec<Reference> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines = code_lines(&text);
    let inline = Regex::new(r"\b(crate|super|self)((?:::\w+)+)").unwrap();
    let use_stmt = Regex::new(r"(?s)\buse\s+(crate|super|self)::([^;]*);").unwrap();
    let at = |n: usize| format!("{}:{n}", file.strip_prefix(src_dir()).unwrap().display());
    let mut out = Vec::new();
    let mut push = |head: &str, rest: &str, n: usize| {
        let segs: Vec<&str> = rest.split("::").filter(|s| !s.is_empty()).collect();
        let to = resolve(here, head, &segs);
        out.push(Reference {
            from: here.to_vec(),
            to,
            at: at(n),
        });
    };
    for (n, line) in &lines {
        for c in inline.captures_iter(line) {
            push(&c[1], &c[2], *n);
        }
    }
    let line_mark = Regex::new(r"\x00\d+\x00").unwrap();
    let joined: String = lines
        .iter()
        .map(|(n, l)| format!("\u{0}{n}\u{0}{l}\n"))
        .collect();
    for c in use_stmt.captures_iter(&joined) {
        let n = joined[..c.get(0).unwrap().start()]
            .rsplit('\u{0}')
            .nth(1)
            .unwrap_or("0");
        let body = line_mark.replace_all(&c[2], "");
        for p in expand(&body) {
            push(&c[1], &p, n.parse().unwrap_or(0));
        }
    }
    out
}

/// The longest prefix of `path` that is a module.
fn module_of(known: &BTreeSet<Vec<String>>, path: &[String]) -> Vec<String> {
    (0..=path.len())
        .rev()
        .map(|k| path[..k].to_vec())
        .find(|p| known.contains(p))
        .unwrap_or_default()
}

fn all_references() -> (BTreeSet<Vec<String>>, Vec<Reference>) {
    let files = source_files();
    let known: BTreeSet<Vec<String>> = files.iter().map(|(_, m)| m.clone()).collect();
    let mut refs = Vec::new();
    for (file, here) in &files {
        if file.ends_with("main.rs") {
            continue;
        }
        for mut r in references(file, here) {
            r.to = module_of(&known, &r.to);
            refs.push(r);
        }
    }
    (known, refs)
}

/// A circle among `edges` (node → nodes), as its nodes in order, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| s == n) {
            return Some(stack[i..].to_vec());
        }
        if !done.insert(n.to_string()) {
            return None;
        }
        stack.push(n.to_string());
        for next in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn every_module_imports_only_from_lower_layers() {
    let ranks = ranks();
    let (known, refs) = all_references();
    // A reader that found nothing would pass every rule: the crate has hundreds of uses.
    assert!(
        refs.len() > 300,
        "only {} references found in src/",
        refs.len()
    );
    let mut wrong = Vec::new();
    for name in ranks.keys() {
        if !known.contains(&vec![name.clone()]) {
            wrong.push(format!(
                "lib.rs's `# Layers` list names `{name}`, which is no module"
            ));
        }
    }
    for top in known.iter().filter_map(|m| m.first()) {
        if !ranks.contains_key(top) {
            wrong.push(format!(
                "module `{top}` is in no layer of lib.rs's `# Layers` list"
            ));
        }
    }
    for r in &refs {
        let (Some(from), Some(to)) = (r.from.first(), r.to.first()) else {
            continue;
        };
        if from != to && ranks.get(to) >= ranks.get(from) {
            wrong.push(format!(
                "{}: `{from}` (layer {:?}) uses `{}`",
                r.at,
                ranks.get(from),
                r.to.join("::")
            ));
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "layer order broken:\n{}",
        wrong.join("\n")
    );
}

/// A subcommand depends only on the lower layers and `cmd::messages`: no module under `cmd/`
/// uses another subcommand's (uninstall had come to use init's internals, and four commands
/// ask's). Stricter than the circle rule below, which only forbids two commands using each other.
#[test]
fn no_command_uses_another() {
    let (known, refs) = all_references();
    let commands = known
        .iter()
        .filter(|m| m.len() == 2 && m[0] == "cmd")
        .count();
    assert!(commands >= 10, "only {commands} modules under cmd/");
    let mut wrong: Vec<String> = refs
        .iter()
        .filter(|r| r.from.first().is_some_and(|m| m == "cmd") && r.to.first() == r.from.first())
        .filter_map(|r| Some((r, r.from.get(1)?, r.to.get(1)?)))
        .filter(|(_, a, b)| a != b && *b != "messages")
        .map(|(r, _, _)| {
            format!(
                "{}: uses `{}`: move the shared rule to a lower layer or cmd/messages.rs",
                r.at,
                r.to.join("::")
            )
        })
        .collect();
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "commands using each other:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_two_sibling_modules_import_each_other() {
    let (_, refs) = all_references();
    let mut by_parent: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut at = BTreeMap::new();
    for r in &refs {
        let common = r.from.iter().zip(&r.to).take_while(|(a, b)| a == b).count();
        let (Some(a), Some(b)) = (r.from.get(common), r.to.get(common)) else {
            continue;
        };
        let parent = r.from[..common].to_vec();
        by_parent
            .entry(parent.clone())
            .or_default()
            .entry(a.clone())
            .or_default()
            .insert(b.clone());
        at.entry((parent, a.clone(), b.clone()))
            .or_insert_with(|| r.at.clone());
    }
    let mut wrong = Vec::new();
    for (parent, edges) in &mut by_parent {
        while let Some(c) = circle(edges) {
            let steps: Vec<String> = (0..c.len())
                .map(|i| {
                    let (a, b) = (&c[i], &c[(i + 1) % c.len()]);
                    format!(
                        "{a} -> {b} ({})",
                        at[&(parent.clone(), a.clone(), b.clone())]
                    )
                })
                .collect();
            wrong.push(format!(
                "in `crate::{}`: {}",
                parent.join("::"),
                steps.join(", ")
            ));
            // Cut the circle's first step and look again, so every circle is named.
            edges
                .get_mut(&c[0])
                .map(|next| next.remove(&c[1 % c.len()]));
        }
    }
    assert!(wrong.is_empty(), "import circles:\n{}", wrong.join("\n"));
}

#[test]
fn the_checker_reads_use_trees_relative_paths_and_circles() {
    let code = code_lines(
        "use crate::a; // crate::b\nlet s = \"//?/\"; crate::c::x();\n#[cfg(test)]\nfn t() {\n    crate::d();\n}\n#[cfg(test)]\nuse crate::e;\ncrate::f();",
    );
    let kept: Vec<usize> = code.iter().map(|(n, _)| *n).collect();
    assert_eq!(kept, [1, 2, 9], "{code:?}");
    assert!(code[1].1.contains("crate::c::x") && !code[0].1.contains("crate::b"));
    let here = |m: &str| m.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        expand("recall::{gate, semantic::{self, Vectors as V}}"),
        [
            "recall::gate",
            "recall::semantic::self",
            "recall::semantic::Vectors"
        ]
    );
    assert_eq!(
        resolve(&here("store::index::apply"), "super", &["super", "fresh"]),
        here("store::fresh")
    );
    assert_eq!(
        resolve(&here("recall::gate"), "crate", &["hook", "offer"]),
        here("hook::offer")
    );
    assert_eq!(
        resolve(&here("recall"), "self", &["gate"]),
        here("recall::gate")
    );
    let edges = |pairs: &[(&str, &str)]| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            m.entry(a.to_string()).or_default().insert(b.to_string());
        }
        m
    };
    assert_eq!(circle(&edges(&[("a", "b"), ("b", "c")])), None);
    let found = circle(&edges(&[("a", "b"), ("b", "c"), ("c", "a")])).unwrap();
    assert_eq!(found.len(), 3, "{found:?}");
}

#[test]
fn files_declared_under_cfg_test_are_not_read_as_production_code() {
    assert_eq!(
        test_only_children(
            "mod a;\n#[cfg(test)]\nmod tests;\n#[cfg(test)] // fixtures\n#[allow(dead_code)]\n\npub(crate) mod fixtures;\n#[cfg(test)]\nmod inline {\n}\n#[cfg(test)]\nfn t() {}\nmod b;\n// #[cfg(test)]\nmod c;"
        ),
        ["tests", "fixtures"]
    );
    let file = |p: &str, m: &str| {
        let path = m.split("::").filter(|s| !s.is_empty()).map(String::from);
        (PathBuf::from(p), path.collect::<Vec<_>>())
    };
    let files = vec![
        file("src/lib.rs", ""),
        file("src/recall/mod.rs", "recall"),
        file("src/recall/gate.rs", "recall::gate"),
        file("src/recall/gate/reask.rs", "recall::gate::reask"),
        file("src/recall/gate/tests.rs", "recall::gate::tests"),
        file("src/recall/gate/tests/a.rs", "recall::gate::tests::a"),
        file("src/recall/tests_data.rs", "recall::tests_data"),
    ];
    let texts = [
        "mod recall;",
        "mod gate;\nmod tests_data;",
        "mod reask;\n#[cfg(test)]\nmod tests;",
        "",
        "mod cases;",
        "",
        "",
    ]
    .map(String::from);
    let kept: Vec<String> = without_test_only(files, &texts)
        .into_iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert_eq!(
        kept,
        [
            "src/lib.rs",
            "src/recall/mod.rs",
            "src/recall/gate.rs",
            "src/recall/gate/reask.rs",
            "src/recall/tests_data.rs"
        ]
    );
}
