#!/usr/bin/env python3
"""Offer benchmark: does `capn hook` offer the right chart, unasked, at the prompt and the search?

Builds chart stores from the recall corpus exactly as recall_bench.py does (one per repo, or all 60
charts pooled; placeholder backing files, so hashes are real), then feeds every case of an offer
set (bench/offers/*.tsv) to the hook as the host would, with a FRESH session_id per case:

- moment `prompt`: `capn hook user-prompt-submit` with a Claude Code UserPromptSubmit payload
  {"session_id","transcript_path","cwd","hook_event_name":"UserPromptSubmit","prompt"};
- moment `search`: `capn hook pre-tool-use` with a Claude Code PreToolUse payload
  {"session_id","transcript_path","cwd","hook_event_name":"PreToolUse","tool_name","tool_input",
  "tool_use_id"} (tool Grep, Glob, Task, Agent, Bash); tool `codex-shell` runs
  `capn hook pre-tool-use --host codex` with Codex's PreToolUse payload (tool_name "Bash",
  tool_input {"command": "<string>"}, plus model, permission_mode, transcript_path null; see
  codex-rs/hooks/schema/generated/pre-tool-use.command.input.schema.json in openai/codex).

Output parsing: stdout is empty (no offer) or one JSON object; the offered block is in
hookSpecificOutput.additionalContext, lines `capn: "<charted question>" -> <file>, <file>`.
Plain-text stdout counts as context on UserPromptSubmit (the host injects it) but not on
PreToolUse (the host only logs it). Offered questions map back to corpus case ids by their text
(exact, then normalised, then a prefix for truncated questions), else by their file list.

Scores per moment: cases, offers (cases where anything was offered), offered charts, right
offers, precision = right offers / offered charts, coverage = cases with an expected chart where
that chart was offered / cases with an expected chart, false offers = `-` cases that got any
offer, wrong chart on expected = cases with an expected chart that got any other chart, median
(and p90) whole-process hook time; for searches also coverage and false offers per tool.
A hook that does not exist yet (non-zero exit, or clap's usage text on stderr: capn exits 0 on
hook usage errors) counts as no offer, with a one-line warning per subcommand. Other output
problems (not one JSON object, plain text on PreToolUse, more than 3 offer lines, a chart twice)
are counted and reported in one warning line each.

Exits 0 whatever the hook does; exits 1 only when the cases file is malformed (the message names
the line) or a store cannot be built (`capn init`/`capn chart` failed).

usage: offer_bench.py --capn CMD [--init=ARGS] [--cases FILE.tsv] [--pooled] [--json]
                      [--show wrong|all]
  CMD runs the CLI (relative paths in it are made absolute), e.g. target/release/capn.
  --init=ARGS runs `CMD init ARGS` in each fresh store first (omit to skip init).
  --show lists the cases that went wrong (or all) on stderr, one line each.
"""
import argparse, json, os, re, shlex, statistics, subprocess, sys, tempfile, time, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recall_bench as rb  # noqa: E402  (corpus loader and store builder, shared with recall)

MOMENTS = ("prompt", "search")
MAX_LINES = 3  # issue 11: at most 3 `capn: "..." -> ...` lines per offer
TOOLS = {"Grep", "Glob", "Task", "Agent", "Bash", "codex-shell"}
# A subcommand or flag this binary does not know yet: capn maps usage errors of `hook` to exit 0,
# so the stderr text is the signal (clap's wording).
USAGE_ERROR = re.compile(r"(?im)error: (invalid value|unrecognized subcommand|unexpected argument)|^usage:")
# `capn: "<question>" -> "<file>", "<file>" (<provenance>)` (0.4: paths quoted, provenance note);
# 0.3 wrote the paths bare and no note.
OFFER_LINE = re.compile(r'^\s*capn: "(.*)" -> (.*?)(?: \((?:found in|charted in)[^)]*\))?\s*$')


def load_cases(path):
    """Rows of the offer TSV as dicts; exits with the line number on a malformed row."""
    cases = []
    with open(path, encoding="utf-8") as f:
        header = None
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if header is None:
                header = cols
                continue
            if len(cols) != len(header):
                sys.exit(f"{path}:{n}: expected {len(header)} columns, got {len(cols)}")
            row = dict(zip(header, cols))
            row["line"] = n
            if row["moment"] not in MOMENTS:
                sys.exit(f"{path}:{n}: moment must be prompt or search: {row['moment']!r}")
            if row["moment"] == "search":
                if row["tool"] not in TOOLS:
                    sys.exit(f"{path}:{n}: unknown tool {row['tool']!r}")
                try:
                    row["tool_input"] = json.loads(row["input"])
                except ValueError as e:
                    sys.exit(f"{path}:{n}: input is not JSON: {e}")
            cases.append(row)
    return cases


def norm(q):
    return " ".join(q.lower().replace("\u2019", "'").split()).rstrip("?.… ")


class Charts:
    """Maps an offered question (or file list) back to a corpus case id."""

    def __init__(self, repos):
        self.by_text, self.by_norm, self.by_files = {}, {}, {}
        for d in repos.values():
            for c in d["charts"]:
                self.by_text[c["question"]] = c["case"]
                self.by_norm[norm(c["question"])] = c["case"]
                self.by_files.setdefault(tuple(c["files"]), c["case"])

    def case_of(self, question, files):
        if question in self.by_text:
            return self.by_text[question]
        q = norm(question.replace('\\"', '"'))
        if q in self.by_norm:
            return self.by_norm[q]
        if len(q) >= 20:
            hits = {c for t, c in self.by_norm.items() if t.startswith(q)}
            if len(hits) == 1:
                return hits.pop()
        fs = tuple(f.strip().strip('"') for f in files.split(",") if f.strip())
        for full, case in self.by_files.items():
            if fs and fs == full[: len(fs)]:
                return case
        return None


def context_of(stdout, moment):
    """(additionalContext text or None, problem or None) from a hook's stdout."""
    out = stdout.strip()
    if not out:
        return None, None
    if out.startswith("{"):
        try:
            obj = json.loads(out)
        except ValueError:
            return None, "stdout is not one JSON object"
        hso = obj.get("hookSpecificOutput") if isinstance(obj, dict) else None
        if not isinstance(hso, dict):
            return None, None
        ctx = hso.get("additionalContext")
        return (ctx if isinstance(ctx, str) else None), None
    if moment == "prompt":
        return out, None  # UserPromptSubmit: plain stdout is context
    return None, "plain text on PreToolUse (the host does not deliver it)"


def payload(case, ws, tmp, n):
    sid = str(uuid.uuid4())
    if case["moment"] == "prompt":
        tp = os.path.join(tmp, "transcripts", sid + ".jsonl")
        open(tp, "w").close()
        return ["hook", "user-prompt-submit"], {
            "session_id": sid, "transcript_path": tp, "cwd": ws,
            "hook_event_name": "UserPromptSubmit", "prompt": case["input"]}
    if case["tool"] == "codex-shell":
        return ["hook", "pre-tool-use", "--host", "codex"], {
            "session_id": sid, "transcript_path": None, "cwd": ws,
            "hook_event_name": "PreToolUse", "model": "gpt-5-codex", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": case["tool_input"], "tool_use_id": f"call_bench{n:04d}"}
    tp = os.path.join(tmp, "transcripts", sid + ".jsonl")
    open(tp, "w").close()
    return ["hook", "pre-tool-use"], {
        "session_id": sid, "transcript_path": tp, "cwd": ws, "hook_event_name": "PreToolUse",
        "permission_mode": "default", "tool_name": case["tool"], "tool_input": case["tool_input"],
        "tool_use_id": f"toolu_bench{n:04d}"}


def run_hook(capn, args, body, ws, env):
    e = dict(env, CLAUDE_PROJECT_DIR=ws)
    t = time.perf_counter()
    try:
        p = subprocess.run(shlex.split(capn) + args, input=json.dumps(body), cwd=ws, env=e,
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        p = subprocess.CompletedProcess(args, 124, "", "timed out after 30 s")
    return p, (time.perf_counter() - t) * 1000


def absolute_cmd(cmd):
    """The command with relative paths in it made absolute (the hook runs in the store's dir)."""
    words = shlex.split(cmd)
    return shlex.join(os.path.abspath(w) if "/" in w and not os.path.isabs(w) and os.path.exists(w)
                      else w for w in words)


def pinned_env(tmp):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "CAPN_", "CODEX"))}
    for k, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "home/.config"),
                   ("XDG_DATA_HOME", "home/.local/share"), ("XDG_STATE_HOME", "home/.local/state"),
                   ("XDG_CACHE_HOME", "home/.cache"), ("XDG_RUNTIME_DIR", "run")):
        env[k] = os.path.join(tmp, sub)
        os.makedirs(env[k], exist_ok=True)
    os.chmod(env["XDG_RUNTIME_DIR"], 0o700)
    return env


def score(results):
    out = {}
    for m in MOMENTS:
        rs = [r for r in results if r["moment"] == m]
        if not rs:
            continue
        pos = [r for r in rs if r["expect"] != "-"]
        offered = sum(len(r["offered"]) for r in rs)
        right = sum(r["offered"].count(r["expect"]) for r in pos)
        out[m] = {
            "cases": len(rs), "expect_chart": len(pos), "expect_none": len(rs) - len(pos),
            "offers": sum(1 for r in rs if r["offered"]), "offered_charts": offered,
            "right_offers": right,
            "precision": round(right / offered, 3) if offered else None,
            "coverage": round(sum(1 for r in pos if r["expect"] in r["offered"]) / len(pos), 3)
            if pos else None,
            "false_offers_on_none": sum(1 for r in rs if r["expect"] == "-" and r["offered"]),
            "wrong_chart_on_expected": sum(1 for r in pos if any(o != r["expect"] for o in r["offered"])),
            "hook_ms_median": round(statistics.median(r["ms"] for r in rs), 1),
            "hook_ms_p90": round(sorted(r["ms"] for r in rs)[int(0.9 * (len(rs) - 1))], 1),
        }
        if m == "search":
            out[m]["by_tool"] = {}
            for t in sorted({r["tool"] for r in rs}):
                tr = [r for r in rs if r["tool"] == t]
                tp = [r for r in tr if r["expect"] != "-"]
                out[m]["by_tool"][t] = {
                    "cases": len(tr),
                    "covered": f"{sum(1 for r in tp if r['expect'] in r['offered'])}/{len(tp)}",
                    "false": sum(1 for r in tr if r["expect"] == "-" and r["offered"])}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--capn", required=True, help="command that runs the CLI, e.g. target/release/capn")
    ap.add_argument("--init", default=None, help="args for `capn init` in each store; omit to skip init")
    ap.add_argument("--cases", default=f"{HERE}/offers/dev.tsv")
    ap.add_argument("--corpus", default=f"{HERE}/corpus")
    ap.add_argument("--pooled", action="store_true", help="all 60 charts in one store")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--show", choices=["wrong", "all"], help="list cases (to stderr)")
    a = ap.parse_args()
    a.capn = absolute_cmd(a.capn)
    cases = load_cases(a.cases)
    repos = rb.load(a.corpus)
    charts = Charts(repos)
    for c in cases:
        if c["repo"] not in repos:
            sys.exit(f"{a.cases}:{c['line']}: unknown repo {c['repo']!r}")
        if c["expect"] != "-" and not any(ch["case"] == c["expect"] for ch in repos[c["repo"]]["charts"]):
            sys.exit(f"{a.cases}:{c['line']}: expect {c['expect']!r} is not a chart of {c['repo']}")
    tmp = tempfile.mkdtemp(prefix="capn-offer-")
    env = pinned_env(tmp)
    os.makedirs(os.path.join(tmp, "transcripts"))
    stores = {}
    if a.pooled:
        ws = os.path.join(tmp, "pooled")
        os.makedirs(ws)
        rb.build(ws, [c for d in repos.values() for c in d["charts"]], a.capn, a.init, env)
        stores = {r: ws for r in repos}
    else:
        for r, d in repos.items():
            ws = os.path.join(tmp, r)
            os.makedirs(ws)
            rb.build(ws, d["charts"], a.capn, a.init, env)
            stores[r] = ws
    # Offers are opt-in while the injection gate is experimental: switch them on in each store
    # (`"offer": true` in .capn/config.json, keeping every other key).
    for ws in set(stores.values()):
        cfg = os.path.join(ws, ".capn", "config.json")
        conf = json.load(open(cfg)) if os.path.exists(cfg) else {}
        conf["offer"] = True
        os.makedirs(os.path.dirname(cfg), exist_ok=True)
        json.dump(conf, open(cfg, "w"))
    warned, problems, results = set(), {}, []
    for n, c in enumerate(cases):
        ws = stores[c["repo"]]
        args, body = payload(c, ws, tmp, n)
        p, ms = run_hook(a.capn, args, body, ws, env)
        offered, lines = [], []
        if p.returncode != 0 or USAGE_ERROR.search(p.stderr):
            key = " ".join(args)
            if key not in warned:
                warned.add(key)
                first = (p.stderr.strip().splitlines() or ["(no stderr)"])[0]
                print(f"warning: `capn {key}` exited {p.returncode} ({first}); counted as no offer",
                      file=sys.stderr)
        else:
            ctx, problem = context_of(p.stdout, c["moment"])
            for line in (ctx or "").splitlines():
                mt = OFFER_LINE.match(line)
                if mt:
                    lines.append(line.strip())
                    case = charts.case_of(mt.group(1), mt.group(2)) or "?unknown"
                    if case in offered:
                        problem = "the same chart offered twice in one block"
                    else:
                        offered.append(case)
            if len(lines) > MAX_LINES:
                problem = f"more than {MAX_LINES} offer lines in one block"
            if problem:
                problems[problem] = problems.get(problem, 0) + 1
        results.append(dict(c, offered=offered, lines=lines, ms=ms))
    if problems:
        for k, v in problems.items():
            print(f"warning: {v} case(s): {k}", file=sys.stderr)
    out = {"cases_file": os.path.relpath(a.cases), "store": "pooled" if a.pooled else "per-repo",
           **score(results)}
    if a.show:
        for r in results:
            ok = (r["expect"] == "-" and not r["offered"]) or (r["offered"] == [r["expect"]])
            if a.show == "all" or not ok:
                tag = "ok " if ok else "BAD"
                print(f"{tag} {r['repo']:9} {r['moment']:6} want={r['expect']:12} got={','.join(r['offered']) or '-':24} "
                      f"{r['tool']:11} {r['input'][:90]}", file=sys.stderr)
    if a.json:
        print(json.dumps(out))
    else:
        print(f"offer bench: {out['cases_file']}, {out['store']} stores")
        for m in MOMENTS:
            if m not in out:
                continue
            o = out[m]
            pr = "n/a" if o["precision"] is None else f"{o['precision']:.3f}"
            print(f"{m:6}  cases {o['cases']} (chart {o['expect_chart']}, none {o['expect_none']})  "
                  f"offers {o['offers']}  offered charts {o['offered_charts']}  right {o['right_offers']}  "
                  f"precision {pr}  coverage {o['coverage']:.3f}  false offers on none "
                  f"{o['false_offers_on_none']}  wrong chart on expected {o['wrong_chart_on_expected']}  "
                  f"hook ms median {o['hook_ms_median']} (p90 {o['hook_ms_p90']})")
            for t, s in o.get("by_tool", {}).items():
                print(f"          {t:11} cases {s['cases']:3}  covered {s['covered']:7}  false {s['false']}")
    sys.exit(0)


if __name__ == "__main__":
    main()
