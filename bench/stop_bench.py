#!/usr/bin/env python3
"""Whole-process latency of `capn hook stop` (the Stop hook's nudge, docs/nudge.md) at the end of
a 50 MB transcript.

usage: stop_bench.py --capn target/release/capn [--mb 50] [--runs 200] [--hostile]

Writes, in a temp project with a `.capn/` store, a Claude Code transcript of --mb megabytes
(earlier turns of greps, reads and 200 KB tool outputs, in the shapes of
tests/fixtures/conformance/transcripts/1.jsonl) and a Codex rollout of the same size, each
ending in a cheap turn (one `ls`) or an exploring one, then times round-robin (one run of each
case per round), stdin from a file, stdout and stderr to /dev/null, a new session id each run:
  - /bin/true (the spawn floor);
  - Claude, cheap last turn (the common case: read the tail, find the prompt, measure, nothing);
  - Codex, cheap last turn;
  - Claude, exploring last turn (the nudge is printed and its state written);
  - Claude, a last turn of 20 MB of tool output (the bound: 16 MiB read, no prompt in it).
Prints median, p90 and min wall ms and median CPU ms of the child per case.

--hostile adds the transcripts of an attack round, each within the hook's budget now (at most
1 s of CPU and 150 MiB): one `capn ask` output line that lists 160,000 files, then 1,000 reads
of other files (each read was compared with every listed file); and a prompt followed by 9
million lines of `1` (the tail's per-line index cost 16 bytes a line). For every case it also
prints the peak resident memory of one more run, read by GNU time (/usr/bin/time -f %M).
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hooks_bench import spawn_timed  # noqa: E402


def claude_turn(root, n, prompt, calls):
    lines = [json.dumps({"type": "user", "isSidechain": False, "uuid": f"u{n}",
                         "message": {"role": "user", "content": prompt}})]
    for i, (name, inp, out) in enumerate(calls):
        tid = f"toolu_{n}_{i}"
        lines.append(json.dumps({"type": "assistant", "isSidechain": False, "message": {
            "role": "assistant", "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}]}}))
        lines.append(json.dumps({"type": "user", "isSidechain": False, "toolUseResult": {"stdout": out[:100]},
                                 "message": {"role": "user", "content": [
                                     {"type": "tool_result", "tool_use_id": tid, "content": out}]}}))
    return lines


def codex_turn(n, prompt, calls):
    lines = [json.dumps({"type": "response_item", "payload": {"type": "message", "role": "user",
                                                               "content": [{"type": "input_text", "text": prompt}]}})]
    for i, (cmd, out) in enumerate(calls):
        cid = f"call_{n}_{i}"
        lines.append(json.dumps({"type": "response_item", "payload": {
            "type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": cmd}), "call_id": cid}}))
        lines.append(json.dumps({"type": "response_item", "payload": {
            "type": "function_call_output", "call_id": cid, "output": json.dumps({"output": out})}}))
    return lines


def exploring_claude(root, n):
    calls = [("Grep", {"pattern": f"p{k}"}, "src/a.ts:1: x\n" * 50) for k in range(4)]
    calls += [("Read", {"file_path": f"{root}/src/f{k}.ts"}, "code\n" * 400) for k in range(5)]
    return claude_turn(root, n, "where are payment webhooks handled?", calls)


def hitlist_claude(root, n):
    """One `capn ask` whose output is a hit-like line listing 160,000 files (one-letter names,
    so the transcript line stays under the 1 MiB a line may have to be parsed), then 1,000
    reads of other files."""
    hit = json.dumps({"id": "9f3a1c2e", "question": "q", "files": ["a"] * 160_000,
                      "score": 100}, separators=(",", ":"))
    lines = claude_turn(root, n, "where is it?", [("Bash", {"command": "capn ask \"where is it?\""}, hit)])
    # Only the tool_result holds the output (toolUseResult is cut to 100 bytes by claude_turn).
    reads = [("Read", {"file_path": f"{root}/src/r{k}.ts"}, "1") for k in range(1000)]
    return lines + claude_turn(root, n, "where is it?", reads)[1:]


def write_ones(path):
    with open(path, "w") as f:
        f.write(json.dumps({"type": "user", "isSidechain": False, "uuid": "u0",
                            "message": {"role": "user", "content": "go"}}) + "\n")
        f.write("1\n" * 9_000_000)


def write(path, target, earlier, last):
    with open(path, "w") as f:
        size, n = 0, 0
        while size < target:
            for line in earlier(n):
                f.write(line + "\n")
                size += len(line) + 1
            n += 1
        for line in last(n):
            f.write(line + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--hostile", action="store_true")
    a = ap.parse_args()
    capn = os.path.abspath(a.capn)
    tmp = tempfile.mkdtemp(prefix="capn-stop-bench-")
    root = os.path.join(tmp, "project")
    os.makedirs(os.path.join(root, ".capn", "entries"))
    target = a.mb << 20
    big = "y" * 200_000
    cheap_c = lambda n: claude_turn(root, n, "run ls", [("Bash", {"command": "ls -la"}, "total 0")])
    cheap_x = lambda n: codex_turn(n, "run ls", [("ls -la", "total 0")])
    files = {
        "claude-cheap": (lambda n: exploring_claude(root, n) + claude_turn(root, n, "cat log", [("Bash", {"command": "cat x.log"}, big)]), cheap_c, []),
        "codex-cheap": (lambda n: codex_turn(n, "find it", [("rg -n foo src", "a:1\n" * 50), ("cat x.log", big)]), cheap_x, ["--host", "codex"]),
        "claude-exploring": (lambda n: claude_turn(root, n, "cat log", [("Bash", {"command": "cat x.log"}, big)]), lambda n: exploring_claude(root, n), []),
        "claude-20MB-turn": (lambda n: claude_turn(root, n, "cat log", [("Bash", {"command": "cat x.log"}, big)]),
                             lambda n: claude_turn(root, n, "go", [("Bash", {"command": "cat y.log"}, big)] * 100), []),
    }
    cases = [("/bin/true", ["/bin/true"], None)]
    for name, (earlier, last, host) in files.items():
        t = os.path.join(tmp, name + ".jsonl")
        write(t, target, earlier, last)
        cases.append((name, [capn, "hook", "stop", *host], t))
    if a.hostile:
        t = os.path.join(tmp, "hostile-hitlist.jsonl")
        write(t, 0, lambda n: [], lambda n: hitlist_claude(root, n))
        cases.append(("hostile-hitlist", [capn, "hook", "stop"], t))
        t = os.path.join(tmp, "hostile-9M-lines.jsonl")
        write_ones(t)
        cases.append(("hostile-9M-lines", [capn, "hook", "stop"], t))
    env = dict(os.environ, HOME=os.path.join(tmp, "home"), XDG_STATE_HOME=os.path.join(tmp, "state"))
    env.pop("CLAUDE_PROJECT_DIR", None)
    results = {c[0]: ([], []) for c in cases}
    for r in range(a.runs):
        for name, argv, transcript in cases:
            payload = os.path.join(tmp, "payload.json")
            with open(payload, "w") as f:
                json.dump({"session_id": f"bench-{name}-{r}", "transcript_path": transcript or "",
                           "cwd": root, "hook_event_name": "Stop", "stop_hook_active": False}, f)
            wall, cpu, code = spawn_timed(argv, payload, env)
            assert code == 0, (name, code)
            results[name][0].append(wall * 1000)
            results[name][1].append(cpu * 1000)
    rss = {}
    for name, argv, transcript in cases:
        payload = os.path.join(tmp, "payload.json")
        with open(payload, "w") as f:
            json.dump({"session_id": f"bench-{name}-rss", "transcript_path": transcript or "",
                       "cwd": root, "hook_event_name": "Stop", "stop_hook_active": False}, f)
        out = os.path.join(tmp, "rss")
        spawn_timed(["/usr/bin/time", "-f", "%M", "-o", out] + argv, payload, env)
        rss[name] = int(open(out).read().split()[-1]) / 1024
    sizes = {n: os.path.getsize(os.path.join(tmp, n + ".jsonl")) for n, _, t in cases if t}
    shutil.rmtree(tmp)
    for name, (walls, cpus) in results.items():
        walls.sort()
        size = f"{sizes[name] / 1e6:.1f} MB" if name in sizes else ""
        print(f"{name:18} {size:>8}  median {statistics.median(walls):6.2f} ms  p90 {walls[int(len(walls) * 0.9)]:6.2f}  "
              f"min {walls[0]:6.2f}  cpu {statistics.median(cpus):6.2f} ms  peak {rss[name]:6.1f} MiB")
    print(f"load average {os.getloadavg()}")


main()
