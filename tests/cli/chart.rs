//! The chart: chart, ask, unchart, bust, prune, list, context — every rule of the chart issue
//! (the store on disk, from entry files to derived ones: `chart_store.rs`).

use crate::util::Env;
use std::fs;

pub(crate) fn entry_files(env: &Env) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(env.root.join(".capn/entries"))
        .map(|rd| {
            rd.filter_map(|d| d.ok())
                .map(|d| d.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

pub(crate) fn chart_id(run: crate::util::Run) -> String {
    let run = run.ok();
    run.stdout
        .trim()
        .strip_prefix("charted ")
        .unwrap_or_else(|| panic!("unexpected chart output: {}", run.stdout))
        .to_string()
}

pub(crate) fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            fs::create_dir_all(&dest).unwrap();
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), dest).unwrap();
        }
    }
}

#[test]
fn chart_then_ask_returns_the_entry_as_jsonl() {
    let env = Env::git();
    env.write("src/b.ts", "b");
    env.write("src/a.ts", "a");
    let id = chart_id(env.run(&[
        "chart",
        "Where are payment webhooks handled?",
        "--files",
        "src/b.ts,src/a.ts",
        "--details",
        "router near line 40",
    ]));
    assert_eq!(id.len(), 8);
    let run = env
        .run(&["ask", "Where are payment webhooks handled?"])
        .ok();
    // The charted question asked again is an exact re-ask: score 100. The line is a contract.
    assert_eq!(
        run.stdout,
        format!(
            "{{\"id\":\"{id}\",\"question\":\"Where are payment webhooks handled?\",\"files\":[\"src/a.ts\",\"src/b.ts\"],\"details\":\"router near line 40\",\"score\":100}}\n"
        )
    );
}

#[test]
fn details_are_omitted_when_empty_and_files_flag_repeats() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.write("c.ts", "c");
    env.run(&[
        "chart",
        "how is the cache warmed",
        "--files",
        "c.ts",
        "--files",
        "a.ts",
    ])
    .ok();
    let v = &env.run(&["ask", "how is the cache warmed"]).ok().jsonl()[0];
    assert!(v.get("details").is_none());
    assert_eq!(v["files"], serde_json::json!(["a.ts", "c.ts"]));
}

#[test]
fn a_miss_exits_1_with_the_exact_chart_line_on_stderr() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.run(&["chart", "where is the invoice renderer", "--files", "a.ts"])
        .ok();
    let run = env.run(&["ask", "kubernetes helm chart values"]).code(1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains(
            "capn chart \"kubernetes helm chart values\" --files <files> [--details \"<extra context>\"]"
        ),
        "{}",
        run.stderr
    );
    // No store at all is a miss too.
    let empty = Env::git();
    empty.run(&["ask", "anything"]).code(1);
}

#[test]
fn limit_caps_the_number_of_hits() {
    let env = Env::git();
    for i in 0..4 {
        // Each with its own file: the same files would make them phrasings of one chart.
        env.write(&format!("a{i}.ts"), "a");
        env.run(&[
            "chart",
            &format!("where is the webhook signature verified variant {i}"),
            "--files",
            &format!("a{i}.ts"),
        ])
        .ok();
    }
    let run = env
        .run(&["ask", "webhook signature verified", "--limit", "2"])
        .ok();
    assert_eq!(run.stdout.lines().count(), 2);
    let all = env.run(&["ask", "webhook signature verified"]).ok();
    assert_eq!(all.stdout.lines().count(), 4);
}

#[test]
fn refused_inputs_exit_1_and_write_nothing() {
    let env = Env::git();
    env.write("a.ts", "a");
    fs::create_dir_all(env.root.join("dir")).unwrap();
    let outside = env.tmp.path().join("outside.ts");
    fs::write(&outside, "o").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, env.root.join("link.ts")).unwrap();
    let outside_s = outside.to_str().unwrap().to_string();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("missing question", vec!["chart", "--files", "a.ts"]),
        ("empty question", vec!["chart", "", "--files", "a.ts"]),
        ("no files", vec!["chart", "q"]),
        ("empty files", vec!["chart", "q", "--files", ""]),
        (
            "newline",
            vec!["chart", "line one\nline two", "--files", "a.ts"],
        ),
        (
            "missing file",
            vec!["chart", "q", "--files", "a.ts,nope.ts"],
        ),
        ("directory", vec!["chart", "q", "--files", "dir"]),
        ("parent escape", vec!["chart", "q", "--files", "../x"]),
        (
            "absolute elsewhere",
            vec!["chart", "q", "--files", &outside_s],
        ),
        ("symlink outside", vec!["chart", "q", "--files", "link.ts"]),
        (
            "second positional",
            vec!["chart", "q", "extra", "--files", "a.ts"],
        ),
    ];
    for (name, args) in cases {
        let run = env.run(&args);
        assert_eq!(run.code, 1, "{name}: {run:?}");
        assert_eq!(run.stdout, "", "{name}");
        let msg = run.stderr.trim();
        assert!(!msg.is_empty() && msg.lines().count() <= 2, "{name}: {msg}");
        assert!(entry_files(&env).is_empty(), "{name} wrote an entry");
    }
    assert!(
        !env.root.join(".capn").exists(),
        "a refusal created the store"
    );
}

#[test]
fn paths_are_relative_to_cwd_and_stored_relative_to_root() {
    let env = Env::git();
    env.write("pkg/src/x.ts", "x");
    env.write("top.ts", "t");
    let sub = env.root.join("pkg");
    let c = env.cmd_in(
        &sub,
        &[
            "chart",
            "where is the xylophone renderer",
            "--files",
            "src/x.ts,../top.ts",
        ],
    );
    env.run_cmd(c, b"").ok();
    let v = &env
        .run(&["ask", "where is the xylophone renderer"])
        .ok()
        .jsonl()[0];
    assert_eq!(v["files"], serde_json::json!(["pkg/src/x.ts", "top.ts"]));
    // An absolute path inside the root is fine too.
    let abs = env.root.join("top.ts");
    env.run(&[
        "chart",
        "where is the toplevel config",
        "--files",
        abs.to_str().unwrap(),
    ])
    .ok();
    let v = &env
        .run(&["ask", "where is the toplevel config"])
        .ok()
        .jsonl()[0];
    assert_eq!(v["files"], serde_json::json!(["top.ts"]));
}

#[test]
fn a_changed_deleted_or_replaced_file_hides_its_entries_from_every_answer() {
    let env = Env::git();
    env.write("a.ts", "one");
    env.write("b.ts", "two");
    env.write("c.ts", "three");
    env.run(&["chart", "alpha widget registry", "--files", "a.ts"])
        .ok();
    env.run(&["chart", "beta payment ledger", "--files", "b.ts"])
        .ok();
    env.run(&["chart", "gamma email queue", "--files", "c.ts"])
        .ok();
    assert_eq!(entry_files(&env).len(), 3);
    // Same size, same second: only a re-hash can see it (racy clean).
    env.write("a.ts", "ONE");
    fs::remove_file(env.root.join("b.ts")).unwrap();
    // Replaced by rename with identical content: still fresh.
    env.write("c.tmp", "three");
    fs::rename(env.root.join("c.tmp"), env.root.join("c.ts")).unwrap();
    env.run(&["ask", "alpha widget registry"]).code(1);
    env.run(&["ask", "beta payment ledger"]).code(1);
    env.run(&["ask", "gamma email queue"]).ok();
    // Stale hides, never destroys: every entry is still there.
    assert_eq!(entry_files(&env).len(), 3, "a stale entry was deleted");
    // Replaced with other content.
    env.write("c.tmp", "THREE!");
    fs::rename(env.root.join("c.tmp"), env.root.join("c.ts")).unwrap();
    env.run(&["ask", "gamma email queue"]).code(1);
    // Back as charted: it answers again.
    env.write("a.ts", "one");
    env.run(&["ask", "alpha widget registry"]).ok();
    // prune deletes the two still stale.
    let run = env.run(&["prune"]).ok();
    assert!(
        run.stdout.starts_with("pruned 2 stale entries\n"),
        "{run:?}"
    );
    assert_eq!(entry_files(&env).len(), 1);
}

#[test]
fn a_file_replaced_by_a_directory_or_outside_symlink_is_stale() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.run(&["chart", "where is alpha", "--files", "a.ts"])
        .ok();
    fs::remove_file(env.root.join("a.ts")).unwrap();
    fs::create_dir(env.root.join("a.ts")).unwrap();
    env.run(&["ask", "where is alpha"]).code(1);
    #[cfg(unix)]
    {
        env.write("b.ts", "b");
        env.run(&["chart", "where is beta", "--files", "b.ts"]).ok();
        let outside = env.tmp.path().join("b.ts");
        fs::write(&outside, "b").unwrap();
        fs::remove_file(env.root.join("b.ts")).unwrap();
        std::os::unix::fs::symlink(&outside, env.root.join("b.ts")).unwrap();
        env.run(&["ask", "where is beta"]).code(1);
    }
}

#[test]
fn rechart_replaces_and_unchart_deletes() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.write("b.ts", "b");
    let id1 = chart_id(env.run(&["chart", "where is the queue", "--files", "a.ts"]));
    let id2 = chart_id(env.run(&[
        "chart",
        "where is the queue",
        "--files",
        "b.ts",
        "--details",
        "moved",
    ]));
    assert_eq!(id1, id2);
    assert_eq!(entry_files(&env), vec![format!("{id1}.md")]);
    let v = &env.run(&["ask", "where is the queue"]).ok().jsonl()[0];
    assert_eq!(v["files"], serde_json::json!(["b.ts"]));
    let run = env.run(&["unchart", &id1]).ok();
    assert!(run.stdout.contains(&id1));
    assert!(entry_files(&env).is_empty());
    let run = env.run(&["unchart", &id1]).code(1);
    assert!(
        run.stderr.contains(&format!("unknown id: {id1}")),
        "{}",
        run.stderr
    );
    env.run(&["unchart", "../../etc/passwd"]).code(1);
}

#[test]
fn bust_deletes_every_entry_backed_by_a_file() {
    let env = Env::git();
    env.write("shared.ts", "s");
    env.write("other.ts", "o");
    env.run(&["chart", "where is one", "--files", "shared.ts"])
        .ok();
    env.run(&["chart", "where is two", "--files", "shared.ts,other.ts"])
        .ok();
    env.run(&["chart", "where is three", "--files", "other.ts"])
        .ok();
    let run = env.run(&["bust", "shared.ts"]).ok();
    assert_eq!(run.stdout.trim(), "busted 2 entries");
    assert_eq!(entry_files(&env).len(), 1);
    let run = env.run(&["bust", "shared.ts"]).ok();
    assert_eq!(run.stdout.trim(), "busted 0 entries");
    // A deleted file can still be busted.
    fs::remove_file(env.root.join("other.ts")).unwrap();
    let run = env.run(&["bust", "./other.ts"]).ok();
    assert_eq!(run.stdout.trim(), "busted 1 entry");
}

#[test]
fn prune_reports_only_when_it_deleted() {
    let env = Env::git();
    env.write("a.ts", "a");
    env.write("b.ts", "b");
    env.run(&["chart", "where is one", "--files", "a.ts"]).ok();
    env.run(&["chart", "where is two", "--files", "b.ts"]).ok();
    assert_eq!(env.run(&["prune"]).ok().stdout, "");
    env.write("a.ts", "changed");
    assert_eq!(
        env.run(&["prune"]).ok().stdout,
        "pruned 1 stale entry\n  \"where is one\" (\"a.ts\")\n"
    );
    assert_eq!(entry_files(&env).len(), 1);
    let map: serde_json::Value = serde_json::from_str(&env.read(".capn/map.json")).unwrap();
    assert!(map.get("a.ts").is_none());
    assert!(map.get("b.ts").is_some());
    env.write("c.ts", "c");
    env.run(&["chart", "where is three", "--files", "c.ts"])
        .ok();
    env.write("b.ts", "changed");
    env.write("c.ts", "changed");
    let out = env.run(&["prune"]).ok().stdout;
    assert_eq!(out.lines().next(), Some("pruned 2 stale entries"), "{out}");
    let mut named: Vec<&str> = out.lines().skip(1).collect();
    named.sort_unstable();
    assert_eq!(
        named,
        [
            "  \"where is three\" (\"c.ts\")",
            "  \"where is two\" (\"b.ts\")"
        ]
    );
    // Outside any project: said so, and nothing is created.
    let outside = env.tmp.path().join("nowhere");
    fs::create_dir_all(&outside).unwrap();
    let run = env.run_cmd(env.cmd_in(&outside, &["prune"]), b"").ok();
    assert!(
        run.stderr.contains("not inside a project"),
        "{}",
        run.stderr
    );
    assert!(!outside.join(".capn").exists());
}

#[test]
fn context_is_static_short_and_has_no_side_effects() {
    let env = Env::new();
    let run = env.run(&["context"]).ok();
    assert!(run.stdout.chars().count() < 2000);
    assert!(run.stdout.contains("capn ask") && run.stdout.contains("capn chart"));
    assert_eq!(
        fs::read_dir(&env.root).unwrap().count(),
        0,
        "context wrote files"
    );
}

#[test]
fn help_on_every_command_and_version() {
    let env = Env::new();
    for cmd in [
        "init",
        "context",
        "ask",
        "chart",
        "unchart",
        "bust",
        "prune",
        "list",
        "hook",
        "statusline",
        "state",
        "uninstall",
        "doctor",
    ] {
        let run = env.run(&[cmd, "--help"]).ok();
        assert!(run.stdout.contains("Usage"), "{cmd}: {}", run.stdout);
    }
    for cmd in ["ask", "chart", "unchart", "bust", "list", "init"] {
        let run = env.run(&[cmd, "--help"]).ok();
        assert!(
            run.stdout.contains("Example"),
            "{cmd} --help has no example"
        );
    }
    let run = env.run(&["--version"]).ok();
    assert!(run.stdout.starts_with("capn "), "{}", run.stdout);
}

#[test]
fn odd_inputs_chart_and_ask_cleanly() {
    let env = Env::git();
    env.write("a,b.ts", "comma");
    env.write("plain.ts", "p");
    // --file takes a name with a comma as is; a question may start with '-'.
    let id = chart_id(env.run(&[
        "chart",
        "-dash question about comma files",
        "--file",
        "a,b.ts",
        "--files",
        "plain.ts",
        "--details",
        "line one\r\nline two\r\n\r\n",
    ]));
    let v = &env
        .run(&["ask", "-dash question about comma files"])
        .ok()
        .jsonl()[0];
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["files"], serde_json::json!(["a,b.ts", "plain.ts"]));
    assert_eq!(v["details"], "line one\nline two");
    // The details were indexed as they read back, so later asks find the entry in agreement
    // with the index and do not rebuild it (a rebuild rewrites index.bin).
    let index = env.root.join(".capn/index.bin");
    let before = fs::metadata(&index).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    env.run(&["ask", "-dash question about comma files"]).ok();
    env.run(&["ask", "-dash question about comma files"]).ok();
    assert_eq!(
        fs::metadata(&index).unwrap().modified().unwrap(),
        before,
        "index rebuilt"
    );
    // A miss on a multi-line question suggests a chart line that chart accepts.
    let run = env
        .run(&["ask", "kubernetes\nhelm\u{1b}[31m values"])
        .code(1);
    assert!(
        run.stderr
            .contains("capn chart \"kubernetes helm\\u{1b}[31m values\" --files"),
        "{}",
        run.stderr
    );
}

#[test]
fn charting_before_init_says_how_to_finish_the_set_up_once() {
    let env = Env::git();
    env.write("a.ts", "a");
    let run = env
        .run(&["chart", "first chart without init", "--files", "a.ts"])
        .ok();
    assert!(run.stderr.contains("capn init"), "{}", run.stderr);
    let run = env
        .run(&["chart", "second chart without init", "--files", "a.ts"])
        .ok();
    assert!(!run.stderr.contains("capn init"), "{}", run.stderr);
}

/// Charting a question again updates its entry however it is written: `ask` treats "Where are
/// emails sent?" and "where are emails sent" as one question, so `chart` keeps one entry for
/// them (a new user found two answers with score 100), under the id it had.
#[test]
fn charting_the_same_question_written_differently_replaces_its_entry() {
    let env = Env::git();
    env.write("mail.ts", "send()\n");
    env.write("queue.ts", "enqueue()\n");
    let first = chart_id(env.run(&["chart", "Where are emails sent?", "--files", "mail.ts"]));
    let run = env
        .run(&[
            "chart",
            "where are  EMAILS sent",
            "--files",
            "mail.ts,queue.ts",
        ])
        .ok();
    assert_eq!(run.stdout, format!("charted {first}\n"));
    assert_eq!(entry_files(&env), [format!("{first}.md")]);
    let entry = env.read(&format!(".capn/entries/{first}.md"));
    assert!(entry.contains("  queue.ts: "), "{entry}");
    let hits = env.run(&["ask", "Where are emails sent?"]).ok().stdout;
    assert_eq!(hits.lines().count(), 1, "{hits}");
    // A different question that shares the words is kept.
    env.run(&["chart", "Where are emails sent from?", "--files", "mail.ts"])
        .ok();
    assert_eq!(entry_files(&env).len(), 2);
}

/// A file whose name holds a comma, passed with `--files`, is split; the refusal says to use
/// `--file` for it.
#[test]
fn a_comma_in_a_file_name_gets_a_hint() {
    let env = Env::git();
    env.write("a, b.md", "x\n");
    let run = env.run(&["chart", "Where is the note?", "--files", "a, b.md"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("use --file \"a, b.md\""),
        "{}",
        run.stderr
    );
    env.run(&["chart", "Where is the note?", "--file", "a, b.md"])
        .ok();
}

/// Questions that differ only in a symbol that is part of a name are different questions: "C++"
/// is not "C", so charting one never replaces the other, and asking one never gets the other
/// as an exact re-ask.
#[test]
fn a_symbol_in_a_name_keeps_two_questions_apart() {
    let env = Env::git();
    env.write("cpp.cpp", "x\n");
    env.write("c.c", "y\n");
    let cpp = chart_id(env.run(&[
        "chart",
        "How is the C++ extension built?",
        "--files",
        "cpp.cpp",
    ]));
    let c = chart_id(env.run(&["chart", "How is the C extension built?", "--files", "c.c"]));
    assert_eq!(entry_files(&env), {
        let mut v = vec![format!("{cpp}.md"), format!("{c}.md")];
        v.sort();
        v
    });
}
