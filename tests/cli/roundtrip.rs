//! Install like a guest: `init` then `uninstall` gives back every settings file byte for byte,
//! and a second `init` changes nothing (fixtures in `tests/fixtures/settings/`, see its README).

use crate::util::Env;
use std::path::PathBuf;

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/settings");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn target(name: &str) -> &'static str {
    if name.starts_with("codex-") {
        ".codex/hooks.json"
    } else {
        ".claude/settings.json"
    }
}

fn lines(b: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(b)
        .split('\n')
        .map(|l| l.trim_end_matches(['\r', ',']).to_string())
        .collect()
}

/// True when every line of `a` appears in `b` in order (a trailing comma aside): `b` only adds.
fn only_adds(a: &[u8], b: &[u8]) -> bool {
    let b = lines(b);
    let mut it = b.iter();
    lines(a).iter().all(|l| it.any(|x| x == l))
}

#[test]
fn init_then_uninstall_gives_back_the_same_bytes_and_init_twice_changes_nothing() {
    let all = fixtures();
    assert!(all.len() >= 30, "only {} fixtures", all.len());
    for (name, original) in all {
        let env = Env::git();
        let rel = target(&name);
        let path = env.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &original).unwrap();
        env.run(&["init"]).ok();
        let after = std::fs::read(&path).unwrap();
        assert_ne!(after, original, "{name}: init added nothing");
        if original.starts_with("\u{feff}".as_bytes()) {
            assert!(
                after.starts_with("\u{feff}".as_bytes()),
                "{name}: BOM dropped"
            );
        }
        if original.windows(2).any(|w| w == b"\r\n") {
            let bare_lf = after
                .iter()
                .enumerate()
                .any(|(i, b)| *b == b'\n' && (i == 0 || after[i - 1] != b'\r'));
            assert!(!bare_lf, "{name}: LF line ends added to a CRLF file");
        }
        let multi_line = original.iter().filter(|b| **b == b'\n').count() > 2;
        let legacy = String::from_utf8_lossy(&original).contains("capn context")
            || String::from_utf8_lossy(&original).contains("\"capn\"")
            || String::from_utf8_lossy(&original).contains("capn nudge");
        // An existing statusline command is wrapped by ours: that line is capn's to change.
        let statusline = String::from_utf8_lossy(&original).contains("\"statusLine\"");
        // The syntax tree spreads an object written on one line over lines when a property is
        // added to it (a known limit, see src/jsonedit.rs): here `"hooks": {...}` and `{}`.
        let one_line_hooks = name.contains("compact-arrays") || name.contains("empty-hooks");
        // An existing `permissions.allow` gets capn's two rules: that line is capn's to change.
        let allow = String::from_utf8_lossy(&original).contains("\"allow\"");
        if multi_line && !legacy && !statusline && !one_line_hooks && !allow {
            assert!(
                only_adds(&original, &after),
                "{name}: init changed lines that are not capn's:\n{}",
                String::from_utf8_lossy(&after)
            );
        }
        // A one-line file stays on one line (capn's entries go on that line).
        let text = String::from_utf8_lossy(&original);
        let body = text.trim_end();
        if !body.is_empty() && !body.contains('\n') && body != "{}" {
            let after_text = String::from_utf8_lossy(&after);
            assert_eq!(
                after_text.trim_end().lines().count(),
                1,
                "{name}: a one-line file was spread over lines:\n{after_text}"
            );
        }
        let second = env.run(&["init"]).ok();
        assert!(
            second.stdout.contains("nothing changed"),
            "{name}: {}",
            second.stdout
        );
        assert_eq!(std::fs::read(&path).unwrap(), after, "{name}: second init");
        env.run(&["uninstall"]).ok();
        // The bytes themselves (a lossy decoding would take any invalid byte for U+FFFD); the
        // text is only for the message.
        let back = std::fs::read(&path).unwrap();
        assert!(
            back == original,
            "{name}: uninstall did not give back the same bytes:\n{}\nfirst difference at byte {}",
            String::from_utf8_lossy(&back),
            back.iter()
                .zip(&original)
                .take_while(|(a, b)| a == b)
                .count()
        );
    }
}

/// When the user edited the file between `init` and `uninstall`, the recorded copy no longer
/// applies: capn's entries are removed one by one from the syntax tree, and for multi-line files
/// the result is the original with the user's edit, byte for byte.
#[test]
fn uninstall_after_an_unrelated_edit_removes_only_capns_entries() {
    let mut checked = 0;
    for (name, original) in fixtures() {
        let text = String::from_utf8(original.clone()).unwrap();
        let multi_line = text.matches('\n').count() > 2;
        if !multi_line || !text.contains("\"model\": \"") {
            continue;
        }
        let env = Env::git();
        let rel = target(&name);
        let path = env.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &original).unwrap();
        env.run(&["init"]).ok();
        let edit = |t: &str| t.replacen("\"model\": \"", "\"model\": \"edited-", 1);
        let after = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
        std::fs::write(&path, edit(&after)).unwrap();
        env.run(&["uninstall"]).ok();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            edit(&text),
            "{name}: uninstall after an edit"
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} fixtures checked");
}
