#!/usr/bin/env bash
# The package's Gymnasium and PettingZoo environments against those libraries' own checks
# (traditional_games/tests/test_conformance.py: Gymnasium's environment checker, vector
# wrappers and SyncVectorEnv, PettingZoo's api_test) and the Gymnasium and PettingZoo examples
# of docs/python.md and docs/learning.md, run as written (test_doc_examples.py).
#
#   bindings/python/test-conformance.sh        (meson test "python gymnasium and pettingzoo")
#
# Gymnasium and PettingZoo are not Debian packages: their unmodified sources are read from
# TG_PYTHON_ANCHORS, else ../shared/anchors/python beside the checkout (its README), and put
# on PYTHONPATH here, never copied into the project. Without them this fails, saying so. The
# library and package are those of the caller's TG_LIBRARY and PYTHONPATH (meson sets both).
# Needs Debian's python3-numpy, python3-cloudpickle and python3-typing-extensions
# (scripts/setup-deps.sh).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
anchors=${TG_PYTHON_ANCHORS:-$top/../shared/anchors/python}
for part in gymnasium-src/gymnasium pettingzoo-src/pettingzoo stub/farama_notifications; do
  if [ ! -d "$anchors/$part" ]; then
    echo "test-conformance.sh: no $part in $anchors: the unmodified Gymnasium and PettingZoo" \
      "sources are needed (set TG_PYTHON_ANCHORS to the folder that holds them)" >&2
    exit 1
  fi
done
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$anchors/gymnasium-src:$anchors/pettingzoo-src:$anchors/stub"
# Not finding Gymnasium or PettingZoo is then a failure, not a skip.
export TG_REQUIRE_ANCHORS=1
export PYTHONDONTWRITEBYTECODE=1
# Debian's interpreter, which has numpy, cloudpickle and typing-extensions.
exec /usr/bin/python3 -m unittest -v traditional_games.tests.test_conformance \
  traditional_games.tests.test_doc_examples
