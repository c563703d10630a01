//! README.md's Examples block is true: it is replayed, command by command, in a new project
//! holding the files it names, and every line each command prints (stdout and stderr, as a
//! terminal shows them) must be the line the README shows. (It showed an exact re-ask scoring
//! 87 and a `candidate` the binary printed as `related`.)

use crate::util::Env;

/// What leads into the block in README.md.
const LEAD: &str = "Examples, in a new project (`capn init`) that holds ";

/// The block's commands (the `$ ` lines, without the `$ `), each with what it prints.
fn examples() -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let from = readme.find(LEAD).expect("README.md has no Examples block");
    let body = &readme[from..];
    let start = body.find("```sh\n").expect("the Examples block") + "```sh\n".len();
    let end = start
        + body[start..]
            .find("```\n")
            .expect("the end of the Examples block");
    body[start..end]
        .trim_end()
        .split("\n\n")
        .map(|step| {
            let (command, output) = step.split_once('\n').unwrap_or((step, ""));
            let command = command
                .strip_prefix("$ ")
                .unwrap_or_else(|| panic!("not a `$ ` command line: {command:?}"));
            (command.to_string(), format!("{output}\n"))
        })
        .collect()
}

#[test]
fn the_readme_examples_print_what_the_readme_shows() {
    let env = Env::git();
    for f in [
        "src/api/webhooks.ts",
        "src/billing/stripe.ts",
        "src/pdf/certificate.tsx",
        "src/pdf/seal.ts",
    ] {
        env.write(f, &format!("// {f}\n"));
    }
    env.run(&["init"]).ok();
    let steps = examples();
    assert!(steps.len() >= 5, "{steps:?}");
    let bin = env!("CARGO_BIN_EXE_capn");
    for (command, shown) in steps {
        assert!(command.starts_with("capn "), "{command}");
        let script = format!("capn() {{ '{bin}' \"$@\"; }}\n{command} 2>&1");
        let run = env.run_cmd(env.sh(&script), b"");
        assert_eq!(run.stdout, shown, "$ {command}");
    }
}
