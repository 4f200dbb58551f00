#!/bin/sh
# The ABI gate itself: scripts/abi-check.sh must pass a library that only grew and fail one
# whose released function was removed or changed its signature. Tiny libraries built here
# stand in for two releases.   usage: test_abi_gate.sh ABI_CHECK_SCRIPT
set -u
check=$1
cc=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include"

# Writes a header and a library from one list of C declarations+definitions.
build() {
  name=$1
  shift
  : > "$work/include/api.h"
  : > "$work/$name.c"
  for decl in "$@"; do
    printf '%s;\n' "$decl" >> "$work/include/api.h"
    printf '%s { return (int)x + 1; }\n' "$decl" >> "$work/$name.c"
  done
  "$cc" -g -O0 -shared -fPIC -I"$work/include" -include api.h -o "$work/$name.so" \
    "$work/$name.c" || exit 1
}

fails=0
expect() {
  want=$1 what=$2 lib=$3
  TG_ABI_HEADERS="$work/include" TG_ABI_BASELINE="$work/base.abi" "$check" "$lib" \
    > "$work/out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: abi-check exited $got, expected $want"
    cat "$work/out"
    fails=1
  else
    echo "ok: $what (exit $got): $(head -n 1 "$work/out")"
  fi
}

build base 'int f(int x)' 'int g(int x)'
TG_ABI_HEADERS="$work/include" TG_ABI_BASELINE="$work/base.abi" "$check" --update \
  "$work/base.so" > /dev/null || { echo "FAIL: could not write the baseline"; exit 1; }

expect 0 "same library" "$work/base.so"
build grown 'int f(int x)' 'int g(int x)' 'int h(int x)'
expect 0 "a function added" "$work/grown.so"
build shrunk 'int f(int x)'
expect 1 "a function removed" "$work/shrunk.so"
build changed 'int f(int x)' 'int g(long x)'
expect 1 "a parameter type changed" "$work/changed.so"
expect 2 "a missing library" "$work/no-such.so"
exit $fails
