"""OpenCode checks (issue 31): OpenCode has no command hooks, so `capn init` (finding
`~/.config/opencode/`) writes capn's plugin `.opencode/plugins/capn.js`, which runs `capn hook
<event> --host opencode`. Headless `opencode run` against the mock's Chat Completions endpoint
(a provider in the project's `opencode.json`); the project has the eight offer charts. Checks:
the contract is in the system prompt of the first request exactly once, the scripted `bash`
grep gets the offer once appended to its output, an automatic compaction (the model's context
limit is set low and the mock reports `E2E_USAGE` tokens) sends a summary request that holds
capn's instructions (the plugin's `experimental.session.compacting` hook), and every capn run
exited 0 with nothing on stderr.

At start OpenCode npm-installs `@opencode-ai/plugin` into each config folder, and offline that
retries for about 70 s; `npm_config_registry` points it at a stub on 127.0.0.1 that answers 404
at once, so it gives up in a few seconds (capn's plugin needs no package).
"""

import http.server
import json
import os
import subprocess
import threading

from harness import INSTRUCTIONS, expect
import copilot
import offers

HERE = os.path.dirname(os.path.abspath(__file__))
opencode_bin = os.path.join(HERE, "node_modules", ".bin", "opencode")
PROMPT = "E2E_SEARCH now"


class NoPackages(http.server.BaseHTTPRequestHandler):
    """The stub registry: 404 for everything."""

    def do_GET(self):
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def prepare(sb):
    """Before `capn init`: the user's OpenCode folder (so plain init writes the plugin) and the
    project's provider on the mock."""
    os.makedirs(os.path.join(sb.home, ".config", "opencode"), exist_ok=True)
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "e2e mock",
                              "options": {"baseURL": f"http://127.0.0.1:{sb.port}/v1",
                                          "apiKey": "e2e-dummy"},
                              "models": {"e2e-mock": {"name": "e2e mock",
                                                      "limit": {"context": 3000, "output": 100}}}}},
        "model": "mock/e2e-mock", "small_model": "mock/e2e-mock",
    }
    with open(os.path.join(sb.proj, "opencode.json"), "w") as f:
        json.dump(config, f)


def run(sb, res):
    offers.chart(sb)
    registry = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NoPackages)
    threading.Thread(target=registry.serve_forever, daemon=True).start()
    env = sb.env({
        "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "npm_config_registry": f"http://127.0.0.1:{registry.server_address[1]}/",
    })
    try:
        r = subprocess.run([opencode_bin, "run", PROMPT], cwd=sb.proj, env=env,
                           capture_output=True, text=True, timeout=240)
        mark = sb.log.last_n()
        # over the 3,000-token limit of prepare(): OpenCode compacts after the reply
        rc = subprocess.run([opencode_bin, "run", "E2E-OC1 E2E_USAGE=5000"], cwd=sb.proj,
                            env=env, capture_output=True, text=True, timeout=240)
    finally:
        registry.shutdown()
    res.run("opencode: the client ran and exited 0", copilot.check_exit, r.returncode,
            r.stdout[-1500:] + r.stderr[-1500:])
    res.run("opencode: contract arrives once at session start", copilot.check_contract, sb)
    res.run("opencode: a shell grep for a charted answer's words gets the offer once",
            check_offer, sb)
    res.run("opencode: an automatic compaction's summary request holds capn's instructions",
            check_compaction, sb, mark, rc)
    res.run("opencode: no capn run exited non-zero or wrote stderr", check_capn_calls, sb)


def check_compaction(sb, mark, run):
    expect(run.returncode == 0, "opencode run exits 0", run.stdout[-800:] + run.stderr[-800:])
    reqs = [r for r in sb.log.all() if r.n > mark]
    summary = [r for r in reqs if INSTRUCTIONS in r.last_user_text()]
    expect(len(summary) == 1, "one request (the compaction's) ends with capn's instructions",
           [r.brief() for r in reqs])


def check_offer(sb):
    reqs = copilot.chat_requests(sb)
    after_tool = [r for r in reqs if any(role == "tool" for role, _ in copilot.texts(r))]
    expect(after_tool, "a request carries the search's tool result", [r.brief() for r in reqs])
    n = sum(t.count(offers.OFFER_LINE) for _, t in copilot.texts(after_tool[0]))
    expect(n == 1, "the offer reaches the model once, with the search's result",
           f"{n} times in: {[t[-500:] for role, t in copilot.texts(after_tool[0]) if role == 'tool']!r}")


def check_capn_calls(sb):
    calls = sb.capn_calls()
    ours = [c for c in calls if c[0].endswith("--host opencode")]
    expect(any(c[0].startswith("hook post-tool-use") for c in ours),
           "capn's OpenCode plugin ran the post-tool-use hook", calls)
    copilot.expect_clean_runs(calls)
