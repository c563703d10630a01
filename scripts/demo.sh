#!/usr/bin/env bash
# Builds capn (release) and runs the main job on real input: a scratch copy of this repository
# gets a chart of real questions about its own code, then reworded questions are asked, and a
# file is edited to show that its answer is hidden while the file differs and answers again once
# it is back. Nothing in your clone is changed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
echo "Building the release binary (the first build takes a few minutes, 5 to 8 on 2 cores; later runs are instant)..."
cargo build --release --manifest-path "$here/Cargo.toml"
capn="$here/target/release/capn"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/capn-demo.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
# The project and a home for this run side by side: the per-user state dir (where capn keeps
# the key that signs its install record) must lie outside the project.
work="$scratch/project"
mkdir -p "$work"
git -C "$here" ls-files -z | (cd "$here" && xargs -0 tar cf -) | tar xf - -C "$work"
cd "$work"
git init -q .
export HOME="$scratch/home" XDG_STATE_HOME="$scratch/home/state"
mkdir -p "$HOME"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step capn init
"$capn" init
step capn chart "Where are stale answers detected and hidden before ask answers?" ...
"$capn" chart "Where are stale answers detected and hidden before ask answers?" \
  --files src/store/fresh.rs,src/store/ask.rs,src/cmd/ask.rs \
  --details "store/ask.rs verified() checks only the charts a search returns, through the stat cache; a stale one is left out (and kept) and the search runs again"
step capn chart "How is the hook registration merged into .claude/settings.json without clobbering?" ...
"$capn" chart "How is the hook registration merged into .claude/settings.json without clobbering?" \
  --files src/install/mod.rs,hooks-config/claude.json,src/cmd/init.rs \
  --details "merge() adds only absent handlers; unparseable files are refused before anything is written"
step capn chart "Which function writes files atomically?" --files src/fsutil.rs
"$capn" chart "Which function writes files atomically?" --files src/fsutil.rs

step capn ask "where are stale answers hidden?"
"$capn" ask "where are stale answers hidden?" || echo "(exit $? : a miss)"
step capn ask "which function writes a file atomically?"
"$capn" ask "which function writes a file atomically?" || echo "(exit $? : a miss)"
step capn ask "what hides outdated entries?"
"$capn" ask "what hides outdated entries?" || echo "(exit $? : a miss; the related lines are suggestions, not answers)"
step capn ask "how do I configure the kubernetes ingress?"
"$capn" ask "how do I configure the kubernetes ingress?" || echo "(exit $? : a miss)"

step "edit src/fsutil.rs, then ask the same question again"
cp src/fsutil.rs "$scratch/fsutil.rs.orig"
echo "// edited" >> src/fsutil.rs
"$capn" ask "which function writes a file atomically?" || echo "(exit $? : the answer is stale, so it is hidden, and kept)"
step capn list
"$capn" list
step "put src/fsutil.rs back as it was (as git checkout or stash pop would), then ask again"
cp "$scratch/fsutil.rs.orig" src/fsutil.rs
"$capn" ask "which function writes a file atomically?" || echo "(exit $? : a miss)"

cat <<'NEXT'

Next: install capn and set it up in your own project:
  cargo install --locked --path .     # puts capn in ~/.cargo/bin
  cd your-project && capn init && capn doctor
(or add this repository as a Claude Code plugin marketplace: see README.md, "Install")
NEXT
