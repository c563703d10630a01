//! One memory per repository: a linked git worktree (`git worktree add`) without a `.capn/` of
//! its own reads and writes the main checkout's store, found from files alone (no `git` run on
//! the hot path), the way git itself links them:
//!
//! - `<worktree>/.git` is a regular file `gitdir: <path>` naming the worktree's git dir,
//!   `<common>/worktrees/<name>`;
//! - that folder's `commondir` names the common git dir (relative to it, or absolute), and its
//!   `gitdir` names the worktree's `.git` file back;
//! - the main checkout is the folder whose `.git` folder is the common git dir.
//!
//! Everything in them is untrusted (a folder can hold a `.git` file naming anything): each file
//! is read without following a symlink, at most [`MAX_LINK_BYTES`]; the worktree's git dir must
//! be a real folder inside `<common>/worktrees/` whose `gitdir` names this very `.git` file
//! back, and the main checkout's `.git` a real folder, owned by the user running capn. Anything
//! else (a submodule's `.git` file, which has no `commondir`; a bare repository's worktree,
//! which has no main checkout; a link that does not hold) is not a linked worktree, and the
//! folder keeps a store of its own as before.

use std::path::{Path, PathBuf};

/// The most bytes read of a `.git` file, `commondir` or `gitdir` (git writes one path).
pub(crate) const MAX_LINK_BYTES: u64 = 4096;

/// A linked worktree of a repository with a main checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Linked {
    /// The main checkout's root (canonical).
    pub main_root: PathBuf,
    /// The worktree's name: the last component of its git dir (`.git/worktrees/<name>`).
    pub name: String,
}

/// The first line of the small file at `path`, read without following a symlink, at most
/// [`MAX_LINK_BYTES`], as UTF-8 with the line end trimmed.
fn read_line(path: &Path) -> Option<String> {
    let bytes =
        crate::fsutil::read_limited(path, MAX_LINK_BYTES, crate::fsutil::Follow::Never).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let line = text.lines().next()?.trim_end_matches('\r');
    (!line.is_empty()).then(|| line.to_string())
}

/// `p` joined to `base` when relative, lexically normalised, then canonicalised (in the plain
/// form on Windows, as [`crate::fsutil::resolved`] gives it, so every path here compares alike).
fn resolve(base: &Path, p: &str) -> Option<PathBuf> {
    let joined = super::paths::normalize(&base.join(p))?;
    dunce::canonicalize(joined).ok()
}

/// True when `p` is a real folder (not a symlink) owned by the user running capn.
fn own_real_dir(p: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(p) else {
        return false;
    };
    if !meta.is_dir() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != rustix::process::geteuid().as_raw() {
            return false;
        }
    }
    true
}

/// When `root` is a linked worktree (module docs): its main checkout and its name.
pub(crate) fn linked(root: &Path) -> Option<Linked> {
    let dot_git = root.join(".git");
    if !std::fs::symlink_metadata(&dot_git).ok()?.is_file() {
        return None;
    }
    let line = read_line(&dot_git)?;
    let gitdir = resolve(root, line.strip_prefix("gitdir:")?.trim())?;
    if !own_real_dir(&gitdir) {
        return None;
    }
    let common = resolve(&gitdir, &read_line(&gitdir.join("commondir"))?)?;
    // The worktree's git dir is `<common>/worktrees/<name>` and names this `.git` file back.
    if gitdir.parent()? != common.join("worktrees") {
        return None;
    }
    let back = resolve(&gitdir, &read_line(&gitdir.join("gitdir"))?)?;
    if back != dunce::canonicalize(&dot_git).ok()? {
        return None;
    }
    // The main checkout: the folder whose `.git` folder is the common dir.
    if common.file_name()? != ".git" {
        return None;
    }
    let main_root = common.parent()?.to_path_buf();
    let main_git = main_root.join(".git");
    if !own_real_dir(&main_git) || dunce::canonicalize(&main_git).ok()? != common {
        return None;
    }
    let name = gitdir.file_name()?.to_str()?.to_string();
    Some(Linked { main_root, name })
}

/// The most linked worktrees [`other_checkouts`] looks at.
pub(crate) const MAX_WORKTREES: usize = 256;

/// The checkouts of the repository whose main checkout is `main_root`, other than `this`: the
/// main checkout itself and each linked worktree listed in `<main>/.git/worktrees/` that
/// [`linked`] confirms (so a listing git no longer honours, or one planted there, is passed
/// over), at most [`MAX_WORKTREES`]. Empty when `main_root` has no `.git` folder.
pub(crate) fn other_checkouts(main_root: &Path, this: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let main_git = main_root.join(".git");
    if !own_real_dir(&main_git) {
        return out;
    }
    let this = crate::fsutil::resolved(this);
    let main = crate::fsutil::resolved(main_root);
    if main != this {
        out.push(main.clone());
    }
    let Ok(rd) = std::fs::read_dir(main_git.join("worktrees")) else {
        return out;
    };
    for de in rd.flatten().take(MAX_WORKTREES) {
        let Some(dot_git) = read_line(&de.path().join("gitdir")) else {
            continue;
        };
        let Some(root) = Path::new(&dot_git).parent().map(Path::to_path_buf) else {
            continue;
        };
        let confirmed = linked(&root).is_some_and(|l| l.main_root == main);
        // git writes the path as it was given (`C:/x` on Windows): compared resolved, as `this`.
        if confirmed && crate::fsutil::resolved(&root) != this {
            out.push(root);
        }
    }
    out
}

/// Removes the folders of `<store_dir>/worktrees/` (each linked worktree's derived files and
/// install record, [`super::Store::local`]) whose worktree git no longer knows: no
/// `<main>/.git/worktrees/<name>` (`git worktree remove` and `git worktree prune` delete it).
/// `store_dir` is the main checkout's `.capn/`. Nothing outside `<store_dir>/worktrees/` is
/// touched and no symlink is followed: a `worktrees` that is not a real folder, or an entry
/// in it that is not one (a symlink, a file), is left alone, and `remove_dir_all` does not
/// follow a symlink inside. Nothing is removed unless `<main>/.git` is a real folder of this
/// user's (else there is no telling which worktrees git knows). At most [`MAX_WORKTREES`]
/// entries are looked at. Returns the names removed.
pub(crate) fn sweep_stale(store_dir: &Path) -> Vec<String> {
    let mut removed = Vec::new();
    let Some(main) = store_dir.parent() else {
        return removed;
    };
    let main_git = main.join(".git");
    let dir = store_dir.join("worktrees");
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) || !own_real_dir(&main_git) {
        return removed;
    }
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return removed;
    };
    for de in rd.flatten().take(MAX_WORKTREES) {
        let name = de.file_name();
        let path = dir.join(&name);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        if std::fs::symlink_metadata(main_git.join("worktrees").join(&name)).is_ok() {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed.push(name.to_string_lossy().into_owned());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A main checkout `m` and a linked worktree `w` as git lays them out.
    fn layout(dir: &Path) -> (PathBuf, PathBuf) {
        let m = dir.join("m");
        let w = dir.join("w");
        let gd = m.join(".git/worktrees/w");
        std::fs::create_dir_all(&gd).unwrap();
        std::fs::create_dir_all(&w).unwrap();
        std::fs::write(w.join(".git"), format!("gitdir: {}\n", gd.display())).unwrap();
        std::fs::write(gd.join("commondir"), "../..\n").unwrap();
        std::fs::write(gd.join("gitdir"), format!("{}\n", w.join(".git").display())).unwrap();
        (m, w)
    }

    #[test]
    fn a_linked_worktree_finds_its_main_checkout() {
        let dir = tempfile::tempdir().unwrap();
        let dir = crate::fsutil::resolved(dir.path());
        let (m, w) = layout(&dir);
        assert_eq!(
            linked(&w),
            Some(Linked {
                main_root: m.clone(),
                name: "w".into()
            })
        );
        assert_eq!(linked(&m), None, "the main checkout is not linked");
        assert_eq!(other_checkouts(&m, &m), vec![w.clone()]);
        assert_eq!(other_checkouts(&m, &w), vec![m.clone()]);
    }

    #[test]
    fn only_the_folders_of_worktrees_git_forgot_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let dir = crate::fsutil::resolved(dir.path());
        let (m, _w) = layout(&dir);
        let state = m.join(".capn/worktrees");
        for name in ["w", "gone"] {
            std::fs::create_dir_all(state.join(name)).unwrap();
        }
        std::fs::write(state.join("a-file"), "x").unwrap();
        assert_eq!(sweep_stale(&m.join(".capn")), ["gone"]);
        assert!(state.join("w").is_dir() && state.join("a-file").is_file());
        // Without a real .git folder in the main checkout nothing is known, so nothing goes.
        let plain = dir.join("plain");
        std::fs::create_dir_all(plain.join(".capn/worktrees/x")).unwrap();
        assert!(sweep_stale(&plain.join(".capn")).is_empty());
        assert!(plain.join(".capn/worktrees/x").is_dir());
    }

    #[test]
    fn a_link_that_does_not_hold_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let dir = crate::fsutil::resolved(dir.path());
        let (m, w) = layout(&dir);
        let gd = m.join(".git/worktrees/w");
        // The git dir does not name this .git file back (a planted .git file).
        std::fs::write(gd.join("gitdir"), "/elsewhere/.git\n").unwrap();
        assert_eq!(linked(&w), None);
        std::fs::write(gd.join("gitdir"), format!("{}\n", w.join(".git").display())).unwrap();
        // No commondir: a submodule's .git file.
        std::fs::remove_file(gd.join("commondir")).unwrap();
        assert_eq!(linked(&w), None);
        std::fs::write(gd.join("commondir"), "../..\n").unwrap();
        // A huge .git file is not read.
        std::fs::write(w.join(".git"), "x".repeat(MAX_LINK_BYTES as usize + 1)).unwrap();
        assert_eq!(linked(&w), None);
        #[cfg(unix)]
        {
            // A .git that is a symlink to a real link file is not followed.
            let real = dir.join("real-dot-git");
            std::fs::write(&real, format!("gitdir: {}\n", gd.display())).unwrap();
            std::fs::remove_file(w.join(".git")).unwrap();
            std::os::unix::fs::symlink(&real, w.join(".git")).unwrap();
            assert_eq!(linked(&w), None);
        }
    }
}
