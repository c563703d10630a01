#!/usr/bin/env python3
"""Interleaved A/B timing of several capn binaries on one settled store.

usage: ab_bench.py --n 10000 [--runs 40] [--init=ARGS] [--phrasings K] [--sessions S]
                   BIN [BIN ...]

Builds one synthetic store of N entries with cli_bench.py's generator (the same seed gives the
same store), waits until it has left the 2-second racy window, and then, round-robin over the
binaries so that the machine's drift hits each of them alike, times whole-process runs of
`ask` (a charted question), `hook user-prompt-submit` (a charted question as the prompt, offers
on, a new session each run) and `hook pre-tool-use` (a Grep of three of a chart's words). Each
binary gets its own copy of the store, so its derived files (index version) are its own.
Prints one JSON line per binary and case: median and min wall time in ms, the median CPU time of
the child (user + system, far less sensitive to other load than wall time), and how many runs
printed output.

Use it to compare builds on one machine (ratios), where cli_bench.py gives absolute times.

--sessions S first fills each binary's state dir with S session dirs (a `seen` stamp each, as
SessionStart leaves them; they are kept 14 days): the prompt hook of a new session must not
cost more with them.
"""

import argparse, json, os, random, resource, shlex, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--init", default=None)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--phrasings", type=int, default=0,
                    help="other phrasings per entry (the '## Also asked as' section)")
    ap.add_argument("--sessions", type=int, default=0,
                    help="session dirs kept in each state dir before timing")
    a = ap.parse_args()
    bins = [os.path.abspath(b) for b in a.bins]
    root = tempfile.mkdtemp(prefix="capn-ab-bench-")
    base = os.path.join(root, "base")
    os.makedirs(base)
    subprocess.run(["git", "init", "-q"], cwd=base, check=True)
    _, questions = cli_bench.build(base, a.n, random.Random(a.seed), a.phrasings)
    stores = {}
    for i, b in enumerate(bins):
        ws = os.path.join(root, f"s{i}")
        shutil.copytree(base, ws, symlinks=True)
        env = dict(os.environ, HOME=os.path.join(ws, ".home"),
                   XDG_STATE_HOME=os.path.join(ws, ".home", "state"),
                   CAPN_STATE_DIR=os.path.join(ws, ".home", "capn-state"))
        os.makedirs(env["HOME"], exist_ok=True)
        for k in range(a.sessions):
            d = os.path.join(env["CAPN_STATE_DIR"], "sessions", f"00000000-0000-4000-8000-{k:012d}")
            os.makedirs(d)
            open(os.path.join(d, "seen"), "w").write("2026-12-01T00:00:00.000Z")
        if a.init is not None:
            subprocess.run([b, "init"] + shlex.split(a.init), cwd=ws, env=env, check=True,
                           capture_output=True)
        subprocess.run([b, "ask", questions[0]], cwd=ws, env=env, capture_output=True)
        stores[b] = (ws, env)
    time.sleep(2.5)
    for b, (ws, env) in stores.items():
        subprocess.run([b, "ask", questions[0]], cwd=ws, env=env, capture_output=True)

    def payload(ws, sid, event, **kw):
        return json.dumps(dict(session_id=sid, transcript_path=os.path.join(ws, "t.jsonl"), cwd=ws,
                               hook_event_name=event, **kw)).encode()

    def cases(b, r):
        ws, _ = stores[b]
        q = questions[(r * 7 + 3) % len(questions)]
        words = q.split(" handled")[0].replace("Where is ", "").split()
        sid = f"ab-{bins.index(b)}-{r}"
        yield "ask", [b, "ask", q], None
        yield "hook_prompt", [b, "hook", "user-prompt-submit"], payload(
            ws, sid + "-p", "UserPromptSubmit", prompt=q)
        yield "hook_search", [b, "hook", "pre-tool-use"], payload(
            ws, sid + "-s", "PreToolUse", tool_name="Grep",
            tool_input={"pattern": "|".join(words[:3]), "path": "src"})

    times, cpu, printed = {}, {}, {}

    def child_cpu():
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    for r in range(a.runs):
        for b in bins:
            ws, env = stores[b]
            for case, cmd, stdin in cases(b, r):
                c0, t0 = child_cpu(), time.perf_counter()
                out = subprocess.run(cmd, cwd=ws, env=env, input=stdin, capture_output=True)
                times.setdefault((b, case), []).append((time.perf_counter() - t0) * 1000)
                cpu.setdefault((b, case), []).append((child_cpu() - c0) * 1000)
                printed[(b, case)] = printed.get((b, case), 0) + (1 if out.stdout.strip() else 0)
    for (b, case), ms in times.items():
        print(json.dumps({"binary": b, "case": case, "n": a.n, "runs": len(ms),
                          "median_ms": round(statistics.median(ms), 2), "min_ms": round(min(ms), 2),
                          "cpu_median_ms": round(statistics.median(cpu[(b, case)]), 2),
                          "output": printed[(b, case)]}))
    print(json.dumps({"load_average": os.getloadavg()}))
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
