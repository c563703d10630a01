//! Turning user-typed paths into path keys (relative to the project root, `/`-separated) and
//! back, with the containment rules of format.md ("Staleness": a backing file is a regular file
//! inside the project root; a symlink is followed only if its target is inside the root).

use std::path::{Component, Path, PathBuf};

/// Lexically normalises `p` (drops `.`, resolves `..` against earlier components). Returns `None`
/// when `..` would climb above the file-system root.
pub(crate) fn normalize(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(s) => out.push(s),
        }
    }
    Some(out)
}

/// The key of `abs` (an absolute, normalised path) relative to `root`, or `None` when it is not
/// strictly inside `root` or not valid UTF-8.
pub(crate) fn key_of(root: &Path, abs: &Path) -> Option<String> {
    let Ok(rel) = abs.strip_prefix(root) else {
        // On a folding system `C:\Proj` holds `c:\proj\a.ts` (crate::pathcmp).
        let rel =
            crate::pathcmp::strip_root_with(crate::pathcmp::SYSTEM, abs.to_str()?, root.to_str()?)?;
        return (!rel.is_empty() && abs != root).then_some(rel);
    };
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?),
            _ => return None,
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}

/// The absolute path of a key.
pub(crate) fn abs_of(root: &Path, key: &str) -> PathBuf {
    let mut p = root.to_path_buf();
    for part in key.split('/') {
        p.push(part);
    }
    p
}

/// Resolves a path typed by the user (relative to `cwd`, or absolute) to its key, without
/// checking that the file exists. Errors are one-line reasons.
pub(crate) fn resolve_key(
    root: &Path,
    cwd: &Path,
    input: &str,
) -> Result<(String, PathBuf), String> {
    if input.is_empty() {
        return Err("empty file path".into());
    }
    let joined = cwd.join(input);
    let abs = normalize(&joined).ok_or_else(|| format!("{input}: outside the project root"))?;
    if let Some(key) = key_of(root, &abs) {
        return Ok((key, abs));
    }
    // An absolute path may reach the root through a symlinked ancestor (/tmp -> /private/tmp).
    if let Ok(canon) = dunce::canonicalize(&abs) {
        if let Some(key) = key_of(root, &canon) {
            return Ok((key, canon));
        }
    }
    if crate::pathcmp::same(&abs, root) {
        return Err(format!("{input}: is a directory (the project root)"));
    }
    Err(format!(
        "{input}: outside the project root ({})",
        root.display()
    ))
}

/// Resolves and checks a backing file for `chart`: it must exist, be a regular file (after
/// following symlinks), and resolve to a target inside `root`. Returns its key and absolute path.
pub(crate) fn resolve_backing_file(
    root: &Path,
    cwd: &Path,
    input: &str,
) -> Result<(String, PathBuf), String> {
    let (key, abs) = resolve_key(root, cwd, input)?;
    if crate::pathcmp::under_top_folder(&key, super::STORE_DIR) {
        return Err(format!("{input}: inside the capn store"));
    }
    if !super::entry::is_valid_key(&key) {
        return Err(format!(
            "{input}: a path with a backslash or NUL cannot be charted (entries hold /-separated paths)"
        ));
    }
    let meta = match std::fs::metadata(&abs) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("{input}: no such file"))
        }
        Err(e) => return Err(format!("{input}: {e}")),
    };
    if meta.is_dir() {
        return Err(format!("{input}: is a directory"));
    }
    if !meta.is_file() {
        return Err(format!("{input}: not a regular file"));
    }
    let canon = dunce::canonicalize(&abs).map_err(|e| format!("{input}: {e}"))?;
    if !crate::pathcmp::within(&canon, root) {
        return Err(format!(
            "{input}: symlink target is outside the project root ({})",
            canon.display()
        ));
    }
    if resolves_into_store(root, &canon) {
        return Err(format!("{input}: resolves into the capn store"));
    }
    Ok((key, abs))
}

/// True when `canon` (a canonical path) lies in the store of `root`, however the path that led
/// there was spelt: a symlink in the project pointing into `.capn/`, a symlinked folder, or
/// another case on a folding file system. The root is compared canonical too.
fn resolves_into_store(root: &Path, canon: &Path) -> bool {
    let root = dunce::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let store = dunce::canonicalize(root.join(super::STORE_DIR))
        .unwrap_or_else(|_| root.join(super::STORE_DIR));
    if crate::pathcmp::within(canon, &store) {
        return true;
    }
    key_of(&root, canon).is_some_and(|key| crate::pathcmp::under_top_folder(&key, super::STORE_DIR))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")).unwrap(),
            PathBuf::from("/a/c/d")
        );
        assert!(normalize(Path::new("/..")).is_none());
    }

    #[test]
    fn keys_are_relative_and_slash_separated() {
        let root = Path::new("/r");
        assert_eq!(key_of(root, Path::new("/r/a/b.ts")).unwrap(), "a/b.ts");
        assert!(key_of(root, Path::new("/r")).is_none());
        assert!(key_of(root, Path::new("/rx/a")).is_none());
        assert_eq!(abs_of(root, "a/b c.ts"), PathBuf::from("/r/a/b c.ts"));
    }

    #[test]
    fn resolve_refuses_escapes() {
        let root = Path::new("/r");
        assert!(resolve_key(root, Path::new("/r/sub"), "../../x").is_err());
        assert!(resolve_key(root, Path::new("/r"), "/etc/passwd").is_err());
        assert_eq!(
            resolve_key(root, Path::new("/r/sub"), "../a.ts").unwrap().0,
            "a.ts"
        );
    }
}
