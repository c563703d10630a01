//! The two line-end forms of a backing file's content, hashed in one streaming pass (see the
//! parent module: a file that differs from its chart only in CRLF versus LF is fresh).

use super::MAX_BACKING_BYTES;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The SHA-256 of a backing file's content in its two line-end forms (opened as
/// [`super::hash_backing_file`] opens it): every CRLF as LF, and every line end as CRLF (a lone LF
/// gains a CR; a CRLF stays). A lone CR is kept in both.
///
/// Errors: as [`super::hash_backing_file`].
pub(crate) fn line_end_hashes(
    root: &Path,
    path: &Path,
) -> std::result::Result<[[u8; 32]; 2], crate::fsutil::ReadError> {
    use crate::fsutil::{open_regular, Follow, ReadError};
    use std::io::Read;
    let (f, _) = open_regular(path, MAX_BACKING_BYTES, Follow::Inside(root))?;
    let mut f = f.take(MAX_BACKING_BYTES);
    let (mut lf, mut crlf) = (Sha256::new(), Sha256::new());
    let mut buf = vec![0u8; 64 * 1024];
    // A CR at the end of the last chunk, not yet known to start a CRLF.
    let mut pending_cr = false;
    loop {
        let n = f.read(&mut buf).map_err(ReadError::Io)?;
        if n == 0 {
            break;
        }
        let mut start = 0;
        for i in 0..n {
            match buf[i] {
                b'\n' => {
                    // The text before this LF, without a CR that ends it.
                    let end = if i > start && buf[i - 1] == b'\r' {
                        i - 1
                    } else {
                        i
                    };
                    if pending_cr && i == start {
                        // The CR of the last chunk ends this line.
                        pending_cr = false;
                    } else if pending_cr {
                        lf.update(b"\r");
                        crlf.update(b"\r");
                        pending_cr = false;
                    }
                    lf.update(&buf[start..end]);
                    crlf.update(&buf[start..end]);
                    lf.update(b"\n");
                    crlf.update(b"\r\n");
                    start = i + 1;
                }
                _ if pending_cr => {
                    lf.update(b"\r");
                    crlf.update(b"\r");
                    pending_cr = false;
                }
                _ => {}
            }
        }
        let mut end = n;
        if end > start && buf[end - 1] == b'\r' {
            end -= 1;
            lf.update(&buf[start..end]);
            crlf.update(&buf[start..end]);
            pending_cr = true;
        } else {
            lf.update(&buf[start..end]);
            crlf.update(&buf[start..end]);
        }
    }
    if pending_cr {
        lf.update(b"\r");
        crlf.update(b"\r");
    }
    Ok([lf.finalize().into(), crlf.finalize().into()])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line-end forms the slow way: every CRLF as LF, then every LF as CRLF.
    fn naive_forms(bytes: &[u8]) -> [[u8; 32]; 2] {
        let mut lf = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i += 1;
                continue;
            }
            lf.push(bytes[i]);
            i += 1;
        }
        let mut crlf = Vec::new();
        for &b in &lf {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
        }
        [Sha256::digest(&lf).into(), Sha256::digest(&crlf).into()]
    }

    #[test]
    fn line_end_forms_match_the_slow_way_across_read_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let chunk = 64 * 1024;
        let mut cases: Vec<Vec<u8>> = vec![
            b"a\r\nb\nc\rd\r\n".to_vec(),
            b"\r".to_vec(),
            b"\r\r\n\n\r".to_vec(),
            Vec::new(),
        ];
        for (at, tail) in [
            (chunk - 1, &b"\r\nx"[..]),
            (chunk - 1, b"\rx"),
            (chunk - 1, b"\r\r\nx\r"),
            (chunk, b"\nx"),
            (chunk - 2, b"\r\n\r\n"),
        ] {
            let mut c = vec![b'a'; at];
            c.extend_from_slice(tail);
            cases.push(c);
        }
        for (i, c) in cases.iter().enumerate() {
            let p = root.join(format!("f{i}"));
            std::fs::write(&p, c).unwrap();
            assert_eq!(
                line_end_hashes(&root, &p).unwrap(),
                naive_forms(c),
                "case {i}"
            );
        }
    }
}
