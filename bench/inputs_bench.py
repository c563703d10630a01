#!/usr/bin/env python3
"""Hook inputs at and far beyond their caps: the speed half of tests/cli/hook_budget.rs.

The tests check what holds on any machine (every run exits 0, memory stays bounded, 10x the
input costs at most 15x the CPU time); this benchmark measures how fast the release binary is on
the same attacks and checks the budget docs/injection.md states: a hook returns within 50 ms
plus 25 ms per MiB of payload (median wall time, spawn included).

Cases, each at several sizes, against a 3-chart store (the tests' store):
  prompt  UserPromptSubmit with a huge prompt (cut to 8 KiB)
  brace   PreToolUse, `find -name 'x.{a}x.{a}...'` (a brace glob read in one pass)
  cwd     UserPromptSubmit with a `cwd` of `/a/a/...` (longer than 4,096 bytes: absent)
  array   PreToolUse, `tool_input` a huge JSON array (bounded while parsed)
  keys    PreToolUse, `tool_input` an object of many keys

Reports median wall and CPU time (user + system of the child, far less sensitive to other load
than wall time), and the CPU ratio of the largest size to 1/10 of it (linear work: at most 15).

Usage:
    python3 bench/inputs_bench.py [--runs 7] [--bin target/release/capn] [--no-build]

Needs only Python 3.8+ and cargo (to build the release binary unless --no-build). Exits 1 when
a budget or the ratio is missed.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hooks_bench import binary_args, release_binary, spawn_timed  # noqa: E402  (the same build and timed spawn)

MIB = 1024 * 1024
CHARTS = [
    ("Where are payment webhooks from Stripe handled?", "src/api/stripe-webhooks.ts"),
    ("How does API rate limiting work?", "src/middleware/rl.ts"),
    ("How are team members invited?", "src/teams/invite.ts"),
]


def payload(kind, n, root):
    """The payload of about `n` bytes for `kind`, as (hook subcommand, bytes)."""
    base = {"session_id": "bench", "cwd": root}
    if kind == "prompt":
        v = dict(base, hook_event_name="UserPromptSubmit",
                 prompt="the stripe webhook handler drops retries " + "word " * (n // 5))
        return "user-prompt-submit", json.dumps(v).encode()
    if kind == "brace":
        v = dict(base, hook_event_name="PreToolUse", tool_name="Bash",
                 tool_input={"command": "find . -name '" + "x.{a}" * (n // 5) + "'"})
        return "pre-tool-use", json.dumps(v).encode()
    if kind == "cwd":
        v = dict(base, hook_event_name="UserPromptSubmit", cwd=root + "/a" * (n // 2),
                 prompt="the stripe webhook handler drops retries")
        return "user-prompt-submit", json.dumps(v).encode()
    head = '{"session_id":"bench","hook_event_name":"PreToolUse","cwd":%s,"tool_name":"Grep",' % json.dumps(root)
    if kind == "array":
        body = "[" + "0," * (n // 2) + "0]"
    else:
        body = "{" + ",".join('"k%07d":0' % i for i in range(n // 12)) + "}"
    return "pre-tool-use", (head + '"tool_input":' + body + ',"prompt":"the stripe webhook handler"}').encode()


def main():
    args = binary_args(__doc__, 7).parse_args()
    binary = release_binary(args)

    tmp = tempfile.mkdtemp(prefix="capn-inputs-bench-")
    try:
        root = os.path.join(tmp, "project")
        os.makedirs(root)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
               "XDG_CONFIG_HOME": os.path.join(tmp, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
               "CAPN_STATE_DIR": os.path.join(tmp, "state")}
        subprocess.run(["git", "init", "-q"], cwd=root, env=env, check=True)
        subprocess.run([binary, "init"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
        for q, f in CHARTS:
            os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
            with open(os.path.join(root, f), "w") as out:
                out.write(f"// {q}\n")
            subprocess.run([binary, "chart", q, "--files", f], cwd=root, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        os.chdir(root)
        cases = [("prompt", [8 * 1024, 1_350_000, 13_500_000]), ("brace", [8 * 1024, 40_000, 400_000]),
                 ("cwd", [4 * 1024, 20_000, 200_000]), ("array", [1_000_000, 10_000_000]),
                 ("keys", [1_000_000, 10_000_000])]
        failed = False
        print(f"capn {binary}\nruns per case: {args.runs}\n")
        print(f"{'case':8} {'bytes':>11} {'wall med':>9} {'cpu med':>9} {'budget':>9}")
        for kind, sizes in cases:
            cpu_at = {}
            for n in sizes:
                sub, body = payload(kind, n, root)
                path = os.path.join(tmp, "payload.json")
                with open(path, "wb") as f:
                    f.write(body)
                walls, cpus = [], []
                for _ in range(args.runs):
                    wall, cpu, code = spawn_timed([binary, "hook", sub], path, env)
                    if code != 0:
                        raise SystemExit(f"{kind} {n}: exit {code}")
                    walls.append(wall)
                    cpus.append(cpu)
                wall, cpu = statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3
                budget = 50 + 25 * len(body) / MIB
                over = wall > budget
                failed |= over
                cpu_at[n] = cpu
                print(f"{kind:8} {len(body):>11} {wall:>7.1f}ms {cpu:>7.1f}ms {budget:>7.0f}ms{'  OVER BUDGET' if over else ''}")
            large = max(sizes)
            small = large // 10
            if small in cpu_at and cpu_at[small] > 0:
                ratio = cpu_at[large] / cpu_at[small]
                failed |= ratio > 15
                print(f"{kind:8} CPU at {large} / at {small}: {ratio:.1f}x (at most 15){'  OVER' if ratio > 15 else ''}")
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
