//! What several subcommands say alike: not a subcommand, and it imports none, so each command
//! depends only on this and the lower layers, never on another command.

/// The message `ask` prints (after `capn: `) instead of the ordinary nudge outside any project
/// ([`crate::store::Store::is_outside_project`]); `list`, `prune`, `bust` and `unchart` say the
/// same, each naming itself as `command`.
pub fn outside_project(command: &str) -> String {
    format!(
        "not inside a project: there is no .capn/ here or in any parent folder, and this is not a git repository. Charts are kept per project: run `capn {command}` from inside one, or `capn init` at a project's root to start charting there."
    )
}

/// What `ask` says (after `capn: `) in a project that has no store yet: how to start one.
pub fn no_store(root: &std::path::Path) -> String {
    format!(
        "no charts here yet: {} has no .capn/ store. Run `capn init` there to set capn up for this project (the first `capn chart` also starts the store).",
        root.display()
    )
}

/// The command that deletes stale charts, as messages name it: `capn prune`, or in a shared
/// store (where `prune` only lists them) `capn prune --yes`.
pub fn deleting_command(shared: bool) -> &'static str {
    if shared {
        "capn prune --yes"
    } else {
        "capn prune"
    }
}
