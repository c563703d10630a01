//! What several subcommands say alike: not a subcommand, and it imports none, so each command
//! depends only on this and the lower layers, never on another command.

/// The message `ask` prints (after `capn: `) instead of the ordinary nudge outside any project
/// ([`crate::store::Store::is_outside_project`]); `list`, `prune`, `bust` and `unchart` say the
/// same, each naming itself as `command`.
pub(crate) fn outside_project(command: &str) -> String {
    format!(
        "not inside a project: there is no .capn/ here or in any parent folder, and this is not a git repository. Charts are kept per project: run `capn {command}` from inside one, or `capn init` at a project's root to start charting there."
    )
}

/// What `ask` says (after `capn: `) in a project that has no store yet: how to start one.
pub(crate) fn no_store(root: &std::path::Path) -> String {
    format!(
        "no charts here yet: {} has no .capn/ store. Run `capn init` there to set capn up for this project (the first `capn chart` also starts the store).",
        root.display()
    )
}

/// What an install or uninstall changed, as printed: the line `header` (`capn init in <dir>:`,
/// say) with each of `done` under it, indented two spaces; or, when `done` is empty, the one
/// line `unchanged` (which says that nothing changed). Every line ends in `\n`.
pub(crate) fn changes<S: AsRef<str>>(header: &str, done: &[S], unchanged: &str) -> String {
    if done.is_empty() {
        return format!("{unchanged}\n");
    }
    let mut out = format!("{header}\n");
    for line in done {
        out.push_str("  ");
        out.push_str(line.as_ref());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::changes;

    #[test]
    fn changes_lists_what_was_done_under_the_header_or_says_nothing_changed() {
        let none: [&str; 0] = [];
        assert_eq!(
            changes("capn x in /p:", &none, "nothing changed"),
            "nothing changed\n"
        );
        assert_eq!(
            changes("capn x in /p:", &["wrote a", "kept b"], "nothing changed"),
            "capn x in /p:\n  wrote a\n  kept b\n"
        );
    }
}
