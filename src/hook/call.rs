//! One hook call as capn works with it: the host's payload ([`super::wire::HookInput`], exactly
//! as sent) converted once, at the edge, into what the events need. Hook code reads this, never
//! the wire type.

use super::wire::HookInput;
use serde_json::Value;

/// The longest path a payload may name (`cwd`, `transcript_path`), in bytes: Linux's `PATH_MAX`
/// (4096), which no real working directory exceeds (macOS's is 1024). A longer one is treated as
/// absent, never cut (a cut path names another directory); walking the ancestors of a 200 KB
/// `cwd` cost seconds.
pub(crate) const MAX_PATH_BYTES: usize = 4096;

/// The most of a prompt kept, in bytes (cut on a character boundary): recall over a prompt needs
/// its first few hundred words, and a 13 MB paste cost 12 s and 958 MB before this cap.
pub(crate) const MAX_PROMPT_BYTES: usize = 8192;

/// The most of each string in `tool_input` kept, in bytes (cut on a character boundary); the
/// search intent read from it is cut again to [`crate::recall::intent::MAX_INTENT_CHARS`].
pub(crate) const MAX_FIELD_BYTES: usize = 8192;

/// The most items of each array (and members of each object) in `tool_input` kept (a Codex argv
/// is a handful).
pub(crate) const MAX_ITEMS: usize = 256;

/// The most of a compaction summary kept (`compact_summary`), in bytes: the summary is checked
/// for what the saved state holds, and a real one is a few thousand words.
pub(crate) const MAX_SUMMARY_BYTES: usize = 256 * 1024;

/// The most bytes of a short enum-like field (`source`, `trigger`) kept.
pub(crate) const MAX_WORD_BYTES: usize = 64;

/// `s` cut to at most `max` bytes on a character boundary.
pub(crate) fn cut_to(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut at = max;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
    }
    s
}

/// A path from a payload, or `None` when it is empty or longer than [`MAX_PATH_BYTES`].
pub(crate) fn bounded_path(p: Option<String>) -> Option<String> {
    p.filter(|p| !p.is_empty() && p.len() <= MAX_PATH_BYTES)
}

/// `v` with every string cut to [`MAX_FIELD_BYTES`] and every array and object to [`MAX_ITEMS`]
/// entries, in one pass over it (linear in its size).
fn bounded_value(v: Value) -> Value {
    match v {
        Value::String(s) => Value::String(cut_to(s, MAX_FIELD_BYTES)),
        Value::Array(a) => Value::Array(a.into_iter().take(MAX_ITEMS).map(bounded_value).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .take(MAX_ITEMS)
                .map(|(k, v)| (cut_to(k, MAX_FIELD_BYTES), bounded_value(v)))
                .collect(),
        ),
        other => other,
    }
}

/// One hook call (the fields capn uses of what Claude Code and Codex send), bounded
/// before any work: paths to [`MAX_PATH_BYTES`], the prompt to [`MAX_PROMPT_BYTES`], each
/// tool-input string to [`MAX_FIELD_BYTES`] (so every hook's work after parsing the payload is
/// bounded whatever the payload's size; README, "Hook inputs").
#[derive(Debug, Clone, Default)]
pub(crate) struct Call {
    /// The session id as sent; validated against format.md before any use ([`super::Ctx::session`]).
    pub session_id: Option<String>,
    /// The transcript the host names (Codex may send none).
    pub transcript_path: Option<String>,
    /// The host's working directory (follows the agent's `cd`); `None` when missing, empty or
    /// longer than [`MAX_PATH_BYTES`].
    pub cwd: Option<String>,
    /// SessionStart: `startup|resume|clear|compact|fork` (unknown values kept).
    pub source: Option<String>,
    /// PreCompact/PostCompact: `manual|auto`.
    pub trigger: Option<String>,
    /// UserPromptSubmit: the prompt.
    pub prompt: Option<String>,
    /// PreToolUse: the tool's name and its input object.
    pub tool: Option<(String, Value)>,
    /// Qwen Code's Stop: the context use as a fraction of its limit.
    pub context_usage: Option<f64>,
    /// The sub-agent the call comes from, as a file-name-safe id (at most 64 characters of
    /// `A-Za-z0-9-_`); `None` for the main conversation.
    pub agent: Option<String>,
    /// Stop: the agent is already going on because a Stop hook blocked (`stop_hook_active`).
    pub stop_hook_active: bool,
    /// Stop: the agent's last reply (`last_assistant_message`), cut to
    /// [`super::json::MAX_STRING_BYTES`] while parsed; `None` when the host sends none.
    pub last_message: Option<String>,
    /// PreCompact: the user gave instructions of their own for the summary (`/compact <text>`:
    /// a non-blank `custom_instructions`). Only the fact is kept: the host puts the text in the
    /// summary request itself.
    pub custom_instructions: bool,
    /// PostCompact: the summary, cut to [`MAX_SUMMARY_BYTES`].
    pub compact_summary: Option<String>,
}

impl Call {
    /// True when the call comes from a sub-agent, not the main conversation.
    pub(crate) fn is_subagent(&self) -> bool {
        self.agent.is_some()
    }

    /// The project root of the call's `cwd` ([`crate::store::hook_root`]); `None` without a
    /// `cwd`.
    pub(crate) fn project_root(&self) -> Option<std::path::PathBuf> {
        let cwd = self.cwd.as_deref()?;
        Some(crate::store::hook_root(std::path::Path::new(cwd)))
    }
}

impl From<HookInput> for Call {
    fn from(w: HookInput) -> Call {
        let agent = match w.agent_id {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(s),
            Some(v) => Some(v.to_string()),
        }
        .map(|a| {
            let safe: String = a
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                .take(64)
                .collect();
            // An id with nothing file-name-safe in it is still a sub-agent.
            if safe.is_empty() {
                "agent".to_string()
            } else {
                safe
            }
        });
        Call {
            session_id: w.session_id,
            transcript_path: bounded_path(w.transcript_path),
            cwd: bounded_path(
                w.cwd
                    .or_else(|| w.workspace_roots.and_then(|r| r.into_iter().next())),
            ),
            source: w.source.map(|s| cut_to(s, MAX_WORD_BYTES)),
            trigger: w.trigger.map(|s| cut_to(s, MAX_WORD_BYTES)),
            prompt: w.prompt.map(|p| cut_to(p, MAX_PROMPT_BYTES)),
            tool: w
                .tool_name
                .map(|t| cut_to(t, MAX_WORD_BYTES))
                .zip(w.tool_input.map(object_of).map(bounded_value)),
            agent,
            stop_hook_active: w.stop_hook_active == Some(true),
            last_message: w.last_assistant_message,
            context_usage: w.context_usage,
            custom_instructions: w.custom_instructions.is_some_and(|t| !t.trim().is_empty()),
            compact_summary: w.compact_summary.map(|t| cut_to(t, MAX_SUMMARY_BYTES)),
        }
    }
}

/// A tool input as an object: Copilot CLI has sent `toolArgs` as the JSON text of one, which is
/// parsed (within the payload's own bounds); anything else is kept as sent.
fn object_of(v: Value) -> Value {
    match v {
        Value::String(text) if text.trim_start().starts_with('{') => {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_payload_becomes_a_call_once() {
        let w = HookInput::parse(
            br#"{"session_id":"s","cwd":"","agent_id":"a/../b","tool_name":"Grep","tool_input":{"pattern":"x"}}"#,
        )
        .unwrap();
        let c = Call::from(w);
        assert_eq!(c.cwd, None);
        assert_eq!(c.agent.as_deref(), Some("ab"));
        assert_eq!(c.tool.as_ref().map(|t| t.0.as_str()), Some("Grep"));
        let main = Call::from(HookInput::parse(br#"{"agent_id":null}"#).unwrap());
        assert!(!main.is_subagent());
    }

    #[test]
    fn every_field_is_bounded_at_the_edge() {
        let long_cwd = format!("/{}", "a/".repeat(MAX_PATH_BYTES));
        let payload = serde_json::json!({
            "cwd": long_cwd, "transcript_path": "/t.jsonl", "source": "s".repeat(500),
            "prompt": "é".repeat(MAX_PROMPT_BYTES),
            "tool_name": "Bash",
            "tool_input": {"command": "x".repeat(MAX_FIELD_BYTES * 3),
                           "argv": (0..1000).map(|i| i.to_string()).collect::<Vec<_>>()},
        });
        let c = Call::from(HookInput::parse(payload.to_string().as_bytes()).unwrap());
        assert_eq!(c.cwd, None);
        assert_eq!(c.transcript_path.as_deref(), Some("/t.jsonl"));
        assert_eq!(c.source.unwrap().len(), MAX_WORD_BYTES);
        let p = c.prompt.unwrap();
        assert_eq!(p.len(), MAX_PROMPT_BYTES);
        assert!(p.chars().all(|ch| ch == 'é'));
        let (_, input) = c.tool.unwrap();
        assert_eq!(input["command"].as_str().unwrap().len(), MAX_FIELD_BYTES);
        assert_eq!(input["argv"].as_array().unwrap().len(), MAX_ITEMS);
        let at_cap = format!("/{}", "b".repeat(MAX_PATH_BYTES - 1));
        let c = Call::from(
            HookInput::parse(serde_json::json!({"cwd": at_cap}).to_string().as_bytes()).unwrap(),
        );
        assert_eq!(c.cwd.as_deref(), Some(at_cap.as_str()));
    }
}
