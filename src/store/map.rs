//! `.capn/map.json`: the derived reverse index, path → `{ "hash": "<sha256>", "entries": [ids] }`,
//! keys and ids sorted, pretty-printed with 2 spaces (same shape as capn-hook 0.2; format.md).

use super::entry::Entry;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Serialize, PartialEq)]
struct MapItem<'a> {
    hash: &'a str,
    entries: Vec<&'a str>,
}

/// Renders map.json for `entries`. When two entries record different hashes for one path, the
/// most recently charted one (`at`) wins.
pub fn render(entries: &[Entry]) -> String {
    let mut map: BTreeMap<&str, (MapItem<'_>, &str)> = BTreeMap::new();
    for e in entries {
        for (path, hash) in &e.files {
            let slot = map.entry(path).or_insert((
                MapItem {
                    hash,
                    entries: Vec::new(),
                },
                &e.at,
            ));
            slot.0.entries.push(&e.id);
            if e.at.as_str() > slot.1 {
                slot.0.hash = hash;
                slot.1 = &e.at;
            }
        }
    }
    let out: BTreeMap<&str, MapItem<'_>> = map
        .into_iter()
        .map(|(k, (mut item, _))| {
            item.entries.sort_unstable();
            item.entries.dedup();
            (k, item)
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&out).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// Writes map.json for `entries` when its content differs.
///
/// Errors: the write fails (`could not replace <path>`).
pub fn save(path: &Path, entries: &[Entry]) -> anyhow::Result<()> {
    crate::fsutil::write_if_changed(path, render(entries).as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_entries_by_path_sorted() {
        let mk = |id: &str, at: &str, files: &[(&str, char)]| Entry {
            id: id.into(),
            at: at.into(),
            files: files
                .iter()
                .map(|(p, c)| (p.to_string(), c.to_string().repeat(64)))
                .collect(),
            question: "q".into(),
            details: String::new(),
        };
        let entries = vec![
            mk("bbbbbbbb", "2026-01-02T00:00:00.000Z", &[("a.ts", 'b')]),
            mk(
                "aaaaaaaa",
                "2026-01-01T00:00:00.000Z",
                &[("a.ts", 'a'), ("z.ts", 'c')],
            ),
        ];
        let v: serde_json::Value = serde_json::from_str(&render(&entries)).unwrap();
        assert_eq!(
            v["a.ts"]["entries"],
            serde_json::json!(["aaaaaaaa", "bbbbbbbb"])
        );
        assert_eq!(v["a.ts"]["hash"], "b".repeat(64));
        assert_eq!(v["z.ts"]["entries"], serde_json::json!(["aaaaaaaa"]));
    }
}
