//! A writer's change applied to the snapshot in place: only the entries added, replaced or
//! removed are tokenised and embedded, and the other entries' data is moved, not rebuilt, so a
//! `chart` costs about the same at 10 charts as at 10,000.

use super::{read_entry, text_sig, Listed, Snapshot};
use crate::recall::semantic;
use crate::recall::Doc;
use crate::store::entry::Entry;
use crate::store::Store;
use anyhow::Result;
use std::collections::BTreeMap;

impl Snapshot {
    /// Applies a writer's change (lock held): the entries with ids in `remove` were deleted and
    /// `insert` (new ones, or new versions of entries with the same id) were written; `touched`
    /// names every entry file written or deleted, which is stat'ed again for the listing. The
    /// snapshot must have been loaded with every entry file listed ([`Snapshot::is_listed`]).
    ///
    /// Errors: the snapshot has no listing, or its search index is inconsistent (a writer then
    /// rebuilds it from the entry files: [`Snapshot::reloaded`]).
    pub(crate) fn apply(
        &mut self,
        store: &Store,
        remove: &[String],
        insert: Vec<Entry>,
        touched: &[String],
    ) -> Result<()> {
        anyhow::ensure!(self.is_listed(), "the entries folder was not listed");
        let now = self.restat(store, touched);
        let names: Vec<&str> = now.iter().map(|(n, _)| n.as_str()).collect();
        let before = self.stamps_before(&names);
        let before =
            before.ok_or_else(|| anyhow::anyhow!("the recorded listing does not decode"))?;
        self.splice(store, remove, insert, Relisted::Files { before, now })
    }

    /// [`Snapshot::apply`] with the listing to record given: the stamps of the entry files as
    /// they were before `insert` was read from them (or after the writer wrote them).
    fn splice(
        &mut self,
        store: &Store,
        remove: &[String],
        mut insert: Vec<Entry>,
        listing: Relisted,
    ) -> Result<()> {
        insert.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        insert.dedup_by(|a, b| a.id == b.id);
        let rendered: Vec<(String, String, u64)> = insert
            .iter()
            .map(|e| (e.id.clone(), e.render(), text_sig(e)))
            .collect();
        let views = self.splice_core(remove, insert, None)?;
        if let Some(log) = &mut self.log {
            for id in remove {
                log.inserted.remove(id);
                log.removed.insert(id.clone());
            }
            for ((id, text, sig), v) in rendered.into_iter().zip(views) {
                log.inserted.insert(id, (text, sig, v));
            }
        }
        match listing {
            Relisted::Whole(listing) => self.set_listing(store, listing),
            Relisted::Files { before, now } => self.set_listed_files(store, &before, now),
        }
        self.built_at_ns = crate::clock::now_ns();
        self.index_dirty = true;
        self.content_changed = true;
        Ok(())
    }

    /// The entries with ids in `remove` and the old versions of `insert` (sorted by id, no id
    /// twice) taken out of the search data (ids, BM25, vectors, backing files, signatures) and
    /// `insert` put in, embedded unless `given` holds their vectors (in the same order).
    /// Returns the vectors of `insert` (empty ones without a model).
    ///
    /// Errors: as [`Snapshot::apply`].
    pub(super) fn splice_core(
        &mut self,
        remove: &[String],
        insert: Vec<Entry>,
        given: Option<Vec<Vec<i8>>>,
    ) -> Result<Vec<Vec<i8>>> {
        // Positions that go: removed ids, and the old versions of inserted ones.
        let mut gone: Vec<usize> = remove
            .iter()
            .chain(insert.iter().map(|e| &e.id))
            .filter_map(|id| self.position(id))
            .collect();
        gone.sort_unstable();
        gone.dedup();
        let kept: Vec<usize> = (0..self.len())
            .filter(|i| gone.binary_search(i).is_err())
            .collect();
        // Where each insert lands in the new order (kept ids and inserted ids merged, both
        // sorted); the ids themselves are moved into place once nothing below can fail.
        let mut at = Vec::with_capacity(insert.len());
        let mut next = insert.iter().peekable();
        let mut len = 0;
        for &i in &kept {
            while next.next_if(|e| e.id < self.ids[i]).is_some() {
                at.push(len);
                len += 1;
            }
            len += 1;
        }
        for _ in next {
            at.push(len);
            len += 1;
        }
        let files: Vec<Vec<String>> = insert
            .iter()
            .map(|e| e.files.keys().cloned().collect())
            .collect();
        let asked: Vec<_> = insert.iter().map(Entry::asked).collect();
        let docs: Vec<(usize, Doc<'_>)> = insert
            .iter()
            .zip(&files)
            .zip(&at)
            .zip(&asked)
            .map(|(((e, f), &p), asked)| {
                (
                    p,
                    Doc {
                        question: asked,
                        details: &e.details,
                        files: f,
                    },
                )
            })
            .collect();
        let bm25 = self.bm25.splice(&gone, &docs).map_err(anyhow::Error::msg)?;
        let views = self.splice_vectors(&gone, &insert, &at, given)?;
        self.bm25 = bm25;
        self.splice_files(&kept, &insert, &at);
        self.sigs = merge_at(
            kept.iter().map(|&i| self.sigs[i]),
            insert.iter().map(text_sig),
            &at,
        );
        let mut old_ids: Vec<Option<String>> = std::mem::take(&mut self.ids)
            .into_iter()
            .map(Some)
            .collect();
        self.ids = merge_at(
            kept.iter().filter_map(|&i| old_ids[i].take()),
            insert.iter().map(|e| e.id.clone()),
            &at,
        );
        Ok(views)
    }

    /// Brings the snapshot up to date with entry files changed by another tool: `removed` and
    /// `changed` (added or rewritten) are file names in the entries folder. Only the changed
    /// files are read; one that no longer parses is reported as malformed, as on a rebuild.
    ///
    /// `now` is the listing `removed` and `changed` were found in, stat'ed before the changed
    /// files were read, and it is what the index records: a file rewritten again after it was
    /// read is then seen as changed by the next load (stamps taken after the read would vouch
    /// for content never read), and one that came back after it was listed as removed is seen
    /// as added. A changed file gone by the time it is read is dropped, as on a rebuild.
    ///
    /// Errors: as [`Snapshot::apply`].
    pub(super) fn refresh(
        &mut self,
        store: &Store,
        removed: &[String],
        changed: &[String],
        now: &[Listed],
    ) -> Result<()> {
        anyhow::ensure!(self.is_listed(), "the entries folder was not listed");
        let dir = store.entries_dir();
        let stem = |n: &String| n.strip_suffix(".md").unwrap_or(n).to_string();
        let remove: Vec<String> = removed.iter().chain(changed).map(stem).collect();
        let mut insert = Vec::with_capacity(changed.len());
        let mut gone = Vec::new();
        for n in changed {
            let path = dir.join(n);
            match read_entry(&path, n) {
                Ok(e) => insert.push(e),
                Err(_) if std::fs::symlink_metadata(&path).is_err() => gone.push(n.as_str()),
                // Judged again (and reported) when the listing is recorded.
                Err(_) => {}
            }
        }
        let mut touched: Vec<&str> = removed.iter().chain(changed).map(String::as_str).collect();
        touched.sort_unstable();
        // A changed file keeps no stale malformed report: it is judged again below.
        self.malformed
            .retain(|(n, _)| touched.binary_search(&n.as_str()).is_err());
        let listing: Vec<Listed> = now
            .iter()
            .filter(|l| !gone.contains(&l.name.as_str()))
            .cloned()
            .collect();
        self.splice(store, &remove, insert, Relisted::Whole(listing))
    }

    /// The vectors with the entries at `gone` (old positions) taken out and `insert` embedded
    /// (or given, in `given`) at `at` (new positions); returns `insert`'s vectors (empty ones
    /// without a model).
    fn splice_vectors(
        &mut self,
        gone: &[usize],
        insert: &[Entry],
        at: &[usize],
        given: Option<Vec<Vec<i8>>>,
    ) -> Result<Vec<Vec<i8>>> {
        let Some(m) = self.model else {
            return Ok(vec![Vec::new(); insert.len()]);
        };
        let embedded = given.unwrap_or_else(|| {
            insert
                .iter()
                .take_while(|_| !crate::store::budget::exceeded())
                .map(|e| semantic::embed_entry(m, &e.asked(), &e.details))
                .collect()
        });
        let views: Vec<(usize, Vec<i8>)> = at.iter().copied().zip(embedded).collect();
        if crate::store::budget::spent() {
            anyhow::bail!("a hook's budget ran out while embedding the changed entries");
        }
        let v = self
            .vectors
            .as_ref()
            .filter(|v| v.dim() == m.dim() && v.len() == self.ids.len());
        let v = v.ok_or_else(|| anyhow::anyhow!("the vectors do not match the index"))?;
        let v = v.splice(gone, &views);
        self.vectors = Some(v.ok_or_else(|| anyhow::anyhow!("vectors.bin could not be read"))?);
        self.vectors_tag = crate::clock::now_ns() as u64;
        self.vectors_dirty = true;
        Ok(views.into_iter().map(|(_, v)| v).collect())
    }

    /// `paths` and `refs` for the kept entries (positions, ascending) and `insert` landing at
    /// `at`: paths no entry references any more are dropped, new ones merged in. Both are
    /// changed in place ([`merge_paths`], [`super::Refs::splice`]): nothing per entry or per
    /// path is allocated or copied, so a reader applying `delta.bin` pays for the change, not
    /// for the store's tens of thousands of paths.
    fn splice_files(&mut self, kept: &[usize], insert: &[Entry], at: &[usize]) {
        let mut used = vec![false; self.paths.len()];
        for &i in kept {
            for (p, _) in self.refs.of(i) {
                used[p as usize] = true;
            }
        }
        let mut added: Vec<&str> = Vec::new();
        for p in insert.iter().flat_map(|e| e.files.keys()) {
            match self.paths.binary_search_by(|q| q.as_str().cmp(p)) {
                Ok(i) => used[i] = true,
                Err(_) => added.push(p),
            }
        }
        added.sort_unstable();
        added.dedup();
        let renumber = if added.is_empty() && used.iter().all(|&u| u) {
            None
        } else {
            let added = added.into_iter().map(str::to_string).collect();
            Some(merge_paths(&mut self.paths, &used, added))
        };
        let paths = &self.paths;
        let number = |p: &str| paths.binary_search_by(|q| q.as_str().cmp(p)).unwrap_or(0) as u32;
        let new_refs: Vec<Vec<(u32, [u8; 32])>> = insert
            .iter()
            .map(|e| {
                e.files
                    .iter()
                    .map(|(p, h)| (number(p), crate::hex::decode32(h).unwrap_or([0; 32])))
                    .collect()
            })
            .collect();
        let refs = std::mem::take(&mut self.refs);
        self.refs = refs.splice(renumber.as_deref(), kept, new_refs, at);
    }

    /// Records `listing` (the entry files after the change) and the malformed reports of
    /// listed files that are not entries: kept from before, or judged now for new ones.
    fn set_listing(&mut self, store: &Store, listing: Vec<Listed>) {
        let old: BTreeMap<&str, &str> = self
            .malformed
            .iter()
            .map(|(n, r)| (n.as_str(), r.as_str()))
            .collect();
        let dir = store.entries_dir();
        let mut malformed = Vec::new();
        for l in &listing {
            let stem = l.name.strip_suffix(".md").unwrap_or(&l.name);
            if self.position(stem).is_some() {
                continue;
            }
            let reason = match old.get(l.name.as_str()) {
                Some(r) => r.to_string(),
                None => match read_entry(&dir.join(&l.name), &l.name) {
                    Err(r) => r,
                    // Parses, but the writer did not put it in: re-read on the next load.
                    Ok(_) => continue,
                },
            };
            malformed.push((l.name.clone(), reason));
        }
        self.malformed = malformed;
        self.listed = super::listing::totals(&listing);
        if let (Some(log), Some(old)) = (&mut self.log, &self.listing) {
            let (removed, changed) = super::listing::diff(old, &listing);
            for n in removed {
                log.listing.insert(n, None);
            }
            for n in changed {
                let at = listing.binary_search_by(|l| l.name.cmp(&n));
                log.listing.insert(n, at.ok().map(|i| listing[i].clone()));
            }
        }
        self.listing = Some(listing);
    }

    /// Records the stamps `now` of the files a writer wrote or deleted (sorted by name; `None`:
    /// gone), which had the stamps `before`, and judges those of them that are not entries:
    /// the other files keep their stamps and malformed reports, so a writer's change costs the
    /// files it touched, not the store's listing.
    fn set_listed_files(
        &mut self,
        store: &Store,
        before: &[Option<Listed>],
        now: Vec<(String, Option<Listed>)>,
    ) {
        let (mut files, mut bytes) = self.listed;
        for (old, (_, new)) in before.iter().zip(&now) {
            if let Some(old) = old {
                files = files.saturating_sub(1);
                bytes = bytes.saturating_sub(old.size);
            }
            if let Some(new) = new {
                files = files.saturating_add(1);
                bytes = bytes.saturating_add(new.size);
            }
        }
        self.listed = (files, bytes);
        let dir = store.entries_dir();
        for (name, stamp) in &now {
            let at = self.malformed.iter().position(|(n, _)| n == name);
            let kept = at.map(|i| self.malformed.remove(i).1);
            let stem = name.strip_suffix(".md").unwrap_or(name);
            if stamp.is_none() || self.position(stem).is_some() {
                continue;
            }
            let reason = match kept {
                Some(r) => r,
                None => match read_entry(&dir.join(name), name) {
                    Err(r) => r,
                    // Parses, but the writer did not put it in: re-read on the next load.
                    Ok(_) => continue,
                },
            };
            let at = self.malformed.partition_point(|(n, _)| n < name);
            self.malformed.insert(at, (name.clone(), reason));
        }
        if let Some(listing) = &mut self.listing {
            for (name, stamp) in &now {
                match (listing.binary_search_by(|l| l.name.cmp(name)), stamp) {
                    (Ok(i), Some(l)) => listing[i] = l.clone(),
                    (Ok(i), None) => drop(listing.remove(i)),
                    (Err(i), Some(l)) => listing.insert(i, l.clone()),
                    (Err(_), None) => {}
                }
            }
        }
        if let Some(log) = &mut self.log {
            for (name, stamp) in now {
                log.listing.insert(name, stamp);
            }
        }
    }
}

/// The listing a writer's change records.
enum Relisted {
    /// The whole listing after the change.
    Whole(Vec<Listed>),
    /// The files the change touched: their stamps before (in the same order) and now.
    Files {
        before: Vec<Option<Listed>>,
        now: Vec<(String, Option<Listed>)>,
    },
}

/// `paths` (sorted) with those not `used` dropped and `added` (sorted, none already there)
/// merged in, in place: the vector grows by what is added and its strings are moved, never
/// copied. Returns each old path's new number (0 for a dropped one).
fn merge_paths(paths: &mut Vec<String>, used: &[bool], added: Vec<String>) -> Vec<u32> {
    let mut renumber = vec![0u32; paths.len()];
    let (mut kept, mut before) = (0usize, 0usize);
    for (i, p) in paths.iter().enumerate() {
        if used[i] {
            while added.get(before).is_some_and(|a| a < p) {
                before += 1;
            }
            renumber[i] = (kept + before) as u32;
            kept += 1;
        }
    }
    let mut k = 0;
    for (i, &u) in used.iter().enumerate() {
        if u {
            paths.swap(k, i);
            k += 1;
        }
    }
    paths.truncate(kept);
    // Merged from the back into the grown vector: each string moves once.
    let total = kept + added.len();
    paths.resize_with(total, String::new);
    let mut added = added.into_iter().rev().peekable();
    let mut from = kept;
    for to in (0..total).rev() {
        match added.next_if(|a| from == 0 || *a > paths[from - 1]) {
            Some(a) => paths[to] = a,
            None => {
                from -= 1;
                paths.swap(from, to);
            }
        }
    }
    renumber
}

/// `kept` and `inserted` interleaved so that inserted item `k` lands at position `at[k]`
/// (ascending).
fn merge_at<T>(
    kept: impl Iterator<Item = T>,
    inserted: impl Iterator<Item = T>,
    at: &[usize],
) -> Vec<T> {
    let mut out = Vec::new();
    let mut kept = kept.peekable();
    let mut inserted = inserted.zip(at).peekable();
    loop {
        if let Some((x, _)) = inserted.next_if(|(_, &p)| p == out.len()) {
            out.push(x);
        } else if let Some(x) = kept.next() {
            out.push(x);
        } else if let Some((x, _)) = inserted.next() {
            out.push(x);
        } else {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths dropped and added in place come out sorted, each old one numbered where it lands.
    #[test]
    fn paths_merge_in_place_sorted_and_renumbered() {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut paths = strings(&["b", "d", "f", "h"]);
        let renumber = merge_paths(
            &mut paths,
            &[true, false, true, true],
            strings(&["a", "c", "g", "z"]),
        );
        assert_eq!(paths, strings(&["a", "b", "c", "f", "g", "h", "z"]));
        assert_eq!((renumber[0], renumber[2], renumber[3]), (1, 3, 5));
        let mut paths = strings(&["b", "d"]);
        assert_eq!(merge_paths(&mut paths, &[false, false], Vec::new()), [0, 0]);
        assert!(paths.is_empty());
    }

    fn write(store: &Store, id: &str, question: &str, files: &[&str]) {
        let mut fm = String::new();
        for f in files {
            let hash = format!("{:064x}", f.len());
            fm.push_str(&format!("  {f}: {hash}\n"));
        }
        let text = format!(
            "---\ncapn: 1\nid: {id}\nat: 2026-01-01T00:00:00Z\nfiles:\n{fm}---\n\n# {question}\n\nDetails about {question}\n"
        );
        std::fs::write(store.entry_path(id), text).unwrap();
    }

    /// A store of `n` entries 10000000.. ("Where is topic{i} handled?"), in a temp dir that
    /// lives as long as the returned guard.
    fn topics(n: u32) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().canonicalize().unwrap());
        std::fs::create_dir_all(store.entries_dir()).unwrap();
        for i in 0..n {
            let id = format!("{:08x}", 0x1000_0000 + i);
            let question = format!("Where is topic{i} handled?");
            write(&store, &id, &question, &["src/a.ts"]);
        }
        (dir, store)
    }

    fn read(store: &Store, id: &str) -> Entry {
        read_entry(&store.entry_path(id), &format!("{id}.md")).unwrap()
    }

    /// What a search and a staleness check see (the listing stamps differ by design: a rebuild
    /// stats every file, `apply` only the touched ones).
    fn seen(s: &Snapshot) -> impl PartialEq + std::fmt::Debug {
        (
            s.ids.clone(),
            s.paths.clone(),
            s.refs.clone(),
            s.sigs.clone(),
            postcard::to_stdvec(&s.bm25).unwrap(),
            s.vectors.clone().map(|v| v.to_file_bytes(0)),
            s.malformed.clone(),
            s.listed.0,
        )
    }

    #[test]
    fn applying_a_change_gives_what_a_rebuild_from_the_files_gives() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().canonicalize().unwrap());
        std::fs::create_dir_all(store.entries_dir()).unwrap();
        let qs = [
            (
                "10000001",
                "Where are payment webhooks handled?",
                vec!["src/pay.ts", "src/hook.ts"],
            ),
            (
                "20000002",
                "How is the session cookie signed?",
                vec!["src/auth/cookie.ts"],
            ),
            (
                "30000003",
                "Where are invoices numbered?",
                vec!["src/pay.ts", "src/invoice.ts"],
            ),
            (
                "40000004",
                "How are uploads scanned?",
                vec!["src/upload.ts"],
            ),
        ];
        for (id, q, f) in &qs {
            write(&store, id, q, f);
        }
        std::fs::write(store.entries_dir().join("50000005.md"), "not an entry").unwrap();
        let mut snap = Snapshot::reloaded(&store).unwrap();
        // Replace one (new files), add two (one sorting first), delete one whose file is shared.
        write(
            &store,
            "20000002",
            "How is the session cookie verified?",
            &["src/auth/verify.ts"],
        );
        write(
            &store,
            "05000000",
            "Where is the cron queue?",
            &["src/cron.ts", "src/pay.ts"],
        );
        write(
            &store,
            "35000000",
            "Where are refunds issued?",
            &["src/refund.ts"],
        );
        std::fs::remove_file(store.entry_path("30000003")).unwrap();
        let insert = vec![
            read(&store, "20000002"),
            read(&store, "05000000"),
            read(&store, "35000000"),
        ];
        let touched: Vec<String> = ["20000002", "05000000", "35000000", "30000003"]
            .iter()
            .map(|id| format!("{id}.md"))
            .collect();
        snap.apply(&store, &["30000003".to_string()], insert, &touched)
            .unwrap();
        let fresh = Snapshot::reloaded(&store).unwrap();
        assert_eq!(seen(&snap), seen(&fresh));
        assert!(snap
            .paths
            .iter()
            .all(|p| p != "src/invoice.ts" && p != "src/auth/cookie.ts"));
        // Everything removed.
        let all: Vec<String> = snap.ids.clone();
        let touched: Vec<String> = all.iter().map(|id| format!("{id}.md")).collect();
        for id in &all {
            std::fs::remove_file(store.entry_path(id)).unwrap();
        }
        snap.apply(&store, &all, Vec::new(), &touched).unwrap();
        assert_eq!(seen(&snap), seen(&Snapshot::reloaded(&store).unwrap()));
    }

    /// The index records the stamps of the listing the load compared, taken before the changed
    /// files were read, not stamps taken after: an entry file that came back (or was rewritten)
    /// after it was listed must be read by the next load, not vouched for by a later stat.
    #[test]
    fn a_refresh_records_the_stamps_taken_before_reading() {
        let (_dir, store) = topics(20);
        let mut snap = super::super::load(&store, super::super::Check::Files).unwrap();
        super::super::save(&store, &mut snap).unwrap();
        // Listed while 10000004 was deleted; another tool puts it back before the refresh.
        std::fs::remove_file(store.entry_path("10000004")).unwrap();
        let (now, _) = crate::store::listing::list_entry_files(&store.entries_dir()).unwrap();
        write(&store, "10000004", "Where are zebras kept?", &["src/z.ts"]);
        // Past the racy window, so the next load trusts the recorded stamps.
        std::thread::sleep(std::time::Duration::from_millis(120));
        snap.refresh(&store, &["10000004.md".to_string()], &[], &now)
            .unwrap();
        super::super::save(&store, &mut snap).unwrap();
        let loaded = super::super::load(&store, super::super::Check::Files).unwrap();
        assert!(loaded.position("10000004").is_some());
        assert_eq!(seen(&loaded), seen(&Snapshot::reloaded(&store).unwrap()));
    }

    /// A writer reads `vectors.bin` whole only when it splices; when that read fails (the file
    /// was cut short in place after the load opened it, or an I/O error), the splice must not
    /// keep zeros for every other entry: saved under a valid tag, they would give those entries
    /// cosine 0 in every later search until something forced a rebuild.
    #[test]
    fn vectors_cut_short_after_the_load_are_not_spliced_as_zeros() {
        let (_dir, store) = topics(20);
        let mut snap = super::super::load(&store, super::super::Check::Files).unwrap();
        super::super::save(&store, &mut snap).unwrap();
        let mut snap = super::super::load(&store, super::super::Check::Files).unwrap();
        assert!(snap.vectors.is_some(), "this build embeds a model");
        std::fs::OpenOptions::new()
            .write(true)
            .open(store.vectors_path())
            .unwrap()
            .set_len(100)
            .unwrap();
        write(
            &store,
            "05000000",
            "Where are refunds issued?",
            &["src/r.ts"],
        );
        let insert = vec![read(&store, "05000000")];
        // Failing is fine (the writer then rebuilds from the entry files); a result must be
        // what a rebuild gives.
        if snap
            .apply(&store, &[], insert, &["05000000.md".to_string()])
            .is_ok()
        {
            let fresh = Snapshot::reloaded(&store).unwrap();
            assert!(
                seen(&snap) == seen(&fresh),
                "spliced zeros for the unread entries"
            );
        }
    }

    /// Entry files changed by another tool (added, deleted, rewritten, broken, mended) are read
    /// alone and spliced in on load: the result is what a rebuild from the files gives.
    #[test]
    fn a_load_after_other_tools_changed_entries_gives_what_a_rebuild_gives() {
        let (_dir, store) = topics(40);
        std::fs::write(store.entries_dir().join("50000005.md"), "not an entry").unwrap();
        let mut snap = super::super::load(&store, super::super::Check::Files).unwrap();
        super::super::save(&store, &mut snap).unwrap();
        // Another tool: one added, one deleted, one rewritten (new size), one broken, one mended.
        write(
            &store,
            "05000000",
            "Where are refunds issued?",
            &["src/refund.ts"],
        );
        std::fs::remove_file(store.entry_path("10000003")).unwrap();
        write(
            &store,
            "10000007",
            "Where are the invoices of topic7 numbered?",
            &["src/b.ts"],
        );
        std::fs::write(store.entry_path("10000009"), "broken now").unwrap();
        write(
            &store,
            "50000005",
            "Where is the mended entry?",
            &["src/c.ts"],
        );
        let loaded = super::super::load(&store, super::super::Check::Files).unwrap();
        let fresh = Snapshot::reloaded(&store).unwrap();
        assert_eq!(seen(&loaded), seen(&fresh));
        assert!(loaded.position("05000000").is_some() && loaded.position("10000003").is_none());
        assert!(loaded.malformed.iter().any(|(n, _)| n == "10000009.md"));
    }
}
