#!/bin/sh
# Out-of-tree use of an installed library, as a downstream project would build it.
#
#   test_install.sh SOURCE_ROOT VERSION [IN_TREE_EMBED]
#
# Configures a separate build of SOURCE_ROOT with --prefix in a temporary directory (tests,
# docs, examples off), installs it there, checks the installed headers (traditional-games.h
# and its topic headers), library links and pkg-config file, builds tests/integration/header_c.c
# (only #include <traditional-games.h>) and each topic header on its own against the installed
# tree, warnings as errors, then compiles examples/embed.c with
# `cc $(pkg-config --cflags --libs traditional-games)` and runs it against the installed
# library. With IN_TREE_EMBED (the embed example of the main build), both must print the same
# game for the same seed. The temporary directory is removed at the end.
# Tools: MESON, CC, PKG_CONFIG from the environment, else meson, cc, pkg-config.
# Exit 77 (skipped) when a tool is missing.
set -u

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 SOURCE_ROOT VERSION [IN_TREE_EMBED]" >&2
    exit 2
fi
src=$1
version=$2
intree=${3:-}
MESON=${MESON:-meson}
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

for tool in "$MESON" "$CC" "$PKG_CONFIG"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool not found"
        exit 77
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tg-install-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM
prefix=$tmp/prefix
status=0

fail() {
    echo "FAIL: $*"
    status=1
}

run() { # log-name, command...: run quietly, show the log on failure
    name=$1
    shift
    if ! "$@" >"$tmp/$name.log" 2>&1; then
        echo "FAIL: $*"
        cat "$tmp/$name.log"
        exit 1
    fi
}

# A separate build directory of the same sources, installed under $prefix.
run setup "$MESON" setup "$tmp/build" "$src" --prefix "$prefix" --buildtype release \
    -Dtests=false -Ddocs=false -Dexamples=false
run compile "$MESON" compile -C "$tmp/build"
run install "$MESON" install -C "$tmp/build" --no-rebuild
echo "ok: installed into a temporary prefix"

# What a user of the package finds there: traditional-games.h and the topic headers it
# includes, in include/traditional-games/, each as in the source, and no other.
header=$prefix/include/traditional-games.h
if [ -f "$header" ]; then echo "ok: header $header"; else fail "no installed header at $header"; fi
cmp -s "$header" "$src/include/traditional-games.h" || fail "installed header differs from the source"
(cd "$src/include" && find traditional-games -name '*.h' | LC_ALL=C sort) >"$tmp/topics.src"
(cd "$prefix/include" && find traditional-games -name '*.h' 2>/dev/null | LC_ALL=C sort) \
    >"$tmp/topics.installed"
if [ ! -s "$tmp/topics.src" ]; then
    fail "no topic headers in $src/include/traditional-games"
elif ! cmp -s "$tmp/topics.src" "$tmp/topics.installed"; then
    fail "installed topic headers differ from include/traditional-games/ (< source, > installed):"
    diff "$tmp/topics.src" "$tmp/topics.installed" | sed 's/^/    /'
else
    while read -r topic; do
        cmp -s "$prefix/include/$topic" "$src/include/$topic" ||
            fail "installed $topic differs from the source"
    done <"$tmp/topics.src"
    echo "ok: topic headers $(tr '\n' ' ' <"$tmp/topics.installed")"
fi

pc=$(find "$prefix" -name traditional-games.pc -type f | head -n 1)
if [ -z "$pc" ]; then
    fail "no traditional-games.pc installed"
    exit 1
fi
echo "ok: pkg-config file ${pc#"$prefix"/}"
pcdir=$(dirname "$pc")

real=$(find "$prefix" -name "libtraditional-games.so.$version" -type f | head -n 1)
if [ -z "$real" ]; then
    fail "no libtraditional-games.so.$version installed"
    find "$prefix" | sed 's/^/    /'
    exit 1
fi
libdir=$(dirname "$real")
major=${version%%.*}
for link in "libtraditional-games.so.$major" libtraditional-games.so; do
    if [ -L "$libdir/$link" ]; then echo "ok: link $link"; else fail "no link $link in $libdir"; fi
done

PKG_CONFIG_PATH=$pcdir
export PKG_CONFIG_PATH
got=$("$PKG_CONFIG" --modversion traditional-games) || { fail "pkg-config cannot read $pc"; exit 1; }
if [ "$got" = "$version" ]; then
    echo "ok: pkg-config --modversion $got"
else
    fail "pkg-config --modversion is '$got', the project is $version"
fi
cflags=$("$PKG_CONFIG" --cflags traditional-games)
libs=$("$PKG_CONFIG" --libs traditional-games)
case " $cflags " in
    *" -I$prefix/include "*) ;;
    *" -I"*) fail "pkg-config --cflags '$cflags' does not point into $prefix/include" ;;
    *) ;; # a system include dir may be left out by pkg-config
esac
case " $libs " in
    *" -ltraditional-games "*) echo "ok: pkg-config --libs $libs" ;;
    *) fail "pkg-config --libs '$libs' does not link -ltraditional-games" ;;
esac

# The public header alone: tests/integration/header_c.c includes only <traditional-games.h> and
# uses every kind of name it declares. Built against the installed tree, warnings as errors,
# and every traditional-games header it read must be an installed one.
# shellcheck disable=SC2086 # pkg-config output is meant to be split into words
if ! "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -MD -MF "$tmp/header_c.d" \
    -o "$tmp/header_c" "$src/tests/integration/header_c.c" $cflags $libs >"$tmp/cc.log" 2>&1; then
    fail "cannot build tests/integration/header_c.c against the installed headers:"
    cat "$tmp/cc.log"
    exit 1
fi
tr ' \\' '\n\n' <"$tmp/header_c.d" | grep 'traditional-games[^ ]*\.h$' | LC_ALL=C sort -u \
    >"$tmp/header_c.deps"
if grep -v "^$prefix/include/" "$tmp/header_c.deps" >"$tmp/header_c.stray"; then
    fail "header_c.c read traditional-games headers outside the installed tree:"
    sed 's/^/    /' "$tmp/header_c.stray"
fi
read_topics=$(grep -c "^$prefix/include/traditional-games/" "$tmp/header_c.deps")
want_topics=$(wc -l <"$tmp/topics.src" | tr -d ' ')
[ "$read_topics" -eq "$want_topics" ] ||
    fail "<traditional-games.h> includes $read_topics of the $want_topics topic headers"
if LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/header_c"; then
    echo "ok: header_c.c (only #include <traditional-games.h>, -Werror) builds and runs"
else
    fail "header_c built against the installed tree exited with an error"
fi

# Each topic header on its own, twice (its include guard), as its first and only include.
while read -r topic; do
    name=$(basename "$topic" .h)
    printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$topic" "$topic" \
        >"$tmp/alone-$name.c"
    # shellcheck disable=SC2086 # pkg-config output is meant to be split into words
    if "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -c -o "$tmp/alone-$name.o" \
        "$tmp/alone-$name.c" $cflags >"$tmp/cc.log" 2>&1; then
        echo "ok: <$topic> compiles on its own"
    else
        fail "<$topic> does not compile on its own:"
        sed 's/^/    /' "$tmp/cc.log" | head -n 20
    fi
done <"$tmp/topics.src"

# Build the README's example out of tree, warnings as errors, and run it on the installed
# library.
# shellcheck disable=SC2086 # pkg-config output is meant to be split into words
if ! "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$tmp/embed" "$src/examples/embed.c" \
    $cflags $libs >"$tmp/cc.log" 2>&1; then
    fail "cannot build examples/embed.c against the installed library:"
    cat "$tmp/cc.log"
    exit 1
fi
echo "ok: examples/embed.c builds with \$(pkg-config --cflags --libs traditional-games)"

LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
if command -v ldd >/dev/null 2>&1; then
    ldd "$tmp/embed" | grep -F "$libdir/libtraditional-games.so.$major" >/dev/null ||
        fail "embed does not load the installed library: $(ldd "$tmp/embed" | grep traditional)"
fi

for seed in 7 42 123456789; do
    if ! "$tmp/embed" $seed >"$tmp/out" 2>"$tmp/err"; then
        fail "embed $seed exited with an error: $(cat "$tmp/err")"
        continue
    fi
    line1=$(sed -n 1p "$tmp/out")
    line2=$(sed -n 2p "$tmp/out")
    lines=$(wc -l <"$tmp/out" | tr -d ' ')
    [ "$lines" = 2 ] || fail "embed $seed printed $lines lines"
    # A finished Halusa game: empty board, no side to move, scores, quiet count, result.
    if ! echo "$line1" | grep -Eq '^halusa:remainder=last-mover,quiet=100 0,0,0,0,0,0/0,0,0,0,0,0 - [0-9]+,[0-9]+ quiet=[0-9]+ winner=(0|1|draw)$'; then
        fail "embed $seed: unexpected final position '$line1'"
        continue
    fi
    scores=$(echo "$line1" | cut -d' ' -f4)
    s0=${scores%,*}
    s1=${scores#*,}
    winner=${line1##*winner=}
    [ $((s0 + s1)) -eq 72 ] || fail "embed $seed: scores $scores do not total 72"
    if [ "$s0" -gt "$s1" ]; then want=0; elif [ "$s1" -gt "$s0" ]; then want=1; else want=draw; fi
    [ "$winner" = "$want" ] || fail "embed $seed: winner=$winner with scores $scores"
    case $want in
        draw) echo "$line2" | grep -Eq '^draw after [0-9]+ plies$' ;;
        *) echo "$line2" | grep -Eq "^player $want wins after [0-9]+ plies\$" ;;
    esac || fail "embed $seed: result line '$line2' (expected winner $want)"
    if [ -n "$intree" ]; then
        if "$intree" $seed >"$tmp/out.intree" 2>&1 && cmp -s "$tmp/out" "$tmp/out.intree"; then
            :
        else
            fail "embed $seed: installed and in-tree builds differ"
            diff "$tmp/out.intree" "$tmp/out" | sed 's/^/    /'
        fi
    fi
    echo "ok: embed $seed: $line1 ($line2)"
done

exit $status
