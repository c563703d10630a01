//! Doctor check 6: the skill, the project's or, when the project has none, the user's
//! (`~/.claude/skills/compact-prep/SKILL.md`, installed by `capn init --user`: Claude Code
//! offers a user's skill in every project, so a linked worktree or a teammate's clone without
//! the project's copy still has it).

use super::*;

pub(super) fn check_skill(root: &Path, checks: &mut Vec<Check>) {
    use crate::install::skill::{read_skill, skill_path, SkillFile};
    let path = skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    let what = "/compact-prep skill";
    if matches!(read_skill(root), Ok(SkillFile::Missing)) {
        let home = crate::env::home_dir();
        if let Some(found) = home.as_deref().and_then(user_skill) {
            checks.push(Check::ok(format!("{what} installed ({found}, yours)")));
            return;
        }
    }
    match read_skill(root) {
        Ok(SkillFile::Bundled) => checks.push(Check::ok(format!("{what} installed ({rel})"))),
        Ok(SkillFile::Edited) => checks.push(Check::warn(
            format!("{what} in {rel}"),
            "it differs from the bundled skill (your edits, or an older capn's copy)",
            Some(format!(
                "to take the bundled one: rm {} && capn init",
                path.display()
            )),
        )),
        Ok(SkillFile::Missing) => checks.push(Check::failed(
            what,
            format!("{} does not exist", path.display()),
            FIX_INIT,
        )),
        Err(e) => checks.push(Check::failed(
            what,
            format!("{e:#}"),
            format!(
                "replace {} with a regular file: rm {} && capn init",
                path.display(),
                path.display()
            ),
        )),
    }
}

/// `~/.claude/skills/compact-prep/SKILL.md` as shown, when the user's skill is there under
/// `home` (read without following a symlink or blocking, as the project's).
fn user_skill(home: &Path) -> Option<String> {
    use crate::install::skill::{read_skill, SkillFile};
    match read_skill(home) {
        Ok(SkillFile::Bundled | SkillFile::Edited) => {
            Some("~/.claude/skills/compact-prep/SKILL.md".to_string())
        }
        _ => None,
    }
}
