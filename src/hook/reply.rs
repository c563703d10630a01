//! What the hosts accept from a hook on stdout: nothing, or one JSON object with only the keys
//! the event allows (each host's keys and schemas are in its table, [`crate::hosts`]), never a
//! block or a stop, and short enough (Claude Code's hooks docs, Codex's output schemas). The hooks
//! keep to it by construction ([`super::envelope`]); `capn doctor` checks the replies of the
//! registered commands against it.

use super::{HookEvent, Host};
use serde_json::Value;

/// The most characters a hook's stdout may hold: far below Claude Code's 10,000-character cap on
/// output strings (Claude Code's hooks docs, hook output), leaving room for
/// the JSON around an `additionalContext` under [`super::text::MAX_CHARS`].
pub(crate) const STDOUT_MAX_CHARS: usize = 4_000;

/// Checks a hook's stdout against what the host accepts for `event` (the host's name for it,
/// which a reply's `hookEventName` must repeat: Gemini CLI's `BeforeAgent`; Claude Code's
/// hooks docs, Codex's hook schemas), then with `validate` (Codex's output schemas, where there
/// are some). `Ok` carries the `additionalContext` (if any); `Err` the reason the host would
/// reject or misread the reply.
pub(crate) fn check(
    host: Host,
    event: &str,
    stdout: &str,
    validate: &dyn Fn(&Value) -> Result<(), String>,
) -> Result<Option<String>, String> {
    let known = crate::hosts::event_from_wire_name(event);
    if known == Some(HookEvent::PreCompact) {
        if let Some(r) = pre_compact(host, stdout) {
            return r;
        }
    }
    let Some(v) = parse(event, known, stdout)? else {
        return Ok(None);
    };
    let obj = v.as_object().ok_or("stdout is not a JSON object")?;
    let spec = crate::hosts::of(host);
    if let Some(top) = spec.top_keys {
        if let Some(k) = obj.keys().find(|k| !top.contains(&k.as_str())) {
            return Err(format!(
                "unknown key {k:?}: {} reports a hook error for the reply",
                spec.name
            ));
        }
    }
    if obj.get("continue") == Some(&Value::Bool(false)) {
        return Err("\"continue\": false stops the agent".into());
    }
    if obj.get("decision").and_then(Value::as_str) == Some("block") {
        if !known.is_some_and(HookEvent::may_block) {
            return Err(format!("\"decision\": \"block\" blocks {event}"));
        }
        match obj.get("reason").and_then(Value::as_str) {
            Some(r) if !r.trim().is_empty() => {}
            _ => {
                return Err(format!(
                    "a block of {event} without a \"reason\" is rejected"
                ))
            }
        }
    }
    let context = match obj.get("hookSpecificOutput") {
        Some(h) => specific_output(host, event, h)?,
        None => None,
    };
    validate(&v)?;
    Ok(context)
}

/// PreCompact's reply on a host that takes plain text there or nothing
/// ([`crate::hosts::PreCompactReply`]); `None` for a host that takes the envelope (checked as
/// any reply). Plain text is the instructions for the summary, returned as the context: under
/// [`STDOUT_MAX_CHARS`], and never JSON (Claude Code rejects `hookSpecificOutput` on PreCompact
/// and pastes any other JSON into the summary request verbatim).
fn pre_compact(host: Host, stdout: &str) -> Option<Result<Option<String>, String>> {
    let trimmed = stdout.trim();
    let snippet: String = trimmed.chars().take(80).collect();
    Some(match crate::hosts::of(host).pre_compact {
        crate::hosts::PreCompactReply::Envelope => return None,
        _ if trimmed.is_empty() => Ok(None),
        crate::hosts::PreCompactReply::Nothing => Err(format!(
            "printed {snippet:?} on PreCompact, where {} takes nothing (the output is ignored or rejected)",
            crate::hosts::of(host).name
        )),
        crate::hosts::PreCompactReply::PlainText => {
            let chars = stdout.chars().count();
            if chars > STDOUT_MAX_CHARS {
                Err(format!(
                    "stdout is {chars} characters; capn keeps it under {STDOUT_MAX_CHARS}"
                ))
            } else if trimmed.as_bytes().first() == Some(&super::json::OBJECT_OPEN) {
                Err(format!(
                    "printed JSON on PreCompact ({snippet:?}): {} rejects hookSpecificOutput there and pastes other JSON into the summary request as text",
                    crate::hosts::of(host).name
                ))
            } else {
                Ok(Some(trimmed.to_string()))
            }
        }
    })
}

/// The reply as JSON: `None` for an empty stdout; `Err` for any output on an event that must
/// print nothing, a stdout over [`STDOUT_MAX_CHARS`], or one that is not exactly one JSON value
/// starting with an object's brace (plain text, a stray line before the JSON). `known` is the
/// event `event` (the host's name) stands for.
fn parse(event: &str, known: Option<HookEvent>, stdout: &str) -> Result<Option<Value>, String> {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let snippet: String = trimmed.chars().take(80).collect();
    if known.is_some_and(HookEvent::prints_nothing) {
        return Err(format!(
            "printed {snippet:?} on {event}, which must print nothing (a reply there is dropped whole)"
        ));
    }
    let chars = stdout.chars().count();
    if chars > STDOUT_MAX_CHARS {
        return Err(format!(
            "stdout is {chars} characters; capn keeps it under {STDOUT_MAX_CHARS} (Claude Code cuts at 10,000)"
        ));
    }
    if trimmed.as_bytes().first() != Some(&super::json::OBJECT_OPEN) {
        return Err(format!(
            "stdout is not one JSON object: {snippet:?} (plain text or a stray line before the JSON)"
        ));
    }
    serde_json::from_str(trimmed)
        .map(Some)
        .map_err(|e| format!("stdout is not exactly one JSON object: {e}"))
}

/// Checks `hookSpecificOutput` (Claude Code's hooks docs): an object naming `event`, with only the
/// keys Claude Code accepts there, and an `additionalContext` string under capn's cap, which is
/// returned.
fn specific_output(host: Host, event: &str, h: &Value) -> Result<Option<String>, String> {
    let h = h
        .as_object()
        .ok_or("\"hookSpecificOutput\" is not an object")?;
    match h.get("hookEventName").and_then(Value::as_str) {
        Some(e) if e == event => {}
        Some(e) => {
            return Err(format!(
                "hookSpecificOutput.hookEventName is {e:?}, not {event:?}: the reply is rejected"
            ))
        }
        None => {
            return Err("hookSpecificOutput has no hookEventName: the reply is rejected".into())
        }
    }
    if let Some(allowed) = (crate::hosts::of(host).specific_keys)(event) {
        if let Some(k) = h.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(format!("hookSpecificOutput.{k} is not accepted on {event}"));
        }
    }
    let Some(c) = h.get("additionalContext") else {
        return Ok(None);
    };
    let c = c
        .as_str()
        .ok_or("hookSpecificOutput.additionalContext is not a string")?;
    let n = c.chars().count();
    if n >= super::text::MAX_CHARS {
        return Err(format!(
            "additionalContext is {n} characters; capn's cap is under {}",
            super::text::MAX_CHARS
        ));
    }
    Ok(Some(c.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codex_stop(v: &Value) -> Result<(), String> {
        let (_, text) = &crate::hosts::codex_output_schemas("Stop")[0];
        let errs = crate::schema::Schema::parse(text).unwrap().validate(v);
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("; "))
        }
    }

    #[test]
    fn only_stop_may_block_and_only_with_a_reason() {
        let block = super::super::block("chart it");
        for host in [Host::Claude, Host::Codex] {
            assert_eq!(check(host, "Stop", &block, &codex_stop), Ok(None));
            assert!(check(host, "UserPromptSubmit", &block, &|_| Ok(())).is_err());
            let bare = r#"{"decision":"block"}"#;
            assert!(check(host, "Stop", bare, &|_| Ok(())).is_err());
            let blank = r#"{"decision":"block","reason":"  "}"#;
            assert!(check(host, "Stop", blank, &|_| Ok(())).is_err());
        }
        assert!(check(
            Host::Claude,
            "Stop",
            r#"{"decision":"block","reason":"x","x":1}"#,
            &|_| Ok(())
        )
        .is_err());
    }

    /// A host's own event names: the reply must name the event as the host does (Gemini CLI's
    /// `BeforeAgent`), and the rules follow the event the name stands for.
    #[test]
    fn a_host_s_own_event_names_are_judged_as_its_events() {
        let ok = |name: &str| super::super::envelope(name, "context");
        let none = |_: &Value| Ok(());
        assert_eq!(
            check(Host::Gemini, "BeforeAgent", &ok("BeforeAgent"), &none),
            Ok(Some("context".into()))
        );
        let e = check(Host::Gemini, "BeforeAgent", &ok("UserPromptSubmit"), &none).unwrap_err();
        assert!(e.contains("not \"BeforeAgent\""), "{e}");
        let block = super::super::block("chart it");
        assert!(check(Host::Gemini, "AfterTool", &block, &none).is_err());
        assert_eq!(check(Host::Qwen, "Stop", &block, &none), Ok(None));
    }
}
