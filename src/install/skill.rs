//! The bundled `/compact-prep` skill as a project holds it: where `init` installs it and what is
//! there now (init decides from this what to write, doctor what to report).

use anyhow::Result;
use std::path::{Path, PathBuf};

/// Where `init` installs the bundled `/compact-prep` skill (skills reference: project skills live
/// in `.claude/skills/<name>/SKILL.md`).
pub fn skill_path(root: &Path) -> PathBuf {
    root.join(".claude/skills")
        .join(crate::hook::skill::SKILL_NAME)
        .join("SKILL.md")
}

/// What the project's skill file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillFile {
    /// There is none.
    Missing,
    /// Exactly the bundled skill ([`crate::hook::skill::SKILL_MD`]).
    Bundled,
    /// Another text (the user's edits, or an older capn's copy).
    Edited,
}

/// Reads the project's skill file (never blocking, never through a symlink) and compares it with
/// the bundled one.
///
/// Errors: it is a symlink, a FIFO or other special file, or cannot be read
/// ([`crate::fsutil::read_host_file`]).
pub fn read_skill(root: &Path) -> Result<SkillFile> {
    Ok(
        match crate::fsutil::read_host_file(&skill_path(root), "skill")? {
            None => SkillFile::Missing,
            Some(b) if b == crate::hook::skill::SKILL_MD.as_bytes() => SkillFile::Bundled,
            Some(_) => SkillFile::Edited,
        },
    )
}
