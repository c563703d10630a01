//! Reading the host's JSON on stdin without trusting the host to close it.
//!
//! Hosts write one JSON value and close stdin, but not always: a host that keeps the pipe open
//! would make "read to EOF" wait until the host's own timeout kills the hook, and the recovery
//! or reminder it should have printed is lost. So [`read_payload`] reads until EOF, or until one
//! complete JSON value has arrived and no byte followed within [`IDLE_AFTER_VALUE`], or until
//! nothing at all arrived for [`IDLE_BEFORE_VALUE`] (a host that sends nothing, a terminal),
//! and never more than [`MAX_STDIN_BYTES`] (`/dev/zero` as stdin). A leading UTF-8 BOM is
//! allowed (it is removed by [`super::json`] when parsing).

use std::time::Duration;

/// The most bytes read from stdin (16 MiB: a UserPromptSubmit payload carries the whole prompt,
/// which can be a large paste; anything bigger is not a hook payload).
pub const MAX_STDIN_BYTES: usize = 16 * 1024 * 1024;

/// After a complete JSON value, how long to wait for a further byte before stopping.
pub const IDLE_AFTER_VALUE: Duration = Duration::from_millis(30);

/// Before a complete value has arrived, how long a silence ends the read.
pub const IDLE_BEFORE_VALUE: Duration = Duration::from_millis(400);

/// Reads the hook payload from stdin under the rules of the module docs. Read errors end the
/// read and keep what was read so far.
pub fn read_payload() -> Vec<u8> {
    #[cfg(unix)]
    {
        read_from(std::io::stdin().lock(), MAX_STDIN_BYTES)
    }
    #[cfg(not(unix))]
    {
        use std::io::Read;
        let mut buf = Vec::new();
        let _ = std::io::stdin()
            .lock()
            .take(MAX_STDIN_BYTES as u64)
            .read_to_end(&mut buf);
        buf
    }
}

/// True when `buf` holds exactly one complete JSON value (a BOM and surrounding white space
/// aside). Cheap when it cannot be: only a buffer ending in `}` or `]` is parsed.
pub fn holds_complete_value(buf: &[u8]) -> bool {
    let end = buf.iter().rposition(|b| !b.is_ascii_whitespace());
    if !end.is_some_and(|i| matches!(buf[i], b'}' | b']')) {
        return false;
    }
    super::json::parse_value(buf).is_some()
}

/// [`read_payload`] from any readable descriptor (a pipe, a file, a terminal), at most `cap`
/// bytes.
#[cfg(unix)]
pub fn read_from(fd: impl std::os::fd::AsFd, cap: usize) -> Vec<u8> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use rustix::io::Errno;
    let fd = fd.as_fd();
    let mut buf: Vec<u8> = Vec::new();
    let mut complete = false;
    while buf.len() < cap {
        let idle = if complete {
            IDLE_AFTER_VALUE
        } else {
            IDLE_BEFORE_VALUE
        };
        let timeout = Timespec {
            tv_sec: idle.as_secs() as _,
            tv_nsec: idle.subsec_nanos() as _,
        };
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => break,
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => break,
        }
        // Straight into the buffer's spare capacity (no zeroed scratch buffer to fill); bytes
        // past the cap, if the spare capacity held more, are dropped.
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve((cap - buf.len()).min(16 * 1024).max(buf.len()));
        }
        match rustix::io::read(fd, rustix::buffer::spare_capacity(&mut buf)) {
            Ok(0) => break,
            Ok(_) => {
                buf.truncate(cap);
                complete = holds_complete_value(&buf);
            }
            Err(Errno::INTR) | Err(Errno::AGAIN) => continue,
            Err(_) => break,
        }
    }
    buf
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Instant;

    #[test]
    fn stops_soon_after_a_complete_value_on_a_held_open_pipe() {
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"\xef\xbb\xbf{\"session_id\":\"abc\"}\n")
            .unwrap();
        let t = Instant::now();
        let got = read_from(&r, MAX_STDIN_BYTES);
        assert!(
            t.elapsed() < Duration::from_millis(300),
            "{:?}",
            t.elapsed()
        );
        assert!(got.ends_with(b"}\n"));
        drop(w);
    }

    #[test]
    fn an_incomplete_value_ends_after_the_idle_time_and_eof_ends_at_once() {
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"{\"session_id\":").unwrap();
        let t = Instant::now();
        assert_eq!(read_from(&r, 1024), b"{\"session_id\":");
        assert!(t.elapsed() < Duration::from_secs(2));
        drop(w);
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"{}").unwrap();
        drop(w);
        assert_eq!(read_from(&r, 1024), b"{}");
    }

    #[test]
    fn reads_at_most_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("zeros");
        std::fs::write(&p, vec![0u8; 10_000]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        assert_eq!(read_from(&f, 4096).len(), 4096);
    }

    #[test]
    fn complete_means_one_whole_value() {
        assert!(holds_complete_value(b" {\"a\":[1,{}]} \n"));
        assert!(holds_complete_value(b"\xef\xbb\xbf{}"));
        assert!(!holds_complete_value(b"{\"a\":[1,{}]"));
        assert!(!holds_complete_value(b"{} {}"));
        assert!(!holds_complete_value(b"\0\0\0"));
    }
}
