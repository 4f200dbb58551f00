"""Fit the weights of a mancala game's search evaluation to self-play results.

usage: python3 fit_evaluation.py [--game walak-pussa] [--games 2400] [--seed 100000]
                                 [--bot search:nodes=20000] [--plies 4-25] [--save FILE]
                                 [--load FILE]...

Plays --games games of the bot against itself, each opened by 2 to 10 random plies and with
one move in twenty random (so that the positions differ), and records every position with
the final result. Then it fits, by least squares, the final score margin of the player to
move on features of the position (the score lead, the lead of counters on one's own row, the
lead of empty holes on one's row) over the positions of the plies in --plies (the middle
game, where an evaluation matters: later the score lead alone predicts the end), and prints
the weights in the search's units, 100 for a counter of score lead. docs/bots.md ("What each
bot does") gives the fit the library uses. The games need the Python package and its
library (TG_LIBRARY); the fit needs numpy (Debian's python3-numpy)."""
import argparse
import json
import random
import sys
from typing import Dict, List, Sequence, Tuple

import traditional_games as tg

FEATURES = ("score lead", "row lead", "empty-hole lead")


def play(game: str, bot: str, seed: int, games: int) -> List[Dict[str, object]]:
    rows: List[Dict[str, object]] = []
    for g in range(games):
        rnd = random.Random(seed + g)
        s = tg.State(game)
        for _ in range(rnd.randint(2, 10)):
            if s.is_terminal:
                break
            s.apply_random(rnd.getrandbits(63))
        seen: List[Tuple[List[List[int]], Tuple[int, int], int, int]] = []
        while not s.is_terminal:
            seen.append((s.board, s.scores, s.player, s.ply))
            if rnd.random() < 0.05:
                s.apply_random(rnd.getrandbits(63))
            else:
                s.apply(s.bot_choose(bot, rnd.getrandbits(63)))
        final = s.scores
        for board, scores, player, ply in seen:
            rows.append({"b": board, "s": list(scores), "p": player, "ply": ply,
                         "f": list(final)})
    return rows


def features(row: Dict[str, object]) -> Tuple[List[float], float]:
    board: Sequence[Sequence[int]] = row["b"]  # type: ignore[assignment]
    scores: Sequence[int] = row["s"]  # type: ignore[assignment]
    final: Sequence[int] = row["f"]  # type: ignore[assignment]
    me = int(row["p"])  # type: ignore[call-overload]
    other = 1 - me
    mine, theirs = board[me], board[other]
    x = [float(scores[me] - scores[other]),
         float(sum(mine) - sum(theirs)),
         float(sum(1 for n in mine if n == 0) - sum(1 for n in theirs if n == 0))]
    return x, float(final[me] - final[other])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="walak-pussa")
    ap.add_argument("--games", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=100000)
    ap.add_argument("--bot", default="search:nodes=20000")
    ap.add_argument("--plies", default="4-25")
    ap.add_argument("--save", help="write the positions (JSON lines) to this file")
    ap.add_argument("--load", action="append", default=[],
                    help="fit these saved positions instead of playing")
    args = ap.parse_args()
    lo, hi = (int(v) for v in args.plies.split("-"))
    if args.load:
        rows = [json.loads(line) for name in args.load for line in open(name)]
    else:
        rows = play(args.game, args.bot, args.seed, args.games)
    if args.save:
        with open(args.save, "w") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")
    import numpy as np  # only the fit needs it

    picked = [features(r) for r in rows if lo <= int(r["ply"]) <= hi]
    if len(picked) < 100:
        print("too few positions in plies %d-%d: %d" % (lo, hi, len(picked)), file=sys.stderr)
        return 1
    x = np.array([p[0] for p in picked])
    y = np.array([p[1] for p in picked])
    a = np.hstack([np.ones((len(x), 1)), x])  # the constant absorbs the side to move
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    pred = a @ coef
    r2 = 1 - float(((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum())
    print("%d positions of plies %d-%d, R^2 %.3f" % (len(picked), lo, hi, r2))
    for name, w in zip(FEATURES, coef[1:]):
        print("  %-16s %7.3f counters  = %5d in the search's units" %
              (name, w, round(100 * w / coef[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
