//! Who may mark a project root off Unix. On Unix a `.capn/` is adopted only when the user
//! running capn owns it ([`super::find_root`]). Windows has owners too, but std does not expose
//! them and reading a security descriptor takes `unsafe` FFI, which this crate forbids; so there
//! capn refuses the folders where another user can plant a `.capn/` that every project below
//! would adopt: a drive or share root (`C:\`, where any signed-in user may create folders) and
//! the folders above the user's home (`C:\Users`). A `.capn/` in the home itself or below it, or
//! in any other folder, is adopted as on Unix without an owner check (README, "Supported
//! systems").

use std::path::Path;

/// Whether `store` (a `<dir>/.capn` folder) may mark `<dir>` as a project root without an owner
/// check, given the user's home folder `home`: not when `<dir>` is a root (no parent: `C:\`,
/// `\\srv\share\`) or lies strictly above `home`. Paths are compared by [`crate::pathcmp`].
pub(super) fn adoptable_without_owner(
    store: &Path,
    home: Option<&Path>,
) -> Result<(), &'static str> {
    let Some(dir) = store.parent() else {
        return Err("it is at the root of a drive");
    };
    if dir.parent().is_none() {
        return Err("it is at the root of a drive");
    }
    if let Some(home) = home {
        if crate::pathcmp::within(home, dir) && !crate::pathcmp::same(home, dir) {
            return Err("it is above your home folder");
        }
    }
    Ok(())
}

/// [`adoptable_without_owner`] for this user, noting a refusal on stderr.
#[cfg_attr(unix, allow(dead_code))]
pub(super) fn adoptable(store: &Path) -> bool {
    let home = crate::env::home_dir().map(|h| crate::fsutil::resolved(&h));
    match adoptable_without_owner(store, home.as_deref()) {
        Ok(()) => true,
        Err(why) => {
            diag!(
                "capn: ignoring {}: {why}, where another user could have made it, so it does not mark your project (run capn init in your project)",
                store.display()
            );
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_where_anyone_can_plant_one_are_refused() {
        let home = Path::new("/Users/me");
        let ok = |p: &str| adoptable_without_owner(Path::new(p), Some(home));
        assert_eq!(ok("/.capn"), Err("it is at the root of a drive"));
        assert_eq!(ok("/Users/.capn"), Err("it is above your home folder"));
        assert_eq!(ok("/Users/me/.capn"), Ok(()));
        assert_eq!(ok("/Users/me/src/app/.capn"), Ok(()));
        assert_eq!(ok("/work/app/.capn"), Ok(()));
        assert_eq!(
            adoptable_without_owner(Path::new("/work/.capn"), None),
            Ok(())
        );
    }

    #[cfg(windows)]
    #[test]
    fn windows_drive_roots_and_the_users_folder_are_refused() {
        let home = Path::new(r"C:\Users\me");
        let ok = |p: &str| adoptable_without_owner(Path::new(p), Some(home)).is_ok();
        assert!(!ok(r"C:\.capn"));
        assert!(!ok(r"D:\.capn"));
        assert!(!ok(r"c:\users\.capn"), "compared as Windows compares names");
        assert!(ok(r"C:\Users\me\proj\.capn"));
        assert!(ok(r"D:\src\proj\.capn"));
    }
}
