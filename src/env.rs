//! The environment variables capn reads, in one place: their names and how an empty value is
//! treated (as unset, everywhere). The per-user directories behind `HOME`/`XDG_*` are resolved
//! by the `directories` crate ([`crate::session::state_dir`]).

use std::ffi::OsString;

/// `CAPN_STATE_DIR`: the per-user state dir, overriding `$XDG_STATE_HOME/capn-hook`.
pub const STATE_DIR: &str = "CAPN_STATE_DIR";

/// `CAPN_SESSION_ID`: the session `capn state` works on when `--session` is not given (exported
/// by the SessionStart hook through `CLAUDE_ENV_FILE`).
pub const SESSION_ID: &str = "CAPN_SESSION_ID";

/// `CAPN_LAUNCHER_PATH`: the `PATH` a GUI launcher gives the host, for `capn doctor`.
pub const LAUNCHER_PATH: &str = "CAPN_LAUNCHER_PATH";

/// `CLAUDE_PROJECT_DIR`: the session's project root, set by Claude Code for hooks (hooks
/// reference, "Environment").
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// `CLAUDE_ENV_FILE`: the file Claude Code sources before each Bash command; SessionStart appends
/// its export there (hooks reference, section 1.6).
pub const CLAUDE_ENV_FILE: &str = "CLAUDE_ENV_FILE";

/// `PATH`.
pub const PATH: &str = "PATH";

/// The user's home folder, as a shell expands `~` with it.
pub const HOME: &str = "HOME";

/// The value of `name`, `None` when unset or empty.
pub fn get_os(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The value of `name` as UTF-8, `None` when unset, empty or not UTF-8.
pub fn get(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
