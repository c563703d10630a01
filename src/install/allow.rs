//! Permission rules for capn's own read-and-chart commands, so the agent is not stopped by a
//! prompt at exactly the moment the ask-before-search contract asks it to run `capn ask` or
//! `capn chart`.
//!
//! Claude Code: `permissions.allow` entries in a settings file. A rule `Bash(<prefix>:*)`
//! allows the Bash commands that start with `<prefix>` followed by a word boundary, and a
//! command chained with `&&`, `;` or `|` is checked part by part, so `Bash(capn ask:*)` does not
//! let `capn ask x && rm -rf y` through (Claude Code permissions reference, "Permission rule
//! syntax"). Exactly two rules, nothing broader than capn's own two subcommands: the skill
//! pre-approves its `capn state` calls itself (`allowed-tools`), and deletions (`unchart`,
//! `bust`, `prune`) keep their prompt.
//!
//! Codex: a rules file (`~/.codex/rules/capn.rules`, Codex rules reference: `prefix_rule`,
//! experimental) with one `prefix_rule` allowing `capn ask` and `capn chart`. Codex reads rules
//! from the user layer and from a trusted project's `.codex/rules/`; `capn init --user` writes
//! the user one.

use super::SettingsFile;
use serde_json::{Map, Value};

/// The Claude Code `permissions.allow` entries capn adds.
pub const CLAUDE_ALLOW: [&str; 2] = ["Bash(capn ask:*)", "Bash(capn chart:*)"];

/// The Codex rules file capn writes, relative to the home folder.
pub const CODEX_RULES_FILE: &str = ".codex/rules/capn.rules";

/// The Codex rules file's text: one `prefix_rule` allowing `capn ask` and `capn chart`, with
/// `match`/`not_match` examples Codex checks when it loads the file.
pub const CODEX_RULES: &str = r#"# Written by `capn init --user`; `capn uninstall --user` removes it.
# Lets Codex run capn's read-and-chart commands without asking (nothing else of capn's).
prefix_rule(
    pattern = ["capn", ["ask", "chart"]],
    decision = "allow",
    justification = "capn ask reads the project's charted answers; capn chart records one in .capn/",
    match = ["capn ask \"where is the entry point?\"", "capn chart \"q\" --files src/main.rs"],
    not_match = ["capn unchart ab12cd34", "capn bust src/main.rs", "capn prune --yes"],
)
"#;

/// The rules of [`CLAUDE_ALLOW`] that `json`'s `permissions.allow` holds.
pub fn present(json: &Map<String, Value>) -> Vec<&'static str> {
    let allow = json
        .get("permissions")
        .and_then(|p| p.get("allow"))
        .and_then(Value::as_array);
    CLAUDE_ALLOW
        .into_iter()
        .filter(|r| allow.is_some_and(|a| a.iter().any(|v| v.as_str() == Some(r))))
        .collect()
}

/// True when `json` has a `permissions.allow` key (of any type).
pub fn has_allow_key(json: &Map<String, Value>) -> bool {
    json.get("permissions")
        .and_then(|p| p.get("allow"))
        .is_some()
}

/// Adds to `file` each rule of [`CLAUDE_ALLOW`] that neither it nor any of `elsewhere` (the
/// other settings files Claude Code merges for the same sessions) holds. Returns the rules
/// added. A `permissions` or `permissions.allow` of another type is left alone (nothing added).
/// Whether this created `permissions.allow`: [`has_allow_key`] before and after.
pub fn add(file: &mut SettingsFile, elsewhere: &[&Map<String, Value>]) -> Vec<&'static str> {
    let mut added = Vec::new();
    for rule in CLAUDE_ALLOW {
        let held = present(&file.json).contains(&rule)
            || elsewhere.iter().any(|j| present(j).contains(&rule));
        if held {
            continue;
        }
        file.append_to_top_array("permissions", "allow", &rule.into());
        if present(&file.json).contains(&rule) {
            added.push(rule);
        }
    }
    added
}

/// Removes every rule of [`CLAUDE_ALLOW`] from `file` (and, with `prune`, `permissions.allow`
/// and `permissions` when that leaves them empty: capn made them). Returns the rules removed.
pub fn remove(file: &mut SettingsFile, prune: bool) -> Vec<&'static str> {
    remove_rules(file, &CLAUDE_ALLOW, prune)
}

/// [`remove`] for the rules `rules` alone (those capn added; a rule the user wrote stays).
pub fn remove_rules(
    file: &mut SettingsFile,
    rules: &[&'static str],
    prune: bool,
) -> Vec<&'static str> {
    rules
        .iter()
        .copied()
        .filter(|r| {
            let mut any = false;
            while file.remove_from_top_array("permissions", "allow", &(*r).into(), prune) {
                any = true;
            }
            any
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn file(text: &str) -> SettingsFile {
        SettingsFile::from_bytes(Path::new("s.json"), Some(text.as_bytes().to_vec())).unwrap()
    }

    #[test]
    fn adds_only_what_is_missing_and_removes_exactly_that() {
        let before = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test:*)\", \"Bash(capn ask:*)\"]\n  }\n}\n";
        let mut f = file(before);
        assert_eq!(add(&mut f, &[]), vec!["Bash(capn chart:*)"]);
        assert_eq!(present(&f.json), CLAUDE_ALLOW.to_vec());
        assert_eq!(remove(&mut f, true), CLAUDE_ALLOW.to_vec());
        let allow = &f.json["permissions"]["allow"];
        assert_eq!(allow, &serde_json::json!(["Bash(npm test:*)"]));
    }

    #[test]
    fn creates_and_drops_the_permissions_object() {
        let mut f = file("{\n  \"model\": \"x\"\n}\n");
        assert_eq!(add(&mut f, &[]), CLAUDE_ALLOW.to_vec());
        assert_eq!(remove(&mut f, true), CLAUDE_ALLOW.to_vec());
        assert!(f.json.get("permissions").is_none(), "{:?}", f.json);
        // An `allow` that was there stays, empty, without `prune`.
        let mut kept = file("{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n");
        add(&mut kept, &[]);
        remove(&mut kept, false);
        assert_eq!(kept.bytes(), kept.original_bytes().unwrap());
        // Held in another file that counts: nothing added.
        let other = file(&serde_json::json!({"permissions": {"allow": CLAUDE_ALLOW}}).to_string());
        assert!(add(&mut f, &[&other.json]).is_empty());
        // Another shape is left alone.
        let mut odd = file("{\"permissions\": {\"allow\": \"Bash\"}}");
        assert!(add(&mut odd, &[]).is_empty());
        assert!(!odd.changed());
    }
}
