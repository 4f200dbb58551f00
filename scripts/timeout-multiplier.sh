# shellcheck shell=bash
# Sourced by scripts/test.sh and scripts/test-platforms.sh: timeout_multiplier SLOWDOWN prints
# the --timeout-multiplier for a `meson test` run.
#
# The suites' timeouts (tests/meson.build and the others) are set for an idle machine and the
# plain gcc build, with about ten times the time they take there. Instrumented or emulated
# builds run slower, and a machine loaded by other work slower still, so each run multiplies
# the timeouts by its build's own slowdown (ASan/UBSan 4, TSan 6, valgrind 20, qemu-user 10,
# wine 2) and by the load factor read as the run starts: the load average over the cores,
# rounded up, at least 1 and at most 10. A hang still ends, at a timeout that grows with the
# load only (at load 20 on two cores, walak_pussa's 120 s under ASan becomes 4800 s: a hang
# costs time, never hides).
timeout_multiplier() {
  local slowdown=$1 cores load
  cores=$(nproc)
  load=$(cut -d ' ' -f 1 /proc/loadavg)
  python3 -c 'import math, sys
slowdown, load, cores = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(slowdown * max(1, min(10, math.ceil(load / cores))))' "$slowdown" "$load" "$cores"
}
