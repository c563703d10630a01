#!/usr/bin/env python3
"""Whole-process latency of capn's hooks on every host (issue 31: within today's speed, <= 5 ms
at 1,000 charts), each against Claude Code's run of the same work.

usage: hosts_bench.py --capn target/release/capn [--n 1000] [--runs 200] [--settle 2.5]

Builds the synthetic store of cli_bench.py (N charts, files dated an hour back, derived files
primed with one `ask`), then times round-robin (one run of each case per round, so load changes
hit every case alike), stdin from a file, stdout and stderr to /dev/null, a new session id per
run for the searches (so the once-per-session record never short-cuts the gate):
  - /bin/true (the spawn floor);
  - per host, the search hook on a search holding a chart's words (Claude Code and Codex:
    pre-tool-use; Gemini CLI, Qwen Code, Copilot CLI: post-tool-use; the bare `capn` Copilot
    runs from .claude/settings.json), in the host's payload shape and tool names;
  - per host, the prompt hook with nothing to deliver (Qwen: its empty continuation prompt).
Prints median, p90 wall ms and median CPU ms per case, and each host's median over Claude
Code's for the same work.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cli_bench import build  # noqa: E402  (the same synthetic store)
from hooks_bench import spawn_timed  # noqa: E402  (the same timed spawn)


def cases_for(capn, ws, pattern):
    """(name, argv, payload without session id, work kind) per case."""
    hook = lambda sub, host: [capn, "hook", sub, "--host", host]
    claude = {"hook_event_name": "PreToolUse", "cwd": ws, "tool_name": "Grep",
              "tool_input": {"pattern": pattern, "path": "src"}}
    prompt = {"cwd": ws, "prompt": "go on"}
    return [
        ("claude: pre-tool-use Grep", hook("pre-tool-use", "claude"), claude, "search"),
        ("codex: pre-tool-use shell rg", hook("pre-tool-use", "codex"),
         dict(claude, tool_name="Bash", tool_input={"command": f"rg -n '{pattern}' src"}), "search"),
        ("gemini: post-tool-use grep_search", hook("post-tool-use", "gemini"),
         {"hook_event_name": "AfterTool", "cwd": ws, "tool_name": "grep_search",
          "tool_input": {"pattern": pattern, "dir_path": "src"}}, "search"),
        ("qwen: post-tool-use run_shell_command", hook("post-tool-use", "qwen"),
         {"hook_event_name": "PostToolUse", "cwd": ws, "tool_name": "run_shell_command",
          "tool_input": {"command": f"grep -rnE '{pattern}' src"}}, "search"),
        ("copilot: post-tool-use grep", hook("post-tool-use", "copilot"),
         {"cwd": ws, "toolName": "grep", "toolArgs": {"pattern": pattern, "path": "src"}}, "search"),
        ("copilot via .claude (bare capn): PreToolUse", [capn],
         dict(claude, tool_name="Bash", tool_input={"command": f"grep -rn '{pattern}' src"}), "search"),
        ("claude: user-prompt-submit", hook("user-prompt-submit", "claude"),
         dict(prompt, hook_event_name="UserPromptSubmit"), "prompt"),
        ("gemini: BeforeAgent", hook("user-prompt-submit", "gemini"),
         dict(prompt, hook_event_name="BeforeAgent"), "prompt"),
        ("qwen: empty continuation prompt", hook("user-prompt-submit", "qwen"),
         dict(prompt, hook_event_name="UserPromptSubmit", prompt=""), "prompt"),
        ("copilot: userPromptSubmitted", hook("user-prompt-submit", "copilot"), prompt, "prompt"),
        ("copilot via .claude (bare capn): UserPromptSubmit", [capn],
         dict(prompt, hook_event_name="UserPromptSubmit"), "prompt"),
    ]


def store(capn, tmp, n, seed):
    ws = os.path.join(tmp, "project")
    os.makedirs(os.path.join(ws, ".git"))
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
           "CAPN_STATE_DIR": os.path.join(tmp, "state")}
    subprocess.run([capn, "init"], cwd=ws, env=env, check=True, stdout=subprocess.DEVNULL)
    _, questions = build(ws, n, random.Random(seed))
    old = time.time() - 3600
    for d, _, fs in os.walk(ws):
        if "/.git" not in d:
            for f in fs:
                os.utime(os.path.join(d, f), (old, old))
    subprocess.run([capn, "ask", questions[0]], cwd=ws, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    words = questions[len(questions) // 2].split()[2:-2]
    return ws, env, "|".join(words[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capn", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--settle", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    capn = os.path.abspath(args.capn)
    tmp = tempfile.mkdtemp(prefix="capn-hosts-bench-")
    try:
        ws, env, pattern = store(capn, tmp, args.n, args.seed)
        time.sleep(args.settle)
        cases = [("baseline: /bin/true", ["/bin/true"], {}, "floor")] + cases_for(capn, ws, pattern)
        times = [[] for _ in cases]
        cpus = [[] for _ in cases]
        out = os.path.join(tmp, "stdout")
        for r in range(args.warmup + args.runs):
            for i, (name, argv, payload, kind) in enumerate(cases):
                path = os.path.join(tmp, "payload.json")
                sid = f"bench-{r}-{i}" if kind == "search" else "bench-fixed"
                with open(path, "w") as f:
                    # Copilot CLI's own payloads are camelCase and name no event.
                    key = "sessionId" if "hook_event_name" not in payload else "session_id"
                    json.dump(dict(payload, **{key: sid}), f)
                t, cpu, code = spawn_timed(argv, path, env, out)
                if code != 0:
                    raise SystemExit(f"{name}: exit {code}")
                if r >= args.warmup:
                    times[i].append(t * 1e3)
                    cpus[i].append(cpu * 1e3)
        print(f"capn {capn}\n{args.n} charts, {args.runs} runs per case (after {args.warmup} warm-up rounds)")
        print(f"{'case':52} {'median':>8} {'p90':>8} {'cpu':>8} {'vs claude':>10}")
        med = {c[0]: statistics.median(t) for c, t in zip(cases, times)}
        ref = {"search": med["claude: pre-tool-use Grep"], "prompt": med["claude: user-prompt-submit"]}
        for (name, _, _, kind), ts, cs in zip(cases, times, cpus):
            ts.sort()
            ratio = f"{med[name] / ref[kind]:9.2f}x" if kind in ref else ""
            print(f"{name:52} {med[name]:7.2f}  {ts[int(len(ts) * 0.9) - 1]:7.2f}  "
                  f"{statistics.median(cs):7.2f} {ratio:>10}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
