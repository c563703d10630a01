"""Harness of the end-to-end suite: a pinned sandbox, the mock's request log, tmux screens, and
the check registry. Every wait here is on an event (a request in the mock's log, a line on the
screen, a file written, a process ending) with a bound; none is a bare sleep.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

# The mock's own reading of a request, so the checks see what the mock answered to.
from mock_server import is_summary_request, last_user_text, texts

HERE = os.path.dirname(os.path.abspath(__file__))
POLL = 0.1  # seconds between looks at a log, a screen or a file while waiting for an event

# What capn injects, recognised by their fixed openings (src/cmd/context.rs, src/hook/text.rs).
CONTRACT = "capn (project memory) is available in this repository"
RECOVERY = "[capn] Context compaction recovery."
REMINDER = "[capn] Context use in this session"
# src/hook/summary.rs: PreCompact's instructions for the summary, the note on a summary that
# left out what the saved state holds; src/hook/subagent_start.rs: the sub-agent contract.
INSTRUCTIONS = "[capn] Instructions for this summary, from capn-hook"
GAPS = "[capn] Compaction summary check."
SUBAGENT = "[capn] Sub-agent contract:"
# state.md's Active Plan line as capn's instructions quote it (a JSON string).
PLAN_QUOTED = '"E2E-PLAN: none (end-to-end test)"'
NO_STATE = "No state was saved"


class CheckFailed(Exception):
    """A check's expectation was not met; the message says what was seen. `timeout`: the
    awaited event never came, so the client is in an unknown state."""

    def __init__(self, msg, timeout=False):
        super().__init__(msg)
        self.timeout = timeout


def expect(cond, what, saw):
    if not cond:
        raise CheckFailed(f"{what}\n  saw: {saw}")


def wait_until(what, fn, timeout, saw=lambda: ""):
    """Polls fn() until it returns something truthy; CheckFailed after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}\n  saw: {saw()}",
                              timeout=True)
        time.sleep(POLL)


class Request:
    """One request the mock received."""

    def __init__(self, rec):
        self.n = rec["n"]
        self.path = rec["path"]
        self.headers = rec.get("headers", {})
        self.body = rec.get("body") or {}
        self.text = "\n".join(texts(self.body))

    def count(self, needle):
        return self.text.count(needle)

    def last_user_text(self):
        return last_user_text(self.body)

    def is_main(self):
        """A turn of the main conversation (it offers tools), not a side query."""
        return bool(self.body.get("tools"))

    def is_summary(self):
        return is_summary_request(self.body, self.last_user_text())

    def brief(self):
        return f"#{self.n} {self.path} last user text: {self.last_user_text()[-300:]!r}"


class MockLog:
    def __init__(self, path):
        self.path = path

    def all(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                return [Request(json.loads(line)) for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []

    def wait_for(self, what, pred, timeout=90, after=0):
        """The first request numbered above `after` matching pred."""
        def find():
            return next((r for r in self.all() if r.n > after and pred(r)), None)

        def saw():
            rs = [r.brief() for r in self.all() if r.n > after][-4:]
            return "\n    ".join(rs) or "no request"
        return wait_until(what, find, timeout, saw)

    def last_n(self):
        rs = self.all()
        return rs[-1].n if rs else 0


class Sandbox:
    """A temp dir with HOME, XDG dirs, capn's state dir and the clients' profiles pinned inside,
    a fresh project where `capn init` ran, and the mock server listening on 127.0.0.1."""

    def __init__(self, capn, keep=False):
        self.root = tempfile.mkdtemp(prefix="capn-e2e-")
        self.keep = keep
        self.home = os.path.join(self.root, "home")
        self.proj = os.path.join(self.root, "proj")
        self.bin = os.path.join(self.root, "bin")
        self.state = os.path.join(self.root, "state")
        self.hooklog = os.path.join(self.root, "capn-calls")
        for d in (self.home, self.proj, self.bin, self.state, self.hooklog):
            os.makedirs(d)
        self.real_capn = capn
        self._write_capn_wrapper()
        self.mock_log = os.path.join(self.root, "mock.jsonl")
        self.mock = None
        self.port = None

    def _write_capn_wrapper(self):
        """`capn` on PATH: runs the real binary and records, per call, its arguments, exit
        code and stderr, so a check can see every hook run the clients made."""
        w = os.path.join(self.bin, "capn")
        with open(w, "w") as f:
            f.write(f"""#!/bin/sh
d={self.hooklog}/$$
mkdir -p "$d"
printf '%s\\n' "$*" > "$d/args"
tee "$d/stdin" | "{self.real_capn}" "$@" 2> "$d/stderr"
rc=$?
printf '%s\\n' "$rc" > "$d/rc"
exit $rc
""")
        os.chmod(w, 0o755)

    def env(self, extra=None):
        h = self.home
        e = {
            "PATH": self.bin + ":" + os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": h, "USER": os.environ.get("USER", "root"), "LANG": "C.UTF-8",
            "TERM": "xterm-256color", "SHELL": "/bin/bash", "TMPDIR": os.path.join(self.root, "tmp"),
            "XDG_CONFIG_HOME": f"{h}/.config", "XDG_STATE_HOME": f"{h}/.local/state",
            "XDG_DATA_HOME": f"{h}/.local/share", "XDG_CACHE_HOME": f"{h}/.cache",
            "CAPN_STATE_DIR": self.state,
            "CLAUDE_CONFIG_DIR": f"{h}/.claude", "CODEX_HOME": f"{h}/.codex",
        }
        os.makedirs(e["TMPDIR"], exist_ok=True)
        if extra:
            e.update(extra)
        return e

    def start_mock(self, max_requests=600, lifetime=900):
        port_file = os.path.join(self.root, "port")
        self.mock = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "mock_server.py"), "--log", self.mock_log,
             "--port-file", port_file, "--max-requests", str(max_requests),
             "--lifetime", str(lifetime)], stdin=subprocess.DEVNULL)
        self.port = int(wait_until("the mock server's port file",
                                   lambda: os.path.exists(port_file) and open(port_file).read(), 20))
        self.log = MockLog(self.mock_log)
        return self.port

    def capn_init(self):
        subprocess.run(["git", "init", "-q", self.proj], check=True)
        r = subprocess.run(["capn", "init"], cwd=self.proj, env=self.env(),
                           capture_output=True, text=True)
        expect(r.returncode == 0, "capn init exits 0", r.stdout + r.stderr)

    def statusline_inputs(self):
        """The JSON the client gave each `capn statusline` run, oldest first."""
        out = []
        for pid in os.listdir(self.hooklog):
            d = os.path.join(self.hooklog, pid)
            try:
                if not open(os.path.join(d, "args")).read().startswith("statusline"):
                    continue
                out.append((os.stat(os.path.join(d, "args")).st_mtime_ns,
                            json.loads(open(os.path.join(d, "stdin")).read())))
            except (FileNotFoundError, ValueError):
                continue
        return [v for _, v in sorted(out, key=lambda x: x[0])]

    def capn_calls(self):
        """[(args, rc, stderr)] of every capn run through the wrapper so far."""
        out = []
        for pid in sorted(os.listdir(self.hooklog)):
            d = os.path.join(self.hooklog, pid)
            try:
                args = open(os.path.join(d, "args")).read().strip()
                rc = open(os.path.join(d, "rc")).read().strip()
                err = open(os.path.join(d, "stderr")).read()
            except FileNotFoundError:
                continue  # still running
            out.append((args, rc, err))
        return out

    def close(self):
        if self.mock and self.mock.poll() is None:
            self.mock.terminate()
            self.mock.wait(10)
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


class Tmux:
    """An interactive client in its own tmux server (socket in the sandbox), 160x50."""

    def __init__(self, sandbox, name):
        self.sock = os.path.join(sandbox.root, f"tmux-{name}")
        self.name = name

    def run(self, *args, check=True):
        return subprocess.run(["tmux", "-S", self.sock, *args], capture_output=True, text=True,
                              check=check)

    def start(self, argv, cwd, env):
        script = " ".join(shlex.quote(a) for a in argv)
        self.run("-f", "/dev/null", "new-session", "-d", "-s", self.name, "-x", "160", "-y", "50",
                 "-c", cwd, "env -i " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
                 + " " + script)
        self.run("set-option", "-t", self.name, "remain-on-exit", "on", check=False)

    def screen(self):
        """The visible screen (not the scrollback, where a dismissed dialog would linger)."""
        r = self.run("capture-pane", "-p", "-t", self.name, check=False)
        return r.stdout

    def wait_screen(self, what, pattern, timeout=60):
        rx = re.compile(pattern)
        return wait_until(f"the screen to show {what} (/{pattern}/)",
                          lambda: rx.search(self.screen()), timeout,
                          lambda: "\n" + self.tail())

    def tail(self, n=25):
        lines = [ln for ln in self.screen().splitlines() if ln.strip()]
        return "\n".join("    | " + ln for ln in lines[-n:])

    def type(self, text):
        self.run("send-keys", "-t", self.name, "-l", text)

    def key(self, *keys):
        self.run("send-keys", "-t", self.name, *keys)

    def kill(self):
        self.run("kill-server", check=False)


class Results:
    """Named checks with pass / fail / n/a and what was seen."""

    def __init__(self):
        self.rows = []

    def run(self, name, fn, *args):
        """Runs one check. Returns "pass", "fail" (an expectation not met: the session can go
        on) or "stuck" (an awaited event never came, or the driver broke: it cannot)."""
        try:
            fn(*args)
            self.rows.append((name, "PASS", ""))
            print(f"PASS {name}", flush=True)
            return "pass"
        except CheckFailed as e:
            self.rows.append((name, "FAIL", str(e)))
            print(f"FAIL {name}\n  {e}", flush=True)
            return "stuck" if e.timeout else "fail"
        except Exception:  # a broken driver step is a failure too, with its traceback
            tb = traceback.format_exc()
            self.rows.append((name, "FAIL", tb))
            print(f"FAIL {name}\n{tb}", flush=True)
            return "stuck"

    def skip(self, name, why):
        self.rows.append((name, "N/A", why))
        print(f"N/A  {name}: {why}", flush=True)

    def failed(self):
        return sum(1 for r in self.rows if r[1] == "FAIL")

    def passed(self):
        return sum(1 for r in self.rows if r[1] == "PASS")
