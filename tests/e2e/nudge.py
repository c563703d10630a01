"""Stop nudge checks (issue 32, docs/nudge.md): an exploring turn that charted nothing is
stopped once with capn's reason, the model charts, the next Stop passes; a cheap turn is never
stopped.

Print mode only (`claude -p`, `codex exec`), one run per turn. The mock scripts the model
(mock_server.EXPLORE_STEPS, CHEAP_STEPS, the nudge's chart call); the checks read the requests
it received, the `capn hook stop` runs the wrapper recorded, and `.capn/entries/`.
"""

import json
import os
import re
import subprocess

from harness import expect
from mock_server import (CHEAP_STEPS, EXPLORE_STEPS, NUDGE_FILES, NUDGE_HEAD, NUDGE_QUESTION,
                         NUDGE_TEMPLATE, scripted_turn)

EXPLORE_CHECK = "a turn that explored is stopped once with the nudge, charts, and the next stop passes"
CHEAP_CHECK = "a cheap turn (one ls) is never stopped"


def make_files(sb):
    for rel, text in NUDGE_FILES.items():
        path = os.path.join(sb.proj, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def entries(sb):
    d = os.path.join(sb.proj, ".capn", "entries")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def stop_runs(sb, before):
    """[(stdin as JSON or the raw text, stdout-less rc)] of the `capn hook stop` runs the
    wrapper recorded after the calls in `before`."""
    out = []
    for pid in sorted(os.listdir(sb.hooklog)):
        d = os.path.join(sb.hooklog, pid)
        if pid in before:
            continue
        try:
            if not open(os.path.join(d, "args")).read().startswith("hook stop"):
                continue
            raw = open(os.path.join(d, "stdin")).read()
            mtime = os.stat(os.path.join(d, "args")).st_mtime_ns
        except FileNotFoundError:
            continue
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = {"unparsed": raw[:300]}
        out.append((mtime, payload))
    return [p for _, p in sorted(out, key=lambda x: x[0])]


def main_requests(sb, mark):
    return [r for r in sb.log.all() if r.n > mark and r.is_main() and not r.is_summary()]


def briefs(reqs):
    """One line per request: its script, the calls made since its message, that text's end."""
    def one(r):
        turn = scripted_turn(r.body)
        if not turn:
            return f"#{r.n} no scripted turn; {r.brief()}"
        return f"#{r.n} {turn[0]}, {turn[1]} call(s) since: ...{turn[2][-160:]!r}"
    return "\n    ".join(one(r) for r in reqs[-10:])


def check_explore(sb, mark, before, host):
    """The exploring turn's requests: EXPLORE_STEPS calls then text, one request whose
    message is capn's nudge (with the turn's cost and a template naming the files read), the
    chart call, its result, and no request after the final text. Two Stop runs, the second
    with stop_hook_active; one new entry with the files."""
    reqs = main_requests(sb, mark)
    explore = [r for r in reqs if (scripted_turn(r.body) or ("",))[0] == "explore"]
    nudged = [r for r in reqs if (scripted_turn(r.body) or ("",))[0] == "nudge"]
    expect(len(explore) == len(EXPLORE_STEPS) + 1,
           f"{host}: the exploring turn made its {len(EXPLORE_STEPS)} calls and ended with text "
           f"({len(EXPLORE_STEPS) + 1} requests)", f"{len(explore)}:\n    {briefs(reqs)}")
    expect(nudged, f"{host}: the model's next request carries capn's nudge",
           f"no request whose last user/developer text holds {NUDGE_HEAD!r}; stop runs: "
           f"{stop_runs(sb, before)}\n    {briefs(reqs)}")
    _, calls, text = scripted_turn(nudged[0].body)
    expect(calls == 0 and nudged[0].n > explore[-1].n,
           f"{host}: the nudge comes right after the exploring turn's final text",
           f"calls since the nudge {calls}; {briefs(reqs)}")
    i = text.find(NUDGE_HEAD)
    cost = re.match(r"capn: this turn explored \((\d+) searches, (\d+) files read", text[i:])
    expect(cost and (int(cost.group(1)), int(cost.group(2))) == (2, 3),
           f"{host}: the nudge states the turn's cost (2 searches, 3 files read)", text[i:i + 300])
    m = NUDGE_TEMPLATE.search(text)
    files = sorted(m.group(1).split(",")) if m else None
    expect(files == sorted(NUDGE_FILES), f"{host}: the nudge's template names the files read",
           text[i:i + 900])
    expect(text.count(NUDGE_HEAD) == 1 and sum(r.count(NUDGE_HEAD) > 0 for r in reqs) == len(nudged),
           f"{host}: the nudge is given once", briefs(reqs))
    expect(len(nudged) == 2 and reqs[-1].n == nudged[-1].n,
           f"{host}: after the chart call's result and the final text, no further request "
           "(the second Stop passed)", briefs(reqs))
    runs = stop_runs(sb, before)
    active = [bool(p.get("stop_hook_active")) for p in runs]
    expect(active == [False, True], f"{host}: two Stop runs, the second with stop_hook_active",
           runs)
    new = [e for e in entries(sb) if e not in before["entries"]]
    expect(len(new) == 1, f"{host}: .capn/entries/ gained the chart", entries(sb))
    with open(os.path.join(sb.proj, ".capn", "entries", new[0])) as f:
        entry = f.read()
    expect(NUDGE_QUESTION in entry and all(rel in entry for rel in NUDGE_FILES),
           f"{host}: the entry holds the question and the files", entry[:800])


def check_cheap(sb, mark, before, host):
    reqs = main_requests(sb, mark)
    expect(len(reqs) == len(CHEAP_STEPS) + 1 and all(
        (scripted_turn(r.body) or ("",))[0] == "cheap" for r in reqs),
        f"{host}: the cheap turn made its call, ended with text, and no request came after",
        briefs(reqs))
    expect(not any(r.count(NUDGE_HEAD) for r in reqs), f"{host}: no request carries a nudge",
           briefs(reqs))
    runs = stop_runs(sb, before)
    expect(len(runs) == 1 and not runs[0].get("stop_hook_active"),
           f"{host}: capn's Stop hook ran once, without stop_hook_active", runs)


def snapshot(sb):
    before = {pid: None for pid in os.listdir(sb.hooklog)}
    before["entries"] = entries(sb)
    return before


def run_claude(sb, res, claude_bin, client_env, turn):
    """Two `claude -p` runs: E2E_EXPLORE then E2E_CHEAP."""
    allowed = ["Bash(rg:*)", "Bash(grep:*)", "Bash(sed:*)", "Bash(ls:*)", "Bash(capn chart:*)",
               "Read"]

    def one(tag, directive, check):
        mark, before = sb.log.last_n(), snapshot(sb)
        r = subprocess.run([claude_bin(), "-p", f"{tag} {directive}", "--output-format",
                            "stream-json", "--verbose", "--allowedTools", *allowed],
                           cwd=sb.proj, env=client_env(sb), capture_output=True, text=True,
                           timeout=turn, stdin=subprocess.DEVNULL)
        expect(r.returncode == 0, "claude -p exits 0", r.stderr[-800:])
        denied = [ln[:300] for ln in r.stdout.splitlines() if "permission" in ln.lower()
                  and "denied" in ln.lower()]
        expect(not denied, "claude -p ran every scripted call (none denied)", denied[:3])
        check(sb, mark, before, "claude")

    make_files(sb)
    res.run("claude: " + EXPLORE_CHECK, one, "E2E-PN1", "E2E_EXPLORE", check_explore)
    res.run("claude: " + CHEAP_CHECK, one, "E2E-PN2", "E2E_CHEAP", check_cheap)


def run_codex(sb, res, codex_bin, codex_env, turn):
    """Two `codex exec` runs (new sessions): E2E_EXPLORE then E2E_CHEAP. The sandbox is off:
    the model's `capn chart` writes `.capn/` and the recording wrapper writes outside the
    project."""

    def one(tag, directive, check, stops):
        mark, before = sb.log.last_n(), snapshot(sb)
        r = subprocess.run([codex_bin(), "exec", "--dangerously-bypass-hook-trust",
                            "--dangerously-bypass-approvals-and-sandbox", f"{tag} {directive}"],
                           cwd=sb.proj, env=codex_env(sb), capture_output=True, text=True,
                           timeout=turn, stdin=subprocess.DEVNULL)
        expect(r.returncode == 0, "codex exec exits 0", r.stderr[-1500:])
        check(sb, mark, before, "codex")
        # Codex prints each hook run's outcome: "hook: Stop Blocked", "hook: Stop Completed"
        seen = re.findall(r"^hook: Stop (\w+)", r.stderr, re.M)
        failed = re.findall(r"^hook: .*(?:Failed|Error).*$", r.stderr, re.M)
        expect(seen == stops and not failed,
               f"codex reports its Stop hook runs as {stops} and no failed hook",
               f"Stop: {seen}; failed: {failed[:5]}")

    make_files(sb)
    # Codex runs the model's commands in a login shell (`bash -lc`), and Debian's /etc/profile
    # sets PATH anew: capn on PATH there is a user's ~/.profile line, as after an install.
    with open(os.path.join(sb.home, ".profile"), "a") as f:
        f.write(f'PATH="{sb.bin}:$PATH"\n')
    res.run("codex: " + EXPLORE_CHECK, one, "E2E-PN3", "E2E_EXPLORE", check_explore,
            ["Blocked", "Completed"])
    res.run("codex: " + CHEAP_CHECK, one, "E2E-PN4", "E2E_CHEAP", check_cheap, ["Completed"])
