#!/usr/bin/env bash
# Build the WebAssembly package and serve the web board (web/) for development:
#
#   scripts/web.sh [--port N] [--build-dir DIR] [--egtb DIR]
#   scripts/web.sh --online [--port N] [--build-dir DIR] [--db FILE]
#
# The module is built by scripts/build-wasm.sh (in DIR, default build-wasm/, reused from run
# to run) into bindings/js/, and web/serve.js serves the app and the package on
# 127.0.0.1 only, at the address it prints (any free port unless --port is given). Nothing is
# fetched from the internet, at build time or when the page runs. Needs clang, lld, wasi-libc,
# libclang-rt-14-dev-wasm32 (scripts/setup-deps.sh) and Node 20 or later.
#
# --egtb serves the endgame databases in DIR (one folder per rule set, as tg-egtb builds
# them) to the page's analysis (docs/web.md, "Endgame databases"); the package's two
# dependencies that read them are installed first (npm ci in bindings/js).
#
# --online serves the same app from tg-server itself (docs/server.md): the server is built in
# build-web-server/, the site (the app and the package) assembled in build-web-server/site/,
# and `tg-server --web` serves it with the WebSocket protocol on one port (8080 unless --port
# is given), keeping its matches in FILE (default build-web-server/matches.db), so the page's
# "Play online" works.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

port=
build_dir=build-wasm
online=no
egtb=
server_dir=build-web-server
db=$server_dir/matches.db
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --online) online=yes; shift ;;
    --db) db=$2; shift 2 ;;
    --egtb) egtb=$2; shift 2 ;;
    *) echo "usage: $0 [--online] [--port N] [--build-dir DIR] [--db FILE] [--egtb DIR]" >&2; exit 2 ;;
  esac
done

scripts/build-wasm.sh --build-dir "$build_dir"
if [ "$online" = no ] && [ -n "$egtb" ]; then
  (cd bindings/js && npm ci --no-audit --no-fund --loglevel=error)
  exec node web/serve.js --port "${port:-0}" --package bindings/js --egtb "$egtb"
elif [ "$online" = no ]; then
  exec node web/serve.js --port "${port:-0}" --package bindings/js
fi

if [ ! -f "$server_dir/build.ninja" ]; then
  meson setup "$server_dir" -Dtests=false -Ddocs=false -Dfuzzers=false >/dev/null
fi
meson compile -C "$server_dir" tg-server >/dev/null
site=$server_dir/site
scripts/assemble-site.sh "$site"
exec "$server_dir/server/tg-server" --db "$db" --web "$site" --web-port "${port:-8080}"
