#!/usr/bin/env python3
"""Decision and learning benchmark: what an agent sees first, and what confirming a candidate teaches.

Builds one store per corpus repo (like recall_bench.py; or one pooled store) and, per kind, asks
every question and scores what comes *first*: the first answer on stdout, or on a miss the first
candidate on stderr (`candidate {...}` or `related {...}` lines, JSON after the prefix). Then it
plays the agent that confirms a candidate: for each case, its rewording of kind `--learn-kind`
(default `para`) is confirmed on its right chart with `capn chart "<rewording>" --like <id>`
(`--confirm chart` instead charts the rewording with the chart's files, which is all a build
without `--like` can do; `--confirm learn` plays learning from use instead: the agent's hooks see
`capn ask "<rewording>"`, and when the right chart is a `candidate` line the agent reads half its
files and the turn ends, with a transcript that shows only Bash and Read), and the questions are
asked again (with `--confirm learn`, the learned rewordings too: what learning still gives). Last, in fresh stores, each case is
charted again in each of its rewordings with its chart's files: a build that merges phrasings adds
no entry.

usage: learn_bench.py --capn CMD [--init=ARGS] [--pooled] [--confirm like|chart|learn]
                      [--queries FILE.tsv ...] [--learn-kind para] [--json] [--verbose]
Prints per phase and kind (split into dev and held-out by query file, as recall_bench.py does;
`--real` backs the charts with the real file text): n, first (right chart first: answer or first
candidate), top3 (among the first three shown), answered, learned_first (misses whose first line
is marked learned),
wrong (answered, first answer not the right chart; for near/neg every answer is wrong); for the
asks the right chart did not answer but was a candidate for, before and after learning, the words
it lacked (`not_in_chart`, at most 5 an ask) and how many asks learning supplied such a word to;
and the entries added by re-charting.
"""
import argparse, glob, json, os, shlex, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recall_bench as rb  # noqa: E402  (corpus loader, store builder, runner)

SHARED = "/work/shared/bench/queries"


def default_queries():
    out = [f"{HERE}/queries/dev.tsv", f"{HERE}/queries/near-dev.tsv"]
    p2 = f"{HERE}/queries/para2-dev.tsv"
    out.append(p2 if os.path.exists(p2) else f"{SHARED}/para2-dev.tsv")
    return out


def ask(cmd, q, ws, env):
    p, _ = rb.run(cmd, ["ask", q], ws, env)
    return rb.ask_ids(p) + (p,)


def lacking(p, want):
    """The `not_in_chart` words of the right chart's candidate line, or None if it is not one."""
    for c in rb.candidates(p):
        if c.get("id") == want: return set(c.get("not_in_chart", []))
    return None


def score(cmd, qs, stores, env, verbose, phase, lacks=None):
    res = {}
    for r, case, kind, q, split in qs:
        ws, ids = stores[r]
        hits, cands, p = ask(cmd, q, ws, env)
        kind_key = kind if split == "dev" else f"{kind}@{split}"
        want = ids.get(case) if kind not in ("neg", "near") else None
        first = (hits or cands or [None])[0]
        k = res.setdefault(kind_key, {"n": 0, "first": 0, "top3": 0, "answered": 0, "wrong": 0,
                                      "learned_first": 0})
        k["n"] += 1
        cs = rb.candidates(p)
        if not hits and cs and cs[0].get("learned"): k["learned_first"] += 1
        if hits: k["answered"] += 1
        if hits and hits[0] != want: k["wrong"] += 1
        if want and first == want: k["first"] += 1
        if want and want in (hits + [c for c in cands if c not in hits])[:3]: k["top3"] += 1
        if lacks is not None and want and not hits:
            words = lacking(p, want)
            if words is not None: lacks[(kind_key, case)] = words
        if verbose and (want != first or (hits and hits[0] != want)):
            tag = "answered" if hits else ("candidate" if cands else "nothing")
            print(f"  [{phase}] {kind} {case}: {tag} first={first} want={want} :: {q}", file=sys.stderr)
    return res


def supplied(before, after):
    """What learning gave the questions their right chart did not answer, per kind: asks (right
    chart a candidate both before and after), the words it lacked before and after (each list
    holds at most 5), and the asks learning supplied at least one lacking word to."""
    out = {}
    for key in sorted(set(before) & set(after)):
        k = out.setdefault(key[0], {"asks": 0, "lacked_before": 0, "lacked_after": 0, "supplied": 0})
        k["asks"] += 1
        k["lacked_before"] += len(before[key]); k["lacked_after"] += len(after[key])
        k["supplied"] += bool(before[key] - after[key])
    return out


def build_stores(a, repos, env, tmp, tag):
    stores = {}
    if a.pooled:
        ws = os.path.join(tmp, f"{tag}-pooled"); os.makedirs(ws)
        ids = rb.build(ws, [c for d in repos.values() for c in d["charts"]], a.capn, a.init, env, a.real)
        for r in repos: stores[r] = (ws, ids)
    else:
        for r, d in repos.items():
            ws = os.path.join(tmp, f"{tag}-{r}"); os.makedirs(ws)
            stores[r] = (ws, rb.build(ws, d["charts"], a.capn, a.init, env, a.real))
    return stores


def chart_files(repos):
    return {c["case"]: c["files"] for d in repos.values() for c in d["charts"]}


def confirm(a, q, case, ws, ids, files, env):
    if a.confirm == "like":
        args = ["chart", q, "--like", ids[case]]
    else:
        args = ["chart", q, "--files", ",".join(files[case])]
    p, _ = rb.run(a.capn, args, ws, env)
    if p.returncode: print(f"  confirm failed for {case}: {p.stderr.strip()}", file=sys.stderr)


def hook(a, ws, env, sub, event, sid, extra):
    payload = dict({"session_id": sid, "cwd": ws, "hook_event_name": event}, **extra)
    subprocess.run(shlex.split(a.capn) + ["hook", sub], input=json.dumps(payload), cwd=ws, env=env,
                   capture_output=True, text=True)


def learn_from_use(a, q, case, ws, ids, env, n, tmp):
    """Plays learning from use for one rewording (module docs): 'read' when the agent read the
    right chart's files, else why not ('answered', 'not a candidate')."""
    sid = f"bench-{n}"
    hook(a, ws, env, "pre-tool-use", "PreToolUse", sid,
         {"tool_name": "Bash", "tool_input": {"command": "capn ask " + shlex.quote(q)}})
    p, _ = rb.run(a.capn, ["ask", q], ws, env)
    if p.returncode == 0: return "answered"
    strong = [json.loads(l[len("candidate "):]) for l in p.stderr.splitlines()
              if l.startswith("candidate {")]
    right = [c for c in strong if c.get("id") == ids[case]]
    if not right: return "not a candidate"
    files = right[0]["files"]
    for f in files[: max(1, (len(files) + 1) // 2)]:
        hook(a, ws, env, "pre-tool-use", "PreToolUse", sid,
             {"tool_name": "Read", "tool_input": {"file_path": os.path.join(ws, f)}})
    t = os.path.join(tmp, f"{sid}.jsonl")
    with open(t, "w") as fh:
        fh.write(json.dumps({"type": "user", "message": {"content": q}}) + "\n")
        for i, name in enumerate(["Bash", "Read"]):
            use = {"type": "tool_use", "id": f"t{i}", "name": name, "input": {}}
            fh.write(json.dumps({"type": "assistant", "message": {"content": [use]}}) + "\n")
    hook(a, ws, env, "stop", "Stop", sid, {"stop_hook_active": False, "transcript_path": t})
    return "read"


def entry_count(stores):
    return sum(len(glob.glob(os.path.join(ws, ".capn", "entries", "*.md")))
               for ws in {ws for ws, _ in stores.values()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--init", default=None)
    ap.add_argument("--pooled", action="store_true")
    ap.add_argument("--confirm", choices=["like", "chart", "learn"], default="like")
    ap.add_argument("--queries", nargs="*", default=default_queries())
    ap.add_argument("--kinds", default="para,para2,near")
    ap.add_argument("--learn-kind", default="para")
    ap.add_argument("--corpus", default=f"{HERE}/corpus")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--real", default=None,
                    help="the real-content folder (../shared/bench/real): back charts with the real file text")
    a = ap.parse_args()
    repos = rb.load(a.corpus)
    for r, d in repos.items():
        for c in d["charts"]:
            c["_repo"] = r
    kinds = set(a.kinds.split(",")) | {a.learn_kind}
    qs = rb.queries(repos, kinds, a.queries, with_split=True)
    tmp = tempfile.mkdtemp(prefix="capn-learn-")
    env = dict(os.environ, HOME=os.path.join(tmp, "home"), CAPN_STATE_DIR=os.path.join(tmp, "state"))
    os.makedirs(env["HOME"])
    files = chart_files(repos)
    out = {}
    stores = build_stores(a, repos, env, tmp, "learn")
    lacks_before, lacks_after = {}, {}
    out["before"] = score(a.capn, qs, stores, env, a.verbose, "before", lacks_before)
    played = {}
    for n, (r, case, kind, q, _split) in enumerate(qs):
        if kind == a.learn_kind:
            ws, ids = stores[r]
            if a.confirm == "learn":
                how = learn_from_use(a, q, case, ws, ids, env, n, tmp)
                played[how] = played.get(how, 0) + 1
            else:
                confirm(a, q, case, ws, ids, files, env)
    if played: out["learn_play"] = played
    after = qs if a.confirm == "learn" else [x for x in qs if x[2] != a.learn_kind]
    out["after"] = score(a.capn, after, stores, env, a.verbose, "after", lacks_after)
    out["lacking"] = supplied(lacks_before, lacks_after)
    fresh = build_stores(a, repos, env, tmp, "merge")
    n0 = entry_count(fresh)
    for r, case, kind, q, _split in qs:
        if kind not in ("neg", "near", "hard"):
            ws, _ = fresh[r]
            before = entry_count({r: fresh[r]})
            p, _ = rb.run(a.capn, ["chart", q, "--files", ",".join(files[case])], ws, env)
            if p.returncode: print(f"  re-chart failed for {case}: {p.stderr.strip()}", file=sys.stderr)
            elif a.verbose and entry_count({r: fresh[r]}) > before:
                print(f"  [re-chart] {kind} {case}: new entry :: {q}", file=sys.stderr)
    out["recharted_new_entries"] = entry_count(fresh) - n0
    if a.json: print(json.dumps(out))
    else:
        for phase in ("before", "after"):
            for kind, k in sorted(out[phase].items()): print(phase, kind, k)
        for kind, k in out["lacking"].items(): print("unanswered, right chart a candidate:", kind, k)
        if played: print("learning from use, per rewording:", played)
        print("re-charted in the other wordings, new entries:", out["recharted_new_entries"])


if __name__ == "__main__":
    main()
