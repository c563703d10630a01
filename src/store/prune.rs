//! `capn prune`'s operation: delete stale charted answers (capn never does on its own: a stale
//! chart is hidden and answers again once its files hash as charted), or in a shared store only
//! list them ([`prune`]).

use crate::store::entry::Entry;
use crate::store::Store;
use anyhow::Result;

/// What `capn prune` was asked to do.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PruneRequest {
    /// `--expired`: apply the retention rule only ([`crate::store::retention`]).
    pub expired: bool,
    /// `--yes`: delete in a shared store too.
    pub yes: bool,
}

/// Prunes the existing store `store` as `req` asks, under the writers' lock. Returns what to
/// print: `pruned N stale entries` (`pruned 1 stale entry`) and then one line per deleted
/// chart, `  "<question>" (<files>)`, or nothing when none was deleted.
///
/// - In a shared store (`capn init --shared`, or charts git tracks) without `yes`, nothing is
///   deleted: `N stale entries (kept: ...)` and the same lines, saying how to delete them.
/// - A chart current in another checkout of the repository is kept, and counted: `kept N stale
///   charts that are current in another checkout, branch or stash of this repository:` and one
///   line per kept chart.
/// - `expired` applies the retention rule only: `pruned N entries stale for over D days`; in a
///   shared store nothing, and a line that says so.
///
/// Errors: a store whose config does not say whether it is shared, unless `expired` (nothing
/// is deleted, see [`refuse_unknown_mode`]); the lock cannot be taken; an entry file cannot be
/// removed or the entries folder listed.
pub(crate) fn prune(store: &Store, req: PruneRequest) -> Result<String> {
    let mut config = store.config();
    if config.shared_unknown && !req.expired {
        refuse_unknown_mode(store)?;
    }
    // What git tracks decides too: committed charts are the team's, whatever the config says.
    // (A config that cannot say stays `shared_unknown`: refused above, or no retention below.)
    config.shared = config.shared || store.ignore_shares() || tracks_charts(store);
    if req.expired {
        expired(store, &config)
    } else if config.shared && !req.yes {
        listed(store)
    } else {
        deleted(store)
    }
}

/// `--expired`: deletes the charts stale for over `stale_days` (none in a shared store, or in
/// one whose mode capn cannot tell) and says what it deleted.
fn expired(store: &Store, config: &crate::config::Config) -> Result<String> {
    let mut w = store.open_writer()?;
    let now_s = crate::clock::now_ns() / 1_000_000_000;
    // Nothing expires in a shared store (0: never), and nothing while capn cannot tell.
    let days = if config.shared || config.shared_unknown {
        0
    } else {
        config.stale_days
    };
    let expired = w.prune_expired(days, now_s)?;
    w.finish_or_warn();
    let mut out = String::new();
    if config.shared {
        out.push_str(
            "retention is off in a shared store (a teammate's branch may hold the files); capn prune lists the stale charts, capn prune --yes deletes them\n",
        );
    } else if config.shared_unknown {
        out.push_str(&format!(
            "retention is off while capn cannot tell whether this store is shared ({} does not say \"shared\": true or false); fix it, and capn prune --expired deletes the charts stale past the retention again\n",
            store.config_name()
        ));
    }
    let n = expired.deleted.len();
    if n > 0 {
        let noun = if n == 1 { "entry" } else { "entries" };
        out.push_str(&format!(
            "pruned {n} {noun} stale for over {} days\n",
            config.stale_days
        ));
        out.push_str(&named(&expired.deleted));
    }
    Ok(out)
}

/// A shared store without `--yes`: lists the stale charts, deleting none.
fn listed(store: &Store) -> Result<String> {
    let mut w = store.open_writer()?;
    let stale = w.stale_entries()?;
    w.finish_or_warn();
    let n = stale.len();
    if n == 0 {
        return Ok(String::new());
    }
    let noun = if n == 1 { "entry" } else { "entries" };
    Ok(format!(
        "{n} stale {noun} (kept: this store is shared, and a teammate's branch may hold the files they were charted on; capn prune --yes deletes them):\n{}",
        named(&stale)
    ))
}

/// Deletes the stale charts not current in another checkout, and says which it deleted and
/// which it kept.
fn deleted(store: &Store) -> Result<String> {
    let mut w = store.open_writer()?;
    let pruned = w.prune()?;
    w.finish_or_warn();
    let mut out = String::new();
    let n = pruned.deleted.len();
    if n > 0 {
        let noun = if n == 1 { "entry" } else { "entries" };
        out.push_str(&format!("pruned {n} stale {noun}\n"));
        out.push_str(&named(&pruned.deleted));
    }
    if !pruned.kept.is_empty() {
        let (noun, is) = if pruned.kept.len() == 1 {
            ("chart", "is")
        } else {
            ("charts", "are")
        };
        out.push_str(&format!(
            "kept {} stale {noun} that {is} current in another checkout, branch or stash of this repository:\n",
            pruned.kept.len()
        ));
        out.push_str(&named(&pruned.kept));
    }
    Ok(out)
}

/// Refuses a prune that could delete charts of a store whose mode capn cannot read from its
/// config (see [`crate::config::Config::shared_unknown`]).
///
/// Errors: always, naming the config file and what to do.
fn refuse_unknown_mode(store: &Store) -> Result<()> {
    anyhow::bail!(
        "could not tell whether this store is shared: {} does not say \"shared\": true or \
         false (a merge conflict in it? \"true\" in quotes?); prune deletes nothing until it \
         does (fix the file, or run capn init --shared or capn init --local after fixing it)",
        store.config_path().display()
    )
}

/// True when git tracks a chart of the store (`git ls-files` of `.capn/entries`): it is
/// committed, so the store is shared whatever `.capn/config.json` says. False without git.
fn tracks_charts(store: &Store) -> bool {
    let Some(rel) = store
        .entries_dir()
        .strip_prefix(&store.root)
        .ok()
        .map(|p| p.to_owned())
    else {
        return false;
    };
    let Some(rel) = rel.to_str() else {
        return false;
    };
    crate::process::git_output(&store.root, &["ls-files", "-z", "--", rel])
        .is_some_and(|out| !out.is_empty())
}

/// One line per chart, `  "<question>" (<files>)` (`  <id> (...)` for a chart that holds what
/// looks like a secret, which is never shown: `crate::store::withheld`).
fn named(entries: &[Entry]) -> String {
    entries
        .iter()
        .map(|e| {
            if crate::store::withheld::holds_secret(e) {
                return format!(
                    "  {} (not shown: it holds what looks like a secret)\n",
                    e.id
                );
            }
            format!(
                "  {}\n",
                crate::present::named_chart(&e.question, e.files.keys())
            )
        })
        .collect()
}
