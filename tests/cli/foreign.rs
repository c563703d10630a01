//! Foreign text is data by construction (issue 29): each path the second attack round measured,
//! with a hostile teammate entry, path key or config value, and decoys only inside the temp dir.

use crate::util::{hook_payload, Env};
use sha2::{Digest, Sha256};

/// Characters that must never reach a terminal or a model raw.
const RAW: [char; 8] = [
    '\u{1b}',
    '\u{7}',
    '\u{202e}',
    '\u{2028}',
    '\u{2029}',
    '\u{e0041}',
    '\u{200b}',
    '\u{85}',
];

/// A payload of hostile characters, `n` times.
fn hostile(n: usize) -> String {
    "\u{1b}]0;PWNED\u{7}\u{202e}\u{2028}\u{e0041}\u{200b}".repeat(n)
}

#[track_caller]
fn assert_inert(what: &str, text: &str, max_len: usize) {
    for c in RAW {
        assert!(
            !text.contains(c),
            "{what}: U+{:04X} reached it raw: {text:?}",
            c as u32
        );
    }
    assert!(
        text.len() <= max_len,
        "{what}: {} bytes (cap {max_len})",
        text.len()
    );
}

/// An entry file as a teammate could commit it: `files` as (key, content hash of `content`).
fn entry(id: &str, question: &str, files: &[(&str, &str)], details: &str) -> String {
    let mut s = format!("---\ncapn: 1\nid: {id}\nat: 2026-12-04T12:00:00.000Z\nfiles:\n");
    for (k, content) in files {
        let h = hex(&Sha256::digest(content.as_bytes()));
        s.push_str(&format!("  {}: {h}\n", serde_json::to_string(k).unwrap()));
    }
    s.push_str(&format!("---\n\n# {question}\n\n{details}\n"));
    s
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn project() -> Env {
    let env = Env::git();
    env.run(&["init"]).ok();
    env
}

/// `chart --like` (and a re-chart that merges) names the other chart's question through the
/// owner: 74 KB of raw U+2028, U+202E and tag characters reached stdout before.
#[test]
fn like_names_a_hostile_question_escaped_and_capped() {
    let env = project();
    env.write("src/pay.ts", "// pay\n");
    let q = format!("Where are payments handled?{}", hostile(2000));
    env.write(
        ".capn/entries/ab12cd34.md",
        &entry("ab12cd34", &q, &[("src/pay.ts", "// pay\n")], ""),
    );
    let run = env
        .run(&["chart", "how do we take payments", "--like", "ab12cd34"])
        .ok();
    assert_inert("chart --like stdout", &run.stdout, 2000);
    assert!(run.stdout.contains("\\u202e"), "{}", run.stdout);
    assert_inert("chart --like stderr", &run.stderr, 4000);
}

/// `chart --like` on a malformed entry quotes a bounded, escaped piece of it.
#[test]
fn like_on_a_malformed_entry_does_not_echo_its_bytes() {
    let env = project();
    let junk = format!("---\ncapn: 1\nid: ab12cd34\n{}\n---\n", hostile(500));
    env.write(".capn/entries/ab12cd34.md", &junk);
    let run = env
        .run(&["chart", "a question", "--like", "ab12cd34"])
        .code(1);
    assert_inert("chart --like error", &run.stderr, 1000);
    assert!(
        run.stderr.contains("bad frontmatter line"),
        "{}",
        run.stderr
    );
}

/// `.capn/config.json` values reach stderr escaped and capped, in a command, a hook and doctor.
#[test]
fn config_values_are_escaped_and_capped_everywhere() {
    let env = project();
    let cfg = serde_json::json!({
        "warn_at": hostile(300),
        "offer": {"prompt": hostile(200), hostile(50): true},
        "embedding": [hostile(100)],
    });
    let cfg = cfg.to_string();
    assert!(cfg.len() < 64 * 1024, "{}", cfg.len());
    env.write(".capn/config.json", &cfg);
    let run = env.run(&["list"]);
    assert_inert("list stderr", &run.stderr, 4000);
    assert!(run.stderr.contains("\"warn_at\" must be"), "{}", run.stderr);
    let payload = hook_payload(
        "UserPromptSubmit",
        "s1",
        &env.root,
        serde_json::json!({"prompt": "where are payments handled"}),
    );
    let run = env.run_stdin(&["hook", "user-prompt-submit"], &payload);
    assert_eq!(run.code, 0);
    assert_inert("hook stderr", &run.stderr, 4000);
    assert_inert("hook stdout", &run.stdout, 20_000);
    let run = env.run(&["doctor"]);
    assert_inert("doctor stdout", &run.stdout, 40_000);
    assert_inert("doctor stderr", &run.stderr, 4000);
}

/// The "could not check" note quotes a path key escaped and capped (a 675 KB key gave 556 KB
/// of stderr); and a key under a symlinked folder that leaves the project is not statted
/// through it: unchecked (hidden, kept), the same whether the file outside exists or not.
#[cfg(unix)]
#[test]
fn a_key_through_a_folder_leaving_the_project_is_unchecked_and_its_note_inert() {
    let env = project();
    let outside = env.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, env.root.join("out")).unwrap();
    let long = format!("out/{}/x", "d".repeat(200));
    let weird = format!("out/{}", "\u{1b}]0;t\u{7}\u{202e}name".repeat(20));
    env.write(
        ".capn/entries/ab12cd34.md",
        &entry(
            "ab12cd34",
            "Where is the secret kept?",
            &[("out/secret.txt", "s3cret\n"), (&long, "x"), (&weird, "y")],
            "",
        ),
    );
    let list = |env: &Env| env.run(&["list"]).ok();
    let absent = list(&env);
    std::fs::write(outside.join("secret.txt"), "s3cret\n").unwrap();
    let present = list(&env);
    assert_eq!(
        absent.stdout, present.stdout,
        "list tells whether a file outside exists"
    );
    // Marked as a chart that cannot be checked (the one mark list prints for it), with the file
    // it could not check named.
    assert_eq!(
        present.stdout.lines().next(),
        Some("ab12cd34  [unchecked] Where is the secret kept?"),
        "{}",
        present.stdout
    );
    let line = present
        .stdout
        .lines()
        .find(|l| l.starts_with("  could not be checked: "))
        .unwrap_or_else(|| panic!("{}", present.stdout));
    assert!(line.contains("\"out/secret.txt\""), "{line}");
    let run = env.run(&["ask", "Where is the secret kept?"]).code(1);
    assert_inert("ask stderr", &run.stderr, 8000);
    assert!(
        run.stderr.contains("could not check \"out/secret.txt\"")
            && run.stderr.contains("leaves the project"),
        "{}",
        run.stderr
    );
    assert!(env.root.join(".capn/entries/ab12cd34.md").exists());
}

/// A symlink in the project that resolves into `.capn/` is refused, however it is spelt.
#[cfg(unix)]
#[test]
fn a_symlink_into_the_store_cannot_be_charted() {
    let env = project();
    env.write("src/pay.ts", "// pay\n");
    env.run(&[
        "chart",
        "Where are payments handled?",
        "--files",
        "src/pay.ts",
    ])
    .ok();
    std::os::unix::fs::symlink(".capn/config.json", env.root.join("cfg.json")).unwrap();
    std::os::unix::fs::symlink(".capn", env.root.join("store")).unwrap();
    std::os::unix::fs::symlink("src/../.capn/install.json", env.root.join("inst.json")).unwrap();
    for f in ["cfg.json", "store/config.json", "inst.json"] {
        let run = env
            .run(&["chart", "what is the config", "--files", f])
            .code(1);
        assert!(run.stderr.contains("capn store"), "{f}: {}", run.stderr);
    }
}

/// A chart that arrives through a `.capn` git submodule is not labelled as charted in this
/// checkout.
#[test]
fn a_chart_from_a_submodule_store_is_not_claimed_as_ours() {
    let env = project();
    env.write("src/pay.ts", "// pay\n");
    env.run(&[
        "chart",
        "Where are payments handled?",
        "--files",
        "src/pay.ts",
    ])
    .ok();
    // A submodule checkout: `.capn/.git` is a file pointing into the superproject.
    env.write(".capn/.git", "gitdir: ../.git/modules/capn\n");
    let payload = hook_payload(
        "UserPromptSubmit",
        "s2",
        &env.root,
        serde_json::json!({"prompt": "Where are payments handled?"}),
    );
    let run = env.run_stdin(&["hook", "user-prompt-submit"], &payload);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("src/pay.ts"),
        "no offer: {}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("charted in this checkout"),
        "{}",
        run.stdout
    );
}
