//! Doctor check 1: capn on path.

use super::*;

/// Where `capn` on PATH is, relative to the running binary.
#[derive(Debug, Clone)]
pub(super) enum OnPath {
    /// No executable `capn` in any PATH directory.
    Missing,
    /// The running binary.
    Same,
    /// Another file.
    Other(PathBuf),
}

pub(super) fn exe_name() -> String {
    format!("capn{}", std::env::consts::EXE_SUFFIX)
}

/// The first executable `capn` on `PATH` ([`find_on_path_in`]), and the non-executable `capn`
/// files seen before it.
pub(super) fn find_on_path() -> (Option<PathBuf>, Vec<PathBuf>) {
    match crate::env::get_os(crate::env::PATH) {
        Some(path) => find_on_path_in(&path),
        None => (None, Vec::new()),
    }
}

/// The first executable `capn` in the directories doctor looks in of the `PATH` value `path`
/// ([`safe_run::path_dirs`]: relative ones are passed over), and the non-executable `capn`
/// files seen before it.
pub(super) fn find_on_path_in(path: &std::ffi::OsStr) -> (Option<PathBuf>, Vec<PathBuf>) {
    let mut skipped = Vec::new();
    for dir in safe_run::path_dirs(path) {
        let p = dir.join(exe_name());
        if crate::fsutil::is_executable(&p) {
            return (Some(p), skipped);
        }
        if p.exists() {
            skipped.push(p);
        }
    }
    (None, skipped)
}

/// The command that installs capn, or puts this binary's folder on PATH.
pub(super) fn path_fix() -> String {
    let dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    match dir {
        // Windows programs get PATH from the user's environment in the registry, not a shell.
        Some(d) if cfg!(windows) => format!(
            "cargo install --path . (in the capn-hook source), or add this binary's folder, {}, to your user PATH (Settings > System > About > Advanced system settings > Environment Variables), then restart the host",
            d.display()
        ),
        Some(d) => format!(
            "cargo install --path . (in the capn-hook source), or add this binary's folder to PATH: export PATH=\"{}:$PATH\"",
            d.display()
        ),
        None => "cargo install --path . (in the capn-hook source)".to_string(),
    }
}

pub(super) fn check_path(root: &Path, checks: &mut Vec<Check>) -> OnPath {
    let what = "capn on PATH";
    let (found, skipped) = find_on_path();
    let Some(found) = found else {
        let mut why = "no executable capn in any PATH directory; the hooks and the statusline run `capn` by name".to_string();
        if !skipped.is_empty() {
            let list: Vec<String> = skipped.iter().map(|p| p.display().to_string()).collect();
            why.push_str(&format!(" (not executable: {})", list.join(", ")));
        }
        checks.push(Check::failed(what, why, path_fix()));
        return OnPath::Missing;
    };
    let me = std::env::current_exe().and_then(std::fs::canonicalize);
    let same = me
        .as_ref()
        .ok()
        .is_some_and(|me| std::fs::canonicalize(&found).is_ok_and(|f| &f == me));
    if same {
        checks.push(Check::ok(format!(
            "{what}: {} (this binary, capn {})",
            found.display(),
            env!("CARGO_PKG_VERSION")
        )));
        return OnPath::Same;
    }
    if crate::fsutil::lies_inside(&found, root) {
        let resolved = crate::fsutil::resolved(&found);
        // Never started: it is the repository's code (see safe_run).
        checks.push(Check::failed(
            format!("{what}: {}", found.display()),
            format!(
                "it lies inside this project ({}), so the hooks would run the repository's own code; doctor does not start it",
                resolved.display()
            ),
            path_fix(),
        ));
        return OnPath::Other(found);
    }
    let mut version = Command::new(&found);
    version.arg("--version");
    let out = run_captured(version, b"", STATUSLINE_BUDGET);
    let reported = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let reported = if out.success() && !reported.is_empty() {
        reported
    } else {
        "no version".to_string()
    };
    let me = me
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "unknown".into());
    checks.push(Check::warn(
        format!("{what}: {}", found.display()),
        format!(
            "it is not this binary ({me}, capn {}); it reports {}, and the hooks run it",
            env!("CARGO_PKG_VERSION"),
            crate::present::quote(&reported, crate::present::MAX_QUESTION_CHARS)
        ),
        Some(format!(
            "if it is stale: cargo install --path . (in the capn-hook source), or put {} first on PATH",
            Path::new(&me).parent().unwrap_or(Path::new(".")).display()
        )),
    ));
    OnPath::Other(found)
}
