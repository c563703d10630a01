#!/usr/bin/env python3
"""Sets the version of a release: scripts/set-version.py 0.4.0

Cargo.toml's `version` is the version of everything: the crate, the binary (`capn --version`),
the npm packages (scripts/npm-pack.mjs reads it) and the tag the release workflow wants
(v<version>). This writes that one line, then the two copies the Claude Code plugin format needs
(.claude-plugin/marketplace.json and plugin/.claude-plugin/plugin.json, which
tests/cli/plugin.rs holds equal to it), and refreshes Cargo.lock's entry for capn-hook.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    if len(sys.argv) != 2 or not re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", sys.argv[1]):
        sys.exit("usage: scripts/set-version.py X.Y.Z")
    version = sys.argv[1]
    cargo = ROOT / "Cargo.toml"
    text = cargo.read_text()
    new, n = re.subn(r'(?m)^(version = )"[^"]*"', rf'\g<1>"{version}"', text, count=1)
    if n != 1 or new.index("version = ") > new.index("[[bin]]"):
        sys.exit("Cargo.toml: no version line in [package]")
    cargo.write_text(new)
    for path in (ROOT / ".claude-plugin/marketplace.json", ROOT / "plugin/.claude-plugin/plugin.json"):
        data = path.read_text()
        # Replace the value in place so the file keeps its layout.
        data, n = re.subn(r'("version":\s*)"[^"]*"', rf'\g<1>"{version}"', data)
        json.loads(data)
        if n != 1:
            sys.exit(f"{path}: expected one \"version\", found {n}")
        path.write_text(data)
    subprocess.run(["cargo", "update", "--offline", "--package", "capn-hook"], cwd=ROOT, check=True)
    print(f"version {version}: Cargo.toml, Cargo.lock and the plugin manifests; tag it v{version}")


if __name__ == "__main__":
    main()
