#!/usr/bin/env python3
"""`capn list` and `capn prune` over many charts of one large file that changed, A/B.

usage: list_bench.py [--charts 200] [--mb 50] [--runs 3] BIN [BIN ...]

Per binary, in its own temp project (a git repository): one file of --mb megabytes, --charts
charts over it (entries written directly in the v1 format, with the file's real hash), then the
file changes (one line appended). Round-robin over the binaries, RUNS times: `capn list`
(nothing written) and then `capn prune` (deletes them all), the entries written again and
the stat cache removed before each round.
Prints the median wall and child CPU (user + system) ms per binary and command: a changed file
must be hashed once per run, not once per chart.
"""
import argparse, hashlib, json, os, shutil, statistics, subprocess, tempfile, time


def timed(cmd, cwd, env):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return (time.perf_counter() - t) * 1000, (ru.ru_utime + ru.ru_stime) * 1000


def entries(ed, n, sha):
    os.makedirs(ed, exist_ok=True)
    for i in range(n):
        q = f"Where is record {i} of the big file kept?"
        eid = hashlib.sha256(q.encode()).hexdigest()[:8]
        with open(os.path.join(ed, f"{eid}.md"), "w") as f:
            f.write(f"---\ncapn: 1\nid: {eid}\nat: 2026-11-30T00:00:00.000Z\nfiles:\n"
                    f"  big.txt: {sha}\n---\n\n# {q}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--charts", type=int, default=200)
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="capn-list-bench-")
    env = dict(os.environ, HOME=os.path.join(tmp, "home"))
    os.makedirs(env["HOME"])
    data = b"".join(b"%07d\n" % (i % 10_000_000) for i in range(a.mb << 17))
    sha = hashlib.sha256(data).hexdigest()
    stores = {}
    for k, b in enumerate(a.bins):
        ws = os.path.join(tmp, f"s{k}")
        os.makedirs(ws)
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        with open(os.path.join(ws, "big.txt"), "wb") as f:
            f.write(data + b"changed\n")
        subprocess.run([b, "init"], cwd=ws, env=env, check=True, capture_output=True)
        stores[b] = ws
    res = {}
    for _ in range(a.runs):
        for b, ws in stores.items():
            ed = os.path.join(ws, ".capn", "entries")
            shutil.rmtree(ed, ignore_errors=True)
            entries(ed, a.charts, sha)
            # No remembered hash of the changed file: each run hashes it (once, or per chart).
            for derived in ("stat.bin", "index.bin"):
                p = os.path.join(ws, ".capn", derived)
                if os.path.exists(p):
                    os.unlink(p)
            res.setdefault((b, "list"), []).append(timed([b, "list"], ws, env))
            res.setdefault((b, "prune"), []).append(timed([b, "prune"], ws, env))
    for (b, cmd), xs in res.items():
        print(json.dumps({"binary": b, "command": cmd, "charts": a.charts, "mb": a.mb,
                          "median_ms": round(statistics.median(x[0] for x in xs), 1),
                          "cpu_median_ms": round(statistics.median(x[1] for x in xs), 1)}))
    print(json.dumps({"load_average": os.getloadavg()}))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
