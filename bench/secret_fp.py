#!/usr/bin/env python3
"""False positives of capn's secret check: texts that hold no secret but that chart would refuse.

usage: secret_fp.py --capn target/release/capn [--corpus DIR ...] [--queries TSV ...] [--real DIR ...]

Every text is given to the real binary as `capn chart` would get it from an agent, in a temporary
project with HOME pinned there: the corpus charts' questions (`corpus/<repo>.json`: `charts` and
`cases`), details and file lists; the query files' questions (what learning from use would write
as phrasings); and the text of every file under each --real folder, cut at line ends into pieces
of at most 64 KiB, as --details. The backing file named does not exist, so a chart that passes the
secret check stops at "missing file" and nothing is written; a refusal for a secret says "holds
what looks like". Prints one line per refusal (the source, the kind and where; never the text) and
a JSON summary line: texts checked, refusals.
"""
import argparse, glob, json, os, subprocess, sys, tempfile

PIECE = 64 * 1024


def texts(args):
    """Yields (source, question, details, files) for every text to check."""
    for d in args.corpus:
        for path in sorted(glob.glob(os.path.join(d, "*.json"))):
            data = json.load(open(path))
            name = os.path.basename(path)
            for c in data.get("charts", []):
                yield (f"{name}:{c.get('id')}", c["question"], c.get("details", ""), c.get("files", []))
            for c in data.get("cases", []):
                q = c.get("question")
                if q:
                    yield (f"{name}:case {c.get('case', c.get('id'))}", q, "", [])
    for path in args.queries:
        for n, line in enumerate(open(path), 1):
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 4 and cols[3].strip() and n > 1:
                yield (f"{os.path.basename(path)}:{n}", cols[3].strip(), "", [])
    for d in args.real:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                path = os.path.join(root, f)
                text = open(path, "rb").read().decode("utf-8", "replace").replace("\0", " ")
                for i, piece in enumerate(pieces(text)):
                    yield (f"{os.path.relpath(path, d)}#{i + 1}", "what does this file do", piece, [])


def pieces(text):
    """`text` cut at line ends into pieces of at most PIECE bytes (a longer line is cut)."""
    out, size = [], 0
    for line in text.splitlines(keepends=True):
        while len(line.encode()) > PIECE:
            yield line[: PIECE // 4]
            line = line[PIECE // 4 :]
        if size + len(line.encode()) > PIECE and out:
            yield "".join(out)
            out, size = [], 0
        out.append(line)
        size += len(line.encode())
    if out:
        yield "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--corpus", nargs="*", default=[])
    ap.add_argument("--queries", nargs="*", default=[])
    ap.add_argument("--real", nargs="*", default=[])
    args = ap.parse_args()
    capn = os.path.abspath(args.capn)
    checked = refused = other = 0
    with tempfile.TemporaryDirectory() as ws:
        env = dict(os.environ, HOME=ws, XDG_CONFIG_HOME=ws, XDG_DATA_HOME=ws, XDG_STATE_HOME=ws)
        for source, question, details, files in texts(args):
            files = [f for f in files if f] + ["capn-secret-fp-missing-file"]
            cmd = [capn, "chart", question, "--details", details] + [f"--file={f}" for f in files]
            p = subprocess.run(cmd, cwd=ws, env=env, capture_output=True, text=True)
            checked += 1
            if "holds what looks like" in p.stderr:
                refused += 1
                why = p.stderr.strip().split("holds what looks like", 1)[1].split(";", 1)[0]
                print(f"refused {source}: looks like{why}")
            elif "missing" not in p.stderr and "no such" not in p.stderr.lower():
                other += 1
                print(f"other {source}: {p.stderr.strip()[:200]}", file=sys.stderr)
    print(json.dumps({"texts": checked, "refused": refused, "other_errors": other}))


if __name__ == "__main__":
    main()
