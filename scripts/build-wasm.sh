#!/usr/bin/env bash
# Build the library for WebAssembly and put the module into the npm package:
#
#   scripts/build-wasm.sh [--build-dir DIR] [--output FILE] [--max-memory BYTES]
#
# Meson builds the static library with cross/wasm32-wasi.txt in DIR (default build-wasm/,
# reused: a second run only rebuilds what changed); clang then links all of it into one module,
# FILE (default bindings/js/traditional-games.wasm), that exports every TG_API function plus
# malloc and free (the bindings lend it memory for strings and out-parameters) and imports
# the clock and the endgame databases' file reads (lib/egtb/host.c), which the loader provides. --max-memory caps the module's memory (default: none below wasm32's 4 GiB); the
# tests use a small cap to make the library run out of memory. Needs clang, lld, wasi-libc and libclang-rt-14-dev-wasm32 (scripts/setup-deps.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

build_dir=build-wasm
output=bindings/js/traditional-games.wasm
link_extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    --max-memory) link_extra+=("-Wl,--max-memory=$2"); shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR] [--output FILE] [--max-memory BYTES]" >&2; exit 2 ;;
  esac
done
case "$build_dir" in /*) ;; *) build_dir="$top/$build_dir" ;; esac
case "$output" in /*) ;; *) output="$top/$output" ;; esac

# Only the library: the tests, examples and docs are native programs. Position-independent
# code would make every global access go through a table the static link resolves anyway.
options=(-Ddefault_library=static -Db_staticpic=false -Dbuildtype=release
  -Dtests=false -Ddocs=false -Dexamples=false -Dfuzzers=false)
# Meson does not notice a changed cross file (e.g. new compiler flags): a build directory set
# up with another one is set up again.
cross_stamp="$build_dir/tg-cross-file.txt"
if [ -f "$build_dir/build.ninja" ] && ! cmp -s "$top/cross/wasm32-wasi.txt" "$cross_stamp"; then
  meson setup --wipe "$build_dir" --cross-file "$top/cross/wasm32-wasi.txt" "${options[@]}" > /dev/null
elif [ -f "$build_dir/build.ninja" ]; then
  meson configure "$build_dir" "${options[@]}" > /dev/null
else
  meson setup "$build_dir" --cross-file "$top/cross/wasm32-wasi.txt" "${options[@]}" > /dev/null
fi
cp "$top/cross/wasm32-wasi.txt" "$cross_stamp"
meson compile -C "$build_dir" > /dev/null

archive="$build_dir/lib/libtraditional-games.a"
[ -f "$archive" ] || { echo "build-wasm.sh: $archive was not built" >&2; exit 1; }

# A reactor has no main: the host calls _initialize once, then any export. --whole-archive
# keeps every object, and --export-dynamic exports exactly what the sources left visible:
# the TG_API functions (everything else is built with -fvisibility=hidden).
# bindings/js/wasm/sbrk.c replaces wasi-libc's sbrk: memory grows geometrically (see there).
mkdir -p "$(dirname "$output")"
clang --target=wasm32-wasi -msimd128 -mexec-model=reactor -O3 -std=c11 -Wall -Wextra -Wpedantic -Werror \
  "$top/bindings/js/wasm/sbrk.c" \
  -Wl,--whole-archive "$archive" -Wl,--no-whole-archive \
  -Wl,--export-dynamic -Wl,--export=malloc -Wl,--export=free -Wl,--strip-all \
  ${link_extra[@]+"${link_extra[@]}"} -o "$output.tmp"
mv "$output.tmp" "$output"

# npm packs the licence from the package folder.
package_dir=$(dirname "$output")
if [ -f "$package_dir/package.json" ]; then cp "$top/LICENSE" "$package_dir/LICENSE"; fi

raw=$(wc -c < "$output")
gz=$(gzip -9 -n -c "$output" | wc -c)
echo "build-wasm.sh: ${output#"$top"/}: $raw bytes ($gz gzip -9)"
