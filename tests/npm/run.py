#!/usr/bin/env python3
"""The npm install, end to end, as a user does it (README "Install"), on this machine's system.

  tests/npm/run.py [--binary target/release/capn] [--runs 150] [--keep]

1. Builds the linux-x64 packages (capn-hook and @capn-hook/linux-x64) from the release binary
   with scripts/npm-pack.mjs and `npm pack`s them.
2. Upgrade from capn-hook 0.2: installs 0.2 from its npm tarball (`npm pack capn-hook@0.2` from
   the real registry; when the registry cannot be reached or has no 0.2 it says which, and uses
   tests/npm/standin-0.2, a package with 0.2's name, bin and registration), runs its `capn init`
   in a copy of tests/fixtures/store-0.2, then runs the documented upgrade command
   `npm install -g capn-hook@latest`, and checks `capn --version`, that the project's 0.2
   charts answer and that `capn init` replaces 0.2's registrations.
3. A fresh project: `capn init`, `chart`, `ask`; a UserPromptSubmit hook run through PATH lookup
   (output compared exactly with the bare binary's) and its time against the bare binary
   (medians of interleaved runs; the target is within 1 ms).
4. The same install with install scripts off (`--ignore-scripts`): the node launcher's first run
   through npm's bin symlink puts the binary in place itself, but neither it nor install.js does
   under a pnpm-style shim (`node bin/capn`). native.js's Windows step (capn.exe beside npm's
   capn.cmd) is run with process.platform set to win32: its logic, not Windows itself.
5. `npm uninstall -g capn-hook` leaves nothing behind.
6. bun (installed from the npm registry, pinned): 0.2, then `bun add -g capn-hook@latest`, the
   first run's swap, `bun remove -g`.

Every install goes through tests/npm/registry.py, a stub registry on 127.0.0.1 serving only
the tarballs built here (and, for the other four systems, manifests with no tarball that npm
must skip by os/cpu): no public registry is asked. HOME, the XDG dirs, the npm cache, its config
files and the global prefix are all inside one temp dir. Prints one line per check and closes
with "N passed, M failed"; exit 1 when a check failed.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from registry import Registry, package_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OTHER_SYSTEMS = {"linux-arm64": ("linux", "arm64"), "darwin-x64": ("darwin", "x64"),
                 "darwin-arm64": ("darwin", "arm64"), "win32-x64": ("win32", "x64")}
LEGACY = "/usr/bin/env capn context"


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"ok    {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL  {what}" + (f"\n      {detail}" if detail else ""), flush=True)
        return ok


class Sandbox:
    """HOME, XDG dirs, npm cache, npm config and the global prefix inside `tmp`."""

    def __init__(self, tmp, name, registry):
        self.dir = tmp / name
        self.prefix = self.dir / "prefix"
        home = self.dir / "home"
        for d in (home, self.prefix / "bin"):
            d.mkdir(parents=True)
        (self.dir / "npmrc").write_text("")
        (self.dir / "npmrc-global").write_text("")
        path = [str(self.prefix / "bin")]
        for d in os.environ.get("PATH", "").split(os.pathsep):
            # A capn elsewhere on PATH (~/.cargo/bin, say) would hide the installed one.
            if d and not (Path(d) / "capn").exists():
                path.append(d)
        self.env = {
            "PATH": os.pathsep.join(path), "HOME": str(home), "USER": os.environ.get("USER", "ci"),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
            "npm_config_cache": str(self.dir / "npm-cache"), "npm_config_prefix": str(self.prefix),
            "npm_config_userconfig": str(self.dir / "npmrc"), "npm_config_globalconfig": str(self.dir / "npmrc-global"),
            "npm_config_registry": registry, "npm_config_update_notifier": "false",
            "npm_config_fund": "false", "npm_config_audit": "false", "npm_config_loglevel": "error",
        }

    def run(self, *cmd, cwd=None, stdin=None, timeout=180):
        try:
            return subprocess.run(list(cmd), cwd=cwd, env=self.env, input=stdin, capture_output=True,
                                  text=True, timeout=timeout)
        except FileNotFoundError as e:
            return subprocess.CompletedProcess(cmd, 127, "", f"{e}\n")

    def capn(self):
        """Where `capn` resolves on this sandbox's PATH (None when it does not)."""
        found = shutil.which("capn", path=self.env["PATH"])
        return Path(found) if found else None


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def npm_pack_ours(tmp, binary):
    out = subprocess.run(["node", str(ROOT / "scripts" / "npm-pack.mjs"), "--system", "linux-x64", "--binary",
                          str(binary), "--out", str(tmp / "dist"), "--main"],
                         capture_output=True, text=True, timeout=300, check=True)
    return [Path(line) for line in out.stdout.split()]


def old_tarball(tmp, checks):
    """capn-hook 0.2's tarball from the real registry, else the stand-in's: (tarball, the real
    registry's URL when the tarball is the published 0.2 (its dependencies come from there), else
    None)."""
    old = tmp / "old"
    old.mkdir()
    env = {**os.environ, "npm_config_cache": str(old / "npm-cache"), "npm_config_update_notifier": "false"}
    view = subprocess.run(["npm", "view", "capn-hook@0.2", "version", "--json"], env=env,
                          capture_output=True, text=True, timeout=120)
    registry = subprocess.run(["npm", "config", "get", "registry"], env=env, capture_output=True,
                              text=True).stdout.strip()
    if view.returncode == 0 and view.stdout.strip():
        versions = json.loads(view.stdout)
        version = versions[-1] if isinstance(versions, list) else versions
        pack = subprocess.run(["npm", "pack", f"capn-hook@{version}", "--json", "--pack-destination", str(old)],
                              env=env, capture_output=True, text=True, timeout=300)
        if checks.check(pack.returncode == 0, f"npm pack capn-hook@{version} from {registry}", pack.stderr[-500:]):
            print(f"note  upgrade checked from the published capn-hook {version}")
            return old / json.loads(pack.stdout)[0]["filename"], registry
    elif "E404" in view.stderr:
        print(f"note  capn-hook 0.2 is not on the npm registry ({registry}: E404); the upgrade is checked "
              "from tests/npm/standin-0.2 (0.2's package name, bin name and registration)")
    else:
        reason = (view.stderr.strip().splitlines() or ["no answer"])[-1]
        print(f"note  the npm registry ({registry}) cannot be reached ({reason}); the upgrade is checked "
              "from tests/npm/standin-0.2 instead of the published 0.2")
    pack = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(old)], cwd=ROOT / "tests/npm/standin-0.2",
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    return old / json.loads(pack.stdout)[0]["filename"], None


def installed_is_binary(sb, checks, binary, label):
    """`capn` on PATH resolves, through npm's link, to the very bytes of the release binary."""
    capn = sb.capn()
    if not checks.check(capn is not None and capn.parent == sb.prefix / "bin", f"{label}: capn on PATH is {sb.prefix}/bin/capn", str(capn)):
        return False
    real = capn.resolve()
    return checks.check(is_elf(real) and sha256(real) == sha256(binary),
                        f"{label}: {capn.name} -> {real.relative_to(sb.prefix)} is the native binary (no node launcher)",
                        f"{real}: ELF={is_elf(real)}")


def upgrade_from_02(tmp, sb, checks, binary, old, real):
    project = tmp / "old-project"
    shutil.copytree(ROOT / "tests/fixtures/store-0.2", project)
    # The fixture's backing file `docs/a: b.md` is made here, not kept in git: a Windows
    # checkout cannot hold the name (tests/fixtures/README.md; the chart's hash is of these bytes).
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs/a: b.md").write_bytes(b"# notes\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    r = sb.run("npm", "install", "-g", str(old), *(["--registry", real] if real else []))
    if not checks.check(r.returncode == 0, "capn-hook 0.2 installs globally from its tarball", r.stderr[-800:]):
        return
    capn = sb.capn()
    checks.check(capn is not None and not is_elf(capn.resolve()), "0.2 is what `capn` runs before the upgrade", str(capn))
    r = sb.run("capn", "init", cwd=project)
    checks.check(r.returncode == 0 and LEGACY in (project / ".claude/settings.json").read_text(),
                 "0.2's `capn init` registers `/usr/bin/env capn context`", r.stdout + r.stderr)
    r = sb.run("npm", "install", "-g", "capn-hook@latest")
    if not checks.check(r.returncode == 0, "the upgrade command `npm install -g capn-hook@latest` succeeds", r.stderr[-800:]):
        return
    r = sb.run("capn", "--version")
    checks.check(r.stdout.strip() == f"capn {package_json(binary_tarball(tmp, 'capn-hook'))['version']}",
                 "after the upgrade `capn --version` is the new version", r.stdout + r.stderr)
    installed_is_binary(sb, checks, binary, "upgrade")
    r = sb.run("capn", "ask", "where are the payment webhooks handled?", cwd=project)
    hit = json.loads(r.stdout.splitlines()[0]) if r.returncode == 0 and r.stdout.strip() else {}
    checks.check(hit.get("id") == "9f3a1c2e", "the project's 0.2 charts answer (`capn ask`)", r.stdout + r.stderr)
    r = sb.run("capn", "init", cwd=project)
    settings = (project / ".claude/settings.json").read_text()
    codex = (project / ".codex/hooks.json").read_text()
    checks.check(r.returncode == 0 and "replaced the capn-hook 0.2 registration" in r.stdout
                 and LEGACY not in settings and LEGACY not in codex and '"session-start"' in settings,
                 "`capn init` replaces 0.2's registrations in .claude/settings.json and .codex/hooks.json",
                 r.stdout + r.stderr)


def binary_tarball(tmp, name):
    return next(p for p in (tmp / "dist").glob("*.tgz") if package_json(p)["name"] == name)


def fresh_project(tmp, sb, checks):
    project = tmp / "project"
    (project / "src").mkdir(parents=True)
    (project / "src/main.rs").write_text("fn main() {\n    println!(\"hello\");\n}\n")
    (project / "src/config.rs").write_text("pub struct Config {\n    pub port: u16,\n}\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    r = sb.run("capn", "init", cwd=project)
    checks.check(r.returncode == 0 and (project / ".capn").is_dir() and "hook" in (project / ".claude/settings.json").read_text(),
                 "`capn init` in a fresh project", r.stdout + r.stderr)
    r = sb.run("capn", "chart", "Where is the program's entry point?", "--files", "src/main.rs", cwd=project)
    checks.check(r.returncode == 0 and re.fullmatch(r"charted [0-9a-f]{8}\n", r.stdout), "`capn chart`", r.stdout + r.stderr)
    r = sb.run("capn", "ask", "what is the program's entry point?", cwd=project)
    hit = json.loads(r.stdout.splitlines()[0]) if r.returncode == 0 and r.stdout.strip() else {}
    checks.check(hit.get("files") == ["src/main.rs"], "`capn ask` answers with the charted file", r.stdout + r.stderr)
    return project


def hook_payload(project, session, prompt="rename the port field to listen_port"):
    """A UserPromptSubmit payload (Claude Code's shape). The default prompt matches no chart: the
    work of most prompts. OFFER_PROMPT matches the fresh project's chart, so the hook offers it."""
    return json.dumps({"session_id": session, "transcript_path": str(project / "t.jsonl"), "cwd": str(project),
                       "hook_event_name": "UserPromptSubmit", "prompt": prompt})


OFFER_PROMPT = "where is the program's entry point?"


def time_hook(sb, project, commands, runs):
    """Median wall time in ms of each command running the UserPromptSubmit hook (interleaved)."""
    payload = hook_payload(project, "npm-timing")
    times = {c[0]: [] for c in commands}
    for i in range(runs + 5):
        for cmd in (commands if i % 2 else commands[::-1]):
            start = time.perf_counter_ns()
            subprocess.run(cmd, cwd=project, env=sb.env, input=payload, capture_output=True, text=True, timeout=30)
            if i >= 5:
                times[cmd[0]].append((time.perf_counter_ns() - start) / 1e6)
    return {k: statistics.median(v) for k, v in times.items()}


def hook_checks(sb, checks, project, binary, runs):
    via_path = sb.run("capn", "hook", "user-prompt-submit", cwd=project, stdin=hook_payload(project, "npm-a", OFFER_PROMPT))
    bare = sb.run(str(binary), "hook", "user-prompt-submit", cwd=project, stdin=hook_payload(project, "npm-b", OFFER_PROMPT))
    checks.check(via_path.returncode == 0 and via_path.stderr == "" and via_path.stdout == bare.stdout and bare.stdout,
                 "UserPromptSubmit hook through PATH lookup: exit 0, no stderr, the bare binary's exact output",
                 f"PATH: {via_path.returncode} {via_path.stdout!r} {via_path.stderr!r}\n      bare: {bare.stdout!r}")
    for attempt in (1, 2):
        m = time_hook(sb, project, [["capn", "hook", "user-prompt-submit"], [str(binary), "hook", "user-prompt-submit"]], runs)
        diff = m["capn"] - m[str(binary)]
        print(f"time  UserPromptSubmit hook, median of {runs} interleaved runs (attempt {attempt}): "
              f"npm-installed capn {m['capn']:.2f} ms, bare binary {m[str(binary)]:.2f} ms (difference {diff:+.2f} ms)")
        if diff < 1.0:
            break
    checks.check(diff < 1.0, "the npm-installed hook is within 1 ms (median) of the bare binary", f"{diff:.2f} ms")
    # For scale, what the usual npm launcher (node spawning the binary) costs; fewer runs: ~50 ms each.
    launcher = ["node", "-e", "const r=require('child_process').spawnSync(process.argv[1],process.argv.slice(2),"
                "{stdio:'inherit'});process.exit(r.status)", str(binary), "hook", "user-prompt-submit"]
    m = time_hook(sb, project, [launcher, [str(binary), "hook", "user-prompt-submit"]], 30)
    print(f"time  for scale, median of 30: a node launcher {m['node']:.2f} ms, bare binary {m[str(binary)]:.2f} ms")


def lazy_placement(tmp, registry, checks, binary, project):
    sb = Sandbox(tmp, "no-scripts", registry)
    r = sb.run("npm", "install", "-g", "--ignore-scripts", "capn-hook")
    if not checks.check(r.returncode == 0, "no-scripts: `npm install -g --ignore-scripts capn-hook`", r.stderr[-800:]):
        return
    capn = sb.capn()
    checks.check(capn is not None and capn.resolve().read_bytes().startswith(b"#!/usr/bin/env node"),
                 "no-scripts: capn is the node launcher until its first run", str(capn))
    package = sb.prefix / "lib/node_modules/capn-hook"
    launcher = package / "bin/capn"
    # pnpm and yarn shims run `node bin/capn`: neither install.js under their user agent nor the
    # launcher started that way may swap the binary in (node would then parse it).
    r = subprocess.run(["node", "install.js"], cwd=package, capture_output=True, text=True, timeout=60,
                       env={**sb.env, "npm_config_user_agent": "pnpm/10.12.1 npm/? node/v20.20.2 linux x64"})
    shim = sb.dir / "pnpm-shim"
    shim.write_text(f'#!/bin/sh\nexec node "{launcher}" "$@"\n')
    shim.chmod(0o755)
    runs = [sb.run(str(shim), "--version") for _ in range(2)]
    checks.check(r.returncode == 0 and "pnpm/10.12.1" in r.stderr and all(x.stdout == first_line(binary) for x in runs)
                 and launcher.read_bytes().startswith(b"#!/usr/bin/env node"),
                 "no-scripts: under a pnpm-style shim (node bin/capn) capn runs and stays the launcher",
                 f"{r.stderr!r} {[x.stdout + x.stderr for x in runs]}")
    first = sb.run("capn", "hook", "user-prompt-submit", cwd=project, stdin=hook_payload(project, "npm-c", OFFER_PROMPT))
    bare = sb.run(str(binary), "hook", "user-prompt-submit", cwd=project, stdin=hook_payload(project, "npm-d", OFFER_PROMPT))
    checks.check(first.returncode == 0 and first.stderr == "" and first.stdout == bare.stdout and bare.stdout,
                 "no-scripts: the launcher's first run (a hook) gives the bare binary's exact output, no stderr",
                 f"{first.returncode} {first.stdout!r} {first.stderr!r}")
    installed_is_binary(sb, checks, binary, "no-scripts, after the first run")
    uninstall(sb, checks, "no-scripts")


def without_platform_package(tmp, registry, checks):
    """With the system's package missing (a client that left out optional dependencies; npm 11
    installs them even with --omit=optional when global), capn says so and how to fix it."""
    sb = Sandbox(tmp, "no-binary", registry)
    r = sb.run("npm", "install", "-g", "--ignore-scripts", "capn-hook")
    shutil.rmtree(sb.prefix / "lib/node_modules/capn-hook/node_modules/@capn-hook", ignore_errors=True)
    v = sb.run("capn", "--version")
    checks.check(r.returncode == 0 and v.returncode == 1 and v.stdout == ""
                 and "capn: no native binary for linux-x64: its package @capn-hook/linux-x64 is not installed" in v.stderr,
                 "no-binary: without the system's package capn exits 1 naming it and the fix", f"{v.stdout!r} {v.stderr!r}")
    uninstall(sb, checks, "no-binary")


def first_line(binary):
    """What `binary --version` prints."""
    return subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True).stdout


WINDOWS_PLACE = """
Object.defineProperty(process, "platform", { value: "win32" });
process.stdout.write(require(process.argv[1]).placeNative());
"""


def windows_logic(tmp, checks, binary):
    """native.js's Windows step, run on Linux with process.platform set to win32: a global npm
    layout (<prefix>/node_modules/capn-hook, <prefix>/capn.cmd) gets <prefix>/capn.exe, once;
    a stale capn.exe is replaced. It checks the logic, not Windows itself."""
    prefix = tmp / "win" / "prefix"
    package = prefix / "node_modules/capn-hook"
    platform = package / "node_modules/@capn-hook/win32-x64"
    (platform / "bin").mkdir(parents=True)
    staged = tmp / "dist/capn-hook"
    for f in ("native.js", "package.json"):
        shutil.copy(staged / f, package / f)
    (platform / "package.json").write_text(json.dumps({"name": "@capn-hook/win32-x64", "version": "0"}))
    shutil.copy(binary, platform / "bin/capn.exe")
    (prefix / "capn.cmd").write_text("@node ...\r\n")

    def place():
        return subprocess.run(["node", "-e", WINDOWS_PLACE, str(package / "native.js")], capture_output=True, text=True,
                              timeout=60)

    exe = prefix / "capn.exe"
    first, again = place(), place()
    checks.check(first.returncode == 0 and exe.is_file() and sha256(exe) == sha256(binary) and "already" in again.stdout,
                 "windows step (simulated): a global npm install gets capn.exe beside capn.cmd, once",
                 f"{first.stdout}{first.stderr} / {again.stdout}{again.stderr}")
    exe.write_text("an older capn.exe")
    stale = place()
    left = [p.name for p in prefix.iterdir() if p.name.startswith("capn.exe.old-")]
    checks.check(stale.returncode == 0 and sha256(exe) == sha256(binary) and not left,
                 "windows step (simulated): a stale capn.exe is replaced, nothing left behind", f"{stale.stderr} {left}")


BUN = "bun@1.4.5"


def bun_checks(tmp, registry, checks, binary, old, real):
    """A global bun install (README "Upgrading from capn-hook 0.2"): 0.2 from its tarball, then
    `bun add -g capn-hook@latest` from the stub registry. bun picks the system's package by
    os/cpu and blocks capn-hook's postinstall, so the launcher's first run through bun's bin
    symlink puts the binary in place. bun itself comes from the npm registry (pinned: BUN); when
    it cannot be installed this says so and runs no bun check."""
    tool = tmp / "bun-tool"
    r = subprocess.run(["npm", "install", "--prefix", str(tool), "--no-audit", "--no-fund", BUN], capture_output=True,
                       text=True, timeout=300, env={**os.environ, "npm_config_cache": str(tmp / "bun-npm-cache"),
                                                    "npm_config_update_notifier": "false"})
    bun = tool / "node_modules/.bin/bun"
    if r.returncode != 0 or not bun.exists():
        print(f"note  {BUN} could not be installed from the npm registry, so the bun checks did not run: "
              f"{(r.stderr.strip().splitlines() or ['no output'])[-1]}")
        return
    sb = Sandbox(tmp, "bun", registry)
    bun_home = sb.dir / "bun"
    sb.env.update({"BUN_INSTALL": str(bun_home), "BUN_CONFIG_REGISTRY": registry})
    sb.env["PATH"] = f"{bun_home / 'bin'}{os.pathsep}{sb.env['PATH']}"
    if real:  # the published 0.2's dependencies come from the real registry
        sb.env["BUN_CONFIG_REGISTRY"] = real
    r = sb.run(str(bun), "add", "-g", str(old))
    sb.env["BUN_CONFIG_REGISTRY"] = registry
    before = sb.run("capn", "--version")
    checks.check(r.returncode == 0 and before.returncode == 0 and not is_elf(sb.capn().resolve()),
                 f"bun: 0.2 installs with `bun add -g` ({BUN})", r.stderr[-500:] + before.stdout)
    r = sb.run(str(bun), "add", "-g", "capn-hook@latest")
    version = sb.run("capn", "--version")
    capn = sb.capn()
    checks.check(r.returncode == 0 and version.stdout == first_line(binary) and capn.parent == bun_home / "bin",
                 "bun: `bun add -g capn-hook@latest` upgrades it (postinstall blocked, the launcher runs)",
                 f"{r.stdout[-300:]}{r.stderr[-300:]} {version.stdout}{version.stderr}")
    real = capn.resolve()
    checks.check(is_elf(real) and sha256(real) == sha256(binary),
                 "bun: after that first run capn on PATH is the native binary", str(real))
    r = sb.run(str(bun), "remove", "-g", "capn-hook")
    checks.check(r.returncode == 0 and sb.capn() is None, "bun: `bun remove -g capn-hook` removes capn", r.stderr[-300:])


def uninstall(sb, checks, label):
    r = sb.run("npm", "uninstall", "-g", "capn-hook")
    left = sorted(str(p.relative_to(sb.prefix)) for p in sb.prefix.rglob("*") if "capn" in p.name)
    checks.check(r.returncode == 0 and sb.capn() is None and not left,
                 f"{label}: `npm uninstall -g capn-hook` removes capn and both packages", f"{r.stderr[-300:]} left: {left}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=str(ROOT / "target/release/capn"))
    ap.add_argument("--runs", type=int, default=150)
    ap.add_argument("--keep", action="store_true", help="keep the temp dir and print its path")
    args = ap.parse_args()
    binary = Path(args.binary).resolve()
    checks = Checks()
    tmp = Path(tempfile.mkdtemp(prefix="capn-npm-"))
    try:
        tarballs = npm_pack_ours(tmp, binary)
        for t in tarballs:
            print(f"size  {t.name}: {t.stat().st_size / 1e6:.2f} MB packed")
        old, real = old_tarball(tmp, checks)
        others = [{"name": f"@capn-hook/{s}", "version": package_json(tarballs[0])["version"], "os": [o], "cpu": [c]}
                  for s, (o, c) in OTHER_SYSTEMS.items()]
        with Registry(tarballs + ([] if real else [old]), manifest_only=others) as reg:
            sb = Sandbox(tmp, "npm", reg.url)
            upgrade_from_02(tmp, sb, checks, binary, old, real)
            project = fresh_project(tmp, sb, checks)
            hook_checks(sb, checks, project, binary, args.runs)
            uninstall(sb, checks, "upgrade")
            lazy_placement(tmp, reg.url, checks, binary, project)
            without_platform_package(tmp, reg.url, checks)
            windows_logic(tmp, checks, binary)
            bun_checks(tmp, reg.url, checks, binary, old, real)
            fetched = [p for p in reg.requests if "/-/tarballs/missing-" in p]
            checks.check(not fetched, "npm fetched no other system's package (os/cpu selection)", str(fetched))
    except subprocess.CalledProcessError as e:
        checks.check(False, f"{' '.join(map(str, e.cmd))}", (e.stderr or "")[-800:])
    finally:
        if args.keep:
            print(f"kept  {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
