//! The environment variables capn reads, in one place: their names and how an empty value is
//! treated (as unset, everywhere). The per-user directories behind `HOME`/`XDG_*` are resolved
//! by the `directories` crate ([`crate::session::state_dir`]).

use std::ffi::OsString;

/// `CAPN_STATE_DIR`: the per-user state dir, overriding `$XDG_STATE_HOME/capn-hook`.
pub(crate) const STATE_DIR: &str = "CAPN_STATE_DIR";

/// `CAPN_SESSION_ID`: the session `capn state` works on when `--session` is not given (exported
/// by the SessionStart hook through `CLAUDE_ENV_FILE`).
pub(crate) const SESSION_ID: &str = "CAPN_SESSION_ID";

/// `CAPN_LAUNCHER_PATH`: the `PATH` a GUI launcher gives the host, for `capn doctor`.
pub(crate) const LAUNCHER_PATH: &str = "CAPN_LAUNCHER_PATH";

/// `CLAUDE_PROJECT_DIR`: the session's project root, set by Claude Code for hooks (its
/// hooks docs).
pub(crate) const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// `CLAUDE_ENV_FILE`: the file Claude Code sources before each Bash command; SessionStart appends
/// its export there (Claude Code's hooks docs, SessionStart).
pub(crate) const CLAUDE_ENV_FILE: &str = "CLAUDE_ENV_FILE";

/// `PATH`.
pub(crate) const PATH: &str = "PATH";

/// `CAPN_TEST_MAX_READ_MS`: in a debug build only, the longest a hook reads stdin in all, in
/// milliseconds, instead of `hook::stdin::MAX_READ_TIME`. The integration tests set it far past
/// their hang guard, so a hook that waited for a held-open stdin to close, instead of ending on
/// the complete payload, hangs there (and fails) rather than needing a wall-clock bound to be
/// caught. A release build does not read it.
#[cfg(debug_assertions)]
pub(crate) const TEST_MAX_READ_MS: &str = "CAPN_TEST_MAX_READ_MS";

/// `USERPROFILE`: the user's home folder on Windows, as Node's `os.homedir()` (so Claude Code
/// and Codex) reads it.
pub(crate) const USERPROFILE: &str = "USERPROFILE";

/// The user's home folder, where the hosts keep their user-level settings (`~/.claude`,
/// `~/.codex`): on Windows `%USERPROFILE%` when set and absolute (what the hosts themselves use,
/// and what a test pins), else the system's profile folder; elsewhere `$HOME` (through the
/// `directories` crate). `None` when there is none.
pub(crate) fn home_dir() -> Option<std::path::PathBuf> {
    if cfg!(windows) {
        if let Some(p) = get_os(USERPROFILE).map(std::path::PathBuf::from) {
            if p.is_absolute() {
                return Some(p);
            }
        }
    }
    directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf())
}

/// The value of `name`, `None` when unset or empty.
#[allow(clippy::disallowed_methods)] // the one reader of the environment (clippy.toml)
pub(crate) fn get_os(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The value of `name` as UTF-8, `None` when unset, empty or not UTF-8.
#[allow(clippy::disallowed_methods)] // the one reader of the environment (clippy.toml)
pub(crate) fn get(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
