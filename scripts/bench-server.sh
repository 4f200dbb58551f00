#!/usr/bin/env bash
# Measures tg-server (SQLite) against the file-log tg-server it replaced, in the same run:
# acknowledged moves per second with 20 and 200 clients, the p50/p99 latency of `show` under
# that load, and the restart time over 100,000 stored matches. The numbers are in
# docs/server.md.
#
#   scripts/bench-server.sh [BUILD_DIR]        (default: build-server; configured if missing)
#
# The file-log server is built from git: OLD_REV (default: the last commit before tg-server
# moved to SQLite, or HEAD if that move is not committed yet). SECONDS_PER_RUN (default 5),
# ROUNDS (default 3: the two servers take turns) and STORED (default 100000) size the run.
# Set BENCH_WORK to a directory to keep the data there.
#
# The other server benchmarks are run directly, against a built server (none is a test):
#   python3 scripts/bench-server.py --flood --new BUILD/server/tg-server [--stores sqlite,postgresql]
#       one address flooding records, searches, connections and `new` against a bystander
#   python3 scripts/bench-server-pg.py BUILD/server/tg-server     1 to 3 servers on PostgreSQL
#   python3 scripts/bench-lobby.py BUILD/server/tg-server         500 lobby users
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build-server}
[ -d "$build" ] || meson setup "$build" -Dfuzzers=false -Dtests=false -Ddocs=false
ninja -C "$build" server/tg-server >/dev/null

if [ -z "${OLD_REV:-}" ]; then
  # The commit that gave the server its SQLite dependency; the file-log server is its parent.
  moved=$(git log --reverse --format=%H -S"dependency('sqlite3')" -- examples/meson.build |
          head -n 1 || true)
  OLD_REV=${moved:+$moved^}
  OLD_REV=${OLD_REV:-HEAD}
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tg-bench-old-server.XXXXXX")
trap 'rm -rf "$work"' EXIT
git show "$OLD_REV:examples/tg-server.c" > "$work/old-server.c"
if ! grep -q fdatasync "$work/old-server.c"; then
  echo "bench-server.sh: $OLD_REV:examples/tg-server.c is not the file-log server; set OLD_REV" >&2
  exit 2
fi
libdir=$(cd "$build/lib" && pwd)
cc -std=c11 -O2 -g -Iinclude "$work/old-server.c" -L"$libdir" -ltraditional-games \
  -Wl,-rpath,"$libdir" -o "$work/old-tg-server"

echo "bench-server.sh: file-log server from $OLD_REV, SQLite server from $build" >&2
python3 scripts/bench-server.py --new "$build/server/tg-server" --old "$work/old-tg-server" \
  --seconds "${SECONDS_PER_RUN:-5}" --rounds "${ROUNDS:-3}" --stored "${STORED:-100000}" \
  ${BENCH_WORK:+--work "$BENCH_WORK"}
