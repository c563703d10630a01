#!/usr/bin/env python3
"""Times capn's --user hooks in a folder without a store against a bare spawn (docs/speed.md,
"User-level hooks in a folder without a store"). Usage: user_hooks_no_store.py <capn binary> [runs]."""
import subprocess, time, statistics, os, json, sys, tempfile
binp = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp()
home = os.path.join(tmp, "home"); os.makedirs(home)
plain = os.path.join(tmp, "plain"); os.makedirs(plain)
env = dict(os.environ, HOME=home, CAPN_STATE_DIR=os.path.join(home, "state"))
payload = json.dumps({"session_id": "m1", "cwd": plain, "hook_event_name": "UserPromptSubmit", "prompt": "where are payment webhooks handled?"}).encode()
ss = json.dumps({"session_id": "m1", "cwd": plain, "hook_event_name": "SessionStart", "source": "startup"}).encode()
def run(args, stdin):
    t = time.perf_counter()
    subprocess.run([binp] + args, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=plain, env=env)
    return (time.perf_counter() - t) * 1000
cases = {
  "bare spawn (capn --version)": (["--version"], b""),
  "hook with empty stdin (does nothing)": (["hook", "user-prompt-submit"], b""),
  "user-prompt-submit --user, no store": (["hook", "user-prompt-submit", "--user"], payload),
  "session-start --user, no store": (["hook", "session-start", "--user"], ss),
}
res = {k: [] for k in cases}
for i in range(int(sys.argv[2]) if len(sys.argv) > 2 else 200):
    for k, (a, s) in cases.items():
        res[k].append(run(a, s))
for k, (a, s) in cases.items():
    if "--user" in a:
        out = subprocess.run([binp] + a, input=s, capture_output=True, cwd=plain, env=env)
        assert out.returncode == 0 and out.stdout == b"", (k, out)
for k, v in res.items():
    print(f"{k}: median {statistics.median(v):.2f} ms (p10 {sorted(v)[len(v)//10]:.2f}, n={len(v)})")
