#!/usr/bin/env bash
# Smoke suite for the Windows build, run under Wine on Linux (from .ci/run).
#
#   ci/wine/smoke.sh <capn.exe> <bcryptprimitives.dll>
#
# Runs the real Windows binary through a project's life: init, chart, ask (hit, miss, stale),
# list, bust (with a Windows spelling of the path), prune, every hook with the conformance
# payloads of tests/fixtures (cwd and transcript_path pointed into the temp project), a hook
# whose stdin the host keeps open, the status line, doctor and uninstall; and the owner rule:
# a C:\.capn planted at the drive root is not adopted. Everything lives in one temp dir: the
# Wine prefix (so C:\users\<you> is inside it), the project and capn's state dir.
# Prints "ok - ..." / "not ok - ..." per check and closes with "N passed, M failed".
set -uo pipefail
exe="$1"
dll="$2"
here="$(cd "$(dirname "$0")/../.." && pwd)"
fixtures="$here/tests/fixtures/conformance"

work="$(mktemp -d)"
trap 'wineserver -k >/dev/null 2>&1; rm -rf "$work"' EXIT
export WINEPREFIX="${WINEPREFIX:-$work/prefix}" WINEDEBUG=-all
mkdir -p "$work/bin" "$work/state"
cp "$exe" "$work/bin/capn.exe"
cp "$dll" "$work/bin/bcryptprimitives.dll"
# The Windows spelling of a Linux path (Wine maps / to Z:).
winpath() { printf 'Z:%s' "${1//\//\\}"; }
export CAPN_STATE_DIR
CAPN_STATE_DIR="$(winpath "$work/state")"
# capn on PATH for doctor and the hooks.
export WINEPATH
WINEPATH="$(winpath "$work/bin")"
unset CLAUDE_PROJECT_DIR CLAUDE_ENV_FILE CAPN_SESSION_ID

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
bad() {
  failed=$((failed + 1))
  echo "not ok - $1"
  [ -n "${2:-}" ] && printf '%s\n' "$2" | head -c 8000 | sed 's/^/    /'
  return 0
}

# Wine's first start builds the prefix (tens of seconds): once, outside any check.
wine "$work/bin/capn.exe" --version >/dev/null 2>&1
proj_unix="$WINEPREFIX/drive_c/work/project"
mkdir -p "$proj_unix/src/api" "$proj_unix/.git"
proj='C:\work\project'
printf 'export function webhook() { return "payments"; }\n' >"$proj_unix/src/api/webhooks.ts"
printf 'export const x = 1;\n' >"$proj_unix/src/lib.ts"

# capn ARGS...: runs in the project; sets $out, $err, $rc.
capn() {
  out="$(cd "$proj_unix" && wine "$work/bin/capn.exe" "$@" 2>"$work/err" <"${stdin_file:-/dev/null}")"
  rc=$?
  err="$(cat "$work/err")"
}
expect() { # name, condition (as a shell test result)
  if [ "$2" -eq 0 ]; then ok "$1"; else bad "$1" "rc=$rc
stdout: $out
stderr: $err"; fi
}

capn --version
[[ "$rc" -eq 0 && "$out" == "capn "* ]]
expect "capn.exe starts under Wine ($out)" $?

capn
[[ "$rc" -eq 1 && "$err" == *"Usage: capn <COMMAND>"* ]]
expect "usage says capn, not capn.exe" $?

capn init
[[ "$rc" -eq 0 && -d "$proj_unix/.capn" && "$out" == *'.claude/skills/compact-prep/SKILL.md'* ]] && grep -q '"session-start"' "$proj_unix/.claude/settings.json"
expect "init creates .capn, registers the hooks and prints /-separated paths" $?

capn chart "where are payment webhooks handled" --files 'src\api\webhooks.ts' --details "the router"
[[ "$rc" -eq 0 && "$out" == "charted "* ]]
expect "chart takes a backslash path" $?
id="${out#charted }"

capn ask "where are payment webhooks handled"
want="{\"id\":\"$id\",\"question\":\"where are payment webhooks handled\",\"files\":[\"src/api/webhooks.ts\"],\"details\":\"the router\",\"score\":100}"
[[ "$rc" -eq 0 && "$out" == "$want" ]]
expect "ask returns the entry with a /-separated key" $?

capn ask "how is the build cached"
[[ "$rc" -eq 1 && -z "$out" ]]
expect "ask misses with exit 1" $?

capn list
[[ "$rc" -eq 0 && "$out" == *"$id"* ]]
expect "list names the entry" $?

capn bust 'SRC\API\Webhooks.TS'
[[ "$rc" -eq 0 && "$out" == "busted 1 entry" ]]
expect "bust with another case and separator busts the entry (names fold on Windows)" $?

capn chart "where is x" --files '.CAPN\config.json'
[[ "$rc" -ne 0 && "$err" == *"inside the capn store"* ]]
expect "a file in .CAPN\\ cannot be charted" $?

capn chart "where is x defined" --files src/lib.ts
id2="${out#charted }"
# A same-size edit with the mtime put back: no inode or ctime on Windows says so.
touch -r "$proj_unix/src/lib.ts" "$work/stamp"
printf 'export const y = 1;\n' >"$proj_unix/src/lib.ts"
touch -r "$work/stamp" "$proj_unix/src/lib.ts"
capn prune
[[ "$rc" -eq 0 && "$out" == "pruned 1 stale entry"* && "$out" == *'src/lib.ts'* ]]
expect "prune deletes an entry whose file changed with its size and mtime kept ($id2)" $?
capn ask "where is x defined"
[[ "$rc" -eq 1 ]]
expect "the pruned entry no longer answers" $?

capn chart "where are payment webhooks handled" --files src/api/webhooks.ts
id="${out#charted }"

# Every conformance payload through its hook, pointed at this project.
cp "$fixtures/transcripts/1.jsonl" "$proj_unix/claude.jsonl"
cp "$fixtures/transcripts/codex-rollout-1.jsonl" "$proj_unix/codex.jsonl"
payload() { # file, transcript name -> $work/payload.json
  python3 - "$1" "$proj" "$proj\\$2" >"$work/payload.json" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1], encoding="utf-8"))
v["cwd"] = sys.argv[2]
v["transcript_path"] = sys.argv[3]
print(json.dumps(v))
EOF
}
valid_reply() { # stdout of a hook: nothing, or one JSON object
  [ -z "$out" ] || python3 -c 'import json,sys; v=json.loads(sys.stdin.read()); assert isinstance(v, dict)' <<<"$out"
}
sub_of() {
  case "$1" in
    SessionStart*) echo session-start ;; PreCompact*) echo pre-compact ;;
    PostCompact*) echo post-compact ;; UserPromptSubmit*) echo user-prompt-submit ;;
    *) echo "" ;;
  esac
}
for host in claude codex; do
  for f in "$fixtures/payloads/$host"/*.json; do
    name="$(basename "$f" .json)"
    sub="$(sub_of "$name")"
    [ -n "$sub" ] || continue
    payload "$f" "$host.jsonl"
    args=(hook "$sub")
    [ "$host" = codex ] && args+=(--host codex)
    stdin_file="$work/payload.json" capn "${args[@]}"
    if [[ "$host" == claude && "$name" == PreCompact* ]]; then
      # Claude Code takes PreCompact's plain stdout as the summary's instructions: text, not JSON.
      [[ "$rc" -eq 0 && ( -z "$out" || "$out" == "[capn] Instructions for this summary"* ) ]]
    else
      [[ "$rc" -eq 0 ]] && valid_reply
    fi
    expect "$host $name: exit 0 and a reply the host accepts" $?
  done
done

# The offer: a search whose words match the chart gets it as additionalContext.
python3 - "$proj" >"$work/payload.json" <<'EOF'
import json, sys
print(json.dumps({"session_id": "w1", "transcript_path": sys.argv[1] + "\\claude.jsonl",
                  "cwd": sys.argv[1], "hook_event_name": "PreToolUse", "tool_name": "Grep",
                  "tool_input": {"pattern": "payment webhooks handled", "path": "src"}}))
EOF
stdin_file="$work/payload.json" capn hook pre-tool-use
[[ "$rc" -eq 0 && "$out" == *additionalContext*'src/api/webhooks.ts'* ]] && valid_reply
expect "pre-tool-use offers the charted answer to a matching search" $?

python3 - "$proj" >"$work/payload.json" <<'EOF'
import json, sys
print(json.dumps({"session_id": "w2", "transcript_path": sys.argv[1] + "\\codex.jsonl",
                  "cwd": sys.argv[1], "hook_event_name": "PreToolUse", "tool_name": "Bash",
                  "tool_input": {"command": ["powershell.exe", "-Command", "rg -n 'payment webhooks handled' src"]}}))
EOF
stdin_file="$work/payload.json" capn hook pre-tool-use --host codex
[[ "$rc" -eq 0 && "$out" == *'src/api/webhooks.ts'* ]] && valid_reply
expect "codex pre-tool-use sees the search inside powershell -Command" $?

# A host that keeps stdin open (8 s here): the hook still returns long before the writer
# closes it. The pipeline itself lasts as long as the writer, so the hook's own end is timed;
# the bound (5 s) leaves room for Wine's own start on a loaded machine (3.1 s seen once at
# load 4), far under the 8 s a hook that waited for the writer would take.
payload "$fixtures/payloads/claude/SessionStart-startup-1.json" claude.jsonl
start=$(date +%s%N)
(cat "$work/payload.json"; sleep 8) | (cd "$proj_unix" && wine "$work/bin/capn.exe" hook session-start >"$work/out" 2>/dev/null; echo $? >"$work/rc"; date +%s%N >"$work/end")
out="$(cat "$work/out")"
rc="$(cat "$work/rc")"
took=$(( ($(cat "$work/end") - start) / 1000000 ))
err="took ${took} ms"
[[ "$rc" -eq 0 && "$out" == *additionalContext* && "$took" -lt 5000 ]]
expect "a hook returns promptly when the host keeps stdin open (${took} ms)" $?

for f in "$fixtures/payloads/statusline"/*.json; do
  payload "$f" claude.jsonl
  stdin_file="$work/payload.json" capn statusline
  [[ "$rc" -eq 0 && "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]]
  expect "statusline $(basename "$f"): one line" $?
done

capn doctor
[[ "$rc" -eq 0 && "$out" == *"capn on PATH"* ]]
expect "doctor passes" $?

capn uninstall
[[ "$rc" -eq 0 ]] && ! grep -q '"session-start"' "$proj_unix/.claude/settings.json" 2>/dev/null
expect "uninstall removes the registrations" $?

# Owner rule: a .capn planted at the drive root is never adopted by a project without one.
mkdir -p "$WINEPREFIX/drive_c/.capn/entries" "$WINEPREFIX/drive_c/other/sub"
out="$(cd "$WINEPREFIX/drive_c/other/sub" && wine "$work/bin/capn.exe" chart "planted" --files x 2>&1)"
rc=$?
err=""
[[ "$out" == *'ignoring C:\.capn'* ]] && [ -z "$(ls "$WINEPREFIX/drive_c/.capn/entries")" ]
expect "C:\\.capn at the drive root is not adopted" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
