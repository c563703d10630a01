#!/usr/bin/env python3
"""Recall on a real repository's own chart set, as a new user would make it.

Rebuilds capn-hook itself at a pinned commit (`git archive <commit>` of the repository this script
lives in: no network), charts the hand-written charts of bench/realrepo/<name>.json on the real
file text, then asks the questions of the matching .tsv and scores what `capn ask` shows.
See bench/realrepo/README.md for where the set comes from (held out: never used for tuning).

usage: realrepo_bench.py --capn 'CMD' [--init=ARGS] [--set FILE.json] [--queries FILE.tsv]
                         [--commit C] [--repo GITDIR] [--runs N] [--json] [--verbose] [--keep]
  CMD is the command prefix that runs the CLI, e.g. /work/bin/capn-base.
  --init=ARGS runs `CMD init ARGS` in the fresh project first (omit to skip init).
  HOME and the XDG dirs are pinned inside a temp dir; nothing outside it is written.

Scores, per kind (the "shown" lines of one ask: its JSONL answers on stdout, best first, then the
`candidate {json}` / `related {json}` lines on stderr; the first line shown is the first answer,
else the first candidate):
  para (a rewording of one chart's question): answered right (first answer is that chart),
    answered wrong (the first answer is another chart), right chart first (first line shown),
    among the first three lines shown;
  near / neg (no chart answers them): answered (every answer is wrong), asks that showed any line,
    and lines shown in all.
Also the median whole-process `ask` time in ms. With --runs N the whole build is repeated N times
and each number is the median over the runs.
"""
import argparse, json, os, re, shlex, statistics, subprocess, sys, tempfile, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from recall_bench import run, candidates, ask_ids  # noqa: E402  (shared helpers, not copied)

DEFAULT_SET = os.path.join(HERE, "realrepo", "capn-507cda9.json")


def repo_root():
    """The top level of the git repository this script lives in."""
    p = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=HERE,
                       capture_output=True, text=True, check=True)
    return p.stdout.strip()


def pinned_env(tmp):
    """The environment for every command: HOME and the XDG dirs inside `tmp`, no capn or host
    variables from the caller, git without global or system config."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CAPN_", "CLAUDE_", "CODEX_", "GIT_", "XDG_"))}
    env["HOME"] = os.path.join(tmp, "home")
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state"),
                     ("XDG_DATA_HOME", ".local/share"), ("XDG_CACHE_HOME", ".cache")):
        env[var] = os.path.join(env["HOME"], sub)
        os.makedirs(env[var], exist_ok=True)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    for who in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{who}_NAME"] = "bench"; env[f"GIT_{who}_EMAIL"] = "bench@example.invalid"
        env[f"GIT_{who}_DATE"] = "2026-12-04T00:00:00Z"
    return env


def checkout(root, commit, ws, env):
    """The project as a new user has it: the tree of `commit` in a fresh git repository at `ws`
    with one commit holding it."""
    os.makedirs(ws)
    archive = subprocess.Popen(["git", "-C", root, "archive", "--format=tar", commit],
                               stdout=subprocess.PIPE)
    tar = subprocess.run(["tar", "-x", "-C", ws], stdin=archive.stdout)
    archive.stdout.close()
    if archive.wait() or tar.returncode:
        sys.exit(f"could not extract {commit} from {root}")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", f"capn-hook at {commit}"]):
        subprocess.run(["git"] + args, cwd=ws, env=env, check=True, capture_output=True)


def chart_all(cmd, ws, env, charts):
    """Charts every chart; returns {case: id as `capn chart` printed it}."""
    ids = {}
    for c in charts:
        args = ["chart", c["question"], "--files", ",".join(c["files"])]
        if c.get("details"):
            args += ["--details", c["details"]]
        p, _ = run(cmd, args, ws, env)
        m = re.search(r"charted ([0-9a-f]+)", p.stdout)
        if p.returncode or not m:
            sys.exit(f"chart failed for {c['case']}: {p.stdout}{p.stderr}")
        if m.group(1) in ids.values():
            print(f"note: {c['case']} was charted into an existing chart {m.group(1)}", file=sys.stderr)
        ids[c["case"]] = m.group(1)
    return ids


def read_queries(path):
    qs = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        _repo, case, kind, q = line.rstrip("\n").split("\t")
        qs.append((case, kind, q))
    return qs


def one_run(a, data, qs, root):
    """Builds the project, charts, asks; returns (per-kind counts, per-query rows)."""
    tmp = tempfile.mkdtemp(prefix="capn-realrepo-")
    try:
        env = pinned_env(tmp)
        ws = os.path.join(tmp, data.get("repo", "capn-hook"))
        checkout(root, a.commit or data["commit"], ws, env)
        if a.init is not None:
            p, _ = run(a.capn, ["init"] + shlex.split(a.init), ws, env)
            if p.returncode:
                sys.exit(f"init failed: {p.stderr}")
        ids = chart_all(a.capn, ws, env, data["charts"])
        by_id = {v: k for k, v in ids.items()}
        kinds, rows = {}, []
        for case, kind, q in qs:
            p, ms = run(a.capn, ["ask", q], ws, env)
            hits, cands = ask_ids(p)
            shown = hits + cands
            k = kinds.setdefault(kind, {"n": 0, "answered": 0, "right": 0, "wrong": 0, "first": 0,
                                        "top3": 0, "showed": 0, "lines": 0, "ms": []})
            k["n"] += 1; k["ms"].append(ms)
            k["answered"] += bool(hits); k["showed"] += bool(shown); k["lines"] += len(shown)
            if kind in ("near", "neg"):
                k["wrong"] += bool(hits)
            else:
                want = ids[case]
                k["right"] += hits[:1] == [want]
                k["wrong"] += bool(hits) and hits[0] != want
                k["first"] += shown[:1] == [want]
                k["top3"] += want in shown[:3]
            rows.append({"case": case, "kind": kind, "query": q, "exit": p.returncode,
                         "answers": [by_id.get(h, h) for h in hits],
                         "candidates": [by_id.get(c, c) for c in cands], "ms": round(ms, 1),
                         "candidate_lines": len(candidates(p))})
        return kinds, rows
    finally:
        if a.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def median_counts(runs):
    """Each count as the median over the runs (the ask time: median of every ask of every run)."""
    out = {}
    for kind in runs[0]:
        ks = [r[kind] for r in runs]
        fields = ("n", "answered", "wrong", "showed", "lines") if kind in ("near", "neg") else \
            ("n", "answered", "right", "wrong", "first", "top3", "showed", "lines")
        o = {f: statistics.median(k[f] for k in ks) for f in fields}
        o = {f: int(v) if float(v).is_integer() else v for f, v in o.items()}
        o["ask_ms_median"] = round(statistics.median(m for k in ks for m in k["ms"]), 1)
        out[kind] = o
    return out


def table(out):
    lines = []
    if "para" in out:
        o = out["para"]
        lines.append("kind  n   answered right  answered wrong  right chart first  among first 3  ask ms")
        lines.append(f"para  {o['n']:<3} {o['right']:<15} {o['wrong']:<15} {o['first']:<18} "
                     f"{o['top3']:<14} {o['ask_ms_median']}")
    rest = [k for k in out if k != "para"]
    if rest:
        lines.append("kind  n   answered (wrong)  asks showing a line  lines shown  ask ms")
        for kind in rest:
            o = out[kind]
            lines.append(f"{kind:<5} {o['n']:<3} {o['wrong']:<17} {o['showed']:<20} "
                         f"{o['lines']:<12} {o['ask_ms_median']}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--capn", required=True, help="command prefix that runs capn")
    ap.add_argument("--init", default=None, help="args for `capn init`; omit to skip init")
    ap.add_argument("--set", default=DEFAULT_SET, help="the charts (JSON)")
    ap.add_argument("--queries", default=None, help="the questions (TSV); default: the set's .tsv")
    ap.add_argument("--commit", default=None, help="the commit to rebuild; default: the set's")
    ap.add_argument("--repo", default=None,
                    help="the git repository to rebuild it from (a clone or a bare mirror of the "
                         "set's repository); default: the one this script lives in")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="also print every ask's result")
    ap.add_argument("--keep", action="store_true", help="keep the temp project")
    a = ap.parse_args()
    data = json.load(open(a.set, encoding="utf-8"))
    qs = read_queries(a.queries or os.path.splitext(a.set)[0] + ".tsv")
    root = a.repo or repo_root()
    runs, rows = [], []
    for _ in range(max(1, a.runs)):
        kinds, rows = one_run(a, data, qs, root)
        runs.append(kinds)
    out = median_counts(runs)
    if a.json:
        print(json.dumps({"commit": a.commit or data["commit"], "runs": len(runs), **out,
                          **({"queries": rows} if a.verbose else {})}))
        return
    print(table(out))
    if a.verbose:
        for r in rows:
            print(f"{r['kind']:<5} {r['case']:<8} exit={r['exit']} answers={r['answers']} "
                  f"candidates={r['candidates']}  {r['query']}")


if __name__ == "__main__":
    main()
