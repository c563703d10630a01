//! One hook call as capn works with it: the host's payload ([`super::wire::HookInput`], exactly
//! as sent) converted once, at the edge, into what the events need. Hook code reads this, never
//! the wire type.

use super::wire::HookInput;
use serde_json::Value;

/// One hook call (hooks reference, sections 1.3, 1.4 and 5: the fields capn uses).
#[derive(Debug, Clone, Default)]
pub struct Call {
    /// The session id as sent; validated against format.md before any use ([`super::Ctx::session`]).
    pub session_id: Option<String>,
    /// The transcript the host names (Codex may send none).
    pub transcript_path: Option<String>,
    /// The host's working directory (follows the agent's `cd`); `None` when missing or empty.
    pub cwd: Option<String>,
    /// SessionStart: `startup|resume|clear|compact|fork` (unknown values kept).
    pub source: Option<String>,
    /// PreCompact/PostCompact: `manual|auto`.
    pub trigger: Option<String>,
    /// UserPromptSubmit: the prompt.
    pub prompt: Option<String>,
    /// PreToolUse: the tool's name and its input object.
    pub tool: Option<(String, Value)>,
    /// The sub-agent the call comes from, as a file-name-safe id (at most 64 characters of
    /// `A-Za-z0-9-_`); `None` for the main conversation.
    pub agent: Option<String>,
}

impl Call {
    /// True when the call comes from a sub-agent, not the main conversation.
    pub fn is_subagent(&self) -> bool {
        self.agent.is_some()
    }

    /// The project root of the call's `cwd` ([`crate::store::hook_root`]); `None` without a
    /// `cwd`.
    pub fn project_root(&self) -> Option<std::path::PathBuf> {
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
            transcript_path: w.transcript_path,
            cwd: w.cwd.filter(|c| !c.is_empty()),
            source: w.source,
            trigger: w.trigger,
            prompt: w.prompt,
            tool: w.tool_name.zip(w.tool_input),
            agent,
        }
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
}
