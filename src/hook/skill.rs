//! The bundled `/compact-prep` skill, embedded in the binary so `capn init` can install it
//! without the source tree.

/// `skills/compact-prep/SKILL.md`: YAML frontmatter (`name`, `description` with the mandatory
/// triggers and what must not trigger it, `argument-hint`, `allowed-tools: Read, Write,
/// Bash(capn state:*)`) and the procedure. Installed as `<skills dir>/compact-prep/SKILL.md`
/// (hooks reference, section 4).
pub const SKILL_MD: &str = include_str!("../../skills/compact-prep/SKILL.md");

/// The skill's directory name, which is also its slash command (`/compact-prep`).
pub const SKILL_NAME: &str = "compact-prep";

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
            has("allowed-tools: Read, Write, Bash(capn state:*)"),
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
        ] {
            assert!(SKILL_MD.contains(cmd), "missing {cmd}");
        }
    }
}
