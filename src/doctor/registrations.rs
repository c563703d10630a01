//! Doctor check 4: registrations.

use super::*;
use crate::events::HookEvent;

/// A capn handler found in a settings file.
#[derive(Debug, Clone)]
pub(super) struct Ours {
    pub(super) rel: &'static str,
    pub(super) event: String,
    pub(super) matcher: Option<Value>,
    pub(super) handler: Value,
    pub(super) sub: String,
}

/// Everything of capn's registered for one host.
pub(super) struct Found {
    pub(super) ours: Vec<Ours>,
    /// (file, event) of each capn-hook 0.2 handler.
    pub(super) legacy: Vec<(&'static str, String)>,
}

pub(super) fn collect(spec: &HostSpec, files: &[Loaded]) -> Found {
    let mut found = Found {
        ours: Vec::new(),
        legacy: Vec::new(),
    };
    for f in files.iter().filter(|f| spec.owns(f.rel)) {
        let Some(json) = f.json() else {
            continue;
        };
        for (event, g, h) in install::handlers(json) {
            if let Some(sub) = install::our_subcommand(h) {
                found.ours.push(Ours {
                    rel: f.rel,
                    event: event.to_string(),
                    matcher: g.get("matcher").cloned(),
                    handler: h.clone(),
                    sub,
                });
            } else if install::is_legacy(h) {
                found.legacy.push((f.rel, event.to_string()));
            }
        }
    }
    found
}

/// The (event, matcher, handler) triples of a registration table.
pub(super) fn table_entries(table: &str) -> Vec<(String, Option<Value>, Value)> {
    let t: Map<String, Value> = serde_json::from_str(table).unwrap_or_default();
    install::handlers(&t)
        .into_iter()
        .map(|(event, g, h)| (event.to_string(), g.get("matcher").cloned(), h.clone()))
        .collect()
}

/// True when a matcher selects `value` (Claude Code's hooks docs, matchers: `*`, `""` or no
/// matcher match everything; only `[A-Za-z0-9_- ,|]` is a list of exact names; anything else an
/// unanchored regular expression). `Err` for a regular expression that does not compile.
pub(super) fn matcher_matches(
    matcher: Option<&Value>,
    value: &str,
) -> std::result::Result<bool, String> {
    let m = match matcher {
        None | Some(Value::Null) => return Ok(true),
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(format!("matcher {other} is not a string")),
    };
    if m.is_empty() || m == "*" {
        return Ok(true);
    }
    let is_list = m
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_- ,|".contains(c));
    if is_list {
        return Ok(m.split(['|', ',']).map(str::trim).any(|n| n == value));
    }
    regex::Regex::new(m)
        .map(|re| re.is_match(value))
        .map_err(|e| format!("matcher {m:?} is not a valid regular expression: {e}"))
}

/// The words of a handler's command line (exec form: `command` then `args`).
pub(super) fn words(handler: &Value) -> Vec<String> {
    let mut w: Vec<String> = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if let Some(args) = handler.get("args").and_then(Value::as_array) {
        w.extend(args.iter().map(|a| a.as_str().unwrap_or("").to_string()));
    }
    w
}

/// True when the words carry `--host <flag>` (or `--host=<flag>`).
pub(super) fn says_host(words: &[String], flag: &str) -> bool {
    words.windows(2).any(|p| p[0] == "--host" && p[1] == flag)
        || words
            .iter()
            .any(|w| w.strip_prefix("--host=") == Some(flag))
}

/// What is wrong with a handler's form for `spec`'s host: the exec form ([`HostSpec::exec_form`]:
/// `args` and an explicit timeout, and no other host's `--host`) or a shell line (no `args`,
/// its own `--host`).
fn form_problems(spec: &HostSpec, h: &Value) -> Vec<String> {
    let mut p = Vec::new();
    let w = words(h);
    if spec.exec_form {
        if !h.get("args").is_some_and(Value::is_array) {
            p.push("shell form (\"command\" without \"args\"): capn registers the exec form, which no shell can break".into());
        }
        match h.get("timeout") {
            None => p.push("no explicit \"timeout\" (the default is 600 s)".into()),
            Some(t) if !t.as_f64().is_some_and(|t| t > 0.0) => p.push(format!(
                "\"timeout\" is {t}, not a positive number of seconds"
            )),
            Some(_) => {}
        }
        for other in crate::hosts::ALL.iter().filter(|o| o.host != spec.host) {
            if says_host(&w, other.flag) {
                p.push(format!(
                    "it answers with --host {} on {}",
                    other.flag, spec.name
                ));
            }
        }
    } else {
        if h.get("args").is_some() {
            p.push(format!(
                "{} ignores \"args\" and runs only \"command\"",
                spec.name
            ));
        }
        if !says_host(&w, spec.flag) {
            p.push(format!(
                "no --host {}: {} gets the Claude Code wording",
                spec.flag, spec.name
            ));
        }
        if let Some(t) = h.get("timeout") {
            if !t.as_f64().is_some_and(|t| t > 0.0) {
                p.push(format!(
                    "\"timeout\" is {t}, not a positive number of {}",
                    if spec.timeout_unit == "ms" {
                        "milliseconds"
                    } else {
                        "seconds"
                    }
                ));
            }
        }
    }
    p
}

/// What is wrong with one capn handler registered where the table wants it.
pub(super) fn handler_problems(
    spec: &HostSpec,
    o: &Ours,
    table_matcher: Option<&Value>,
) -> Vec<String> {
    let h = &o.handler;
    let mut p = Vec::new();
    match h.get("type").and_then(Value::as_str) {
        Some("command") => {}
        other => p.push(format!(
            "\"type\" is {}, not \"command\": the host does not run it as a program",
            other.map_or("missing".to_string(), |t| {
                crate::present::quote(t, crate::present::MAX_QUESTION_CHARS)
            })
        )),
    }
    if h.get("async").and_then(Value::as_bool) == Some(true) {
        p.push("\"async\": true: the host ignores an async hook's output".into());
    }
    p.extend(form_problems(spec, h));
    let event = HookEvent::from_name(&o.event);
    if event == Some(HookEvent::SessionStart) && table_matcher.is_none() {
        p.extend(session_start_gap(o));
    }
    let all = match table_matcher {
        Some(Value::String(want)) => want.split('|').count(),
        _ => 0,
    };
    match matcher_gap(o, table_matcher) {
        Err(e) => p.push(e),
        // Fewer tools for the search hook is the user's choice (a warning, see
        // `check_registrations`) as long as it runs for one; any other event must see every
        // source the table names.
        Ok(missing)
            if !missing.is_empty()
                && (event != Some(HookEvent::PreToolUse) || missing.len() == all) =>
        {
            p.push(format!(
                "matcher {} does not select {}: the hook does not run then",
                o.matcher.as_ref().map_or("(none)".into(), Value::to_string),
                missing.join(", ")
            ))
        }
        Ok(_) => {}
    }
    p
}

/// What a SessionStart matcher leaves out: capn registers SessionStart without one, so every
/// source gets the contract, `fork` (Claude Code 2.1.214) and any later one included. A matcher
/// that does not select `fork` and an unknown source is named, with capn 0.3's own value
/// ([`install::OLD_SESSION_START_MATCHER`]) called out as what `capn init` upgrades.
fn session_start_gap(o: &Ours) -> Option<String> {
    let selects = |v: &str| matcher_matches(o.matcher.as_ref(), v).unwrap_or(false);
    if selects("fork") && selects("a-source-added-later") {
        return None;
    }
    let m = o.matcher.as_ref().map_or("(none)".into(), Value::to_string);
    let old =
        o.matcher.as_ref().and_then(Value::as_str) == Some(install::OLD_SESSION_START_MATCHER);
    Some(if old {
        format!(
            "matcher {m} is capn 0.3's: a forked session (source \"fork\") and any later source get no contract; capn init removes it"
        )
    } else {
        format!(
            "matcher {m} does not select every source: a forked session (source \"fork\") or a later source gets no contract; capn registers SessionStart without a matcher"
        )
    })
}

/// The tools of the table's matcher that the registered matcher of `o` does not select (a
/// narrower matcher is the user's choice: the hook then runs for fewer tools), or why the
/// registered matcher cannot be read.
fn matcher_gap(o: &Ours, table_matcher: Option<&Value>) -> Result<Vec<String>, String> {
    let Some(Value::String(want)) = table_matcher else {
        return Ok(Vec::new());
    };
    let mut missing = Vec::new();
    for v in want.split('|') {
        if !matcher_matches(o.matcher.as_ref(), v)? {
            missing.push(v.to_string());
        }
    }
    Ok(missing)
}

/// The command `capn uninstall && capn init` (with `--git` when the post-commit hook runs
/// `capn prune`, which uninstall removes).
pub(super) fn reinstall_cmd(git: bool) -> String {
    format!(
        "capn uninstall && capn init{}",
        if git { " --git" } else { "" }
    )
}

/// A handler as the line a user reads: `capn hook session-start` (exec form args joined).
pub(super) fn display(handler: &Value) -> String {
    let mut s = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    if let Some(args) = handler.get("args").and_then(Value::as_array) {
        for a in args {
            let a = a.as_str().unwrap_or("");
            s.push(' ');
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                s.push_str(&install::shell_single_quote(a));
            } else {
                s.push_str(a);
            }
        }
    }
    s
}

/// Doctor's registration checks for one host: each handler of the host table is registered
/// once, in the form capn writes, with a matcher that selects the table's tools (a narrower one
/// is a warning). PreToolUse may be left out when `search_offers` is false (switched off in
/// `.capn/config.json`, or embedding off): the hook would offer nothing.
pub(super) fn check_registrations(
    spec: &HostSpec,
    files: &[Loaded],
    found: &Found,
    git: bool,
    search_offers: bool,
    checks: &mut Vec<Check>,
) {
    let broken: Vec<&str> = files
        .iter()
        .filter(|f| spec.owns(f.rel) && f.file.is_none())
        .map(|f| f.rel)
        .collect();
    let table = table_entries(spec.table);
    for (event, table_matcher, table_handler) in &table {
        let Some(want) = install::our_subcommand(table_handler) else {
            continue;
        };
        let what = format!("{} {event} hook", spec.label);
        let matches: Vec<&Ours> = found
            .ours
            .iter()
            .filter(|o| &o.event == event && o.sub == want)
            .collect();
        if matches.is_empty() {
            checks.push(missing_check(
                spec,
                event,
                table_handler,
                &broken,
                search_offers,
            ));
            continue;
        }
        let table_json = Value::to_string(table_handler);
        for o in &matches {
            let problems = handler_problems(spec, o, table_matcher.as_ref());
            let gap = match HookEvent::from_name(&o.event) {
                Some(HookEvent::PreToolUse) => {
                    matcher_gap(o, table_matcher.as_ref()).unwrap_or_default()
                }
                _ => Vec::new(),
            };
            match (problems.is_empty(), gap.is_empty(), table_matcher) {
                (true, false, Some(want)) => checks.push(Check::warn(
                    format!("{what} in {}", o.rel),
                    format!(
                        "matcher {} does not select {}: the hook does not run for them",
                        o.matcher.as_ref().map_or("(none)".into(), Value::to_string),
                        gap.join(", ")
                    ),
                    Some(format!("in {}, set the matcher to {want}", o.rel)),
                )),
                _ => checks.push(registration_check(
                    (&what, spec.timeout_unit),
                    o,
                    &problems,
                    &table_json,
                    git,
                )),
            }
        }
        checks.extend(duplicates_check(&what, &matches));
    }
    unexpected_handlers(spec, &table, found, checks);
    for (rel, event) in &found.legacy {
        checks.push(Check::failed(
            format!("{} {event} hook in {rel}", spec.label),
            "the capn-hook 0.2 registration (`capn context`) is still there; 0.3's hooks replace it",
            "capn init (replaces it)",
        ));
    }
}

/// The check for a handler of the host table that no file registers: failed, except for
/// PreToolUse while search offers are off (it would offer nothing).
fn missing_check(
    spec: &HostSpec,
    event: &str,
    table_handler: &Value,
    broken: &[&str],
    search_offers: bool,
) -> Check {
    let what = format!("{} {event} hook", spec.label);
    let mut why = format!(
        "no `{}` handler under {event} in {}",
        display(table_handler),
        spec.all_files()
    );
    if !broken.is_empty() {
        why.push_str(&format!(" ({} does not parse)", broken.join(", ")));
    }
    let search = HookEvent::from_name(event) == Some(HookEvent::PreToolUse);
    if search && !search_offers {
        Check::ok(format!(
            "{what} not registered; search offers are off in .capn/config.json, so it would offer nothing"
        ))
    } else if search {
        Check::failed(
            what,
            why,
            "capn init (registers it), or switch search offers off: \"offer\": {\"search\": false} in .capn/config.json",
        )
    } else {
        Check::failed(what, why, FIX_INIT)
    }
}

/// The effective Claude Code statusline command and where it comes from: the local settings
/// override the project's, which override the user's `~/.claude/settings.json` (the host
/// table's files, project file first, read in reverse, then its user file).
pub(super) fn effective_statusline(files: &[Loaded]) -> Option<(&'static str, Value)> {
    for &rel in CLAUDE.files.iter().rev().chain([&CLAUDE.user_label]) {
        let sl = files
            .iter()
            .find(|f| f.rel == rel)
            .and_then(Loaded::json)
            .and_then(|j| j.get("statusLine"));
        if let Some(sl) = sl {
            return Some((rel, sl.clone()));
        }
    }
    None
}

pub(super) fn check_statusline_registration(files: &[Loaded], checks: &mut Vec<Check>) {
    let what = "Claude statusLine";
    let Some((rel, sl)) = effective_statusline(files) else {
        checks.push(Check::failed(
            what,
            format!("no statusLine in {}", CLAUDE.all_files()),
            FIX_INIT,
        ));
        return;
    };
    let command = sl.get("command").and_then(Value::as_str).unwrap_or("");
    if !install::is_our_statusline(command) {
        checks.push(Check::failed(
            what,
            format!(
                "{rel} runs {}, not capn statusline",
                crate::present::quote(command, crate::present::MAX_QUESTION_CHARS)
            ),
            "capn init (ours then wraps it, so both show)",
        ));
        return;
    }
    if sl.get("type").and_then(Value::as_str) != Some("command") {
        checks.push(Check::failed(
            what,
            format!("{rel}: statusLine \"type\" is not \"command\""),
            format!("in {rel}, set statusLine.type to \"command\""),
        ));
        return;
    }
    match install::wrapped_statusline(command) {
        Some(theirs) => checks.push(Check::ok(format!(
            "{what} is capn statusline in {rel}, wrapping {}",
            crate::present::quote(&theirs, crate::present::MAX_QUESTION_CHARS)
        ))),
        None => checks.push(Check::ok(format!("{what} is capn statusline in {rel}"))),
    }
}

/// The check for one registered handler of ours: ok, or what is wrong and the table's handler.
/// `unit` is the host's unit of `timeout` ([`HostSpec::timeout_unit`]).
fn registration_check(
    (what, unit): (&str, &str),
    o: &Ours,
    problems: &[String],
    table_json: &str,
    git: bool,
) -> Check {
    if !problems.is_empty() {
        return Check::failed(
            format!("{what} in {}", o.rel),
            problems.join("; "),
            format!(
                "in {}, replace that handler with {table_json} (or run: {})",
                o.rel,
                reinstall_cmd(git)
            ),
        );
    }
    let timeout = o
        .handler
        .get("timeout")
        .and_then(Value::as_f64)
        .map_or(String::new(), |t| format!(", timeout {t} {unit}"));
    let form = if o.handler.get("args").is_some() {
        "exec form"
    } else {
        "sh -c"
    };
    Check::ok(format!(
        "{what} registered in {}: {} ({form}{timeout})",
        o.rel,
        display(&o.handler)
    ))
}

/// A failed check when a hook of ours runs more than once: identical handlers in several files
/// run once (Claude Code's hooks docs); anything else runs once per copy.
fn duplicates_check(what: &str, matches: &[&Ours]) -> Option<Check> {
    let mut distinct: Vec<&Ours> = Vec::new();
    let mut dup_in_file = false;
    for o in matches {
        if distinct.iter().any(|d| d.rel == o.rel) {
            dup_in_file = true;
        }
        if !distinct.iter().any(|d| d.handler == o.handler) {
            distinct.push(o);
        }
    }
    if distinct.len() < 2 && !dup_in_file {
        return None;
    }
    let places: Vec<String> = matches
        .iter()
        .map(|o| format!("{}: {}", o.rel, display(&o.handler)))
        .collect();
    let mut rels: Vec<&str> = matches.iter().map(|o| o.rel).collect();
    rels.dedup();
    Some(Check::failed(
        format!("{what} registered once"),
        format!(
            "it is registered {} times ({}), so it runs more than once",
            matches.len(),
            places.join("; ")
        ),
        format!("keep one: remove the others from {}", rels.join(" and ")),
    ))
}

/// Every `capn hook` subcommand, for messages: `a, b or c`.
fn subcommand_list() -> String {
    let subs: Vec<&str> = HookEvent::ALL.iter().map(|e| e.subcommand()).collect();
    let (last, rest) = subs.split_last().expect("there are events");
    format!("{} or {last}", rest.join(", "))
}

/// Failed checks for capn handlers the table does not have: a wrong subcommand or a wrong event.
fn unexpected_handlers(
    spec: &HostSpec,
    table: &[(String, Option<Value>, Value)],
    found: &Found,
    checks: &mut Vec<Check>,
) {
    for o in &found.ours {
        let expected = table.iter().any(|(e, _, h)| {
            e == &o.event && install::our_subcommand(h).as_deref() == Some(&o.sub)
        });
        if expected {
            continue;
        }
        let why = match HookEvent::from_subcommand(&o.sub).map(HookEvent::name) {
            Some(e) if e != o.event => format!(
                "that is the {e} hook; on {} it answers nothing (it checks hook_event_name)",
                o.event
            ),
            Some(_) => format!(
                "capn does not register a {} hook for {}",
                o.event, spec.label
            ),
            None => format!(
                "`{}` is not a capn hook (capn hook takes {})",
                o.sub,
                subcommand_list()
            ),
        };
        checks.push(Check::failed(
            format!(
                "{} {} hook in {} runs `{}`",
                spec.label,
                o.event,
                o.rel,
                display(&o.handler)
            ),
            why,
            format!("remove that handler from {}, then run capn init", o.rel),
        ));
    }
}
