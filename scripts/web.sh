#!/usr/bin/env bash
# Build the WebAssembly package and serve the web board (examples/web) for development:
#
#   scripts/web.sh [--port N] [--build-dir DIR]
#
# The module is built by scripts/build-wasm.sh (in DIR, default build-wasm/, reused from run
# to run) into bindings/js/, and examples/web/serve.js serves the app and the package on
# 127.0.0.1 only, at the address it prints (any free port unless --port is given). Nothing is
# fetched from the internet, at build time or when the page runs. Needs clang, lld, wasi-libc,
# libclang-rt-14-dev-wasm32 (scripts/setup-deps.sh) and Node 20 or later.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

port=0
build_dir=build-wasm
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    *) echo "usage: $0 [--port N] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done

scripts/build-wasm.sh --build-dir "$build_dir"
exec node examples/web/serve.js --port "$port" --package bindings/js
