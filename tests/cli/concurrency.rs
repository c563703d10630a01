//! Two writers never lose an entry or an update: 8 processes each chart 50 different questions
//! and add a phrasing of their own to the same 25 charts (a read-modify-write of one entry file
//! that only the writers' lock keeps whole) while others ask and prune; afterwards all 400
//! entries exist, every chart holds all 8 phrasings, and map.json matches the entries.

use crate::util::Env;
use std::collections::BTreeSet;
use std::process::Stdio;

/// Charts every writer adds a phrasing to (each gets 8: `MAX_PHRASINGS`, so none is dropped).
const SHARED: usize = 25;

/// A question of its own for shared chart `c`: distinct words, so no two are rewordings.
fn shared_question(c: usize) -> String {
    const WORDS: [&str; SHARED] = [
        "zebra", "quartz", "falcon", "mango", "cobalt", "walrus", "tundra", "pepper", "violin",
        "glacier", "saffron", "otter", "basalt", "lantern", "juniper", "harbor", "nickel",
        "orchid", "canyon", "dynamo", "ember", "fjord", "gopher", "hazel", "igloo",
    ];
    format!("Where is the {} ledger reconciled?", WORDS[c])
}

/// Charts the shared questions, one file each; returns their ids in order.
fn chart_shared(env: &Env) -> Vec<String> {
    (0..SHARED)
        .map(|c| {
            let f = format!("src/t{c}.ts");
            env.write(&f, &format!("topic {c}"));
            let run = env.run(&["chart", &shared_question(c), "--files", &f]).ok();
            let id = run.stdout.trim().strip_prefix("charted ").unwrap();
            id.to_string()
        })
        .collect()
}

/// Writer `w`'s script: 50 charts of its own and, every other step, a phrasing of its own for
/// the next shared chart. Every writer walks the shared charts in the same order, so they meet
/// on each one.
fn writer_script(w: usize, shared: &[String]) -> String {
    let bin = env!("CARGO_BIN_EXE_capn");
    let mut body = String::new();
    for i in 0..50 {
        body += &format!(
            "'{bin}' chart \"writer {w} question number {i} about topic\" --files src/w{w}.ts,src/shared.ts --details \"w{w} q{i}\" || exit 1\n"
        );
        if i % 2 == 0 {
            let c = i / 2;
            body += &format!(
                "'{bin}' chart \"How does writer {w} find the ledger of topic {c}?\" --like {} || exit 1\n",
                shared[c]
            );
        }
    }
    body
}

/// Asserts every writer's phrasing of every shared chart is in `list` (`list --json`): none
/// lost to another writer's read-modify-write of the same entry.
#[track_caller]
fn assert_all_phrasings_kept(list: &[serde_json::Value], shared: &[String]) {
    for (c, id) in shared.iter().enumerate() {
        let v = list.iter().find(|v| v["id"] == id.as_str()).unwrap();
        let got: BTreeSet<&str> = v["phrasings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let want: Vec<String> = (0..8)
            .map(|w| format!("How does writer {w} find the ledger of topic {c}?"))
            .collect();
        let lost: Vec<&String> = want.iter().filter(|p| !got.contains(p.as_str())).collect();
        assert!(lost.is_empty(), "chart {id} lost phrasings {lost:?}: {v}");
    }
}

#[test]
fn eight_writers_with_concurrent_readers_lose_nothing() {
    let env = Env::git();
    env.write("src/shared.ts", "shared");
    for w in 0..8 {
        env.write(&format!("src/w{w}.ts"), &format!("writer {w}"));
    }
    env.run(&["init", "--no-embedding"]).ok();
    let shared = chart_shared(&env);
    let bin = env!("CARGO_BIN_EXE_capn");
    let script = |body: String| {
        let mut sh = env.sh(&body);
        sh.stdout(Stdio::null()).stderr(Stdio::piped());
        sh.spawn().unwrap()
    };
    let mut writers = Vec::new();
    for w in 0..8 {
        writers.push(script(writer_script(w, &shared)));
    }
    let mut readers = Vec::new();
    for r in 0..3 {
        readers.push(script(format!(
            "i=0; while [ $i -lt 40 ]; do '{bin}' ask \"writer {r} question number $i\" >/dev/null; '{bin}' prune >/dev/null || exit 1; '{bin}' list --json >/dev/null || exit 1; i=$((i+1)); done"
        )));
    }
    for c in writers.into_iter().chain(readers) {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a process failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let list = env.run(&["list", "--json"]).ok().jsonl();
    let ids: BTreeSet<String> = list
        .iter()
        .filter(|v| !shared.iter().any(|id| v["id"] == id.as_str()))
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 400, "entries lost");
    assert_all_phrasings_kept(&list, &shared);
    let map: serde_json::Value = serde_json::from_str(&env.read(".capn/map.json")).unwrap();
    let on_shared: BTreeSet<String> = map["src/shared.ts"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(on_shared, ids, "map.json does not match the entries");
    for w in 0..8 {
        assert_eq!(
            map[format!("src/w{w}.ts")]["entries"]
                .as_array()
                .unwrap()
                .len(),
            50
        );
    }
    // And every one answers, a phrasing too.
    let run = env
        .run(&["ask", "writer 3 question number 17 about topic"])
        .ok();
    assert!(run
        .stdout
        .contains("writer 3 question number 17 about topic"));
    let run = env
        .run(&["ask", "How does writer 5 find the ledger of topic 7?"])
        .ok();
    assert!(run.stdout.contains(&shared[7]), "{}", run.stdout);
}

/// `init` and `uninstall` write `.capn/config.json` and `.capn/install.json`: as writers of
/// `.capn/` they wait for the writers' lock (a breaker saw init rewrite config.json while
/// another process held it).
#[test]
fn init_and_uninstall_wait_for_the_writers_lock() {
    let env = Env::git();
    env.run(&["init", "--no-embedding"]).ok();
    for args in [&["init", "--embedding"][..], &["uninstall"][..]] {
        let lock = hold_writers_lock(&env);
        let mut child = env
            .cmd(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(700));
        assert!(
            child.try_wait().unwrap().is_none(),
            "{args:?} did not wait for the lock"
        );
        drop(lock);
        assert!(child.wait().unwrap().success(), "{args:?}");
    }
}

/// `init` reads the settings files and the install record under the lock, not before waiting
/// for it: an `uninstall` that ran while it waited is seen, so the record of the user's own
/// bytes is not lost to a plan made from what was there before (a breaker's init/uninstall race
/// ended with `"files": []` and the user's formatting gone).
#[test]
fn init_plans_under_the_writers_lock() {
    let env = Env::git();
    let mine = "{\n  \"model\": \"x\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\":\"command\",\"command\":\"mine\"}]}]}\n}\n";
    env.write(".claude/settings.json", mine);
    env.run(&["init"]).ok();
    let lock = hold_writers_lock(&env);
    let child = env
        .cmd(&["init"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    // What an uninstall would have done meanwhile: the user's file back, the record gone.
    env.write(".claude/settings.json", mine);
    std::fs::remove_file(env.root.join(".capn/install.json")).unwrap();
    drop(lock);
    assert!(child.wait_with_output().unwrap().status.success());
    // Planned from the files as they were once it held the lock: the hooks are in again.
    assert!(
        env.read(".claude/settings.json").contains("capn"),
        "init planned from the files it read before waiting:\n{}",
        env.read(".claude/settings.json")
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".claude/settings.json"), mine);
}

/// A writer that cannot take `.capn/lock` at once says so on stderr, once, after about a second
/// (it waited silently and without end), writes nothing while it waits, and goes on when the
/// lock is free. (Giving up after `LOCK_GIVE_UP_AFTER` is tested in the store's unit tests,
/// with a short wait, so this test does not take 30 s.)
#[test]
fn a_writer_waiting_for_the_lock_says_so_once_and_goes_on_once_it_is_free() {
    use std::io::BufRead;
    let env = Env::git();
    env.write("src/a.ts", "a");
    env.run(&["init", "--no-embedding"]).ok();
    let id = env
        .run(&["chart", "Where is A?", "--files", "src/a.ts"])
        .ok()
        .stdout
        .trim()
        .strip_prefix("charted ")
        .unwrap()
        .to_string();
    let entries = || {
        std::fs::read_dir(env.root.join(".capn/entries"))
            .unwrap()
            .count()
    };
    for (args, said) in [
        (
            vec!["chart", "Where is B?", "--files", "src/a.ts"],
            "charted ",
        ),
        (vec!["unchart", id.as_str()], "uncharted "),
    ] {
        let before = entries();
        let lock = hold_writers_lock(&env);
        let mut child = env
            .cmd(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let _ = tx.send(line.unwrap());
            }
        });
        let start = std::time::Instant::now();
        let first = rx.recv_timeout(crate::util::HANG_GUARD);
        let waited = start.elapsed();
        if first.is_err() {
            let _ = child.kill();
        }
        assert_eq!(
            first.as_deref(),
            Ok("capn: waiting for .capn/lock (another capn is writing the store)..."),
            "{args:?}"
        );
        assert!(
            waited >= std::time::Duration::from_millis(500),
            "{waited:?}"
        );
        assert!(child.try_wait().unwrap().is_none(), "{args:?} did not wait");
        assert_eq!(entries(), before, "{args:?} wrote while it waited");
        drop(lock);
        let out = child.wait_with_output().unwrap();
        reader.join().unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).starts_with(said),
            "{args:?}"
        );
        assert!(rx.try_recv().is_err(), "{args:?}: more on stderr");
    }
    assert_eq!(entries(), 1);
}

/// Takes the store's writers' lock (`.capn/lock`) as another capn would; released on drop.
pub(crate) fn hold_writers_lock(env: &Env) -> std::fs::File {
    let lock = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(env.root.join(".capn/lock"))
        .unwrap();
    lock.lock().unwrap();
    lock
}
