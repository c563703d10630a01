#!/usr/bin/env python3
"""Cross-store false answers: every dev question asked of the OTHER repos' stores.

Builds one store per corpus repo (like recall_bench.py) and asks each exact/para/hard/neg question
of the four stores it does not belong to; any answer on stdout there is a false answer, since
those charts come from a different codebase. A lower count is better; run it with and without
embedding to compare the fused gate with BM25 alone.

usage: cross_bench.py --capn target/release/capn [--init=ARGS] [--queries FILE.tsv ...] [--json]
Prints per kind: questions asked, false answers, and how many misses carried "related" lines.
"""
import argparse, json, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recall_bench as rb  # noqa: E402  (reuses its corpus loader, store builder and runner)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--init", default=None)
    ap.add_argument("--kinds", default="exact,para,hard,neg")
    ap.add_argument("--queries", nargs="*", default=[f"{HERE}/queries/dev.tsv"])
    ap.add_argument("--corpus", default=f"{HERE}/corpus")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    repos = rb.load(a.corpus)
    env = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="capn-cross-")
    env["HOME"] = os.path.join(tmp, "home")
    os.makedirs(env["HOME"])
    stores = {}
    for r, d in repos.items():
        ws = os.path.join(tmp, r)
        os.makedirs(ws)
        rb.build(ws, d["charts"], a.capn, a.init, env)
        stores[r] = ws
    res = {}
    for r, _case, kind, q in rb.queries(repos, set(a.kinds.split(",")), a.queries):
        for other, ws in stores.items():
            if other == r:
                continue
            p, _ = rb.run(a.capn, ["ask", q], ws, env)
            k = res.setdefault(kind, {"asked": 0, "false_answers": 0, "misses_with_related": 0})
            k["asked"] += 1
            if p.stdout.strip():
                k["false_answers"] += 1
            elif "\nrelated {" in "\n" + p.stderr:
                k["misses_with_related"] += 1
    total = {"asked": sum(v["asked"] for v in res.values()),
             "false_answers": sum(v["false_answers"] for v in res.values()),
             "misses_with_related": sum(v["misses_with_related"] for v in res.values())}
    res["all"] = total
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(k, v)


if __name__ == "__main__":
    main()
