//! The layer order of the crate's modules (stated in lib.rs), checked over the source: a module
//! names (`crate::<module>`) only modules of its own layer or a lower one, and no module reaches
//! itself through the modules it names (no import circle, within a layer either).

/// Each top-level module and its layer, lowest first (lib.rs's module docs say why).
pub(crate) const LAYERS: &[(&str, u8)] = &[
    ("clock", 0),
    ("env", 0),
    ("error", 0),
    ("fsutil", 0),
    ("hex", 0),
    ("pathcmp", 0),
    ("process", 0),
    ("config", 1),
    ("events", 1),
    ("hosts", 1),
    ("jsonedit", 1),
    ("present", 1),
    ("embed", 2),
    ("store", 2),
    ("recall", 3),
    ("contract", 4),
    ("hook", 4),
    ("install", 4),
    ("session", 4),
    ("cmd", 5),
    ("cli", 6),
];

/// Folders whose modules are being reworked elsewhere: their own imports are not checked here
/// yet (imports of them still are).
const UNCHECKED_SOURCES: &[&str] = &["cmd", "recall", "store"];

/// Edges known to break the order, each with what removes it (pathcmp -> store also closes the
/// circle config -> fsutil -> pathcmp -> store -> config).
const KNOWN: &[(&str, &str, &str)] = &[(
    "pathcmp",
    "store",
    "store::STORE_DIR is the store's name for its folder; it moves down with the store split",
)];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// The top-level modules a line of code names as `crate::<module>` (also in `crate::{a, b}`).
pub(crate) fn named_modules(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let ident_end = |s: &str| {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    for (at, _) in line.match_indices("crate::") {
        if line[..at].ends_with('$') {
            continue; // `$crate::` in a macro: the crate root, no module
        }
        let rest = &line[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let item = item.trim();
                out.push(&item[..ident_end(item)]);
            }
        } else {
            out.push(&rest[..ident_end(rest)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    #[test]
    fn no_module_names_a_higher_layer() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut wrong = Vec::new();
        let mut modules_seen = std::collections::BTreeSet::new();
        for f in &files {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
            if matches!(top, "lib" | "main" | "layers") {
                continue;
            }
            modules_seen.insert(top.to_string());
            let own = layer(top).unwrap_or_else(|| panic!("{rel}: module {top} has no layer"));
            if UNCHECKED_SOURCES.contains(&top) {
                continue;
            }
            let text = std::fs::read_to_string(f).unwrap();
            for (n, line) in text.lines().enumerate() {
                if line.starts_with("#[cfg(test)]") {
                    break; // tests may reach anywhere
                }
                if line.trim_start().starts_with("//") {
                    continue; // doc links name modules without importing them
                }
                for m in named_modules(line) {
                    let Some(theirs) = layer(m) else { continue };
                    let known = KNOWN.iter().any(|(a, b, _)| *a == top && *b == m);
                    if theirs > own && !known {
                        wrong.push(format!(
                            "{rel}:{}: {top} (layer {own}) names {m} (layer {theirs})",
                            n + 1
                        ));
                    }
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "lower layers name higher ones:\n{}",
            wrong.join("\n")
        );
        let listed: std::collections::BTreeSet<String> =
            LAYERS.iter().map(|(m, _)| m.to_string()).collect();
        assert_eq!(
            modules_seen, listed,
            "LAYERS and src/ list different modules"
        );
    }

    /// The top-level modules each top-level module names outside its tests, less the
    /// [`KNOWN`] edges.
    fn module_edges() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut edges = std::collections::BTreeMap::<String, std::collections::BTreeSet<_>>::new();
        for f in &files {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let top = rel
                .split('/')
                .next()
                .unwrap()
                .trim_end_matches(".rs")
                .to_string();
            let text = std::fs::read_to_string(f).unwrap();
            for line in text.lines() {
                if line.starts_with("#[cfg(test)]") {
                    break;
                }
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for m in named_modules(line) {
                    let known = KNOWN.iter().any(|(a, b, _)| *a == top && *b == m);
                    if m != top && layer(m).is_some() && !known {
                        edges.entry(top.clone()).or_default().insert(m.to_string());
                    }
                }
            }
        }
        edges
    }

    #[test]
    fn no_two_modules_name_each_other_even_through_others() {
        let edges = module_edges();
        // Depth-first from each module: reaching it again is a circle.
        for start in edges.keys() {
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = std::collections::BTreeSet::new();
            while let Some((at, trail)) = stack.pop() {
                for next in edges.get(&at).into_iter().flatten() {
                    let mut t = trail.clone();
                    t.push(next.clone());
                    assert!(next != start, "import circle: {}", t.join(" -> "));
                    if seen.insert(next.clone()) {
                        stack.push((next.clone(), t));
                    }
                }
            }
        }
    }

    #[test]
    fn named_modules_reads_paths_groups_and_skips_macros() {
        assert_eq!(named_modules("use crate::hosts::Host;"), ["hosts"]);
        assert_eq!(
            named_modules("let a = crate::hex::encode(&crate::store::x());"),
            ["hex", "store"]
        );
        assert_eq!(
            named_modules("use crate::{events::HookEvent, hosts};"),
            ["events", "hosts"]
        );
        assert!(named_modules("$crate::write_diag(x)").is_empty());
    }
}
