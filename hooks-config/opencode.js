// capn-hook for OpenCode: written by `capn init --host opencode` as .opencode/plugins/capn.js;
// `capn uninstall` deletes it while it holds exactly these bytes.
//
// OpenCode has no command hooks, so this plugin runs capn's hooks itself:
// `capn hook <event> --host opencode`, a Claude-shaped JSON payload on stdin, and puts the
// additionalContext capn prints where OpenCode lets a plugin add text: the system prompt (the
// ask-before-search contract, on every model call, so it survives a compaction), a text part
// of the user's message (offers for the prompt, and the recovery after a compaction), the
// tool's output (offers after a search), and the compaction prompt (the instructions for the
// summary). Anything that fails adds nothing: capn must never
// break a session.
import { spawnSync } from "node:child_process";

function capn(event, payload, cwd) {
  try {
    const r = spawnSync("capn", ["hook", event, "--host", "opencode"], {
      input: JSON.stringify(payload),
      cwd,
      encoding: "utf8",
      timeout: 10000,
      windowsHide: true,
    });
    if (r.status !== 0 || !r.stdout) return null;
    const out = JSON.parse(r.stdout);
    const text = out && out.hookSpecificOutput && out.hookSpecificOutput.additionalContext;
    return typeof text === "string" && text.length > 0 ? text : null;
  } catch {
    return null;
  }
}

export const CapnPlugin = async ({ directory }) => {
  const contracts = new Map();
  const payload = (sessionID, event, extra) =>
    Object.assign({ session_id: sessionID, cwd: directory, hook_event_name: event }, extra);
  return {
    "experimental.chat.system.transform": async (input, output) => {
      const sid = input && input.sessionID;
      if (!sid) return;
      if (!contracts.has(sid)) {
        contracts.set(sid, capn("session-start", payload(sid, "SessionStart", { source: "startup" }), directory));
      }
      const text = contracts.get(sid);
      if (text) output.system.push(text);
    },
    "chat.message": async (input, output) => {
      const parts = (output && output.parts) || [];
      const prompt = parts
        .filter((p) => p && p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n");
      const text = capn("user-prompt-submit", payload(input.sessionID, "UserPromptSubmit", { prompt }), directory);
      if (!text || !output.message) return;
      parts.push({
        id: "prt_capn" + Date.now().toString(36),
        sessionID: output.message.sessionID,
        messageID: output.message.id,
        type: "text",
        text,
        synthetic: true,
      });
    },
    "tool.execute.after": async (input, output) => {
      const extra = { tool_name: input.tool, tool_input: input.args || {} };
      const text = capn("post-tool-use", payload(input.sessionID, "PostToolUse", extra), directory);
      if (text && output && typeof output.output === "string") output.output += "\n\n" + text;
    },
    "experimental.session.compacting": async (input, output) => {
      // capn's instructions for the summary (what to keep, the saved state) join the
      // compaction prompt
      const text = capn("pre-compact", payload(input.sessionID, "PreCompact", { trigger: "auto" }), directory);
      if (text && output && Array.isArray(output.context)) output.context.push(text);
    },
    event: async ({ event }) => {
      if (!event || event.type !== "session.compacted") return;
      const sid = event.properties && event.properties.sessionID;
      if (sid) capn("post-compact", payload(sid, "PostCompact", { trigger: "auto" }), directory);
    },
  };
};
