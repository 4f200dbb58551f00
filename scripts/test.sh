#!/usr/bin/env bash
# The full check, exactly as CI runs it (.ci/run): install what is missing, then
#   1. gcc, -Dwerror=true: build everything and run the whole `meson test` suite;
#   2. the platform matrix: cross builds for aarch64, armhf, s390x and Windows x86-64, their C
#      unit suites under qemu-user or wine, and their output and exports against step 1's,
#      and the Python wheels for Windows (checked by contents) and aarch64 (installed and
#      run under qemu-user) (scripts/test-platforms.sh, docs/platforms.md); then the Doxygen
#      reference (`docs` target: any warning is an error);
#   3. install into a private prefix, build the C examples of README.md and docs/mainpage.md
#      out of tree with pkg-config, and run them and the README's Python snippet against the
#      installed library; then build the Python wheel, install it into a fresh venv and run the
#      package's tests and mypy --strict there (bindings/python/test-wheel.sh); then the
#      WebAssembly build and the JavaScript package's tests (scripts/test-js.sh), and the web
#      board in headless Chromium (scripts/test-web.sh);
#   4. clang with AddressSanitizer and UndefinedBehaviorSanitizer (and the libFuzzer targets
#      built): the suite again, but for the 'integration' suite (see below), then the ctypes
#      test against the instrumented library, and the tg-server test against the instrumented
#      server;
#   5. the suite under valgrind (`meson test --setup valgrind`), when the build defines it;
#   6. clang with ThreadSanitizer: the 8-thread test 'threads' (halt on the first report).
# Build directories live under build-ci/ (override with TG_BUILD_ROOT); they are reused, so a
# second run only rebuilds what changed. Any failure stops the script with a non-zero status.
# Each step's wall and CPU time is printed as it ends, and a table of them when the run ends.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

root=${TG_BUILD_ROOT:-build-ci}
case "$root" in /*) ;; *) root="$top/$root" ;; esac
gcc_dir="$root/gcc"
san_dir="$root/clang-sanitize"
tsan_dir="$root/clang-tsan"
prefix="$root/install"

# Where the time goes: each step's wall time and CPU time (user + sys of the processes it ran
# and waited for, read from this shell's cutime and cstime in /proc/$$/stat, so daemons such as
# wineserver are not counted), one line when the step ends and a table when the run ends, even
# a failed one. CPU time is the figure to compare between runs: wall time grows with whatever
# else the machine is doing, CPU time hardly (docs/platforms.md, "Cost").
clock_ticks=$(getconf CLK_TCK)
step_names=()
step_walls=()
step_cpus=()
step_name=
run_start=$(date +%s)
# children_cpu_ticks: the CPU time of this shell's finished children, in clock ticks.
children_cpu_ticks() {
  local fields
  read -r -a fields < "/proc/$$/stat"
  # Fields 16 and 17 (cutime, cstime); the command name, field 2, "(test.sh)", has no spaces.
  echo $((fields[15] + fields[16]))
}
step_end() {
  [ -n "$step_name" ] || return 0
  local wall cpu
  wall=$(($(date +%s) - step_start))
  cpu=$((($(children_cpu_ticks) - step_cpu_start + clock_ticks / 2) / clock_ticks))
  step_names+=("$step_name")
  step_walls+=("$wall")
  step_cpus+=("$cpu")
  printf -- '---- %s: %d s wall, %d s CPU\n' "$step_name" "$wall" "$cpu"
  step_name=
}
step() {
  step_end
  printf '\n==== %s\n' "$*"
  step_name=$*
  step_start=$(date +%s)
  step_cpu_start=$(children_cpu_ticks)
}
timing_summary() {
  step_end
  local i total_cpu=0
  printf '\n==== time by step (wall s, CPU s = user + sys)\n'
  for i in "${!step_names[@]}"; do
    printf '%6d %6d  %s\n' "${step_walls[$i]}" "${step_cpus[$i]}" "${step_names[$i]}"
    total_cpu=$((total_cpu + step_cpus[i]))
  done
  printf '%6d %6d  the whole run\n' "$(($(date +%s) - run_start))" "$total_cpu"
}
trap timing_summary EXIT

# timeout_multiplier SLOWDOWN: the suites' timeouts scaled by a build's slowdown and the
# machine's load (the reasons are in the file).
# shellcheck source=scripts/timeout-multiplier.sh
. "$top/scripts/timeout-multiplier.sh"

# meson setup DIR ARGS..., or reconfigure DIR with ARGS if it was set up before.
configure() {
  local dir=$1
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@"
  else
    meson setup "$dir" "$@"
  fi
}

step "dependencies"
./scripts/setup-deps.sh

step "gcc build (-Dwerror=true)"
CC=gcc CXX=g++ configure "$gcc_dir" \
  -Dwerror=true -Dtests=true -Ddocs=true -Dexamples=true -Dfuzzers=false \
  --prefix "$prefix"
meson compile -C "$gcc_dir"

step "gcc: meson test"
meson test -C "$gcc_dir" --print-errorlogs --timeout-multiplier "$(timeout_multiplier 1)"

# The platform matrix (docs/platforms.md): aarch64, armhf, s390x and Windows x86-64 cross
# builds, their C unit suites under qemu-user or wine, and their witness output and exports
# against this gcc build's; the Python wheels for Windows and aarch64. Here, right after the
# native suites: it needs this build and nothing later, and a platform that diverges stops the
# run before the slower instrumented ones.
step "the platform matrix (cross builds under qemu-user and wine)"
./scripts/test-platforms.sh --native-build "$gcc_dir" --build-root "$root/platforms"

step "docs (Doxygen, warnings are errors)"
meson compile -C "$gcc_dir" docs
echo "API reference: $gcc_dir/docs/html/index.html"

step "install, then the README examples against the installed library"
rm -rf "$prefix"
meson install -C "$gcc_dir" --quiet
pc=$(find "$prefix" -name traditional-games.pc -print -quit)
[ -n "$pc" ] || { echo "traditional-games.pc was not installed under $prefix" >&2; exit 1; }
PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
libdir=$(pkg-config --variable=libdir traditional-games)
readme_dir="$root/readme"
mkdir -p "$readme_dir"
# The first ```c block of README.md and of docs/mainpage.md, built out of tree with pkg-config
# and run; then the first ```python block of README.md.
first_block() { awk -v lang="$1" '$0 == "```" lang {on = 1; next} on && /^```$/ {exit} on' "$2"; }
for page in README.md docs/mainpage.md; do
  name=$(basename "$page" .md)
  first_block c "$page" > "$readme_dir/$name.c"
  [ -s "$readme_dir/$name.c" ] || { echo "$page has no C example block" >&2; exit 1; }
  # shellcheck disable=SC2046 # pkg-config output is meant to be split into words
  gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$readme_dir/$name" "$readme_dir/$name.c" \
    $(pkg-config --cflags --libs traditional-games)
  LD_LIBRARY_PATH="$libdir" "$readme_dir/$name" > "$readme_dir/$name.out"
  echo "$page example: $(tail -n 1 "$readme_dir/$name.out")"
done
first_block python README.md > "$readme_dir/snippet.py"
if [ -s "$readme_dir/snippet.py" ]; then
  LD_LIBRARY_PATH="$libdir" PYTHONPATH="$top/bindings/python" PYTHONDONTWRITEBYTECODE=1 \
    python3 "$readme_dir/snippet.py"
fi

# The Python package as pip users get it: the wheel built offline from this checkout,
# installed into a fresh venv, and its tests, the example, the README snippet and
# mypy --strict run there, away from the source tree (bindings/python/test-wheel.sh).
step "Python: wheel, fresh venv, the package's tests and mypy --strict"
./bindings/python/test-wheel.sh "$root/python"

step "WebAssembly build and the JavaScript package's tests (against the gcc build's library)"
./scripts/test-js.sh --native-build "$gcc_dir" --wasm-build "$root/wasm"

# The web board in headless Chromium, on the module of the step above (its build directory reused).
step "the web board in a real browser (Chromium driven by puppeteer-core)"
./scripts/test-web.sh --wasm-build "$root/wasm" --native-build "$gcc_dir" --server "$gcc_dir/server/tg-server"

step "clang build with -Db_sanitize=address,undefined (and the libFuzzer targets)"
CC=clang CXX=clang++ configure "$san_dir" \
  -Dwerror=true -Dtests=true -Ddocs=false -Dexamples=true -Dfuzzers=true \
  -Db_sanitize=address,undefined -Db_lundef=false
meson compile -C "$san_dir"

# The suite 'integration' (Python and scripts) is left out here, as it is under valgrind: an
# uninstrumented interpreter cannot load an ASan-instrumented library unless the sanitizer
# runtime is preloaded, and LeakSanitizer would then report the interpreter's own memory.
# The prover's suite plays a tenth of its endgames in this build, the gcc run all of them
# (tests/meson.build says why); every other battery runs whole here.
step "clang + sanitizers: meson test (all suites but 'integration')"
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C "$san_dir" --print-errorlogs --no-suite integration --no-suite strength \
    --timeout-multiplier "$(timeout_multiplier 4)"

# The ctypes test under the sanitizers too: the interpreter loads the instrumented library
# with the ASan runtime preloaded. Leak detection stays off here, since it would report the
# interpreter's own memory; the C suites above check leaks.
ran_ctypes_asan=no
asan_runtime=$(clang -print-file-name="libclang_rt.asan-$(uname -m).so")
if [ -f "$asan_runtime" ]; then
  step "clang + sanitizers: the ctypes test (ASan runtime preloaded)"
  LD_PRELOAD="$asan_runtime" \
  ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C "$san_dir" --no-rebuild --print-errorlogs --logbase ctypes-asan ctypes \
    --timeout-multiplier "$(timeout_multiplier 4)"
  ran_ctypes_asan=yes
else
  step "clang + sanitizers: ctypes test skipped (no $asan_runtime)"
fi

# The match server under the sanitizers: the test drives the instrumented tg-server as a
# separate process (SIGKILL and restart included), so nothing needs preloading, and the
# server's clean stops (SIGTERM) are leak-checked; tg-server-pg and tg-server-pg-one (its two
# parts) do the same on PostgreSQL (a throw-away cluster each starts and stops itself).
step "clang + sanitizers: the tg-server test (the server instrumented)"
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C "$san_dir" --no-rebuild --print-errorlogs --logbase server-asan tg-server \
    tg-server-pg tg-server-pg-one --timeout-multiplier "$(timeout_multiplier 4)"

ran_valgrind=no
if grep -qsE "add_test_setup\([[:space:]]*'valgrind'" meson.build tests/meson.build; then
  step "gcc: meson test --setup valgrind"
  meson test -C "$gcc_dir" --setup valgrind --print-errorlogs \
    --timeout-multiplier "$(timeout_multiplier 20)"
  ran_valgrind=yes
else
  step "valgrind: skipped (no add_test_setup('valgrind', ...) in meson.build or tests/meson.build)"
fi

step "clang build with -Db_sanitize=thread"
CC=clang CXX=clang++ configure "$tsan_dir" \
  -Dwerror=true -Dtests=true -Ddocs=false -Dexamples=false -Dfuzzers=false \
  -Db_sanitize=thread -Db_lundef=false
# Only the three tests run below are built, 42 build steps of the directory's 195: the other
# tests, the two in-tree copies of the library and the fuzz replay drivers were compiled with
# TSan only to sit unused (measured 2026-12-06: 21 s of CPU for the three, 74 s more for the
# rest).
tsan_tests=(threads search_threads egtb_search)
meson compile -C "$tsan_dir" "${tsan_tests[@]/#/tests/test_}"

# Only the thread suites: the others are single-threaded, so TSan has nothing to check there.
# Some kernels map memory where TSan does not expect it ("unexpected memory mapping"); the
# test then runs with address-space randomisation off.
step "clang + ThreadSanitizer: meson test threads search_threads egtb_search"
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
tsan_wrap=()
if ! "$tsan_dir/tests/test_threads" > /dev/null 2> "$tsan_dir/probe.log" &&
  grep -q "unexpected memory mapping" "$tsan_dir/probe.log"; then
  tsan_wrap=(--wrapper "setarch $(uname -m) -R")
fi
# --no-rebuild: built by the step above, whose failure would say so as a build.
meson test -C "$tsan_dir" --no-rebuild --print-errorlogs "${tsan_wrap[@]}" "${tsan_tests[@]}" \
  --timeout-multiplier "$(timeout_multiplier 6)"
unset TSAN_OPTIONS

# One closing line for the whole run, summed over every `meson test` above.
logs=("$gcc_dir/meson-logs/testlog.json" "$san_dir/meson-logs/testlog.json"
  "$tsan_dir/meson-logs/testlog.json")
[ "$ran_valgrind" = yes ] && logs+=("$gcc_dir/meson-logs/testlog-valgrind.json")
[ "$ran_ctypes_asan" = yes ] && logs+=("$san_dir/meson-logs/ctypes-asan.json")
logs+=("$san_dir/meson-logs/server-asan.json")
python3 - "${logs[@]}" <<'PY'
import json, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            result = json.loads(line).get("result", "")
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
print()
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
