// Puts capn's native binary where the `capn` command resolves, without any network: the binary
// came with the matching @capn-hook/<os>-<cpu> package, which npm (or bun, pnpm) picked through
// optionalDependencies and the packages' os/cpu fields. Used by install.js (postinstall, under
// npm and bun) and, when install scripts did not run (npm's allowScripts policy, --ignore-scripts,
// bun without trusting the package), by the launcher bin/capn on its first run through a bin
// symlink. Never under pnpm or yarn, whose shims run `node bin/capn` (see install.js).
//
// - Linux, macOS: the package manager linked <prefix>/bin/capn -> this package's bin/capn (the
//   node launcher). That file is replaced, in one rename, by a hard link to (or a copy of) the
//   native binary, so every later run, hooks included, starts the binary straight from PATH
//   with no node process in between (the pattern of esbuild's install script).
// - Windows: npm's shims (capn.cmd, capn.ps1, capn) always start node, and a host that runs a
//   hook in exec form (no shell) cannot start a .cmd at all. For a global npm install the binary
//   is copied to capn.exe beside those shims (the npm prefix folder, on PATH), so `capn` is a
//   real .exe. `npm uninstall -g` does not know that file (README "Install" says to delete it).
//   The launcher stays (the shims point at it).
"use strict";

const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const root = __dirname;
const version = require("./package.json").version;
const system = `${process.platform}-${process.arch}`;
const windows = process.platform === "win32";
const exe = windows ? "capn.exe" : "capn";

/** The path of the native binary in @capn-hook/<system>; throws when that package is absent. */
function nativeBinary() {
  try {
    return require.resolve(`@capn-hook/${system}/bin/${exe}`, { paths: [root] });
  } catch (e) {
    throw new Error(`@capn-hook/${system} is not installed (unsupported system, or optional dependencies omitted)`);
  }
}

/** Throws unless `binary --version` prints exactly `capn <this package's version>`. */
function checkVersion(binary) {
  const out = execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 30000, windowsHide: true }).trim();
  if (out !== `capn ${version}`) {
    throw new Error(`${binary} --version printed ${JSON.stringify(out)}, expected "capn ${version}"`);
  }
}

/** Makes `target` the same bytes as `source` (hard link, else copy), executable, in one rename. */
function replaceWith(source, target) {
  const tmp = `${target}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  try {
    fs.linkSync(source, tmp);
  } catch (e) {
    fs.copyFileSync(source, tmp);
  }
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, target);
}

/** Windows, global npm install only: <prefix>\capn.exe beside npm's capn.cmd. */
function placeWindowsExe(binary) {
  const modules = path.dirname(root);
  const prefix = path.dirname(modules);
  if (path.basename(modules) !== "node_modules" || !fs.existsSync(path.join(prefix, "capn.cmd"))) {
    return "not a global npm install (no capn.cmd beside node_modules): nothing to do";
  }
  const target = path.join(prefix, "capn.exe");
  if (fs.existsSync(target) && fs.statSync(target).size === fs.statSync(binary).size) {
    try {
      checkVersion(target);
      return `${target} is already this version`;
    } catch (e) {
      // Another version: replace it below.
    }
  }
  // A running capn.exe cannot be overwritten but can be renamed out of the way.
  const old = `${target}.old-${process.pid}`;
  if (fs.existsSync(target)) fs.renameSync(target, old);
  fs.copyFileSync(binary, target);
  for (const name of fs.readdirSync(prefix)) {
    if (!name.startsWith("capn.exe.old-")) continue;
    try {
      fs.rmSync(path.join(prefix, name), { force: true });
    } catch (e) {
      // Still running: a later install removes it.
    }
  }
  return `installed ${target}`;
}

/**
 * Places the native binary (see the module comment) and returns what it did, as one line.
 * Throws (nothing changed) when the binary is missing or is not this package's version.
 */
function placeNative() {
  const binary = nativeBinary();
  checkVersion(binary);
  if (windows) return placeWindowsExe(binary);
  replaceWith(binary, path.join(root, "bin", "capn"));
  return `bin/capn is now the native binary of @capn-hook/${system}`;
}

module.exports = { nativeBinary, placeNative };
