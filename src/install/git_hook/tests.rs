//! Unit tests of [`super`]: where the line goes, when it runs, which hooks are refused.

use super::*;

#[test]
fn prune_goes_right_after_the_shebang_guarded_and_backgrounded() {
    let c = POST_COMMIT_COMMENT;
    let g = PRUNE_GUARDED;
    assert_eq!(
        insert_prune("#!/bin/sh\nhas_hook_script postcommit || exit 0\necho hi\n"),
        format!("#!/bin/sh\n{c}\n{g}\nhas_hook_script postcommit || exit 0\necho hi\n")
    );
    assert_eq!(
        insert_prune("#!/bin/sh\r\nexec other-hook \"$@\"\r\n"),
        format!("#!/bin/sh\r\n{c}\r\n{g}\r\nexec other-hook \"$@\"\r\n")
    );
    assert_eq!(
        insert_prune("echo no shebang"),
        format!("{c}\n{g}\necho no shebang")
    );
    // Mixed line ends: each line keeps its own; the new ones take the #! line's.
    let mixed = "#!/bin/sh\r\necho a\nexit 0\r\necho b";
    let added = insert_prune(mixed);
    assert_eq!(
        added,
        format!("#!/bin/sh\r\n{c}\r\n{g}\r\necho a\nexit 0\r\necho b")
    );
    assert_eq!(without_line(&added, &PRUNE), mixed);
    assert_eq!(insert_prune("#!/bin/sh"), format!("#!/bin/sh\n{c}\n{g}\n"));
    assert_eq!(
        prune_status(&insert_prune("#!/bin/sh\nexit 0\n")),
        PruneStatus::Runs
    );
}

#[test]
fn a_prune_line_after_an_early_exit_may_not_run() {
    let g = PRUNE_GUARDED;
    assert_eq!(
        prune_status("#!/bin/sh\ncapn prune\n"),
        PruneStatus::Outdated("capn prune".into())
    );
    for (text, runs) in [
        (format!("#!/bin/sh\n{g}\n"), true),
        (format!("#!/bin/sh\n# exit is a comment\n\n{g}\n"), true),
        (
            "#!/bin/sh\nhas_hook_script postcommit || exit 0\necho x\ncapn prune\n".into(),
            false,
        ),
        ("#!/bin/sh\nexec husky \"$@\"\ncapn prune\n".into(), false),
        ("#!/bin/sh\nset -eu\nmake check\ncapn prune\n".into(), false),
        (
            "#!/bin/sh\nif [ -x x ]; then exit 1; fi\ncapn prune\n".into(),
            false,
        ),
        (format!("#!/bin/sh\necho exited\n{g}\n"), true),
    ] {
        let st = prune_status(&text);
        assert_eq!(st == PruneStatus::Runs, runs, "{text:?}: {st:?}");
    }
    assert_eq!(prune_status("#!/bin/sh\n"), PruneStatus::Absent);
}

#[test]
fn only_posix_shells_are_accepted() {
    for ok in [
        "#!/bin/sh\n",
        "#!/bin/bash -e\n",
        "#!/usr/bin/env bash\n",
        "#!/usr/bin/env -S zsh -f\n",
        "#!/usr/bin/env FOO=1 dash\n",
        "echo no shebang\n",
        "",
    ] {
        assert_eq!(non_shell_interpreter(ok), None, "{ok:?}");
    }
    for bad in [
        "#!/usr/bin/env python3\n",
        "#!/usr/bin/python\n",
        "#!/usr/bin/env node\n",
        "#!/usr/bin/env\n",
        "#!\n",
    ] {
        assert!(non_shell_interpreter(bad).is_some(), "{bad:?}");
    }
}

#[test]
fn plan_refuses_a_python_hook_and_sees_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("post-commit");
    assert_eq!(plan_add(&p).unwrap(), AddPlan::Create(created_hook_text()));
    std::fs::write(&p, "#!/bin/sh\necho disabled\n").unwrap();
    #[cfg(unix)]
    {
        let e = plan_add(&p).unwrap_err();
        assert!(e.downcast_ref::<Refused>().is_some(), "{e:#}");
        assert!(e.to_string().contains("not executable"), "{e:#}");
    }
    set_executable(&p).unwrap();
    assert!(matches!(plan_add(&p).unwrap(), AddPlan::Update(_)));
    std::fs::write(&p, "#!/usr/bin/env python3\nprint('hi')\n").unwrap();
    let e = plan_add(&p).unwrap_err();
    assert!(e.downcast_ref::<Refused>().is_some(), "{e:#}");
    assert!(e.to_string().contains("python3"), "{e:#}");
    std::fs::write(&p, format!("#!/bin/sh\n{PRUNE_GUARDED}\n")).unwrap();
    assert_eq!(plan_add(&p).unwrap(), AddPlan::Present);
    // An older capn's plain `capn prune` is replaced.
    std::fs::write(&p, "#!/bin/sh\ncapn prune\n").unwrap();
    assert_eq!(
        plan_add(&p).unwrap(),
        AddPlan::Update(format!(
            "#!/bin/sh\n{POST_COMMIT_COMMENT}\n{PRUNE_GUARDED}\n"
        ))
    );
    // 0.3.0 appended it after an early exit: it moves to the top, guarded.
    std::fs::write(&p, "#!/bin/sh\ntest -x x || exit 0\ncapn prune\n").unwrap();
    assert_eq!(
        plan_add(&p).unwrap(),
        AddPlan::Update(format!(
            "#!/bin/sh\n{POST_COMMIT_COMMENT}\n{PRUNE_GUARDED}\ntest -x x || exit 0\n"
        ))
    );
}

#[test]
fn a_hooks_folder_outside_the_project_or_behind_a_symlink_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(dir.path().join("decoy")).unwrap();
    assert_eq!(
        inside_project(&root, &root.join(".git/hooks")).unwrap(),
        root.join(".git/hooks")
    );
    assert!(inside_project(&root, &root.join("a/../.husky/_")).is_err());
    let e = inside_project(&root, &dir.path().join("decoy")).unwrap_err();
    assert!(e.downcast_ref::<Refused>().is_some(), "{e:#}");
    assert!(e.to_string().contains("outside the project"), "{e:#}");
    assert!(e.to_string().contains(PRUNE_GUARDED), "{e:#}");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("../decoy", root.join(".husky")).unwrap();
        let e = inside_project(&root, &root.join(".husky/_")).unwrap_err();
        assert!(e.to_string().contains("symlink"), "{e:#}");
    }
}

#[test]
fn the_refresh_line_is_added_and_taken_out_like_the_prune_line() {
    let user = "#!/bin/bash\r\nset -e\r\nexec husky post-merge\r\n";
    let added = insert_line(user, &REFRESH);
    assert_eq!(
        added,
        format!("#!/bin/bash\r\n{REFRESH_COMMENT}\r\n{REFRESH_GUARDED}\r\nset -e\r\nexec husky post-merge\r\n")
    );
    assert_eq!(line_status(&added, &REFRESH), PruneStatus::Runs);
    // Each line is its own: the prune line is not the refresh line, nor the other way round.
    assert_eq!(line_status(&added, &PRUNE), PruneStatus::Absent);
    assert_eq!(without_line(&added, &REFRESH), user);
    assert_eq!(without_line(&added, &PRUNE), added);
    assert!(is_created_text(created_text(&REFRESH).as_bytes(), &REFRESH));
    assert!(!is_created_text(created_text(&REFRESH).as_bytes(), &PRUNE));
    let late = format!("#!/bin/sh\nexit 0\n{REFRESH_GUARDED}\n");
    assert!(matches!(
        line_status(&late, &REFRESH),
        PruneStatus::MayNotRun(_)
    ));
}

#[test]
fn a_shebang_ending_in_crlf_cannot_start_on_unix() {
    let crlf = "#!/bin/sh\r\necho hi\r\n";
    assert_eq!(cannot_start(crlf).is_some(), cfg!(unix));
    assert_eq!(cannot_start("#!/bin/sh -e\r").is_some(), cfg!(unix));
    // Only the #! line counts: a CRLF body, or a first line that is no #! line, starts.
    for ok in ["#!/bin/sh\necho hi\r\n", "echo hi\r\n", "", "#!/bin/sh"] {
        assert!(cannot_start(ok).is_none(), "{ok:?}");
    }
}
