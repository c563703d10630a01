//! The one seam between recall and the store it searches: what the decision reads of the charts
//! besides the derived indexes it is given ([`Source`]).

use super::gate::DocText;
use super::Bm25Index;

/// What recall asks of the charts it searches, by doc number (the position in the indexes the
/// decision was given). The store implements it over a loaded snapshot and its entry files
/// (`crate::store::source::SnapshotSource`); an in-memory `Vec` of [`DocText`] implements it
/// for the evaluations and the tests.
///
/// # Agreement and retry
/// The indexes are derived from the entry files and may be older than them: another tool can
/// edit or replace an entry file after the index was built. An implementation reading the files
/// checks each against the index; a doc whose file disagrees (or cannot be read) gets `None`
/// from [`Source::text`], and the implementation remembers that it happened. A decision made
/// while a doc disagreed may have ranked or gated on text that is no longer the chart's, so its
/// owner discards the whole decision, reloads the indexes and asks once more; the second
/// decision stands, with any doc that still disagrees left out (`None`). Recall itself never
/// retries: it treats `None` as "this chart cannot be read" (the gate lets nothing through on it,
/// and its words count as missing).
pub trait Source {
    /// False for docs that must never be returned (stale entries); every doc by default.
    fn allowed(&self, _doc: usize) -> bool {
        true
    }

    /// A candidate's text, read only when the gate needs it; `None` when it cannot be read or
    /// disagrees with the index (see the trait docs).
    fn text(&self, doc: usize) -> Option<DocText>;

    /// The charted files' text index (`super::code_text`; doc numbers as in the chart index),
    /// asked for only on a miss, when the charts to show are chosen; `None` (the default): not
    /// available.
    fn code(&self) -> Option<&Bm25Index> {
        None
    }

    /// Whether a chart's backing files (as charted) hold every one of `words`, asked when a
    /// candidate may be corroborated by them (`super::decide`); `None` (the default) when they
    /// cannot be read: the file-text index ([`Source::code`]) answers instead.
    fn files_hold(&self, _doc: usize, _words: &[String]) -> Option<bool> {
        None
    }
}

/// Charts held in memory: doc `d` is the `d`th text; every doc allowed, no files.
impl Source for Vec<DocText> {
    fn text(&self, doc: usize) -> Option<DocText> {
        self.get(doc).cloned()
    }
}
