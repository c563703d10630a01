#!/usr/bin/env python3
"""Naive offer baseline and test double for offer_bench.py (not the product's hook).

usage: offer_bench.py --capn "python3 bench/offer_baseline_hook.py target/release/capn" [...]

Every subcommand but the two offer hooks is passed to the real binary (the first argument).
`hook user-prompt-submit` and `hook pre-tool-use` read the payload and run `capn ask` over the raw
text (the prompt, or the tool_input values joined by spaces; nothing under 12 characters), then
print the top hit as `capn: "<question>" -> <files>` in hookSpecificOutput.additionalContext. It
has no gate of its own beyond ask's, so it shows what plain recall over unprocessed input gets.

OFFER_BASELINE_MODE changes the output shape, to check the bench's parsing:
  json (default), plain (plain text), two (two JSON objects), four (up to four offer lines),
  trunc (questions cut at 60 characters and ended with an ellipsis).
"""
import json, os, subprocess, sys

REAL = os.path.abspath(sys.argv[1])
ARGS = sys.argv[2:]
MODE = os.environ.get("OFFER_BASELINE_MODE", "json")

if ARGS[:2] not in (["hook", "user-prompt-submit"], ["hook", "pre-tool-use"]):
    os.execv(REAL, [REAL] + ARGS)

body = json.load(sys.stdin)
text = body.get("prompt") or " ".join(str(v) for v in (body.get("tool_input") or {}).values())
if len(text) < 12:
    sys.exit(0)
limit = "4" if MODE == "four" else "1"
p = subprocess.run([REAL, "ask", "--limit", limit, text], capture_output=True, text=True)
lines = []
for line in p.stdout.splitlines():
    hit = json.loads(line)
    q = hit["question"]
    if MODE == "trunc" and len(q) > 60:
        q = q[:60] + "\u2026"
    lines.append(f'capn: "{q}" -> ' + ", ".join(hit["files"]))
if lines:
    block = "\n".join(lines + ["These entries come from the project's chart (capn)."])
    obj = json.dumps({"hookSpecificOutput": {"hookEventName": body.get("hook_event_name", ""),
                                             "additionalContext": block}})
    print(block if MODE == "plain" else obj)
    if MODE == "two":
        print(obj)
sys.exit(0)
