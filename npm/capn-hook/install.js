// postinstall of capn-hook: native.js puts the native binary where `capn` resolves (no network).
// Whatever fails here, the install still succeeds (exit 0): bin/capn then stays the node
// launcher, which runs the same binary and tries the same step again on its first run.
"use strict";

// Only npm and bun link a package's bin with a symlink (POSIX) or with shims that native.js knows
// (npm on Windows). pnpm and yarn write shell shims that run `node <bin/capn>`, baked from the
// file's shebang when they link it: replacing bin/capn under such a shim would make node parse
// the binary (pnpm/pnpm#14502, anomalyco/opencode#7911). For those the launcher stays.
const agent = process.env.npm_config_user_agent || "";

try {
  if (!/^(npm|bun)\//.test(agent)) {
    throw new Error(`installed by ${agent.split(" ")[0] || "an unknown client"}, whose bin shims start node`);
  }
  const done = require("./native.js").placeNative();
  if (process.env.CAPN_INSTALL_VERBOSE) process.stdout.write(`capn-hook: ${done}\n`);
} catch (e) {
  process.stderr.write(`capn-hook: capn stays the node launcher for now (${e.message})\n`);
}
