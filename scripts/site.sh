#!/usr/bin/env bash
# Run the site for a club on one machine: the web board, online play and accounts, served by
# tg-server from one port, its data in one directory (docs/server.md, "Running the site for a
# club").
#
#   scripts/site.sh DIR [--port N] [--line-port N] [--db CONNINFO] [--build-dir B]
#                   [--wasm-build W] [--server PATH] [-- TG-SERVER-OPTION...]
#
# Builds what is missing or out of date (the WebAssembly package with scripts/build-wasm.sh in
# W, default build-wasm/; tg-server, release, in B, default build-site/; both in the
# repository unless absolute), lays the app out in DIR/site/ (scripts/assemble-site.sh), and
# starts tg-server with its web port on 127.0.0.1:N
# (default 8080; 0 picks a free one) serving it, its line port on 127.0.0.1 (default 7878),
# and the SQLite database DIR/matches.db. It prints the board's address once the server
# accepts clients (the ports are also written to DIR/web-port and DIR/line-port), and runs
# until Ctrl-C (or SIGTERM), which stops the server cleanly: the exit status is the server's,
# 0 after a clean stop.
#
# DIR is created if its parent exists; a path that is not a directory, a directory that is
# not writable or one inside web/ (which the site is copied from) is refused, as is a bad
# port, with exit status 2 and nothing started. --db names a PostgreSQL database instead
# (a postgresql:// URL or a libpq conninfo: docs/server.md, "PostgreSQL"); --server uses an
# already built tg-server. Options after -- go to tg-server as they are: behind a TLS proxy,
# --origin https://NAME --secure-cookies --trusted-proxy 127.0.0.1 (docs/server.md,
# "Behind a TLS proxy").
set -euo pipefail
# DIR and --server are the caller's paths; the build directories are the repository's.
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

usage="usage: $0 DIR [--port N] [--line-port N] [--db CONNINFO] [--build-dir B] [--wasm-build W] [--server PATH] [-- TG-SERVER-OPTION...]"
refuse() { echo "site.sh: $*" >&2; exit 2; }

if [ $# -lt 1 ] || [ -z "$1" ] || [ "${1#-}" != "$1" ]; then
  echo "$usage" >&2
  exit 2
fi
dir=$1
shift
port=8080
line_port=7878
db=
build_dir=build-site
wasm_build=build-wasm
server=
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port|--line-port|--db|--build-dir|--wasm-build|--server)
      [ $# -ge 2 ] || refuse "$1 needs a value"
      case "$1" in
        --port) port=$2 ;;
        --line-port) line_port=$2 ;;
        --db) db=$2 ;;
        --build-dir) build_dir=$2 ;;
        --wasm-build) wasm_build=$2 ;;
        --server) server=$2 ;;
      esac
      shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done

case "$dir" in /*) ;; *) dir=$caller/$dir ;; esac
case "$server" in /*|'') ;; *) server=$caller/$server ;; esac
for p in "$port" "$line_port"; do
  if ! [[ "$p" =~ ^[0-9]{1,5}$ ]] || [ "$p" -gt 65535 ]; then
    refuse "a port is a number from 0 to 65535, not '$p'"
  fi
done
if [ -e "$dir" ] && [ ! -d "$dir" ]; then
  refuse "$dir is not a directory"
fi
parent=$(dirname -- "$dir")
[ -d "$parent" ] || refuse "$parent does not exist (the site's directory is made in an existing one)"
dir=$(cd -- "$parent" && pwd -P)/$(basename -- "$dir")
case "$dir/" in
  "$(cd web && pwd -P)/"*) refuse "$dir is inside web/, which the site is copied from" ;;
esac
if [ ! -e "$dir" ]; then
  mkdir -- "$dir" || refuse "cannot make $dir"
fi
if [ ! -w "$dir" ] || [ ! -x "$dir" ]; then
  refuse "$dir is not writable"
fi
dir=$(cd -- "$dir" && pwd -P)
if [ -z "$db" ]; then
  db=$dir/matches.db
else
  case "$db" in
    postgresql://*|postgres://*|*dbname=*) ;;
    *) refuse "--db names a PostgreSQL database (postgresql://... or 'host=... dbname=...'); without it the database is $dir/matches.db" ;;
  esac
fi
if [ -n "$server" ]; then
  [ -x "$server" ] || refuse "no tg-server at $server"
fi

# Build output goes to stderr: stdout carries the site's address and the server's own lines.
scripts/build-wasm.sh --build-dir "$wasm_build" >&2
if [ -z "$server" ]; then
  if [ ! -f "$build_dir/build.ninja" ]; then
    # The server is built with the examples (meson_options.txt).
    meson setup "$build_dir" -Dbuildtype=release -Dtests=false -Ddocs=false -Dfuzzers=false >&2
  fi
  meson compile -C "$build_dir" tg-server >&2
  server=$top/$build_dir/server/tg-server
  case "$build_dir" in /*) server=$build_dir/server/tg-server ;; esac
fi
scripts/assemble-site.sh "$dir/site"

rm -f "$dir/web-port" "$dir/line-port"
"$server" --db "$db" --port "$line_port" --port-file "$dir/line-port" \
  --web "$dir/site" --web-port "$port" --web-port-file "$dir/web-port" "${extra[@]}" &
pid=$!
# A background job of a script ignores Ctrl-C: the script passes it on as SIGTERM, and the
# server closes its connections and database before it exits.
stopping=no
trap 'stopping=yes; kill -TERM "$pid" 2>/dev/null || true' INT TERM

web_port=
for _ in $(seq 600); do
  if [ -s "$dir/web-port" ]; then
    web_port=$(cat "$dir/web-port")
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  [ "$stopping" = yes ] && break
  sleep 0.1
done
# A PostgreSQL conninfo may hold a password: it is not printed.
where=$db
[ "$db" = "$dir/matches.db" ] || where="PostgreSQL"
if [ -n "$web_port" ]; then
  echo "site: http://127.0.0.1:$web_port/ (line port $(cat "$dir/line-port"), database $where); Ctrl-C stops it"
elif [ "$stopping" = no ] && kill -0 "$pid" 2>/dev/null; then
  echo "site.sh: tg-server did not open its web port within 60 s; stopping it" >&2
  kill -TERM "$pid" 2>/dev/null || true
fi

set +e
while :; do
  wait "$pid"
  status=$?
  # wait returns early when a trapped signal arrives; the server is still stopping.
  kill -0 "$pid" 2>/dev/null || break
done
exit "$status"
