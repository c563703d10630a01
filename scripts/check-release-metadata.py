#!/usr/bin/env python3
"""Refuses a release while Cargo.toml lacks the registry metadata crates.io and npm show.

Reads `cargo metadata --no-deps --format-version 1` on stdin and checks that the capn-hook
package sets `repository`, `homepage` and `documentation` to https addresses that are not
placeholders (nothing under example.com/.org/.net, a .invalid/.test/.example host, or holding
OWNER, PLACEHOLDER or SET-BEFORE). They are left out of Cargo.toml until the project has its
public home: nobody may invent them. Exit 0 when all three are set; 1, with one GitHub Actions
error line per problem, otherwise. Run by .github/workflows/release.yml before anything is built.
"""

import json
import re
import sys

FIELDS = ("repository", "homepage", "documentation")
PLACEHOLDER = re.compile(
    r"example\.(com|org|net)|\.(invalid|test|example)(/|$)|OWNER|PLACEHOLDER|SET-BEFORE",
    re.IGNORECASE,
)


def problems(package: dict) -> list[str]:
    out = []
    for field in FIELDS:
        value = package.get(field) or ""
        if not value:
            out.append(f"Cargo.toml [package] has no `{field}`")
        elif not value.startswith("https://"):
            out.append(f"Cargo.toml `{field}` is not an https address: {value}")
        elif PLACEHOLDER.search(value):
            out.append(f"Cargo.toml `{field}` is still a placeholder: {value}")
    return out


def main() -> int:
    meta = json.load(sys.stdin)
    package = next(p for p in meta["packages"] if p["name"] == "capn-hook")
    found = problems(package)
    for p in found:
        print(
            f"::error::{p}. Set repository, homepage and documentation in Cargo.toml to the "
            "project's real public addresses before releasing: crates.io and npm link to them."
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
