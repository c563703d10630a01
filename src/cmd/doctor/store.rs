//! Doctor check 2: the store.

use super::*;

pub(super) fn check_store(root: &Path, checks: &mut Vec<Check>) {
    let store = Store::at(root.to_path_buf());
    if !store.exists() {
        checks.push(Check::failed(
            "store .capn/",
            format!("{} does not exist", store.dir.display()),
            FIX_INIT,
        ));
        return;
    }
    match crate::hook::statusline::chart_count(root) {
        Some(n) => checks.push(Check::ok(format!(
            "store .capn/ ({n} chart{})",
            if n == 1 { "" } else { "s" }
        ))),
        None => checks.push(Check::failed(
            "store .capn/",
            format!("{} is missing", store.entries_dir().display()),
            FIX_INIT,
        )),
    }
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
        "edit {} (keys: \"embedding\": true|false, \"warn_at\": 1..100), or delete it and run capn init",
        path.display()
    );
    let problem = match serde_json::from_str::<Value>(&text) {
        Err(e) => Some(format!("{} is not JSON: {e}", path.display())),
        Ok(Value::Object(m)) => {
            let mut p = Vec::new();
            if m.get("embedding").is_some_and(|v| !v.is_boolean()) {
                p.push(format!(
                    "\"embedding\" is {}, not true or false",
                    m["embedding"]
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
            (!p.is_empty()).then(|| format!("{}: {}", path.display(), p.join("; ")))
        }
        Ok(_) => Some(format!("{} is not a JSON object", path.display())),
    };
    match problem {
        None => checks.push(Check::ok(".capn/config.json parses")),
        Some(why) => checks.push(Check::failed(".capn/config.json", why, fix)),
    }
}
