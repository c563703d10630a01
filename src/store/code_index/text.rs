//! Reading a chart's files for their words: only the version of each file that was charted,
//! within a byte budget, through fsutil's rules.

use super::super::index::Snapshot;
use super::super::paths::abs_of;
use super::super::Store;
use crate::recall::code_text;
use sha2::{Digest, Sha256};
use std::io::Read;

/// Whether entry `i`'s backing files, as charted, hold every one of `words` (each of its
/// index terms, in any word of the files: `sendSigningEmail` holds "emails"); `None` when a file
/// cannot be read as charted within [`super::MAX_READ_BYTES`]. Reads the files' heads
/// ([`code_text::MAX_FILE_BYTES`]) and analyses only the file words that contain one of the
/// terms, so it costs about a read and a hash.
pub(crate) fn files_hold(
    store: &Store,
    snap: &Snapshot,
    i: usize,
    words: &[String],
) -> Option<bool> {
    let want: Vec<Vec<String>> = words.iter().map(|w| crate::recall::analyze(w)).collect();
    if want.iter().any(Vec::is_empty) {
        return Some(false);
    }
    let mut needed: std::collections::HashSet<&str> =
        want.iter().flatten().map(String::as_str).collect();
    let mut budget = super::MAX_READ_BYTES;
    for (p, sha) in snap.refs.of(i) {
        let key = snap.paths.get(p as usize)?;
        let bytes = charted_head(store, key, sha, &mut budget).ok()?;
        for word in code_text::extract(&bytes).split_ascii_whitespace() {
            if needed.is_empty() {
                return Some(true);
            }
            let lower = word.to_ascii_lowercase();
            if needed.iter().any(|t| lower.contains(t)) {
                for t in crate::recall::analyze(word) {
                    needed.remove(t.as_str());
                }
            }
        }
    }
    Some(needed.is_empty())
}

/// The head ([`code_text::MAX_FILE_BYTES`]) of backing file `key` when the whole file hashes
/// as `want`; `Err(Some(()))` when `budget` cannot pay for reading it, `Err(None)` when it
/// cannot be opened under fsutil's rules inside the project or is another version.
fn charted_head(
    store: &Store,
    key: &str,
    want: &[u8; 32],
    budget: &mut u64,
) -> Result<Vec<u8>, Option<()>> {
    let path = abs_of(&store.root, key);
    let follow = crate::fsutil::Follow::Inside(&store.root);
    let (file, meta) =
        crate::fsutil::open_regular(&path, super::super::fresh::MAX_BACKING_BYTES, follow)
            .map_err(|_| None)?;
    if meta.len() > *budget {
        return Err(Some(()));
    }
    *budget -= meta.len();
    let mut file = file.take(meta.len());
    let mut head = Vec::new();
    (&mut file)
        .take(code_text::MAX_FILE_BYTES)
        .read_to_end(&mut head)
        .map_err(|_| None)?;
    let mut h = Sha256::new();
    h.update(&head);
    std::io::copy(&mut file, &mut h).map_err(|_| None)?;
    if <[u8; 32]>::from(h.finalize()) == *want {
        return Ok(head);
    }
    // The other line-end form of a file that is fresh (`fresh`): rare, so read again.
    match super::super::fresh::line_ends::line_end_hashes(&store.root, &path) {
        Ok(forms) if forms.contains(want) => Ok(head),
        _ => Err(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(bytes: &[u8]) -> [u8; 32] {
        Sha256::digest(bytes).into()
    }

    /// Only the charted version of a regular file inside the project is read: a file changed
    /// since, one that leads out through a symlink, a FIFO (without blocking) and a directory
    /// give nothing; the budget is charged and, when short, says so.
    #[cfg(unix)]
    #[test]
    fn only_the_charted_version_of_a_regular_file_inside_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        std::fs::create_dir_all(root.join("src")).unwrap();
        let root = root.canonicalize().unwrap();
        let decoy = tmp.path().join("decoy.ts");
        std::fs::write(&decoy, "outsideSecretWord").unwrap();
        std::os::unix::fs::symlink(&decoy, root.join("src/out.ts")).unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(root.join("src/fifo.ts"))
            .status()
            .is_ok_and(|s| s.success());
        assert!(fifo, "mkfifo");
        std::fs::write(root.join("src/ok.ts"), "insideWord").unwrap();
        let store = Store::at(root);
        let mut budget = 1000;
        let ok = sha(b"insideWord");
        assert_eq!(
            charted_head(&store, "src/ok.ts", &ok, &mut budget),
            Ok(b"insideWord".to_vec())
        );
        assert_eq!(budget, 990);
        let other = sha(b"another version");
        assert_eq!(
            charted_head(&store, "src/ok.ts", &other, &mut budget),
            Err(None)
        );
        let out = sha(b"outsideSecretWord");
        assert_eq!(
            charted_head(&store, "src/out.ts", &out, &mut budget),
            Err(None)
        );
        assert_eq!(
            charted_head(&store, "src/fifo.ts", &ok, &mut budget),
            Err(None)
        );
        assert_eq!(charted_head(&store, "src", &ok, &mut budget), Err(None));
        let mut short = 3;
        assert_eq!(
            charted_head(&store, "src/ok.ts", &ok, &mut short),
            Err(Some(()))
        );
    }

    /// The CRLF form of a file charted with LF line ends is the charted version.
    #[test]
    fn the_other_line_end_form_is_the_charted_version() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::write(root.join("a.ts"), "one\r\ntwo\r\n").unwrap();
        let store = Store::at(root);
        let mut budget = 1000;
        let lf = sha(b"one\ntwo\n");
        assert!(charted_head(&store, "a.ts", &lf, &mut budget).is_ok());
    }
}
