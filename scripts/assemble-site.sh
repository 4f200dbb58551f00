#!/usr/bin/env bash
# Lay out the web board as tg-server --web serves it (docs/server.md, "WebSocket and the web
# app on one port"), in SITE (emptied first):
#
#   scripts/assemble-site.sh SITE
#
# SITE gets copies (the server refuses links out of its --web folder) of every file of web/
# but its tests, benchmarks and development server; the package's run-time files, built
# beforehand by scripts/build-wasm.sh, in SITE/traditional-games/; the games' pages and the
# bots' measured ratings in SITE/docs/. Used by scripts/web.sh --online and scripts/site.sh.
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 SITE" >&2
  exit 2
fi
site=$1
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The package's run-time files, as web/serve.js serves them (its packageFiles): the module's
# entry and the modules it imports, the WebAssembly file, the Worker helper, the database reader.
package_files=(traditional-games.js traditional-games-constants.js traditional-games-errors.js
  traditional-games-args.js traditional-games-rng.js traditional-games-loader.js
  traditional-games-calls.js traditional-games-rules.js traditional-games-state.js
  traditional-games-analysis.js traditional-games-records.js traditional-games.wasm
  traditional-games-search.js traditional-games-search-worker.js traditional-games-egtb-core.js)
for f in "${package_files[@]}"; do
  [ -f "bindings/js/$f" ] || { echo "assemble-site.sh: no bindings/js/$f (scripts/build-wasm.sh builds the .wasm)" >&2; exit 1; }
done
rm -rf "$site"
mkdir -p "$site/traditional-games" "$site/docs"
for f in web/*; do
  case "$f" in web/test|web/bench|web/serve.js) ;; *) cp -r "$f" "$site/" ;; esac
done
cp docs/halusa.md docs/hus.md docs/hawalis.md docs/walak-pussa.md docs/tab.md "$site/docs/"
cp -r docs/ratings "$site/docs/"
for f in "${package_files[@]}"; do cp "bindings/js/$f" "$site/traditional-games/"; done
# Endgame databases: none on this site (tg-server answers no byte ranges, which the page's
# reader asks for: docs/web.md, "Endgame databases"); the page reads the empty list that
# web/egtb/egtb.json is and analyses with the engine alone. The reader's two dependencies go
# along when installed.
if [ -d bindings/js/node_modules/fzstd ] && [ -d bindings/js/node_modules/xxhash-wasm ]; then
  cp bindings/js/node_modules/fzstd/esm/index.mjs "$site/traditional-games/fzstd.js"
  cp bindings/js/node_modules/xxhash-wasm/esm/xxhash-wasm.js "$site/traditional-games/xxhash-wasm.js"
fi
