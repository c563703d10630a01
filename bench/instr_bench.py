#!/usr/bin/env python3
"""Instruction counts (valgrind callgrind) of `ask` and `chart` for one or more capn binaries.

usage: instr_bench.py --n 1000 [--init=ARGS] BIN [BIN ...]

Wall-clock medians move by 20-30% on a shared 2-core machine; instruction counts do not (the
same binary, inputs and environment give the same total, whatever else runs). Each binary gets
its own store built from the same seed (cli_bench.py's synthetic entries), primed with one
`ask` and settled past the 2-second racy window; then callgrind counts one `ask` hit, one `ask`
miss and one `chart`. Prints one JSON line per binary and case, plus the ratio to the first
binary. Needs valgrind.
"""
import argparse, json, os, random, re, shlex, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cli_bench import build  # noqa: E402


def count(cmd, ws, env):
    out = tempfile.mktemp(prefix="callgrind-", dir=ws)
    p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd,
                       cwd=ws, env=env, capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if not m:
        sys.exit(f"no count for {cmd}: {p.stderr[-500:]}")
    os.unlink(out)
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--init", default="--no-embedding")
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    first = {}
    for b in a.bins:
        rnd = random.Random(a.seed)
        capn = [os.path.abspath(b)]
        ws = tempfile.mkdtemp(prefix="capn-instr-")
        env = dict(os.environ, HOME=os.path.join(ws, ".home"),
                   XDG_STATE_HOME=os.path.join(ws, ".home", "state"))
        os.makedirs(env["HOME"], exist_ok=True)
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        paths, questions = build(ws, a.n, rnd)
        subprocess.run(capn + ["init"] + shlex.split(a.init), cwd=ws, env=env, check=True,
                       capture_output=True)
        subprocess.run(capn + ["ask", questions[0]], cwd=ws, env=env, capture_output=True)
        time.sleep(2.5)
        subprocess.run(capn + ["ask", questions[0]], cwd=ws, env=env, capture_output=True)
        cases = {
            "ask_hit": capn + ["ask", questions[1]],
            "ask_miss": capn + ["ask", "kubernetes helm ingress values"],
            "chart": capn + ["chart", "Which module owns the bench question?", "--files",
                             ",".join(paths[:2])],
        }
        for k, cmd in cases.items():
            n = count(cmd, ws, env)
            first.setdefault(k, n)
            print(json.dumps({"bin": b, "case": k, "n": a.n, "init": a.init, "instructions": n,
                              "ratio": round(n / first[k], 3)}))


main()
