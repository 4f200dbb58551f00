#!/bin/sh
# The exported-symbol check (ARCHITECTURE.md: "A test compares the header's TG_API names, the
# map and nm -D --defined-only of the built library").
#
#   test_symbols.sh HEADER MAPFILE LIBRARY
#
# HEADER is include/traditional-games.h, read with the topic headers it includes. The three sets
# must be equal: every TG_API function is in the version script and exported, nothing else is
# exported (no internal tg__ helper, no stray symbol), and the map names no function the
# header lacks. Version-node markers (TG_0.1, ...) are not symbols of the API.
# Also checks that every exported function carries a version from the map (nm -D shows
# name@@TG_x.y) and that the SONAME is libtraditional-games.so.MAJOR.
set -u

if [ $# -ne 3 ]; then
    echo "usage: $0 HEADER MAPFILE LIBRARY" >&2
    exit 2
fi
header=$1
map=$2
lib=$3
NM=${NM:-nm}

for f in "$header" "$map" "$lib"; do
    if [ ! -r "$f" ]; then
        echo "cannot read $f"
        exit 1
    fi
done
if ! command -v "$NM" >/dev/null 2>&1; then
    echo "no $NM: skipped"
    exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# The header as a program gets it: each `#include "..."` (the topic headers) replaced by that
# file's text, resolved next to the including file, once per file as the include guards do. A
# topic header the main header fails to include leaves its functions out, and fails below.
awk '
function expand(file,    dir, line, inc, got) {
    if (file in seen)
        return
    seen[file] = 1
    dir = file
    sub(/[^\/]*$/, "", dir)
    while ((got = (getline line < file)) > 0) {
        if (line ~ /^[ \t]*#[ \t]*include[ \t]*"[^"]+"/) {
            inc = line
            sub(/^[^"]*"/, "", inc)
            sub(/".*$/, "", inc)
            expand(dir inc)
        } else {
            print line
        }
    }
    if (got < 0) {
        print "cannot read " file " (included from the header)" > "/dev/stderr"
        failed = 1
    }
    close(file)
}
BEGIN { expand(ARGV[1]); exit failed }' "$header" >"$tmp/header.h" || exit 1

# Header: the identifier before the parameter list of each declaration that starts with
# TG_API (declarations may continue on the next lines; the name is on the TG_API line).
sed -n 's/^[[:space:]]*TG_API[[:space:]].*[^A-Za-z0-9_]\(tg_[A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' \
    "$tmp/header.h" | LC_ALL=C sort >"$tmp/header"

# Map: the names listed in the global sections (`name;` lines), comments removed.
sed -e 's:/\*.*\*/::g' -e 's/#.*//' "$map" |
    sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*;[[:space:]]*$/\1/p' |
    grep -v '^local$' | LC_ALL=C sort >"$tmp/map"

# Library: defined dynamic symbols, without @version suffixes, without version-node markers
# (absolute symbols named like the map's nodes, e.g. TG_0.1).
nodes=$(sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_.]*\)[[:space:]]*{.*/\1/p' "$map")
"$NM" -D --defined-only "$lib" >"$tmp/nm.raw" || { echo "$NM -D failed on $lib"; exit 1; }
awk 'NF >= 3 { print $3 }' "$tmp/nm.raw" | sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/nm.all"
cp "$tmp/nm.all" "$tmp/nm"
for node in $nodes; do
    grep -vxF "$node" "$tmp/nm" >"$tmp/nm.tmp"
    mv "$tmp/nm.tmp" "$tmp/nm"
done

status=0
report() { # title, file-a, name-a, file-b, name-b
    only_a=$(LC_ALL=C comm -23 "$2" "$4")
    only_b=$(LC_ALL=C comm -13 "$2" "$4")
    if [ -n "$only_a" ] || [ -n "$only_b" ]; then
        echo "FAIL: $1"
        [ -n "$only_a" ] && echo "  only in $3:" && echo "$only_a" | sed 's/^/    /'
        [ -n "$only_b" ] && echo "  only in $5:" && echo "$only_b" | sed 's/^/    /'
        status=1
    else
        echo "ok: $1 ($(wc -l <"$2" | tr -d ' ') names)"
    fi
}

n=$(wc -l <"$tmp/header" | tr -d ' ')
if [ "$n" -lt 1 ]; then
    echo "FAIL: no TG_API declarations found in $header"
    exit 1
fi
if [ -n "$(uniq -d "$tmp/header")" ]; then
    echo "FAIL: declared twice in the header:"; uniq -d "$tmp/header" | sed 's/^/    /'
    status=1
fi
if [ -n "$(uniq -d "$tmp/map")" ]; then
    echo "FAIL: listed twice in the map:"; uniq -d "$tmp/map" | sed 's/^/    /'
    status=1
fi
sort -u -o "$tmp/header" "$tmp/header"
sort -u -o "$tmp/map" "$tmp/map"

report "header TG_API names = map names" "$tmp/header" "the header" "$tmp/map" "the map"
report "header TG_API names = exported symbols" "$tmp/header" "the header" "$tmp/nm" \
    "the library's dynamic symbols"
report "map names = exported symbols" "$tmp/map" "the map" "$tmp/nm" \
    "the library's dynamic symbols"

# Every exported tg_ symbol is versioned by a node of the map.
unversioned=$(awk 'NF >= 3 && $3 ~ /^tg_/ && $3 !~ /@/ { print $3 }' "$tmp/nm.raw")
if [ -n "$unversioned" ]; then
    # Older binutils print no versions with -D; only complain if some symbol has one.
    if grep -q '@' "$tmp/nm.raw"; then
        echo "FAIL: exported without a version node:"; echo "$unversioned" | sed 's/^/    /'
        status=1
    fi
else
    bad=""
    for v in $(awk 'NF >= 3 && $3 ~ /^tg_/ { sub(/^[^@]*@+/, "", $3); print $3 }' "$tmp/nm.raw" |
               sort -u); do
        echo "$nodes" | grep -qxF "$v" || bad="$bad $v"
    done
    if [ -n "$bad" ]; then
        echo "FAIL: symbol versions not in the map:$bad"
        status=1
    else
        echo "ok: every exported function carries a version node of the map"
    fi
fi

# The SONAME is the ABI major only.
if command -v readelf >/dev/null 2>&1; then
    soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
    case $soname in
        libtraditional-games.so.[0-9]*)
            case ${soname#libtraditional-games.so.} in
                *.*) echo "FAIL: SONAME $soname carries more than the major version"; status=1 ;;
                *) echo "ok: SONAME $soname" ;;
            esac ;;
        *) echo "FAIL: SONAME is '$soname'"; status=1 ;;
    esac
fi

exit $status
