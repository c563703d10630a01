//! Format-preserving edits of a host settings file (`.claude/settings.json`,
//! `.codex/hooks.json`): the file is parsed into a concrete syntax tree that keeps every byte
//! (the `jsonc-parser` crate's CST), and only capn's entries are inserted or removed, in the
//! file's own indentation and line ends. Everything else (numbers as written, escapes, `null`s,
//! duplicate keys, key order, a UTF-8 BOM) stays as it was.
//!
//! The file is validated as strict JSON (RFC 8259, what Claude Code and Codex read) with
//! `serde_json` first; the tree is used only for editing. Gemini CLI and Qwen Code read their
//! settings through `strip-json-comments` before `JSON.parse`, so there `//` and `/* */`
//! comments are valid too ([`Syntax::Comments`]: checked by `jsonc-parser` with comments alone
//! allowed), and kept byte for byte like the rest. [`Doc::value`] is the document as the
//! hosts see it: the last of duplicate keys wins, as in `JSON.parse`, so edits go to the last
//! property of a duplicated name too.
//!
//! Layout of what is inserted: in a file written on one line (a non-empty root object with no
//! line break), capn's entries go on that line too, with the file's own separators (`:` and `,`
//! followed by a space or not); the text is spliced in right after the container's last member
//! and the file parsed again. Otherwise the tree inserts them in the file's indentation and line
//! ends. Known limit there: a nested object written on one line that gets a property (`"hooks":
//! {"PreToolUse": [...]}`) is spread over lines, and a one-line array that gets a group is broken
//! into one element per line (each element's text unchanged). The install record keeps the
//! file's bytes from before `init`, so `uninstall` still gives back the same bytes.

use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstObjectProp, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::{Map, Value};

const BOM: &str = "\u{feff}";

/// Which JSON a host reads in a settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// Strict JSON (RFC 8259): Claude Code, Codex.
    Strict,
    /// Strict JSON plus `//` and `/* */` comments (`strip-json-comments`, then `JSON.parse`):
    /// Gemini CLI, Qwen Code. No trailing commas, no other JSON5.
    Comments,
}

impl Syntax {
    /// The `jsonc-parser` options that accept exactly this syntax.
    fn options(self) -> ParseOptions {
        ParseOptions {
            allow_comments: self == Syntax::Comments,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        }
    }

    /// `text` (without BOM) as the host reads it, when within [`crate::jsonbound::SETTINGS`]
    /// (checked first: a parse of nested brackets costs far more memory than their bytes).
    ///
    /// Errors: the reason it does not parse, or the bound it is beyond.
    pub(crate) fn read(self, text: &str) -> Result<Value, String> {
        let bounds = crate::jsonbound::Bounds {
            comments: self == Syntax::Comments,
            ..crate::jsonbound::SETTINGS
        };
        if let Some(why) = crate::jsonbound::beyond(text.as_bytes(), bounds) {
            return Err(format!(
                "{why}, far more than a settings file holds, so it is not read"
            ));
        }
        match self {
            Syntax::Strict => serde_json::from_str::<Value>(text).map_err(|e| e.to_string()),
            Syntax::Comments => {
                jsonc_parser::parse_to_serde_value::<Option<Value>>(text, &self.options())
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| "no JSON value".to_string())
            }
        }
    }
}

/// A settings document being edited.
pub(crate) struct Doc {
    /// What the host reads.
    syntax: Syntax,
    /// A UTF-8 BOM precedes the JSON text.
    bom: bool,
    /// The tree; `None` for an empty (or whitespace-only) file until the first edit.
    root: Option<CstRootNode>,
    /// The text of an empty file (kept while nothing is added).
    blank: String,
}

impl std::fmt::Debug for Doc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Doc").field("text", &self.text()).finish()
    }
}

/// A settings file's bytes as text: whether it starts with a UTF-8 BOM, and the text after it.
///
/// Errors: not UTF-8 (the reason, without the path).
pub(crate) fn text_of(bytes: &[u8]) -> Result<(bool, &str), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    Ok(match text.strip_prefix(BOM) {
        Some(t) => (true, t),
        None => (false, text),
    })
}

impl Doc {
    /// Parses a settings file's bytes as strict JSON ([`Doc::parse_as`]).
    ///
    /// Errors: as [`Doc::parse_as`].
    pub(crate) fn parse(bytes: &[u8]) -> Result<Doc, String> {
        Self::parse_as(bytes, Syntax::Strict)
    }

    /// Parses a settings file's bytes, read as `syntax`. An empty or whitespace-only file is
    /// an empty object.
    ///
    /// Errors (a reason without the path): not UTF-8, not JSON of that syntax (trailing commas
    /// always, comments in strict JSON), not an object.
    pub(crate) fn parse_as(bytes: &[u8], syntax: Syntax) -> Result<Doc, String> {
        let (bom, text) = text_of(bytes)?;
        if text.trim().is_empty() {
            return Ok(Doc {
                syntax,
                bom,
                root: None,
                blank: text.to_string(),
            });
        }
        match syntax.read(text) {
            Ok(Value::Object(_)) => {}
            Ok(_) => return Err("not a JSON object".into()),
            Err(e) => return Err(e),
        }
        let root = CstRootNode::parse(text, &syntax.options()).map_err(|e| e.to_string())?;
        Ok(Doc {
            syntax,
            bom,
            root: Some(root),
            blank: String::new(),
        })
    }

    /// The document's text as it is now (with its BOM, if it had one).
    pub(crate) fn text(&self) -> String {
        let body = match &self.root {
            Some(r) => r.to_string(),
            None => self.blank.clone(),
        };
        if self.bom {
            format!("{BOM}{body}")
        } else {
            body
        }
    }

    /// The document as the hosts read it (the last of duplicate keys wins).
    pub(crate) fn value(&self) -> Map<String, Value> {
        let text = self.text();
        match self.syntax.read(text.strip_prefix(BOM).unwrap_or(&text)) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    fn root_object(&mut self) -> CstObject {
        let root = self.root.get_or_insert_with(|| {
            // An empty file becomes `{}` plus what is added, with a final newline.
            CstRootNode::parse("{}\n", &Syntax::Strict.options()).expect("valid JSON")
        });
        root.object_value_or_set()
    }

    /// Removes the handler at `hooks[event][group][handler]` (indices as in [`Doc::value`]),
    /// then the group, the event and `hooks` if this removal left them empty. Returns whether
    /// it was there.
    pub(crate) fn remove_handler(&mut self, event: &str, group: usize, handler: usize) -> bool {
        let Some((hooks, event_prop, groups)) = self.event_array(event) else {
            return false;
        };
        let Some(group_obj) = groups.elements().get(group).and_then(CstNode::as_object) else {
            return false;
        };
        let Some(list) = last_prop(&group_obj, "hooks").and_then(|p| p.array_value()) else {
            return false;
        };
        let Some(node) = list.elements().get(handler).cloned() else {
            return false;
        };
        node.remove();
        if !list.elements().is_empty() {
            return true;
        }
        groups.elements()[group].clone().remove();
        if !groups.elements().is_empty() {
            return true;
        }
        event_prop.remove();
        if hooks.properties().is_empty() {
            if let Some(p) = self.top_prop("hooks") {
                p.remove();
            }
        }
        true
    }

    /// Removes the key `key` (the last of duplicates) from the group `hooks[event][group]`,
    /// touching nothing else. Returns whether it was there.
    pub(crate) fn remove_group_key(&mut self, event: &str, group: usize, key: &str) -> bool {
        self.group_prop(event, group, key)
            .map(|prop| prop.remove())
            .is_some()
    }

    /// The key `key` (the last of duplicates) of the group `hooks[event][group]`, if there.
    fn group_prop(&self, event: &str, group: usize, key: &str) -> Option<CstObjectProp> {
        let (_, _, groups) = self.event_array(event)?;
        let group_obj = groups.elements().get(group).and_then(CstNode::as_object)?;
        last_prop(&group_obj, key)
    }

    /// Sets the key `key` (the last of duplicates) of the group `hooks[event][group]` to the
    /// string `value`, touching nothing else. Returns whether the key was there (a missing key
    /// is not added).
    pub(crate) fn set_group_string(
        &mut self,
        event: &str,
        group: usize,
        key: &str,
        value: &str,
    ) -> bool {
        match self.group_prop(event, group, key) {
            Some(prop) => {
                prop.set_value(CstInputValue::String(value.to_string()));
                true
            }
            None => false,
        }
    }

    /// Appends a matcher group to `hooks[event]`, creating the event and `hooks` when absent.
    pub(crate) fn append_group(&mut self, event: &str, group: &Value) {
        if let Some(style) = self.one_line_style() {
            return self.append_group_one_line(event, group, style);
        }
        let root = self.root_object();
        let hooks = match last_prop(&root, "hooks") {
            Some(p) => p.object_value_or_set(),
            None => root
                .append("hooks", CstInputValue::Object(Vec::new()))
                .object_value_or_set(),
        };
        let groups = match last_prop(&hooks, event) {
            Some(p) => p.array_value_or_set(),
            None => hooks
                .append(event, CstInputValue::Array(Vec::new()))
                .array_value_or_set(),
        };
        if !groups.elements().is_empty() {
            // A one-line array gets one element per line (each element's own text unchanged),
            // rather than a multi-line object glued after `[{...},`.
            groups.ensure_multiline();
        }
        groups.append(input(group));
    }

    /// Inserts `handler` into the group at `hooks[event][group]` at `index` (clamped), or, when
    /// that group is not there, a new group `new_group` at index `group` (clamped; the event
    /// and `hooks` created when absent).
    pub(crate) fn insert_handler(
        &mut self,
        event: &str,
        group: usize,
        index: usize,
        handler: &Value,
        new_group: &Value,
    ) {
        let view = self.value();
        let same_matcher = view
            .get("hooks")
            .and_then(|h| h.get(event))
            .and_then(|groups| groups.get(group))
            .is_some_and(|g| g.get("matcher") == new_group.get("matcher"));
        if let Some((_, _, groups)) = self.event_array(event) {
            let elements = groups.elements();
            if let Some(style) = self.one_line_style() {
                let same = elements.get(group).filter(|_| same_matcher).cloned();
                let list = same
                    .as_ref()
                    .and_then(CstNode::as_object)
                    .and_then(|g| last_prop(&g, "hooks")?.array_value());
                let (list, at, v) = match list {
                    Some(l) => (l.clone(), index, handler),
                    None => (groups.clone(), group, new_group),
                };
                let items = list.elements();
                match items.get(at) {
                    Some(before) => {
                        let piece = format!("{}{}", style.render(v), style.comma());
                        self.splice(offset(before), 0, &piece);
                    }
                    None => self.add_member(&list.into(), items.last(), style.render(v), style),
                }
                return;
            }
            let same = elements
                .get(group)
                .and_then(CstNode::as_object)
                .filter(|_| same_matcher);
            if let Some(list) = same.and_then(|g| last_prop(&g, "hooks")?.array_value()) {
                let at = index.min(list.elements().len());
                list.insert(at, input(handler));
                return;
            }
            groups.insert(group.min(elements.len()), input(new_group));
            return;
        }
        self.append_group(event, new_group);
    }

    /// Sets the top-level `key` to `value` (replacing the value in place, or appending the
    /// property), or removes it for `None`.
    pub(crate) fn set_top(&mut self, key: &str, value: Option<&Value>) {
        if let (Some(style), Some(v)) = (self.one_line_style(), value) {
            let root = self.root_object();
            match last_prop(&root, key) {
                Some(p) => self.replace_value(&p, v, style),
                None => self.add_prop(&root, key, v, style),
            }
            return;
        }
        let root = self.root_object();
        match (last_prop(&root, key), value) {
            (Some(p), Some(v)) => p.set_value(input(v)),
            (Some(p), None) => p.remove(),
            (None, Some(v)) => {
                root.append(key, input(v));
            }
            (None, None) => {}
        }
    }

    /// Sets `field` inside the top-level object `key` (which must exist as an object), in place
    /// or appended.
    pub(crate) fn set_in_top(&mut self, key: &str, field: &str, value: &Value) {
        let Some(obj) = self.top_prop(key).and_then(|p| p.object_value()) else {
            return;
        };
        if let Some(style) = self.one_line_style() {
            match last_prop(&obj, field) {
                Some(p) => self.replace_value(&p, value, style),
                None => self.add_prop(&obj, field, value, style),
            }
            return;
        }
        match last_prop(&obj, field) {
            Some(p) => p.set_value(input(value)),
            None => {
                obj.append(field, input(value));
            }
        }
    }

    /// Appends the string `value` to the array `key.field` (a top-level object holding an
    /// array, as Claude Code's `permissions.allow`), creating the object or the array when
    /// absent. Does nothing when `key` or `key.field` holds another type.
    pub(crate) fn append_to_top_array(&mut self, key: &str, field: &str, value: &Value) {
        let view = self.value();
        match view.get(key) {
            None => {
                let v = serde_json::json!({ field: [value] });
                return self.set_top(key, Some(&v));
            }
            Some(Value::Object(m)) => match m.get(field) {
                None => return self.set_in_top(key, field, &Value::Array(vec![value.clone()])),
                Some(Value::Array(_)) => {}
                Some(_) => return,
            },
            Some(_) => return,
        }
        let Some(obj) = self.top_prop(key).and_then(|p| p.object_value()) else {
            return;
        };
        if let Some(array) = last_prop(&obj, field).and_then(|p| p.array_value()) {
            array.append(input(value));
        }
    }

    /// Removes the first element equal to `value` from the array `key.field`, then, with
    /// `prune`, the field and the object `key` when that left them empty. Returns whether it
    /// was there.
    pub(crate) fn remove_from_top_array(
        &mut self,
        key: &str,
        field: &str,
        value: &Value,
        prune: bool,
    ) -> bool {
        let view = self.value();
        let Some(Value::Array(items)) = view.get(key).and_then(|o| o.get(field)) else {
            return false;
        };
        let Some(index) = items.iter().position(|v| v == value) else {
            return false;
        };
        let Some(prop) = self.top_prop(key) else {
            return false;
        };
        let Some(obj) = prop.object_value() else {
            return false;
        };
        let Some(field_prop) = last_prop(&obj, field) else {
            return false;
        };
        let Some(array) = field_prop.array_value() else {
            return false;
        };
        let Some(node) = array.elements().get(index).cloned() else {
            return false;
        };
        node.remove();
        if prune && array.elements().is_empty() {
            field_prop.remove();
            if obj.properties().is_empty() {
                prop.remove();
            }
        }
        true
    }

    /// The separators of a document written on one line (a non-empty root object whose text
    /// holds no line break): capn's entries then go on that line too. `None` otherwise.
    fn one_line_style(&self) -> Option<OneLine> {
        let root = self.root.as_ref()?;
        let obj = root.object_value()?;
        let text = CstNode::from(obj.clone()).to_string();
        if text.contains('\n') || obj.properties().is_empty() {
            return None;
        }
        Some(OneLine {
            colon_space: text.contains("\": "),
            comma_space: text.contains(", "),
        })
    }

    /// `hooks[event]` gets `group` on a one-line document (see [`Doc::one_line_style`]).
    fn append_group_one_line(&mut self, event: &str, group: &Value, style: OneLine) {
        let root = self.root_object();
        let Some(hooks) = last_prop(&root, "hooks").and_then(|p| p.object_value()) else {
            let v = serde_json::json!({ event: [group] });
            return self.add_prop(&root, "hooks", &v, style);
        };
        match last_prop(&hooks, event).and_then(|p| p.array_value()) {
            Some(groups) => {
                let last = groups.elements().last().cloned();
                self.add_member(&groups.into(), last.as_ref(), style.render(group), style)
            }
            None => self.add_prop(&hooks, event, &Value::Array(vec![group.clone()]), style),
        }
    }

    /// Adds `"key": value` to `obj` on its line.
    fn add_prop(&mut self, obj: &CstObject, key: &str, value: &Value, style: OneLine) {
        let member = format!(
            "{}:{}{}",
            Value::from(key),
            if style.colon_space { " " } else { "" },
            style.render(value)
        );
        let last = obj.properties().last().cloned().map(CstNode::from);
        self.add_member(&obj.clone().into(), last.as_ref(), member, style);
    }

    /// Adds a member's text after `last` (or right after the opening bracket of `container`).
    fn add_member(
        &mut self,
        container: &CstNode,
        last: Option<&CstNode>,
        member: String,
        style: OneLine,
    ) {
        match last {
            Some(l) => {
                let at = offset(l) + l.to_string().len();
                self.splice(at, 0, &format!("{}{member}", style.comma()));
            }
            None => self.splice(offset(container) + 1, 0, &member),
        }
    }

    /// Replaces the value of `prop` by `value`, on its line.
    fn replace_value(&mut self, prop: &CstObjectProp, value: &Value, style: OneLine) {
        if let Some(v) = prop.value() {
            let len = v.to_string().len();
            self.splice(offset(&v), len, &style.render(value));
        }
    }

    /// Replaces `remove` bytes at byte `at` of the text (without BOM) by `piece` and parses the
    /// result again (it is valid JSON: a member inserted where members go).
    fn splice(&mut self, at: usize, remove: usize, piece: &str) {
        let Some(root) = &self.root else { return };
        let mut text = root.to_string();
        text.replace_range(at..at + remove, piece);
        if let Ok(r) = CstRootNode::parse(&text, &self.syntax.options()) {
            self.root = Some(r);
        }
    }

    fn top_prop(&self, key: &str) -> Option<CstObjectProp> {
        last_prop(&self.root.as_ref()?.object_value()?, key)
    }

    fn event_array(&self, event: &str) -> Option<(CstObject, CstObjectProp, CstArray)> {
        let hooks = self.top_prop("hooks")?.object_value()?;
        let prop = last_prop(&hooks, event)?;
        let arr = prop.array_value()?;
        Some((hooks, prop, arr))
    }
}

/// The separators of a one-line document: whether `:` and `,` are followed by a space.
#[derive(Debug, Clone, Copy)]
struct OneLine {
    colon_space: bool,
    comma_space: bool,
}

impl OneLine {
    fn comma(self) -> &'static str {
        if self.comma_space {
            ", "
        } else {
            ","
        }
    }

    /// `v` as JSON text on one line with these separators.
    fn render(self, v: &Value) -> String {
        match v {
            Value::Array(a) => {
                let items: Vec<String> = a.iter().map(|x| self.render(x)).collect();
                format!("[{}]", items.join(self.comma()))
            }
            Value::Object(o) => {
                let colon = if self.colon_space { ": " } else { ":" };
                let items: Vec<String> = o
                    .iter()
                    .map(|(k, x)| format!("{}{colon}{}", Value::from(k.as_str()), self.render(x)))
                    .collect();
                format!("{{{}}}", items.join(self.comma()))
            }
            other => other.to_string(),
        }
    }
}

/// The byte offset of `node` in the document's text (without BOM): the lengths of everything
/// before it, up through its ancestors.
fn offset(node: &CstNode) -> usize {
    let mut at = 0;
    let mut cur = node.clone();
    loop {
        at += cur
            .previous_siblings()
            .map(|s| s.to_string().len())
            .sum::<usize>();
        match cur.parent() {
            Some(p) => cur = CstNode::from(p),
            None => return at,
        }
    }
}

/// The last property named `name` (the one a JSON reader keeps).
fn last_prop(obj: &CstObject, name: &str) -> Option<CstObjectProp> {
    obj.properties()
        .into_iter()
        .rev()
        .find(|p| p.name().and_then(|n| n.decoded_value().ok()).as_deref() == Some(name))
}

/// A JSON value as the tree's input (numbers keep their text).
fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn group() -> Value {
        json!({"matcher":"startup","hooks":[{"type":"command","command":"capn","args":["hook","session-start"],"timeout":10}]})
    }

    #[test]
    fn append_then_remove_gives_back_the_same_text() {
        for text in [
            "{\n  \"model\": \"x\"\n}\n",
            "{\r\n    \"model\": \"x\",\r\n    \"hooks\": {\r\n        \"Stop\": []\r\n    }\r\n}\r\n",
            "{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\"hooks\": [{\"command\": \"x\"}]}\n\t\t]\n\t}\n}\n",
            "\u{feff}{\n  \"a\": 1e2,\n  \"b\": 12345678901234567890123,\n  \"s\": null\n}",
            "{}",
        ] {
            let mut d = Doc::parse(text.as_bytes()).unwrap();
            d.append_group("SessionStart", &group());
            let v = d.value();
            let groups = v["hooks"]["SessionStart"].as_array().unwrap();
            assert_eq!(groups.last().unwrap(), &group());
            let added = d.text();
            if text.contains("\r\n") {
                assert!(!added.replace("\r\n", "").contains('\n'), "{added:?}");
            }
            assert!(d.remove_handler("SessionStart", groups.len() - 1, 0));
            assert_eq!(d.text(), text);
        }
    }

    #[test]
    fn a_group_key_is_removed_in_place() {
        for (before, after) in [
            (
                r#"{"hooks":{"SessionStart":[{"matcher":"a|b","hooks":[]}]}}"#,
                r#"{"hooks":{"SessionStart":[{"hooks":[]}]}}"#,
            ),
            (
                "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"a\",\n        \"hooks\": []\n      }\n    ]\n  }\n}\n",
                "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": []\n      }\n    ]\n  }\n}\n",
            ),
        ] {
            let mut d = Doc::parse(before.as_bytes()).unwrap();
            assert!(d.remove_group_key("SessionStart", 0, "matcher"));
            assert_eq!(d.text(), after);
            assert!(!d.remove_group_key("SessionStart", 0, "matcher"));
        }
    }

    #[test]
    fn a_one_line_document_stays_on_one_line() {
        for (text, want) in [
            (
                "{\"model\":\"opus\"}",
                "{\"model\":\"opus\",\"hooks\":{\"SessionStart\":[{\"matcher\":\"startup\",\"hooks\":[{\"type\":\"command\",\"command\":\"capn\",\"args\":[\"hook\",\"session-start\"],\"timeout\":10}]}]}}",
            ),
            (
                "{ \"model\": \"opus\", \"n\": 1e2 }\n",
                "{ \"model\": \"opus\", \"n\": 1e2, \"hooks\": {\"SessionStart\": [{\"matcher\": \"startup\", \"hooks\": [{\"type\": \"command\", \"command\": \"capn\", \"args\": [\"hook\", \"session-start\"], \"timeout\": 10}]}]} }\n",
            ),
        ] {
            let mut d = Doc::parse(text.as_bytes()).unwrap();
            d.append_group("SessionStart", &group());
            assert_eq!(d.text(), want);
            d.append_group("SessionStart", &json!({"hooks": []}));
            d.append_group("Stop", &json!({"hooks": []}));
            d.set_top("statusLine", Some(&json!({"command": "capn statusline"})));
            d.set_in_top("statusLine", "command", &json!("capn statusline --wrap 'x'"));
            d.set_in_top("statusLine", "padding", &json!(0));
            let after = d.text();
            assert_eq!(after.trim_end().lines().count(), 1, "{after}");
            let v = d.value();
            assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
            assert_eq!(v["statusLine"]["command"], "capn statusline --wrap 'x'");
            assert_eq!(v["statusLine"]["padding"], 0);
            d.set_top("statusLine", None);
            d.remove_handler("SessionStart", 0, 0);
            let v = d.value();
            let groups = v["hooks"]["SessionStart"].as_array().unwrap().len();
            assert_eq!(groups, 1);
        }
        // Removal on one line gives the text back.
        let text = "{\"model\":\"opus\"}";
        let mut d = Doc::parse(text.as_bytes()).unwrap();
        d.append_group("SessionStart", &group());
        assert!(d.remove_handler("SessionStart", 0, 0));
        assert_eq!(d.text(), text);
    }

    #[test]
    fn a_one_line_event_array_gets_one_group_per_line() {
        let text = "{\n  \"hooks\": {\n    \"SessionStart\": [{\"hooks\": [{\"command\": \"x\"}]}]\n  }\n}\n";
        let mut d = Doc::parse(text.as_bytes()).unwrap();
        d.append_group("SessionStart", &json!({"hooks": [{"command": "capn"}]}));
        assert_eq!(
            d.text(),
            "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"hooks\": [{\"command\": \"x\"}]},\n      {\n        \"hooks\": [\n          {\n            \"command\": \"capn\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"
        );
    }

    #[test]
    fn edits_go_to_the_last_of_duplicate_keys_and_keep_the_others() {
        let text = "{\"hooks\": {}, \"x\": 1, \"hooks\": {\"Stop\": [{\"hooks\": [{\"command\": \"a\"}, {\"command\": \"b\"}]}]}}";
        let mut d = Doc::parse(text.as_bytes()).unwrap();
        assert!(d.remove_handler("Stop", 0, 1));
        assert_eq!(
            d.text(),
            "{\"hooks\": {}, \"x\": 1, \"hooks\": {\"Stop\": [{\"hooks\": [{\"command\": \"a\"}]}]}}"
        );
    }

    #[test]
    fn comments_parse_where_the_host_strips_them_and_stay_byte_for_byte() {
        let text =
            "// Gemini settings\n{\n  /* theme */ \"theme\": \"dark\", // mine\n  \"x\": 1\n}\n";
        assert!(
            Doc::parse(text.as_bytes()).is_err(),
            "strict JSON has no comments"
        );
        let mut doc = Doc::parse_as(text.as_bytes(), Syntax::Comments).unwrap();
        assert_eq!(doc.value()["theme"], "dark");
        doc.append_group("SessionStart", &group());
        assert_eq!(doc.value()["hooks"]["SessionStart"][0], group());
        for kept in ["// Gemini settings\n", "/* theme */ ", "// mine\n"] {
            assert!(doc.text().contains(kept), "{kept:?} lost: {}", doc.text());
        }
        assert!(doc.remove_handler("SessionStart", 0, 0));
        assert_eq!(doc.text(), text);
        // Comments alone: a trailing comma is still refused.
        assert!(Doc::parse_as(b"{\"a\": 1,}", Syntax::Comments).is_err());
    }

    #[test]
    fn refuses_what_is_not_strict_json_objects() {
        assert!(Doc::parse(b"{\"a\": 1,}").is_err());
        assert!(Doc::parse(b"// c\n{}").is_err());
        assert!(Doc::parse(b"[]").is_err());
        assert!(Doc::parse(b"\xff{}").is_err());
        let mut blank = Doc::parse(b"  \n").unwrap();
        assert_eq!(blank.text(), "  \n");
        blank.set_top("statusLine", Some(&json!({"command": "capn statusline"})));
        assert!(blank.text().starts_with("{\n  \"statusLine\""));
    }
}
