"""Checks of features that may not be on this branch yet. Each is one small function and runs
only when its feature is there; otherwise it is reported as N/A with the reason. Setting
CAPN_E2E_REQUIRE=plugin,codex_reminder turns that N/A into a failure (for a branch that has
the feature, so that a broken detection cannot hide a broken feature).

- plugin: a Claude Code plugin marketplace under .claude-plugin/ at the repository root.
  Detected by that folder. Checked: the client's own `claude plugin validate` passes, the client
  adds the marketplace from a local copy and installs its plugins, and in a project without
  `capn init` the plugin's hooks run (the contract reaches the mock once).
- codex_reminder: UserPromptSubmit --host codex reminds the model when context use crosses
  capn's threshold (read from the rollout Codex passes as transcript_path; there is no flag).
  Detected by behaviour: the built capn is run once, in a scratch state dir, on a payload
  pointing at the session's real rollout after a 69% turn. Checked: the next turn's request
  carries the reminder once, and the turn after that adds none.
"""

import json
import os
import shutil
import subprocess
import tempfile

from harness import CONTRACT, REMINDER, expect

# The repository whose .claude-plugin/ is checked (CAPN_E2E_REPO: another checkout).
ROOT = os.environ.get("CAPN_E2E_REPO") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def required():
    return {s.strip() for s in os.environ.get("CAPN_E2E_REQUIRE", "").split(",") if s.strip()}


def detect(capn):
    """Features known before any client runs (the Codex reminder is probed during its run)."""
    return {"plugin": os.path.isdir(os.path.join(ROOT, ".claude-plugin"))}


def skip_or_fail(res, name, why, feature):
    if feature in required():
        res.run(name, lambda: expect(False, f"{feature} is required (CAPN_E2E_REQUIRE)", why))
    else:
        res.skip(name, why)


# ---- Claude Code plugin -------------------------------------------------------------------

def run_claude_extras(sb, res, feats):
    name = "claude plugin: validates, installs from the local marketplace, its hooks run"
    if not feats.get("plugin"):
        skip_or_fail(res, name, "no .claude-plugin/ in the repository", "plugin")
        return
    res.run(name, check_plugin, sb)


def check_plugin(sb):
    import claude
    cli = claude.claude_bin()
    env = claude.client_env(sb)
    market = os.path.join(sb.root, "marketplace")
    shutil.copytree(ROOT, market, ignore=shutil.ignore_patterns(
        ".git", "target", "target-*", "node_modules", ".capn"))

    def run(*args, cwd=sb.root):
        r = subprocess.run([cli, *args], cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        expect(r.returncode == 0, f"claude {' '.join(args)} exits 0",
               f"exit {r.returncode}\n{r.stdout[-1500:]}\n{r.stderr[-1500:]}")
        return r

    run("plugin", "validate", market)
    manifest = json.load(open(os.path.join(market, ".claude-plugin", "marketplace.json")))
    run("plugin", "marketplace", "add", market)
    plugins = [p["name"] for p in manifest.get("plugins", [])]
    expect(plugins, "the marketplace lists plugins", manifest)
    for p in plugins:
        run("plugin", "install", f"{p}@{manifest['name']}")
    # a project where `capn init` did not run: only the plugin registers hooks
    bare = os.path.join(sb.root, "bare")
    os.makedirs(bare)
    subprocess.run(["git", "init", "-q", bare], check=True)
    mark = sb.log.last_n()
    run("-p", "E2E-PL1 hello", "--output-format", "stream-json", "--verbose", cwd=bare)
    req = sb.log.wait_for("the plugin project's main request",
                          lambda q: q.is_main() and "E2E-PL1" in q.last_user_text(), 30, mark)
    c = req.count(CONTRACT)
    expect(c == 1, "the plugin's SessionStart hook puts the contract in the request once",
           f"{c}; {req.brief()}")


# ---- Codex context reminder ---------------------------------------------------------------

def codex_reminder_probe(sb, rollout):
    """True when the built capn answers a Codex UserPromptSubmit whose rollout shows 69% use
    with the reminder. Runs in a scratch state dir, so the real session's markers are
    untouched."""
    scratch = tempfile.mkdtemp(dir=sb.root, prefix="probe-")
    payload = {"session_id": "e2e-probe", "hook_event_name": "UserPromptSubmit",
               "transcript_path": rollout, "cwd": sb.proj, "prompt": "probe",
               "turn_id": "probe", "model": "gpt-5-codex", "permission_mode": "default"}
    r = subprocess.run([sb.real_capn, "hook", "user-prompt-submit", "--host", "codex"],
                       input=json.dumps(payload), cwd=sb.proj, capture_output=True, text=True,
                       env=sb.env({"CAPN_STATE_DIR": scratch}), timeout=30)
    return REMINDER in r.stdout


def run_codex_extras(sb, res, feats, st):
    name = "codex: context reminder arrives once on the next turn after 69% use"
    rollouts = st.get("rollouts") or []
    if not any(codex_reminder_probe(sb, f) for f in rollouts):
        skip_or_fail(res, name, "capn does not remind Codex sessions (probed on the real "
                                "rollout of the 69% turn)", "codex_reminder")
        return

    def check():
        c2, c3 = st["C2"], st["C3"]
        expect(c2.count(REMINDER) == 1, "the turn after the 69% turn carries the reminder once",
               f"{c2.count(REMINDER)}; {c2.brief()}")
        expect(c3.count(REMINDER) == 1, "the turn after that adds no second reminder",
               f"{c3.count(REMINDER)}; {c3.brief()}")
    res.run(name, check)
