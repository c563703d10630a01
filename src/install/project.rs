//! The project files `init` and `uninstall` both handle, and the rules both apply to them: the
//! host settings files (from [`crate::hosts`]), the user-level files read beside them, and the
//! check that no folder on the way to any of them is a symlink.

use super::SettingsFile;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The Claude Code project settings file, relative to the project root.
#[cfg(test)]
pub(crate) const CLAUDE_SETTINGS: &str = crate::hosts::CLAUDE.files[0];
/// The Claude Code local settings file, relative to the project root.
pub(crate) const CLAUDE_LOCAL_SETTINGS: &str = crate::hosts::CLAUDE.files[1];

/// How many project settings files capn merges its handlers into.
const MERGED_COUNT: usize = {
    let (mut n, mut i) = (0, 0);
    while i < crate::hosts::ALL.len() {
        if !crate::hosts::ALL[i].whole_file {
            n += crate::hosts::ALL[i].files.len();
        }
        i += 1;
    }
    n
};

/// The project settings files capn merges its handlers into, in the order `init` and
/// `uninstall` handle them: each merging host's files, in [`crate::hosts::ALL`]'s order
/// (`.claude/settings.json`, `.claude/settings.local.json`, `.codex/hooks.json`,
/// `.gemini/settings.json`, `.qwen/settings.json`). (The hosts whose file capn writes whole: [`super::more_hosts`].)
pub(crate) const PROJECT_SETTINGS: [&str; MERGED_COUNT] = {
    let mut out = [""; MERGED_COUNT];
    let (mut i, mut j) = (0, 0);
    while i < crate::hosts::ALL.len() {
        let spec = crate::hosts::ALL[i];
        let mut k = 0;
        while k < spec.files.len() && !spec.whole_file {
            out[j] = spec.files[k];
            j += 1;
            k += 1;
        }
        i += 1;
    }
    out
};

/// The host whose settings file `rel` (one of [`PROJECT_SETTINGS`]) is.
pub(crate) fn host_of_file(rel: &str) -> crate::hosts::Host {
    crate::hosts::ALL
        .iter()
        .find(|s| s.files.contains(&rel))
        .map_or(crate::hosts::Host::default(), |s| s.host)
}

/// The user-level Claude Code settings file, relative to the home folder.
pub(crate) const USER_CLAUDE_SETTINGS: &str = crate::hosts::CLAUDE.user_file;

/// The user-level settings file `rel` (relative to the home folder), when there is a home
/// folder and the file parses (a broken user file is doctor's to report, not init's to fix).
pub(crate) fn user_settings(rel: &str) -> Option<SettingsFile> {
    let home = crate::env::home_dir()?;
    SettingsFile::load_user(&home.join(rel)).ok()
}

/// The statusline command in the user's `~/.claude/settings.json`, if any (project settings
/// override it, so ours must wrap it to keep it visible).
pub(crate) fn user_statusline_command() -> Option<String> {
    let f = user_settings(USER_CLAUDE_SETTINGS)?;
    super::statusline_command(&f.json).map(str::to_string)
}

/// Checks that no folder on the way from `root` to any project file `init` and `uninstall` may
/// read, write or delete (the settings files, `.gitignore`, the skill) is a symlink: a committed
/// `.claude -> ../elsewhere` or `.claude/skills -> /anywhere` would lead reads, writes and
/// deletes out of the project.
///
/// Errors: [`crate::fsutil::check_inside`]'s, naming the folder; nothing has been touched.
pub(crate) fn check_project_paths(root: &Path) -> Result<()> {
    let mut paths: Vec<PathBuf> = PROJECT_SETTINGS.iter().map(|r| root.join(r)).collect();
    for file in super::more_hosts::OWN_FILES {
        paths.push(root.join(file.rel));
    }
    paths.push(root.join(".gitignore"));
    paths.push(super::skill::skill_path(root));
    for p in paths {
        crate::fsutil::check_inside(root, &p).map_err(|e| {
            anyhow::anyhow!(
                "{e:#}; nothing was changed (replace the symlinked folder with a real one, or register the capn hooks and skill by hand: INSTALL.md, \"Registering by hand\")"
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list built from the host specs is the named files, in the order `init` loads them.
    #[test]
    fn the_merged_files_are_the_hosts_settings_in_host_order() {
        assert_eq!(
            PROJECT_SETTINGS,
            [
                CLAUDE_SETTINGS,
                CLAUDE_LOCAL_SETTINGS,
                ".codex/hooks.json",
                ".gemini/settings.json",
                ".qwen/settings.json"
            ]
        );
        for rel in PROJECT_SETTINGS {
            assert!(host_of_file(rel).spec().owns(rel), "{rel}");
        }
    }
}
