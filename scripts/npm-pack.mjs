#!/usr/bin/env node
// Builds the npm packages of capn from a built binary and packs them with `npm pack`:
//
//   @capn-hook/<system>   the binary of one system (bin/capn, bin/capn.exe on Windows), with
//                         "os" and "cpu" so npm installs it only there
//   capn-hook             the package users install: the launcher bin/capn, install.js
//                         (postinstall, no network) and one optionalDependency per system
//
// Usage:
//   node scripts/npm-pack.mjs [--system linux-x64] [--binary target/release/capn]
//                             [--out target/npm] [--main | --main-only]
//
// --system defaults to this machine's (process.platform-process.arch); --binary to
// target/release/capn(.exe). --main also builds the main package; --main-only builds only it
// (the release workflow packs each system on its own runner and the main package once). Prints
// the path of each tarball on stdout, one a line.
//
// The version of every package is Cargo.toml's (`cargo metadata`): a release bumps that one
// line. When the binary is for this machine, its `--version` must print that version.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The systems capn ships for: npm's os/cpu names and the Rust target each is built with. */
export const SYSTEMS = {
  "linux-x64": { os: "linux", cpu: "x64", target: "x86_64-unknown-linux-musl" },
  "linux-arm64": { os: "linux", cpu: "arm64", target: "aarch64-unknown-linux-musl" },
  "darwin-x64": { os: "darwin", cpu: "x64", target: "x86_64-apple-darwin" },
  "darwin-arm64": { os: "darwin", cpu: "arm64", target: "aarch64-apple-darwin" },
  "win32-x64": { os: "win32", cpu: "x64", target: "x86_64-pc-windows-msvc" },
};

function fail(message) {
  process.stderr.write(`npm-pack: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { system: `${process.platform}-${process.arch}`, out: "target/npm", main: false, mainOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === "--system") args.system = value();
    else if (flag === "--binary") args.binary = value();
    else if (flag === "--out") args.out = value();
    else if (flag === "--main") args.main = true;
    else if (flag === "--main-only") args.mainOnly = true;
    else fail(`unknown argument: ${flag}`);
  }
  if (!args.mainOnly && !SYSTEMS[args.system]) {
    fail(`unknown system: ${args.system} (known: ${Object.keys(SYSTEMS).join(", ")})`);
  }
  const exe = args.system.startsWith("win32-") ? "capn.exe" : "capn";
  args.binary = path.resolve(args.binary ?? path.join(root, "target", "release", exe));
  args.out = path.resolve(args.out);
  return args;
}

/** Cargo.toml's package metadata (name, version, description, license). */
function crate() {
  const json = execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1", "--manifest-path", path.join(root, "Cargo.toml")], { encoding: "utf8" });
  const pkg = JSON.parse(json).packages.find((p) => p.name === "capn-hook");
  if (!pkg) fail("Cargo.toml has no package capn-hook");
  return pkg;
}

/** A fresh staging folder `out/<dir>` with the licence files every package carries. */
function stage(out, dir) {
  const folder = path.join(out, dir);
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(path.join(folder, "bin"), { recursive: true });
  for (const file of ["LICENSE", "NOTICE"]) fs.copyFileSync(path.join(root, file), path.join(folder, file));
  fs.copyFileSync(path.join(root, "assets", "model", "LICENSE-APACHE-2.0"), path.join(folder, "LICENSE-APACHE-2.0"));
  return folder;
}

/** The repository URL npm shows and `npm publish --provenance` checks against the workflow's
 * repository: GitHub Actions' GITHUB_REPOSITORY, else Cargo.toml's `repository`, else none. */
function repository(meta) {
  const github = process.env.GITHUB_REPOSITORY;
  const url = github ? `${process.env.GITHUB_SERVER_URL ?? "https://github.com"}/${github}` : meta.repository;
  return url ? { repository: { type: "git", url: `git+${url}.git` } } : {};
}

function writeJson(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

/** `npm pack` of a staged folder into `out`; returns the tarball's path. */
function pack(folder, out) {
  const json = execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: folder, encoding: "utf8", shell: process.platform === "win32" });
  return path.join(out, JSON.parse(json)[0].filename);
}

function platformPackage(meta, args) {
  const { os, cpu } = SYSTEMS[args.system];
  const exe = os === "win32" ? "capn.exe" : "capn";
  if (!fs.existsSync(args.binary)) fail(`no binary at ${args.binary} (build it with cargo build --release)`);
  if (args.system === `${process.platform}-${process.arch}`) {
    const printed = execFileSync(args.binary, ["--version"], { encoding: "utf8" }).trim();
    if (printed !== `capn ${meta.version}`) fail(`${args.binary} --version printed "${printed}", Cargo.toml says ${meta.version}: rebuild it`);
  }
  const folder = stage(args.out, `capn-hook-${args.system}`);
  fs.copyFileSync(args.binary, path.join(folder, "bin", exe));
  fs.chmodSync(path.join(folder, "bin", exe), 0o755);
  fs.writeFileSync(path.join(folder, "README.md"), `# @capn-hook/${args.system}\n\nThe \`capn\` binary of [capn-hook](https://www.npmjs.com/package/capn-hook) for ${os} ${cpu}. Install \`capn-hook\`, not this package: npm picks this one on ${os} ${cpu} by itself.\n`);
  writeJson(path.join(folder, "package.json"), {
    name: `@capn-hook/${args.system}`,
    version: meta.version,
    description: `The capn binary of capn-hook for ${os} ${cpu}.`,
    license: meta.license,
    ...repository(meta),
    os: [os],
    cpu: [cpu],
    files: [`bin/${exe}`, "LICENSE", "NOTICE", "LICENSE-APACHE-2.0"],
    preferUnplugged: true,
  });
  return pack(folder, args.out);
}

function mainPackage(meta, args) {
  const folder = stage(args.out, "capn-hook");
  const template = path.join(root, "npm", "capn-hook");
  fs.copyFileSync(path.join(template, "bin", "capn"), path.join(folder, "bin", "capn"));
  fs.chmodSync(path.join(folder, "bin", "capn"), 0o755);
  for (const file of ["install.js", "native.js"]) fs.copyFileSync(path.join(template, file), path.join(folder, file));
  fs.copyFileSync(path.join(template, "README.md"), path.join(folder, "README.md"));
  const optional = {};
  for (const system of Object.keys(SYSTEMS)) optional[`@capn-hook/${system}`] = meta.version;
  writeJson(path.join(folder, "package.json"), {
    name: "capn-hook",
    version: meta.version,
    description: meta.description,
    license: meta.license,
    ...repository(meta),
    keywords: ["claude-code", "codex", "hooks", "memory", "coding-agent"],
    bin: { capn: "bin/capn" },
    scripts: { postinstall: "node install.js" },
    optionalDependencies: optional,
    engines: { node: ">=16" },
    files: ["bin/capn", "install.js", "native.js", "LICENSE", "NOTICE", "LICENSE-APACHE-2.0"],
    preferUnplugged: true,
  });
  return pack(folder, args.out);
}

const args = parseArgs(process.argv.slice(2));
fs.mkdirSync(args.out, { recursive: true });
const meta = crate();
const tarballs = [];
if (!args.mainOnly) tarballs.push(platformPackage(meta, args));
if (args.main || args.mainOnly) tarballs.push(mainPackage(meta, args));
for (const t of tarballs) process.stdout.write(`${t}\n`);
