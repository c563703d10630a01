#!/usr/bin/env python3
"""Whole-process benchmark of capn's user commands on a store of N entries.

usage: cli_bench.py --capn target/release/capn --n 1000 [--init=ARGS] [--runs 25] [--settle 2.5]

Builds a synthetic store like scale_bench.py (N entries in the v1 format over N source files),
optionally runs `capn init ARGS`, primes the derived files with one `ask`, waits --settle seconds
so the files leave the 2-second racy window of format.md (inside it every file is re-hashed on
every ask, by design), then times, round-robin, whole-process runs of:
  context, ask (a charted question, a hit), ask (a miss), chart (a new question over 2 files).
Prints one JSON line per case: median/min/max ms, plus spawn_floor_ms (the median time to start
and reap `true`). (Peak memory: measure with `/usr/bin/time -f %M`; a child's maxrss seen from
Python includes the forked interpreter.)
"""
import argparse, hashlib, json, os, random, shlex, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from scale_bench import WORDS, entry_text  # noqa: E402  (the same synthetic vocabulary and entry format)


def timed(cmd, cwd, env):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    ms = (time.perf_counter() - t) * 1000
    p.returncode = os.waitstatus_to_exitcode(status)
    return ms, ru.ru_maxrss, p.returncode


def build(ws, n, rnd):
    nfiles = max(10, n)
    paths, hashes = [], {}
    for i in range(nfiles):
        p = f"src/m{i % 97}/{rnd.choice(WORDS)}_{i}.ts"
        full = os.path.join(ws, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        data = ("// " + " ".join(rnd.choice(WORDS) for _ in range(600)) + "\n").encode()
        open(full, "wb").write(data)
        paths.append(p)
        hashes[p] = hashlib.sha256(data).hexdigest()
    ed = os.path.join(ws, ".capn", "entries")
    os.makedirs(ed, exist_ok=True)
    questions = []
    for i in range(n):
        q = f"Where is {' '.join(rnd.choice(WORDS) for _ in range(6))} handled #{i}?"
        eid = hashlib.sha256(q.encode()).hexdigest()[:8]
        fs = {p: hashes[p] for p in rnd.sample(paths, 3)}
        det = " ".join(rnd.choice(WORDS) for _ in range(25))
        body = entry_text(eid, q, fs, det)
        open(os.path.join(ed, f"{eid}.md"), "w").write(body)
        questions.append(q)
    return paths, questions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--init", default=None)
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--settle", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    capn = shlex.split(a.capn)
    if os.path.exists(capn[0]):
        capn[0] = os.path.abspath(capn[0])
    ws = tempfile.mkdtemp(prefix="capn-cli-bench-")
    env = dict(os.environ, HOME=os.path.join(ws, ".home"), XDG_STATE_HOME=os.path.join(ws, ".home", "state"))
    os.makedirs(env["HOME"], exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    paths, questions = build(ws, a.n, rnd)
    if a.init is not None:
        subprocess.run(capn + ["init"] + shlex.split(a.init), cwd=ws, env=env, check=True, capture_output=True)
    subprocess.run(capn + ["ask", questions[0]], cwd=ws, env=env, capture_output=True)
    time.sleep(a.settle)
    subprocess.run(capn + ["ask", questions[0]], cwd=ws, env=env, capture_output=True)
    cases = {
        "context": lambda i: capn + ["context"],
        "ask_hit": lambda i: capn + ["ask", rnd.choice(questions)],
        "ask_miss": lambda i: capn + ["ask", f"kubernetes helm ingress values number {i}"],
        "chart": lambda i: capn + ["chart", f"Which module owns the bench question number {i}?",
                                   "--files", ",".join(rnd.sample(paths, 2))],
    }
    res = {k: ([], []) for k in cases}
    for i in range(a.runs):
        for k, mk in cases.items():
            ms, rss, code = timed(mk(i), ws, env)
            if k != "ask_miss" and code != 0:
                sys.exit(f"{k} failed with exit {code}")
            res[k][0].append(ms)
            res[k][1].append(rss)
    floor = []
    for _ in range(25):
        ms, _, _ = timed(["true"], ws, env)
        floor.append(ms)
    for k, (ms, rss) in res.items():
        print(json.dumps({"case": k, "n": a.n, "runs": a.runs, "median_ms": round(statistics.median(ms), 2),
                          "min_ms": round(min(ms), 2), "max_ms": round(max(ms), 2),
                          "spawn_floor_ms": round(statistics.median(floor), 2)}))


if __name__ == "__main__":
    main()
