"""Qwen Code checks (issue 31): the hooks `capn init` registers in `.qwen/settings.json` (found
because `~/.qwen/` exists) work in the real client. Headless `qwen -p` against the mock's Chat
Completions endpoint; the project has the eight offer charts. Checks: the contract reaches the
model at session start, the scripted shell `rg` gets the offer with its result (PostToolUse,
since Qwen's PreToolUse cannot add context), the empty continuation prompt Qwen sends after the
tool result adds nothing, and every capn run exited 0 with nothing on stderr.
"""

import html
import os
import subprocess

from harness import expect
import copilot
import offers

HERE = os.path.dirname(os.path.abspath(__file__))
qwen_bin = os.path.join(HERE, "node_modules", ".bin", "qwen")
PROMPT = "E2E_SEARCH now"  # two words: never recalled over, so only the search offers


def client_env(sb):
    return sb.env({"OPENAI_BASE_URL": f"http://127.0.0.1:{sb.port}/v1",
                   "OPENAI_API_KEY": "e2e-dummy", "OPENAI_MODEL": "e2e-mock"})


def prepare(sb):
    """Before `capn init`: the user's Qwen folder, so plain init registers Qwen Code."""
    os.makedirs(os.path.join(sb.home, ".qwen"), exist_ok=True)


def run(sb, res):
    offers.chart(sb)
    r = subprocess.run([qwen_bin, "-p", PROMPT, "--output-format", "json", "--yolo"],
                       cwd=sb.proj, env=client_env(sb), capture_output=True, text=True,
                       timeout=240)
    res.run("qwen: the client ran and exited 0", copilot.check_exit, r.returncode,
            r.stdout + r.stderr)
    res.run("qwen: contract arrives once at session start", copilot.check_contract, sb)
    res.run("qwen: a shell rg for a charted answer's words gets the offer once", check_offer, sb)
    res.run("qwen: no capn run exited non-zero or wrote stderr", check_capn_calls, sb)


def check_offer(sb):
    reqs = copilot.chat_requests(sb)
    after_tool = [r for r in reqs if any(role == "tool" for role, _ in copilot.texts(r))]
    expect(after_tool, "a request carries the search's tool result", [r.brief() for r in reqs])
    # Qwen Code HTML-escapes what a hook appends to a tool result ("->" arrives as "-&gt;").
    n = sum(html.unescape(t).count(offers.OFFER_LINE) for _, t in copilot.texts(after_tool[-1]))
    expect(n == 1, "the offer reaches the model once, with the search's result",
           f"{n} times in: " + repr([(role, t[-700:]) for role, t in copilot.texts(after_tool[-1])
                                     if role == "tool"]))
    first = reqs[0]
    expect(sum(t.count(offers.OFFER_LINE) for _, t in copilot.texts(first)) == 0,
           "the prompt's own request has no offer", first.brief())


def check_capn_calls(sb):
    calls = sb.capn_calls()
    ours = [c for c in calls if c[0].startswith("hook ") and c[0].endswith("--host qwen")]
    expect(any(c[0].startswith("hook post-tool-use") for c in ours),
           "Qwen Code ran capn's PostToolUse hook", calls)
    copilot.expect_clean_runs(calls)
