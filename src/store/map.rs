//! `.capn/map.json`: the derived reverse index, path → `{ "hash": "<sha256>", "entries": [ids] }`,
//! keys and ids sorted, pretty-printed with 2 spaces (same shape as capn-hook 0.2; format.md).

use super::index::Snapshot;
use crate::fsutil::{write_atomic_with, write_if_changed, Durability};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Serialize)]
struct MapItem<'a> {
    hash: String,
    entries: Vec<&'a str>,
}

/// Renders map.json for a snapshot. When entries record different hashes for one path (one of
/// them is stale), the hash of the last entry in id order is shown, as capn-hook 0.2 does.
pub(crate) fn render(snap: &Snapshot) -> String {
    let mut map: BTreeMap<&str, MapItem<'_>> = BTreeMap::new();
    for i in 0..snap.len() {
        for (path, hash) in snap.files_of(i) {
            let item = map.entry(path).or_insert_with(|| MapItem {
                hash: String::new(),
                entries: Vec::new(),
            });
            item.hash = crate::hex::encode(hash);
            item.entries.push(&snap.ids[i]);
        }
    }
    let mut s = serde_json::to_string_pretty(&map).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// Writes map.json for a snapshot when its content differs. It is derived and rebuilt when
/// missing, so it is written without `fsync` (see [`Durability::Rebuildable`]).
///
/// Errors: the write fails (`could not replace <path>`).
pub(crate) fn save(path: &Path, snap: &Snapshot) -> anyhow::Result<()> {
    let text = render(snap);
    if snap.content_changed {
        // The entries changed, so the map did too: no need to read the old one to compare.
        write_atomic_with(path, text.as_bytes(), Durability::Rebuildable)?;
    } else {
        write_if_changed(path, text.as_bytes(), Durability::Rebuildable)?;
    }
    Ok(())
}
