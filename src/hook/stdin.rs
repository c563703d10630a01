//! Reading the host's JSON on stdin without trusting the host to close it.
//!
//! Hosts write one JSON value and close stdin, but not always: a host that keeps the pipe open
//! would make "read to EOF" wait until the host's own timeout kills the hook, and the recovery
//! or reminder it should have printed is lost. So [`read_payload`] reads until EOF, or until one
//! complete JSON value has arrived and no byte followed within [`IDLE_AFTER_VALUE`], or until
//! nothing more arrived for [`IDLE_BEFORE_VALUE`] (nothing at all for
//! [`IDLE_BEFORE_FIRST_BYTE`]: a host that sends nothing, a terminal),
//! never longer than [`MAX_READ_TIME`] in all (a host that trickles bytes), and never more than
//! [`MAX_STDIN_BYTES`] (`/dev/zero` as stdin). Where the value ends is found by [`Scan`], which
//! looks at each byte once. A leading UTF-8 BOM is
//! allowed (it is removed by [`super::json`] when parsing).

use std::time::Duration;

/// The most bytes read from stdin (16 MiB: a UserPromptSubmit payload carries the whole prompt,
/// which can be a large paste; anything bigger is not a hook payload).
pub(crate) const MAX_STDIN_BYTES: usize = 16 * 1024 * 1024;

/// After a complete JSON value, how long to wait for a further byte before stopping.
pub(crate) const IDLE_AFTER_VALUE: Duration = Duration::from_millis(30);

/// Once a value has begun but is not complete, how long a silence ends the read.
pub(crate) const IDLE_BEFORE_VALUE: Duration = Duration::from_millis(400);

/// Before the first byte, how long a silence ends the read: longer than [`IDLE_BEFORE_VALUE`],
/// since a host (or a wrapper script) under load can take longer to start writing than to
/// finish (a python3 writer took 420 ms to start), and well under the hooks'
/// 10 s timeout and [`MAX_READ_TIME`].
pub(crate) const IDLE_BEFORE_FIRST_BYTE: Duration = Duration::from_millis(1500);

/// The longest a read may take in all, however the host trickles bytes (2 s: a real payload,
/// even a 16 MiB one, arrives in milliseconds).
pub(crate) const MAX_READ_TIME: Duration = Duration::from_secs(2);

/// [`MAX_READ_TIME`], or in a debug build the time [`crate::env::TEST_MAX_READ_MS`] names (a
/// test seam: see there).
fn max_read_time() -> Duration {
    #[cfg(debug_assertions)]
    if let Some(ms) = crate::env::get(crate::env::TEST_MAX_READ_MS).and_then(|v| v.parse().ok()) {
        return Duration::from_millis(ms);
    }
    MAX_READ_TIME
}

/// How long a silence ends the read, given the scan so far and whether any byte came: the one
/// rule both readers follow ([`read_from`] and [`read_threaded`]).
fn idle_time(scan: &Scan, any_byte: bool) -> Duration {
    if scan.complete() {
        IDLE_AFTER_VALUE
    } else if any_byte {
        IDLE_BEFORE_VALUE
    } else {
        IDLE_BEFORE_FIRST_BYTE
    }
}

/// Why a read ended: what the tests check instead of how long the read took (the waits are the
/// rules of the module docs; a wall clock on a loaded machine says nothing about them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// The host closed stdin.
    Eof,
    /// `cap` bytes arrived.
    Cap,
    /// A complete JSON value arrived and nothing followed within [`IDLE_AFTER_VALUE`].
    AfterValue,
    /// A value had begun and nothing more came within [`IDLE_BEFORE_VALUE`].
    Silence,
    /// No byte came within [`IDLE_BEFORE_FIRST_BYTE`].
    NothingSent,
    /// The read took the longest time allowed in all.
    MaxReadTime,
    /// Reading failed (what was read is kept).
    Error,
}

/// The [`End`] of a read that timed out waiting, given the scan so far.
fn idle_end(scan: &Scan, any_byte: bool) -> End {
    if scan.complete() {
        End::AfterValue
    } else if any_byte {
        End::Silence
    } else {
        End::NothingSent
    }
}

/// An incremental scan of a JSON text's structure, byte by byte and once per byte (so a huge
/// payload costs linear time however it is split into reads): it tells when the first top-level
/// object or array has closed, and whether anything but white space followed it.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    depth: u32,
    in_string: bool,
    escaped: bool,
    closed: bool,
    trailing: bool,
}

impl Scan {
    /// Feeds the next bytes.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.closed {
                self.trailing |= !b.is_ascii_whitespace();
            } else if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' if self.depth > 0 => {
                        self.depth -= 1;
                        self.closed = self.depth == 0;
                    }
                    _ => {}
                }
            }
        }
    }

    /// True when one object or array has closed and nothing but white space followed.
    pub(crate) fn complete(&self) -> bool {
        self.closed && !self.trailing
    }
}

/// Reads the hook payload from stdin under the rules of the module docs. Read errors end the
/// read and keep what was read so far. On Unix [`read_from`] waits with `poll`; on Windows, which
/// has no `poll` for pipes, and on macOS when stdin is a terminal (its `poll` does not support
/// tty devices), [`read_threaded`] waits on a reader thread instead, under the same limits.
pub(crate) fn read_payload() -> Vec<u8> {
    #[cfg(unix)]
    {
        #[cfg(target_vendor = "apple")]
        if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return read_threaded(std::io::stdin(), MAX_STDIN_BYTES, max_read_time()).0;
        }
        read_from(std::io::stdin().lock(), MAX_STDIN_BYTES, max_read_time()).0
    }
    #[cfg(not(unix))]
    {
        read_threaded(std::io::stdin(), MAX_STDIN_BYTES, max_read_time()).0
    }
}

/// [`read_payload`] from any reader, at most `cap` bytes in at most `max_read` (the hooks pass
/// [`MAX_READ_TIME`]), with why it ended, for systems where a descriptor cannot
/// be polled: a thread does the blocking reads and hands each chunk over a channel, and this
/// thread waits for the next chunk no longer than the idle times and `max_read` allow.
/// When the read ends on a timeout the reader thread stays blocked in its `read` until the
/// process exits (a hook exits right after), holding nothing but its last chunk.
#[cfg_attr(all(unix, not(target_vendor = "apple")), allow(dead_code))]
pub(crate) fn read_threaded<R: std::io::Read + Send + 'static>(
    mut reader: R,
    cap: usize,
    max_read: Duration,
) -> (Vec<u8>, End) {
    use std::sync::mpsc::{sync_channel, RecvTimeoutError};
    let (tx, rx) = sync_channel::<Vec<u8>>(4);
    let spawned = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let mut left = cap;
            while left > 0 {
                let mut chunk = vec![0u8; left.min(64 * 1024)];
                match reader.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        chunk.truncate(n);
                        left -= n;
                        if tx.send(chunk).is_err() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
    if spawned.is_err() {
        return (Vec::new(), End::Error);
    }
    let start = std::time::Instant::now();
    let mut buf = Vec::new();
    let mut scan = Scan::default();
    let end = loop {
        if buf.len() >= cap {
            break End::Cap;
        }
        let idle = idle_time(&scan, !buf.is_empty());
        let Some(left) = max_read.checked_sub(start.elapsed()) else {
            break End::MaxReadTime;
        };
        match rx.recv_timeout(idle.min(left)) {
            Ok(chunk) => {
                scan.feed(&chunk);
                buf.extend_from_slice(&chunk);
            }
            Err(RecvTimeoutError::Timeout) if idle <= left => {
                break idle_end(&scan, !buf.is_empty())
            }
            Err(RecvTimeoutError::Timeout) => break End::MaxReadTime,
            Err(RecvTimeoutError::Disconnected) => break End::Eof,
        }
    };
    buf.truncate(cap);
    (buf, end)
}

/// [`read_payload`] from any readable descriptor (a pipe, a file, a terminal), at most `cap`
/// bytes in at most `max_read`, with why it ended.
#[cfg(unix)]
pub(crate) fn read_from(
    fd: impl std::os::fd::AsFd,
    cap: usize,
    max_read: Duration,
) -> (Vec<u8>, End) {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use rustix::io::Errno;
    let fd = fd.as_fd();
    let start = std::time::Instant::now();
    let mut buf: Vec<u8> = Vec::new();
    let mut scan = Scan::default();
    let mut scanned = 0;
    let end = loop {
        if buf.len() >= cap {
            break End::Cap;
        }
        let idle = idle_time(&scan, !buf.is_empty());
        let Some(left) = max_read.checked_sub(start.elapsed()) else {
            break End::MaxReadTime;
        };
        let wait = idle.min(left);
        let timeout = Timespec {
            tv_sec: wait.as_secs() as _,
            tv_nsec: wait.subsec_nanos() as _,
        };
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) if idle <= left => break idle_end(&scan, !buf.is_empty()),
            Ok(0) => break End::MaxReadTime,
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => break End::Error,
        }
        // Straight into the buffer's spare capacity (no zeroed scratch buffer to fill); bytes
        // past the cap, if the spare capacity held more, are dropped.
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve((cap - buf.len()).min(16 * 1024).max(buf.len()));
        }
        match rustix::io::read(fd, rustix::buffer::spare_capacity(&mut buf)) {
            Ok(0) => break End::Eof,
            Ok(_) => {
                buf.truncate(cap);
                let from = buf.len().min(scanned);
                scan.feed(&buf[from..]);
                scanned = buf.len();
            }
            Err(Errno::INTR) | Err(Errno::AGAIN) => continue,
            Err(_) => break End::Error,
        }
    };
    (buf, end)
}

/// The reader-thread path ([`read_threaded`], what Windows and a macOS terminal use), tested on
/// every system with the same held-open pipes as the `poll` path. Each test checks why the read
/// ended ([`End`]), never how long it took: a loaded machine stretches every wait.
#[cfg(test)]
mod threaded_tests {
    use super::*;
    use std::io::Write;

    /// Long enough never to end a read that has a reason of its own to end on a loaded machine.
    pub(super) const PATIENT: Duration = Duration::from_secs(600);

    /// A pipe whose writer sends one space every 20 ms, 200 times (until the reader is gone):
    /// far inside [`IDLE_BEFORE_VALUE`], so only the longest read time ends it.
    pub(super) fn trickle_pipe() -> (std::io::PipeReader, std::thread::JoinHandle<()>) {
        let (r, mut w) = std::io::pipe().unwrap();
        let trickle = std::thread::spawn(move || {
            for _ in 0..200 {
                if w.write_all(b" ").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        (r, trickle)
    }

    #[test]
    fn a_held_open_pipe_ends_after_a_complete_value() {
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"\xef\xbb\xbf{\"session_id\":\"abc\"}\n")
            .unwrap();
        let (got, end) = read_threaded(r, MAX_STDIN_BYTES, PATIENT);
        assert_eq!(end, End::AfterValue);
        assert!(got.ends_with(b"}\n"), "{got:?}");
        drop(w);
    }

    #[test]
    fn silence_ends_an_incomplete_value_eof_ends_at_once_and_the_cap_holds() {
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"{\"session_id\":").unwrap();
        let (got, end) = read_threaded(r, 1024, PATIENT);
        assert_eq!(
            (got.as_slice(), end),
            (&b"{\"session_id\":"[..], End::Silence)
        );
        drop(w);
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"{}").unwrap();
        drop(w);
        assert_eq!(read_threaded(r, 1024, PATIENT), (b"{}".to_vec(), End::Eof));
        let (got, end) = read_threaded(std::io::repeat(b'x'), 100_000, PATIENT);
        assert_eq!((got.len(), end), (100_000, End::Cap));
    }

    /// The threaded reader waits as long as the polling one for a host that is slow to start
    /// writing (it used the shorter in-value silence, so a payload begun after 400 ms was lost).
    #[test]
    fn a_late_first_byte_is_waited_for() {
        let (r, mut w) = std::io::pipe().unwrap();
        let late = std::thread::spawn(move || {
            std::thread::sleep(IDLE_BEFORE_VALUE + Duration::from_millis(300));
            w.write_all(b"{}").unwrap();
        });
        assert_eq!(read_threaded(r, 1024, PATIENT), (b"{}".to_vec(), End::Eof));
        late.join().unwrap();
    }

    #[test]
    fn a_trickle_is_cut_off_at_the_longest_read_time() {
        let (r, trickle) = trickle_pipe();
        let (_, end) = read_threaded(r, 1024, Duration::from_millis(700));
        assert_eq!(end, End::MaxReadTime);
        trickle.join().unwrap();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::threaded_tests::{trickle_pipe, PATIENT};
    use super::*;
    use std::io::Write;

    #[test]
    fn stops_after_a_complete_value_on_a_held_open_pipe() {
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"\xef\xbb\xbf{\"session_id\":\"abc\"}\n")
            .unwrap();
        let (got, end) = read_from(&r, MAX_STDIN_BYTES, PATIENT);
        assert_eq!(end, End::AfterValue);
        assert!(got.ends_with(b"}\n"));
        drop(w);
    }

    #[test]
    fn an_incomplete_value_ends_after_the_idle_time_and_eof_ends_at_once() {
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"{\"session_id\":").unwrap();
        let (got, end) = read_from(&r, 1024, PATIENT);
        assert_eq!(
            (got.as_slice(), end),
            (&b"{\"session_id\":"[..], End::Silence)
        );
        drop(w);
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(b"{}").unwrap();
        drop(w);
        assert_eq!(read_from(&r, 1024, PATIENT), (b"{}".to_vec(), End::Eof));
        let (r, w) = std::io::pipe().unwrap();
        assert_eq!(read_from(&r, 1024, PATIENT), (Vec::new(), End::NothingSent));
        drop(w);
    }

    /// A writer that starts late (420 ms under load was seen) and then keeps the pipe open
    /// still delivers its payload, and the read ends on the value, not on the longest time.
    #[test]
    fn a_writer_that_starts_late_is_still_read() {
        let (r, mut w) = std::io::pipe().unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(700));
            w.write_all(b"{\"session_id\":\"late\"}").unwrap();
            std::thread::sleep(Duration::from_millis(1500));
        });
        let got = read_from(&r, 1024, PATIENT);
        assert_eq!(
            got,
            (b"{\"session_id\":\"late\"}".to_vec(), End::AfterValue)
        );
        writer.join().unwrap();
    }

    #[test]
    fn reads_at_most_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("zeros");
        std::fs::write(&p, vec![0u8; 10_000]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        let (got, end) = read_from(&f, 4096, PATIENT);
        assert_eq!((got.len(), end), (4096, End::Cap));
    }

    /// 8 MiB of closing braces inside a string, written in 4 KiB chunks to a pipe held open
    /// afterwards: the whole value is read and the read ends on it ([`Scan`] looks at each byte
    /// once, however the value is split); a trickle is cut off at the longest read time.
    #[test]
    fn a_payload_of_closing_braces_is_read_whole_and_a_trickle_is_cut_off() {
        let (r, mut w) = std::io::pipe().unwrap();
        let big = {
            let mut v = b"{\"prompt\":\"".to_vec();
            v.extend(std::iter::repeat_n(b'}', 8 << 20));
            v.extend_from_slice(b"\"}");
            v
        };
        let writer = std::thread::spawn(move || {
            for chunk in big.chunks(4096) {
                w.write_all(chunk).unwrap();
            }
            // Held open afterwards: the read ends on the idle time after the value.
            std::thread::sleep(Duration::from_millis(1500));
        });
        let (got, end) = read_from(&r, MAX_STDIN_BYTES, PATIENT);
        assert_eq!((got.len(), end), ((8 << 20) + 13, End::AfterValue));
        writer.join().unwrap();
        let (r, trickle) = trickle_pipe();
        let (_, end) = read_from(&r, 1024, Duration::from_millis(700));
        assert_eq!(end, End::MaxReadTime);
        drop(r);
        trickle.join().unwrap();
    }

    #[test]
    fn the_scan_finds_the_end_of_the_first_value() {
        let mut s = Scan::default();
        s.feed(b"\xef\xbb\xbf{\"a\":\"}\\\"]\",");
        assert!(!s.complete());
        s.feed(b"\"b\":[1,{}]}\n ");
        assert!(s.complete());
        s.feed(b"x");
        assert!(!s.complete());
    }
}
