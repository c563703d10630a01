//! The Codex output schemas through the library's checker (`capn_hook::schema`, with the
//! schemas the host tables embed, `capn_hook::codex_output_schemas`), which `capn doctor` uses
//! too. `hooks.rs` validates hook replies with [`load`] and [`validate`].

use capn_hook::events::HookEvent;
use capn_hook::schema::Schema;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/codex-schemas")
}

/// Loads `assets/codex-schemas/<name>`; panics (naming the file) when it
/// cannot be read or uses a keyword the checker does not support.
pub(crate) fn load(name: &str) -> Schema {
    let p = dir().join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Schema::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every violation of `schema` by `v` (empty when valid).
pub(crate) fn validate(schema: &Schema, v: &Value) -> Vec<String> {
    schema.validate(v)
}

/// Every schema file of the fixture set (input and output, variants too) uses only keywords
/// the checker supports, so none can be half-checked.
#[test]
fn every_fixture_schema_is_in_the_supported_subset() {
    let mut n = 0;
    let mut stack = vec![dir()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                load(p.strip_prefix(dir()).unwrap().to_str().unwrap());
                n += 1;
            }
        }
    }
    assert_eq!(n, 16, "the schema set changed");
}

/// The copies `capn doctor` embeds are the fixture files, byte for byte: for every event, each
/// schema `codex_output_schemas` returns, the 658d027 variant of SessionStart included.
#[test]
fn embedded_schemas_are_the_fixture_files() {
    let mut compared = Vec::new();
    for event in HookEvent::ALL {
        let embedded = capn_hook::codex_output_schemas(event.name());
        assert!(!embedded.is_empty(), "{event}: no schema embedded");
        for (name, text) in embedded {
            let stem = format!("{}.command.output", event.subcommand());
            let file = match name.strip_prefix(&stem) {
                Some("") => format!("{stem}.schema.json"),
                Some(" (658d027)") => format!("variants/658d027/{stem}.schema.json"),
                _ => panic!("{event}: unexpected schema name {name:?}"),
            };
            let on_disk = std::fs::read_to_string(dir().join(&file)).unwrap();
            assert_eq!(text, on_disk, "{file}");
            compared.push(file);
        }
    }
    assert_eq!(compared.len(), HookEvent::ALL.len() + 1, "{compared:?}");
    assert!(
        compared.contains(&"variants/658d027/session-start.command.output.schema.json".into()),
        "{compared:?}"
    );
}

#[test]
fn checker_rejects_what_codex_rejects() {
    let s = load("session-start.command.output.schema.json");
    let good =
        json!({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}});
    assert!(validate(&s, &good).is_empty());
    for bad in [
        json!({"hookSpecificOutput":{"hookEventName":"SessionStart","sessionTitle":"x"}}),
        json!({"hookSpecificOutput":{"hookEventName":"UserPromptSubmit"}}),
        json!({"hookSpecificOutput":{"additionalContext":"x"}}),
        json!({"extra":1}),
    ] {
        assert!(!validate(&s, &bad).is_empty(), "{bad} should fail");
    }
    let u = load("user-prompt-submit.command.output.schema.json");
    assert!(!validate(&u, &json!({"decision":"block"})).is_empty());
    assert!(validate(&u, &json!({"decision":"block","reason":"r"})).is_empty());
    // The 658d027 generation refuses nulls the current one accepts.
    let v = load("variants/658d027/session-start.command.output.schema.json");
    let null_ctx =
        json!({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":null}});
    assert!(validate(&s, &null_ctx).is_empty());
    assert!(!validate(&v, &null_ctx).is_empty());
}
