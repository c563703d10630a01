// postinstall of capn-hook: native.js puts the native binary where `capn` resolves (no network).
// Whatever fails here, the install still succeeds (exit 0): bin/capn then stays the node
// launcher, which runs the same binary and tries the same step again on its first run.
"use strict";

try {
  const done = require("./native.js").placeNative();
  if (process.env.CAPN_INSTALL_VERBOSE) process.stdout.write(`capn-hook: ${done}\n`);
} catch (e) {
  process.stderr.write(`capn-hook: capn stays the node launcher for now (${e.message})\n`);
}
