#!/usr/bin/env bash
# Build the WebAssembly module and run the JavaScript package's tests (bindings/js/test, with
# Node's own runner), comparing against the native library in the same run, and the bundler
# tests (bindings/js/test/bundlers: esbuild and webpack bundles run in headless Chromium):
#
#   scripts/test-js.sh [--native-build DIR] [--wasm-build DIR]
#
# --native-build names a meson build of the library for this machine (its lib/ holds
# libtraditional-games.so); without it the library is built in build-js-native/ (library only).
# --wasm-build is the wasm build directory (default build-wasm/). Both are reused from run to
# run. `npm test` in bindings/js runs this script. Needs Node 20.19 or later, npm and the Debian
# package chromium (/usr/bin/chromium, or TG_CHROMIUM); typescript and @types/node come from
# the npm registry, pinned by bindings/js/package-lock.json (with the package's own
# dependencies fzstd and xxhash-wasm, which read endgame databases), esbuild, webpack and
# puppeteer-core by bindings/js/test/bundlers/package-lock.json (`npm ci`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

native_build=
wasm_build=build-wasm
while [ $# -gt 0 ]; do
  case "$1" in
    --native-build) native_build=$2; shift 2 ;;
    --wasm-build) wasm_build=$2; shift 2 ;;
    *) echo "usage: $0 [--native-build DIR] [--wasm-build DIR]" >&2; exit 2 ;;
  esac
done
case "$wasm_build" in /*) ;; *) wasm_build="$top/$wasm_build" ;; esac

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
node_ok=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 1 : 0' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ] || [ "$node_ok" != 1 ]; then
  echo "test-js.sh: the JavaScript package needs Node 20.19 or later (found: $(node --version 2>/dev/null || echo none))." >&2
  exit 1
fi

scripts/build-wasm.sh --build-dir "$wasm_build"
# The same module with at most 16 MiB of memory: the tests make the library run out of it.
scripts/build-wasm.sh --build-dir "$wasm_build" --output "$wasm_build/traditional-games-16mib.wasm" \
  --max-memory 16777216

if [ -z "$native_build" ]; then
  native_build="$top/build-js-native"
  if [ ! -f "$native_build/build.ninja" ]; then
    meson setup "$native_build" -Dbuildtype=release -Dtests=false -Ddocs=false -Dexamples=false \
      -Dfuzzers=false > /dev/null
  fi
  meson compile -C "$native_build" > /dev/null
fi
case "$native_build" in /*) ;; *) native_build="$top/$native_build" ;; esac
native_lib="$native_build/lib"
[ -f "$native_lib/libtraditional-games.so" ] ||
  { echo "test-js.sh: no libtraditional-games.so in $native_lib" >&2; exit 1; }

oracle="$wasm_build/native-oracle"
cc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -I"$top/include" \
  -o "$oracle" bindings/js/test/native-oracle.c \
  -L"$native_lib" -ltraditional-games -Wl,-rpath,"$native_lib"
# The learning interface's oracle (test/learning.test.js): batches stepped natively.
learning_oracle="$wasm_build/learning-oracle"
cc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -I"$top/include" \
  -o "$learning_oracle" bindings/js/test/learning-oracle.c \
  -L"$native_lib" -ltraditional-games -Wl,-rpath,"$native_lib"

# The endgame databases' oracle (test/egtb.test.js): databases built and probed natively.
egtb_oracle="$wasm_build/egtb-oracle"
cc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -I"$top/include" \
  -o "$egtb_oracle" bindings/js/test/egtb-oracle.c \
  -L"$native_lib" -ltraditional-games -Wl,-rpath,"$native_lib"

chromium=${TG_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "test-js.sh: no $chromium (apt-get install chromium)" >&2; exit 1; }

cd bindings/js
npm ci --no-audit --no-fund --loglevel=error
(cd test/bundlers && npm ci --no-audit --no-fund --loglevel=error)
# --expose-gc: the tests of the finalizers collect garbage on purpose.
TG_NATIVE_ORACLE="$oracle" TG_LEARNING_ORACLE="$learning_oracle" TG_EGTB_ORACLE="$egtb_oracle" \
  TG_WASM_CAPPED="$wasm_build/traditional-games-16mib.wasm" \
  TG_CHROMIUM="$chromium" node --expose-gc --test test/*.test.js test/bundlers/bundlers.test.js
