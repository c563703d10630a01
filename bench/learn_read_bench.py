#!/usr/bin/env python3
"""What learning from use (docs/recall.md, "Learning from use") adds to `capn hook pre-tool-use`
on a file read: whole-process wall and CPU time, medians over --runs round-robin rounds, in the
style of pretooluse_bench.py (same synthetic store, same timed spawn).

usage: learn_read_bench.py --capn target/release/capn [--base OTHER_CAPN] [--n 1000] [--runs 200]

Cases (a Claude Code PreToolUse payload, stdin from a file, stdout and stderr to /dev/null):
  - /bin/true (the spawn floor);
  - Read in a session that asked nothing (no session record: one failed open);
  - Read of a shown chart's file in a session with an open ask (a new session each run, its ask
    recorded by an untimed Bash `capn ask` call first: the read is appended to the session's
    learn.json under the lock);
  - Bash `capn ask "<q>"` (a new session each run: the ask is recorded);
  - with --base (a build without the feature): its Read, which returns at once.
Prints one line per case: median, p90 and min wall ms, and median CPU ms of the child.
"""
import argparse
import json
import os
import random
import shlex
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


def shown_charts(capn, ws, env, question):
    """The ids and files `capn ask` showed for `question` (empty on an answer)."""
    p = subprocess.run([capn, "ask", question], cwd=ws, env=env, capture_output=True, text=True)
    out = []
    for line in p.stderr.splitlines():
        for prefix in ("candidate ", "related "):
            if line.startswith(prefix):
                out.append(json.loads(line[len(prefix):]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capn", required=True)
    ap.add_argument("--base")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--settle", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    capn = os.path.abspath(args.capn)

    tmp = tempfile.mkdtemp(prefix="capn-learn-bench-")
    try:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(tmp, "home"),
               "CAPN_STATE_DIR": os.path.join(tmp, "state")}
        os.makedirs(env["HOME"])
        rnd = random.Random(args.seed)
        projects = {}
        for name in ("shown",):
            ws = os.path.join(tmp, name)
            os.makedirs(os.path.join(ws, ".git"))
            subprocess.run([capn, "init"], cwd=ws, env=env, check=True, stdout=subprocess.DEVNULL)
            _, questions = build(ws, args.n, rnd)
            old = time.time() - 3600
            for d, _, fs in os.walk(ws):
                if "/.git" not in d:
                    for f in fs:
                        os.utime(os.path.join(d, f), (old, old))
            projects[name] = (ws, questions)
        # 16 misses in the shown project: each question with one word changed, so that the
        # chart is shown (candidate or related) rather than answered.
        ws, questions = projects["shown"]
        shown, shown_questions = [], []
        for q in questions:
            words = q.rstrip("?").split()
            asked = " ".join(words[:-1] + ["zebrafish", words[-1]]) + "?"
            got = shown_charts(capn, ws, env, asked)
            if got:
                shown.append(got)
                shown_questions.append(asked)
            if len(shown) == 16:
                break
        if not shown:
            raise SystemExit("no ask showed a chart: the store does not make misses with candidates")
        shown_file = os.path.join(ws, shown[-1][0]["files"][0])
        time.sleep(args.settle)

        def payload(ws, tool, tool_input):
            return {"hook_event_name": "PreToolUse", "cwd": ws, "transcript_path": None,
                    "permission_mode": "default", "tool_use_id": "toolu_bench",
                    "tool_name": tool, "tool_input": tool_input}

        asked = shown_questions[-1]
        ask_call = payload(ws, "Bash", {"command": "capn ask " + shlex.quote(asked)})
        payloads = {
            "quiet": payload(ws, "Read", {"file_path": os.path.join(ws, "README.md")}),
            "shown": payload(ws, "Read", {"file_path": shown_file}),
            "ask": ask_call,
        }

        def payload_file(key, sid):
            path = os.path.join(tmp, f"{key}-{sid}.json")
            with open(path, "w") as f:
                json.dump(dict(payloads[key], session_id=sid), f)
            return path

        def seed_ask(sid):
            """The session's untimed `capn ask` call, so that its reads are recorded."""
            path = os.path.join(tmp, f"seed-{sid}.json")
            with open(path, "w") as f:
                json.dump(dict(ask_call, session_id=sid), f)
            with open(path) as f:
                subprocess.run([capn, "hook", "pre-tool-use"], stdin=f, env=env, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.remove(path)

        hook = [capn, "hook", "pre-tool-use"]
        # (name, argv, payload, a new session each run, seeded with an ask)
        cases = [
            ("baseline: /bin/true (spawn cost)", ["/bin/true"], "quiet", False, False),
            ("Read, the session asked nothing", hook, "quiet", False, False),
            ("Read of a shown chart's file after the session's ask", hook, "shown", True, True),
            ("Bash `capn ask` (records the session's ask)", hook, "ask", True, False),
        ]
        if args.base:
            cases.append(("without the feature (--base): Read", [os.path.abspath(args.base), "hook", "pre-tool-use"], "shown", False, False))
        files = {key: payload_file(key, "bench-fixed") for _, _, key, fresh, _ in cases if not fresh}
        times = [[] for _ in cases]
        cpus = [[] for _ in cases]
        for r in range(args.warmup + args.runs):
            for i, (name, argv, key, fresh, seeded) in enumerate(cases):
                sid = f"bench-{r}-{i}"
                if seeded:
                    seed_ask(sid)
                stdin = payload_file(key, sid) if fresh else files[key]
                t, cpu, code = spawn_timed(argv, stdin, env)
                if code != 0:
                    raise SystemExit(f"{name}: exit {code}")
                if r >= args.warmup:
                    times[i].append(t)
                    cpus[i].append(cpu)
                if fresh:
                    os.remove(stdin)
        print(f"capn {capn}\n{args.n} charts, {args.runs} runs per case (after {args.warmup} warm-up rounds)")
        print(f"{'case':52} {'median':>8} {'p90':>8} {'min':>8} {'cpu':>8}")
        for (name, *_), ts, cs in zip(cases, times, cpus):
            ts.sort()
            print(f"{name:52} {statistics.median(ts) * 1e3:7.2f}  {ts[int(len(ts) * 0.9)] * 1e3:7.2f}  "
                  f"{ts[0] * 1e3:7.2f}  {statistics.median(cs) * 1e3:7.2f}")
        learned = os.path.join(env["CAPN_STATE_DIR"], "sessions")
        n = sum(1 for d in os.listdir(learned) if os.path.exists(os.path.join(learned, d, "learn.json"))) \
            if os.path.isdir(learned) else 0
        print(f"sessions with a learn.json after the runs: {n}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
