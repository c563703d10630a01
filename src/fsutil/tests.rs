use super::*;

#[cfg(unix)]
fn mkfifo(p: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", p.display());
}

#[test]
#[cfg(unix)] // symlinks need a privilege on Windows
fn lies_inside_judges_the_path_as_given_and_resolved() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    fs::create_dir_all(root.join("bin")).unwrap();
    fs::write(root.join("bin/capn"), "").unwrap();
    let outside = tmp.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(root.join("bin/capn"), outside.join("capn")).unwrap();
    fs::write(outside.join("real"), "").unwrap();
    assert!(lies_inside(&root.join("bin/capn"), &root));
    assert!(
        lies_inside(&outside.join("capn"), &root),
        "a symlink leading in"
    );
    assert!(
        lies_inside(&outside.join("../project/bin/capn"), &root),
        "`..`"
    );
    assert!(
        lies_inside(&root.join("not-yet/there"), &root),
        "missing, as given"
    );
    assert!(!lies_inside(&outside.join("real"), &root));
    assert!(!lies_inside(&outside.join("missing"), &root));
}

#[test]
fn write_atomic_replaces_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.txt");
    write_atomic(&p, b"one").unwrap();
    write_atomic(&p, b"two").unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"two");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "temp files left behind");
}

#[cfg(unix)]
#[test]
fn write_atomic_replaces_a_symlink_and_gives_new_files_normal_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("decoy.txt");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().is_file());
    assert_eq!(fs::read(&link).unwrap(), b"new");
    assert_eq!(
        fs::read(&target).unwrap(),
        b"old",
        "wrote through the symlink"
    );
    let fresh = dir.path().join("fresh.txt");
    write_atomic(&fresh, b"x").unwrap();
    let mode = fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
    assert_ne!(mode & 0o044, 0, "new file is private: {mode:o}");
}

#[test]
fn write_atomic_fails_cleanly_in_missing_dir() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("missing/f.txt");
    let err = write_atomic(&p, b"x").unwrap_err();
    assert!(format!("{err:#}").contains("missing"));
}

#[cfg(unix)]
#[test]
fn reads_refuse_fifos_symlinks_and_oversized_files_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let err = read_limited(&fifo, 100, Follow::Never).unwrap_err();
    assert!(matches!(err, ReadError::NotRegular("a FIFO")), "{err}");
    let decoy = dir.path().join("decoy");
    fs::write(&decoy, "secret").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&decoy, &link).unwrap();
    assert!(matches!(
        read_limited(&link, 100, Follow::Never),
        Err(ReadError::Symlink)
    ));
    assert_eq!(
        read_limited(&link, 100, Follow::Anywhere).unwrap(),
        b"secret"
    );
    let big = dir.path().join("big");
    fs::write(&big, vec![b'x'; 101]).unwrap();
    let err = read_limited(&big, 100, Follow::Never).unwrap_err();
    assert!(matches!(
        err,
        ReadError::TooLarge {
            size: 101,
            limit: 100
        }
    ));
    assert_eq!(err.to_string(), "is 101 bytes, over the 100-byte limit");
    assert!(matches!(
        read_limited(&dir.path().join("none"), 100, Follow::Never),
        Err(ReadError::NotFound)
    ));
    assert_eq!(read_opt(&dir.path().join("none"), "x", 9).unwrap(), None);
}

#[cfg(unix)]
#[test]
fn follow_inside_refuses_a_symlink_leading_out_of_the_root() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    fs::create_dir(&root).unwrap();
    let root = fs::canonicalize(&root).unwrap();
    fs::write(outer.path().join("decoy"), "d").unwrap();
    fs::write(root.join("in.txt"), "i").unwrap();
    std::os::unix::fs::symlink(outer.path().join("decoy"), root.join("out")).unwrap();
    std::os::unix::fs::symlink(root.join("in.txt"), root.join("ok")).unwrap();
    let inside = Follow::Inside(&root);
    assert!(matches!(
        read_limited(&root.join("out"), 9, inside),
        Err(ReadError::Outside)
    ));
    assert_eq!(read_limited(&root.join("ok"), 9, inside).unwrap(), b"i");
}

#[cfg(unix)]
#[test]
fn write_atomic_refuses_a_symlinked_folder() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("linked")).unwrap();
    let err = write_atomic(&dir.path().join("linked/f"), b"x").unwrap_err();
    assert!(format!("{err:#}").contains("is a symlink"), "{err:#}");
    assert_eq!(fs::read_dir(&real).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn temp_files_of_dead_writers_are_removed_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // A pid that cannot be running: above the kernel's pid_max (at most 2^22).
    let dead = dir.path().join(format!("{TEMP_PREFIX}{}-abc", 1u32 << 30));
    let alive = dir
        .path()
        .join(format!("{TEMP_PREFIX}{}-abc", std::process::id()));
    let legacy = dir.path().join(format!("{TEMP_PREFIX}abcdef"));
    for p in [&dead, &alive, &legacy] {
        fs::write(p, "x").unwrap();
    }
    remove_stale_temp_files(dir.path(), std::time::Duration::from_secs(600));
    assert!(!dead.exists());
    assert!(alive.exists());
    assert!(legacy.exists(), "young temp file without a pid is kept");
    remove_stale_temp_files(dir.path(), std::time::Duration::ZERO);
    assert!(!legacy.exists());
    assert!(alive.exists(), "this process's own temp file is kept");
}

#[cfg(unix)]
#[test]
fn folders_are_created_and_checked_without_following_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    ensure_dir_inside(&root, &root.join("a/b/c")).unwrap();
    assert!(root.join("a/b/c").is_dir());
    check_inside(&root, &root.join("a/b/c/f.json")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("a/link")).unwrap();
    let err = ensure_dir_inside(&root, &root.join("a/link/skill")).unwrap_err();
    assert!(format!("{err:#}").contains("is a symlink"), "{err:#}");
    assert!(check_inside(&root, &root.join("a/link/f")).is_err());
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "created through the link"
    );
    assert!(check_inside(&root, &dir.path().join("elsewhere/f")).is_err());
    // The final component may be a symlink: a write replaces it, a delete removes the link.
    check_inside(&root, &root.join("a/link")).unwrap();
}

#[test]
fn write_if_changed_skips_identical_content() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    let d = Durability::Rebuildable;
    assert!(write_if_changed(&p, b"a", d).unwrap());
    assert!(!write_if_changed(&p, b"a", d).unwrap());
    assert!(write_if_changed(&p, b"b", d).unwrap());
}

#[cfg(unix)]
#[test]
fn read_host_file_refuses_symlinks_fifos_and_folders_without_blocking() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.json");
    fs::write(&f, b"{}").unwrap();
    assert_eq!(read_host_file(&f, "settings").unwrap().unwrap(), b"{}");
    assert!(read_host_file(&dir.path().join("none"), "x")
        .unwrap()
        .is_none());
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&f, &link).unwrap();
    let e = format!("{:#}", read_host_file(&link, "settings").unwrap_err());
    assert!(e.contains("symlink") && e.contains("link.json"), "{e}");
    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();
    assert!(read_host_file(&dangling, "settings").is_err());
    assert!(unwritable_reason(&dangling).unwrap().contains("dangling"));
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let e = format!("{:#}", read_host_file(&fifo, "settings").unwrap_err());
    assert!(e.contains("FIFO"), "{e}");
    assert!(read_host_file(dir.path(), "settings").is_err());
    assert!(unwritable_reason(&f).is_none());
    fs::set_permissions(&f, fs::Permissions::from_mode(0o444)).unwrap();
    assert_eq!(unwritable_reason(&f).as_deref(), Some("it is read-only"));
    assert!(unwritable_reason(&dir.path().join("new.json")).is_none());
}

#[test]
#[cfg(unix)] // symlinks need a privilege on Windows
fn resolve_user_link_follows_the_users_links_to_a_file_or_a_folder_still_to_fill() {
    let tmp = tempfile::tempdir().unwrap();
    let home = dunce::canonicalize(tmp.path()).unwrap();
    let dot = home.join("dot");
    fs::create_dir_all(dot.join("claude")).unwrap();
    fs::create_dir_all(home.join(".codex")).unwrap();
    // No link on the way: as given, for the usual checks.
    let plain = home.join(".codex/hooks.json");
    let at = resolve_user_link(&home, &plain).unwrap();
    assert_eq!(
        (at.real.as_path(), at.base.as_path()),
        (plain.as_path(), home.as_path())
    );
    assert!(!at.linked());
    // A linked folder: the file and the folders still to create go where it leads.
    std::os::unix::fs::symlink(dot.join("claude"), home.join(".claude")).unwrap();
    let skill = home.join(".claude/skills/compact-prep/SKILL.md");
    let at = resolve_user_link(&home, &skill).unwrap();
    assert_eq!(at.real, dot.join("claude/skills/compact-prep/SKILL.md"));
    assert_eq!(at.base, dot.join("claude"));
    assert!(at.linked() && !at.is_link());
    // A linked file: its target; one that leads nowhere, or to a FIFO: refused.
    fs::write(dot.join("s.json"), "{}").unwrap();
    std::os::unix::fs::symlink(dot.join("s.json"), dot.join("claude/settings.json")).unwrap();
    let at = resolve_user_link(&home, &home.join(".claude/settings.json")).unwrap();
    assert_eq!(at.real, dot.join("s.json"));
    std::os::unix::fs::symlink(dot.join("gone"), home.join(".codex/config.toml")).unwrap();
    let err = resolve_user_link(&home, &home.join(".codex/config.toml")).unwrap_err();
    assert!(format!("{err:#}").contains("(dangling)"), "{err:#}");
    mkfifo(&dot.join("fifo"));
    std::os::unix::fs::symlink(dot.join("fifo"), home.join(".codex/f")).unwrap();
    let err = resolve_user_link(&home, &home.join(".codex/f")).unwrap_err();
    assert!(
        format!("{err:#}").contains("a FIFO, not a regular file"),
        "{err:#}"
    );
    // Two links that lead to each other: a loop, not a missing file.
    std::os::unix::fs::symlink(home.join(".codex/b"), home.join(".codex/a")).unwrap();
    std::os::unix::fs::symlink(home.join(".codex/a"), home.join(".codex/b")).unwrap();
    let err = resolve_user_link(&home, &home.join(".codex/a")).unwrap_err();
    assert!(
        format!("{err:#}").contains("which leads round in a loop of symlinks"),
        "{err:#}"
    );
}
