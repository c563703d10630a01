//! One tool call as the hooks read it: what the tool does ([`crate::hosts::tool_kind`], from
//! the tool names in the host files) and the fields of its input that say on what. The search
//! intent ([`super::from_tool_call`]) and the turn's measure (`crate::hook::turn_tools`) both
//! start from here, so a host's tool is named in its host file alone.

use crate::hosts::{tool_kind, ToolKind};
use serde_json::Value;

/// What one tool call does, with the input fields that say on what (a field the input lacks
/// is empty, or `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolUse {
    /// A content search ([`ToolKind::Grep`]).
    Grep {
        /// Its regular expression (`pattern`).
        pattern: String,
        /// The folder searched ([`ToolUse::path_of`]).
        path: String,
        /// Its file filters: `glob`, Gemini CLI's `include_pattern`, OpenCode's `include`.
        filters: [String; 3],
    },
    /// A file-name search ([`ToolKind::Glob`]).
    Glob {
        /// Its glob (`pattern`).
        pattern: String,
        /// The folder searched ([`ToolUse::path_of`]).
        path: String,
    },
    /// A sub-agent launch ([`ToolKind::Subagent`]).
    Subagent {
        /// Its `description`.
        description: String,
        /// Its `prompt`.
        prompt: String,
    },
    /// A file read ([`ToolKind::Read`]): `file_path`, OpenCode's `filePath`, `path`, Gemini
    /// CLI's `absolute_path` or `notebook_path`, the first present.
    Read(Option<String>),
    /// A file edit ([`ToolKind::Edit`]): `file_path`, `filePath` or `notebook_path`.
    Edit(Option<String>),
    /// A patch ([`ToolKind::Patch`]): the input itself when a string, else its `input` or
    /// `patch`.
    Patch(Option<String>),
    /// A plan or task-list update ([`ToolKind::Plan`]).
    Plan,
    /// A shell call, or a tool no host file names: its command line ([`super::command_line`]),
    /// if its input has one.
    Shell(Option<String>),
}

impl ToolUse {
    /// What the call of the tool `name` (any host's name for it) with `input` (its
    /// `tool_input` object) does.
    pub(crate) fn parse(name: &str, input: &Value) -> ToolUse {
        let s = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
        let text = |k: &str| s(k).unwrap_or_default();
        let first = |keys: &[&str]| keys.iter().find_map(|k| s(k));
        match tool_kind(name) {
            Some(ToolKind::Grep) => ToolUse::Grep {
                pattern: text("pattern"),
                path: ToolUse::path_of(input),
                filters: [text("glob"), text("include_pattern"), text("include")],
            },
            Some(ToolKind::Glob) => ToolUse::Glob {
                pattern: text("pattern"),
                path: ToolUse::path_of(input),
            },
            Some(ToolKind::Subagent) => ToolUse::Subagent {
                description: text("description"),
                prompt: text("prompt"),
            },
            Some(ToolKind::Read) => ToolUse::Read(first(&[
                "file_path",
                "filePath",
                "path",
                "absolute_path",
                "notebook_path",
            ])),
            Some(ToolKind::Edit) => {
                ToolUse::Edit(first(&["file_path", "filePath", "notebook_path"]))
            }
            Some(ToolKind::Patch) => ToolUse::Patch(match input {
                Value::String(p) => Some(p.clone()),
                _ => s("input").or_else(|| s("patch")),
            }),
            Some(ToolKind::Plan) => ToolUse::Plan,
            Some(ToolKind::Shell) | None => ToolUse::Shell(super::command_line(input)),
        }
    }

    /// The folder a search searches: `path`, else (when empty) Gemini CLI's and Qwen Code's
    /// `dir_path`.
    fn path_of(input: &Value) -> String {
        let s = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or("");
        Some(s("path"))
            .filter(|p| !p.is_empty())
            .unwrap_or(s("dir_path"))
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_hosts_names_read_as_the_same_use() {
        let grep = ToolUse::parse("grep_search", &json!({"pattern": "x", "dir_path": "src"}));
        assert_eq!(
            grep,
            ToolUse::Grep {
                pattern: "x".into(),
                path: "src".into(),
                filters: Default::default()
            }
        );
        assert_eq!(
            ToolUse::parse("read", &json!({"filePath": "a.rs"})),
            ToolUse::Read(Some("a.rs".into()))
        );
        assert_eq!(
            ToolUse::parse("exec_command", &json!({"cmd": "rg x"})),
            ToolUse::Shell(Some("rg x".into()))
        );
        assert_eq!(ToolUse::parse("TodoWrite", &json!({})), ToolUse::Plan);
        assert_eq!(
            ToolUse::parse("mcp__x__y", &json!({})),
            ToolUse::Shell(None)
        );
    }
}
