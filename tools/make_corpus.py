#!/usr/bin/env python3
"""Freeze the refit corpus: English software sentences from the docstrings and comments of the
Python standard library that runs this script and of a few pinned pure-Python packages from PyPI
(fetched with `pip download --no-deps`; web frameworks, an ORM, a payments SDK, a task queue and a
docs tool, close to what developers ask about in web codebases).

    python3 tools/make_corpus.py [--n 60000] [--out tools/corpus/sentences.txt.gz]

The output is committed; `build_model.py --refit` reads only that file, so the model build does
not depend on which Python is installed. Re-running this script on another Python version gives
a different (equally valid) corpus: only do it on purpose, and rebuild the model after.

Selection is deterministic: sentences are cleaned, filtered (4-40 words, mostly letters, no code
or doctest lines), de-duplicated case-insensitively, ordered by SHA-1, and the first N are kept,
then written sorted so the file diffs well.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import io
import re
import sys
import sysconfig
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'`])")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
CODEY = re.compile(r"(>>>|\.\.\.\s|::|==|!=|\bdef\b|\bimport\b|[{}\[\]<>|\\$@#~^]|\w\(\)|=\w|\w=)")
PACKAGES = [
    "django==5.2.19", "sqlalchemy==2.1.9", "stripe==16.1.0", "celery==5.7.0", "sphinx==9.0.4",
    "werkzeug==3.1.9", "flask==3.1.3", "pydantic==2.14.4", "aiohttp==3.14.5", "setuptools==84.2.1",
]
CACHE = Path.home() / ".cache" / "capn-embed" / "corpus-src"
SKIP_DIRS = {"test", "tests", "_vendor", "vendor", "_vendored", "extern", "_distutils", "idlelib", "lib2to3", "turtledemo", "site-packages", "ensurepip", "pydoc_data"}


def paragraphs(text: str):
    """Split a docstring/comment block into paragraphs of joined lines."""
    para: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            if para:
                yield " ".join(para)
                para = []
            continue
        para.append(s)
    if para:
        yield " ".join(para)


def clean_sentences(block: str):
    for p in paragraphs(block):
        p = re.sub(r"\s+", " ", p).strip()
        for s in SENT_SPLIT.split(p):
            s = s.strip().strip("#").strip()
            s = s.replace("``", "").replace("`", "")
            s = re.sub(r":(?:func|meth|class|attr|mod|data|exc|const|term|ref|pep|rfc):", "", s)
            words = s.split()
            if not 4 <= len(words) <= 40:
                continue
            if not s[0].isalpha() or not s[0].isupper():
                continue
            if CODEY.search(s) or not s.isascii():
                continue
            alpha = sum(1 for w in words if WORD.fullmatch(w.strip(".,;:!?()\"'")))
            if alpha / len(words) < 0.75:
                continue
            if "copyright" in s.lower() or "license" in s.lower() or "XXX" in s or "TODO" in s:
                continue
            yield s


def comment_blocks(src: str):
    """Consecutive full-line comments joined into one block."""
    block: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.COMMENT and tok.line.strip().startswith("#"):
                block.append(tok.string.lstrip("#").strip())
            elif tok.type in (tokenize.NL, tokenize.NEWLINE) and block and tok.line.strip().startswith("#"):
                continue
            else:
                if block:
                    yield " ".join(block)
                    block = []
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    if block:
        yield " ".join(block)


def docstrings(src: str):
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            d = ast.get_docstring(node)
            if d:
                yield d


def package_sources():
    """(name, source text) of every .py file in the pinned wheels, in a stable order."""
    import subprocess
    import zipfile

    CACHE.mkdir(parents=True, exist_ok=True)
    for spec in PACKAGES:
        name, version = spec.split("==")
        found = sorted(CACHE.glob(f"{name}-{version}-*.whl"))
        if not found:
            subprocess.check_call([sys.executable, "-m", "pip", "download", "--no-deps", "-q", spec, "-d", str(CACHE)])
            found = sorted(CACHE.glob(f"{name}-{version}-*.whl"))
        with zipfile.ZipFile(found[0]) as z:
            for member in sorted(z.namelist()):
                parts = member.split("/")
                if member.endswith(".py") and not set(parts[:-1]) & SKIP_DIRS:
                    try:
                        yield member, z.read(member).decode("utf-8")
                    except UnicodeDecodeError:
                        continue


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60000)
    ap.add_argument("--out", default=str(ROOT / "tools" / "corpus" / "sentences.txt.gz"))
    args = ap.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    seen: dict[str, str] = {}
    files = sorted(p for p in stdlib.rglob("*.py") if not (set(p.relative_to(stdlib).parts[:-1]) & SKIP_DIRS))

    def sources():
        for path in files:
            try:
                yield str(path), path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
        yield from package_sources()

    n_files = 0
    for _, src in sources():
        n_files += 1
        for block in [*docstrings(src), *comment_blocks(src)]:
            for s in clean_sentences(block):
                seen.setdefault(s.lower(), s)
    ranked = sorted(seen.values(), key=lambda s: hashlib.sha1(s.encode()).hexdigest())[: args.n]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(sorted(ranked)) + "\n").encode()
    with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0, compresslevel=9) as f:
        f.write(data)
    print(f"{n_files} files, {len(seen)} distinct sentences, kept {len(ranked)} -> {out} "
          f"(python {sys.version.split()[0]}; {', '.join(PACKAGES)})")


if __name__ == "__main__":
    main()
