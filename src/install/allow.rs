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
//! `bust`, `prune`) keep their prompt. Claude Code checks `permissions.deny`, then `ask`, then
//! `allow`, the first match deciding: a rule that a deny or ask rule of the user's covers would
//! do nothing, so it is not added, and the user's rule is named ([`blocking`]), never edited.
//!
//! Codex: a rules file (`~/.codex/rules/capn.rules`, Codex rules reference: `prefix_rule`,
//! experimental) with one `prefix_rule` allowing `capn ask` and `capn chart`. Codex reads rules
//! from the user layer and from a trusted project's `.codex/rules/`; `capn init --user` writes
//! the user one.

use super::SettingsFile;
use serde_json::{Map, Value};

/// The Claude Code `permissions.allow` entries capn adds.
pub(crate) const CLAUDE_ALLOW: [&str; 2] = ["Bash(capn ask:*)", "Bash(capn chart:*)"];

/// The Codex rules file capn writes, relative to the home folder.
pub(crate) const CODEX_RULES_FILE: &str = ".codex/rules/capn.rules";

/// The Codex rules file's text: one `prefix_rule` allowing `capn ask` and `capn chart`, with
/// `match`/`not_match` examples Codex checks when it loads the file.
pub(crate) const CODEX_RULES: &str = r#"# Written by `capn init --user`; `capn uninstall --user` removes it.
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
pub(crate) fn present(json: &Map<String, Value>) -> Vec<&'static str> {
    let allow = json
        .get("permissions")
        .and_then(|p| p.get("allow"))
        .and_then(Value::as_array);
    CLAUDE_ALLOW
        .into_iter()
        .filter(|r| allow.is_some_and(|a| a.iter().any(|v| v.as_str() == Some(r))))
        .collect()
}

/// A `permissions` or `permissions.allow` that capn cannot add a rule to, being of another type
/// than Claude Code's settings give it ([`unfit_allow`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnfitAllow {
    /// The key: `permissions` or `permissions.allow`.
    pub key: &'static str,
    /// What it holds (`an array`, `a string`).
    pub is: &'static str,
    /// What it should hold: `an object` or `an array`.
    pub want: &'static str,
}

impl UnfitAllow {
    /// The reason, naming the key: `"permissions" is an array, not an object`.
    pub(crate) fn phrase(&self) -> String {
        format!("\"{}\" is {}, not {}", self.key, self.is, self.want)
    }
}

/// What `json`'s `permissions` is, when capn cannot add a rule to `permissions.allow`: not an
/// object, or holding an `allow` that is not an array. `None` when it can (a missing key
/// counts: capn creates it). capn edits nothing it cannot read, so such a key is left as it is.
pub(crate) fn unfit_allow(json: &Map<String, Value>) -> Option<UnfitAllow> {
    let permissions = json.get("permissions")?;
    let Value::Object(p) = permissions else {
        return Some(UnfitAllow {
            key: "permissions",
            is: kind(permissions),
            want: "an object",
        });
    };
    let allow = p.get("allow")?;
    (!allow.is_array()).then(|| UnfitAllow {
        key: "permissions.allow",
        is: kind(allow),
        want: "an array",
    })
}

/// A JSON value's type as a phrase: `an array`, `a string`, ...
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// True when `json` has a `permissions.allow` key (of any type).
pub(crate) fn has_allow_key(json: &Map<String, Value>) -> bool {
    json.get("permissions")
        .and_then(|p| p.get("allow"))
        .is_some()
}

/// A rule of the user's that keeps one of [`CLAUDE_ALLOW`] from taking effect: Claude Code
/// checks `permissions.deny`, then `ask`, then `allow`, and the first list with a matching rule
/// decides, however specific the allow rule is (Claude Code permissions reference).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blocked {
    /// capn's rule, one of [`CLAUDE_ALLOW`].
    pub rule: &'static str,
    /// `"deny"` or `"ask"`: the list that holds the user's rule.
    pub list: &'static str,
    /// The user's rule, as written.
    pub by: String,
    /// The settings file that holds it, as messages name it (`.claude/settings.local.json`,
    /// `~/.claude/settings.json`).
    pub file: &'static str,
}

impl Blocked {
    /// What `init` says instead of adding the rule: which rule of the user's, in which list of
    /// which file, and that it is left as it is.
    pub(crate) fn report(&self) -> String {
        let (effect, then) = match self.list {
            "deny" => ("denies", "the agent cannot run"),
            _ => ("asks before", "Claude Code asks before each"),
        };
        let cmd = self.command();
        format!(
            "did not allow {}: {} in permissions.{} of {} {effect} {cmd}, and Claude Code checks {} before allow (your rule is left as it is: {then} {cmd} while it is there)",
            self.rule,
            crate::present::quote(&self.by, crate::present::MAX_QUESTION_CHARS),
            self.list,
            self.file,
            self.list,
        )
    }

    /// The command capn's rule allows (`capn chart` for `Bash(capn chart:*)`).
    pub(crate) fn command(&self) -> &'static str {
        prefix_of(self.rule)
    }
}

/// The command prefix of a rule of [`CLAUDE_ALLOW`]: `capn chart` for `Bash(capn chart:*)`.
fn prefix_of(rule: &'static str) -> &'static str {
    rule.strip_prefix("Bash(")
        .and_then(|r| r.strip_suffix(":*)"))
        .unwrap_or(rule)
}

/// The first rule of `files` (each a settings file's label and JSON, in the order given) that
/// keeps capn's rule `rule` (one of [`CLAUDE_ALLOW`]) from taking effect ([`all_blocking`]'s
/// first): a `permissions.deny` rule that [`covers`] it in any of them, else a
/// `permissions.ask` one.
pub(crate) fn blocking(
    rule: &'static str,
    files: &[(&'static str, &Map<String, Value>)],
) -> Option<Blocked> {
    all_blocking(rule, files).into_iter().next()
}

/// Every rule of `files` (each a settings file's label and JSON) that keeps capn's rule `rule`
/// (one of [`CLAUDE_ALLOW`]) from taking effect: the `permissions.deny` rules that [`covers`] it,
/// file by file, then the `permissions.ask` ones (the order Claude Code decides in: the first
/// decides, and each must go for the allow to count). Entries that are not strings are skipped.
pub(crate) fn all_blocking(
    rule: &'static str,
    files: &[(&'static str, &Map<String, Value>)],
) -> Vec<Blocked> {
    let prefix = prefix_of(rule);
    let mut out = Vec::new();
    for list in ["deny", "ask"] {
        for (file, json) in files {
            let rules = json
                .get("permissions")
                .and_then(|p| p.get(list))
                .and_then(Value::as_array);
            let found = rules
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|r| covers(r, prefix));
            out.extend(found.map(|by| Blocked {
                rule,
                list,
                by: by.to_string(),
                file,
            }));
        }
    }
    out
}

/// True when the Claude Code permission rule `rule` matches every Bash command `<prefix> <args>`
/// (whatever the arguments): `Bash` and `Bash(*)`; a prefix rule `Bash(<p>:*)` whose `<p>` is
/// `prefix` or the start of it up to a space (`Bash(capn:*)`); a wildcard rule `Bash(<glob>)`
/// ending in `*` whose part before that matches the start of `<prefix> ` (`Bash(capn *)`,
/// `Bash(capn chart*)`). A rule without a wildcard matches one command only, and one with
/// other text after its last `*` only some: neither counts.
pub(crate) fn covers(rule: &str, prefix: &str) -> bool {
    let rule = rule.trim();
    if rule == "Bash" {
        return true;
    }
    let Some(inner) = rule.strip_prefix("Bash(").and_then(|r| r.strip_suffix(')')) else {
        return false;
    };
    let with_space = format!("{prefix} ");
    if let Some(p) = inner.strip_suffix(":*") {
        return with_space.starts_with(&format!("{} ", p.trim_end()));
    }
    match inner.strip_suffix('*') {
        Some(head) => glob_matches_a_start(head.trim_end_matches('*'), &with_space),
        None => false,
    }
}

/// True when the glob `glob` (`*` matches any run of characters, spaces too) matches some start
/// of `text` (the whole of it counts too). One pass over the glob with the set of text positions
/// reachable so far: time `glob` × `text` characters, whatever the stars (a settings file comes
/// with the repository, and trying each split at each star again takes exponential time).
fn glob_matches_a_start(glob: &str, text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    // reach[j]: the glob read so far matches `text[..j]`.
    let mut reach = vec![false; text.len() + 1];
    reach[0] = true;
    for g in glob.chars() {
        if g == '*' {
            // A star extends every reachable position to every later one.
            if let Some(first) = reach.iter().position(|&r| r) {
                reach[first..].iter_mut().for_each(|r| *r = true);
            }
        } else {
            for j in (0..text.len()).rev() {
                reach[j + 1] = reach[j] && text[j] == g;
            }
            reach[0] = false;
        }
        if !reach.contains(&true) {
            return false;
        }
    }
    reach.contains(&true)
}

/// What [`add`] did.
#[derive(Debug, Default)]
pub(crate) struct Added {
    /// The rules added.
    pub added: Vec<&'static str>,
    /// The rules not added because a deny or ask rule of the user's would keep them from taking
    /// effect.
    pub blocked: Vec<Blocked>,
    /// The rules not added because the file's `permissions` or `permissions.allow` is of
    /// another type ([`unfit_allow`]), with what it is.
    pub unfit: Option<(Vec<&'static str>, UnfitAllow)>,
}

impl Added {
    /// What `init` says of the rules it could not add to `label`'s `permissions`
    /// ([`Added::unfit`]): one line naming the file and the key, or `None`.
    pub(crate) fn unfit_report(&self, label: &str) -> Option<String> {
        let (rules, why) = self.unfit.as_ref()?;
        Some(format!(
            "did not allow {} in {label}: its {}, and capn leaves what it cannot read as it is \
             (make it {} to have capn add them)",
            rules.join(" and "),
            why.phrase(),
            why.want
        ))
    }
}

/// Adds to `file` (named `label` in messages) each rule of [`CLAUDE_ALLOW`] that neither it nor
/// any of `elsewhere` (the other settings files Claude Code merges for the same sessions, each
/// with its label) holds, unless a `permissions.deny` or `permissions.ask` rule in any of them
/// covers it ([`blocking`]; deny first): that rule is the user's and stays, and capn's allow
/// would have no effect, so it is returned in [`Added::blocked`] (held by an allow or not). A
/// `permissions` or `permissions.allow` of another type ([`unfit_allow`]) is left alone: the
/// rules it would have taken are returned in [`Added::unfit`]. Whether this created
/// `permissions.allow`: [`has_allow_key`] before and after.
pub(crate) fn add(
    file: &mut SettingsFile,
    label: &'static str,
    elsewhere: &[(&'static str, &Map<String, Value>)],
) -> Added {
    let mut out = Added::default();
    let unfit = unfit_allow(&file.json);
    for rule in CLAUDE_ALLOW {
        let mut all = vec![(label, &file.json)];
        all.extend_from_slice(elsewhere);
        // Said even when an allow of the user's holds the rule: that allow does nothing either.
        if let Some(b) = blocking(rule, &all) {
            out.blocked.push(b);
            continue;
        }
        let held = present(&file.json).contains(&rule)
            || elsewhere.iter().any(|(_, j)| present(j).contains(&rule));
        if held {
            continue;
        }
        if let Some(why) = &unfit {
            let (rules, _) = out.unfit.get_or_insert_with(|| (Vec::new(), why.clone()));
            rules.push(rule);
            continue;
        }
        file.append_to_top_array("permissions", "allow", &rule.into());
        if present(&file.json).contains(&rule) {
            out.added.push(rule);
        }
    }
    out
}

/// Removes every rule of [`CLAUDE_ALLOW`] from `file` (and, with `prune`, `permissions.allow`
/// and `permissions` when that leaves them empty: capn made them). Returns the rules removed.
pub(crate) fn remove(file: &mut SettingsFile, prune: bool) -> Vec<&'static str> {
    remove_rules(file, &CLAUDE_ALLOW, prune)
}

/// [`remove`] for the rules `rules` alone (those capn added; a rule the user wrote stays).
pub(crate) fn remove_rules(
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
        assert_eq!(add(&mut f, "s.json", &[]).added, vec!["Bash(capn chart:*)"]);
        assert_eq!(present(&f.json), CLAUDE_ALLOW.to_vec());
        assert_eq!(remove(&mut f, true), CLAUDE_ALLOW.to_vec());
        let allow = &f.json["permissions"]["allow"];
        assert_eq!(allow, &serde_json::json!(["Bash(npm test:*)"]));
    }

    #[test]
    fn creates_and_drops_the_permissions_object() {
        let mut f = file("{\n  \"model\": \"x\"\n}\n");
        assert_eq!(add(&mut f, "s.json", &[]).added, CLAUDE_ALLOW.to_vec());
        assert_eq!(remove(&mut f, true), CLAUDE_ALLOW.to_vec());
        assert!(f.json.get("permissions").is_none(), "{:?}", f.json);
        // An `allow` that was there stays, empty, without `prune`.
        let mut kept = file("{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n");
        add(&mut kept, "s.json", &[]);
        remove(&mut kept, false);
        assert_eq!(kept.bytes(), kept.original_bytes().unwrap());
        // Held in another file that counts: nothing added.
        let other = file(&serde_json::json!({"permissions": {"allow": CLAUDE_ALLOW}}).to_string());
        assert!(add(&mut f, "s.json", &[("o.json", &other.json)])
            .added
            .is_empty());
        // Another shape is left alone.
        let mut odd = file("{\"permissions\": {\"allow\": \"Bash\"}}");
        assert!(add(&mut odd, "s.json", &[]).added.is_empty());
        assert!(!odd.changed());
    }

    #[test]
    fn a_permissions_of_another_type_gets_no_rule_and_is_named() {
        for (text, key, is) in [
            ("{\"permissions\": [\"Bash\"]}", "permissions", "an array"),
            ("{\"permissions\": null}", "permissions", "null"),
            (
                "{\"permissions\": {\"allow\": \"Bash\"}}",
                "permissions.allow",
                "a string",
            ),
            (
                "{\"permissions\": {\"allow\": 1}}",
                "permissions.allow",
                "a number",
            ),
        ] {
            let mut f = file(text);
            let out = add(&mut f, "s.json", &[]);
            assert!(out.added.is_empty() && !f.changed(), "{text}");
            let (rules, why) = out.unfit.expect(text);
            assert_eq!(rules, CLAUDE_ALLOW.to_vec());
            assert_eq!((why.key, why.is), (key, is));
        }
        // Held elsewhere: nothing to add, nothing to say.
        let other = file(&serde_json::json!({"permissions": {"allow": CLAUDE_ALLOW}}).to_string());
        let mut f = file("{\"permissions\": [\"Bash\"]}");
        assert!(add(&mut f, "s.json", &[("o.json", &other.json)])
            .unfit
            .is_none());
        for fine in [
            "{}",
            "{\"permissions\": {}}",
            "{\"permissions\": {\"allow\": []}}",
        ] {
            assert!(unfit_allow(&file(fine).json).is_none(), "{fine}");
        }
    }

    #[test]
    fn deny_and_ask_rules_that_cover_every_call_are_found() {
        for rule in [
            "Bash",
            "Bash(*)",
            "Bash(capn:*)",
            "Bash(capn chart:*)",
            "Bash(capn *)",
            "Bash(capn chart *)",
            "Bash(capn*)",
            "Bash(capn ch*)",
            "Bash(* chart *)",
        ] {
            assert!(covers(rule, "capn chart"), "{rule}");
        }
        for rule in [
            "Bash(capn chart)",
            "Bash(capn ask:*)",
            "Bash(capn chartx:*)",
            "Bash(cap:*)",
            "Bash(capn chart * --like *x)",
            "Bash(capn chart --like *)",
            "Read(capn chart:*)",
            "Bash(git *)",
            "Bashful",
        ] {
            assert!(!covers(rule, "capn chart"), "{rule}");
        }
    }

    /// The glob as the plain recursive definition reads it: a reference for short globs.
    fn reference(glob: &str, text: &str) -> bool {
        match glob.split_once('*') {
            None => text.starts_with(glob),
            Some((lit, rest)) => text.strip_prefix(lit).is_some_and(|after| {
                (0..=after.len())
                    .filter(|&i| after.is_char_boundary(i))
                    .any(|i| reference(rest, &after[i..]))
            }),
        }
    }

    #[test]
    fn a_glob_full_of_stars_is_matched_in_one_pass_as_the_definition_says() {
        let parts = ["", "*", "c", "ca", "ap", "n", " ", "ch", "x", "**"];
        for a in parts {
            for b in parts {
                for c in parts {
                    let glob = format!("{a}{b}{c}");
                    for text in ["capn chart ", "capn ask ", "", "c"] {
                        assert_eq!(
                            glob_matches_a_start(&glob, text),
                            reference(&glob, text),
                            "{glob:?} on {text:?}"
                        );
                    }
                }
            }
        }
        // A committed settings file's rule of 60 stars: the recursive reading tries about 11^60
        // splits; one pass is 60 steps.
        let stars = format!("Bash({}q*)", "*".repeat(60));
        assert!(!covers(&stars, "capn chart"));
        assert!(covers(&format!("Bash({}*)", "*".repeat(60)), "capn chart"));
    }

    #[test]
    fn a_covered_rule_is_not_added_and_the_users_rule_is_named_deny_first() {
        let mut f = file("{\"permissions\": {\"ask\": [\"Bash(capn ask:*)\"]}}");
        let local = file("{\"permissions\": {\"deny\": [7, \"Bash(capn:*)\"]}}");
        let out = add(&mut f, "s.json", &[("l.json", &local.json)]);
        assert!(out.added.is_empty());
        assert!(!f.changed());
        let deny = |rule| Blocked {
            rule,
            list: "deny",
            by: "Bash(capn:*)".into(),
            file: "l.json",
        };
        assert_eq!(
            out.blocked,
            [deny("Bash(capn ask:*)"), deny("Bash(capn chart:*)")]
        );
        // Only an ask rule: it is named; the other rule is added.
        let out = add(&mut f, "s.json", &[]);
        assert_eq!(out.added, ["Bash(capn chart:*)"]);
        assert_eq!(
            out.blocked[0].report(),
            "did not allow Bash(capn ask:*): \"Bash(capn ask:*)\" in permissions.ask of s.json asks before capn ask, and Claude Code checks ask before allow (your rule is left as it is: Claude Code asks before each capn ask while it is there)"
        );
    }
}
