#!/usr/bin/env bash
# The web board's benchmark: how long the page's longest main-thread task is while a bot
# thinks in the worker (web/bench/main-thread.js), in headless Chromium. The browser test
# asserts only what the design guarantees (that task is far shorter than the search); this
# gives the figure itself, to be read on an idle machine.
#
#   scripts/bench-web.sh [--wasm-build DIR] [--runs N]
#
# Needs what scripts/test-web.sh needs (it installs puppeteer-core the same way).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

wasm_build=build-wasm
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --wasm-build) wasm_build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: $0 [--wasm-build DIR] [--runs N]" >&2; exit 2 ;;
  esac
done
chromium=${TG_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "bench-web.sh: no $chromium (apt-get install chromium)" >&2; exit 1; }
scripts/build-wasm.sh --build-dir "$wasm_build"
(cd web/test && npm ci --no-audit --no-fund --loglevel=error)
TG_CHROMIUM="$chromium" TG_PACKAGE_DIR="$top/bindings/js" node web/bench/main-thread.js --runs "$runs"
