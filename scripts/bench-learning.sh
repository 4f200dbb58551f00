#!/usr/bin/env bash
# The learning interface's speed in one run (docs/learning.md, "Measured"): for each rule set,
# tg_state_playout's plies/s and tg_batch_step's steps/s at batch 1024 with observations and
# masks written (tools/bench-learning.c, compiled here against a release build), then
# VectorEnv.step's steps/s at n=1024 with random legal actions chosen in numpy
# (scripts/bench-learning.py). Run it niced on a quiet machine; only ratios of one run count.
#
#   scripts/bench-learning.sh [BUILD_DIR] [SECONDS] [SPEC...]
#
# BUILD_DIR (default build-release) is made with --buildtype=release if it does not exist.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$top/build-release}
seconds=${2:-2}
shift $(($# > 2 ? 2 : $#))
specs=("$@")
if [ "${#specs[@]}" -eq 0 ]; then
  specs=(halusa hus hus:width=16 hawalis hawalis:variant=zanzibar walak-pussa
         walak-pussa:rounds=match tab tab:width=29)
fi

if [ ! -d "$build" ]; then
  meson setup "$build" "$top" --buildtype=release -Ddocs=false -Dtests=false >/dev/null
fi
meson compile -C "$build" traditional-games >/dev/null
lib=$(ls "$build"/lib/libtraditional-games.so.*.*.* | head -n 1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -std=c11 -I"$top/include" "$top/tools/bench-learning.c" -o "$work/bench-learning" \
  "$lib" -Wl,-rpath,"$(dirname "$lib")"

echo "# C: tg_state_playout vs tg_batch_step (batch 1024), $seconds s each"
"$work/bench-learning" "$seconds" 1024 "${specs[@]}"
echo "# Python: VectorEnv.step, n=1024, actions chosen in numpy"
TG_LIBRARY="$lib" PYTHONPATH="$top/bindings/python" PYTHONDONTWRITEBYTECODE=1 \
  /usr/bin/python3 "$top/scripts/bench-learning.py" "$seconds" 1024 "${specs[@]}"
