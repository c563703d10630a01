//! Entries that hold a secret are never shown.
//!
//! capn refuses to write a secret (`crate::secret`), but an entry file can still hold one: written
//! by hand, by an older capn, or pulled from a teammate in a shared store. Such an entry never
//! answers an ask, is never a candidate or a stale note, and is never offered by a hook; `capn
//! doctor` names it (the kind and where, never the value) with its fix.

use super::entry::Entry;
use crate::secret::Finding;

/// Where in an entry a secret was found: the part, its text, and what was found there.
#[derive(Debug)]
pub(crate) struct Found {
    /// The part of the entry: `its question`, `its details`, `phrasing 2`, `its file list`, `its
    /// frontmatter`.
    pub part: String,
    /// What was found and where in that part (`Finding::place` of `text`).
    pub finding: Finding,
    /// The part's text (to place the finding; never printed).
    text: String,
}

impl Found {
    /// `what looks like an AWS access key ID in its details (characters 12-31)`.
    pub(crate) fn describe(&self) -> String {
        format!(
            "what looks like {} in {} ({})",
            self.finding.kind,
            self.part,
            self.finding.place(&self.text)
        )
    }
}

/// The first secret in `e` (its question, phrasings, details, file list and unknown frontmatter
/// lines, in that order), if any.
pub(crate) fn secret_in(e: &Entry) -> Option<Found> {
    let files: Vec<&str> = e.files.keys().map(String::as_str).collect();
    let mut parts: Vec<(String, String)> = vec![("its question".into(), e.question.clone())];
    for (i, p) in e.phrasings.iter().enumerate() {
        parts.push((format!("its phrasing {}", i + 1), p.clone()));
    }
    parts.push(("its details".into(), e.details.clone()));
    parts.push(("its file list".into(), files.join("\n")));
    parts.push(("its frontmatter".into(), e.extra.join("\n")));
    parts.into_iter().find_map(|(part, text)| {
        crate::secret::find(&text).map(|finding| Found {
            part,
            finding,
            text,
        })
    })
}

/// True when `e` holds a secret ([`secret_in`]).
pub(crate) fn holds_secret(e: &Entry) -> bool {
    secret_in(e).is_some()
}

/// The line `capn list` prints for an entry that holds a secret, in place of its text: `<id>
/// [withheld] ...` (or `{"id","withheld"}` with `--json`), naming where, never the value.
pub(crate) fn list_line(e: &Entry, json: bool) -> Option<String> {
    let found = secret_in(e)?;
    let why = format!(
        "it holds {}: not shown; edit or delete {}/entries/{}.md (capn doctor)",
        found.describe(),
        super::STORE_DIR,
        e.id
    );
    if json {
        let v = serde_json::json!({"id": e.id, "withheld": why});
        return crate::present::json_line(&v).ok().map(|l| l + "\n");
    }
    Some(format!(
        "{}  [withheld] {}\n",
        crate::present::printable(&e.id),
        crate::present::printable(&why)
    ))
}

#[cfg(test)]
mod tests {
    use super::super::phrasing::Learned;
    use super::super::Store;
    use super::*;
    use sha2::{Digest, Sha256};

    /// Learning from use writes no phrasing holding a secret (whatever the recall gate and the
    /// code rule would say); the same words without it are learned.
    #[test]
    fn learning_skips_words_holding_a_secret() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".capn/entries")).unwrap();
        std::fs::write(root.join("a.ts"), "verify()\n").unwrap();
        let store = Store::at(root);
        let question = "Where are Stripe webhooks verified?".to_string();
        let id = crate::store::entry::question_hash(&question)[..8].to_string();
        let sha = crate::hex::encode(&Sha256::digest(b"verify()\n"));
        let e = Entry {
            id: id.clone(),
            at: String::new(),
            files: [("a.ts".to_string(), sha)].into_iter().collect(),
            question,
            details: String::new(),
            phrasings: Vec::new(),
            extra: Vec::new(),
        };
        let mut w = store.open_writer().unwrap();
        w.chart(e, &[]).unwrap();
        let before = std::fs::read(store.entry_path(&id)).unwrap();
        let shown = (&["a.ts".to_string()][..], 1);
        let token = format!("hf_{}", "qwertyuiopasdfghjklzxcvbnmqwertyui");
        let secret = format!("Where are Stripe webhooks checked with {token}?");
        assert_eq!(
            w.learn_phrasing(&secret, &id, shown).unwrap(),
            Learned::Secret
        );
        assert_eq!(std::fs::read(store.entry_path(&id)).unwrap(), before);
        let plain = "Where are Stripe webhooks checked?";
        assert_eq!(w.learn_phrasing(plain, &id, shown).unwrap(), Learned::Added);
    }
}
