#!/usr/bin/env python3
"""Mock model server for the end-to-end suite ("End-to-end tests in the real clients" in
README.md).

Serves, on 127.0.0.1 only:
- Anthropic Messages: POST /v1/messages (streaming SSE when the body has "stream": true,
  JSON otherwise) and POST /v1/messages/count_tokens;
- OpenAI Responses (for Codex): POST /v1/responses (SSE) and POST /v1/responses/compact;
- OpenAI Chat Completions (for GitHub Copilot CLI and Qwen Code): POST /v1/chat/completions
  (SSE when the body has "stream": true, JSON otherwise) and GET /v1/models;
- Gemini API (for Gemini CLI): POST /v1beta/models/<m>:streamGenerateContent (SSE),
  :generateContent (JSON: the model router's and the summaries' calls) and :countTokens;
- anything else: 404 with a JSON error (and still logged).

Every request is appended to the log file as one JSON line
{"n", "t", "method", "path", "headers", "body"} before it is answered, so a check can wait on it.

Bounded: it stops by itself after --max-requests requests or --lifetime seconds, whichever comes
first, and when its parent process (the suite) is gone.

The replies are scripted by directives in the *last* user message of a request (later requests
carry the whole history, so only the last message counts and a directive acts once):
- `E2E_USAGE=<n>`: report n input tokens in the usage (drives the status line); default 4000.
- `E2E_TOO_LONG=<tag>`: the first request with this tag gets Anthropic's 400
  "prompt is too long" (the client then auto-compacts); later ones are answered normally.
- `E2E_SAVE_STATE`: (or the expanded /compact-prep skill) answer with a Bash tool call that saves
  a state file with `capn state save --session <id>`, the id taken from the skill text the client
  expanded (`capn state path --session "<id>"`).
- `E2E_SEARCH`: answer with a search tool call for SEARCH_PATTERN: Claude Code's Grep tool
  when the request offers one, else its Bash tool running `rg` (2.1.332 offers no Grep); for
  Codex, its shell tool (whichever of `shell_command`, `shell`, `exec_command` the request
  offers) running `rg`. Codex's next request, which carries the call's output, gets text.
- `E2E_TOOL=<name>`: answer with a call to Claude Code's tool <name> (Grep, Glob, Bash, Task or
  Agent) with the input in TOOL_INPUTS, when the request offers that tool (capture_pre_tool_use.py
  records the PreToolUse payloads these calls produce).
- `E2E_EXPLORE`: a turn that explores (the Stop nudge, docs/nudge.md): the successive requests
  of the turn are answered with the calls of EXPLORE_STEPS, one a request (searches with `rg` and
  `grep`; reads with Claude Code's Read tool when offered and the working directory is known,
  else `sed -n`), then with text.
- capn's nudge (NUDGE_HEAD) in the last user or developer text: a shell call running
  `capn chart` with NUDGE_QUESTION and the files of the nudge's template, then text.
- `E2E_CHEAP`: one `ls src` call, then text.
- `E2E_LEARN`: a turn that learns from use (docs/recall.md, "Learning from use"): the calls of
  LEARN_STEPS (`capn ask` in other words, a miss that shows the chart as a candidate, then a read
  of that chart's file), then text.
These four count the calls made since the message that carries them (stateless: the history
says how far the turn got); Claude Code gets Bash and Read calls, Codex its shell tool.
- `E2E_DROP_PLAN`: the next compaction's summary leaves out the saved plan (below).
A compaction's summary request (the client's compact prompt as the last user message) gets a
fixed summary; when the request carries capn's quoted state (KEPT_PLAN_LINE, from capn's
PreCompact instructions) the summary keeps the plan, phase and decisions, as a model that
follows the instructions would, unless `E2E_DROP_PLAN` came before it.
"""

import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_USAGE = 4000
# The compact prompts: Claude Code "Your task is to create a detailed summary of the conversation
# so far"; Codex "CONTEXT CHECKPOINT COMPACTION ... handoff summary".
SUMMARY_ASK = re.compile(r"create a detailed summary|CONTEXT CHECKPOINT COMPACTION|handoff summary", re.I)
SUMMARY_TEXT = "<analysis>e2e</analysis>\n<summary>E2E-SUMMARY: the user sent test prompts.</summary>"
# capn's quoted Active Plan line of state.md in a summary request (the PreCompact instructions
# carry each state line as a JSON string), and the summary that keeps what the state holds.
KEPT_PLAN_LINE = '"E2E-PLAN: none (end-to-end test)"'
KEPT_SUMMARY = ("\nActive Plan: E2E-PLAN: none (end-to-end test)\nCurrent Phase: testing\n"
                "Session Decisions: E2E-DECISION: adopted the mock; rejected a live model (offline)")
# The /compact-prep state the mocked model saves (the Codex driver saves the same file).
# The search E2E_SEARCH makes the model run: words of a chart the offer check charts.
SEARCH_PATTERN = "stripe.*webhook|handleStripeWebhook"
# The inputs E2E_TOOL=<name> calls each tool with (Task and Agent are one tool's two names).
TOOL_INPUTS = {
    "Grep": {"pattern": SEARCH_PATTERN, "path": "src"},
    "Glob": {"pattern": "src/**/*webhook*.ts"},
    "Bash": {"command": f"rg -n '{SEARCH_PATTERN}' src", "description": "Search for the webhook handler"},
    "Task": {"description": "Find the webhook handler", "subagent_type": "general-purpose",
             "prompt": "Find where Stripe payment webhooks are handled in src/."},
}
TOOL_INPUTS["Agent"] = TOOL_INPUTS["Task"]
# The task a spawned sub-agent gets (Claude Code's Agent/Task prompt; Codex's spawn_agent
# message), which identifies the sub-agent's own requests.
SUB_TASK = TOOL_INPUTS["Task"]["prompt"]
STATE_MD = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "state.md")).read()

# The Stop nudge's script (docs/nudge.md). The exploring turn: 2 searches and 3 files read,
# a cost of 5 by capn's thresholds (expensive from 4, with a search).
NUDGE_FILES = {
    "src/shipping/rates.ts": "export function shippingRate(zone: string, kg: number) {\n"
                             "  return zoneFor(zone).base + kg * 0.4;\n}\n",
    "src/shipping/zones.ts": "export function zoneFor(code: string) {\n"
                             "  return { base: code.startsWith('EU') ? 4 : 9 };\n}\n",
    "src/shipping/carriers.ts": "export const carriers = ['post', 'courier'];\n",
}
EXPLORE_STEPS = [
    ("search", "rg -n 'shippingRate' src"),
    ("search", "grep -rn 'zoneFor' src/shipping"),
    ("read", "src/shipping/rates.ts"),
    ("read", "src/shipping/zones.ts"),
    ("read", "src/shipping/carriers.ts"),
]
CHEAP_STEPS = [("run", "ls src")]
# E2E_LEARN: a chart (set up by learn.py) asked in other words, then its file read.
LEARN_CHART = ("Where are password reset emails sent to users?", "src/auth/reset-mail.ts")
LEARN_ASKED = "Where are the password reset emails still sent to users?"
LEARN_STEPS = [("run", f'capn ask "{LEARN_ASKED}"'), ("read", LEARN_CHART[1])]
# The opening of capn's Stop reason (src/hook/stop.rs, `reason`) and its template line.
NUDGE_HEAD = "capn: this turn explored ("
NUDGE_TEMPLATE = re.compile(r'capn chart "(?:[^"\\]|\\.)*" --files "([^"]*)"')
NUDGE_QUESTION = "Where are shipping rates computed?"


def texts(value):
    """Every string inside a decoded JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)


def last_user_text(body):
    """The text of the last user message (Anthropic messages or Responses input)."""
    items = body.get("messages")
    if items is None:
        items = body.get("input")
    if isinstance(items, str):
        return items
    if not isinstance(items, list):
        return ""
    for item in reversed(items):
        if isinstance(item, dict) and item.get("role") == "user":
            return "\n".join(texts(item.get("content")))
    return ""


def is_summary_request(body, last):
    """A compaction's summarisation request (Claude Code's or Codex's compact prompt)."""
    return bool(SUMMARY_ASK.search(last))


def _message_texts(content, anthropic):
    """The text a user or developer message carries itself (not the tool results it returns)."""
    if isinstance(content, str):
        return content
    out = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") in ("text", "input_text") and isinstance(block.get("text"), str):
            out.append(block["text"])
    return "\n".join(out)


def scripted_turn(body):
    """(script, calls since its message, that message's text) for the nudge directives, or
    None. The message is the last user (Codex: user or developer) message whose own text holds
    NUDGE_HEAD, `E2E_EXPLORE`, `E2E_CHEAP` or `E2E_LEARN` (the nudge first: it quotes the
    user's request);
    the calls are the tool calls after it (Anthropic `tool_use` blocks, Responses `*_call`
    items)."""
    anthropic = isinstance(body.get("messages"), list)
    items = body["messages"] if anthropic else body.get("input")
    if not isinstance(items, list):
        return None
    calls = 0
    for item in reversed(items):
        if not isinstance(item, dict):
            continue
        if anthropic and item.get("role") == "assistant" and isinstance(item.get("content"), list):
            calls += sum(1 for b in item["content"]
                         if isinstance(b, dict) and b.get("type") == "tool_use")
        elif not anthropic and str(item.get("type", "")).endswith("_call"):
            calls += 1
        if item.get("role") not in (("user",) if anthropic else ("user", "developer")):
            continue
        text = _message_texts(item.get("content"), anthropic)
        if NUDGE_HEAD in text:
            return "nudge", calls, text
        if "E2E_EXPLORE" in text:
            return "explore", calls, text
        if "E2E_CHEAP" in text:
            return "cheap", calls, text
        if "E2E_LEARN" in text:
            return "learn", calls, text
    return None


def working_dir(body):
    """The working directory Claude Code names in the request ("Primary working directory:
    /...", in 2.1.332 a block of the first user message), or None."""
    for text in texts([body.get("system"), body.get("messages")]):
        m = re.search(r"[Ww]orking directory: (/[^\s<]+)", text)
        if m:
            return m.group(1)
    return None


def nudge_step(body):
    """The next step of a scripted nudge turn: ("run", command), ("read", path), ("search",
    command), ("text", text) or None when the request is not in one."""
    turn = scripted_turn(body)
    if not turn:
        return None
    script, calls, text = turn
    if script == "nudge":
        m = NUDGE_TEMPLATE.search(text)
        files = m.group(1) if m else ",".join(NUDGE_FILES)
        steps = [("run", f'capn chart "{NUDGE_QUESTION}" --files "{files}"')]
    else:
        steps = {"explore": EXPLORE_STEPS, "cheap": CHEAP_STEPS, "learn": LEARN_STEPS}[script]
    if calls < len(steps):
        return steps[calls]
    tags = re.findall(r"E2E-P\w+", text)
    return "text", "ok " + (tags[-1] if tags else script)


def anthropic_step(body, step):
    """A nudge script step as Claude Code's tool call: Read for a read when the request offers
    it and names the working directory, else Bash."""
    kind, arg = step
    if kind == "text":
        return "text", arg
    names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    cwd = working_dir(body)
    if kind == "read" and "Read" in names and cwd:
        return "tool", ("Read", {"file_path": os.path.join(cwd, arg)})
    cmd = f"sed -n '1,80p' {arg}" if kind == "read" else arg
    return "tool", ("Bash", {"command": cmd, "description": "e2e nudge script"})


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.count = 0
        self.too_long_done = set()
        self.drop_seen = False  # E2E_DROP_PLAN was seen (it acts once)
        self.drop_next = False  # the next summary leaves out the plan
        self.ids = 0
        self.log = open(args.log, "a", encoding="utf-8")
        self.done = threading.Event()

    def next_id(self, prefix):
        with self.lock:
            self.ids += 1
            return f"{prefix}_{self.ids:06d}"


def sse(handler, events):
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.send_header("connection", "close")
    handler.end_headers()
    for name, data in events:
        chunk = f"event: {name}\ndata: {json.dumps(data)}\n\n"
        handler.wfile.write(chunk.encode())
        handler.wfile.flush()
    handler.close_connection = True


def send_json(handler, status, obj):
    data = json.dumps(obj).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.send_header("connection", "close")
    handler.end_headers()
    handler.wfile.write(data)
    handler.close_connection = True


def summary_text(state, body):
    """The summary for a compaction's request (module docs: kept or dropped plan)."""
    with state.lock:
        drop, state.drop_next = state.drop_next, False
    keep = not drop and KEPT_PLAN_LINE in "\n".join(texts(body))
    return SUMMARY_TEXT + (KEPT_SUMMARY if keep else "")


def note_directives(state, last):
    """Records E2E_DROP_PLAN (once) for the next summary."""
    if "E2E_DROP_PLAN" in last:
        with state.lock:
            if not state.drop_seen:
                state.drop_seen = state.drop_next = True


def anthropic_plan(state, body):
    """What to answer: (kind, payload). kind is 'error', 'text' or 'tool'."""
    last = last_user_text(body)
    note_directives(state, last)
    m = re.search(r"E2E_TOO_LONG=(\w+)", last)
    if m and not is_summary_request(body, last):
        with state.lock:
            first = m.group(1) not in state.too_long_done
            state.too_long_done.add(m.group(1))
        if first:
            return "error", None
    if is_summary_request(body, last):
        return "text", summary_text(state, body)
    step = nudge_step(body) if body.get("tools") else None
    if step:
        return anthropic_step(body, step)
    tool = re.search(r"E2E_TOOL=(\w+)", last)
    if tool and body.get("tools"):
        names = {t.get("name") for t in body["tools"] if isinstance(t, dict)}
        if tool.group(1) in names and tool.group(1) in TOOL_INPUTS:
            return "tool", (tool.group(1), TOOL_INPUTS[tool.group(1)])
        return "text", "no such tool offered: " + ",".join(sorted(n for n in names if n))
    if "E2E_SEARCH" in last and body.get("tools"):
        # Claude Code 2.1.332 offers no Grep tool (its searches go through Bash); an older or
        # newer client that offers one gets the Grep call.
        names = {t.get("name") for t in body["tools"] if isinstance(t, dict)}
        if "Grep" in names:
            return "tool", ("Grep", {"pattern": SEARCH_PATTERN, "path": "src"})
        return "tool", ("Bash", {"command": f"rg -n '{SEARCH_PATTERN}' src",
                                 "description": "Search for the webhook handler"})
    sid = re.search(r'capn state path --session "?([A-Za-z0-9][A-Za-z0-9._-]*)"?', last)
    if sid and ("E2E_SAVE_STATE" in last or "# compact-prep" in last) and body.get("tools"):
        cmd = f"capn state save --session {sid.group(1)} <<'CAPN_STATE'\n{STATE_MD}CAPN_STATE"
        return "tool", ("Bash", {"command": cmd, "description": "Save the compact-prep state"})
    tags = re.findall(r"E2E-P\w+", last)
    return "text", "ok " + (tags[-1] if tags else "")


def usage_of(body):
    m = re.search(r"E2E_USAGE=(\d+)", last_user_text(body))
    return int(m.group(1)) if m else DEFAULT_USAGE


def anthropic_messages(handler, state, body):
    kind, payload = anthropic_plan(state, body)
    if kind == "error":
        send_json(handler, 400, {"type": "error", "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum"}})
        return
    model = body.get("model", "claude-sonnet-4-5")
    usage = {"input_tokens": usage_of(body), "output_tokens": 12,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    msg_id = state.next_id("msg")
    if kind == "tool":
        name, payload = payload
        block = {"type": "tool_use", "id": state.next_id("toolu"), "name": name, "input": payload}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": payload}
        stop = "end_turn"
    if not body.get("stream"):
        send_json(handler, 200, {"id": msg_id, "type": "message", "role": "assistant",
                                 "model": model, "content": [block], "stop_reason": stop,
                                 "stop_sequence": None, "usage": usage})
        return
    start_block = dict(block, input={}) if kind == "tool" else dict(block, text="")
    delta = ({"type": "input_json_delta", "partial_json": json.dumps(payload)} if kind == "tool"
             else {"type": "text_delta", "text": payload})
    sse(handler, [
        ("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=1)}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": start_block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 12}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def shell_call(state, body, script=None):
    """A function_call item running `script` (default: `rg SEARCH_PATTERN src`) through the
    shell tool the request offers, or None when it offers none this mock knows."""
    names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    script = script or f"rg -n '{SEARCH_PATTERN}' src"
    for name, args in (("shell_command", {"command": script}),
                       ("shell", {"command": ["bash", "-lc", script]}),
                       ("exec_command", {"cmd": script})):
        if name in names:
            return {"type": "function_call", "id": state.next_id("fc"),
                    "call_id": state.next_id("call"), "name": name,
                    "arguments": json.dumps(args), "status": "completed"}
    return None


def calls_since_user(body):
    """The tool-call items after the last user message, oldest first."""
    items = body.get("input")
    if not isinstance(items, list):
        return []
    since = []
    for item in reversed(items):
        if isinstance(item, dict) and item.get("role") == "user":
            break
        since.append(item)
    return [i for i in reversed(since)
            if isinstance(i, dict) and str(i.get("type", "")).endswith("_call")]


def spawn_step(state, body):
    """`E2E_SPAWN` (Codex): a spawn_agent call giving SUB_TASK to a sub-agent, then a
    wait_agent call on the id its output names, then text (None)."""
    calls = calls_since_user(body)
    if not calls:
        return {"type": "function_call", "id": state.next_id("fc"), "call_id": state.next_id("call"),
                "name": "spawn_agent", "namespace": "multi_agent_v1",
                "arguments": json.dumps({"message": SUB_TASK}), "status": "completed"}
    if len(calls) == 1:
        ids = []
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                try:
                    ids.append(json.loads(item.get("output") or "")["agent_id"])
                except (ValueError, TypeError, KeyError):
                    pass
        if ids:
            return {"type": "function_call", "id": state.next_id("fc"),
                    "call_id": state.next_id("call"), "name": "wait_agent",
                    "namespace": "multi_agent_v1",
                    "arguments": json.dumps({"targets": ids[-1:], "timeout_ms": 60000}),
                    "status": "completed"}
    return None


def called_since_user(body):
    """True when the model already made a tool call after the last user message (the request
    carries that call and its output), so its turn goes on with text, not another call."""
    items = body.get("input")
    if not isinstance(items, list):
        return False
    since = []
    for item in reversed(items):
        if isinstance(item, dict) and item.get("role") == "user":
            break
        since.append(item)
    return any(isinstance(i, dict) and str(i.get("type", "")).endswith("_call") for i in since)


def responses_api(handler, state, body):
    """OpenAI Responses streaming reply for Codex: one assistant message, or (E2E_SEARCH) one
    shell call."""
    last = last_user_text(body)
    call = None
    if is_summary_request(body, last):
        text = "E2E-SUMMARY: the user sent test prompts."
    else:
        tags = re.findall(r"E2E-P\w+", last)
        text = "ok " + (tags[-1] if tags else "")
        step = nudge_step(body)
        if step and step[0] == "text":
            text = step[1]
        elif step:
            cmd = f"sed -n '1,80p' {step[1]}" if step[0] == "read" else step[1]
            call = shell_call(state, body, cmd)
        elif "E2E_SEARCH" in last and not called_since_user(body):
            call = shell_call(state, body)
        elif "E2E_SPAWN" in last:
            call = spawn_step(state, body)
    resp_id = state.next_id("resp")
    item = call or {"type": "message", "role": "assistant", "id": state.next_id("msg"),
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
    total = usage_of(body)
    usage = {"input_tokens": total, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 12, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": total + 12}
    base = {"id": resp_id, "object": "response", "model": body.get("model", "gpt-5")}
    sse(handler, [
        ("response.created", {"type": "response.created", "response": dict(base, status="in_progress")}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                        "item": dict(item, arguments="") if call else dict(item, content=[])}),
    ] + ([] if call else [
        ("response.output_text.delta", {"type": "response.output_text.delta", "output_index": 0,
                                        "content_index": 0, "item_id": item["id"], "delta": text}),
    ]) + [
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                       "item": item}),
        ("response.completed", {"type": "response.completed", "response": dict(
            base, status="completed", output=[item], usage=usage)}),
    ])


def responses_compact(handler, state, body):
    """Remote compaction (POST /v1/responses/compact): the history replaced by one summary."""
    send_json(handler, 200, {"output": [
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "E2E-SUMMARY: the user sent test prompts."}]}]})

CHAT_MODEL = "e2e-mock"


def chat_shell_tool(body):
    """The name of the shell tool a Chat Completions request offers (Copilot CLI: `bash`)."""
    names = [t.get("function", {}).get("name") for t in body.get("tools") or []]
    return next((n for n in ("bash", "run_shell_command", "shell", "powershell") if n in names),
                None)


def chat_completions(handler, state, body):
    """Chat Completions (Copilot CLI): `E2E_SEARCH` in the last user message gets a call of the
    shell tool running `rg` for SEARCH_PATTERN; a request whose last message is the tool's result,
    and anything else, gets text."""
    msgs = body.get("messages") or []
    last = msgs[-1] if msgs else {}
    tool = chat_shell_tool(body)
    user = [m for m in msgs if m.get("role") == "user"]
    text_of = lambda m: m.get("content") if isinstance(m.get("content"), str) else " ".join(
        p.get("text", "") for p in m.get("content") or [] if isinstance(p, dict))
    if last.get("role") != "tool" and tool and user and "E2E_SEARCH" in text_of(user[-1]):
        args = {"command": f"grep -rnE '{SEARCH_PATTERN}' src", "description": "Search the handler"}
        msg = {"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": state.next_id("call"), "type": "function",
            "function": {"name": tool, "arguments": json.dumps(args)}}]}
        finish = "tool_calls"
    else:
        msg = {"role": "assistant", "content": "E2E-DONE."}
        finish = "stop"
    m = re.search(r"E2E_USAGE=(\d+)", json.dumps(user[-1:]))
    prompt_tokens = int(m.group(1)) if m else 100
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 5,
             "total_tokens": prompt_tokens + 5}
    if not body.get("stream"):
        send_json(handler, 200, {"id": state.next_id("chatcmpl"), "object": "chat.completion",
                                 "model": CHAT_MODEL, "usage": usage,
                                 "choices": [{"index": 0, "message": msg, "finish_reason": finish}]})
        return
    cid = state.next_id("chatcmpl")
    chunk = lambda delta, fin: {"id": cid, "object": "chat.completion.chunk", "model": CHAT_MODEL,
                                "choices": [{"index": 0, "delta": delta, "finish_reason": fin}]}
    events = [chunk(msg, None), dict(chunk({}, finish), usage=usage)]
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.send_header("connection", "close")
    handler.end_headers()
    for e in events:
        handler.wfile.write(b"data: " + json.dumps(e).encode() + b"\n\n")
    handler.wfile.write(b"data: [DONE]\n\n")
    handler.wfile.flush()
    handler.close_connection = True



def gemini_text_of(content):
    return " ".join(p.get("text", "") for p in content.get("parts") or [] if isinstance(p, dict))


def gemini_api(handler, state, body, path):
    """Gemini CLI's calls. `E2E_SEARCH` in the last user text (with no function response after
    it) gets a `grep_search` call for SEARCH_PATTERN in src; the router's call (a schema asking
    for `complexity_score`) gets a simple route; anything else gets text."""
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 5, "totalTokenCount": 105}
    if path.endswith(":countTokens"):
        return send_json(handler, 200, {"totalTokens": 100})
    contents = body.get("contents") or []
    last = contents[-1] if contents else {}
    answered = any("functionResponse" in p for p in last.get("parts") or [])
    if path.endswith(":generateContent"):
        if "complexity" in json.dumps(body.get("generationConfig") or {}):
            text = json.dumps({"complexity_reasoning": "e2e", "complexity_score": 1})
        else:
            text = SUMMARY_TEXT
        return send_json(handler, 200, {"candidates": [{"content": {"role": "model", "parts": [
            {"text": text}]}, "finishReason": "STOP", "index": 0}], "usageMetadata": usage})
    names = [f.get("name") for t in body.get("tools") or [] for f in t.get("functionDeclarations") or []]
    if not answered and "grep_search" in names and "E2E_SEARCH" in gemini_text_of(last):
        parts = [{"functionCall": {"name": "grep_search",
                                   "args": {"pattern": SEARCH_PATTERN, "dir_path": "src"}}}]
    else:
        parts = [{"text": "E2E-DONE " + state.next_id("gemini")}]
    resp = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                            "index": 0}], "usageMetadata": usage}
    data = ("data: " + json.dumps(resp) + "\r\n\r\n").encode()
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "capn-e2e-mock"

    def log_message(self, fmt, *args):  # quiet: everything goes to the JSONL log
        pass

    def handle_one(self):
        state = self.server.state
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        with state.lock:
            state.count += 1
            n = state.count
            keep = {k: v for k, v in self.headers.items()
                    if k.lower() not in ("authorization", "x-api-key")}
            state.log.write(json.dumps({"n": n, "t": time.time(), "method": self.command,
                                        "path": self.path, "headers": keep, "body": body}) + "\n")
            state.log.flush()
            if n >= state.args.max_requests:
                state.done.set()
        path = self.path.split("?")[0]
        if self.command == "POST" and path.endswith("/messages/count_tokens"):
            send_json(self, 200, {"input_tokens": usage_of(body)})
        elif self.command == "POST" and path.endswith("/messages"):
            anthropic_messages(self, state, body)
        elif self.command == "POST" and path.endswith("/responses/compact"):
            responses_compact(self, state, body)
        elif self.command == "POST" and path.endswith("/responses"):
            responses_api(self, state, body)
        elif self.command == "POST" and path.endswith("/chat/completions"):
            chat_completions(self, state, body)
        elif self.command == "POST" and path.startswith("/v1beta/models/"):
            gemini_api(self, state, body, path)
        elif self.command == "GET" and path.endswith("/models"):
            send_json(self, 200, {"object": "list", "data": [{"id": CHAT_MODEL, "object": "model"}]})
        else:
            send_json(self, 404, {"type": "error", "error": {"type": "not_found_error",
                                                              "message": "e2e mock: " + path}})

    do_POST = handle_one
    do_GET = handle_one
    do_HEAD = handle_one


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True, help="JSONL file every request is appended to")
    ap.add_argument("--port-file", required=True, help="written with the port once listening")
    ap.add_argument("--max-requests", type=int, default=400)
    ap.add_argument("--lifetime", type=float, default=600.0, help="seconds")
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(args)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    parent = os.getppid()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    deadline = time.monotonic() + args.lifetime
    while time.monotonic() < deadline and not server.state.done.wait(0.5):
        if os.getppid() != parent:
            break
    server.shutdown()
    sys.exit(0)


if __name__ == "__main__":
    main()
