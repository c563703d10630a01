//! The bundled `/compact-prep` skill, the one owner of its rules: what it is (embedded in the
//! binary, so `capn init` can install it without the source tree), where a project holds it,
//! what is there now (init decides from this what to write, doctor what to report, uninstall
//! what to remove), and how it is installed and removed.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// `skills/compact-prep/SKILL.md`: YAML frontmatter (`name`, `description` with the mandatory
/// triggers and what must not trigger it, `argument-hint`, `allowed-tools: Read, Write,
/// Bash(capn state:*), Bash(capn ask:*), Bash(capn chart:*)`) and the procedure: the state file,
/// then charting each question the session answered the hard way. Installed as
/// `<skills dir>/compact-prep/SKILL.md` (Claude Code's skills docs).
pub(crate) const SKILL_MD: &str = include_str!("../../skills/compact-prep/SKILL.md");

/// The skill's directory name, which is also its slash command (`/compact-prep`).
pub(crate) const SKILL_NAME: &str = "compact-prep";

/// Where `init` installs the bundled `/compact-prep` skill (skills reference: project skills live
/// in `.claude/skills/<name>/SKILL.md`).
pub(crate) fn skill_path(root: &Path) -> PathBuf {
    root.join(".claude/skills")
        .join(SKILL_NAME)
        .join("SKILL.md")
}

/// What the project's skill file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillFile {
    /// There is none.
    Missing,
    /// Exactly the bundled skill ([`SKILL_MD`]).
    Bundled,
    /// Another text (the user's edits, or an older capn's copy).
    Edited,
}

/// Reads the project's skill file (never blocking, never through a symlink) and compares it with
/// the bundled one.
///
/// Errors: it is a symlink, a FIFO or other special file, or cannot be read
/// ([`crate::fsutil::read_host_file`]).
pub(crate) fn read_skill(root: &Path) -> Result<SkillFile> {
    read_skill_file(&skill_path(root))
}

/// [`read_skill`] for the skill file at `path` (for `init --user`, the final target of a
/// symlink the user made in the home folder).
///
/// Errors: as [`read_skill`].
pub(crate) fn read_skill_file(path: &Path) -> Result<SkillFile> {
    Ok(match crate::fsutil::read_host_file(path, "skill")? {
        None => SkillFile::Missing,
        Some(b) if b == SKILL_MD.as_bytes() => SkillFile::Bundled,
        Some(_) => SkillFile::Edited,
    })
}

/// Writes the bundled skill to [`skill_path`] (creating its folders inside `root`, never through
/// a symlink), replacing whatever is there: the caller has checked with [`read_skill`] that
/// nothing is.
///
/// Errors: a folder on the way cannot be made, or the file cannot be written.
pub(crate) fn install(root: &Path) -> Result<()> {
    install_at(root, &skill_path(root))
}

/// [`install`] to `path`, its missing folders created below `base` (never through a symlink).
///
/// Errors: as [`install`].
pub(crate) fn install_at(base: &Path, path: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        crate::fsutil::ensure_dir_inside(base, dir)?;
    }
    crate::fsutil::write_atomic(path, SKILL_MD.as_bytes())
}

/// What [`remove_bundled`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Removed {
    /// There was no skill file.
    Nothing,
    /// It was the bundled skill: deleted (its folders are the caller's: only those `init`
    /// created go, [`remove_own_folder`]).
    Bundled,
    /// It holds another text (changed after `init` installed it): kept.
    Kept,
}

/// Removes the project's skill file if it is exactly the bundled one; keeps any other text.
/// No folder is removed: a folder goes only when the install record says `init` made it.
///
/// Errors: it is a symlink, a FIFO or other special file, or cannot be read or removed.
pub(crate) fn remove_bundled(root: &Path) -> Result<Removed> {
    let path = skill_path(root);
    Ok(match read_skill(root)? {
        SkillFile::Missing => Removed::Nothing,
        SkillFile::Edited => Removed::Kept,
        SkillFile::Bundled => {
            std::fs::remove_file(&path)
                .with_context(|| format!("could not remove {}", path.display()))?;
            Removed::Bundled
        }
    })
}

/// Removes the skill's own folder (`.claude/skills/compact-prep`, named for capn's skill) when
/// it is an empty real folder: for an uninstall without a record of the folders `init` made.
/// The folders above it (`.claude/skills`, `.claude`) may be the user's, and stay.
pub(crate) fn remove_own_folder(root: &Path) {
    if let Some(dir) = skill_path(root).parent() {
        if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            // Fails, and keeps the folder, when something is in it.
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frontmatter() -> &'static str {
        let rest = SKILL_MD.strip_prefix("---\n").expect("starts with ---");
        let end = rest.find("\n---\n").expect("frontmatter closes");
        &rest[..end]
    }

    #[test]
    fn frontmatter_has_the_required_keys() {
        let fm = frontmatter();
        let has = |line: &str| fm.lines().any(|l| l == line);
        assert!(has("name: compact-prep"), "{fm}");
        assert!(
            has("allowed-tools: Read, Write, Bash(capn state:*), Bash(capn ask:*), Bash(capn chart:*)"),
            "{fm}"
        );
        assert!(fm.lines().any(|l| l.starts_with("argument-hint: ")));
        // The folded (>-) description, whitespace collapsed as YAML does.
        let desc = fm.split("description:").nth(1).unwrap();
        let desc = desc.split("\nargument-hint:").next().unwrap();
        let desc = desc.split_whitespace().collect::<Vec<_>>().join(" ");
        for needle in [
            "/compact-prep",
            "compact prep",
            "prepare for compaction",
            "Do not trigger",
        ] {
            assert!(desc.contains(needle), "description lacks {needle:?}");
        }
        for not in [
            "recovering after a compaction",
            "progress reports",
            "making a plan",
        ] {
            assert!(
                desc.contains(not),
                "description lacks the non-trigger {not:?}"
            );
        }
        // The description must fit the host's 1,536-character cap.
        assert!(desc.len() < 1536);
    }

    #[test]
    fn body_lists_the_nine_headings_in_order_and_the_commands() {
        let mut at = 0;
        for h in crate::session::STATE_HEADINGS {
            let i = SKILL_MD[at..]
                .find(&format!("{h}\n"))
                .unwrap_or_else(|| panic!("{h} missing or out of order"));
            at += i + h.len();
        }
        for cmd in [
            "capn state path",
            "capn state save",
            "capn state show",
            "/compact",
            "capn ask \"<question>\"",
            "capn chart \"<question>\" --files",
            "If there were none, say so.",
        ] {
            assert!(SKILL_MD.contains(cmd), "missing {cmd}");
        }
    }

    /// Every `capn state path|save|show` the skill tells the agent to run names the session
    /// (`--session "${CLAUDE_SESSION_ID}"`): without it `capn state` falls back to
    /// `CAPN_SESSION_ID`, which a session started before the hooks were installed lacks.
    #[test]
    fn every_state_command_passes_the_session() {
        let runs: Vec<&str> = SKILL_MD
            .split('`')
            .chain(SKILL_MD.lines())
            .map(str::trim)
            // Commands to run: `capn state show` in any form (its first call once lacked the
            // session), `path` and `save` with arguments (bare, they are named in prose).
            .filter(|s| {
                s.starts_with("capn state show")
                    || (s.starts_with("capn state ") && s.split_whitespace().count() > 3)
            })
            .collect();
        assert!(runs.len() >= 4, "{runs:?}");
        for run in runs {
            assert!(
                run.contains("--session \"${CLAUDE_SESSION_ID}\""),
                "no --session: {run}"
            );
        }
    }
}
