#!/usr/bin/env python3
"""Regenerate tests/fixtures/embed/parity.json: reference token ids and vectors for the Rust runtime.

    python3 tools/make_parity.py

Ground truth, independent of the Rust code:
- token ids from the reference HF `tokenizers` library loaded with the source model's own
  tokenizer.json (BertNormalizer + BertPreTokenizer + WordPiece), special tokens not added;
- vectors from the committed assets in numpy, as model2vec's static pooling does: drop the special
  ids and [UNK], keep the first MAX_TOKENS, mean of the dequantised int8 rows, L2-normalise (all
  zeros when nothing is left).

Sections: `cases` (a few dozen hand-picked texts: accents, CJK, emoji, punctuation, identifiers,
empty and very long text) carry ids and vectors; `token_cases` (corpus sentences and seeded random
strings over many scripts and odd characters) carry ids only, to exercise the tokenizer widely.
Text that spells a special token literally ("[CLS]") is left out: the reference library matches
it as that token, the runtime deliberately does not.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import minilm  # noqa: E402

minilm.ensure_env(("numpy", "tokenizers"))
import numpy as np  # noqa: E402

OUT = minilm.ROOT / "tests" / "fixtures" / "embed" / "parity.json"

LONG = " ".join(
    f"Section {i}: the payment webhook handler retries failed deliveries with exponential backoff, "
    f"stores the idempotency key, and emits an audit event for workspace {i % 7}."
    for i in range(60)
)

CASES = [
    "",
    "   \t\n  ",
    "hello",
    "Where is the Stripe webhook that updates a workspace's plan?",
    "how do we dedupe clicks before recording analytics",
    "Where are aggregate analytics API requests translated into Tinybird pipe calls?",
    "café naïve Ärger façade résumé coöperate",
    "ÉCOLE Straße İstanbul ÅNGSTRÖM Ωmega ΣΊΣΥΦΟΣ",
    "支付回调在哪里处理",
    "日本語のテキスト",
    "한국어",
    "Ελληνικά και русский текст",
    "mixed 中文 and English 混合 text",
    "emoji 🚀 rocket 👍🏽 thumbs 👨‍👩‍👧 family",
    "🚀🔥💯",
    "fix🚀bug",
    "Hello, world! (really?) [yes] {no} <maybe> \"quoted\" 'single' `tick`",
    "a.b,c;d:e!f?g-h_i/j\\k|l@m#n$o%p^q&r*s+t=u~v",
    "¿Qué tal? ¡Muy bien! «guillemets» — em dash … ellipsis",
    "getUserById parseHTTPResponse XMLHttpRequest",
    "snake_case_identifier __init__ MAX_RETRY_COUNT",
    "src/embed/mod.rs apps/web/lib/middleware/link.ts ../../assets/model/vocab.txt",
    "https://example.com/api/v1/links?domain=dub.sh&key=abc#frag",
    "user@example.com +1-555-0100 2024-06-01T12:00:00Z",
    "version 0.3.0 costs $12.50 (15% off) 3.14159",
    "fn main() { println!(\"{}\", x.iter().map(|v| v * 2).sum::<i32>()); }",
    "SELECT id, name FROM users WHERE email = ? ORDER BY created_at DESC;",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "x" * 101,
    "y" * 100,
    "tab\tseparated\tvalues\r\nand CRLF",
    "zero\u200bwidth\u200djoiner\u00a0nbsp\u3000ideographic space",
    "control\u0000chars\u0007and\ufffdreplacement",
    "soft\u00adhyphen and combining e\u0301 a\u0308 n\u0303",
    "ﬁ ligature ＦＵＬＬＷＩＤＴＨ ①②③ ℌ ™",
    "How is the final signed PDF generated with the certificate page?",
    "where do we send the verification email after signup",
    "rate limiting middleware for the public API",
    "what happens when a subscription is cancelled",
    LONG,
]

SCRIPT_RANGES = [
    (0x20, 0x7E), (0x20, 0x7E), (0x20, 0x7E), (0xA0, 0xFF), (0x100, 0x17F), (0x300, 0x36F),
    (0x370, 0x3FF), (0x400, 0x4FF), (0x590, 0x5FF), (0x600, 0x6FF), (0x900, 0x97F),
    (0xE00, 0xE7F), (0x1100, 0x11FF), (0x2000, 0x206F), (0x20A0, 0x20CF), (0x2100, 0x214F),
    (0x2190, 0x21FF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3),
    (0xE000, 0xE0FF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0xFFF0, 0xFFFF),
    (0x1F300, 0x1F6FF), (0x1F900, 0x1F9FF), (0x20000, 0x2A6DF), (0xE0000, 0xE007F), (0x0, 0x1F),
    (0x7F, 0x9F), (0x378, 0x37F),
]


def random_texts(n, seed=20240601):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        chars = []
        for _ in range(rng.randint(1, 40)):
            a, b = rng.choice(SCRIPT_RANGES)
            cp = rng.randint(a, b)
            if 0xD800 <= cp <= 0xDFFF:
                continue
            chars.append(chr(cp))
            if rng.random() < 0.2:
                chars.append(" ")
        out.append("".join(chars))
    return out


def main():
    model_dir = minilm.fetch_model()
    tok = minilm.load_tokenizer(model_dir)
    cfg = json.loads((minilm.ASSETS / "config.json").read_text())
    dim = cfg["dim"]
    q = np.frombuffer((minilm.ASSETS / "embeddings.i8").read_bytes(), dtype=np.int8).reshape(-1, dim)
    rows = q.astype(np.float64) * cfg["scale"]
    specials = ["[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"]

    def ids_of(text):
        assert not any(s in text for s in specials), text
        return tok.encode(text, add_special_tokens=False).ids

    cases = []
    for text in CASES:
        ids = ids_of(text)
        pooled = minilm.pool_ids(ids)
        v = rows[pooled].mean(0) if pooled else np.zeros(dim)
        norm = np.linalg.norm(v)
        v = v / norm if norm > 0 else v
        cases.append({"text": text, "ids": ids, "vector": [round(float(x), 7) for x in v]})

    corpus = gzip.decompress((minilm.TOOLS / "corpus" / "sentences.txt.gz").read_bytes()).decode().splitlines()
    token_texts = corpus[:: max(1, len(corpus) // 150)][:150] + random_texts(150)
    token_texts = [t for t in token_texts if not any(s in t for s in specials)]
    token_cases = [{"text": t, "ids": ids_of(t)} for t in token_texts]

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {
                "model_id": cfg["id"],
                "dim": dim,
                "max_tokens": minilm.MAX_TOKENS,
                "cases": cases,
                "token_cases": token_cases,
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {OUT}: {len(cases)} cases with vectors, {len(token_cases)} tokenizer cases")


if __name__ == "__main__":
    main()
