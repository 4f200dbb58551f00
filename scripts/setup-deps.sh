#!/usr/bin/env bash
# Install the Debian packages that building, testing and documenting libtraditional-games
# need, and only those that are missing: on a machine that has them all this does nothing
# and touches no network. Debian 12 (bookworm) or later; installing needs root.
set -euo pipefail

# build-essential: gcc, g++, make, libc headers.  clang + libclang-rt-dev: the sanitizer
# build (libclang-rt-dev holds the ASan/UBSan/libFuzzer runtimes, which plain clang only
# recommends).  meson, ninja-build, pkg-config: the build.  libcmocka-dev: the C test suites.
# doxygen: the API reference.  python3: the ctypes test.  valgrind: `meson test --setup valgrind`.
# abigail-tools: abidw/abidiff for the ABI gate (scripts/abi-check.sh).
# libzstd-dev: the endgame databases' compressed blocks (lib/egtb/, docs/egtb.md).
# libsqlite3-dev: the match server's storage (server/).
# libwebsockets-dev: the match server's WebSocket and HTTP port (server/web.c).
# libpq-dev: the match server's PostgreSQL storage (server/store-pg.c); postgresql: the
# throw-away cluster its tests start (server/tests/pgcluster.py).
# libsodium-dev: the match server's password hashes (Argon2id) and session tokens
# (server/password.c).
# python3-mesonpy, python3-build, python3-venv, patchelf: the Python wheel built offline
# (pyproject.toml; meson-python 0.12 needs patchelf for the library it bundles) and the fresh
# venv it is tested in.  python3-mypy: the package's type hints, checked --strict.
# python3-numpy: the Python package's tests of numpy integers as moves and counts.
# lld, wasi-libc, libclang-rt-14-dev-wasm32, llvm-14: the WebAssembly build (scripts/build-wasm.sh;
# llvm-14 holds llvm-ar-14, which indexes wasm objects and which clang only recommends).
# chromium: the web board's tests in a real browser (scripts/test-web.sh, headless); nginx:
# the TLS proxy of docs/server.md in front of the site in those tests (tls-proxy.test.js).
# python3-numpy: the learning interface's arrays and VectorEnv (bindings/python, docs/learning.md).
# python3-cloudpickle, python3-typing-extensions: what Gymnasium and PettingZoo import, for the
# conformance tests that run their unmodified sources from ../shared/anchors/python
# (bindings/python/test-conformance.sh).
# python3-torch: the self-play example examples/learning/ (CPU PyTorch) and its short test.
# The platform matrix (scripts/test-platforms.sh, docs/platforms.md): gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf, gcc-s390x-linux-gnu and their libc6-dev-*-cross (which the
# compilers only recommend); gcc-mingw-w64-x86-64 (Windows); qemu-user (the Linux targets'
# suites); wine and wine64 (the Windows programs; wine holds the `wine` command, wine64 the
# 64-bit loader). The C suites link cmocka, which Debian builds for other architectures only
# as their own packages: libcmocka-dev:arm64, :armhf and :s390x (multiarch; the foreign
# architectures are added to dpkg below before they are installed, and their libc6 is the
# run-time qemu-user loads). About 1.8 GB on disk (wine64 alone 685 MB, the cross compilers
# and qemu-user 1 GB), under two minutes to install from a nearby mirror.
packages=(
  build-essential gcc g++
  clang libclang-rt-dev
  meson ninja-build pkg-config
  libcmocka-dev
  doxygen
  python3
  python3-mesonpy python3-build python3-venv patchelf python3-mypy
  python3-numpy python3-torch python3-cloudpickle python3-typing-extensions
  valgrind
  abigail-tools
  libzstd-dev
  libsqlite3-dev libwebsockets-dev libpq-dev postgresql libsodium-dev
  lld wasi-libc libclang-rt-14-dev-wasm32 llvm-14
  chromium nginx
  gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-s390x-linux-gnu
  libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-s390x-cross
  gcc-mingw-w64-x86-64 qemu-user wine wine64
  libcmocka-dev:arm64 libcmocka-dev:armhf libcmocka-dev:s390x
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup-deps.sh: dpkg-query not found: this script is for Debian and its derivatives." >&2
  echo "Install by hand: ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
# Node.js and npm for the JavaScript package, checked as commands: a Node 20 from elsewhere
# (NodeSource's nodejs carries its own npm) must not be replaced by Debian 12's Node 18.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup-deps.sh: all build, test and docs dependencies are installed."
  exit 0
fi

echo "setup-deps.sh: missing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-deps.sh: installing packages needs root. Run this script as root (for example" >&2
  echo "  sudo $0" >&2
  echo "), or install them yourself: apt-get install ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Foreign architectures of the name:arch packages missing, added once (apt-get update then
# fetches their package lists too).
for p in "${missing[@]}"; do
  case $p in
    *:*)
      arch=${p##*:}
      if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
        dpkg --add-architecture "$arch"
        echo "setup-deps.sh: added the dpkg architecture $arch"
      fi ;;
  esac
done
# A mirror caught between syncs can fail one foreign index (armhf's security list did here) while
# every package needed is still listed: go on, and let the install itself fail if one is not.
if ! apt-get update; then
  echo "setup-deps.sh: apt-get update reported a failure; installing from the lists it has" >&2
fi
apt-get install -y --no-install-recommends "${missing[@]}"
echo "setup-deps.sh: installed: ${missing[*]}"
