"""Learning-from-use checks (docs/recall.md, "Learning from use"), in the real clients: a turn
whose model asks capn in other words (a miss that shows the chart as a candidate) and then
reads that chart's file teaches the chart those words at the turn's end. They only rank: the
same ask still misses (exit 1) and now shows the chart first, marked `"learned": true`; no
entry changes. Print mode (`claude -p`, `codex exec`), one run per turn; the mock scripts the
model (mock_server.LEARN_STEPS).
"""

import json
import os
import subprocess

from harness import expect
from mock_server import LEARN_ASKED, LEARN_CHART, LEARN_STEPS, scripted_turn

CHECK = "a miss whose candidate's file the turn then read teaches it the words: it ranks, never answers"


def chart(sb):
    """Charts LEARN_CHART in the sandbox's project with the real binary (set-up, not a client
    run); returns the entry id."""
    question, rel = LEARN_CHART
    path = os.path.join(sb.proj, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("export function sendResetMail(user: User) {\n  mailer.send(user.email);\n}\n")
    r = subprocess.run([sb.real_capn, "chart", question, "--files", rel], cwd=sb.proj,
                       env=sb.env(), capture_output=True, text=True)
    words = r.stdout.split()
    expect(r.returncode == 0 and words[:1] == ["charted"], f"capn chart {question!r}",
           r.stdout + r.stderr)
    return words[1]


def ask(sb):
    """The real binary's `capn ask LEARN_ASKED`: (exit code, stdout, stderr)."""
    r = subprocess.run([sb.real_capn, "ask", LEARN_ASKED], cwd=sb.proj, env=sb.env(),
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def candidate(stderr):
    """The first `candidate` line of a miss, decoded, or None."""
    for line in stderr.splitlines():
        if line.startswith("candidate "):
            return json.loads(line[len("candidate "):])
    return None


def entries(sb):
    d = os.path.join(sb.proj, ".capn", "entries")
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}


def before(sb, host):
    """Charts LEARN_CHART and checks the starting point: the asked words miss and show it as
    the first candidate, not yet learned. Returns (id, entries)."""
    cid = chart(sb)
    rc, out, err = ask(sb)
    first = candidate(err)
    expect(rc == 1 and out == "" and first and first["id"] == cid and "learned" not in first,
           f"{host}: before the turn, the asked words miss and show the chart unlearned",
           f"exit {rc}, stdout {out[:200]!r}, stderr {err[:600]!r}")
    return cid, entries(sb)


def after(sb, host, cid, kept, mark):
    """The turn made its LEARN_STEPS calls; the same ask still misses, now with the chart
    first and `"learned": true`; the entries are byte for byte as before."""
    reqs = [r for r in sb.log.all() if r.n > mark and r.is_main() and not r.is_summary()]
    turn = [r for r in reqs if (scripted_turn(r.body) or ("",))[0] == "learn"]
    expect(len(turn) == len(LEARN_STEPS) + 1,
           f"{host}: the turn made its {len(LEARN_STEPS)} calls and ended with text",
           "\n    ".join(r.brief() for r in reqs[-6:]))
    rc, out, err = ask(sb)
    first = candidate(err)
    expect(rc == 1 and out == "", f"{host}: learned words never answer (the ask still misses)",
           f"exit {rc}, stdout {out[:300]!r}")
    expect(first and first["id"] == cid and first.get("learned") is True,
           f"{host}: the miss shows the chart first, marked \"learned\": true", err[:800])
    expect(entries(sb) == kept, f"{host}: no entry changed", sorted(entries(sb)))


def run_claude(sb, res, claude_bin, client_env, turn):
    """`claude -p` whose model asks capn in other words, then reads the candidate's file."""

    def body():
        cid, kept = before(sb, "claude")
        mark = sb.log.last_n()
        r = subprocess.run([claude_bin(), "-p", "E2E-PL1 E2E_LEARN", "--output-format",
                            "stream-json", "--verbose", "--allowedTools", "Bash(capn ask:*)",
                            "Read"], cwd=sb.proj, env=client_env(sb), capture_output=True,
                           text=True, timeout=turn, stdin=subprocess.DEVNULL)
        expect(r.returncode == 0, "claude -p exits 0", r.stderr[-800:])
        after(sb, "claude", cid, kept, mark)

    res.run("claude: " + CHECK, body)


def run_codex(sb, res, codex_bin, codex_env, turn):
    """`codex exec` whose model does the same through its shell tool (`sed -n` for the read)."""

    def body():
        cid, kept = before(sb, "codex")
        mark = sb.log.last_n()
        r = subprocess.run([codex_bin(), "exec", "--dangerously-bypass-hook-trust",
                            "--dangerously-bypass-approvals-and-sandbox", "E2E-PL2 E2E_LEARN"],
                           cwd=sb.proj, env=codex_env(sb), capture_output=True, text=True,
                           timeout=turn, stdin=subprocess.DEVNULL)
        expect(r.returncode == 0, "codex exec exits 0", r.stderr[-1500:])
        after(sb, "codex", cid, kept, mark)

    res.run("codex: " + CHECK, body)
