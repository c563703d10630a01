//! Doctor check 2: the store.

use super::*;
use crate::config::OfferMoment;

/// Doctor check 2: the store, its config and the offer switches it sets.
pub(super) fn check_store(root: &Path, checks: &mut Vec<Check>) {
    check_store_files(root, checks);
    offers_check(root, checks);
    nudge_check(root, checks);
}

/// The Stop hook's nudge switch (`"nudge"` in `.capn/config.json`, on when absent), as an ok
/// line.
fn nudge_check(root: &Path, checks: &mut Vec<Check>) {
    let store = Store::at(root.to_path_buf());
    if !store.exists() {
        return;
    }
    let c = crate::config::Config::load(&store.config_path());
    checks.push(Check::ok(if c.nudge {
        "nudge to chart: on (a turn that explored hard and charted nothing is asked once, at its Stop; capn init --no-nudge turns it off)"
    } else {
        "nudge to chart: off (\"nudge\": false in .capn/config.json; capn init --nudge turns it on)"
    }));
    if !c.learn {
        // Named only when switched off: on is the default and needs no line.
        checks.push(Check::ok(
            "learning from use: off (\"learn\": false in .capn/config.json: a missed ask's words are learned only through capn chart --like)",
        ));
    }
}

/// True when the hooks offer charted answers before a search, as the config says
/// ([`crate::config::Config::offers_at`]), or when there is no store yet (init makes one with
/// offers on).
pub(super) fn search_offers(root: &Path) -> bool {
    let store = Store::at(root.to_path_buf());
    if !store.exists() {
        return true;
    }
    let c = crate::config::Config::load(&store.config_path());
    c.offers_at(OfferMoment::Search)
}

/// The offer switches in effect (`"offer"` in `.capn/config.json`, both on when absent), as an ok
/// line: what the hooks will do at the prompt and before a search.
fn offers_check(root: &Path, checks: &mut Vec<Check>) {
    let store = Store::at(root.to_path_buf());
    if !store.exists() {
        return;
    }
    let c = crate::config::Config::load(&store.config_path());
    if !c.embedding && (c.offer_prompt || c.offer_search) {
        // The injection gate needs the embedding (src/recall/offer.rs): BM25 alone offers nothing.
        checks.push(Check::ok(
            "offers of charted answers: off, since embedding is off in .capn/config.json (offers need it; capn init --embedding turns it on)",
        ));
        return;
    }
    let state = |moment: OfferMoment| if c.offers_at(moment) { "on" } else { "off" };
    let how = if c.offer_prompt && c.offer_search {
        "\"offer\": false in .capn/config.json switches both off"
    } else {
        "set in .capn/config.json \"offer\""
    };
    checks.push(Check::ok(format!(
        "offers of charted answers: at the prompt {}, before a search {} ({how})",
        state(OfferMoment::Prompt),
        state(OfferMoment::Search)
    )));
}

/// The entry files of `store` that do not parse, as (file name, reason), sorted by name.
fn malformed_entries(store: &Store) -> Vec<(String, String)> {
    let dir = store.entries_dir();
    crate::store::entry_names(&dir)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|name| {
            crate::store::index::read_entry(&dir.join(&name), &name)
                .err()
                .map(|why| (name, why))
        })
        .collect()
}

/// The store folders and `.capn/config.json`: present, readable, valid.
fn check_store_files(root: &Path, checks: &mut Vec<Check>) {
    let store = Store::at(root.to_path_buf());
    let what = format!("store {}", store.describe());
    if !store.exists() {
        checks.push(Check::failed(
            what,
            format!("{} does not exist", store.dir.display()),
            FIX_INIT,
        ));
        return;
    }
    if let Err(e) = store.check_dirs() {
        // A symlinked store folder: every command refuses it, and reading on would look
        // through the link (or name a missing entries folder instead of the cause).
        checks.push(Check::failed(
            what,
            crate::present::printable(&format!("{e:#}")),
            "replace the link with a real folder (move the charts into it), then run capn init",
        ));
        return;
    }
    check_entries(root, &store, what, checks);
    super::secrets::check(root, checks);
    check_config(&store, checks);
    check_derived(&store, checks);
}

/// The derived files (`.capn/index.bin`, `vectors.bin`, `map.json`, `stat.bin`): each missing
/// or a regular file. One that is a folder, a symlink or a special file cannot be saved: every
/// `capn ask` rebuilds the index, and the hooks, which never rebuild it twice, offer nothing
/// until a writer can save it.
fn check_derived(store: &Store, checks: &mut Vec<Check>) {
    for path in [
        store.index_path(),
        store.vectors_path(),
        store.map_path(),
        store.stat_cache_path(),
    ] {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let kind = if meta.is_dir() {
            "a folder"
        } else if meta.file_type().is_symlink() {
            "a symlink"
        } else if !meta.is_file() {
            "not a regular file"
        } else {
            continue;
        };
        let rel = crate::store::display_rel(&store.root, &path);
        checks.push(Check::warn(
            format!("derived file {}", crate::present::printable(&rel)),
            format!(
                "it is {kind}, so capn cannot save it: every capn ask rebuilds the index, and the hooks offer nothing until it can be saved"
            ),
            Some(format!(
                "remove it (capn rebuilds it): rm -rf {}",
                crate::present::printable(&rel)
            )),
        ));
    }
}

/// The entries folder: present, how many charts, and the malformed ones.
fn check_entries(root: &Path, store: &Store, what: String, checks: &mut Vec<Check>) {
    match crate::hook::statusline::chart_count(root) {
        Some(n) => {
            let malformed = malformed_entries(store);
            let good = n.saturating_sub(malformed.len());
            let mode = if store.is_shared() {
                ", shared: entries committed to git"
            } else {
                ""
            };
            checks.push(Check::ok(format!(
                "{what} ({good} chart{}{mode})",
                if good == 1 { "" } else { "s" }
            )));
            if let Some((name, why)) = malformed.first() {
                let more = match malformed.len() {
                    1 => String::new(),
                    k => format!(" and {} more", k - 1),
                };
                checks.push(Check::warn(
                    format!("malformed entries in .capn/entries: {}", malformed.len()),
                    format!(
                        "{}: {}{more}; ask and list skip them",
                        crate::store::printable(name),
                        crate::store::printable(why)
                    ),
                    Some("run capn list to see each one, then fix or delete them".into()),
                ));
            }
        }
        None => checks.push(Check::failed(
            what,
            format!("{} is missing", store.entries_dir().display()),
            FIX_INIT,
        )),
    }
}

/// `.capn/config.json`, when there is one: readable, JSON, and its keys valid.
fn check_config(store: &Store, checks: &mut Vec<Check>) {
    let path = store.config_path();
    use crate::fsutil::{limits, read_limited, Follow, ReadError};
    let text = match read_limited(&path, limits::CONFIG, Follow::Never)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
    {
        Ok(t) => t,
        Err(ReadError::NotFound) => return,
        Err(e) => {
            checks.push(Check::failed(
                ".capn/config.json",
                format!("could not read {}: {e}", path.display()),
                format!("make {} readable", path.display()),
            ));
            return;
        }
    };
    let fix = format!(
        "edit {} (keys: \"embedding\": true|false, \"warn_at\": 1..100, \"offer\": true|false|{{\"prompt\": bool, \"search\": bool}}, \"nudge\": true|false, \"learn\": true|false), or delete it and run capn init",
        path.display()
    );
    match config_problem(&path, &text) {
        None => checks.push(Check::ok(".capn/config.json parses")),
        Some(why) => checks.push(Check::failed(".capn/config.json", why, fix)),
    }
}

/// What is wrong with the config file at `path`, which holds `text`, or `None`.
fn config_problem(path: &Path, text: &str) -> Option<String> {
    // A UTF-8 BOM is not part of the JSON (the config loader and init skip it too).
    match serde_json::from_str::<Value>(text.strip_prefix('\u{feff}').unwrap_or(text)) {
        Err(e) => Some(format!("{} is not JSON: {e}", path.display())),
        Ok(Value::Object(m)) => {
            let mut p = Vec::new();
            if m.get("embedding").is_some_and(|v| !v.is_boolean()) {
                p.push(format!(
                    "\"embedding\" is {}, not true or false",
                    m["embedding"]
                ));
            }
            if m.get("learn").is_some_and(|v| !v.is_boolean()) {
                p.push(format!(
                    "\"learn\" is {}, not true or false (learning from use stays on)",
                    m["learn"]
                ));
            }
            if m.get("nudge").is_some_and(|v| !v.is_boolean()) {
                p.push(format!(
                    "\"nudge\" is {}, not true or false (the nudge stays on)",
                    m["nudge"]
                ));
            }
            if m.get("warn_at")
                .is_some_and(|v| !v.as_u64().is_some_and(|n| (1..=100).contains(&n)))
            {
                p.push(format!(
                    "\"warn_at\" is {}, not an integer 1..100 (the statusline uses {} instead)",
                    m["warn_at"],
                    crate::config::DEFAULT_WARN_AT
                ));
            }
            // "offer" is read by the same rules as the hooks read it.
            let (_, problems) = crate::config::Config::load_checked(path);
            p.extend(
                problems
                    .into_iter()
                    .filter(|q| q.starts_with("\"offer\""))
                    .map(|q| format!("{q} (offers stay on)")),
            );
            (!p.is_empty()).then(|| format!("{}: {}", path.display(), p.join("; ")))
        }
        Ok(_) => Some(format!("{} is not a JSON object", path.display())),
    }
}
