//! The chart's store on disk: entry files as `list` and `ask` read them (malformed, CRLF and BOM,
//! edited in place, written by capn-hook 0.2), path keys, colliding ids, derived files rebuilt
//! when broken, and temp files of killed writers.

use crate::chart::{chart_id, copy_dir, entry_files};
use crate::util::Env;
use std::fs;

#[test]
fn list_prints_every_entry_even_with_broken_derived_files() {
    let env = Env::git();
    env.write("a.ts", "a");
    let id = chart_id(env.run(&[
        "chart",
        "where is the renderer",
        "--files",
        "a.ts",
        "--details",
        "see render()",
    ]));
    fs::write(env.root.join(".capn/index.bin"), b"\xff\xfe garbage").unwrap();
    fs::write(env.root.join(".capn/map.json"), b"{not json").unwrap();
    let run = env.run(&["list"]).ok();
    assert!(run.stdout.contains(&id) && run.stdout.contains("where is the renderer"));
    assert!(run.stdout.contains("a.ts") && run.stdout.contains("see render()"));
    let run = env.run(&["list", "--json"]).ok();
    let v = &run.jsonl()[0];
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["details"], "see render()");
    // ask rebuilds the derived files.
    env.run(&["ask", "where is the renderer"]).ok();
    let map: serde_json::Value = serde_json::from_str(&env.read(".capn/map.json")).unwrap();
    assert_eq!(map["a.ts"]["entries"], serde_json::json!([id]));
}

#[test]
fn malformed_entries_are_reported_by_name_and_skipped() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.run(&["chart", "where is the good entry", "--files", "a.ts"])
        .ok();
    let good =
        fs::read_to_string(env.root.join(".capn/entries").join(&entry_files(&env)[0])).unwrap();
    let bad = [
        ("0000aaaa.md", "total garbage \u{0}\u{1}".to_string()),
        (
            "0000bbbb.md",
            good.lines().take(3).collect::<Vec<_>>().join("\n"),
        ),
        (
            "0000cccc.md",
            good.replacen(": ", ": nothex", 3)
                .replace("where is the good entry", "bad hash"),
        ),
    ];
    for (name, text) in &bad {
        fs::write(env.root.join(".capn/entries").join(name), text).unwrap();
    }
    for args in [
        vec!["ask", "where is the good entry"],
        vec!["list"],
        vec!["prune"],
    ] {
        let run = env.run(&args);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        for (name, _) in &bad {
            assert!(
                run.stderr.contains(name),
                "{args:?} did not report {name}: {}",
                run.stderr
            );
        }
    }
    let run = env.run(&["list", "--json"]).ok();
    assert_eq!(run.jsonl().len(), 1);
    // The malformed files are not deleted (nothing is lost).
    assert_eq!(entry_files(&env).len(), 4);
}

#[test]
fn entries_with_crlf_and_bom_parse() {
    let env = Env::git();
    env.write("a.ts", "a");
    let hash = sha256_hex(b"a");
    let text = format!(
        "\u{feff}---\r\ncapn: 1\r\nid: 1234abcd\r\nat: 2026-07-03T18:00:00.000Z\r\nfiles:\r\n  a.ts: {hash}\r\n---\r\n\r\n# Where is the windows entry?\r\n\r\nDetails here.\r\n"
    );
    env.write(".capn/entries/1234abcd.md", &text);
    let v = &env
        .run(&["ask", "Where is the windows entry?"])
        .ok()
        .jsonl()[0];
    assert_eq!(v["id"], "1234abcd");
    assert_eq!(v["details"], "Details here.");
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn path_keys_round_trip_exactly() {
    let env = Env::git();
    let names = [
        "docs/a b.md",
        "docs/a: b.md",
        "docs/q\"uote.md",
        "docs/it's.md",
        "docs/#hash.md",
        "-leading.md",
        "docs/naïve-Ünïcode.md",
        "docs/日本語.md",
        "docs/🚀 launch.md",
    ];
    for n in names {
        env.write(n, n);
    }
    // One flag per file, in the `--files=<path>` form so a leading `-` is not read as a flag.
    let flags: Vec<String> = names.iter().map(|n| format!("--files={n}")).collect();
    let mut args = vec!["chart", "where are the odd file names"];
    args.extend(flags.iter().map(String::as_str));
    env.run(&args).ok();
    let v = &env
        .run(&["ask", "where are the odd file names"])
        .ok()
        .jsonl()[0];
    let mut want: Vec<&str> = names.to_vec();
    want.sort();
    assert_eq!(v["files"], serde_json::json!(want));
    // Still fresh after a reload of the entry file (keys parsed back exactly).
    fs::remove_file(env.root.join(".capn/index.bin")).unwrap();
    fs::remove_file(env.root.join(".capn/stat.bin")).unwrap();
    let v = &env
        .run(&["ask", "where are the odd file names"])
        .ok()
        .jsonl()[0];
    assert_eq!(v["files"], serde_json::json!(want));
    let map: serde_json::Value = serde_json::from_str(&env.read(".capn/map.json")).unwrap();
    for n in names {
        assert!(map.get(n).is_some(), "map.json lacks {n}");
    }
    // bust finds a quoted key.
    assert_eq!(
        env.run(&["bust", "docs/a: b.md"]).ok().stdout.trim(),
        "busted 1 entry"
    );
}

#[test]
fn colliding_ids_never_overwrite_each_other() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.write("b.ts", "b");
    let q = "where is the colliding question";
    let full = sha256_hex(q.as_bytes());
    let hash = sha256_hex(b"b");
    // Another question (with other files, so no phrasing of it) owns the 8-digit prefix.
    let other = format!(
        "---\ncapn: 1\nid: {}\nat: 2026-07-03T18:00:00.000Z\nfiles:\n  b.ts: {hash}\n---\n\n# a different question\n",
        &full[..8]
    );
    env.write(&format!(".capn/entries/{}.md", &full[..8]), &other);
    let id = chart_id(env.run(&["chart", q, "--files", "a.ts"]));
    assert_eq!(id, full[..12]);
    assert_eq!(env.read(&format!(".capn/entries/{}.md", &full[..8])), other);
    // Charting it again keeps the 12-digit id.
    assert_eq!(
        chart_id(env.run(&["chart", q, "--files", "a.ts"])),
        full[..12]
    );
    assert_eq!(entry_files(&env).len(), 2);
}

#[test]
fn derived_files_are_rebuilt_when_missing_corrupt_or_outdated() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.run(&["chart", "where is the alpha router", "--files", "a.ts"])
        .ok();
    for junk in [&b""[..], b"garbage", b"\x01\x00\x00\x00"] {
        fs::write(env.root.join(".capn/index.bin"), junk).unwrap();
        env.run(&["ask", "where is the alpha router"]).ok();
    }
    fs::remove_file(env.root.join(".capn/index.bin")).unwrap();
    fs::remove_file(env.root.join(".capn/map.json")).unwrap();
    env.run(&["ask", "where is the alpha router"]).ok();
    assert!(env.root.join(".capn/map.json").exists());
    // An entry added behind capn's back is picked up (index out of date).
    env.write("b.ts", "b");
    let hash = sha256_hex(b"b");
    env.write(
        ".capn/entries/abcdef01.md",
        &format!("---\ncapn: 1\nid: abcdef01\nat: 2026-07-03T18:00:00.000Z\nfiles:\n  b.ts: {hash}\n---\n\n# where is the hand written beta entry\n"),
    );
    let v = &env
        .run(&["ask", "where is the hand written beta entry"])
        .ok()
        .jsonl()[0];
    assert_eq!(v["id"], "abcdef01");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "the 0.2 store backs an entry with `docs/a: b.md`, a name Windows forbids"
)]
fn reads_a_store_written_by_capn_hook_0_2() {
    let env = Env::git();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-0.2");
    copy_dir(&fixture, &env.root);
    // Made here, not kept in the fixture: a checkout on Windows cannot hold the name (the
    // entry's SHA-256 is of these bytes).
    env.write("docs/a: b.md", "# notes\n");
    let list = env.run(&["list", "--json"]).ok();
    assert_eq!(list.jsonl().len(), 2, "{}", list.stdout);
    let v = &env
        .run(&["ask", "Where are payment webhooks handled?"])
        .ok()
        .jsonl()[0];
    assert_eq!(v["id"], "9f3a1c2e");
    assert_eq!(
        v["files"],
        serde_json::json!(["docs/a: b.md", "src/api/webhooks.ts"])
    );
    // What we write back is readable by the same rules (map.json shape kept).
    let map: serde_json::Value = serde_json::from_str(&env.read(".capn/map.json")).unwrap();
    assert_eq!(
        map["src/api/webhooks.ts"]["entries"],
        serde_json::json!(["9f3a1c2e"])
    );
}

#[test]
fn an_entry_edited_in_place_is_printed_as_it_is_now() {
    let env = Env::git();
    env.write("a.ts", "a");
    let id = chart_id(env.run(&[
        "chart",
        "where is the edited entry",
        "--files",
        "a.ts",
        "--details",
        "old details",
    ]));
    env.run(&["ask", "where is the edited entry"]).ok();
    let path = env.root.join(format!(".capn/entries/{id}.md"));
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("old details", "new details");
    // Rewrite in place (same inode), as an editor or capn-hook 0.2's writeFileSync does.
    use std::io::Write;
    let mut f = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
    drop(f);
    let v = &env.run(&["ask", "where is the edited entry"]).ok().jsonl()[0];
    assert_eq!(v["details"], "new details");
}

#[test]
fn temp_files_of_killed_writers_are_cleaned_up() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.run(&["chart", "first question here", "--files", "a.ts"])
        .ok();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut stray = Vec::new();
    for dir in [".capn", ".capn/entries"] {
        let p = env.root.join(dir).join(".capn-tmp-killed");
        fs::write(&p, "partial").unwrap();
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        stray.push(p);
    }
    let young = env.root.join(".capn/.capn-tmp-in-progress");
    fs::write(&young, "being written").unwrap();
    env.run(&["chart", "second question here", "--files", "a.ts"])
        .ok();
    for p in stray {
        assert!(!p.exists(), "{} left behind", p.display());
    }
    assert!(
        young.exists(),
        "a temp file of a write in progress was removed"
    );
}

/// The stat cache keeps the backing files some chart still has and drops the others once the
/// entries change (looked up in the index's sorted paths).
#[test]
fn the_stat_cache_drops_files_no_chart_has() {
    let env = Env::git();
    env.write("kept_backing_file.ts", "kept");
    env.write("dropped_backing_file.ts", "dropped");
    let kept = "where is the kept backing file";
    let dropped = "where is the dropped backing file";
    env.run(&["chart", kept, "--files", "kept_backing_file.ts"])
        .ok();
    env.run(&["chart", dropped, "--files", "dropped_backing_file.ts"])
        .ok();
    env.run(&["ask", kept]).ok();
    env.run(&["ask", dropped]).ok();
    let holds = |name: &str| {
        let bytes = fs::read(env.root.join(".capn/stat.bin")).unwrap();
        bytes.windows(name.len()).any(|w| w == name.as_bytes())
    };
    assert!(holds("kept_backing_file.ts") && holds("dropped_backing_file.ts"));
    let id = env.run(&["ask", dropped]).ok().jsonl()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.run(&["unchart", &id]).ok();
    assert!(holds("kept_backing_file.ts"));
    assert!(!holds("dropped_backing_file.ts"));
}
