//! A small JSON Schema (draft 7) checker for the Codex hook output schemas: the subset those
//! schemas use (`type`, `const`, `enum`, `properties`, `required`, `additionalProperties`,
//! `anyOf`, `allOf`, `if`/`then`, `pattern` as "non-blank", `$ref` into `definitions`).
//! An unknown keyword fails loudly, so a schema update cannot pass unnoticed.

use serde_json::Value;
use std::path::Path;

/// Loads a schema from `tests/fixtures/conformance/codex-schemas/<name>`.
pub fn load(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/conformance/codex-schemas")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// Every violation of `schema` by `v` (empty when valid).
pub fn validate(root: &Value, v: &Value) -> Vec<String> {
    let mut errs = Vec::new();
    check(root, root, v, "$", &mut errs);
    errs
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "array" => v.is_array(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        other => panic!("unsupported type {other}"),
    }
}

fn check(root: &Value, s: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let Some(obj) = s.as_object() else {
        return;
    };
    for (k, sv) in obj {
        match k.as_str() {
            "$schema" | "title" | "description" | "default" | "definitions" => {}
            "$ref" => {
                let name = sv.as_str().unwrap().strip_prefix("#/definitions/").unwrap();
                check(root, &root["definitions"][name], v, at, errs);
            }
            "type" => {
                let ok = match sv {
                    Value::String(t) => type_ok(t, v),
                    Value::Array(ts) => ts.iter().any(|t| type_ok(t.as_str().unwrap(), v)),
                    _ => panic!("bad type keyword"),
                };
                if !ok {
                    errs.push(format!("{at}: {v} is not of type {sv}"));
                }
            }
            "const" => {
                if v != sv {
                    errs.push(format!("{at}: {v} != const {sv}"));
                }
            }
            "enum" => {
                if !sv.as_array().unwrap().contains(v) {
                    errs.push(format!("{at}: {v} not in {sv}"));
                }
            }
            "pattern" => {
                assert_eq!(sv, ".*\\S.*", "only the non-blank pattern is supported");
                if v.as_str().is_some_and(|s| s.trim().is_empty()) {
                    errs.push(format!("{at}: blank string"));
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for r in sv.as_array().unwrap() {
                        if !o.contains_key(r.as_str().unwrap()) {
                            errs.push(format!("{at}: missing required {r}"));
                        }
                    }
                }
            }
            "properties" => {
                if let Some(o) = v.as_object() {
                    for (pk, pv) in o {
                        if let Some(ps) = sv.get(pk) {
                            check(root, ps, pv, &format!("{at}.{pk}"), errs);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let props = s.get("properties").and_then(Value::as_object);
                    for (pk, pv) in o {
                        if props.is_some_and(|p| p.contains_key(pk)) {
                            continue;
                        }
                        match sv {
                            Value::Bool(false) => {
                                errs.push(format!("{at}: additional property {pk:?}"))
                            }
                            Value::Bool(true) => {}
                            schema => check(root, schema, pv, &format!("{at}.{pk}"), errs),
                        }
                    }
                }
            }
            "anyOf" => {
                let any = sv.as_array().unwrap().iter().any(|alt| {
                    let mut e = Vec::new();
                    check(root, alt, v, at, &mut e);
                    e.is_empty()
                });
                if !any {
                    errs.push(format!("{at}: matches no anyOf alternative"));
                }
            }
            "allOf" => {
                for alt in sv.as_array().unwrap() {
                    check(root, alt, v, at, errs);
                }
            }
            "if" => {
                let mut e = Vec::new();
                check(root, sv, v, at, &mut e);
                if e.is_empty() {
                    if let Some(then) = s.get("then") {
                        check(root, then, v, at, errs);
                    }
                }
            }
            "then" | "else" => {}
            other => panic!("unsupported schema keyword {other}"),
        }
    }
}

#[test]
fn checker_rejects_what_codex_rejects() {
    let s = load("session-start.command.output.schema.json");
    let good = serde_json::json!({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}});
    assert!(validate(&s, &good).is_empty());
    for bad in [
        serde_json::json!({"hookSpecificOutput":{"hookEventName":"SessionStart","sessionTitle":"x"}}),
        serde_json::json!({"hookSpecificOutput":{"hookEventName":"UserPromptSubmit"}}),
        serde_json::json!({"hookSpecificOutput":{"additionalContext":"x"}}),
        serde_json::json!({"extra":1}),
    ] {
        assert!(!validate(&s, &bad).is_empty(), "{bad} should fail");
    }
    let u = load("user-prompt-submit.command.output.schema.json");
    assert!(!validate(&u, &serde_json::json!({"decision":"block"})).is_empty());
    assert!(validate(&u, &serde_json::json!({"decision":"block","reason":"r"})).is_empty());
}
