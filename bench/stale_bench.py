#!/usr/bin/env python3
"""Interleaved `ask` medians on settled stores with and without stale charts (issue 19).

usage: stale_bench.py --n 10000 [--init=ARGS] [--runs 40] [--instr] CASE [CASE ...]
where each CASE is LABEL=BIN:STALE (STALE a fraction, e.g. new=target/release/capn:0.33).

Each case gets its own store from scale_bench.py (the same seed, so the same entries and
questions; STALE of them charted on another version of one file), settled (index built, files
out of the 2-second racy window). Then the cases run round-robin, RUNS asks each, so a load
spike on a shared machine hits every case alike; the questions are drawn from all entries, so
about STALE of the asks ask for a stale chart (which must miss). Prints one JSON line per case:
the median, min and max in ms. With --instr, valgrind's callgrind counts the instructions of
each ask instead (the same whatever else the machine runs; medians in millions): the ratio
between cases is then exact for this workload, where wall-clock medians on a loaded shared
machine are not.
"""
import argparse, json, os, random, re, shlex, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--init", default="")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--instr", action="store_true")
    a = ap.parse_args()
    cases = []
    for c in a.cases:
        label, rest = c.split("=", 1)
        binary, stale = rest.rsplit(":", 1)
        ws = tempfile.mkdtemp(prefix=f"capn-stale-{label}-")
        subprocess.run([sys.executable, os.path.join(HERE, "scale_bench.py"), "--capn", binary,
                        "--n", str(a.n), f"--init={a.init}", "--stale", stale, "--settle",
                        "--runs", "1", "--keep", ws], check=True, capture_output=True)
        cases.append((label, binary, ws))
    # The questions, as scale_bench.py wrote them (the `# ` heading of each entry).
    def questions(ws):
        ed = os.path.join(ws, ".capn", "entries")
        out = []
        for name in sorted(os.listdir(ed)):
            for line in open(os.path.join(ed, name)):
                if line.startswith("# "):
                    out.append(line[2:].strip())
        return out
    qs = questions(cases[0][2])
    rnd = random.Random(3)
    picks = [rnd.choice(qs) for _ in range(a.runs)]
    ms = {label: [] for label, _, _ in cases}
    for q in picks:
        for label, binary, ws in cases:
            env = dict(os.environ, HOME=os.path.join(ws, ".home"))
            if a.instr:
                out = os.path.join(ws, "callgrind.out")
                p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
                                   + shlex.split(binary) + ["ask", q], cwd=ws, env=env,
                                   capture_output=True, text=True)
                ms[label].append(int(re.search(r"Collected : (\d+)", p.stderr).group(1)) / 1e6)
                os.unlink(out)
                continue
            t = time.perf_counter()
            subprocess.run(shlex.split(binary) + ["ask", q], cwd=ws, env=env, capture_output=True)
            ms[label].append((time.perf_counter() - t) * 1000)
    unit = "minstr" if a.instr else "ms"
    for label, _, ws in cases:
        m = ms[label]
        print(json.dumps({"case": label, "n": a.n, f"ask_{unit}_median": round(statistics.median(m), 1),
                          f"ask_{unit}_min": round(min(m), 1), f"ask_{unit}_max": round(max(m), 1),
                          "runs": len(m)}))


main()
