//! Child-process helpers shared by the commands that run other programs (the wrapped status
//! line, doctor's hook runs).

/// Ends a child started in its own process group (`process_group(0)`): SIGKILL to the whole
/// group on Unix (a shell's children may hold the output pipe open), then the child itself, and
/// reaps it. Errors are ignored: the child may already be gone.
pub fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}
