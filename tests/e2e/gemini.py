"""Gemini CLI checks (issue 31): the hooks `capn init` registers in `.gemini/settings.json`
(found because `~/.gemini/` exists) work in the real client. Headless `gemini -p` against the
mock's Gemini API; the project has the eight offer charts. Checks: the contract reaches the model
at session start, the scripted `grep_search` gets the offer with its result (AfterTool, since
BeforeTool cannot add context), and every capn run exited 0 with nothing on stderr.
"""

import html
import json
import os
import subprocess

from harness import expect
import copilot
import offers

HERE = os.path.dirname(os.path.abspath(__file__))
gemini_bin = os.path.join(HERE, "node_modules", ".bin", "gemini")
PROMPT = "E2E_SEARCH now"  # two words: never recalled over, so only the search offers


def client_env(sb):
    return sb.env({"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{sb.port}",
                   "GEMINI_API_KEY": "e2e-dummy", "GEMINI_CLI_TRUST_WORKSPACE": "true"})


def prepare(sb):
    """Before `capn init`: the user's Gemini settings (API-key auth, which headless mode needs),
    so plain init also registers Gemini CLI."""
    d = os.path.join(sb.home, ".gemini")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "settings.json"), "w") as f:
        json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}}}, f)


def stream_requests(sb):
    return [r for r in sb.log.all() if ":streamGenerateContent" in r.path]


def texts(request):
    out = []
    for c in request.body.get("contents") or []:
        for p in c.get("parts") or []:
            if "text" in p:
                out.append(p["text"])
            if "functionResponse" in p:
                resp = p["functionResponse"].get("response") or {}
                out.append(resp.get("output") if isinstance(resp.get("output"), str)
                           else json.dumps(resp))
    return out


def run(sb, res):
    offers.chart(sb)
    r = subprocess.run([gemini_bin, "-p", PROMPT, "--output-format", "json"], cwd=sb.proj,
                       env=client_env(sb), capture_output=True, text=True, timeout=240)
    res.run("gemini: the client ran and exited 0", copilot.check_exit, r.returncode,
            r.stdout[-1500:] + r.stderr[-1500:])
    res.run("gemini: contract arrives once at session start", check_contract, sb)
    res.run("gemini: a grep_search for a charted answer's words gets the offer once",
            check_offer, sb)
    res.run("gemini: no capn run exited non-zero or wrote stderr", check_capn_calls, sb)


def check_contract(sb):
    reqs = stream_requests(sb)
    expect(reqs, "the client sent a streamGenerateContent request", [r.brief() for r in sb.log.all()])
    n = sum(t.count(copilot.CONTRACT_HEAD) for t in texts(reqs[0]))
    expect(n == 1, "the first request carries the contract exactly once",
           [t[:200] for t in texts(reqs[0])])


def check_offer(sb):
    reqs = stream_requests(sb)
    after = [r for r in reqs if any("functionResponse" in p
                                    for c in r.body.get("contents") or []
                                    for p in c.get("parts") or [])]
    expect(after, "a request carries the search's function response", [r.brief() for r in reqs])
    outs = [t for t in texts(after[0]) if "<hook_context>capn: a charted answer" in t]
    n = sum(html.unescape(t).count(offers.OFFER_LINE) for t in texts(after[0]))
    expect(n == 1, "the offer reaches the model once, with the search's result",
           f"{n} times in: {[t[-600:] for t in outs]!r}")


def check_capn_calls(sb):
    calls = sb.capn_calls()
    ours = [c for c in calls if c[0].endswith("--host gemini")]
    expect(any(c[0].startswith("hook post-tool-use") for c in ours),
           "Gemini CLI ran capn's AfterTool hook", calls)
    copilot.expect_clean_runs(calls)
