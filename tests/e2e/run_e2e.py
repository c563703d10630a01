#!/usr/bin/env python3
"""Runs the end-to-end suite against the pinned clients in node_modules (see run.sh).

Usage: run_e2e.py --capn PATH [--keep] [--only claude|codex|copilot|gemini|qwen|opencode]
Prints one line per check (PASS / FAIL with what it saw / N/A with why) and closes with
"N passed, N failed". Exit 1 when any check failed.
"""

import argparse
import signal
import sys

from harness import Results, Sandbox, expect
import claude
import codex
import copilot
import gemini
import opencode
import qwen
import features
import learn
import nudge
import offers
import subagents


def check_capn_calls(sb, host):
    calls = sb.capn_calls()
    hooks = [c for c in calls if c[0].startswith("hook ") or c[0].startswith("statusline")]
    expect(hooks, f"{host}: the client ran capn hooks", calls)
    # A miss of `capn ask` exits 1 and explains itself on stderr: that is its contract.
    bad = [c for c in calls if (c[1] != "0" or c[2]) and not (c[0].startswith("ask ") and c[1] == "1")]
    expect(not bad, f"{host}: no capn run exited non-zero or wrote stderr (but an ask's miss)",
           "\n    ".join(f"capn {a} -> exit {rc}, stderr {err[:300]!r}" for a, rc, err in bad))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the sandboxes (printed)")
    ap.add_argument("--only", choices=["claude", "codex", "copilot", "gemini", "qwen", "opencode"])
    args = ap.parse_args()
    # run.sh's overall timeout sends SIGTERM: leave through the finally blocks, which stop the
    # clients' tmux servers and the mock
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    res = Results()
    feats = features.detect(args.capn)
    print("features: " + ", ".join(f"{k}={v}" for k, v in feats.items()), flush=True)
    if args.only in (None, "claude"):
        sb = Sandbox(args.capn, args.keep)
        try:
            sb.start_mock()
            sb.capn_init()
            claude.run_interactive(sb, res, feats)
            claude.run_print_mode(sb, res)
            offers.run_claude(sb, res, claude.claude_bin, claude.client_env, claude.TURN)
            nudge.run_claude(sb, res, claude.claude_bin, claude.client_env, claude.TURN)
            learn.run_claude(sb, res, claude.claude_bin, claude.client_env, claude.TURN)
            subagents.run_claude(sb, res, claude.claude_bin, claude.client_env, claude.TURN)
            res.run("claude: no capn run exited non-zero or wrote stderr", check_capn_calls, sb,
                    "claude")
            features.run_claude_extras(sb, res, feats)
        finally:
            sb.close()
            if args.keep:
                print(f"kept: {sb.root}")
    if args.only in (None, "codex"):
        sb = Sandbox(args.capn, args.keep)
        try:
            sb.start_mock()
            sb.capn_init()
            codex.run(sb, res, feats)
            offers.run_codex(sb, res, codex.codex_bin, codex.codex_env, codex.TURN)
            nudge.run_codex(sb, res, codex.codex_bin, codex.codex_env, codex.TURN)
            learn.run_codex(sb, res, codex.codex_bin, codex.codex_env, codex.TURN)
            subagents.run_codex(sb, res, codex.codex_bin, codex.codex_env, codex.TURN)
            res.run("codex: no capn run exited non-zero or wrote stderr", check_capn_calls, sb,
                    "codex")
        finally:
            sb.close()
            if args.keep:
                print(f"kept: {sb.root}")
    if args.only in (None, "copilot"):
        sb = Sandbox(args.capn, args.keep)
        try:
            sb.start_mock()
            sb.capn_init()
            copilot.run(sb, res)
            res.run("copilot: no capn run exited non-zero or wrote stderr",
                    copilot.check_capn_calls, sb)
        finally:
            sb.close()
            if args.keep:
                print(f"kept: {sb.root}")
    for name, module in (("gemini", gemini), ("qwen", qwen), ("opencode", opencode)):
        if args.only not in (None, name):
            continue
        sb = Sandbox(args.capn, args.keep)
        try:
            sb.start_mock()
            module.prepare(sb)
            sb.capn_init()
            module.run(sb, res)
        finally:
            sb.close()
            if args.keep:
                print(f"kept: {sb.root}")
    print(f"{res.passed()} passed, {res.failed()} failed")
    return 1 if res.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
