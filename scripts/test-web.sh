#!/usr/bin/env bash
# The web board's tests in a real browser (web/test/web.test.js): Debian's chromium
# driven by puppeteer-core, checked against the same npm package run in Node.
#
#   scripts/test-web.sh [--wasm-build DIR] [--native-build DIR] [--screenshots DIR] [--server PATH] [--only FILES]
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
# e.g. --only sites.test.js,security.test.js). puppeteer-core
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
usage="usage: $0 [--wasm-build DIR] [--native-build DIR] [--screenshots DIR] [--server PATH] [--only FILE,...]"
while [ $# -gt 0 ]; do
  case "$1" in
    --wasm-build) wasm_build=$2; shift 2 ;;
    --native-build) native_build=$2; shift 2 ;;
    --screenshots) screenshots=$2; shift 2 ;;
    --server) server=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
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
if selected web.test.js; then
  TG_CHROMIUM="$chromium" TG_WEB_SCREENSHOTS="$screenshots" TG_PACKAGE_DIR="$top/bindings/js" \
    TG_EGTB_ORACLE="$egtb_oracle" node --test --test-reporter=spec web.test.js
fi
if [ -n "$server" ]; then
  [ -x "$server" ] || { echo "test-web.sh: no tg-server at $server" >&2; exit 1; }
  for name in online.test.js sites.test.js security.test.js tls-proxy.test.js; do
    selected "$name" || continue
    TG_CHROMIUM="$chromium" TG_SERVER="$server" TG_PACKAGE_DIR="$top/bindings/js" \
      node --test --test-reporter=spec "$name"
  done
  # scripts/site.sh with that server and this wasm build: it builds nothing more.
  if selected site.test.js; then
    TG_SERVER="$server" TG_WASM_BUILD="$wasm_build" node --test --test-reporter=spec site.test.js
  fi
fi
