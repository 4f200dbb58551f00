#!/usr/bin/env bash
# Install what is missing, build libtraditional-games in build/, and play one complete game
# of Halusa between two built-in bots (UCT search as player 0, greedy as player 1), printed
# move by move by the example tg-play.
#   ./scripts/demo.sh                      the default demonstration
#   ./scripts/demo.sh --seed 7 --spec halusa:remainder=owner --human none
#                                          any other arguments go to tg-play instead
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/setup-deps.sh

if [ -f build/build.ninja ]; then
  meson setup --reconfigure build -Dexamples=true
else
  meson setup build -Dexamples=true
fi
meson compile -C build

if [ "$#" -eq 0 ]; then
  set -- --seed 1 --spec halusa --human none --bot0 mcts:iterations=1000 --bot1 greedy
fi
echo "+ build/tools/tg-play $*"
exec build/tools/tg-play "$@"
