#!/usr/bin/env bash
# The Windows build, checked from Linux: builds capn for x86_64-pc-windows-gnu with mingw, then
# runs it under Wine 8: the smoke suite (ci/wine/smoke.sh) and the library's unit tests.
# Installs what it needs (the rustup target; gcc-mingw-w64-x86-64 and wine with apt-get).
# Wine runs in a temp prefix (WINEPREFIX) with WINEDEBUG=-all; nothing outside it is touched.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=x86_64-pc-windows-gnu

if ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target"
fi
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! command -v wine >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-mingw-w64-x86-64 wine wine64 >/dev/null
fi

work="$(mktemp -d)"
trap 'WINEPREFIX="$work/prefix" wineserver -k >/dev/null 2>&1; rm -rf "$work"' EXIT
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
mkdir -p "$work/bin"

# Wine 8 lacks ProcessPrng, which Rust's std calls for random bytes: a stand-in beside the exe.
x86_64-w64-mingw32-gcc -O2 -shared -o "$work/bin/bcryptprimitives.dll" \
  ci/wine/bcryptprimitives.c -ladvapi32

echo "== cargo build --target $target"
cargo build --target "$target"
echo "== Windows smoke suite under Wine (ci/wine/smoke.sh)"
smoke=0
ci/wine/smoke.sh "target/$target/debug/capn.exe" "$work/bin/bcryptprimitives.dll" || smoke=$?

echo "== library tests for $target under Wine"
lib_test="$(cargo test --lib --target "$target" --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["lib"]:
        print(m["executable"])')"
cp "$lib_test" "$work/bin/lib-tests.exe"
# Every library test runs: none needs more of a Windows kernel than Wine gives.
lib=0
(cd "$work" && wine "$work/bin/lib-tests.exe" --test-threads 2) || lib=$?
if [ "$smoke" -ne 0 ] || [ "$lib" -ne 0 ]; then
  echo "Windows checks FAILED (smoke exit $smoke, library tests exit $lib)"
  exit 1
fi
