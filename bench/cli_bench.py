#!/usr/bin/env python3
"""Whole-process benchmark of capn's user commands on a store of N entries.

usage: cli_bench.py --capn target/release/capn --n 1000 [--init=ARGS] [--runs 25] [--settle 2.5]

Builds a synthetic store like scale_bench.py (N entries in the v1 format over N source files),
optionally runs `capn init ARGS`, primes the derived files with one `ask`, waits --settle seconds
so the files leave the 2-second racy window of format.md (inside it every file is re-hashed on
every ask, by design), then times, round-robin, whole-process runs of:
  context, ask (a charted question, a hit), ask (a miss), chart (a new question over 2 files).
  and, with --hooks, the hooks that recall on their own (offers switched on in config.json):
  hook_prompt (UserPromptSubmit with a charted question as the prompt) and hook_search
  (PreToolUse for a Grep of a charted question's words), each with a new session id so the
  once-per-session record never cuts the work short.
Prints one JSON line per case: median/min/max ms, how many runs printed something (`output`),
plus spawn_floor_ms (the median time to start and reap `true`). (Peak memory: measure with `/usr/bin/time -f %M`; a child's maxrss seen from
Python includes the forked interpreter.)
"""
import argparse, hashlib, json, os, random, shlex, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from scale_bench import WORDS, entry_text  # noqa: E402  (the same synthetic vocabulary and entry format)


def timed(cmd, cwd, env, stdin=None):
    """Runs cmd (stdin: bytes to feed, or None), returns (ms, maxrss, exit code, stdout bytes)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         stdin=subprocess.PIPE if stdin is not None else None)
    out, _ = p.communicate(stdin)
    _, status, ru = os.wait4(p.pid, 0) if p.returncode is None else (0, 0, None)
    ms = (time.perf_counter() - t) * 1000
    return ms, (ru.ru_maxrss if ru else 0), p.returncode, out


def build(ws, n, rnd, phrasings=0):
    """The synthetic store; with `phrasings` > 0 each entry also gets that many other
    phrasings (the `## Also asked as` section after its details)."""
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
        if phrasings:
            body += "\n## Also asked as\n" + "".join(
                f"- how is {' '.join(rnd.choice(WORDS) for _ in range(5))} done #{i}.{k}?\n"
                for k in range(phrasings))
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
    ap.add_argument("--hooks", action="store_true", help="also time the recalling hooks")
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
        "context": lambda i: (capn + ["context"], None),
        "ask_hit": lambda i: (capn + ["ask", rnd.choice(questions)], None),
        "ask_miss": lambda i: (capn + ["ask", f"kubernetes helm ingress values number {i}"], None),
        "chart": lambda i: (capn + ["chart", f"Which module owns the bench question number {i}?",
                                    "--files", ",".join(rnd.sample(paths, 2))], None),
    }
    if a.hooks:
        cfg_path = os.path.join(ws, ".capn", "config.json")
        cfg = json.load(open(cfg_path)) if os.path.exists(cfg_path) else {}
        cfg["offer"] = True
        json.dump(cfg, open(cfg_path, "w"))
        env["CAPN_STATE_DIR"] = os.path.join(ws, ".home", "capn-state")

        def payload(i, event, **kw):
            return json.dumps(dict(session_id=f"bench-{event}-{i}", transcript_path=os.path.join(ws, "t.jsonl"),
                                   cwd=ws, hook_event_name=event, **kw)).encode()

        def words(q):
            return q.split(" handled")[0].replace("Where is ", "")

        cases["hook_prompt"] = lambda i: (capn + ["hook", "user-prompt-submit"],
                                          payload(i, "UserPromptSubmit", prompt=rnd.choice(questions)))
        cases["hook_search"] = lambda i: (capn + ["hook", "pre-tool-use"],
                                          payload(i, "PreToolUse", tool_name="Grep", tool_input={
                                              "pattern": words(rnd.choice(questions)).replace(" ", "|"),
                                              "path": "src"}))
    res = {k: ([], [], 0) for k in cases}
    for i in range(a.runs):
        for k, mk in cases.items():
            cmd, stdin = mk(i)
            ms, rss, code, out = timed(cmd, ws, env, stdin)
            if k != "ask_miss" and code != 0:
                sys.exit(f"{k} failed with exit {code}")
            res[k][0].append(ms)
            res[k][1].append(rss)
            res[k] = (res[k][0], res[k][1], res[k][2] + (1 if out.strip() else 0))
    floor = []
    for _ in range(25):
        ms, _, _, _ = timed(["true"], ws, env)
        floor.append(ms)
    for k, (ms, rss, printed) in res.items():
        print(json.dumps({"case": k, "n": a.n, "runs": a.runs, "median_ms": round(statistics.median(ms), 2),
                          "min_ms": round(min(ms), 2), "max_ms": round(max(ms), 2), "output": printed,
                          "spawn_floor_ms": round(statistics.median(floor), 2)}))


if __name__ == "__main__":
    main()
