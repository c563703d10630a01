#!/usr/bin/env python3
"""Interleaved A/B timing of `ask` on a miss (and of `chart`) at N charts whose files hold real code.

usage: miss_bench.py --real ../shared/bench/real --n 1000 [--runs 30] BIN [BIN ...]

Builds one store of N charts by cycling the 60 charts of bench/corpus whose files are in `--real`
(the real text of the charted files: benchmark data, copied only into the temp store, never into
the project): copy k of a chart lives under `copy<k>/` with the question suffixed "(copy k)", so
every chart has its own files and the file-text index is about N times one chart's. Each binary
gets its own copy of the store (its own derived files), which is asked once before timing so its
indexes are built. Then, round-robin over the binaries, it times whole-process runs of `ask` for
misses (a reworded question whose chart is only a candidate, and an unrelated one) and of
`chart` (re-charting one chart: a no-op rewrite check, and a new chart). Prints one JSON line per
binary and case: median wall and median child CPU (user + system) in ms, and the size of
`.capn/code.bin` when there is one.
"""
import argparse, json, os, resource, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recall_bench as rb  # noqa: E402

MISSES = ["where does the cron sweep signers past their deadline?",
          "where is the kubernetes helm chart deployed?"]


def build(ws, n, real, capn, env):
    repos = rb.load(f"{HERE}/corpus")
    charts = [(r, c) for r, d in repos.items() for c in d["charts"]
              if all(os.path.isfile(os.path.join(real, r, "files", f)) for f in c["files"])]
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run([capn, "init"], cwd=ws, env=env, check=True, capture_output=True)
    for i in range(n):
        r, c = charts[i % len(charts)]
        k = i // len(charts)
        files = []
        for f in c["files"]:
            dst = os.path.join(ws, f"copy{k}", f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(os.path.join(real, r, "files", f), dst)
            files.append(f"copy{k}/{f}")
        q = c["question"] + (f" (copy {k})" if k else "")
        subprocess.run([capn, "chart", q, "--files", ",".join(files)], cwd=ws, env=env,
                       check=True, capture_output=True)


def timed(cmd, cwd, env):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return (time.perf_counter() - t) * 1000, (ru.ru_utime + ru.ru_stime) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--real", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="capn-miss-")
    env = dict(os.environ, HOME=os.path.join(tmp, "home"))
    for k in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        env[k] = os.path.join(tmp, "home", k.lower())
    os.makedirs(env["HOME"])
    base = os.path.join(tmp, "base")
    os.makedirs(base)
    build(base, a.n, a.real, os.path.abspath(a.bins[0]), env)
    stores = {}
    for i, b in enumerate(a.bins):
        ws = os.path.join(tmp, f"s{i}")
        shutil.copytree(base, ws, symlinks=True)
        for q in MISSES:
            subprocess.run([b, "ask", q], cwd=ws, env=env, capture_output=True)
        stores[b] = ws
    time.sleep(2.5)  # out of the racy window
    cases = {f"ask_miss_{j}": ["ask", q] for j, q in enumerate(MISSES)}
    res = {}
    for run in range(a.runs):
        for b in a.bins:
            ws = stores[b]
            for name, args in cases.items():
                res.setdefault((b, name), []).append(timed([b] + args, ws, env))
            q = f"Where is benchmark question number {run} answered?"
            res.setdefault((b, "chart_new"), []).append(
                timed([b, "chart", q, "--files", first_file(ws)], ws, env))
    for (b, name), xs in res.items():
        code = os.path.join(stores[b], ".capn", "code.bin")
        print(json.dumps({"binary": b, "case": name, "n": a.n, "runs": len(xs),
                          "median_ms": round(statistics.median(x[0] for x in xs), 2),
                          "cpu_median_ms": round(statistics.median(x[1] for x in xs), 2),
                          "code_bin_bytes": os.path.getsize(code) if os.path.exists(code) else 0}))
    shutil.rmtree(tmp, ignore_errors=True)


def first_file(ws):
    for root, _, files in os.walk(os.path.join(ws, "copy0")):
        for f in sorted(files):
            return os.path.relpath(os.path.join(root, f), ws)
    raise SystemExit("no backing file")


if __name__ == "__main__":
    main()
