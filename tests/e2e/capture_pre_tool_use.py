#!/usr/bin/env python3
"""Captures the PreToolUse payloads the pinned clients send, for tests/fixtures/conformance.

Usage: capture_pre_tool_use.py --capn PATH --out DIR [--only claude|codex] [--keep]
                               [--claude-env K=V ...]
Runs, in the suite's sandbox against the mock (harness.py, mock_server.py): `claude -p` once
per tool (E2E_TOOL=Grep, Glob, Bash, Task/Agent) and `codex exec` once with E2E_SEARCH (a shell
`rg`). The sandbox's capn wrapper tees every hook's stdin; each `capn hook pre-tool-use` run's
stdin is written to DIR/<host>/PreToolUse-<tool>-1.json as received, with the sandbox's paths
made neutral (`sanitise`). Prints what it wrote and the tools each client offered.
"""

import argparse
import json
import os
import subprocess
import sys

from harness import Sandbox
import claude
import codex


def pre_tool_use_stdins(sb):
    out = []
    for pid in sorted(os.listdir(sb.hooklog), key=int):
        d = os.path.join(sb.hooklog, pid)
        try:
            if not open(os.path.join(d, "args")).read().startswith("hook pre-tool-use"):
                continue
            out.append(open(os.path.join(d, "stdin"), "rb").read())
        except FileNotFoundError:
            continue
    return out


def sanitise(raw, sb):
    """The payload with the sandbox's paths as PROVENANCE.md's placeholders: the project as
    /home/user/project (Claude Code's transcript folder name, its path with `/` as `-`, as
    -home-user-project) and the pinned HOME as /home/user. Everything else is left as sent."""
    text = raw.decode("utf-8")
    text = text.replace(sb.proj.replace("/", "-"), "-home-user-project")
    text = text.replace(sb.proj, "/home/user/project").replace(sb.home, "/home/user")
    return text.encode("utf-8")


def offered_tools(sb):
    names = set()
    for r in sb.log.all():
        for t in r.body.get("tools") or []:
            if isinstance(t, dict) and t.get("name"):
                names.add(t["name"])
    return sorted(names)


def capture_claude(capn, extra, got, keep):
    sb = Sandbox(capn, keep=keep)
    try:
        sb.start_mock()
        sb.capn_init()
        claude.seed_profile(sb)
        for tool in ("Grep", "Glob", "Bash", "Task", "Agent"):
            before = len(pre_tool_use_stdins(sb))
            subprocess.run([claude.claude_bin(), "-p", f"E2E-PC E2E_TOOL={tool}", "--output-format",
                            "stream-json", "--verbose"], cwd=sb.proj,
                           env=claude.client_env(sb, extra), capture_output=True, text=True,
                           timeout=claude.TURN, stdin=subprocess.DEVNULL)
            new = pre_tool_use_stdins(sb)[before:]
            if new:
                got[("claude", tool)] = sanitise(new[0], sb)
        print("claude offered:", offered_tools(sb))
    finally:
        sb.close()
        if keep:
            print("kept:", sb.root)


def capture_codex(capn, got, keep):
    sb = Sandbox(capn, keep=keep)
    try:
        sb.start_mock()
        sb.capn_init()
        codex.write_config(sb)
        subprocess.run([codex.codex_bin(), "exec", "--dangerously-bypass-hook-trust",
                        "E2E-PC E2E_SEARCH"], cwd=sb.proj, env=codex.codex_env(sb),
                       capture_output=True, text=True, timeout=codex.TURN, stdin=subprocess.DEVNULL)
        new = pre_tool_use_stdins(sb)
        if new:
            got[("codex", "shell")] = sanitise(new[0], sb)
        print("codex offered:", offered_tools(sb))
    finally:
        sb.close()
        if keep:
            print("kept:", sb.root)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capn", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--claude-env", action="append", default=[], metavar="K=V",
                    help="extra environment for claude (EMBEDDED_SEARCH_TOOLS=0 brings back "
                         "the Grep and Glob tools 2.1.332 leaves out)")
    ap.add_argument("--only", choices=["claude", "codex"])
    ap.add_argument("--keep", action="store_true", help="keep the sandboxes (printed)")
    args = ap.parse_args()
    got = {}
    if args.only in (None, "claude"):
        capture_claude(args.capn, dict(kv.split("=", 1) for kv in args.claude_env), got, args.keep)
    if args.only in (None, "codex"):
        capture_codex(args.capn, got, args.keep)
    for (host, tool), raw in got.items():
        d = os.path.join(args.out, host)
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, f"PreToolUse-{tool}-1.json")
        with open(p, "wb") as f:
            f.write(raw)
        print("wrote", p, json.loads(raw).get("tool_name"))
    return 0 if got else 1


if __name__ == "__main__":
    sys.exit(main())
