#!/usr/bin/env node
// Stand-in for capn-hook 0.2's CLI, just what the upgrade test needs: `capn --version`, and
// `capn init` writing the SessionStart registration 0.2 writes (`/usr/bin/env capn context`, in
// .claude/settings.json and .codex/hooks.json) and a .capn/ folder when there is none.
"use strict";
const fs = require("fs");
const path = require("path");

const [command] = process.argv.slice(2);
if (command === "--version") {
  process.stdout.write("0.2.0\n");
} else if (command === "init") {
  const hook = { hooks: { SessionStart: [{ hooks: [{ type: "command", command: "/usr/bin/env capn context" }] }] } };
  for (const file of [".claude/settings.json", ".codex/hooks.json"]) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(hook, null, 2) + "\n");
  }
  fs.mkdirSync(".capn/entries", { recursive: true });
  process.stdout.write("capn 0.2 (stand-in): initialised\n");
} else if (command === "context") {
  process.stdout.write("Before searching the repository, run `capn ask`.\n");
} else {
  process.stderr.write(`capn 0.2 (stand-in): unknown command ${command}\n`);
  process.exit(1);
}
