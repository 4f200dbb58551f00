#!/usr/bin/env python3
"""A game of Halusa between UCT search (player 0) and random play (player 1)."""
import sys

import traditional_games as tg

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
bots = {0: "mcts:iterations=300", 1: "random"}
rng = tg.Rng(seed)  # one seed, one game, on every platform

with tg.Rules("halusa") as rules, tg.State(rules) as state:
    while not state.is_terminal:
        player = state.turn
        move = state.play_bot(bots[player], rng)
        print("ply %3d: player %d (%s) plays %s" % (state.ply, player, bots[player],
                                                    state.move_to_string(move)))
    print(state)
    result = "a draw" if state.winner == tg.DRAW else "player %d wins" % state.winner
    print("%s, scores %d-%d" % (result, *state.scores))
