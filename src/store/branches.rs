//! Which versions of a chart the repository still holds somewhere capn can see: a local branch,
//! a worktree's `HEAD` (this one's too) or a stash. A chart is a version of its question pinned
//! to its files' SHA-256; it is held by a commit whose tree has every one of those files with
//! those bytes (as checked out: the blob, or the blob with its line ends turned CRLF or LF).
//!
//! Only `prune`, the retention rule and `chart` ask (they run `git`; a hook and `ask` never do):
//! `git for-each-ref`, `git stash list` and `git worktree list` name the commits, then
//! `git cat-file --batch-check` gives the object id of each file in each commit (so a blob
//! shared by many commits is read once) and `git cat-file --batch` the bytes of each object id
//! not seen yet, hashed once. Without git, or outside a repository, nothing is held.

use super::entry::Entry;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Largest blob read to hash it (bytes): a larger one counts as not holding the chart.
const MAX_BLOB: u64 = 64 * 1024 * 1024;

/// The commits of a repository's branches, worktrees and stashes, and the hashes of the blobs
/// looked at so far.
pub(crate) struct Branches {
    root: PathBuf,
    commits: Vec<String>,
    /// `<commit>:<path>` to its object id (`None`: not a blob there).
    oids: HashMap<String, Option<String>>,
    /// Object id to the SHA-256 hex of its bytes as they may be checked out (raw, CRLF, LF).
    hashes: HashMap<String, Vec<String>>,
}

impl Branches {
    /// The commits of the repository at `root`; `None` without git or outside a repository.
    pub(crate) fn load(root: &Path) -> Option<Branches> {
        let text = |args: &[&str]| {
            crate::process::git_output(root, args).map(|o| String::from_utf8_lossy(&o).into_owned())
        };
        let mut commits: Vec<String> = Vec::new();
        let mut add = |id: &str| {
            let id = id.trim();
            if id.len() >= 40
                && id.bytes().all(|b| b.is_ascii_hexdigit())
                && !commits.iter().any(|c| c == id)
            {
                commits.push(id.to_string());
            }
        };
        for l in text(&["for-each-ref", "--format=%(objectname)", "refs/heads"])?.lines() {
            add(l);
        }
        for l in text(&["stash", "list", "--format=%H"])
            .unwrap_or_default()
            .lines()
        {
            add(l);
        }
        for l in text(&["worktree", "list", "--porcelain"])
            .unwrap_or_default()
            .lines()
        {
            if let Some(id) = l.strip_prefix("HEAD ") {
                add(id);
            }
        }
        if let Some(head) = text(&["rev-parse", "--verify", "-q", "HEAD"]) {
            add(&head);
        }
        Some(Branches {
            root: root.to_path_buf(),
            commits,
            oids: HashMap::new(),
            hashes: HashMap::new(),
        })
    }

    /// True when some branch, worktree or stash holds `e` as charted (module docs).
    pub(crate) fn holds(&mut self, e: &Entry) -> bool {
        if e.files.keys().any(|k| k.contains('\n') || k.contains('\r')) {
            return false;
        }
        let specs: Vec<String> = self
            .commits
            .iter()
            .flat_map(|c| e.files.keys().map(move |k| format!("{c}:./{k}")))
            .filter(|s| !self.oids.contains_key(s))
            .collect();
        self.look_up(&specs);
        let mut wanted: Vec<String> = Vec::new();
        for c in &self.commits {
            for k in e.files.keys() {
                if let Some(Some(oid)) = self.oids.get(&format!("{c}:./{k}")) {
                    if !self.hashes.contains_key(oid) && !wanted.contains(oid) {
                        wanted.push(oid.clone());
                    }
                }
            }
        }
        self.hash_blobs(&wanted);
        self.commits.iter().any(|c| {
            e.files.iter().all(|(k, sha)| {
                let oid = self.oids.get(&format!("{c}:./{k}")).cloned().flatten();
                oid.and_then(|o| self.hashes.get(&o))
                    .is_some_and(|h| h.contains(sha))
            })
        })
    }

    /// Records the object id of each `<commit>:<path>` in `specs` (`git cat-file --batch-check`).
    fn look_up(&mut self, specs: &[String]) {
        if specs.is_empty() {
            return;
        }
        let input: String = specs.iter().map(|s| format!("{s}\n")).collect();
        let out = batch(&self.root, "--batch-check", input).unwrap_or_default();
        let text = String::from_utf8_lossy(&out);
        let mut lines = text.lines();
        for spec in specs {
            let oid = lines.next().and_then(|l| {
                let mut w = l.split(' ');
                let (oid, kind, size) = (w.next()?, w.next()?, w.next()?);
                let size: u64 = size.parse().ok()?;
                (kind == "blob" && size <= MAX_BLOB).then(|| oid.to_string())
            });
            self.oids.insert(spec.clone(), oid);
        }
    }

    /// Hashes the blobs `oids` (`git cat-file --batch`), raw and with their line ends turned.
    fn hash_blobs(&mut self, oids: &[String]) {
        if oids.is_empty() {
            return;
        }
        let input: String = oids.iter().map(|s| format!("{s}\n")).collect();
        let out = batch(&self.root, "--batch", input).unwrap_or_default();
        let mut rest = &out[..];
        for oid in oids {
            let Some(nl) = rest.iter().position(|b| *b == b'\n') else {
                break;
            };
            let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
            rest = &rest[nl + 1..];
            let size = header
                .split(' ')
                .nth(2)
                .and_then(|s| s.parse::<usize>().ok());
            let Some(size) = size.filter(|s| *s < rest.len()) else {
                continue; // "<oid> missing": no body follows
            };
            let bytes = &rest[..size];
            rest = &rest[size + 1..];
            self.hashes.insert(oid.clone(), checkout_hashes(bytes));
        }
    }
}

/// SHA-256 hex of `bytes` as they may be checked out: as stored, with LF turned CRLF, with CRLF
/// turned LF.
fn checkout_hashes(bytes: &[u8]) -> Vec<String> {
    use sha2::{Digest, Sha256};
    let hex = |b: &[u8]| crate::hex::encode(&Sha256::digest(b));
    let mut lf = Vec::with_capacity(bytes.len());
    let mut crlf = Vec::with_capacity(bytes.len() + bytes.len() / 16);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            lf.push(b'\n');
            crlf.extend_from_slice(b"\r\n");
            i += 2;
            continue;
        }
        if bytes[i] == b'\n' {
            crlf.push(b'\r');
        }
        lf.push(bytes[i]);
        crlf.push(bytes[i]);
        i += 1;
    }
    vec![hex(bytes), hex(&crlf), hex(&lf)]
}

/// Runs `git cat-file <mode>` in `root` with `input` on stdin (written from another thread, so
/// a large answer never blocks the question); its stdout, or `None` when git could not run.
fn batch(root: &Path, mode: &str, input: String) -> Option<Vec<u8>> {
    let mut cmd = crate::process::git_command(root, &["cat-file", mode]);
    cmd.stdin(Stdio::piped());
    let mut child = cmd.spawn().ok()?;
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut out = Vec::new();
    let read = child.stdout.take()?.read_to_end(&mut out);
    let _ = writer.join();
    let ok = child.wait().is_ok_and(|s| s.success());
    (read.is_ok() && ok).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_matches_as_stored_and_with_either_line_end() {
        use sha2::{Digest, Sha256};
        let h = checkout_hashes(b"a\nb\r\nc");
        for variant in [&b"a\nb\r\nc"[..], b"a\r\nb\r\nc", b"a\nb\nc"] {
            assert!(h.contains(&crate::hex::encode(&Sha256::digest(variant))));
        }
    }
}
