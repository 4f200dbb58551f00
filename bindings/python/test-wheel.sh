#!/usr/bin/env bash
# The Python package as a pip user gets it. Builds the wheel from this checkout offline
# (meson-python, pyproject.toml), installs it into a fresh venv, and there, with nothing of the
# source tree on the import path and no TG_LIBRARY, PYTHONPATH or LD_LIBRARY_PATH, runs the
# package's own tests (the bundled library required), the example, the README's Python
# snippet, and mypy --strict on the installed package and on the example that imports it.
#
#   bindings/python/test-wheel.sh WORK_DIR      (scripts/test.sh uses build-ci/python)
#
# Then the extras, a venv without numpy (VectorEnv names the extra), and Gymnasium's and
# PettingZoo's checks on the installed package with their sources from TG_PYTHON_ANCHORS, else
# ../shared/anchors/python (required: without them this fails, saying so).
#
# WORK_DIR is emptied first. Needs Debian's python3-mesonpy, python3-build, python3-venv,
# patchelf, python3-mypy, python3-numpy, python3-cloudpickle, python3-typing-extensions,
# binutils (objdump) and libzstd-dev, whose libzstd.a the wheel's library links in
# (scripts/setup-deps.sh).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:?usage: $0 WORK_DIR}
mkdir -p "$work"
work=$(cd "$work" && pwd)
case "$work" in
  "$top" | "$top/bindings" | "$top/bindings/python") echo "$0: WORK_DIR must be a directory of its own" >&2; exit 2 ;;
esac

# Debian's interpreter, for which the build tools and mypy are installed: a python3 earlier on
# PATH (pyenv's, say) may have none of them.
py=/usr/bin/python3

rm -rf "$work/dist" "$work/venv" "$work/plain-venv" "$work/run"
mkdir -p "$work/run"

started=$(date +%s)
if ! (cd "$top" && "$py" -m build --wheel --no-isolation --outdir "$work/dist" .) \
  > "$work/build.log" 2>&1; then
  cat "$work/build.log"
  echo "test-wheel.sh: the wheel did not build" >&2
  exit 1
fi
wheels=("$work"/dist/traditional_games-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] ||
  { echo "test-wheel.sh: expected one wheel in $work/dist" >&2; exit 1; }
# meson-python 0.12 tags the wheel cp311-cp311-linux_x86_64; the package needs no particular
# Python, only the glibc its library was linked against (wheel-tags.py says why and how).
wheel=$("$py" "$top/bindings/python/wheel-tags.py" "${wheels[0]}")
case "$(basename "$wheel")" in
  traditional_games-*-py3-none-manylinux_*.whl) ;;
  *) echo "test-wheel.sh: unexpected wheel name $(basename "$wheel")" >&2; exit 1 ;;
esac
# Its contents as the platform matrix checks the cross wheels': the tag, the library alone, the
# RECORD, and the libraries the library needs, all of them on the manylinux policy's list
# (check-wheel.py): a library needing libzstd.so.1 would not load where libzstd is missing.
"$py" "$top/bindings/python/check-wheel.py" "$wheel" "$(basename "$wheel" .whl | cut -d- -f3-)" \
  libtraditional-games.so.0
echo "built $(basename "$wheel") in $(($(date +%s) - started)) s"

# --system-site-packages: Debian's numpy (python3-numpy) is visible, so that the tests of numpy
# integers run; the package itself comes only from the wheel (nothing of it is installed
# system-wide, and -I below keeps the source tree off the path).
"$py" -m venv --system-site-packages "$work/venv"
vpy="$work/venv/bin/python"
"$vpy" -m pip install --quiet --no-index --no-deps "$wheel"

# -I: no current directory, script directory, PYTHON* variable or user site on the path.
clean_env=(env -u TG_LIBRARY -u PYTHONPATH -u LD_LIBRARY_PATH -u PYTHONHOME)
cd "$work/run"
"${clean_env[@]}" "$vpy" -I -c \
  'import traditional_games as tg; print("installed", tg.__version__, "loads", tg.library_path())'
"${clean_env[@]}" TG_EXPECT_BUNDLED=1 "$vpy" -I -m traditional_games.tests

cp "$top/examples/python/example.py" example.py
"${clean_env[@]}" "$vpy" -I example.py 1 > example.out
echo "example: $(tail -n 1 example.out)"

awk '$0 == "```python" {on = 1; next} on && /^```$/ {exit} on' "$top/README.md" > readme.py
if [ -s readme.py ]; then
  "${clean_env[@]}" "$vpy" -I readme.py > readme.out
  echo "README snippet: $(tail -n 1 readme.out)"
fi

# The extras pip offers (pyproject.toml), as the installed metadata lists them.
"${clean_env[@]}" "$vpy" -I -c 'import importlib.metadata as m
extras = sorted(m.metadata("traditional-games").get_all("Provides-Extra") or [])
assert extras == ["gymnasium", "numpy", "pettingzoo"], extras
print("extras:", " ".join(extras))'

# A venv without Debian's numpy, as a plain `pip install traditional-games` makes it: the
# package works, and VectorEnv's error names the extra that brings numpy.
"$py" -m venv "$work/plain-venv"
"$work/plain-venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"
"${clean_env[@]}" "$work/plain-venv/bin/python" -I -c '
import traditional_games as tg
from traditional_games.learning import VectorEnv
with tg.State("halusa") as s:
    assert s.action_mask() == [1] * 6
try:
    VectorEnv("halusa", n=2)
    raise SystemExit("VectorEnv worked without numpy")
except ImportError as e:
    assert "pip install '"'"'traditional-games[numpy]'"'"'" in str(e), e
    print("without numpy:", e)'

# Gymnasium's and PettingZoo's checks on the installed package, with their unmodified sources
# on PYTHONPATH (test-conformance.sh says why and where they are); -I would drop PYTHONPATH,
# and the current directory holds nothing of the source tree.
anchors=${TG_PYTHON_ANCHORS:-$top/../shared/anchors/python}
[ -d "$anchors/gymnasium-src/gymnasium" ] || {
  echo "test-wheel.sh: no Gymnasium and PettingZoo sources in $anchors (set TG_PYTHON_ANCHORS)" >&2
  exit 1
}
env -u TG_LIBRARY -u LD_LIBRARY_PATH -u PYTHONHOME TG_EXPECT_BUNDLED=1 TG_REQUIRE_ANCHORS=1 \
  PYTHONPATH="$anchors/gymnasium-src:$anchors/pettingzoo-src:$anchors/stub" \
  "$vpy" -m unittest traditional_games.tests.test_conformance

# --python-executable: mypy finds the package as installed in the venv (py.typed included),
# and checks the installed copy, not the source tree.
mypy=("$py" -m mypy --strict --python-version 3.9 --cache-dir "$work/mypy-cache"
  --python-executable "$vpy")
"${mypy[@]}" -p traditional_games
"${mypy[@]}" example.py
echo "test-wheel.sh: passed in $(($(date +%s) - started)) s"
