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
    "post-tool-use offers nothing and pre-compact nothing through OpenCode's plugin": (
        'if [ "$1 $2 $4" = "hook post-tool-use opencode" ]; then cat >/dev/null; exit 0; fi\n'
        'if [ "$1 $2 $4" = "hook pre-compact opencode" ]; then cat >/dev/null; exit 0; fi',
        "opencode",
        ["opencode: a shell grep for a charted answer's words gets the offer once",
         "opencode: an automatic compaction's summary request holds capn's instructions"]),
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
    # Learning from use: PreToolUse still offers, but never sees a file read (Claude Code's
    # Read tool, Codex's `sed -n`), so a turn has no evidence to learn from.
    "pre-tool-use ignores file reads (learning from use gets no evidence)": (
        'if [ "$1 $2" = "hook pre-tool-use" ]; then in=$(cat); case "$in" in '
        '*\'"Read"\'*|*"sed -n"*) exit 0 ;; esac; printf \'%s\' "$in" | exec "$REAL" "$@"; fi',
        None,
        ["claude: a miss whose candidate's file the turn then read teaches it the words: it "
         "ranks, never answers",
         "codex: a miss whose candidate's file the turn then read teaches it the words: it "
         "ranks, never answers"]),
    # Compaction and sub-agents: each break spoils several properties at once, each caught
    # by its own named check (three client runs instead of eight).
    "Claude Code: pre-compact prints nothing, session-start's recovery is delivered again by "
    "the next prompt, post-compact never sees the summary, subagent-start prints nothing": (
        'case "$1 $2" in\n'
        '"hook pre-compact") "$REAL" "$@" >/dev/null; exit 0 ;;\n'
        '"hook session-start") "$REAL" "$@"; rc=$?; '
        'rm -f "$CAPN_STATE_DIR"/sessions/*/compact-delivered.json; exit $rc ;;\n'
        '"hook post-compact") sed \'s/"compact_summary"/"e2e_hidden"/\' | "$REAL" "$@"; exit $? ;;\n'
        '"hook subagent-start") cat >/dev/null; exit 0 ;;\n'
        'esac',
        "claude",
        ["claude: /compact: the summary request holds capn's instructions with the saved plan",
         "claude: /compact: one recovery in the next request, none after",
         "claude: automatic compaction: the summary request holds capn's instructions, saying "
         "no fresh state was saved",
         "claude: automatic compaction: its recovery in the first request after, none after",
         "claude: automatic compaction with a fresh state: the saved plan in the summary request",
         "claude: a summary that dropped the saved plan brings one note on the next prompt "
         "naming it",
         "claude: a spawned sub-agent's request holds the sub-agent contract, the parent's "
         "none"]),
    "Claude Code: session-start(compact) prints nothing (the recovery comes a prompt late), "
    "post-compact sees an empty summary, the parent's contract carries the sub-agent's": (
        'if [ "$1 $2" = "hook session-start" ]; then in=$(cat); '
        'if printf \'%s\' "$in" | grep -q \'"source": *"compact"\'; then exit 0; fi; '
        'printf \'%s\' "$in" | "$REAL" "$@" | sed \'s/capn (project memory) is available/'
        '[capn] Sub-agent contract: capn (project memory) is available/\'; exit 0; fi\n'
        'if [ "$1 $2" = "hook post-compact" ]; then '
        'sed \'s/"compact_summary": *"[^"]*"/"compact_summary":"x"/\' | "$REAL" "$@"; exit $?; fi',
        "claude",
        ["claude: /compact: a summary that kept the plan brings no note",
         "claude: automatic compaction: its recovery in the first request after, none after",
         "claude: automatic compaction with a fresh state: its recovery in the first request "
         "after, none after",
         "claude: a spawned sub-agent's request holds the sub-agent contract, the parent's "
         "none"]),
    "Codex: no recovery after a compaction, subagent-start prints nothing": (
        'case "$1 $2" in\n'
        '"hook post-compact") cat >/dev/null; exit 0 ;;\n'
        '"hook session-start") in=$(cat); '
        'if printf \'%s\' "$in" | grep -q \'"source": *"compact"\'; then exit 0; fi; '
        'printf \'%s\' "$in" | exec "$REAL" "$@" ;;\n'
        '"hook subagent-start") cat >/dev/null; exit 0 ;;\n'
        'esac',
        "codex",
        ["codex: automatic compaction: one recovery in the first request after it, naming the "
         "state, none after",
         "codex: a spawned sub-agent's request holds the sub-agent contract, the parent's "
         "none"]),
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
