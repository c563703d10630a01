//! INSTALL.md's "Try it" step is true: its commands are replayed, in order, in a new project set
//! up as step 2 says, and each does what the step's check says. (It charted "Where is the CLI
//! entry point?" and asked "what is the program's entry point?", which exits 1: an agent
//! following INSTALL.md had to report the install as failing, issue 28.)

use crate::util::Env;

/// The heading of the step in INSTALL.md.
const STEP: &str = "## 5. Try it";

/// What stands in the step for the id `chart` printed.
const ID_PLACEHOLDER: &str = "<the id chart printed>";

/// The step's commands: the lines of its first `sh` block.
fn try_it() -> Vec<String> {
    let install =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/INSTALL.md")).unwrap();
    let from = install.find(STEP).expect("INSTALL.md has no Try it step");
    let body = &install[from..];
    let start = body.find("```sh\n").expect("the step's commands") + "```sh\n".len();
    let end = start + body[start..].find("```\n").expect("the end of the block");
    body[start..end].lines().map(str::to_string).collect()
}

#[test]
fn install_md_try_it_does_what_its_check_says() {
    let commands = try_it();
    // chart, ask, unchart, and (optionally) the same ask again.
    assert!((3..=4).contains(&commands.len()), "{commands:?}");
    assert!(commands[0].starts_with("capn chart "), "{}", commands[0]);
    assert!(commands[1].starts_with("capn ask "), "{}", commands[1]);
    assert!(commands[2].starts_with("capn unchart "), "{}", commands[2]);
    // Both recall modes `init` offers (step 2 and its `--no-embedding` variant).
    for init in [&["init"][..], &["init", "--no-embedding"]] {
        let env = Env::git();
        env.write("src/main.rs", "fn main() {}\n");
        env.run(init).ok();
        let bin = env!("CARGO_BIN_EXE_capn");
        let run = |command: &str| {
            let script = format!("capn() {{ '{bin}' \"$@\"; }}\n{command}");
            env.run_cmd(env.sh(&script), b"")
        };
        let charted = run(&commands[0]);
        assert_eq!(charted.code, 0, "{init:?} {charted:?}");
        let id = charted
            .stdout
            .trim()
            .strip_prefix("charted ")
            .unwrap_or_else(|| panic!("{init:?}: chart printed {:?}", charted.stdout))
            .to_string();
        let asked = run(&commands[1]);
        assert_eq!(asked.code, 0, "{init:?}: the check's ask missed: {asked:?}");
        let first = &asked.jsonl()[0];
        assert_eq!(first["id"], id.as_str(), "{init:?}");
        assert_eq!(
            first["files"],
            serde_json::json!(["src/main.rs"]),
            "{init:?}"
        );
        assert!(commands[2].contains(ID_PLACEHOLDER), "{}", commands[2]);
        let unchart = run(&commands[2].replace(ID_PLACEHOLDER, &id));
        assert_eq!(unchart.code, 0, "{init:?} {unchart:?}");
        assert_eq!(unchart.stdout, format!("uncharted {id}\n"));
        if let Some(again) = commands.get(3) {
            assert_eq!(again, &commands[1], "asked again after unchart");
            let again = run(again);
            assert_eq!(again.code, 1, "{init:?} {again:?}");
            assert_eq!(again.stdout, "");
        }
    }
}

/// `capn --help` and the crate's description (what crates.io and `cargo install` show) say what
/// a chart does when a file changes: it is hidden and kept. They said it "deletes itself".
#[test]
fn help_and_the_crate_description_say_a_stale_chart_is_hidden_and_kept() {
    let env = Env::new();
    let help = env.run(&["--help"]).ok().stdout;
    let said = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        said.contains("the chart is hidden (kept, not deleted)"),
        "{help}"
    );
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let description = manifest
        .lines()
        .find_map(|l| l.strip_prefix("description = "))
        .expect("a description");
    for text in [said.as_str(), description] {
        assert!(!text.contains("delete themselves"), "{text}");
        assert!(!text.contains("deletes itself"), "{text}");
    }
    assert!(description.contains("hidden (kept"), "{description}");
}
