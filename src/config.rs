//! `.capn/config.json`: local options of one project store.
//!
//! Shape: a JSON object. Known keys: `"embedding"` (bool, default `true`: semantic recall fused with
//! BM25), `"warn_at"` (integer percent, default 60: the statusline's context warning threshold)
//! and `"offer"` (`{"prompt": bool, "search": bool}`, or one bool for both: proactive offers of
//! charted answers at the user's prompt and at the agent's search; absent means both on,
//! `"offer": false` switches both off, `{"search": false}` only the search moment, and a moment
//! the object does not name stays on), `"stale_days"` (whole days, default
//! [`DEFAULT_STALE_DAYS`]; 0 turns it off: the retention rule, by which `capn prune --expired`
//! deletes a chart stale in this checkout for longer than that; never in a shared store) and
//! `"shared"` (bool, default `false`: set by `capn init --shared`, the entries are committed to
//! git for the team, and capn never deletes one on its own) and `"nudge"` (bool, default `true`:
//! the Stop hook asks once to chart a turn that explored hard and charted nothing, docs/nudge.md;
//! `capn init --no-nudge` sets it to `false`) and `"learn"` (bool, default `true`: the hooks add
//! the words of a missed `capn ask` as a phrasing of the shown chart the agent then read,
//! docs/recall.md "Learning from use").
//! Unknown keys are preserved on rewrite (format.md, "Other files in `.capn/`"). A missing or
//! unparseable file means the defaults; it is never overwritten unless a command sets a key. A
//! symlink, a special file or a file over [`crate::fsutil::limits::CONFIG`] is not read (the
//! defaults apply, and the reason is reported) and never written through.

use anyhow::Result;
use serde_json::{Map, Value};
use std::path::Path;

/// The default context-use warning threshold, in percent.
pub(crate) const DEFAULT_WARN_AT: u8 = 60;

/// The default retention of a stale chart, in days (`"stale_days"`).
pub(crate) const DEFAULT_STALE_DAYS: u32 = 30;

/// Options read from `.capn/config.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// Semantic recall on (`true`) or pure BM25 (`false`).
    pub embedding: bool,
    /// Statusline warning threshold in percent (1..=100).
    pub warn_at: u8,
    /// Proactive offers at the user's prompt (UserPromptSubmit); on unless `"offer": false` or
    /// `"offer": {"prompt": false}`.
    pub offer_prompt: bool,
    /// Proactive offers at the agent's search (PreToolUse); on unless `"offer": false` or
    /// `"offer": {"search": false}`.
    pub offer_search: bool,
    /// Days a chart may stay stale in this checkout before `capn prune --expired` deletes it
    /// (0: never). Not applied to a shared store.
    pub stale_days: u32,
    /// The store is shared through git (`capn init --shared`): entries are committed, and capn
    /// never deletes one on its own.
    pub shared: bool,
    /// The Stop hook's nudge to chart an expensive turn ([`crate::hook::stop`]); on unless
    /// `"nudge": false`.
    pub nudge: bool,
    /// Learning from use ([`crate::hook::learn`]); on unless `"learn": false`.
    pub learn: bool,
    /// The file is there but capn cannot tell from it whether the store is shared (it is not a
    /// JSON object, say a merge conflict in it, or `"shared"` is not a bool, say `"true"`): a
    /// store capn cannot read as local is never treated as one whose charts it may delete.
    pub shared_unknown: bool,
}

/// A moment at which the hooks may offer a charted answer unasked (docs/offers.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OfferMoment {
    /// The user's prompt (UserPromptSubmit).
    Prompt,
    /// The agent's search (PreToolUse).
    Search,
}

impl Config {
    /// True when the hooks look for an offer at `moment`: its switch is on (`"offer"`) and so
    /// is the embedding, which the injection gate needs (`crate::recall::offer`: BM25 alone
    /// offers nothing). The one owner of whether offers are on: the hooks and `capn doctor` ask
    /// it.
    pub(crate) fn offers_at(&self, moment: OfferMoment) -> bool {
        self.embedding
            && match moment {
                OfferMoment::Prompt => self.offer_prompt,
                OfferMoment::Search => self.offer_search,
            }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            embedding: true,
            warn_at: DEFAULT_WARN_AT,
            offer_prompt: true,
            offer_search: true,
            stale_days: DEFAULT_STALE_DAYS,
            shared: false,
            nudge: true,
            learn: true,
            shared_unknown: false,
        }
    }
}

impl Config {
    /// Reads `path` leniently: missing file, bad JSON or bad values fall back to the defaults.
    pub(crate) fn load(path: &Path) -> Config {
        Config::load_checked(path).0
    }

    /// [`Config::load`], also returning what was wrong with the file (empty when it is fine or
    /// missing), so commands can say that a setting was ignored instead of silently changing mode.
    pub(crate) fn load_checked(path: &Path) -> (Config, Vec<String>) {
        let mut c = Config::default();
        let mut problems = Vec::new();
        match read_object(path, &mut problems) {
            Some(map) => c.apply(&map, &mut problems),
            // There is a file (a problem was noted) that says nothing capn can read.
            None => c.shared_unknown = !problems.is_empty(),
        }
        (c, problems)
    }

    /// Takes each setting of `map` that is valid; a key of the wrong type or range keeps its
    /// default and adds a problem.
    fn apply(&mut self, map: &Map<String, Value>, problems: &mut Vec<String>) {
        match map.get("embedding") {
            None => {}
            Some(Value::Bool(b)) => self.embedding = *b,
            Some(v) => problems.push(format!(
                "\"embedding\" must be true or false, not {}",
                shown(v)
            )),
        }
        if let Some(v) = map.get("offer") {
            self.apply_offer(v, problems);
        }
        match map.get("stale_days") {
            None => {}
            Some(v) => match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
                Some(n) => self.stale_days = n,
                None => problems.push(format!(
                    "\"stale_days\" must be a whole number of days (0: never), not {}",
                    shown(v)
                )),
            },
        }
        match map.get("shared") {
            None => {}
            Some(Value::Bool(b)) => self.shared = *b,
            Some(v) => {
                self.shared_unknown = true;
                problems.push(format!(
                    "\"shared\" must be true or false, not {}",
                    shown(v)
                ));
            }
        }
        match map.get("nudge") {
            None => {}
            Some(Value::Bool(b)) => self.nudge = *b,
            Some(v) => problems.push(format!("\"nudge\" must be true or false, not {}", shown(v))),
        }
        match map.get("learn") {
            None => {}
            Some(Value::Bool(b)) => self.learn = *b,
            Some(v) => problems.push(format!("\"learn\" must be true or false, not {}", shown(v))),
        }
        match map.get("warn_at") {
            None => {}
            Some(v) => match v.as_u64().filter(|n| (1..=100).contains(n)) {
                Some(n) => self.warn_at = n as u8,
                None => problems.push(format!(
                    "\"warn_at\" must be a whole number from 1 to 100, not {}",
                    shown(v)
                )),
            },
        }
    }

    /// `"offer"`: `true`/`false` for both moments, or `{"prompt": bool, "search": bool}`.
    fn apply_offer(&mut self, v: &Value, problems: &mut Vec<String>) {
        let o = match v {
            Value::Bool(b) => {
                self.offer_prompt = *b;
                self.offer_search = *b;
                return;
            }
            Value::Object(o) => o,
            v => {
                problems.push(format!(
                    "\"offer\" must be true, false or {{\"prompt\": bool, \"search\": bool}}, not {}",
                    shown(v)
                ));
                return;
            }
        };
        // A misspelt moment ("serach") would otherwise leave it on in silence.
        for key in o
            .keys()
            .filter(|k| !matches!(k.as_str(), "prompt" | "search"))
        {
            problems.push(format!(
                "\"offer\" has an unknown key {} (the moments are \"prompt\" and \"search\")",
                crate::present::Foreign::new(key.as_str()).quoted(MAX_SHOWN_CHARS)
            ));
        }
        for (key, slot) in [
            ("prompt", &mut self.offer_prompt),
            ("search", &mut self.offer_search),
        ] {
            match o.get(key) {
                None => {}
                Some(Value::Bool(b)) => *slot = *b,
                Some(v) => problems.push(format!(
                    "\"offer\".\"{key}\" must be true or false, not {}",
                    shown(v)
                )),
            }
        }
    }
}

/// The most characters of a setting's value (or an unknown key) a problem quotes.
pub(crate) const MAX_SHOWN_CHARS: usize = 80;

/// A value from the config file as a problem names it: a string quoted, anything else as
/// compact JSON, escaped and capped ([`crate::present::Foreign`]): the file may be a teammate's
/// (a shared store commits it), so its text is data.
fn shown(v: &Value) -> String {
    use crate::present::Foreign;
    match v {
        Value::String(s) => Foreign::new(s.as_str()).quoted(MAX_SHOWN_CHARS),
        v => Foreign::json(v).shown(MAX_SHOWN_CHARS),
    }
}

/// The config file as a JSON object, or `None` (missing, unreadable, not JSON, not an object;
/// the last three add a problem). A UTF-8 BOM (some editors write one) is not part of the JSON.
fn read_object(path: &Path, problems: &mut Vec<String>) -> Option<Map<String, Value>> {
    let text = match read(path) {
        Ok(Some(t)) => t,
        Ok(None) => return None,
        Err(e) => {
            problems.push(format!("could not read it ({e})"));
            return None;
        }
    };
    let json = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&text);
    match serde_json::from_slice::<Value>(json) {
        Ok(Value::Object(map)) => Some(map),
        Ok(_) => {
            problems.push("it is not a JSON object".into());
            None
        }
        Err(e) => {
            problems.push(format!("it is not valid JSON ({e})"));
            None
        }
    }
}

/// The config file's bytes, read under fsutil's rules (no symlink followed, a regular file, at
/// most [`crate::fsutil::limits::CONFIG`] bytes); `None` when there is none. The bare
/// [`crate::fsutil::ReadError`], for [`Config::load_checked`]'s own wording (`set_key` uses
/// [`crate::fsutil::read_opt`]).
fn read(path: &Path) -> std::result::Result<Option<Vec<u8>>, crate::fsutil::ReadError> {
    use crate::fsutil::{limits, read_limited, Follow, ReadError};
    match read_limited(path, limits::CONFIG, Follow::Never) {
        Ok(b) => Ok(Some(b)),
        Err(ReadError::NotFound) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Sets `key` to `value` in the config file at `path`, keeping every other byte (key order,
/// numbers as written, escapes, duplicate keys, a UTF-8 BOM: the format-preserving editor of
/// [`crate::jsonedit`], as for the host settings files). Creates the file when missing.
/// Returns `true` when the file changed.
///
/// Errors: an existing file that is not a JSON object is left untouched and reported
/// (`could not parse config: <path>: ...`).
pub(crate) fn set_key(path: &Path, key: &str, value: Value) -> Result<bool> {
    let bytes =
        crate::fsutil::read_opt(path, "config", crate::fsutil::limits::CONFIG)?.unwrap_or_default();
    let mut doc = crate::jsonedit::Doc::parse(&bytes)
        .map_err(|e| anyhow::anyhow!("could not parse config: {}: {e}", path.display()))?;
    if doc.value().get(key) == Some(&value) {
        return Ok(false);
    }
    doc.set_top(key, Some(&value));
    crate::fsutil::write_atomic(path, doc.text().as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offers(text: &str) -> (bool, bool, Vec<String>) {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("config.json");
        std::fs::write(&p, text).unwrap();
        let (c, problems) = Config::load_checked(&p);
        (c.offer_prompt, c.offer_search, problems)
    }

    /// Offers are on at a moment only with its switch and the embedding both on.
    #[test]
    fn offers_are_on_at_a_moment_with_its_switch_and_the_embedding() {
        let on = |text: &str| {
            let tmp = tempfile::tempdir().unwrap();
            let p = tmp.path().join("config.json");
            std::fs::write(&p, text).unwrap();
            let c = Config::load_checked(&p).0;
            (
                c.offers_at(OfferMoment::Prompt),
                c.offers_at(OfferMoment::Search),
            )
        };
        assert_eq!(on("{}"), (true, true));
        assert_eq!(on(r#"{"offer": {"search": false}}"#), (true, false));
        assert_eq!(on(r#"{"embedding": false}"#), (false, false));
        assert_eq!(on(r#"{"embedding": false, "offer": true}"#), (false, false));
    }

    #[test]
    fn set_key_keeps_every_byte_it_does_not_own() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("config.json");
        let text = "\u{feff}{\n  \"zeta\": 1,\n  \"alpha\": 2.50,\n  \"embedding\": true,\n  \"big\": 123456789012345678901234,\n  \"dup\": 1,\n  \"dup\": 2,\n  \"s\": \"\\u00e9\"\n}\n";
        std::fs::write(&p, text).unwrap();
        assert!(!set_key(&p, "embedding", Value::Bool(true)).unwrap());
        assert!(set_key(&p, "embedding", Value::Bool(false)).unwrap());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            text.replace("\"embedding\": true", "\"embedding\": false")
        );
        let (c, problems) = Config::load_checked(&p);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(!c.embedding);
        let fresh = tmp.path().join("new.json");
        assert!(set_key(&fresh, "embedding", Value::Bool(true)).unwrap());
        assert_eq!(
            serde_json::from_str::<Value>(&std::fs::read_to_string(&fresh).unwrap()).unwrap(),
            serde_json::json!({"embedding": true})
        );
    }

    #[test]
    fn offers_are_on_unless_switched_off_per_moment_or_together() {
        let none: Vec<String> = Vec::new();
        assert_eq!(offers("{}"), (true, true, none.clone()));
        assert_eq!(offers(r#"{"offer": false}"#), (false, false, none.clone()));
        assert_eq!(offers(r#"{"offer": true}"#), (true, true, none.clone()));
        assert_eq!(
            offers(r#"{"offer": {"search": false}}"#),
            (true, false, none.clone())
        );
        assert_eq!(
            offers(r#"{"offer": {"prompt": false}}"#),
            (false, true, none.clone())
        );
        assert_eq!(offers(r#"{"offer": {}}"#), (true, true, none));
        let (p, s, problems) = offers(r#"{"offer": "no"}"#);
        assert!(p && s && problems.len() == 1, "{problems:?}");
        let missing = Config::load(std::path::Path::new("/nonexistent/capn/config.json"));
        assert!(missing.offer_prompt && missing.offer_search);
    }
}
