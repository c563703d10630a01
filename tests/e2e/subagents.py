"""Sub-agent checks: the contract for a searching sub-agent (capn hook subagent-start) reaches
the sub-agent's own requests and never the parent's. The mock scripts the spawn: Claude Code's
`Agent` tool (`E2E_TOOL=Agent`, mock_server.TOOL_INPUTS) and Codex's `spawn_agent`
(`E2E_SPAWN`); the sub-agent's first request is the one whose user text holds the task the
mock gave it (SUB_TASK) and not the parent's prompt tag.
"""

import subprocess

from harness import CONTRACT, SUBAGENT, expect
from mock_server import SUB_TASK


def check_split(sb, mark, tag, host):
    """The sub-agent's requests hold the contract once each; the parent's hold none."""
    reqs = [r for r in sb.log.all() if r.n > mark and r.is_main()]
    sub = [r for r in reqs if SUB_TASK in r.text and tag not in r.text]
    parent = [r for r in reqs if tag in r.text]
    expect(sub, f"{host}: the sub-agent sent a request of its own",
           "\n    ".join(r.brief() for r in reqs))
    expect(parent, f"{host}: the parent's requests were logged", [r.brief() for r in reqs])
    bad = [f"{r.count(SUBAGENT)} in {r.brief()}" for r in sub if r.count(SUBAGENT) != 1]
    expect(not bad, f"{host}: each sub-agent request holds the sub-agent contract once", bad)
    leak = [r.brief() for r in parent if r.count(SUBAGENT)]
    expect(not leak, f"{host}: no parent request holds the sub-agent contract", leak)
    expect(parent[0].count(CONTRACT) == 1, f"{host}: the parent has its own contract once",
           parent[0].brief())


TITLE = "{}: a spawned sub-agent's request holds the sub-agent contract, the parent's none"


def turn_spawning(sb, host, what, argv, env, turn, tag, stderr_tail):
    """One client turn (`argv`, run in the project with `env` within `turn` seconds; `what`
    names it) whose model spawns a sub-agent: it exits 0 (a failure shows the last
    `stderr_tail` characters of its stderr), and the requests logged since it began split on
    the prompt tag `tag` as check_split wants."""
    mark = sb.log.last_n()
    r = subprocess.run(argv, cwd=sb.proj, env=env, capture_output=True, text=True, timeout=turn,
                       stdin=subprocess.DEVNULL)
    expect(r.returncode == 0, f"{what} exits 0", r.stderr[-stderr_tail:])
    check_split(sb, mark, tag, host)


def run_claude(sb, res, claude_bin, client_env, turn):
    """`claude -p` whose model spawns a general-purpose sub-agent through the Agent tool."""
    res.run(TITLE.format("claude"), lambda: turn_spawning(
        sb, "claude", "claude -p",
        [claude_bin(), "-p", "E2E-SA1 E2E_TOOL=Agent", "--output-format", "stream-json",
         "--verbose", "--allowedTools", "Agent,Task"],
        client_env(sb), turn, "E2E-SA1", 800))


def run_codex(sb, res, codex_bin, codex_env, turn):
    """`codex exec` whose model spawns a sub-agent with its spawn_agent tool."""
    res.run(TITLE.format("codex"), lambda: turn_spawning(
        sb, "codex", "codex exec",
        [codex_bin(), "exec", "--dangerously-bypass-hook-trust",
         "--dangerously-bypass-approvals-and-sandbox", "E2E-SA2 E2E_SPAWN"],
        codex_env(sb), turn, "E2E-SA2", 1500))
