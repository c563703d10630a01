#!/usr/bin/env bash
# End-to-end suite: builds capn, installs the pinned Claude Code, Codex, Copilot CLI, Gemini CLI, Qwen Code and OpenCode clients from
# package-lock.json (npm ci), and runs them offline against a mock model server on 127.0.0.1
# (see "End-to-end tests" in the README). Exit 1 when a check fails or the npm registry
# cannot be reached; never a silent skip.
#   tests/e2e/run.sh [--keep] [--only claude|codex|copilot|gemini|qwen|opencode]
# A plain run (no arguments) then runs selftest.py: the suite again against deliberately broken
# hooks, each of which must make named checks fail.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need tmux; then
  echo "== e2e: installing tmux (the interactive client runs under it)"
  if ! { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }; then
    echo "e2e: FAILED: tmux is missing and apt-get could not install it" >&2
    exit 1
  fi
fi
for tool in node npm python3 git; do
  need "$tool" || { echo "e2e: FAILED: $tool is not on PATH" >&2; exit 1; }
done

echo "== e2e: npm registry"
if ! timeout 60 npm ping >/dev/null 2>&1; then
  echo "e2e: FAILED: the npm registry ($(npm config get registry)) cannot be reached, so the" \
       "pinned clients cannot be installed; the end-to-end suite did not run" >&2
  exit 1
fi

echo "== e2e: npm ci (pinned clients, see tests/e2e/package.json)"
# Some clients list optional per-system packages that the registry reachable here does not
# serve (Qwen Code's clipboard helpers, OpenCode's other-system binaries): npm then writes a lock
# without them and `npm ci` refuses it as out of sync. The clients themselves are pinned to exact
# versions in package.json, so `npm install` from the same lock is the fallback, said out loud.
if ! (cd "$here" && timeout 300 npm ci --no-audit --no-fund --loglevel=error 2>"$here/.npm-ci.err"); then
  echo "   npm ci refused the lock ($(grep -m1 'Missing:' "$here/.npm-ci.err" || head -1 "$here/.npm-ci.err")); npm install from it instead"
  (cd "$here" && timeout 300 npm install --no-audit --no-fund --no-save --loglevel=error)
fi
rm -f "$here/.npm-ci.err"
echo "   $("$here/node_modules/.bin/claude" --version) / $("$here/node_modules/.bin/codex" --version) / copilot $("$here/node_modules/.bin/copilot" --version 2>/dev/null | head -1) / gemini $("$here/node_modules/.bin/gemini" --version 2>/dev/null) / qwen $("$here/node_modules/.bin/qwen" --version 2>/dev/null) / opencode $("$here/node_modules/.bin/opencode" --version 2>/dev/null)"

echo "== e2e: cargo build"
(cd "$root" && cargo build --quiet --bin capn)

echo "== e2e: checks"
cd "$here"
timeout 600 python3 run_e2e.py --capn "$root/target/debug/capn" "$@"
if [ "$#" -eq 0 ]; then
  # the checks can fail: each deliberately broken hook must be caught (selftest.py)
  echo "== e2e: deliberate breaks"
  timeout 900 python3 selftest.py --capn "$root/target/debug/capn"
fi
