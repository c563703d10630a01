//! Doctor check 6: the skill.

use super::*;

pub(super) fn check_skill(root: &Path, checks: &mut Vec<Check>) {
    use crate::install::skill::{read_skill, skill_path, SkillFile};
    let path = skill_path(root);
    let rel = crate::store::display_rel(root, &path);
    let what = "/compact-prep skill";
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
