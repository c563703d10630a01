//! `.capn/delta.bin`: on a store of 500 entries or more, `chart` saves its change beside
//! `index.bin` and `vectors.bin` instead of rewriting them; readers splice it in, answer exactly
//! as from a rebuild, and a missing, truncated, garbled or stale delta is never trusted.

use crate::util::Env;
use std::fs;

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A store of `n` entries written straight into `.capn/entries/`, each over its own file
/// (entry `i` asks about "topic<i>"), with its index built by a first `ask`.
pub(crate) fn large_store(init: &[&str], n: usize) -> Env {
    let env = Env::git();
    let mut args = vec!["init"];
    args.extend_from_slice(init);
    env.run(&args).ok();
    for i in 0..n {
        let file = format!("src/f{i}.ts");
        let text = format!("// {i}\n");
        env.write(&file, &text);
        let hash = sha256_hex(text.as_bytes());
        let id = format!("{:08x}", 0x1000_0000 + i);
        env.write(
            &format!(".capn/entries/{id}.md"),
            &format!("---\ncapn: 1\nid: {id}\nat: 2026-01-01T00:00:00Z\nfiles:\n  {file}: {hash}\n---\n\n# Where is topic{i} handled?\n\nIn the handler of topic{i}.\n"),
        );
    }
    env.run(&["ask", "Where is topic1 handled?"]).ok();
    env
}

pub(crate) fn chart(env: &Env, q: &str, file: &str) -> String {
    env.write(file, &format!("// {q}\n"));
    let out = env.run(&["chart", q, "--files", file]).ok().stdout;
    out.trim()
        .strip_prefix("charted ")
        .unwrap_or_else(|| panic!("unexpected chart output: {out}"))
        .to_string()
}

const QUESTIONS: [&str; 5] = [
    "Where are giraffes fed?",
    "where do the giraffes get their food",
    "Where is topic7 handled?",
    "Where is topic9 handled?",
    "How are zebra crossings painted?",
];

/// What `ask` prints for each question, with its exit code.
pub(crate) fn answers(env: &Env) -> Vec<(Option<i32>, String)> {
    QUESTIONS
        .iter()
        .map(|q| {
            let out = env.cmd(&["ask", q]).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            (out.status.code(), text)
        })
        .collect()
}

/// What `ask` prints once every derived file is gone (rebuilt from the entries).
pub(crate) fn rebuilt_answers(env: &Env) -> Vec<(Option<i32>, String)> {
    for f in ["index.bin", "vectors.bin", "delta.bin"] {
        let _ = fs::remove_file(env.root.join(".capn").join(f));
    }
    answers(env)
}

fn charted_store(init: &[&str]) -> (Env, String) {
    let env = large_store(init, 520);
    let index = fs::read(env.root.join(".capn/index.bin")).unwrap();
    let id = chart(&env, "Where are giraffes fed?", "src/zoo.ts");
    // Replaced: one entry taken out (an edit through capn, not a new file).
    fs::remove_file(env.root.join(".capn/entries/10000009.md")).unwrap();
    env.run(&["unchart", "10000008"]).ok();
    assert!(env.root.join(".capn/delta.bin").is_file(), "no delta");
    assert_eq!(
        fs::read(env.root.join(".capn/index.bin")).unwrap(),
        index,
        "index.bin was rewritten"
    );
    (env, id)
}

#[test]
fn a_chart_on_a_large_store_is_saved_as_a_delta_and_answers_as_a_rebuild_does() {
    for init in [&["--no-embedding"][..], &[][..]] {
        let (env, id) = charted_store(init);
        let with_delta = answers(&env);
        assert!(with_delta[0].1.contains(&id), "{:?}", with_delta[0]);
        assert_eq!(with_delta[3].0, Some(1), "a deleted entry answered");
        assert_eq!(with_delta, rebuilt_answers(&env), "{init:?}");
    }
}

#[test]
fn a_truncated_garbled_or_stale_delta_is_never_trusted() {
    let (env, id) = charted_store(&["--no-embedding"]);
    let delta = env.root.join(".capn/delta.bin");
    let good = fs::read(&delta).unwrap();
    let expected = answers(&env);
    // An older delta of the same index (a valid file that no longer describes the folder).
    let old_delta = good.clone();
    let id2 = chart(&env, "How are zebra crossings painted?", "src/zebra.ts");
    let expected2 = answers(&env);
    assert!(expected2[4].1.contains(&id2), "{:?}", expected2[4]);
    let mut garbled = good.clone();
    for b in garbled.iter_mut().skip(12).step_by(7) {
        *b ^= 0x5a;
    }
    for bad in [
        old_delta,
        good[..good.len() / 2].to_vec(),
        garbled,
        b"not a delta".to_vec(),
        Vec::new(),
    ] {
        fs::write(&delta, &bad).unwrap();
        assert_eq!(answers(&env), expected2);
    }
    // A delta that is a folder is ignored too.
    fs::remove_file(&delta).unwrap();
    fs::create_dir(&delta).unwrap();
    assert_eq!(answers(&env), expected2);
    fs::remove_dir(&delta).unwrap();
    assert_eq!(answers(&env), expected2);
    assert_ne!(expected, expected2);
    assert!(expected[0].1.contains(&id));
    assert_eq!(answers(&env), rebuilt_answers(&env));
}

#[test]
fn the_delta_is_folded_into_the_full_files_past_its_bound() {
    let env = large_store(&["--no-embedding"], 520);
    let index = fs::read(env.root.join(".capn/index.bin")).unwrap();
    let mut ids = Vec::new();
    for i in 0..64 {
        ids.push(chart(
            &env,
            &format!("Where is gadget{i} built?"),
            &format!("src/g{i}.ts"),
        ));
    }
    assert!(env.root.join(".capn/delta.bin").is_file());
    assert_eq!(fs::read(env.root.join(".capn/index.bin")).unwrap(), index);
    let map = env.read(".capn/map.json");
    assert!(!map.contains("src/g0.ts"), "map.json waits for the fold");
    ids.push(chart(&env, "Where is gadget64 built?", "src/g64.ts"));
    assert!(!env.root.join(".capn/delta.bin").exists(), "not folded");
    assert_ne!(fs::read(env.root.join(".capn/index.bin")).unwrap(), index);
    let map: serde_json::Value = serde_json::from_str(&env.read(".capn/map.json")).unwrap();
    for i in 0..=64 {
        assert!(
            map.get(format!("src/g{i}.ts")).is_some(),
            "map.json lacks g{i}"
        );
    }
    let out = env.run(&["ask", "Where is gadget3 built?"]).ok().stdout;
    assert!(out.contains(&ids[3]), "{out}");
    let before = answers(&env);
    assert_eq!(before, rebuilt_answers(&env));
}
