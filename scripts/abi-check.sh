#!/usr/bin/env bash
# The ABI gate (libabigail). Compares a built library, or any ABI corpus, with a baseline and
# fails on anything but additions.
#
#   scripts/abi-check.sh LIBRARY [BASELINE]   compare (BASELINE: abi/libtraditional-games.so.0.abi)
#   scripts/abi-check.sh --update LIBRARY     rewrite the baseline from LIBRARY (a release does
#                                             this, see README.md "ABI policy")
#
# LIBRARY must carry debug information (the default debugoptimized build does). Only the types
# reachable from include/ count, so internal structures may change freely. Exit status: 0 when
# the ABI is equal or only grew (new functions or variables), 1 on an incompatible change, 2
# when the comparison itself could not be made.
set -uo pipefail
# Paths given relative to where we were called from (meson runs tests in the build directory).
absolute() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$(pwd)" "$1" ;; esac; }
args=()
for a in "$@"; do
  case "$a" in -*) args+=("$a") ;; *) args+=("$(absolute "$a")") ;; esac
done
set -- "${args[@]}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

headers=${TG_ABI_HEADERS:-include}  # the public headers (the gate's own test points elsewhere)
default_baseline=${TG_ABI_BASELINE:-abi/libtraditional-games.so.0.abi}

if ! command -v abidiff >/dev/null 2>&1 || ! command -v abidw >/dev/null 2>&1; then
  echo "abi-check: abidw/abidiff not found (Debian package abigail-tools)" >&2
  exit 2
fi

# libabigail tells a public type from a private one by the base name of the file that declares
# it, not its path: a header of lib/ named like one of include/ (lib/bot.h and a public bot.h)
# would make that internal header's types public to the gate, so internal changes would fail it.
if [ -d lib ]; then
  clash=$(
    { find "$headers" -name '*.h' -exec basename {} \; | sort -u
      find lib -name '*.h' -exec basename {} \; | sort -u; } | sort | uniq -d
  )
  if [ -n "$clash" ]; then
    echo "abi-check: public and internal headers share a base name, which libabigail cannot" >&2
    echo "tell apart (rename one): $(echo $clash)" >&2
    exit 2
  fi
fi

if [ "${1:-}" = "--update" ]; then
  [ $# -eq 2 ] || { echo "usage: $0 --update LIBRARY" >&2; exit 2; }
  abidw --headers-dir "$headers" --drop-private-types --no-corpus-path --no-comp-dir-path \
    --short-locs --out-file "$default_baseline" "$2" || exit 2
  echo "abi-check: baseline $default_baseline written from $2"
  exit 0
fi

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 LIBRARY [BASELINE]" >&2; exit 2; }
library=$1
baseline=${2:-$default_baseline}
[ -r "$library" ] || { echo "abi-check: cannot read $library" >&2; exit 2; }
[ -r "$baseline" ] || { echo "abi-check: cannot read baseline $baseline" >&2; exit 2; }

report=$(abidiff --hd2 "$headers" "$baseline" "$library" 2>&1)
status=$?
# abidiff's status is a bit set: 1 error, 2 usage error, 4 ABI change, 8 incompatible change.
if (( status & 3 )); then
  printf 'abi-check: abidiff could not compare %s with %s:\n%s\n' "$baseline" "$library" \
    "$report" >&2
  exit 2
fi
# Removed or changed functions and variables (signatures, types reachable from the header)
# break callers; added ones do not. abidiff counts both in its summary lines.
broken=$(printf '%s\n' "$report" | grep -E 'summary:' |
  grep -oE '[0-9]+ (Removed|Changed)' | awk '$1 > 0' || true)
if (( status & 8 )) || [ -n "$broken" ]; then
  printf 'abi-check: INCOMPATIBLE ABI CHANGE against %s:\n\n%s\n\n' "$baseline" "$report"
  echo "A released function or type changed or disappeared. Keep the old one and add a new"
  echo "symbol (a _v2 function in a new version node of lib/traditional-games.map) instead;"
  echo "only a new major version (new SONAME) may break the ABI, and then the baseline is"
  echo "rewritten with: scripts/abi-check.sh --update LIBRARY"
  exit 1
fi
if (( status & 4 )); then
  printf 'abi-check: compatible ABI additions against %s:\n%s\n' "$baseline" "$report"
else
  echo "abi-check: ABI identical to $baseline"
fi
exit 0
