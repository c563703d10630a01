//! Nothing of capn in the user's tracked files (issue 28), in real git repositories: a local
//! store keeps itself out of git (`.capn/.gitignore`) without editing the project's
//! `.gitignore`; the line capn 0.3 added there is taken back while it is not committed;
//! `uninstall` leaves `git status` as it was before `init` and removes the folders it made;
//! the post-commit hook is edited line by line in its own line ends and given back byte for
//! byte.

use crate::git_scenarios::{capn, chart, git, listed, repo, FILES, Q};
#[cfg(unix)]
use crate::init::PRUNE_LINES;
use crate::user_data::forge_0_3_record;
use std::path::Path;

/// `git status --porcelain` in `root`.
fn status(env: &crate::util::Env, root: &Path) -> String {
    git(env, root, &["status", "--porcelain"])
}

#[test]
fn init_and_uninstall_leave_git_status_as_it_was() {
    let mut files = FILES.to_vec();
    files.push((".gitignore", "node_modules\n"));
    let env = repo(&files);
    let root = env.root.clone();
    assert_eq!(status(&env, &root), "");
    capn(&env, &root, &["init", "--git"]).ok();
    let id = chart(&env, &root, Q, "src/webhooks.rs");
    // Only the host files capn registers in show; .gitignore and .capn/ do not.
    let st = status(&env, &root);
    assert_eq!(st, "?? .claude/\n?? .codex/\n", "{st}");
    assert_eq!(env.read(".gitignore"), "node_modules\n");
    // A routine commit of everything on a branch takes no capn line along.
    git(&env, &root, &["checkout", "-q", "-b", "feature"]);
    env.write("src/pdf.rs", "// routine edit\n");
    git(&env, &root, &["commit", "-q", "-am", "routine"]);
    git(&env, &root, &["checkout", "-q", "main"]);
    assert_eq!(
        git(&env, &root, &["ls-files", ".capn", ".gitignore"]),
        ".gitignore\n"
    );

    let run = capn(&env, &root, &["uninstall"]).ok();
    assert!(
        run.stdout.contains("capn uninstall --purge deletes it"),
        "{run:?}"
    );
    assert_eq!(status(&env, &root), "");
    for made in [".claude", ".codex"] {
        assert!(!root.join(made).exists(), "uninstall left {made}/");
    }
    // The charts stay, out of git's sight, and answer after a new init.
    assert!(listed(&env, &root).iter().any(|(i, _)| *i == id));
    capn(&env, &root, &["init"]).ok();
    capn(&env, &root, &["uninstall", "--purge"]).ok();
    assert!(!root.join(".capn").exists());
    assert_eq!(status(&env, &root), "");
}

/// capn 0.3 added `.capn/` to `.gitignore`: where its install record says 0.3 ran, init takes
/// back that exact line while it is not committed (a committed one is the team's), deleting a
/// `.gitignore` that 0.3 created for it alone; every other byte stays. (Without such a record
/// the line is the user's: `user_data.rs`.)
#[test]
fn the_0_3_gitignore_line_is_taken_back_unless_committed() {
    // 0.3 appended the line to a tracked .gitignore, not committed since.
    let mut files = FILES.to_vec();
    files.push((".gitignore", "dist\r\n"));
    let env = repo(&files);
    let root = env.root.clone();
    env.write(".gitignore", "dist\r\n.capn/\r\n");
    env.write(".capn/entries/.keep", "");
    forge_0_3_record(&env);
    capn(&env, &root, &["init"]).ok();
    assert_eq!(env.read(".gitignore"), "dist\r\n");
    let st = status(&env, &root);
    assert!(!st.contains(".gitignore") && !st.contains(".capn"), "{st}");

    // 0.3 created .gitignore for its line alone: it goes.
    let env = repo(&FILES);
    let root = env.root.clone();
    env.write(".gitignore", ".capn/\n");
    forge_0_3_record(&env);
    capn(&env, &root, &["init"]).ok();
    assert!(!root.join(".gitignore").exists());
    capn(&env, &root, &["uninstall"]).ok();
    assert_eq!(status(&env, &root), "");

    // Committed: a teammate on 0.3 relies on it; it stays, byte for byte.
    let mut files = FILES.to_vec();
    files.push((".gitignore", "dist\n.capn/\n"));
    let env = repo(&files);
    let root = env.root.clone();
    forge_0_3_record(&env);
    capn(&env, &root, &["init"]).ok();
    assert_eq!(env.read(".gitignore"), "dist\n.capn/\n");
    capn(&env, &root, &["uninstall"]).ok();
    assert_eq!(status(&env, &root), "");
}

/// A post-commit hook with mixed line ends (and the user's own `capn prune` line): init edits
/// it line by line, each line keeping its own end, so the hook still runs on the next commit;
/// uninstall gives the bytes back exactly.
#[cfg(unix)]
#[test]
fn a_mixed_line_end_post_commit_hook_runs_and_comes_back_byte_for_byte() {
    use std::os::unix::fs::PermissionsExt;
    let env = repo(&FILES);
    let root = env.root.clone();
    let original =
        "#!/bin/sh\n# saved once by a Windows editor\r\necho ran >> .git/hook-ran\ncapn prune\n";
    let hook = root.join(".git/hooks/post-commit");
    std::fs::write(&hook, original).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    capn(&env, &root, &["init", "--git"]).ok();
    let text = std::fs::read_to_string(&hook).unwrap();
    assert_eq!(
        text,
        format!(
            "#!/bin/sh\n{PRUNE_LINES}# saved once by a Windows editor\r\necho ran >> .git/hook-ran\n"
        )
    );
    git(
        &env,
        &root,
        &["commit", "-q", "--allow-empty", "-m", "runs the hook"],
    );
    assert_eq!(env.read(".git/hook-ran"), "ran\n", "the hook did not run");
    capn(&env, &root, &["uninstall"]).ok();
    assert_eq!(std::fs::read(&hook).unwrap(), original.as_bytes());
    let mode = std::fs::metadata(&hook).unwrap().permissions().mode();
    assert_ne!(mode & 0o111, 0, "no longer executable");

    // Edited after init: only capn's lines leave it, every other line with its own end.
    capn(&env, &root, &["init", "--git"]).ok();
    let mut text = std::fs::read_to_string(&hook).unwrap();
    text.push_str("echo later\r\n");
    std::fs::write(&hook, &text).unwrap();
    capn(&env, &root, &["uninstall"]).ok();
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\n# saved once by a Windows editor\r\necho ran >> .git/hook-ran\necho later\r\n"
    );
}

/// Charting before `init` makes a store that keeps itself out of git all the same.
#[test]
fn a_chart_without_init_leaves_git_status_as_it_was() {
    let env = repo(&FILES);
    let root = env.root.clone();
    let run = capn(&env, &root, &["chart", Q, "--files", "src/webhooks.rs"]).ok();
    assert!(
        run.stderr
            .contains("run `capn init` to register the agent hooks"),
        "{run:?}"
    );
    assert_eq!(status(&env, &root), "");
}
