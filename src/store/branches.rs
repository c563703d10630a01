//! Which versions of a chart the repository still holds somewhere capn can see: a local branch,
//! a worktree's `HEAD` (this one's too) or a stash. A chart is a version of its question pinned
//! to its files' SHA-256; it is held by a commit whose tree has every one of those files with
//! those bytes (as checked out: the blob, or the blob with its line ends turned CRLF or LF).
//!
//! Only `prune`, the retention rule and `chart` ask (they run `git`; a hook and `ask` never do):
//! `git for-each-ref`, `git stash list` and `git worktree list` name the commits, then
//! `git cat-file --batch-check` gives the object id of each file in each commit (so a blob
//! shared by many commits is read once) and `git cat-file --batch` the bytes of each object id
//! not seen yet, hashed once. The two `cat-file`s are started once for a run and asked chart
//! after chart ([`CatFile`]), so a prune of thousands of charts starts two processes, not two
//! per chart. Without git, or outside a repository, nothing is held.

use super::entry::Entry;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

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
    /// `git cat-file --batch-check`, once started (`Some(None)`: it could not be).
    check: Option<Option<CatFile>>,
    /// `git cat-file --batch`, once started (`Some(None)`: it could not be).
    blobs: Option<Option<CatFile>>,
    /// A `cat-file` failed during the run (a corrupt object, an offline partial clone's missing
    /// blob): what it would have said is unknown, so every chart asked about from then on
    /// counts as held, and is kept.
    failed: bool,
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
            check: None,
            blobs: None,
            failed: false,
        })
    }

    /// True when some branch, worktree or stash holds `e` as charted (module docs), or when
    /// git failed to say during this run ([`Branches::failed`]): a chart that could not be
    /// checked is never deleted.
    pub(crate) fn holds(&mut self, e: &Entry) -> bool {
        if e.files.keys().any(|k| k.contains('\n') || k.contains('\r')) {
            return false;
        }
        if self.failed {
            return true;
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
        if self.failed {
            return true;
        }
        self.commits.iter().any(|c| {
            e.files.iter().all(|(k, sha)| {
                let oid = self.oids.get(&format!("{c}:./{k}")).cloned().flatten();
                oid.and_then(|o| self.hashes.get(&o))
                    .is_some_and(|h| h.contains(sha))
            })
        })
    }

    /// Records the object id of each `<commit>:<path>` in `specs` (`git cat-file
    /// --batch-check`): a blob no larger than [`MAX_BLOB`], else `None`.
    fn look_up(&mut self, specs: &[String]) {
        let root = &self.root;
        let git = self
            .check
            .get_or_insert_with(|| CatFile::start(root, "--batch-check"));
        let Some(git) = git else {
            self.failed = !specs.is_empty();
            return;
        };
        for spec in specs {
            let Some(line) = git.ask(spec) else {
                self.failed = true;
                return;
            };
            self.oids.insert(spec.clone(), blob_id(&line));
        }
    }

    /// Hashes the blobs `oids` (`git cat-file --batch`), raw and with their line ends turned.
    fn hash_blobs(&mut self, oids: &[String]) {
        let root = &self.root;
        let git = self
            .blobs
            .get_or_insert_with(|| CatFile::start(root, "--batch"));
        let Some(git) = git else {
            self.failed = !oids.is_empty();
            return;
        };
        for oid in oids {
            let Some(header) = git.ask(oid) else {
                self.failed = true;
                return;
            };
            // "<oid> <type> <size>", then the body; "<oid> missing" has none.
            let Some(size) = header.split(' ').nth(2).and_then(|s| s.parse::<u64>().ok()) else {
                continue;
            };
            match git.body(size) {
                Some(Some(bytes)) => {
                    self.hashes.insert(oid.clone(), checkout_hashes(&bytes));
                }
                Some(None) => {}
                None => {
                    self.failed = true;
                    return;
                }
            }
        }
    }
}

/// The object id in a `--batch-check` answer `<oid> blob <size>`, for a blob no larger than
/// [`MAX_BLOB`]; `None` for anything else (`<name> missing` included, whatever the name holds).
fn blob_id(line: &str) -> Option<String> {
    let mut w = line.split(' ');
    let (oid, kind, size) = (w.next()?, w.next()?, w.next()?);
    let hex = (40..=64).contains(&oid.len()) && oid.bytes().all(|b| b.is_ascii_hexdigit());
    let size: u64 = size.parse().ok()?;
    (hex && w.next().is_none() && kind == "blob" && size <= MAX_BLOB).then(|| oid.to_string())
}

/// One long-running `git cat-file` (`--batch-check` or `--batch`) asked one object at a time:
/// without `--buffer` git flushes each answer, so a question never waits behind an answer not
/// read yet. Its stdin is closed and the process waited for when dropped.
struct CatFile {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl CatFile {
    /// `git cat-file <mode>` in `root`; `None` when git cannot be started.
    fn start(root: &Path, mode: &str) -> Option<CatFile> {
        let mut cmd = crate::process::git_command(root, &["cat-file", mode]);
        // A partial clone would fetch a missing blob from its remote: never from here.
        cmd.stdin(Stdio::piped()).env("GIT_NO_LAZY_FETCH", "1");
        let mut child = cmd.spawn().ok()?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take()?);
        Some(CatFile {
            child,
            stdin,
            stdout,
        })
    }

    /// Asks for the object `name` (one line, no newline in it): git's header line for it,
    /// without its newline; `None` when git is gone.
    fn ask(&mut self, name: &str) -> Option<String> {
        let stdin = self.stdin.as_mut()?;
        stdin.write_all(format!("{name}\n").as_bytes()).ok()?;
        stdin.flush().ok()?;
        let mut line = Vec::new();
        self.stdout.read_until(b'\n', &mut line).ok()?;
        line.pop().filter(|b| *b == b'\n')?;
        Some(String::from_utf8_lossy(&line).into_owned())
    }

    /// The `size` bytes of the body after a `--batch` header, and the newline after them, read
    /// off the stream: `Some(None)` when larger than [`MAX_BLOB`] (skipped unread), `None` when
    /// git is gone.
    fn body(&mut self, size: u64) -> Option<Option<Vec<u8>>> {
        if size > MAX_BLOB {
            let skipped =
                std::io::copy(&mut (&mut self.stdout).take(size + 1), &mut std::io::sink());
            return (skipped.ok()? == size + 1).then_some(None);
        }
        let mut bytes = vec![0; usize::try_from(size).ok()? + 1];
        self.stdout.read_exact(&mut bytes).ok()?;
        bytes.pop();
        Some(Some(bytes))
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_blob_s_own_answer_gives_an_object_id() {
        let oid = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad";
        assert_eq!(blob_id(&format!("{oid} blob 13")), Some(oid.to_string()));
        assert_eq!(blob_id(&format!("{oid} tree 13")), None);
        assert_eq!(blob_id(&format!("{oid} blob {}", MAX_BLOB + 1)), None);
        // A missing file whose name looks like an answer.
        assert_eq!(blob_id("x blob 13 missing"), None);
        assert_eq!(blob_id(&format!("{oid} blob 13 missing")), None);
    }

    #[test]
    fn a_blob_matches_as_stored_and_with_either_line_end() {
        use sha2::{Digest, Sha256};
        let h = checkout_hashes(b"a\nb\r\nc");
        for variant in [&b"a\nb\r\nc"[..], b"a\r\nb\r\nc", b"a\nb\nc"] {
            assert!(h.contains(&crate::hex::encode(&Sha256::digest(variant))));
        }
    }
}
