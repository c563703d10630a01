#!/usr/bin/env python3
"""Shows that the end-to-end suite fails when a hook is broken: runs it once per deliberate
break, each a wrapper around the built capn (nothing in the repository changes), and expects
the named checks to fail and the others to pass.

Usage: selftest.py --capn target/debug/capn [--only TEXT]   (after tests/e2e/run.sh installed
the clients; --only runs the breaks whose name holds TEXT)
Closes with "N passed, N failed" over the breaks; exit 1 when a break went unnoticed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (shell snippet run before the real capn, --only, checks that must fail)
BREAKS = {
    "user-prompt-submit writes a note on stderr": (
        'if [ "$1 $2" = "hook user-prompt-submit" ]; then echo "capn: e2e break" >&2; fi',
        None,
        ["claude: no capn run exited non-zero or wrote stderr",
         "codex: no capn run exited non-zero or wrote stderr"]),
    "the status line warns at 90% instead of 60%": (
        'if [ "$1" = statusline ]; then shift; exec "$REAL" statusline --warn-at 90 "$@"; fi',
        "claude",
        ["claude: /compact-prep reminder arrives once on the next prompt"]),
    "session-start answers Codex with a key its schema rejects": (
        'if [ "$1 $2 $4" = "hook session-start codex" ]; then cat >/dev/null; '
        'echo \'{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"},'
        '"sessionTitle":"t"}\'; exit 0; fi',
        "codex",
        ["codex: contract arrives once at startup",
         "codex: its output shows no complaint about capn's hooks"]),
    "pre-tool-use offers nothing": (
        'if [ "$1 $2" = "hook pre-tool-use" ]; then cat >/dev/null; exit 0; fi',
        None,
        ["claude: a search (Grep or Bash rg) for a charted answer's words gets the offer once",
         "codex: a shell rg for a charted answer's words gets the offer once"]),
    "session-start exits 1 on Claude Code": (
        'if [ "$1 $2" = "hook session-start" ] && [ -z "$3" ]; then cat >/dev/null; exit 1; fi',
        "claude",
        ["claude: contract arrives once at startup",
         "claude: no capn run exited non-zero or wrote stderr"]),
    "a bare capn exits 1 with the usage, as capn 0.3 did (Copilot CLI drops args)": (
        'if [ "$#" -eq 0 ]; then cat >/dev/null; echo "Usage: capn <COMMAND>" >&2; exit 1; fi',
        "copilot",
        ["copilot: no hook denied a tool call",
         "copilot: contract arrives once at session start",
         "copilot: no capn run exited non-zero or wrote stderr"]),
    "post-tool-use offers nothing (Gemini CLI)": (
        'if [ "$1 $2" = "hook post-tool-use" ]; then cat >/dev/null; exit 0; fi',
        "gemini",
        ["gemini: a grep_search for a charted answer's words gets the offer once"]),
    "session-start replies in Copilot's top-level shape on Qwen Code": (
        'if [ "$1 $2 $4" = "hook session-start qwen" ]; then shift 4; '
        'exec "$REAL" hook session-start --host copilot "$@"; fi',
        "qwen",
        ["qwen: contract arrives once at session start"]),
    "post-tool-use offers nothing through OpenCode's plugin": (
        'if [ "$1 $2 $4" = "hook post-tool-use opencode" ]; then cat >/dev/null; exit 0; fi',
        "opencode",
        ["opencode: a shell grep for a charted answer's words gets the offer once"]),
    "the Stop hook prints nothing (no nudge) on Claude Code": (
        'if [ "$1 $2" = "hook stop" ]; then cat >/dev/null; exit 0; fi',
        "claude",
        ["claude: a turn that explored is stopped once with the nudge, charts, and the next "
         "stop passes"]),
    "the Stop hook blocks every first stop on Codex (a cheap turn too)": (
        'if [ "$1 $2" = "hook stop" ]; then '
        'if grep -q \'"stop_hook_active": *true\'; then exit 0; fi; '
        'echo \'{"decision":"block","reason":"e2e break: always blocks"}\'; exit 0; fi',
        "codex",
        ["codex: a cheap turn (one ls) is never stopped"]),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--only", metavar="TEXT", help="run only the breaks whose name holds TEXT")
    args = ap.parse_args()
    real = os.path.abspath(args.capn)
    caught = missed = 0
    with tempfile.TemporaryDirectory(prefix="capn-e2e-breaks-") as tmp:
        for i, (name, (snippet, only, must_fail)) in enumerate(BREAKS.items()):
            if args.only and args.only not in name:
                continue
            wrapper = os.path.join(tmp, f"break{i}", "capn")
            os.makedirs(os.path.dirname(wrapper))
            with open(wrapper, "w") as f:
                f.write(f'#!/bin/sh\nREAL="{real}"\n{snippet}\nexec "$REAL" "$@"\n')
            os.chmod(wrapper, 0o755)
            argv = [sys.executable, os.path.join(HERE, "run_e2e.py"), "--capn", wrapper]
            if only:
                argv += ["--only", only]
            r = subprocess.run(argv, cwd=HERE, capture_output=True, text=True, timeout=600)
            failed = set(re.findall(r"^FAIL (.+)$", r.stdout, re.M))
            ok = r.returncode == 1 and set(must_fail) <= failed
            print(f"{'CAUGHT' if ok else 'MISSED'} {name}: failed checks: "
                  f"{sorted(failed) or 'none'} (exit {r.returncode})", flush=True)
            if ok:
                caught += 1
            else:
                missed += 1
                print(r.stdout[-3000:])
    print(f"{caught} passed, {missed} failed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
