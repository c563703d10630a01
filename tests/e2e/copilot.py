"""GitHub Copilot CLI checks (issue 31): a project where `capn init` ran works in Copilot CLI.

Copilot CLI runs the hooks in `.claude/settings.json` without their exec-form `args` (it runs the
bare `capn`) and denies a tool call whose preToolUse hook fails; capn 0.3 therefore had every
shell call refused. The client runs headless (`copilot -p`) against the mock's Chat Completions
endpoint (`COPILOT_OFFLINE=true`, a provider on 127.0.0.1), in a sandbox whose project has the
eight offer charts. Checks: the contract reaches the model at session start, the scripted search
runs (no hook denied it) and its result request carries the offer exactly once, and every capn
run exited 0 with nothing on stderr. The client unpacks ~235 MB into its cache on the first run;
that cache is kept in tests/e2e/.cache (git-ignored) so later runs skip it.
"""

import os
import subprocess

from harness import expect
import offers

HERE = os.path.dirname(os.path.abspath(__file__))
copilot_bin = os.path.join(HERE, "node_modules", ".bin", "copilot")
CONTRACT_HEAD = "capn (project memory) is available in this repository."
PROMPT = "E2E_SEARCH now"  # two words: never recalled over, so only the search offers


def client_env(sb):
    return sb.env({
        "COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{sb.port}/v1",
        "COPILOT_PROVIDER_API_KEY": "e2e-dummy", "COPILOT_MODEL": "e2e-mock",
        "COPILOT_ALLOW_ALL": "true", "XDG_CACHE_HOME": os.path.join(HERE, ".cache"),
    })


def texts(request):
    """Every message text of a Chat Completions request, as (role, text)."""
    out = []
    for m in request.body.get("messages") or []:
        c = m.get("content")
        if isinstance(c, list):
            c = " ".join(p.get("text", "") for p in c if isinstance(p, dict))
        out.append((m.get("role"), c or ""))
    return out


def chat_requests(sb):
    return [r for r in sb.log.all() if r.path.split("?")[0].endswith("/chat/completions")]


def run(sb, res):
    offers.chart(sb)
    r = subprocess.run([copilot_bin, "-p", PROMPT, "--allow-all-tools"], cwd=sb.proj,
                       env=client_env(sb), capture_output=True, text=True, timeout=240)
    out = r.stdout + r.stderr
    res.run("copilot: the client ran and exited 0", check_exit, r.returncode, out)
    res.run("copilot: no hook denied a tool call", check_not_denied, sb, out)
    res.run("copilot: contract arrives once at session start", check_contract, sb)
    res.run("copilot: a shell rg for a charted answer's words gets the offer once",
            check_offer, sb)


def check_exit(code, out):
    expect(code == 0, "copilot -p exits 0", out[-2000:])


def check_not_denied(sb, out):
    expect("Denied by preToolUse hook" not in out, "no 'Denied by preToolUse hook'", out[-2000:])
    after_tool = [r for r in chat_requests(sb) if any(role == "tool" for role, _ in texts(r))]
    expect(after_tool, "a request carries the search's tool result",
           [r.brief() for r in chat_requests(sb)])
    result = [t for role, t in texts(after_tool[0]) if role == "tool"]
    expect(result and all("Denied" not in t and "completed with exit code" in t for t in result),
           "the tool result is the search's output (the shell ran it)", result)


def check_contract(sb):
    reqs = chat_requests(sb)
    expect(reqs, "the client sent a Chat Completions request", [r.brief() for r in sb.log.all()])
    first = reqs[0]
    n = sum(t.count(CONTRACT_HEAD) for _, t in texts(first))
    expect(n == 1, "the first request carries the contract exactly once",
           [(role, t[:200]) for role, t in texts(first)])


def check_offer(sb):
    after_tool = [r for r in chat_requests(sb) if any(role == "tool" for role, _ in texts(r))]
    expect(after_tool, "a request carries the search's tool result", "")
    n = sum(t.count(offers.OFFER_LINE) for _, t in texts(after_tool[0]))
    expect(n == 1, "the offer reaches the model once, with the search's result",
           [(role, t[:300]) for role, t in texts(after_tool[0])])


def check_capn_calls(sb):
    """Copilot ran capn's registrations as the bare `capn` (it drops `args`), and every run
    exited 0 with nothing on stderr."""
    calls = sb.capn_calls()
    bare = [c for c in calls if c[0] == ""]
    expect(len(bare) >= 3, "the client ran capn's hooks as the bare `capn` (args dropped)", calls)
    expect_clean_runs(calls)


def expect_clean_runs(calls):
    """Every capn run (as the sandbox's wrapper recorded it) exited 0 with nothing on stderr."""
    bad = [c for c in calls if c[1] != "0" or c[2]]
    expect(not bad, "no capn run exited non-zero or wrote stderr",
           "\n    ".join(f"capn {a!r} -> exit {rc}, stderr {err[:300]!r}" for a, rc, err in bad))
