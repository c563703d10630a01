//! A small JSON Schema (draft 7) validator for exactly the subset the Codex hook schemas use, and
//! the Codex output schemas `capn doctor` checks hook replies against.
//!
//! Codex parses hook output strictly (its output
//! structs use `deny_unknown_fields`, the published schemas `additionalProperties: false`), so a
//! reply that does not validate is rejected whole. The schemas are the ones generated from
//! `codex-rs/hooks/schema/generated/` (see `tests/fixtures/conformance/PROVENANCE.md`); they are
//! embedded from `assets/codex-schemas/`, the repository's one copy (tests read them there too),
//! by the host tables ([`crate::hosts::codex_output_schemas`]).
//!
//! Supported keywords: `type` (one name or a list), `const`, `enum`, `properties`, `required`,
//! `additionalProperties` (boolean or schema), `anyOf`, `allOf`, `oneOf`, `if`/`then`/`else`,
//! `pattern` (Rust `regex` syntax, unanchored as in JSON Schema) and `$ref` to
//! `#/definitions/<name>`; the annotations `$schema`, `$comment`, `title`, `description`,
//! `default` and `examples` are ignored; boolean schemas (`true`, `false`) work. Anything else
//! is refused when the schema is loaded ([`Schema::new`] returns a [`SchemaError`]), so a schema
//! update that needs more cannot pass unnoticed. Siblings of `$ref` are applied too (draft 7
//! ignores them; none of the Codex schemas has any).

use regex::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Why a schema cannot be used. `at` is the keyword's location in the schema, as a JSON pointer
/// fragment (`#/properties/decision`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The schema text is not JSON.
    #[error("schema is not JSON: {0}")]
    NotJson(String),
    /// A keyword outside the supported subset (see the module docs).
    #[error("{at}: unsupported schema keyword {keyword:?}")]
    UnsupportedKeyword {
        /// Where the keyword is.
        at: String,
        /// The keyword.
        keyword: String,
    },
    /// A supported keyword with a value of the wrong shape (a `type` name that does not exist,
    /// a `$ref` outside `#/definitions/`, a `pattern` that does not compile, ...).
    #[error("{at}: bad {keyword:?}: {why}")]
    Malformed {
        /// Where the keyword is.
        at: String,
        /// The keyword.
        keyword: String,
        /// What is wrong with its value.
        why: String,
    },
}

/// A loaded schema whose every keyword is known to be supported.
#[derive(Debug, Clone)]
pub struct Schema {
    root: Value,
    patterns: HashMap<String, Regex>,
}

const TYPES: [&str; 7] = [
    "object", "array", "string", "number", "integer", "boolean", "null",
];

const ANNOTATIONS: [&str; 6] = [
    "$schema",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
];

impl Schema {
    /// Parses schema text; see [`Schema::new`].
    ///
    /// Errors: [`SchemaError::NotJson`], or any error of [`Schema::new`].
    pub fn parse(text: &str) -> Result<Schema, SchemaError> {
        let root: Value =
            serde_json::from_str(text).map_err(|e| SchemaError::NotJson(e.to_string()))?;
        Schema::new(root)
    }

    /// Checks every keyword of `root` (all of it, not only what some instance reaches) and
    /// compiles its patterns.
    ///
    /// Errors: [`SchemaError::UnsupportedKeyword`] for a keyword outside the subset,
    /// [`SchemaError::Malformed`] for a supported keyword whose value cannot be used.
    pub fn new(root: Value) -> Result<Schema, SchemaError> {
        let mut patterns = HashMap::new();
        audit(&root, &root, "#", &mut patterns)?;
        Ok(Schema { root, patterns })
    }

    /// The schema's `title`, if any.
    pub fn title(&self) -> Option<&str> {
        self.root.get("title").and_then(Value::as_str)
    }

    /// Every violation of the schema by `instance`, empty when it is valid. Each message starts
    /// with the instance location (`$`, `$.hookSpecificOutput.hookEventName`, ...).
    pub fn validate(&self, instance: &Value) -> Vec<String> {
        let mut errs = Vec::new();
        self.check(&self.root, instance, "$", &mut errs);
        errs
    }

    /// True when `instance` is valid.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validate(instance).is_empty()
    }

    /// `required`, `properties` and `additionalProperties` (keyword `k` with value `sv`, in the
    /// schema object `obj`) on the value `v`.
    fn check_object(
        &self,
        k: &str,
        sv: &Value,
        obj: &serde_json::Map<String, Value>,
        v: &Value,
        at: &str,
        errs: &mut Vec<String>,
    ) {
        let Some(o) = v.as_object() else { return };
        match k {
            "required" => {
                for r in sv
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !o.contains_key(r) {
                        errs.push(format!("{at}: the required property {r:?} is missing"));
                    }
                }
            }
            "properties" => {
                let Some(props) = sv.as_object() else { return };
                for (pk, pv) in o {
                    if let Some(ps) = props.get(pk) {
                        self.check(ps, pv, &format!("{at}.{pk}"), errs);
                    }
                }
            }
            _ => {
                let props = obj.get("properties").and_then(Value::as_object);
                for (pk, pv) in o {
                    if props.is_some_and(|p| p.contains_key(pk)) {
                        continue;
                    }
                    match sv {
                        Value::Bool(false) => errs.push(format!(
                            "{at}: the property {pk:?} is not allowed (additionalProperties: false)"
                        )),
                        other => self.check(other, pv, &format!("{at}.{pk}"), errs),
                    }
                }
            }
        }
    }

    /// `anyOf` or `oneOf` (keyword `k`, alternatives `sv`) on the value `v`.
    fn check_alternatives(&self, k: &str, sv: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
        let results: Vec<Vec<String>> = sv
            .as_array()
            .into_iter()
            .flatten()
            .map(|alt| {
                let mut e = Vec::new();
                self.check(alt, v, at, &mut e);
                e
            })
            .collect();
        let passing = results.iter().filter(|e| e.is_empty()).count();
        if passing == 0 {
            let why: Vec<String> = results.iter().filter_map(|e| e.first().cloned()).collect();
            errs.push(format!(
                "{at}: matches none of the {k} alternatives ({})",
                why.join("; or ")
            ));
        } else if k == "oneOf" && passing > 1 {
            errs.push(format!(
                "{at}: matches {passing} of the oneOf alternatives, not exactly one"
            ));
        }
    }

    fn check(&self, s: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
        let obj = match s {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                errs.push(format!("{at}: no value is allowed here"));
                return;
            }
            Value::Object(o) => o,
            _ => return, // refused by `audit`
        };
        for (k, sv) in obj {
            match k.as_str() {
                "$ref" => {
                    if let Some(target) = sv.as_str().and_then(|r| resolve(&self.root, r)) {
                        self.check(target, v, at, errs);
                    }
                }
                "type" => {
                    let ok = match sv {
                        Value::String(t) => type_ok(t, v),
                        Value::Array(ts) => {
                            ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v))
                        }
                        _ => true,
                    };
                    if !ok {
                        errs.push(format!("{at}: {} is not of type {sv}", short(v)));
                    }
                }
                "const" if v != sv => {
                    errs.push(format!("{at}: {} is not the constant {sv}", short(v)));
                }
                "enum" if !sv.as_array().is_some_and(|a| a.contains(v)) => {
                    errs.push(format!("{at}: {} is not one of {sv}", short(v)));
                }
                "pattern" => {
                    if let (Some(text), Some(re)) =
                        (v.as_str(), sv.as_str().and_then(|p| self.patterns.get(p)))
                    {
                        if !re.is_match(text) {
                            errs.push(format!(
                                "{at}: {} does not match the pattern {sv}",
                                short(v)
                            ));
                        }
                    }
                }
                "required" | "properties" | "additionalProperties" => {
                    self.check_object(k, sv, obj, v, at, errs)
                }
                "allOf" => {
                    for alt in sv.as_array().into_iter().flatten() {
                        self.check(alt, v, at, errs);
                    }
                }
                "anyOf" | "oneOf" => self.check_alternatives(k, sv, v, at, errs),
                "if" => {
                    let mut e = Vec::new();
                    self.check(sv, v, at, &mut e);
                    let branch = if e.is_empty() { "then" } else { "else" };
                    if let Some(b) = obj.get(branch) {
                        self.check(b, v, at, errs);
                    }
                }
                _ => {} // annotations, `definitions`, `then`/`else` (applied by `if`)
            }
        }
    }
}

/// The schema `#/definitions/<name>` points to, if any.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let name = reference.strip_prefix("#/definitions/")?;
    root.get("definitions")?.get(name)
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        // Draft 6 and later: a number with a zero fractional part is an integer.
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

/// A value for a message: JSON, cut to 60 characters.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 60 {
        s
    } else {
        format!("{}…", s.chars().take(59).collect::<String>())
    }
}

fn malformed(at: &str, keyword: &str, why: impl Into<String>) -> SchemaError {
    SchemaError::Malformed {
        at: at.to_string(),
        keyword: keyword.to_string(),
        why: why.into(),
    }
}

/// Checks that `s` (found at `at`) uses only supported keywords with usable values, recursing
/// into every subschema; compiles patterns into `patterns`.
fn audit(
    root: &Value,
    s: &Value,
    at: &str,
    patterns: &mut HashMap<String, Regex>,
) -> Result<(), SchemaError> {
    let obj = match s {
        Value::Bool(_) => return Ok(()),
        Value::Object(o) => o,
        _ => {
            return Err(malformed(
                at,
                "schema",
                "a schema must be an object or a boolean",
            ))
        }
    };
    for (k, sv) in obj {
        let here = format!("{at}/{k}");
        match k.as_str() {
            a if ANNOTATIONS.contains(&a) => {}
            "definitions" | "properties" => {
                let m = sv
                    .as_object()
                    .ok_or_else(|| malformed(at, k, "not an object"))?;
                audit_map(root, m, &here, patterns)?;
            }
            "$ref" | "type" | "const" | "enum" | "required" => audit_leaf(root, k, sv, at)?,
            "pattern" => {
                let p = sv
                    .as_str()
                    .ok_or_else(|| malformed(at, k, "not a string"))?;
                let re = Regex::new(p).map_err(|e| malformed(at, k, e.to_string()))?;
                patterns.insert(p.to_string(), re);
            }
            "additionalProperties" | "if" | "then" | "else" => audit(root, sv, &here, patterns)?,
            "anyOf" | "allOf" | "oneOf" => {
                let alts = sv
                    .as_array()
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| malformed(at, k, "not a non-empty array of schemas"))?;
                for (i, alt) in alts.iter().enumerate() {
                    audit(root, alt, &format!("{here}/{i}"), patterns)?;
                }
            }
            other => {
                return Err(SchemaError::UnsupportedKeyword {
                    at: at.to_string(),
                    keyword: other.to_string(),
                })
            }
        }
    }
    Ok(())
}

/// Checks the value of a keyword that holds no subschema: `$ref` (a `#/definitions/<name>` that
/// exists), `type` (known type names), `const`, `enum` (an array), `required` (property names).
fn audit_leaf(root: &Value, k: &str, sv: &Value, at: &str) -> Result<(), SchemaError> {
    match k {
        "$ref" => {
            let r = sv
                .as_str()
                .ok_or_else(|| malformed(at, k, "not a string"))?;
            if !r.starts_with("#/definitions/") {
                return Err(malformed(
                    at,
                    k,
                    format!("only #/definitions/<name> is supported, not {r:?}"),
                ));
            }
            if resolve(root, r).is_none() {
                return Err(malformed(at, k, format!("{r:?} does not exist")));
            }
        }
        "type" => {
            let names: Vec<&Value> = match sv {
                Value::String(_) => vec![sv],
                Value::Array(a) if !a.is_empty() => a.iter().collect(),
                _ => return Err(malformed(at, k, "not a type name or a list of them")),
            };
            for n in names {
                if !n.as_str().is_some_and(|n| TYPES.contains(&n)) {
                    return Err(malformed(at, k, format!("unknown type {n}")));
                }
            }
        }
        "enum" => {
            sv.as_array()
                .ok_or_else(|| malformed(at, k, "not an array"))?;
        }
        "required" => {
            let ok = sv
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string));
            if !ok {
                return Err(malformed(at, k, "not an array of property names"));
            }
        }
        _ => {} // const: any value
    }
    Ok(())
}

fn audit_map(
    root: &Value,
    m: &Map<String, Value>,
    at: &str,
    patterns: &mut HashMap<String, Regex>,
) -> Result<(), SchemaError> {
    for (name, sub) in m {
        audit(root, sub, &format!("{at}/{name}"), patterns)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::{
        codex_output_schemas, CODEX_PRE_COMPACT_OUTPUT, CODEX_SESSION_START_OUTPUT,
        CODEX_USER_PROMPT_SUBMIT_OUTPUT,
    };
    use serde_json::json;

    #[test]
    fn every_embedded_codex_schema_loads() {
        for event in crate::events::HookEvent::ALL.map(|e| e.name()) {
            let schemas = codex_output_schemas(event);
            assert!(!schemas.is_empty(), "{event}");
            for (name, text) in schemas {
                let s = Schema::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(s.title().is_some_and(|t| name.starts_with(t)), "{name}");
                // The reply capn's hooks print for the event validates.
                assert!(s.is_valid(&json!({})), "{name}");
            }
        }
        assert!(codex_output_schemas("SessionEnd").is_empty());
        // Stop: capn's block validates; a block without a reason, or a blank one, does not.
        let (_, stop) = &codex_output_schemas("Stop")[0];
        let stop = Schema::parse(stop).unwrap();
        let block: serde_json::Value =
            serde_json::from_str(&crate::hook::block("chart it")).unwrap();
        assert!(stop.is_valid(&block));
        assert!(!stop.is_valid(&json!({"decision": "block"})));
        assert!(!stop.is_valid(&json!({"decision": "block", "reason": " "})));
        assert!(!stop.is_valid(&json!({"decision": "block", "reason": "x", "extra": 1})));
    }

    #[test]
    fn unsupported_or_malformed_keywords_are_errors_not_panics() {
        let e = Schema::new(json!({"properties": {"a": {"minLength": 1}}})).unwrap_err();
        assert_eq!(
            e,
            SchemaError::UnsupportedKeyword {
                at: "#/properties/a".into(),
                keyword: "minLength".into()
            }
        );
        assert!(e.to_string().contains("minLength"));
        for bad in [
            json!({"type": "float"}),
            json!({"$ref": "#/definitions/Nope"}),
            json!({"$ref": "other.json#/x"}),
            json!({"pattern": "("}),
            json!({"anyOf": []}),
            json!({"required": [1]}),
            json!({"properties": []}),
            json!(5),
        ] {
            assert!(
                matches!(Schema::new(bad.clone()), Err(SchemaError::Malformed { .. })),
                "{bad}"
            );
        }
        // A keyword is refused even where no instance would reach it.
        assert!(Schema::new(json!({"if": false, "then": {"maxLength": 3}})).is_err());
        assert!(matches!(Schema::parse("{"), Err(SchemaError::NotJson(_))));
    }

    #[test]
    fn validates_the_subset() {
        let s = Schema::new(json!({
            "type": "object",
            "additionalProperties": false,
            "definitions": {"Name": {"type": "string", "pattern": ".*\\S.*"}},
            "properties": {
                "name": {"$ref": "#/definitions/Name"},
                "kind": {"enum": ["a", "b"]},
                "n": {"type": ["integer", "null"]},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "one": {"oneOf": [{"type": "string"}, {"const": "x"}]}
            },
            "required": ["name"],
            "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            "then": {"required": ["n"]},
            "else": {"properties": {"n": {"type": "null"}}}
        }))
        .unwrap();
        assert!(s.is_valid(&json!({"name": "x", "kind": "a", "n": 3})));
        assert!(s.is_valid(&json!({"name": "x", "n": 2.0, "kind": "a"})));
        assert!(s.is_valid(&json!({"name": "x", "tags": {"a": "b"}, "one": "y"})));
        let cases = [
            (json!({"name": " "}), "pattern"),
            (json!({}), "required property \"name\""),
            (json!({"name": "x", "kind": "c"}), "not one of"),
            (json!({"name": "x", "kind": "a"}), "required property \"n\""),
            (
                json!({"name": "x", "kind": "b", "n": 1}),
                "not of type \"null\"",
            ),
            (json!({"name": "x", "extra": 1}), "\"extra\" is not allowed"),
            (json!({"name": "x", "tags": {"a": 1}}), "$.tags.a"),
            (json!({"name": "x", "one": "x"}), "not exactly one"),
            (json!({"name": "x", "n": 1.5, "kind": "a"}), "not of type"),
            (json!([]), "not of type \"object\""),
        ];
        for (v, want) in cases {
            let errs = s.validate(&v);
            assert!(errs.iter().any(|e| e.contains(want)), "{v}: {errs:?}");
        }
        assert!(!Schema::new(json!(false)).unwrap().is_valid(&json!(1)));
        assert!(Schema::new(json!(true)).unwrap().is_valid(&json!(1)));
    }

    #[test]
    fn codex_rejects_claude_only_keys_and_wrong_events() {
        let ss = Schema::parse(CODEX_SESSION_START_OUTPUT).unwrap();
        let good =
            json!({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}});
        assert!(ss.is_valid(&good));
        let errs = ss.validate(
            &json!({"hookSpecificOutput":{"hookEventName":"SessionStart","sessionTitle":"t"}}),
        );
        assert!(errs.iter().any(|e| e.contains("sessionTitle")), "{errs:?}");
        let errs = ss.validate(&json!({"hookSpecificOutput":{"hookEventName":"UserPromptSubmit"}}));
        assert!(errs.iter().any(|e| e.contains("SessionStart")), "{errs:?}");
        let pre = Schema::parse(CODEX_PRE_COMPACT_OUTPUT).unwrap();
        assert!(!pre.is_valid(&json!({"hookSpecificOutput":{"hookEventName":"PreCompact"}})));
        let ups = Schema::parse(CODEX_USER_PROMPT_SUBMIT_OUTPUT).unwrap();
        assert!(!ups.is_valid(&json!({"decision":"block"})));
        assert!(!ups.is_valid(&json!({"decision":"block","reason":"  "})));
        assert!(ups.is_valid(&json!({"decision":"block","reason":"r"})));
    }
}
