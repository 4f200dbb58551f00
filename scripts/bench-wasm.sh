#!/usr/bin/env bash
# How fast the JavaScript package plays against the native library, in one run:
#
#   scripts/bench-wasm.sh [--runs N] [--seconds S] [SPEC...]      (default: all five games)
#
# Builds the wasm module (scripts/build-wasm.sh, build-wasm/) and a native release build of the
# library (gcc -O3, build-js-native/), then bindings/js/bench/bench.js plays the same seeded
# random playouts in both and prints wasm playouts/s as a ratio of native. A measurement, not
# a test: the machines are shared and noisy, so only ratios from one run mean anything.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

scripts/build-wasm.sh

native_build="$top/build-js-native"
if [ ! -f "$native_build/build.ninja" ]; then
  CC=gcc meson setup "$native_build" -Dbuildtype=release -Dtests=false -Ddocs=false \
    -Dexamples=false -Dfuzzers=false > /dev/null
fi
meson compile -C "$native_build" > /dev/null

bench="$native_build/native-bench"
gcc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -I"$top/include" -o "$bench" \
  bindings/js/bench/native-bench.c -L"$native_build/lib" -ltraditional-games \
  -Wl,-rpath,"$native_build/lib"

node bindings/js/bench/bench.js "$bench" "$@"
