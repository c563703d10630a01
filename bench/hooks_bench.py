#!/usr/bin/env python3
"""Whole-process latency of the compaction-survival hooks and the statusline.

Runs the release binary many times per case (stdin from a file, stdout to /dev/null) and
reports the median, p90 and mean wall time per run, spawn included, and the median CPU time
of the child (user + system; far less sensitive to other load on the machine than wall time).
A `/bin/true` baseline shows what the spawn alone costs on this machine. Budgets are checked
against the wall-time median, so run it on a quiet machine.

Budgets (issue 3): each hook <= 2 ms median when it has nothing to deliver (and SubagentStart,
which prints a fixed contract); statusline <= 3 ms from `context_window`; <= 20 ms with the
transcript fallback on a 50 MB transcript. PreCompact runs once per compaction, beside a
summarisation of many seconds: it has no budget of its own, and is reported with and without a
fresh state to carry.

Usage:
    python3 bench/hooks_bench.py [--runs 300] [--bin target/release/capn] [--no-build]

Needs only Python 3.8+ and cargo (to build the release binary unless --no-build). Exits 1
when a budget is missed.
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SID = "6bd73c2b-242e-4e14-b4c8-ca6596546ac5"
SID_STATE = "0c4e2f1a-7d3b-4a5e-9f60-1b2c3d4e5f60"
# A /compact-prep state of about 4 KB (nine headings, six lines each).
STATE_MD = "# Compact Prep State\n" + "".join(
    f"## {h}\n" + "".join(f"- {h.lower()} item {i}: {'detail ' * 8}\n" for i in range(6))
    for h in ("Active Plan", "Current Phase", "TaskList Summary", "Session Decisions",
              "Constraints and Blockers", "Worker Topology", "Editing Files", "Recovery Notes"))


def spawn_timed(argv, stdin_path, env, stdout_path=None):
    """One whole-process run: spawn, feed stdin from a file, stdout to `stdout_path` (or
    /dev/null), stderr to /dev/null, wait. Returns (wall seconds, CPU seconds of the child,
    user + system, exit code)."""
    fd = os.open(stdin_path, os.O_RDONLY)
    devnull = os.open(os.devnull, os.O_WRONLY)
    out = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) if stdout_path else devnull
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, fd, 0),
                (os.POSIX_SPAWN_DUP2, out, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2),
            ],
        )
        _, status, usage = os.wait4(pid, 0)
        t1 = time.perf_counter()
    finally:
        os.close(fd)
        if out != devnull:
            os.close(out)
        os.close(devnull)
    return t1 - t0, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def run_once(argv, stdin_path, env):
    """[`spawn_timed`] that fails the benchmark on a non-zero exit. Returns (wall s, CPU s)."""
    wall, cpu, code = spawn_timed(argv, stdin_path, env)
    if code != 0:
        raise SystemExit(f"{argv} exited {code}")
    return wall, cpu


def measure_all(cases, files, env, runs, warmup=10):
    """Runs the cases round-robin (one run of each per round), so a change in machine load
    during the benchmark affects every case alike. Returns per-case stats in case order."""
    times = [[] for _ in cases]
    cpus = [[] for _ in cases]
    for rnd in range(warmup + runs):
        for i, (_, argv, payload, before, _) in enumerate(cases):
            if before:
                before()
            t, cpu = run_once(argv, files[payload], env)
            if rnd >= warmup:
                times[i].append(t)
                cpus[i].append(cpu)
    out = []
    for ts, cs in zip(times, cpus):
        ts.sort()
        out.append({
            "median_ms": statistics.median(ts) * 1e3,
            "p90_ms": ts[int(len(ts) * 0.9) - 1] * 1e3,
            "mean_ms": statistics.fmean(ts) * 1e3,
            "cpu_median_ms": statistics.median(cs) * 1e3,
        })
    return out


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


def synth_transcript(path, size_mb=50, seed=7, tail_mb=0):
    """A synthetic Claude Code transcript of about `size_mb` MB: user prompts, tool results
    (some large), assistant messages with usage, progress lines, a compaction in the middle,
    and more turns after it. The last assistant usage is near the end, as in a live session;
    `tail_mb` adds that many MB of tool output after it (a huge file read as the last step)."""
    rng = random.Random(seed)
    target = size_mb * 1024 * 1024
    written = 0
    n = 0
    tokens = 20000
    compacted = False
    with open(path, "w") as f:
        while written < target:
            n += 1
            lines = []
            lines.append({"type": "user", "isSidechain": False, "uuid": f"u{n}",
                          "message": {"role": "user", "content": "prompt " + "p" * rng.randint(20, 400)}})
            tool = "r" * rng.choice([200, 2000, 20000, 200000])
            lines.append({"type": "user", "isSidechain": False, "uuid": f"t{n}",
                          "message": {"role": "user", "content": [{"type": "tool_result", "content": tool}]}})
            for _ in range(rng.randint(1, 4)):
                lines.append({"type": "progress", "data": {"type": "hook_progress", "x": "y" * 100}})
            tokens += rng.randint(10, 60)
            usage = {"input_tokens": 3, "cache_creation_input_tokens": rng.randint(0, 3000),
                     "cache_read_input_tokens": tokens, "output_tokens": rng.randint(10, 900)}
            lines.append({"type": "assistant", "isSidechain": False, "uuid": f"a{n}",
                          "message": {"id": f"msg_{n}", "model": "claude-opus-4-6", "role": "assistant",
                                      "content": [{"type": "text", "text": "a" * rng.randint(100, 3000)}],
                                      "stop_reason": "end_turn", "usage": usage}})
            if rng.random() < 0.05:
                lines.append({"type": "assistant", "isSidechain": True, "uuid": f"s{n}",
                              "message": {"usage": {"input_tokens": 999999}}})
            if not compacted and written > target // 2:
                compacted = True
                tokens = 21000
                lines.append({"type": "system", "subtype": "compact_boundary", "isSidechain": False,
                              "compactMetadata": {"trigger": "auto", "preTokens": 170251}})
                lines.append({"type": "user", "isCompactSummary": True, "message": {"content": "summary " * 500}})
            for line in lines:
                s = json.dumps(line, separators=(",", ":")) + "\n"
                f.write(s)
                written += len(s)
        # The session's last lines: a prompt and a tool result after the last assistant message.
        f.write(json.dumps({"type": "user", "message": {"content": "next"}}) + "\n")
        f.write(json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": "z" * 50000}]}}) + "\n")
        for _ in range(tail_mb):
            f.write(json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": "q" * (1 << 20)}]}}) + "\n")
            written += 1 << 20
    return written


def binary_args(doc, runs):
    """The argument parser of a benchmark of the release binary: `--runs` (default `runs`),
    `--bin` (default target/release/capn) and `--no-build`."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "capn"))
    ap.add_argument("--no-build", action="store_true")
    return ap


def release_binary(args):
    """The absolute path of the binary `args.bin` names, built first with `cargo build --release`
    unless `args.no_build`. Exits when cargo is needed and missing, or the path is not
    executable."""
    if not args.no_build:
        if shutil.which("cargo") is None:
            raise SystemExit("cargo is needed to build the release binary (or pass --no-build --bin PATH)")
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    binary = os.path.abspath(args.bin)
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"no executable at {binary}")
    return binary


def main():
    ap = binary_args(__doc__, 300)
    ap.add_argument("--json", action="store_true", help="print the results as JSON too")
    args = ap.parse_args()
    binary = release_binary(args)

    tmp = tempfile.mkdtemp(prefix="capn-bench-")
    try:
        state = os.path.join(tmp, "state")
        project = os.path.join(tmp, "project")
        os.makedirs(os.path.join(project, ".capn", "entries"))
        os.makedirs(os.path.join(project, ".git"))
        for i in range(200):
            with open(os.path.join(project, ".capn", "entries", f"{i:08x}.md"), "w") as f:
                f.write("---\ncapn: 1\n---\n\n# q\n")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "CAPN_STATE_DIR": state}

        base = {"session_id": SID, "transcript_path": f"/home/user/.claude/projects/p/{SID}.jsonl",
                "cwd": project}
        payloads = {
            "ups": dict(base, hook_event_name="UserPromptSubmit", prompt="Write a factorial function"),
            "pre": dict(base, hook_event_name="PreCompact", trigger="manual", custom_instructions=None),
            "post": dict(base, hook_event_name="PostCompact", trigger="manual", compact_summary="s" * 4000),
            "start": dict(base, hook_event_name="SessionStart", source="startup", model="claude-opus-4-6"),
            "sub": dict(base, hook_event_name="SubagentStart", agent_id="a0b1c2", agent_type="Explore"),
            "pre_state": dict(base, session_id=SID_STATE, hook_event_name="PreCompact", trigger="auto",
                              custom_instructions=None),
            "stop": dict(base, hook_event_name="Stop", stop_hook_active=False, last_assistant_message="done"),
            "status_cw": {"session_id": SID, "cwd": project, "model": {"id": "claude-opus-4-6", "display_name": "Opus"},
                          "workspace": {"current_dir": project, "project_dir": project},
                          "context_window": {"context_window_size": 200000, "used_percentage": 42.5,
                                             "current_usage": {"input_tokens": 8500, "output_tokens": 1200,
                                                               "cache_creation_input_tokens": 5000,
                                                               "cache_read_input_tokens": 2000}}},
        }
        transcript = os.path.join(tmp, "transcript.jsonl")
        size = synth_transcript(transcript)
        heavy = os.path.join(tmp, "transcript-heavy-tail.jsonl")
        heavy_size = synth_transcript(heavy, size_mb=50, seed=8, tail_mb=8)
        for key, path in (("status_tr", transcript), ("status_tr_heavy", heavy)):
            payloads[key] = {"session_id": SID, "cwd": project, "transcript_path": path,
                             "model": {"id": "claude-opus-4-6", "display_name": "Opus"},
                             "workspace": {"current_dir": project, "project_dir": project},
                             "context_window": {"current_usage": None, "used_percentage": None}}
        files = {}
        for k, v in payloads.items():
            files[k] = os.path.join(tmp, k + ".json")
            write_json(files[k], v)

        sess = os.path.join(state, "sessions", SID)
        # A session with a /compact-prep state of about 4 KB, which PreCompact carries when it is
        # fresh: its PreCompact record is removed before each run, so every run carries it.
        sess_state = os.path.join(state, "sessions", SID_STATE)
        os.makedirs(sess_state)
        with open(os.path.join(sess_state, "state.md"), "w") as f:
            f.write(STATE_MD)

        def fresh_state():
            try:
                os.remove(os.path.join(sess_state, "precompact.json"))
            except FileNotFoundError:
                pass

        def clear_markers():
            for name in ("compacted.json", "context-warn.json"):
                try:
                    os.remove(os.path.join(sess, name))
                except FileNotFoundError:
                    pass

        # Two groups, each run round-robin: the hooks that write (and so fsync) are kept apart
        # from the read-only paths, whose timings a journal commit in flight would skew.
        read_only = [
            ("baseline: /bin/true (spawn cost)", ["/bin/true"], "ups", None, None),
            ("hook user-prompt-submit, no markers", [binary, "hook", "user-prompt-submit"], "ups", clear_markers, 2.0),
            ("hook user-prompt-submit --host codex, no markers", [binary, "hook", "user-prompt-submit", "--host", "codex"], "ups", clear_markers, 2.0),
            ("hook user-prompt-submit, Stop payload (mismatch)", [binary, "hook", "user-prompt-submit"], "stop", None, 2.0),
            ("hook session-start startup (injects the contract)", [binary, "hook", "session-start"], "start", None, None),
            ("hook subagent-start (the sub-agent contract)", [binary, "hook", "subagent-start"], "sub", None, 2.0),
            ("statusline from context_window (200 charts)", [binary, "statusline"], "status_cw", None, 3.0),
            (f"statusline transcript fallback ({size / 1048576:.0f} MB)", [binary, "statusline"], "status_tr", None, 20.0),
            (f"statusline fallback, {heavy_size / 1048576:.0f} MB, 8 MB tool output last", [binary, "statusline"], "status_tr_heavy", None, 20.0),
        ]
        writing = [
            ("baseline: /bin/true (spawn cost)", ["/bin/true"], "ups", None, None),
            ("hook pre-compact (writes precompact.json, fsync)", [binary, "hook", "pre-compact"], "pre", None, None),
            ("hook pre-compact, fresh 4 KB state carried", [binary, "hook", "pre-compact"], "pre_state", fresh_state, None),
            ("hook post-compact (writes compacted.json, fsync)", [binary, "hook", "post-compact"], "post", None, None),
        ]
        results = []
        failed = False
        print(f"capn {binary}\nruns per case: {args.runs}")
        for title, cases in (("read-only paths", read_only), ("paths that write a marker", writing)):
            print(f"\n{title}\n{'case':58} {'median':>8} {'p90':>8} {'mean':>8} {'cpu':>8} {'budget':>8}")
            stats = measure_all(cases, files, env, args.runs)
            for (name, argv, payload, before, budget), r in zip(cases, stats):
                ok = budget is None or r["median_ms"] <= budget
                failed |= not ok
                b = "" if budget is None else f"{budget:.0f} ms"
                mark = "" if ok else "  OVER BUDGET"
                print(f"{name:58} {r['median_ms']:7.2f}  {r['p90_ms']:7.2f}  {r['mean_ms']:7.2f}  "
                      f"{r['cpu_median_ms']:7.2f}  {b:>7}{mark}")
                results.append(dict(r, case=name, budget_ms=budget))
        if args.json:
            print(json.dumps(results, indent=2))
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
