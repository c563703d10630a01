//! README.md's quick start is true for a new user: from a clean HOME, with `capn` on PATH as an
//! install puts it, its shell blocks ("Quick start", then "The everyday loop") are replayed as
//! written, in a new git project named as the README names it, and every command must succeed;
//! the loop's `capn ask` must answer with the charted files.

use crate::util::{install_capn_in, Env};

/// The ```sh blocks of the README section `heading` (up to the next `## `), in order.
fn blocks(readme: &str, heading: &str) -> Vec<String> {
    let from = readme
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README.md has no {heading:?}"));
    let section = &readme[from + heading.len() + 2..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    section
        .split("```sh\n")
        .skip(1)
        .map(|b| b[..b.find("```").expect("closed block")].to_string())
        .collect()
}

#[test]
fn the_readme_quick_start_works_from_a_clean_home() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut script = String::from("set -eu\n");
    for heading in ["## Quick start", "## The everyday loop"] {
        let found = blocks(&readme, heading);
        assert!(!found.is_empty(), "no sh block under {heading}");
        // The loop's first block is the one a user types; the Examples block after it is
        // readme_examples.rs's.
        let take = if heading == "## Quick start" {
            found.len()
        } else {
            1
        };
        for b in &found[..take] {
            script.push_str(b);
        }
    }
    assert!(script.contains("capn init --user"), "{script}");
    assert!(script.contains("cd your-project"), "{script}");

    let env = Env::new();
    let top = env.tmp.path().canonicalize().unwrap();
    let project = top.join("your-project");
    std::fs::create_dir_all(project.join("src/api")).unwrap();
    std::fs::create_dir_all(project.join("src/billing")).unwrap();
    std::fs::write(project.join("src/api/webhooks.ts"), "// router\n").unwrap();
    std::fs::write(project.join("src/billing/stripe.ts"), "// stripe\n").unwrap();
    let git = env.git_cmd(&project, &["init", "-q"]).status().unwrap();
    assert!(git.success());
    let bin = install_capn_in(&top.join("bin"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = env.sh(&script);
    c.current_dir(&top).env("PATH", path);
    let run = env.run_cmd(c, b"");
    assert_eq!(
        run.code, 0,
        "the quick start failed\nscript:\n{script}\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(run.stdout.contains("capn doctor: all "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(r#""files":["src/api/webhooks.ts","src/billing/stripe.ts"]"#),
        "{}",
        run.stdout
    );
    assert!(project.join(".capn/entries").is_dir());
    assert!(env.home.join(".claude/settings.json").is_file());
}
