//! The store's side of recall's one seam ([`crate::recall::Source`]): a loaded snapshot's
//! charts, read from their entry files and checked against the snapshot's index.

use super::entry::Entry;
use super::index::{read_entry, Snapshot};
use super::Store;
use crate::recall::gate::DocText;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// A snapshot's charts as recall reads them: each doc's entry file read at most once, and kept
/// only when it says what the index says. The retry rule of [`crate::recall::Source`] is the
/// caller's: when [`SnapshotSource::disagreed`] is true after a decision, it reloads the
/// snapshot and asks once more (`super::ask`); a caller that makes no retry (`super::phrasing`)
/// simply leaves a disagreeing chart out.
pub(crate) struct SnapshotSource<'s> {
    store: &'s Store,
    snap: &'s Snapshot,
    /// Doc number → its entry (`None`: unreadable or disagreeing), filled as docs are read.
    read: RefCell<HashMap<usize, Option<Entry>>>,
    /// Set when an entry file read could not be read or disagreed with the index.
    disagreed: Cell<bool>,
    /// Whether [`crate::recall::Source::files_hold`] reads the charts' backing files.
    files: bool,
}

impl<'s> SnapshotSource<'s> {
    /// The charts of `snap`, a snapshot of `store`, their backing files readable to corroborate
    /// a candidate (as `ask` reads them); nothing is read yet.
    pub(crate) fn new(store: &'s Store, snap: &'s Snapshot) -> Self {
        SnapshotSource {
            store,
            snap,
            read: RefCell::default(),
            disagreed: Cell::new(false),
            files: true,
        }
    }

    /// The same without reading backing files (`files_hold` answers `None`): for a decision
    /// that must not depend on the files as they are now (`super::phrasing`).
    pub(crate) fn without_files(mut self) -> Self {
        self.files = false;
        self
    }

    /// Doc `doc`'s entry, read from its file on first use: `None` for a doc number past the
    /// index, a file that cannot be read or parsed, or one that disagrees with the index (the
    /// last two set [`SnapshotSource::disagreed`]).
    pub(crate) fn entry(&self, doc: usize) -> Option<Entry> {
        self.read
            .borrow_mut()
            .entry(doc)
            .or_insert_with(|| {
                let id = self.snap.ids.get(doc)?;
                let e = read_entry(&self.store.entry_path(id), &format!("{id}.md")).ok();
                let agrees = e.as_ref().is_some_and(|e| self.snap.agrees_with(doc, e));
                self.disagreed.set(self.disagreed.get() || !agrees);
                e.filter(|_| agrees)
            })
            .clone()
    }

    /// True when an entry file read so far could not be read or disagreed with the index: a
    /// decision made over this source must be made again on a reloaded snapshot.
    pub(crate) fn disagreed(&self) -> bool {
        self.disagreed.get()
    }
}

impl crate::recall::Source for SnapshotSource<'_> {
    fn text(&self, doc: usize) -> Option<DocText> {
        self.entry(doc).map(|e| DocText {
            files: e.files.keys().cloned().collect(),
            question: e.asked().into_owned(),
            details: e.details,
        })
    }

    fn files_hold(&self, doc: usize, words: &[String]) -> Option<bool> {
        self.files
            .then(|| super::code_index::files_hold(self.store, self.snap, doc, words))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::Source;

    fn write(store: &Store, id: &str, question: &str) {
        let text = format!(
            "---\ncapn: 1\nid: {id}\nat: 2026-01-01T00:00:00Z\nfiles:\n  src/a.ts: {:064x}\n---\n\n# {question}\n\nDetails.\n",
            1
        );
        std::fs::write(store.entry_path(id), text).unwrap();
    }

    /// An entry file edited after the snapshot was built is left out and flagged, so that the
    /// caller asks again on a reloaded snapshot (the retry rule of `recall::Source`); one that
    /// still agrees is read, once, and flags nothing.
    #[test]
    fn an_entry_edited_after_the_snapshot_is_left_out_and_flagged() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().canonicalize().unwrap());
        std::fs::create_dir_all(store.entries_dir()).unwrap();
        write(&store, "10000000", "Where are webhooks handled?");
        write(&store, "20000000", "How is the PDF rendered?");
        let snap = Snapshot::reloaded(&store).unwrap();
        let doc = |id: &str| snap.ids.iter().position(|i| i == id).unwrap();
        let source = SnapshotSource::new(&store, &snap);
        let text = source.text(doc("10000000")).unwrap();
        assert_eq!(text.question, "Where are webhooks handled?");
        assert_eq!(text.files, ["src/a.ts"]);
        assert!(!source.disagreed());
        assert_eq!(
            source.entry(snap.len()),
            None,
            "past the index: no entry, no flag"
        );
        assert!(!source.disagreed());

        write(&store, "20000000", "How is the invoice emailed?");
        let source = SnapshotSource::new(&store, &snap);
        assert!(source.text(doc("10000000")).is_some());
        assert!(!source.disagreed());
        assert_eq!(source.text(doc("20000000")), None);
        assert!(source.disagreed());

        let snap = Snapshot::reloaded(&store).unwrap();
        let source = SnapshotSource::new(&store, &snap);
        let d = snap.ids.iter().position(|i| i == "20000000").unwrap();
        assert_eq!(
            source.text(d).unwrap().question,
            "How is the invoice emailed?"
        );
        assert!(!source.disagreed());
    }
}
