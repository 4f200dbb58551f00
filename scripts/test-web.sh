#!/usr/bin/env bash
# The web board's tests in a real browser (web/test/web.test.js): Debian's chromium
# driven by puppeteer-core, checked against the same npm package run in Node.
#
#   scripts/test-web.sh [--wasm-build DIR] [--native-build DIR] [--screenshots DIR] [--server PATH] [--only FILES] [--lanes 1|2]
#
# --native-build names a meson build of the library for this machine (its lib/ holds
# libtraditional-games.so), against which bindings/js/test/egtb-oracle.c is built: it builds
# the endgame database the page's analysis is served; without it the library is built in
# build-js-native/ (library only), as scripts/test-js.sh does.
#
# --wasm-build is the WebAssembly build directory that scripts/build-wasm.sh reuses (default
# build-wasm/; scripts/test.sh passes the one its JavaScript step built). --screenshots writes
# a screenshot of each game there (scripts/test-web.sh --screenshots docs/images regenerates
# the documentation's). --server names a built tg-server: the online tests
# (web/test/online.test.js) then also run, pages playing each other through it over
# WebSocket, and so do those of scripts/site.sh (web/test/site.test.js), of a site of two
# instances on a throw-away PostgreSQL cluster (web/test/sites.test.js) and the security
# cases (web/test/security.test.js), and the site behind nginx terminating TLS
# (web/test/tls-proxy.test.js). --only runs only the named test files (comma-separated,
# e.g. --only sites.test.js,security.test.js). With --server, web.test.js runs beside the
# others (--lanes 1: one after the other; below). puppeteer-core
# comes from the npm registry, pinned by web/test/package-lock.json (`npm ci`); it never
# downloads a browser. Needs Node 20
# or later and the Debian package chromium (/usr/bin/chromium, or TG_CHROMIUM).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

wasm_build=build-wasm
native_build=
screenshots=
server=
only=
lanes=2
usage="usage: $0 [--wasm-build DIR] [--native-build DIR] [--screenshots DIR] [--server PATH] [--only FILE,...] [--lanes 1|2]"
while [ $# -gt 0 ]; do
  case "$1" in
    --wasm-build) wasm_build=$2; shift 2 ;;
    --native-build) native_build=$2; shift 2 ;;
    --screenshots) screenshots=$2; shift 2 ;;
    --server) server=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --lanes) lanes=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
case "$lanes" in 1|2) ;; *) echo "test-web.sh: --lanes takes 1 or 2" >&2; exit 2 ;; esac
case "$screenshots" in /*|'') ;; *) screenshots="$top/$screenshots" ;; esac
case "$wasm_build" in /*) ;; *) wasm_build="$top/$wasm_build" ;; esac
case "$server" in /*|'') ;; *) server="$top/$server" ;; esac

# Whether the test file $1 runs: all of them, or those --only names.
selected() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
for name in ${only//,/ }; do
  [ -f "web/test/$name" ] || { echo "test-web.sh: no test file web/test/$name" >&2; exit 2; }
  if [ -z "$server" ] && [ "$name" != web.test.js ]; then
    echo "test-web.sh: $name needs --server" >&2; exit 2
  fi
done

chromium=${TG_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "test-web.sh: no $chromium (apt-get install chromium)" >&2; exit 1; }

scripts/build-wasm.sh --build-dir "$wasm_build"

if [ -z "$native_build" ]; then
  native_build="$top/build-js-native"
  if [ ! -f "$native_build/build.ninja" ]; then
    meson setup "$native_build" -Dbuildtype=release -Dtests=false -Ddocs=false -Dexamples=false \
      -Dfuzzers=false > /dev/null
  fi
  meson compile -C "$native_build" > /dev/null
fi
case "$native_build" in /*) ;; *) native_build="$top/$native_build" ;; esac
egtb_oracle="$wasm_build/egtb-oracle"
cc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -I"$top/include" \
  -o "$egtb_oracle" bindings/js/test/egtb-oracle.c \
  -L"$native_build/lib" -ltraditional-games -Wl,-rpath,"$native_build/lib"

# The package's dependencies (the endgame databases' reader's), which the server hands the page.
(cd bindings/js && npm ci --no-audit --no-fund --loglevel=error)
cd web/test
npm ci --no-audit --no-fund --loglevel=error
# The board's own tests (web.test.js: the app served by web/serve.js, no tg-server) and the
# site's (those below, each with tg-servers of its own) share nothing but the machine: with
# --server they run side by side, web.test.js in the background with its report kept in a
# file and printed when both are done, since each is mostly waiting on a browser, so one
# after the other leaves a core idle (about 345 s to 230 s on the idle 2-core machine).
# --lanes 1 runs them one after the other; screenshots are always taken alone.
board_log=
board_pid=
if selected web.test.js; then
  board() {
    TG_CHROMIUM="$chromium" TG_WEB_SCREENSHOTS="$screenshots" TG_PACKAGE_DIR="$top/bindings/js" \
      TG_EGTB_ORACLE="$egtb_oracle" node --test --test-reporter=spec web.test.js
  }
  if [ -n "$server" ] && [ "$lanes" -gt 1 ] && [ -z "$screenshots" ]; then
    board_log=$(mktemp "${TMPDIR:-/tmp}/tg-web-board.XXXXXX")
    board > "$board_log" 2>&1 &
    board_pid=$!
    echo "test-web.sh: web.test.js runs beside the site's tests; its report follows theirs"
  else
    board
  fi
fi
site_status=0
if [ -n "$server" ]; then
  [ -x "$server" ] || { echo "test-web.sh: no tg-server at $server" >&2; exit 1; }
  # Every file runs, a failure noted (so that web.test.js is still waited for and reported).
  for name in online.test.js sites.test.js security.test.js tls-proxy.test.js; do
    selected "$name" || continue
    TG_CHROMIUM="$chromium" TG_SERVER="$server" TG_PACKAGE_DIR="$top/bindings/js" \
      node --test --test-reporter=spec "$name" || { site_status=1; echo "test-web.sh: $name failed" >&2; }
  done
  # scripts/site.sh with that server and this wasm build: it builds nothing more.
  if selected site.test.js; then
    TG_SERVER="$server" TG_WASM_BUILD="$wasm_build" node --test --test-reporter=spec site.test.js ||
      { site_status=1; echo "test-web.sh: site.test.js failed" >&2; }
  fi
fi
if [ -n "$board_pid" ]; then
  board_status=0
  wait "$board_pid" || board_status=$?
  echo "==== web.test.js (run beside the site's tests)"
  cat "$board_log"
  rm -f "$board_log"
  [ "$board_status" -eq 0 ] || { echo "test-web.sh: web.test.js failed" >&2; exit "$board_status"; }
fi
exit "$site_status"
