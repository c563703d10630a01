#!/usr/bin/env python3
"""Whole-process latency of `capn hook pre-tool-use`, the hook `capn init` registers on every
Claude Code Grep, Glob, Task, Agent and Bash call (and every Codex shell call).

usage: pretooluse_bench.py --capn target/release/capn [--n 1000] [--runs 400] [--settle 2.5]

Builds a synthetic store of N charts like cli_bench.py (same vocabulary and entry format) whose
files are dated an hour back (charted long ago), runs `capn init` (offers on, the default), primes
the derived files with one `ask`, waits --settle seconds so they leave the 2-second racy window, then times round-robin (one run of each case per
round, so a change in machine load hits every case alike), stdin from a file, stdout and stderr
to /dev/null:
  - /bin/true (the spawn floor);
  - a Bash call that is not a search (`cargo build --release`): must return without opening the
    store;
  - the same through `--host codex`;
  - an Edit (in case a matcher ever lets one through);
  - a Grep whose pattern holds a chart's words (the whole offer path: index load, gate; a new
    session id every run, so the once-per-session record never short-cuts it);
  - a shell `rg` of those words through `--host codex` (the same path);
  - a Grep for the words of the one chart the store holds in words of its own, which is offered
    (the gate passes, the chart's file is checked, the session's record is written).
Prints one line per case: median, p90 and min wall ms, median CPU ms of the child, and for the
searches how many runs printed an offer. --json prints the results as JSON too.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cli_bench import build  # noqa: E402  (the same synthetic store)
from hooks_bench import spawn_timed  # noqa: E402  (the same timed spawn)


def run_once(argv, stdin_path, env, out_path):
    """One whole-process run (the hook finds the project through the payload's `cwd`); returns
    (wall s, child CPU s, exit code)."""
    return spawn_timed(argv, stdin_path, env, out_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capn", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--settle", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    capn = os.path.abspath(args.capn)

    tmp = tempfile.mkdtemp(prefix="capn-ptu-bench-")
    try:
        ws = os.path.join(tmp, "project")
        os.makedirs(os.path.join(ws, ".git"))
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "CAPN_STATE_DIR": os.path.join(tmp, "state")}
        rnd = random.Random(args.seed)
        subprocess.run([capn, "init"], cwd=ws, env=env, check=True, stdout=subprocess.DEVNULL)
        _, questions = build(ws, args.n - 1, rnd)
        # One chart in words of its own, which a search for them gets offered (the synthetic
        # charts share a small vocabulary, so no search passes the injection gate on them).
        own_file = os.path.join(ws, "src", "uploads", "virus-scan.ts")
        os.makedirs(os.path.dirname(own_file), exist_ok=True)
        with open(own_file, "w") as f:
            f.write("export function scanForViruses() {}\n")
        subprocess.run([capn, "chart", "Where are uploaded files scanned for viruses by the antivirus daemon?",
                        "--files", "src/uploads/virus-scan.ts"], cwd=ws, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        # Charts made long ago, as in a project in use: entries and backing files written within
        # the racy window of the index build would be re-read on every run (format.md).
        old = time.time() - 3600
        for d, _, fs in os.walk(ws):
            if "/.git" not in d:
                for f in fs:
                    os.utime(os.path.join(d, f), (old, old))
        subprocess.run([capn, "ask", questions[0]], cwd=ws, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        time.sleep(args.settle)

        # A chart's own words, as an agent's search would hold them.
        words = [w for w in questions[len(questions) // 2].split()[2:-2]]
        pattern = "|".join(words[:3])
        base = {"hook_event_name": "PreToolUse", "cwd": ws, "transcript_path": None,
                "permission_mode": "default", "tool_use_id": "toolu_bench"}
        payloads = {
            "bash": dict(base, tool_name="Bash", tool_input={"command": "cargo build --release"}),
            "edit": dict(base, tool_name="Edit", tool_input={"file_path": "src/x.ts", "old_string": "a",
                                                            "new_string": "b"}),
            "grep": dict(base, tool_name="Grep", tool_input={"pattern": pattern, "path": "src"}),
            "rg": dict(base, tool_name="Bash", model="gpt-5.5",
                       tool_input={"command": f"rg -n '{pattern}' src"}),
            "offer": dict(base, tool_name="Grep",
                          tool_input={"pattern": "antivirus.*scan|scanForViruses", "path": "src"}),
        }
        files = {}

        def payload_file(key, sid):
            path = os.path.join(tmp, f"{key}-{sid}.json")
            with open(path, "w") as f:
                json.dump(dict(payloads[key], session_id=sid), f)
            return path

        hook = [capn, "hook", "pre-tool-use"]
        cases = [
            ("baseline: /bin/true (spawn cost)", ["/bin/true"], "bash", False),
            ("Bash `cargo build` (not a search)", hook, "bash", False),
            ("Bash `cargo build`, --host codex", hook + ["--host", "codex"], "bash", False),
            ("Edit (not a search)", hook, "edit", False),
            (f"Grep {pattern!r} ({args.n} charts)", hook, "grep", True),
            (f"rg {pattern!r}, --host codex ({args.n} charts)", hook + ["--host", "codex"], "rg", True),
            (f"Grep that offers a chart ({args.n} charts)", hook, "offer", True),
        ]
        for _, _, key, fresh in cases:
            if not fresh:
                files[key] = payload_file(key, "bench-fixed")
        times = [[] for _ in cases]
        cpus = [[] for _ in cases]
        offered = [0 for _ in cases]
        out_path = os.path.join(tmp, "stdout")
        for rnd_i in range(args.warmup + args.runs):
            for i, (name, argv, key, fresh) in enumerate(cases):
                # A new session per run for the searches, so every run goes through the gate.
                stdin = payload_file(key, f"bench-{rnd_i}-{i}") if fresh else files[key]
                t, cpu, code = run_once(argv, stdin, env, out_path)
                if code != 0:
                    raise SystemExit(f"{name}: exit {code}")
                if rnd_i >= args.warmup:
                    times[i].append(t)
                    cpus[i].append(cpu)
                    if os.path.getsize(out_path) > 0:
                        offered[i] += 1
                if fresh:
                    os.remove(stdin)
        results = []
        print(f"capn {capn}\n{args.n} charts, {args.runs} runs per case (after {args.warmup} warm-up rounds)")
        print(f"{'case':52} {'median':>8} {'p90':>8} {'min':>8} {'cpu':>8}  offered")
        for (name, argv, key, fresh), ts, cs, off in zip(cases, times, cpus, offered):
            ts.sort()
            r = {"case": name, "median_ms": statistics.median(ts) * 1e3,
                 "p90_ms": ts[int(len(ts) * 0.9) - 1] * 1e3, "min_ms": ts[0] * 1e3,
                 "cpu_median_ms": statistics.median(cs) * 1e3, "offered": off, "runs": len(ts)}
            results.append(r)
            print(f"{name:52} {r['median_ms']:7.2f}  {r['p90_ms']:7.2f}  {r['min_ms']:7.2f}  "
                  f"{r['cpu_median_ms']:7.2f}  {off}/{len(ts) if argv[0] == capn else '-'}")
        if args.json:
            print(json.dumps(results, indent=2))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
