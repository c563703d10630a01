//! The one owner of "are these two paths the same": how capn compares a path with another, a
//! path with the project root, and a path key with the store's own folder, on each system.
//!
//! - **Case and Unicode normalisation.** macOS (APFS, HFS+) and Windows (NTFS) name files
//!   case-insensitively by default, and APFS also normalisation-insensitively (`é` as one code
//!   point or as `e` + a combining accent is one name). There `SRC/Pay.ts` and `src/pay.ts` are
//!   one file, so they compare equal: both sides are put in Unicode NFC and lowercased
//!   ([`Rules::fold`]). Linux file systems compare bytes, so there nothing is folded: two names
//!   that differ in case are two files. (A case-sensitive APFS volume is rare and not detected:
//!   there two such names are taken for one file.)
//! - **Separators.** On Windows `\` and `/` both separate ([`Rules::backslash`]); elsewhere a
//!   `\` is an ordinary character of a name.
//! - **Verbatim prefixes.** Windows canonicalises to `\\?\C:\...` (`\\?\UNC\server\share\...`
//!   for a share), a form no payload, git or typed path uses: the prefix is dropped before
//!   comparing ([`strip_verbatim`]). Paths capn resolves itself go through `dunce::canonicalize`,
//!   which gives the plain form where it names the same file.
//!
//! The rules are plain data so the logic of every system is tested on any of them.

use std::borrow::Cow;
use std::path::Path;
use unicode_normalization::UnicodeNormalization;

/// How one system compares paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Names compare case- and normalisation-insensitively (NFC, then lowercase).
    pub fold: bool,
    /// `\` separates components (and `\\?\` prefixes exist).
    pub backslash: bool,
}

/// The rules of the system capn was built for: folding on macOS and Windows, `\` on Windows.
pub(crate) const SYSTEM: Rules = Rules {
    fold: cfg!(any(target_vendor = "apple", windows)),
    backslash: cfg!(windows),
};

#[cfg(test)]
/// Linux (and other Unix) rules: bytes compare exactly, only `/` separates.
pub(crate) const EXACT: Rules = Rules {
    fold: false,
    backslash: false,
};

/// `s` without a Windows verbatim prefix: `\\?\C:\x` gives `C:\x`, `\\?\UNC\srv\share\x` gives
/// `\\srv\share\x`; anything else is returned as it is. (`\\.\` device paths are left alone:
/// they never name a project file.)
pub(crate) fn strip_verbatim(s: &str) -> Cow<'_, str> {
    for lead in [r"\\?\", "//?/"] {
        if let Some(rest) = s.strip_prefix(lead) {
            for unc in ["UNC\\", "UNC/", "unc\\", "unc/"] {
                if let Some(share) = rest.strip_prefix(unc) {
                    return Cow::Owned(format!(r"\\{share}"));
                }
            }
            return Cow::Borrowed(rest);
        }
    }
    Cow::Borrowed(s)
}

/// The components of `s` under `rules`: separators split (runs of them and `.` components are
/// dropped), each component folded when the rules fold. A leading separator gives an empty
/// first component (so `/a` and `a` differ), and a Windows drive letter (`C:`) is one component.
pub(crate) fn components(rules: Rules, s: &str) -> Vec<String> {
    let s: Cow<'_, str> = if rules.backslash {
        strip_verbatim(s)
    } else {
        Cow::Borrowed(s)
    };
    let is_sep = |c: char| c == '/' || (rules.backslash && c == '\\');
    let mut out = Vec::new();
    if s.starts_with(is_sep) {
        out.push(String::new());
    }
    for part in s.split(is_sep).filter(|p| !p.is_empty() && *p != ".") {
        out.push(fold(rules, part));
    }
    out
}

/// One name under `rules`: NFC then lowercase where the rules fold, else as it is.
pub(crate) fn fold(rules: Rules, name: &str) -> String {
    if rules.fold {
        name.nfc().flat_map(char::to_lowercase).collect()
    } else {
        name.to_string()
    }
}

/// Whether `a` and `b` name the same path under `rules`.
pub(crate) fn same_with(rules: Rules, a: &str, b: &str) -> bool {
    a == b || components(rules, a) == components(rules, b)
}

/// Whether `a` and `b` name the same path on this system ([`SYSTEM`]).
pub(crate) fn same(a: &Path, b: &Path) -> bool {
    same_with(SYSTEM, &a.to_string_lossy(), &b.to_string_lossy())
}

/// Whether two path keys (project-relative, `/`-separated) name the same file on this system.
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    same_with(SYSTEM, a, b)
}

/// The part of `path` below `root` under `rules`, as its original (unfolded) components joined
/// by `/`; `Some("")` when `path` is `root`, `None` when it is not inside it.
pub(crate) fn strip_root_with(rules: Rules, path: &str, root: &str) -> Option<String> {
    let want = components(rules, root);
    let raw = components(
        Rules {
            fold: false,
            ..rules
        },
        path,
    );
    if raw.len() < want.len() {
        return None;
    }
    let matches = raw.iter().zip(&want).all(|(p, r)| fold(rules, p) == *r);
    matches.then(|| raw[want.len()..].join("/"))
}

/// Whether `path` is `root` or lies below it on this system (text only: resolve symlinks first).
pub(crate) fn within(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
        || strip_root_with(SYSTEM, &path.to_string_lossy(), &root.to_string_lossy()).is_some()
}

/// Whether the path key `key` (relative, `/` or `\\` separated) is the folder `name` or lies
/// inside it, under `rules`: on a folding system `.CAPN/x` lies inside `.capn`. `name` is one
/// component, written as `rules` fold it (lower case, NFC).
pub(crate) fn under_top_folder_with(rules: Rules, key: &str, name: &str) -> bool {
    components(rules, key).first().map(String::as_str) == Some(name)
}

/// [`under_top_folder_with`] on this system.
pub(crate) fn under_top_folder(key: &str, name: &str) -> bool {
    under_top_folder_with(SYSTEM, key, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAC: Rules = Rules {
        fold: true,
        backslash: false,
    };
    const WINDOWS: Rules = Rules {
        fold: true,
        backslash: true,
    };

    #[test]
    fn folding_systems_compare_case_and_normalisation_insensitively() {
        assert!(same_with(MAC, "src/Pay.ts", "SRC/pay.ts"));
        // é precomposed (NFC) and decomposed (NFD, as HFS+ stores it).
        assert!(same_with(MAC, "docs/caf\u{e9}.md", "docs/cafe\u{301}.md"));
        assert!(!same_with(EXACT, "src/Pay.ts", "src/pay.ts"));
        assert!(!same_with(
            EXACT,
            "docs/caf\u{e9}.md",
            "docs/cafe\u{301}.md"
        ));
        assert!(!same_with(MAC, "src/pay.ts", "src/pay.tsx"));
    }

    #[test]
    fn separators_count_only_where_the_system_has_them() {
        assert!(same_with(WINDOWS, r"SRC\Pay.ts", "src/pay.ts"));
        assert!(!same_with(MAC, r"src\pay.ts", "src/pay.ts"));
        assert!(same_with(EXACT, "src//a/./b", "src/a/b"));
        assert!(!same_with(EXACT, "/a", "a"));
    }

    #[test]
    fn verbatim_prefixes_are_dropped() {
        assert_eq!(strip_verbatim(r"\\?\C:\proj\a.ts"), r"C:\proj\a.ts");
        assert_eq!(strip_verbatim(r"\\?\UNC\srv\share\p"), r"\\srv\share\p");
        assert_eq!(strip_verbatim(r"C:\proj"), r"C:\proj");
        assert!(same_with(WINDOWS, r"\\?\C:\Proj\a.ts", r"c:\proj\A.ts"));
        assert!(same_with(WINDOWS, r"\\?\UNC\srv\share\p", r"\\SRV\share\p"));
        // Off Windows the text is a name like any other.
        assert!(!same_with(EXACT, r"\\?\C:\proj", r"C:\proj"));
    }

    #[test]
    fn the_root_is_stripped_by_components_keeping_the_original_spelling() {
        assert_eq!(
            strip_root_with(WINDOWS, r"z:\Work\Proj\Src\Pay.ts", r"\\?\Z:\work\proj").as_deref(),
            Some("Src/Pay.ts")
        );
        assert_eq!(
            strip_root_with(MAC, "/Users/a/Proj", "/users/A/proj").as_deref(),
            Some("")
        );
        assert_eq!(
            strip_root_with(MAC, "/Users/a/Projx/f", "/Users/a/Proj"),
            None
        );
        assert_eq!(strip_root_with(EXACT, "/r/A/b", "/R"), None);
        assert_eq!(
            strip_root_with(EXACT, "/r/A/b", "/r").as_deref(),
            Some("A/b")
        );
    }

    #[test]
    fn the_store_folder_is_found_in_any_case_where_names_fold() {
        let in_store = |rules, key| under_top_folder_with(rules, key, ".capn");
        assert!(in_store(MAC, ".CAPN/entries/x.md"));
        assert!(in_store(WINDOWS, r".Capn\config.json"));
        assert!(in_store(EXACT, ".capn"));
        assert!(!in_store(EXACT, ".CAPN/x"));
        assert!(!in_store(MAC, ".capnx/a"));
        assert!(!in_store(MAC, "docs/.capn"));
    }
}
