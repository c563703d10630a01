//! Doctor check 2 (the store), continued: entries that hold a secret.

use super::*;

/// The most entries holding a secret named one by one; the rest are counted in one line.
const MAX_NAMED: usize = 20;

/// Each entry file that holds what looks like a secret ([`crate::store::withheld`]), as a
/// failure naming the file, the part and the place (never the value), with its fix: such an
/// entry is never shown or offered, and in a shared store it is in git's history.
pub(super) fn check(root: &Path, checks: &mut Vec<Check>) {
    let store = Store::at(root.to_path_buf());
    if !store.exists() {
        return;
    }
    let dir = store.entries_dir();
    let mut found = crate::store::entry_names(&dir)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|name| crate::store::index::read_entry(&dir.join(&name), &name).ok())
        .filter_map(|e| crate::store::withheld::secret_in(&e).map(|f| (e.id, f)));
    let history = if store.is_shared() {
        "; it is committed: rotate that secret too"
    } else {
        ""
    };
    for (id, f) in found.by_ref().take(MAX_NAMED) {
        let rel = format!("{}/entries/{id}.md", crate::store::STORE_DIR);
        checks.push(Check::failed(
            format!("entry {rel}"),
            format!(
                "it holds {}: it is never shown or offered while it does",
                f.describe()
            ),
            format!(
                "edit {rel} to take the value out, or delete the entry: capn unchart {id}{history}"
            ),
        ));
    }
    let more = found.count();
    if more > 0 {
        checks.push(Check::failed(
            format!(
                "{more} more entries in {}",
                crate::store::display_rel(&store.root, &dir)
            ),
            "they hold what looks like a secret",
            "capn doctor names them once the ones above are fixed",
        ));
    }
}
