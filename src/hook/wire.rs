//! Serde types for the JSON the hosts send on stdin, exactly as sent, parsed leniently.
//!
//! Hosts add fields and enum values between versions and leave some out or null, so every field is
//! optional, unknown fields are ignored, enum values stay strings (`fork`, `auto`, new ones), and
//! nulls are fine. Beyond that, a field of the wrong type reads as absent instead of failing the
//! whole payload ([`lenient`]), so one odd field never costs the hook its session id. Every string
//! is cut while it is parsed ([`super::json::MAX_STRING_BYTES`]), so a large field costs no more
//! than one scan.
//!
//! Domain decisions (which event, which session, what to deliver) live in the event modules;
//! this file only mirrors the wire.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

/// Deserializes any JSON value and keeps it only if it has the type `T`; anything else (null, a
/// number where a string was expected, an object, ...) becomes `None`. Errors only on malformed
/// JSON, which fails the whole document anyway. The value is bounded while it is parsed
/// ([`super::json::Bounded`]: strings, items, depth), so a field of any size costs one scan of
/// its bytes, never a full tree in memory.
pub(crate) fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let super::json::Bounded(v) = super::json::Bounded::deserialize(d)?;
    Ok(T::deserialize(v).ok())
}

/// The common stdin of a hook event on Claude Code and Codex (Claude Code's hooks
/// docs, Codex's hook schemas), for every event capn handles ([`crate::events::HookEvent`]), with
/// the fields of each (`source`, `trigger`, `prompt`, `tool_name` and `tool_input`).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(crate) struct HookInput {
    /// The session id; validated against format.md before any use. (`sessionId` in GitHub
    /// Copilot CLI's own hook files, whose payloads are camelCase; `conversation_id` in Cursor's,
    /// per its hooks documentation.)
    #[serde(
        deserialize_with = "lenient",
        alias = "sessionId",
        alias = "conversation_id"
    )]
    pub session_id: Option<String>,
    /// The transcript path (Codex may send `null`; Copilot: `transcriptPath`).
    #[serde(deserialize_with = "lenient", alias = "transcriptPath")]
    pub transcript_path: Option<String>,
    /// The host's working directory (follows the agent's `cd`).
    #[serde(deserialize_with = "lenient")]
    pub cwd: Option<String>,
    /// Cursor (documented, not captured): the workspace folders, for a payload with no `cwd`.
    #[serde(deserialize_with = "lenient")]
    pub workspace_roots: Option<Vec<String>>,
    /// `SessionStart`, `PreCompact`, ... (missing in some hand-written fixtures and in Copilot
    /// CLI's own payloads).
    #[serde(deserialize_with = "lenient", alias = "hookEventName")]
    pub hook_event_name: Option<String>,
    /// SessionStart: `startup|resume|clear|compact|fork`.
    #[serde(deserialize_with = "lenient")]
    pub source: Option<String>,
    /// PreCompact/PostCompact: `manual|auto`.
    #[serde(deserialize_with = "lenient")]
    pub trigger: Option<String>,
    /// `default|plan|acceptEdits|...`; not on every event.
    #[serde(deserialize_with = "lenient")]
    pub permission_mode: Option<String>,
    /// Present only inside a sub-agent (Claude Code) or a Codex sub-agent; such payloads are
    /// not the main conversation.
    #[serde(deserialize_with = "lenient")]
    pub agent_id: Option<serde_json::Value>,
    /// UserPromptSubmit: the user's prompt (recalled over for proactive offers).
    #[serde(deserialize_with = "lenient")]
    pub prompt: Option<String>,
    /// Qwen Code's Stop: the context use, as a fraction of `context_limit` (0.00005 for 10 of
    /// 200,000 tokens in the captured payload).
    #[serde(deserialize_with = "lenient")]
    pub context_usage: Option<f64>,
    /// PreToolUse: the tool about to run (`Grep`, `Glob`, `Bash`, `Task`, `Agent`; Codex: `Bash`;
    /// Gemini CLI and Qwen Code: `grep_search`, `run_shell_command`, ...; Copilot CLI:
    /// `toolName`, `bash`, `grep`, ...).
    #[serde(deserialize_with = "lenient", alias = "toolName")]
    pub tool_name: Option<String>,
    /// PreToolUse: the tool's input object, as sent (Copilot CLI: `toolArgs`, an object or a
    /// JSON text of one).
    #[serde(deserialize_with = "lenient", alias = "toolArgs")]
    pub tool_input: Option<serde_json::Value>,
    /// Stop: `true` when the agent is already going on because a Stop hook blocked.
    #[serde(deserialize_with = "lenient")]
    pub stop_hook_active: Option<bool>,
    /// Stop (Claude Code, Codex, Qwen Code): the agent's last reply, as the host kept it (its
    /// transcript may not have caught up yet).
    #[serde(deserialize_with = "lenient")]
    pub last_assistant_message: Option<String>,
    /// PreCompact: the user's own instructions for the summary (the text after `/compact`;
    /// `null` or empty without; Copilot CLI: `customInstructions`).
    #[serde(deserialize_with = "lenient", alias = "customInstructions")]
    pub custom_instructions: Option<String>,
    /// PostCompact (Claude Code, Qwen Code): the summary the compaction produced, the model's
    /// whole reply.
    #[serde(deserialize_with = "lenient")]
    pub compact_summary: Option<String>,
}

impl HookInput {
    /// Parses a hook payload. `None` for empty input, malformed JSON, or a top-level value that
    /// is not an object (exit 0, no output).
    pub(crate) fn parse(bytes: &[u8]) -> Option<HookInput> {
        parse_object(bytes)
    }
}

/// Parses `bytes` as a JSON object into `T` (a BOM allowed, invalid escapes repaired: see
/// [`super::json`]); `None` for anything else.
fn parse_object<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    let bytes = super::json::strip_bom(bytes);
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != super::json::OBJECT_OPEN {
        return None;
    }
    super::json::from_slice(bytes)
}

/// The statusline's stdin (Claude Code's status line docs), the fields capn reads.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(crate) struct StatusInput {
    /// The session id; validated against format.md before any use.
    #[serde(deserialize_with = "lenient")]
    pub session_id: Option<String>,
    /// The transcript path (used when `context_window` has no usable numbers).
    #[serde(deserialize_with = "lenient")]
    pub transcript_path: Option<String>,
    /// The working directory.
    #[serde(deserialize_with = "lenient")]
    pub cwd: Option<String>,
    /// `{id, display_name}`.
    #[serde(deserialize_with = "lenient")]
    pub model: Option<ModelInfo>,
    /// `{current_dir, project_dir, ...}`.
    #[serde(deserialize_with = "lenient")]
    pub workspace: Option<Workspace>,
    /// `{context_window_size, used_percentage, current_usage{...}, ...}`; absent before 1.0.80.
    #[serde(deserialize_with = "lenient")]
    pub context_window: Option<ContextWindow>,
}

impl StatusInput {
    /// Parses a statusline payload; `None` for empty input, malformed JSON or a non-object.
    pub(crate) fn parse(bytes: &[u8]) -> Option<StatusInput> {
        parse_object(bytes)
    }
}

/// `model` in the statusline payload.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(crate) struct ModelInfo {
    /// `claude-opus-4-6[1m]`; a `[1m]` suffix means a 1,000,000-token window.
    #[serde(deserialize_with = "lenient")]
    pub id: Option<String>,
    /// `Opus 4.6 (1M context)`.
    #[serde(deserialize_with = "lenient")]
    pub display_name: Option<String>,
}

/// `workspace` in the statusline payload.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(crate) struct Workspace {
    /// The directory the agent is in now.
    #[serde(deserialize_with = "lenient")]
    pub current_dir: Option<String>,
    /// The directory the session was started in.
    #[serde(deserialize_with = "lenient")]
    pub project_dir: Option<String>,
}

/// `context_window` in the statusline payload. Numbers are read as `f64` so floats
/// (`used_percentage: 42.5`) and integers both fit.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(crate) struct ContextWindow {
    /// Window size in tokens (200000 or 1000000).
    #[serde(deserialize_with = "lenient")]
    pub context_window_size: Option<f64>,
    /// (input + cache_creation + cache_read) / window * 100; null early in a session.
    #[serde(deserialize_with = "lenient")]
    pub used_percentage: Option<f64>,
    /// Token counts of the last API call; null before the first call and right after `/compact`.
    #[serde(deserialize_with = "lenient")]
    pub current_usage: Option<Usage>,
}

/// Token usage of one API call (statusline `current_usage`, transcript `message.usage`).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(crate) struct Usage {
    /// Uncached input tokens.
    #[serde(deserialize_with = "lenient")]
    pub input_tokens: Option<f64>,
    /// Output tokens (not part of the context use).
    #[serde(deserialize_with = "lenient")]
    pub output_tokens: Option<f64>,
    /// Input tokens written to the cache.
    #[serde(deserialize_with = "lenient")]
    pub cache_creation_input_tokens: Option<f64>,
    /// Input tokens read from the cache.
    #[serde(deserialize_with = "lenient")]
    pub cache_read_input_tokens: Option<f64>,
}

impl Usage {
    /// Context tokens = input + cache_read + cache_creation (output excluded, as
    /// Claude Code counts the context window). `None` when none of the three is present.
    pub(crate) fn context_tokens(&self) -> Option<f64> {
        let parts = [
            self.input_tokens,
            self.cache_read_input_tokens,
            self.cache_creation_input_tokens,
        ];
        if parts.iter().all(Option::is_none) {
            return None;
        }
        Some(
            parts
                .iter()
                .flatten()
                .filter(|v| v.is_finite() && **v >= 0.0)
                .sum(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_and_nulls_read_as_absent() {
        let j = br#"{"session_id":"abc","cwd":5,"source":null,"trigger":["x"],"transcript_path":{"a":1},"agent_id":null,"prompt":"x"}"#;
        let h = HookInput::parse(j).unwrap();
        assert_eq!(h.session_id.as_deref(), Some("abc"));
        assert_eq!(h.cwd, None);
        assert_eq!(h.source, None);
        assert_eq!(h.trigger, None);
        assert_eq!(h.transcript_path, None);
        assert!(!super::super::call::Call::from(h).is_subagent());
    }

    #[test]
    fn non_objects_and_garbage_are_none() {
        for bad in [
            &b""[..],
            b"   ",
            b"null",
            b"[]",
            b"\"x\"",
            b"{",
            b"not json",
            b"{\"session_id\":\"a\"} trailing",
        ] {
            assert!(HookInput::parse(bad).is_none(), "{bad:?}");
            assert!(StatusInput::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn subagent_detection() {
        use super::super::call::Call;
        let h = HookInput::parse(br#"{"agent_id":"a1"}"#).unwrap();
        assert!(Call::from(h).is_subagent());
        let h = HookInput::parse(br#"{"agent_id":""}"#).unwrap();
        assert!(!Call::from(h).is_subagent());
    }

    #[test]
    fn usage_sums_input_side_only() {
        let u: Usage = serde_json::from_str(
            r#"{"input_tokens":8500,"output_tokens":1200,"cache_creation_input_tokens":5000,"cache_read_input_tokens":2000}"#,
        )
        .unwrap();
        assert_eq!(u.context_tokens(), Some(15500.0));
        let u: Usage = serde_json::from_str(r#"{"output_tokens":3}"#).unwrap();
        assert_eq!(u.context_tokens(), None);
    }

    #[test]
    fn statusline_model_of_wrong_shape_is_ignored() {
        let s = StatusInput::parse(
            br#"{"model":"claude-x","context_window":{"used_percentage":"12"}}"#,
        )
        .unwrap();
        assert!(s.model.is_none());
        assert!(s.context_window.unwrap().used_percentage.is_none());
    }
}
