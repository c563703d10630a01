#!/usr/bin/env python3
"""Measure a static model on the recall bench (cosine only, no BM25) and suggest thresholds.

    python3 tools/eval_bench.py [--assets assets/model] [--bench /work/shared/bench] [--text question|full]

Per repo store, every chart is embedded (its question, or question + details + file paths with
--text full) and every query is ranked against that store by cosine. Prints, per query kind
(exact, para, hard, neg): n, P@1, R@5 and the median top cosine; then the top cosine of queries
asked of the *other* repos' stores ("cross", all unrelated), and thresholds that separate true
rewordings from unrelated questions:
- related_min_cosine: the 90th percentile of the unrelated top cosines (neg + cross), so about one
  unrelated question in ten gets a "possibly related" suggestion;
- gate (coverage + cosine): the same 90th percentile over unrelated queries of a rough lexical
  coverage (share of the query's content words found in the chart text) plus cosine.
The runtime computes vectors exactly like this script (see make_parity.py), so the numbers carry
over; coverage here is only a stand-in for the one `ask` will use.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import minilm  # noqa: E402

minilm.ensure_env(("numpy", "tokenizers"))
import numpy as np  # noqa: E402

STOP = set(
    "a an the and or of to in on for with by at from is are was were be been how what where which who "
    "when why do does did we our i you it its this that these those get gets got there here into as "
    "can should would will any all some each after before".split()
)


def words(text):
    return {w[:6] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 1}


class Static:
    def __init__(self, assets: Path, tok):
        cfg = json.loads((assets / "config.json").read_text())
        self.rows = np.frombuffer((assets / "embeddings.i8").read_bytes(), dtype=np.int8).reshape(-1, cfg["dim"]).astype(np.float32)
        self.tok = tok
        self.cfg = cfg

    def embed(self, texts):
        out = np.zeros((len(texts), self.rows.shape[1]), dtype=np.float32)
        for i, t in enumerate(texts):
            ids = minilm.pool_ids(self.tok.encode(t, add_special_tokens=False).ids)
            if ids:
                v = self.rows[ids].sum(0)
                out[i] = v / max(np.linalg.norm(v), 1e-12)
        return out


class Teacher:
    def __init__(self, model_dir, tok):
        self.m = minilm.MiniLM(model_dir)
        self.tok = tok

    def embed(self, texts):
        v = self.m.encode_ids([self.tok.encode(t).ids[:256] for t in texts])
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def load_bench(bench: Path, text_mode):
    stores, queries = {}, []
    for f in sorted((bench / "corpus").glob("*.json")):
        d = json.loads(f.read_text())
        charts = [c for c in d["charts"] if c.get("arm", "chart") == "chart"]
        texts = [
            c["question"] if text_mode == "question" else " ".join([c["question"], c.get("details") or "", *c["files"]])
            for c in charts
        ]
        stores[d["repo"]] = ([c["case"] for c in charts], texts)
        for c in d["cases"]:
            queries.append((d["repo"], c["id"], "exact", c["question"]))
    for line in (bench / "queries" / "dev.tsv").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        repo, case, kind, q = line.split("\t")
        queries.append((repo, case, kind, q))
    return stores, queries


def evaluate(model, stores, queries, quiet=False, configured=None):
    sv = {r: (cases, model.embed(texts), texts) for r, (cases, texts) in stores.items()}
    qv = model.embed([q for *_, q in queries])
    res = {}
    unrelated_cos, unrelated_gate, related = [], [], {"para": [], "hard": [], "exact": []}
    for (repo, case, kind, q), v in zip(queries, qv):
        cases, m, texts = sv[repo]
        sims = m @ v
        order = np.argsort(-sims, kind="stable")
        top = float(sims[order[0]])
        qw = words(q)
        cov = len(qw & words(texts[order[0]])) / max(len(qw), 1)
        r = res.setdefault(kind, {"n": 0, "p1": 0, "r5": 0, "top": []})
        r["n"] += 1
        r["top"].append(top)
        if kind != "neg":
            ranked = [cases[i] for i in order]
            r["p1"] += ranked[0] == case
            r["r5"] += case in ranked[:5]
            related[kind].append((top, cov + top, ranked[0] == case))
        else:
            unrelated_cos.append(top)
            unrelated_gate.append(cov + top)
        if kind in ("exact", "para"):
            for other, (oc, om, otexts) in sv.items():
                if other == repo:
                    continue
                s = om @ v
                j = int(np.argmax(s))
                unrelated_cos.append(float(s[j]))
                unrelated_gate.append(len(qw & words(otexts[j])) / max(len(qw), 1) + float(s[j]))
    rel_min = float(np.percentile(unrelated_cos, 90))
    gate = float(np.percentile(unrelated_gate, 90))
    neg = np.array(unrelated_cos)

    def auc(pos):
        # probability that a true rewording's top cosine beats an unrelated question's
        pos = np.array(pos)
        return float(((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()))

    out = {"kinds": {}, "unrelated_top_median": float(np.median(unrelated_cos)), "related_min_cosine": rel_min, "gate": gate,
           "auc_para": auc([t for t, _, _ in related["para"]]), "auc_hard": auc([t for t, _, _ in related["hard"]])}
    for kind in ("exact", "para", "hard", "neg"):
        r = res.get(kind)
        if not r:
            continue
        row = {"n": r["n"], "p1": r["p1"], "r5": r["r5"], "top_median": float(np.median(r["top"]))}
        if kind in related:
            row["over_related_min"] = sum(t >= rel_min for t, _, _ in related[kind])
            row["answered_at_gate"] = sum(g >= gate and ok for _, g, ok in related[kind])
        out["kinds"][kind] = row
    if not quiet:
        for kind, row in out["kinds"].items():
            print(f"  {kind:5} n={row['n']:3} P@1={row['p1']:3} R@5={row['r5']:3} top cos median={row['top_median']:.3f}"
                  + (f"  >=related_min: {row['over_related_min']}  right & >=gate: {row['answered_at_gate']}" if "over_related_min" in row else ""))
        print(f"  unrelated (neg + other repos) top cos: median {out['unrelated_top_median']:.3f}, "
              f"p90 {rel_min:.3f}; p90 of coverage+cos {gate:.3f}")
        print(f"  separation of top cosines from unrelated ones (AUC): para {out['auc_para']:.3f}, hard {out['auc_hard']:.3f}")
        if configured:
            g, rm = configured["gate"], configured["related_min_cosine"]
            un = len(unrelated_cos)
            print(f"  at config.json thresholds (gate {g}, related_min_cosine {rm}): unrelated queries with "
                  f"cos >= related_min {sum(c >= rm for c in unrelated_cos)}/{un}, coverage+cos >= gate "
                  f"{sum(x >= g for x in unrelated_gate)}/{un}; right chart first and >= gate: "
                  + ", ".join(f"{k} {sum(x >= g and ok for _, x, ok in related[k])}/{len(related[k])}" for k in ("para", "hard"))
                  + "; right chart first and cos >= related_min: "
                  + ", ".join(f"{k} {sum(t >= rm and ok for t, _, ok in related[k])}/{len(related[k])}" for k in ("para", "hard")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assets", default=str(minilm.ASSETS))
    ap.add_argument("--bench", default="/work/shared/bench")
    ap.add_argument("--text", choices=["question", "full"], default="question")
    ap.add_argument("--teacher", action="store_true", help="also score the full transformer")
    args = ap.parse_args()
    model_dir = minilm.fetch_model()
    tok = minilm.load_tokenizer(model_dir)
    stores, queries = load_bench(Path(args.bench), args.text)
    print(f"static model {args.assets} (chart text: {args.text})")
    static = Static(Path(args.assets), tok)
    evaluate(static, stores, queries, configured=static.cfg.get("thresholds"))
    if args.teacher:
        print("full MiniLM (teacher)")
        evaluate(Teacher(model_dir, tok), stores, queries)


if __name__ == "__main__":
    main()
