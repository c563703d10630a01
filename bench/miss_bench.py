#!/usr/bin/env python3
"""Interleaved A/B timing of `ask` on a miss (and of `chart`) at N charts whose files hold real code.

usage: miss_bench.py --real ../shared/bench/real --n 1000 [--runs 30] [--direct]
                     [--after 1,10,100] [--pull 1000] [--pull-prepare ARGS] [--rounds 5]
                     BIN [BIN ...]

Builds one store of N charts by cycling the 60 charts of bench/corpus whose files are in `--real`
(the real text of the charted files: benchmark data, copied only into the temp store, never into
the project): copy k of a chart lives under `copy<k>/` with the question suffixed "(copy k)", so
every chart has its own files and the file-text index is about N times one chart's. Each binary
gets its own copy of the store (its own derived files), which is asked once before timing so its
indexes are built. Then, round-robin over the binaries, it times whole-process runs of `ask` for
misses (a reworded question whose chart is only a candidate, and an unrelated one) and of
`chart` (re-charting one chart: a no-op rewrite check, and a new chart). Prints one JSON line per
binary and case: median wall and median child CPU (user + system) in ms, the peak resident
memory of the case's runs (max RSS, MiB), and the size of `.capn/code.bin` when there is one.

--rss runs every timed command under GNU time (/usr/bin/time -f %M) for its peak memory.
--direct writes the N entries straight in the v1 entry format (as scale_bench.py does) over
hard links to the real files, instead of N `capn chart` runs: a store of 10,000 or 100,000
charts in seconds. --after K1,K2,... also times the first miss after charting K new questions
(untimed `capn chart` runs), and --pull M the first miss after M entry files arrived without
`capn chart` (written directly, as a teammate's pull or a restored backup brings them); each
ROUNDS times per binary, interleaved, beside the steady misses of the same stores (the ratio
to a steady miss is what these cases are about). --pull-prepare 'prune --expired' runs that
capn command between the pull and the miss (timed as a case of its own): the miss then shows
what an index brought up to date off its path (a git hook after the pull) leaves it.
"""
import argparse, hashlib, json, os, resource, shutil, statistics, subprocess, sys, tempfile, time

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


def build_direct(ws, n, real, capn, env, start=0):
    """N entries in the v1 format over hard links to the real files (copy k of a chart under
    copy<k>/); entries numbered from START (a later call adds more, as a pull would)."""
    repos = rb.load(f"{HERE}/corpus")
    charts = [(r, c) for r, d in repos.items() for c in d["charts"]
              if all(os.path.isfile(os.path.join(real, r, "files", f)) for f in c["files"])]
    if start == 0:
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        subprocess.run([capn, "init"], cwd=ws, env=env, check=True, capture_output=True)
    ed = os.path.join(ws, ".capn", "entries")
    os.makedirs(ed, exist_ok=True)
    sha = {}
    for i in range(start, start + n):
        r, c = charts[i % len(charts)]
        k = i // len(charts)
        files = {}
        for f in c["files"]:
            src = os.path.join(real, r, "files", f)
            if src not in sha:
                sha[src] = hashlib.sha256(open(src, "rb").read()).hexdigest()
            dst = os.path.join(ws, f"copy{k}", f)
            if not os.path.exists(dst):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.link(src, dst) if same_fs(src, ws) else shutil.copyfile(src, dst)
            files[f"copy{k}/{f}"] = sha[src]
        q = c["question"] + (f" (copy {k})" if k else "")
        eid = hashlib.sha256(q.encode()).hexdigest()[:8]
        fm = "\n".join(f"  {p}: {h}" for p, h in sorted(files.items()))
        open(os.path.join(ed, f"{eid}.md"), "w").write(
            f"---\ncapn: 1\nid: {eid}\nat: 2026-11-30T00:00:00.000Z\nfiles:\n{fm}\n---\n\n# {q}\n")


def same_fs(a, b):
    return os.stat(a).st_dev == os.stat(b).st_dev


RSS = []  # ["/usr/bin/time", "-f", "%M", "-o", FILE] with --rss


def timed(cmd, cwd, env):
    """Wall and child CPU time in ms, and with --rss the peak resident memory in MiB (read by
    GNU time: a child forked from this Python process inherits its high-water mark, so the
    rusage seen here would be Python's, not capn's)."""
    t = time.perf_counter()
    p = subprocess.Popen(RSS + cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t) * 1000
    rss = int(open(RSS[-1]).read().split()[-1]) / 1024 if RSS else 0
    return wall, (ru.ru_utime + ru.ru_stime) * 1000, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--real", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--direct", action="store_true")
    ap.add_argument("--after", default="")
    ap.add_argument("--pull", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-chart", action="store_true", help="leave out the chart_new case")
    ap.add_argument("--pull-prepare", default="",
                    help="capn arguments run (and timed as their own case) between a pull and "
                         "the first miss after it, e.g. 'prune --expired': what a git hook run "
                         "after the pull would do off the miss's path")
    ap.add_argument("--rss", action="store_true",
                    help="run every case under /usr/bin/time for its peak memory (adds its fork)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="capn-miss-")
    if a.rss:
        RSS.extend(["/usr/bin/time", "-f", "%M", "-o", os.path.join(tmp, "rss")])
    env = dict(os.environ, HOME=os.path.join(tmp, "home"))
    for k in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        env[k] = os.path.join(tmp, "home", k.lower())
    os.makedirs(env["HOME"])
    base = os.path.join(tmp, "base")
    os.makedirs(base)
    (build_direct if a.direct else build)(base, a.n, a.real, os.path.abspath(a.bins[0]), env)
    stores = {}
    for i, b in enumerate(a.bins):
        ws = os.path.join(tmp, f"s{i}")
        shutil.copytree(base, ws, symlinks=True, copy_function=os.link)
        stores[b] = ws
    # Asked once all copies are made: a hard link changes the ctime of the file it links, so a
    # store whose index was built before a later copy would find every entry file changed at
    # its first listing (the first miss after a pull would re-read them all, for that binary
    # alone).
    for b, ws in stores.items():
        for q in MISSES:
            subprocess.run([b, "ask", q], cwd=ws, env=env, capture_output=True)
    time.sleep(2.5)  # out of the racy window
    cases = {f"ask_miss_{j}": ["ask", q] for j, q in enumerate(MISSES)}
    res = {}
    for run in range(a.runs):
        for b in a.bins:
            ws = stores[b]
            for name, args in cases.items():
                res.setdefault((b, name), []).append(timed([b] + args, ws, env))
            if not a.no_chart:
                q = f"Where is benchmark question number {run} answered?"
                res.setdefault((b, "chart_new"), []).append(
                    timed([b, "chart", q, "--files", first_file(ws)], ws, env))
    after = [int(k) for k in a.after.split(",") if k]
    for rnd in range(a.rounds):
        for b in a.bins:
            ws = stores[b]
            for k in after:
                for j in range(k):
                    q = f"Where is added question {rnd}-{k}-{j} answered?"
                    subprocess.run([b, "chart", q, "--files", first_file(ws)], cwd=ws, env=env,
                                   capture_output=True)
                res.setdefault((b, f"first_miss_after_{k}_charts"), []).append(
                    timed([b, "ask", MISSES[1]], ws, env))
            if a.pull:
                build_direct(ws, a.pull, a.real, b, env, start=a.n + (rnd + 1) * 10**6)
                case = f"first_miss_after_pull_of_{a.pull}"
                if a.pull_prepare:
                    prep = a.pull_prepare.split()
                    res.setdefault((b, "pull_prepare_" + "_".join(prep)), []).append(
                        timed([b] + prep, ws, env))
                    case += "_prepared"
                res.setdefault((b, case), []).append(timed([b, "ask", MISSES[1]], ws, env))
            res.setdefault((b, "ask_miss_1_same_rounds"), []).append(
                timed([b, "ask", MISSES[1]], ws, env))
    for (b, name), xs in res.items():
        code = os.path.join(stores[b], ".capn", "code.bin")
        print(json.dumps({"binary": b, "case": name, "n": a.n, "runs": len(xs),
                          "median_ms": round(statistics.median(x[0] for x in xs), 2),
                          "cpu_median_ms": round(statistics.median(x[1] for x in xs), 2),
                          "max_rss_mib": round(max(x[2] for x in xs), 1) if a.rss else None,
                          "code_bin_bytes": os.path.getsize(code) if os.path.exists(code) else 0}))
    print(json.dumps({"load_average": os.getloadavg()}))
    shutil.rmtree(tmp, ignore_errors=True)


def first_file(ws):
    for root, _, files in os.walk(os.path.join(ws, "copy0")):
        for f in sorted(files):
            return os.path.relpath(os.path.join(root, f), ws)
    raise SystemExit("no backing file")


if __name__ == "__main__":
    main()
