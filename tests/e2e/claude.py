"""Claude Code driver and checks: the real client, pointed at the mock, in a pinned sandbox.

One interactive session under tmux walks the whole compaction-survival path (status line,
reminder, /compact-prep, /compact, automatic compaction); one `claude -p` run covers the
non-interactive path. Every check reads what the mock received, the files the client made
capn write, or the client's own debug log.
"""

import json
import os
import re
import subprocess

import compaction
from harness import CONTRACT, RECOVERY, REMINDER, Tmux, expect, wait_until

API_KEY = "sk-ant-e2e-000000000000000000000000000000"
TURN = 120  # seconds: bound on one turn (client start, hooks, mock reply) on a busy machine


def client_env(sb, extra=None):
    e = {
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{sb.port}",
        "ANTHROPIC_API_KEY": API_KEY,
        "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        # Found in 2.1.332: without it the client tries to clone the official plugin
        # marketplace from GitHub at start.
        "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
    }
    e.update(extra or {})
    return sb.env(e)


def seed_profile(sb):
    """Pre-seeds onboarding, the API-key approval and the project's trust in the pinned
    profile, and manual permission mode with auto mode off (its classifier would send every
    tool call to the mock, and 2.1.332 offers it in a dialog at start), so the client starts
    straight at the prompt."""
    cfg = os.path.join(sb.home, ".claude")
    os.makedirs(cfg, exist_ok=True)
    with open(os.path.join(cfg, ".claude.json"), "w") as f:
        json.dump({
            "hasCompletedOnboarding": True, "theme": "dark", "numStartups": 1,
            # with skipAutoPermissionPrompt below: no "Make auto mode your default?" dialog
            "hasResetAutoModeOptInForDefaultOffer": True,
            "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
            "projects": {sb.proj: {"hasTrustDialogAccepted": True,
                                   "hasCompletedProjectOnboarding": True,
                                   "projectOnboardingSeenCount": 1, "allowedTools": []}},
        }, f)
    with open(os.path.join(cfg, "settings.json"), "w") as f:
        json.dump({"permissions": {"defaultMode": "default", "disableAutoMode": "disable"},
                   "skipAutoPermissionPrompt": True}, f)


def claude_bin():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules", ".bin",
                        "claude")


class Interactive:
    """The interactive client under tmux, and what the checks learn on the way."""

    def __init__(self, sb):
        self.sb = sb
        self.tmux = Tmux(sb, "claude")
        self.debug_log = os.path.join(sb.root, "claude-debug.log")
        self.sid = None
        self.mark = 0  # requests up to this number belong to earlier steps

    def start(self):
        self.tmux.start([claude_bin(), "--debug-file", self.debug_log], self.sb.proj,
                        client_env(self.sb))
        # capn's status line before any use: "ctx --" (seed_profile keeps the onboarding,
        # trust and auto-mode dialogs away; a dialog that still shows fails here, on screen)
        self.tmux.wait_screen("capn's status line", r"ctx --", TURN)

    def prompt(self, tag, extra=""):
        """Types a prompt carrying `tag` and waits for its main request and the reply on screen.
        Returns the main request."""
        self.mark = self.sb.log.last_n()
        self.tmux.type(f"{tag} {extra}".strip())
        self.tmux.wait_screen(f"the typed prompt {tag}", re.escape(tag), 30)
        self.tmux.key("Enter")
        req = self.sb.log.wait_for(f"the main request of prompt {tag}",
                                   lambda r: r.is_main() and tag in r.last_user_text(),
                                   TURN, self.mark)
        self.tmux.wait_screen(f"the reply to {tag}", r"ok " + re.escape(tag), TURN)
        return req

    def slash(self, command):
        self.mark = self.sb.log.last_n()
        self.tmux.type(command)
        self.tmux.wait_screen(f"the typed {command}", re.escape(command), 30)
        self.tmux.key("Enter")

    def session_id(self, req):
        """The session id the client sent with a request (header, else metadata)."""
        h = {k.lower(): v for k, v in req.headers.items()}
        if h.get("x-claude-code-session-id"):
            return h["x-claude-code-session-id"]
        uid = (req.body.get("metadata") or {}).get("user_id") or ""
        m = re.search(r'session_id\\?"\s*:\s*\\?"([A-Za-z0-9._-]+)', uid)
        return m.group(1) if m else None


def check_counts(req, needle, n, what):
    c = req.count(needle)
    expect(c == n, f"{what}: {needle!r} appears {n} time(s) in the request",
           f"{c} time(s); {req.brief()}")


def run_interactive(sb, res, features):
    """The interactive scenario; each step is a named check, later steps depend on earlier."""
    seed_profile(sb)
    cc = Interactive(sb)
    st = {}

    def startup():
        cc.start()
        req = cc.prompt("E2E-P1", "E2E_USAGE=20000")
        cc.sid = cc.session_id(req)
        expect(cc.sid, "the client sends its session id", req.headers)
        check_counts(req, CONTRACT, 1, "first prompt carries the contract once")
        check_counts(req, RECOVERY, 0, "first prompt carries no recovery")
        check_counts(req, REMINDER, 0, "first prompt carries no reminder")

    def status_low():
        want = lambda: percent_shown(st["window"], 20000)
        st["window"] = wait_until("a status line run with a context window size",
                                  lambda: context_window(sb), TURN)
        cc.tmux.wait_screen(f"capn's figure for 20,000 of {st['window']} tokens",
                            rf"ctx {want()}%", TURN)

    def status_65():
        used = (st["window"] * 65 + 99) // 100
        cc.prompt("E2E-P2", f"E2E_USAGE={used}")
        cc.tmux.wait_screen(f"capn's figure at 65% ({used} of {st['window']} tokens)",
                            r"ctx 65%", TURN)

    def reminder_once():
        req = cc.prompt("E2E-P3")
        check_counts(req, REMINDER, 1, "the prompt after crossing 60% carries the reminder once")
        expect("/compact-prep" in req.text, "the reminder names /compact-prep", req.brief())
        req = cc.prompt("E2E-P4")
        check_counts(req, REMINDER, 1, "the prompt after that adds no second reminder")
        check_counts(req, CONTRACT, 1, "the contract is still there exactly once")

    def compact_prep():
        cc.slash("/compact-prep")
        req = sb.log.wait_for("the /compact-prep skill turn",
                              lambda r: r.is_main() and "capn state path --session" in r.last_user_text(),
                              TURN, cc.mark)
        expect(f'--session "{cc.sid}"' in req.last_user_text() or f"--session {cc.sid}" in req.last_user_text(),
               "the expanded skill names the client's session id", req.last_user_text()[:400])
        path = os.path.join(sb.state, "sessions", cc.sid, "state.md")
        wait_until(f"the state file {path}", lambda: os.path.exists(path), TURN,
                   lambda: "\n" + cc.tmux.tail() + "\n  state dir: " + repr(list_tree(sb.state)))
        text = open(path).read()
        expect("E2E-RECOVERY-NOTE" in text, "the saved state is what the model sent", text[:300])
        # the tool result went back to the model and the turn ended
        sb.log.wait_for("the tool result of the save",
                        lambda r: r.is_main() and "tool_result" in json.dumps(r.body.get("messages", [])[-1:]),
                        TURN, req.n)
        st["state"] = path

    steps = [
        ("claude: contract arrives once at startup", startup),
        ("claude: status line shows capn's figure at low use", status_low),
        ("claude: status line shows capn's figure at 65% use", status_65),
        ("claude: /compact-prep reminder arrives once on the next prompt", reminder_once),
        ("claude: /compact-prep saves state under the client's session id", compact_prep),
    ] + compaction.claude_steps(sb, cc, st)
    try:
        stuck = False
        for step in steps:
            name, fn, checks = step if len(step) == 3 else (*step, [])
            if stuck:
                res.skip(name, "not run: an earlier step of the same session got stuck")
                for check, _ in checks:
                    res.skip(check, "not run: an earlier step of the same session got stuck")
                continue
            outcome = res.run(name, fn)
            stuck = outcome == "stuck"
            for check, cfn in checks:
                if outcome == "pass":
                    res.run(check, cfn)
                else:
                    res.skip(check, f"not run: {name!r} did not pass")
    finally:
        cc.tmux.key("C-c")
        cc.tmux.kill()
    res.run("claude: debug log shows no complaint about capn's settings",
            check_debug_log, cc.debug_log, sb)


def context_window(sb):
    """context_window_size from the last status line input that had one."""
    for inp in reversed(sb.statusline_inputs()):
        size = (inp.get("context_window") or {}).get("context_window_size")
        if isinstance(size, int) and size > 0:
            return size
    return None


def percent_shown(window, used):
    return used * 100 // window


def recovery_excerpt(req):
    i = req.text.find(RECOVERY)
    return req.text[i:i + 2000] if i >= 0 else f"(no recovery) {req.brief()}"


def list_tree(root):
    out = []
    for d, _, fs in os.walk(root):
        out += [os.path.relpath(os.path.join(d, f), root) for f in fs]
    return sorted(out)


COMPLAINT = re.compile(r"invalid|error|failed|warn|not valid|unknown|schema", re.I)
CAPN_RELATED = re.compile(r"capn|settings\.json|statusLine|status line|hooks?\b|compact-prep|skill", re.I)


def check_debug_log(path, sb):
    """No [WARN]/[ERROR] line, and no line that reads like a complaint, about capn's hooks,
    status line, skill or the settings file that holds them."""
    expect(os.path.exists(path), "the client wrote its debug log", path)
    bad = []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.replace(sb.root, "<sandbox>")
        if "Hooks: Checking first line" in line or "Parsed initial response" in line:
            continue  # these lines quote capn's own output, which mentions "schema" etc.
        if "provided additionalContext" in line or "success:" in line:
            continue
        if CAPN_RELATED.search(line) and COMPLAINT.search(line) and (
                "[WARN]" in line or "[ERROR]" in line or "capn" in line):
            if "Broken symlink or missing file" in line:
                continue  # an absent optional settings layer (user, local, managed)
            bad.append(line.strip()[:300])
    expect(not bad, "no complaint about capn's settings in the client's debug log",
           "\n    ".join(bad[:10]))
    # every capn hook the client ran finished with status 0
    statuses = re.findall(r"\[(capn [^\]]*)\] (?:finished|completed) with status (\d+)",
                          open(path, encoding="utf-8", errors="replace").read())
    expect(statuses, "the debug log records capn hook runs", path)
    nonzero = [s for s in statuses if s[1] != "0"]
    expect(not nonzero, "every capn hook and status line run finished with status 0", nonzero)


def run_print_mode(sb, res):
    """`claude -p` (non-interactive, stream-json): the contract arrives once."""

    def body():
        mark = sb.log.last_n()
        r = subprocess.run([claude_bin(), "-p", "E2E-PP1 hello", "--output-format", "stream-json",
                            "--verbose"], cwd=sb.proj, env=client_env(sb), capture_output=True,
                           text=True, timeout=TURN, stdin=subprocess.DEVNULL)
        expect(r.returncode == 0, "claude -p exits 0", r.stderr[-800:])
        # an automated session lists invalid settings on stderr (and skips them)
        err = r.stderr.replace(sb.root, "<sandbox>")
        expect("settings.json" not in err and "capn" not in err,
               "claude -p says nothing about capn or a settings file on stderr", err[-800:])
        events = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
        init = next((e for e in events if e.get("subtype") == "init"), {})
        req = sb.log.wait_for("the -p prompt's main request",
                              lambda q: q.is_main() and "E2E-PP1" in q.last_user_text(), 30, mark)
        check_counts(req, CONTRACT, 1, "claude -p: the contract arrives once")
        hooks = [e for e in events if e.get("subtype") == "hook_response"
                 and "capn" in json.dumps(e)]
        expect(all(e.get("exit_code", 0) == 0 for e in hooks),
               "stream-json reports capn hooks exiting 0", hooks)
        expect(init.get("session_id") and init["session_id"] == Interactive(sb).session_id(req),
               "the session id in stream-json is the one the mock received",
               (init.get("session_id"), req.headers))

    res.run("claude -p: contract arrives once, session id matches, no settings complaint", body)
