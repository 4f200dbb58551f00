#!/usr/bin/env bash
# The platform matrix (docs/platforms.md), a step of scripts/test.sh: for each target, a cross
# build of the library and its C unit suites with Debian's cross compilers (cross/*.txt; no
# server, bindings or docs), the suites run under qemu-user or wine (on Windows compiled
# against tests/tap_harness.c, Debian having no cmocka for mingw-w64), then these checks
# against the native build:
#   - the witness tests/platform/tg-determinism (seeded games, records, stories, the moves of
#     `search:nodes=` and `mcts:iterations=`) writes a file byte-identical to the native one;
#   - the library exports exactly the native library's tg_* functions, less those of
#     tg-egtb.h (cross builds have no libzstd: docs/egtb.md), read with the target's
#     nm (ELF) or objdump -p (the DLL's export table);
#   - the build is warning-free (-Dwerror=true);
#   - for Windows, the Python package's wheel: built with the cross file, tagged
#     py3-none-win_amd64 (bindings/python/wheel-tags.py), checked by its contents only
#     (bindings/python/check-wheel.py: tags, the DLL alone, PE32+ x86-64, RECORD; its exports);
#   - for aarch64, the Python package's manylinux wheel: built and checked the same way, then
#     installed by pip into a directory and run by Debian's arm64 CPython under qemu-aarch64
#     (its packages fetched by apt-get download, cached under BUILD-ROOT/aarch64-python):
#     bindings/python/wheel-witness.py's file byte-identical to the native package's, and
#     the package's own version, wheel and error tests.
#
#   scripts/test-platforms.sh --native-build DIR [--build-root DIR] [--lanes N] [TARGET...]
#
# DIR is a native build with -Dtests=true (scripts/test.sh passes its gcc build). TARGETs are
# names of cross/*.txt files (default: all four below). Build directories are
# BUILD-ROOT/TARGET (default build-ci/platforms), reused by a second run. The targets run in
# N lanes side by side (default 2; below), each lane's log printed when it ends. The random-game
# batteries run a tenth of their games under emulation (meson test --setup emulated,
# tests/test_util.h); no suite is left out: 'unit', 'fuzz' (the corpora replayed) and
# 'harness' (the TAP runner's self-test). Any failure stops the script with a non-zero status.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

# shellcheck source=scripts/timeout-multiplier.sh
. "$top/scripts/timeout-multiplier.sh"

native=
root="$top/build-ci/platforms"
lanes=2
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --native-build) native=$2; shift 2 ;;
    --build-root) root=$2; shift 2 ;;
    --lanes) lanes=$2; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) echo "test-platforms.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
case $lanes in [1-9]) ;; *) echo "test-platforms.sh: --lanes takes 1 to 9, not $lanes" >&2; exit 2 ;; esac
# In lanes (below) these are dealt in turn: armhf and mingw in one, s390x and aarch64 in the
# other, about as long as each other.
[ ${#targets[@]} -gt 0 ] || targets=(armhf-linux-gnueabihf s390x-linux-gnu x86_64-w64-mingw32
                                     aarch64-linux-gnu)
[ -n "$native" ] || { echo "test-platforms.sh: --native-build DIR is required" >&2; exit 2; }
case "$native" in /*) ;; *) native="$top/$native" ;; esac
case "$root" in /*) ;; *) root="$top/$root" ;; esac
native_lib="$native/lib/libtraditional-games.so"
native_witness="$native/tests/platform/tg-determinism"
for f in "$native_lib" "$native_witness"; do
  [ -e "$f" ] || { echo "test-platforms.sh: $f missing: build $native with -Dtests=true" >&2; exit 2; }
done
mkdir -p "$root"

step() { printf '\n==== platforms: %s\n' "$*"; }

# Exported tg_* function names, one a line, sorted: ELF through nm's dynamic symbols (version
# suffixes dropped), a DLL through the export table objdump -p prints.
elf_exports() {
  "$1" -D --defined-only "$2" | awk '$2 == "T" && $3 ~ /^tg_/ {sub(/@.*/, "", $3); print $3}' |
    sort
}
dll_exports() {
  "$1" -p "$2" | sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p' |
    sort
}

step "the native reference ($native)"
"$native_witness" "$root/determinism-native.txt"
# The functions tg-egtb.h declares (the databases, and the search's use of one) exist only
# where libzstd does.
grep -A2 'TG_API' include/traditional-games/tg-egtb.h | tr '\n' ' ' | grep -o 'TG_API[^;]*' |
  grep -o '\btg_[a-z0-9_]*(' | tr -d '(' | sort -u > "$root/exports-egtb.txt"
[ -s "$root/exports-egtb.txt" ] || { echo "no TG_API function found in tg-egtb.h" >&2; exit 1; }
elf_exports nm "$native_lib" | grep -vxF -f "$root/exports-egtb.txt" > "$root/exports-native.txt"
echo "witness: $(wc -c < "$root/determinism-native.txt") bytes;" \
  "exports: $(wc -l < "$root/exports-native.txt") tg_* functions" \
  "(tg-egtb.h's $(wc -l < "$root/exports-egtb.txt") aside)"

# Wine keeps its configuration in a prefix it creates on first use (4 to 20 s): one for the
# whole matrix, under the build root, away from the user's ~/.wine. Meson's compiler check
# (run through the cross file's exe_wrapper) usually makes it; wine_ready makes sure it exists
# before the first test, so that no test's timeout pays for it.
export WINEPREFIX="$root/wine"
export WINEDEBUG=-all
wine_ready() {
  [ -f "$WINEPREFIX/system.reg" ] && return 0
  step "a wine prefix ($WINEPREFIX)"
  wineboot --init
}

# The Python package's wheel for target $1, built by meson-python with cross file $2 into
# $3-wheel/dist (in a temporary build directory: meson-python 0.12 cannot set up a -Cbuilddir
# it has not made itself, and fails on one left by a run that stopped), then retagged by
# wheel-tags.py from its library's header. Prints the retagged wheel's path.
build_wheel() {
  local target=$1 cross_file=$2 dir=$3 wheels
  rm -rf "$dir-wheel/dist"
  if ! /usr/bin/python3 -m build --wheel --no-isolation --outdir "$dir-wheel/dist" \
       -Csetup-args="--cross-file=$cross_file" "$top" \
       > "$dir-wheel.log" 2>&1; then
    cat "$dir-wheel.log" >&2
    echo "$target: the wheel did not build" >&2
    exit 1
  fi
  wheels=("$dir-wheel"/dist/traditional_games-*.whl)
  if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "$target: expected one wheel in $dir-wheel/dist" >&2
    exit 1
  fi
  /usr/bin/python3 bindings/python/wheel-tags.py "${wheels[0]}"
}

# Checks wheel $2 of target $1 by its contents (check-wheel.py: the tag $3, the library $4
# alone, RECORD), its library (copied to $5) of objdump's file format $6, and its exports,
# read by the command after those six with the copy's path appended, against the native
# library's.
check_wheel_library() {
  local target=$1 wheel=$2 tag=$3 library=$4 copy=$5 format=$6
  shift 6
  /usr/bin/python3 bindings/python/check-wheel.py "$wheel" "$tag" "$library" "$copy"
  "$target-objdump" -f "$copy" | grep -q "file format $format" ||
    { echo "$target: the wheel's library is not $format" >&2; exit 1; }
  if ! diff <("$@" "$copy") "$root/exports-native.txt" > "$copy.exports.diff"; then
    echo "$target: the wheel's library exports differ from the native library's:" >&2
    cat "$copy.exports.diff" >&2
    exit 1
  fi
}

# The Windows wheel is checked by its contents only, there being no Windows Python in Debian
# for wine to install it into: the tag, the DLL alone under its own name, PE32+ x86-64,
# RECORD, and the DLL's exports, the same as the matrix's DLL.
windows_wheel() {
  local target=$1 cross_file=$2 dir=$3 wheel_start wheel
  wheel_start=$(date +%s)
  step "$target: the Python wheel (meson-python, checked by its contents)"
  wheel=$(build_wheel "$target" "$cross_file" "$dir")
  check_wheel_library "$target" "$wheel" py3-none-win_amd64 libtraditional-games-0.dll \
    "$dir-wheel/bundled.dll" pei-x86-64 dll_exports "$target-objdump"
  echo "$target: $(basename "$wheel"), its DLL exporting the same functions," \
    "in $(($(date +%s) - wheel_start)) s"
}

# The Python package's manylinux wheel for aarch64, built like the Windows one and then
# installed and run where it can run: Debian's arm64 CPython under qemu-user. That interpreter
# cannot be installed beside the native python3 (the two python3.11 packages conflict), so its
# packages are fetched with apt-get download into BUILD-ROOT/aarch64-python/debs (kept: a
# second run downloads nothing) and unpacked with dpkg -x into a sysroot qemu is given with -L;
# libc6:arm64 comes from the multiarch run-time the C suites use. The wheel is installed by pip
# for that platform into a directory of its own, as `pip install --target` leaves it; there
# bindings/python/wheel-witness.py writes its file, which must equal the native package's
# (bindings/python on the native library, with Debian's numpy) byte for byte, and then some
# of the package's own tests run: not those that start a second interpreter, since qemu-user
# follows no exec of an aarch64 program (no binfmt_misc here), nor the longer suites, which
# the witness covers at a fraction of their cost under emulation.
aarch64_python=python3.11
# The interpreter and the libraries its modules load (ctypes: libffi8), then numpy for
# VectorEnv: python3-numpy and its BLAS and LAPACK. Their libblas.so.3 and liblapack.so.3 are
# links the packages' postinst scripts make (Debian's alternatives), which dpkg -x does not
# run: qemu gives the interpreter their folders in LD_LIBRARY_PATH instead (-E).
aarch64_python_debs=("$aarch64_python-minimal" "lib$aarch64_python-minimal"
                     "lib$aarch64_python-stdlib" libffi8 zlib1g libexpat1
                     python3-numpy libblas3 liblapack3 libgfortran5)
aarch64_wheel() {
  local target=$1 cross_file=$2 dir=$3 wheel_start wheel tag platform pkg
  local python_dir="$root/aarch64-python" missing=() out
  wheel_start=$(date +%s)
  step "$target: the Python wheel (meson-python, installed and run under qemu-aarch64)"
  rm -rf "$dir-wheel/site" "$dir-wheel/run"
  wheel=$(build_wheel "$target" "$cross_file" "$dir")
  tag=$(basename "$wheel" .whl)
  tag=${tag#traditional_games-*-}
  case $tag in
    py3-none-manylinux_*_aarch64) platform=${tag#py3-none-} ;;
    *) echo "$target: the wheel is tagged $tag, not py3-none-manylinux_X_Y_aarch64" >&2; exit 1 ;;
  esac
  check_wheel_library "$target" "$wheel" "$tag" libtraditional-games.so.0 \
    "$dir-wheel/bundled.so" elf64-littleaarch64 elf_exports "$target-nm"

  mkdir -p "$python_dir/debs"
  for pkg in "${aarch64_python_debs[@]}"; do
    compgen -G "$python_dir/debs/${pkg}_*_arm64.deb" >/dev/null || missing+=("$pkg:arm64")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "downloading ${missing[*]}"
    if ! (cd "$python_dir/debs" && apt-get download "${missing[@]}") \
         > "$python_dir/download.log" 2>&1; then
      cat "$python_dir/download.log" >&2
      echo "$target: apt-get download ${missing[*]} failed: the aarch64 Python comes from" \
        "Debian's arm64 packages, which need arm64 as a dpkg architecture and its package" \
        "lists (dpkg --add-architecture arm64; apt-get update: scripts/setup-deps.sh does" \
        "both) and a reachable mirror" >&2
      exit 1
    fi
  fi
  rm -rf "$python_dir/sysroot"
  for pkg in "$python_dir"/debs/*_arm64.deb; do
    dpkg -x "$pkg" "$python_dir/sysroot"
  done
  local python=(qemu-aarch64 -L "$python_dir/sysroot"
                -E LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu/blas:/usr/lib/aarch64-linux-gnu/lapack
                "$python_dir/sysroot/usr/bin/$aarch64_python" -s)

  # pip of the build machine, told the target's platform: it must accept the wheel's tag
  # for manylinux on aarch64, and installs the wheel (its RECORD, metadata and files).
  /usr/bin/python3 -m pip install --quiet --no-index --no-deps --root-user-action=ignore \
    --platform "$platform" --only-binary=:all: --target "$dir-wheel/site" "$wheel"
  # The witness runs as a copy outside the source tree: Python puts a script's own folder
  # first on the path, and bindings/python holds the package's sources.
  mkdir -p "$dir-wheel/run"
  cp bindings/python/wheel-witness.py "$dir-wheel/run/"
  TG_LIBRARY="$native_lib" PYTHONPATH="$top/bindings/python" /usr/bin/python3 -s \
    "$dir-wheel/run/wheel-witness.py" "$root/python-witness-native.txt" > /dev/null
  out=$(cd "$dir-wheel/run" &&
        env -u TG_LIBRARY -u LD_LIBRARY_PATH -u PYTHONHOME PYTHONPATH="$dir-wheel/site" \
          "${python[@]}" wheel-witness.py "$dir-wheel/python-witness.txt")
  echo "$out"
  case $out in
    *" on aarch64, library $dir-wheel/site/traditional_games/libtraditional-games.so.0") ;;
    *) echo "$target: the witness did not run on aarch64 with the installed wheel's library" >&2
       exit 1 ;;
  esac
  if ! cmp -s "$root/python-witness-native.txt" "$dir-wheel/python-witness.txt"; then
    echo "$target: the Python witness differs from the native package's:" >&2
    diff "$root/python-witness-native.txt" "$dir-wheel/python-witness.txt" | head -n 40 >&2 ||
      true
    exit 1
  fi
  echo "$target: the Python witness identical ($(wc -c < "$dir-wheel/python-witness.txt") bytes)"
  # The installed package's version and metadata, its library stripped and its tag that of the
  # glibc it needs (read by readelf -V, apart from wheel-tags.py), the error paths.
  (cd "$dir-wheel/run" &&
   env -u TG_LIBRARY -u LD_LIBRARY_PATH -u PYTHONHOME TG_EXPECT_BUNDLED=1 \
     PYTHONPATH="$dir-wheel/site" "${python[@]}" -m unittest \
     traditional_games.tests.test_package.TestVersions \
     traditional_games.tests.test_package.TestWheel \
     traditional_games.tests.test_package.TestTyping traditional_games.tests.test_errors)
  echo "$target: $(basename "$wheel") installed and run under qemu-aarch64" \
    "in $(($(date +%s) - wheel_start)) s"
}

for target in "${targets[@]}"; do
  [ -f "$top/cross/$target.txt" ] || { echo "test-platforms.sh: no $top/cross/$target.txt" >&2; exit 2; }
done

# One target, start to end; any failure exits (the lane's subshell, below).
run_target() {
  local target=$1 cross_file="$top/cross/$1.txt" dir="$root/$1" start slowdown witness
  local triplet exports
  start=$(date +%s)

  step "$target: cross build (-Dwerror=true; library and C unit suites only)"
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" --cross-file "$cross_file" >/dev/null
  else
    meson setup "$dir" --cross-file "$cross_file" -Dwerror=true -Dtests=true -Ddocs=false \
      -Dexamples=false -Dfuzzers=false -Dpython_package=false >/dev/null
  fi
  meson compile -C "$dir"

  case $target in
    *mingw32) slowdown=2 ;; # wine runs native x86-64 code; its cost is the start of each program
    *) slowdown=10 ;;       # qemu-user translates every instruction
  esac
  case $target in *mingw32) wine_ready ;; esac
  step "$target: the C unit suites under emulation (meson test --setup emulated)"
  meson test -C "$dir" --setup emulated --suite unit --suite fuzz --suite harness \
    --print-errorlogs --timeout-multiplier "$(timeout_multiplier "$slowdown")"

  step "$target: the witness against the native build"
  witness="$dir/tests/platform/determinism.txt"
  if ! cmp -s "$root/determinism-native.txt" "$witness"; then
    echo "$target: tg-determinism differs from the native build:" >&2
    diff "$root/determinism-native.txt" "$witness" | head -n 40 >&2 || true
    exit 1
  fi
  echo "$target: identical ($(wc -c < "$witness") bytes)"

  step "$target: exported symbols against the native library"
  case $target in
    *mingw32)
      triplet=${target}
      exports=$(dll_exports "$triplet-objdump" "$dir/lib/libtraditional-games-0.dll") ;;
    armhf-linux-gnueabihf)
      exports=$(elf_exports arm-linux-gnueabihf-nm "$dir/lib/libtraditional-games.so") ;;
    *)
      exports=$(elf_exports "$target-nm" "$dir/lib/libtraditional-games.so") ;;
  esac
  if ! diff <(printf '%s\n' "$exports") "$root/exports-native.txt" > "$dir/exports.diff"; then
    echo "$target: exports differ from the native library's (< $target, > native):" >&2
    cat "$dir/exports.diff" >&2
    exit 1
  fi
  echo "$target: the same $(printf '%s\n' "$exports" | wc -l) tg_* functions"

  case $target in
    *mingw32) windows_wheel "$target" "$cross_file" "$dir" ;;
    aarch64-linux-gnu) aarch64_wheel "$target" "$cross_file" "$dir" ;;
  esac
  echo "$target: done in $(($(date +%s) - start)) s"
}

# Two lanes of targets side by side: one target alone leaves a core idle much of the time (a
# link, the witness, the wheel's build and pip are one process each, and each suite's slowest
# test under emulation ends alone), so two at once take about two thirds of the time of one
# after the other (608 s to about 400 s on the idle 2-core machine). The targets are dealt to
# the lanes in turn, in the order given (by default the two slowest, armhf and s390x, in
# different lanes); each lane writes its own log, printed whole when the lane ends, and the
# first failure in either fails the script once both have ended. --lanes 1 runs them one
# after the other, as before.
if [ "$lanes" -le 1 ] || [ ${#targets[@]} -le 1 ]; then
  for target in "${targets[@]}"; do run_target "$target"; done
  exit 0
fi
# The targets of lane $1 (of $lanes): every $lanes-th, from the $1-th.
lane_targets() {
  local i
  for ((i = $1; i < ${#targets[@]}; i += lanes)); do printf '%s\n' "${targets[i]}"; done
}
pids=()
for ((lane = 0; lane < lanes && lane < ${#targets[@]}; lane++)); do
  mapfile -t mine < <(lane_targets "$lane")
  echo "platforms: lane $((lane + 1)): ${mine[*]} (its log: $root/lane-$((lane + 1)).log)"
  (
    for target in "${mine[@]}"; do run_target "$target"; done
  ) > "$root/lane-$((lane + 1)).log" 2>&1 &
  pids+=("$!")
done
failed=0
for ((lane = 0; lane < ${#pids[@]}; lane++)); do
  status=0
  wait "${pids[lane]}" || status=$?
  cat "$root/lane-$((lane + 1)).log"
  if [ "$status" -ne 0 ]; then
    echo "test-platforms.sh: lane $((lane + 1)) failed (status $status): its log above" >&2
    failed=1
  fi
done
exit "$failed"
