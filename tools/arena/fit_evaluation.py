"""Fit the `search` engine's evaluation of each game to self-play results.

usage: python3 fit_evaluation.py --data-tool PATH [--games 2000] [--seed 1]
                                 [--bot search:nodes=2000] [--noise 20] [--game ID]...
                                 [--games-for ID=N]... [--bot-for ID=BOT]...
                                 [--chosen ID,ID,...] [--write lib/search_weights.c]
                                 [--load GAME=FILE]... [--save-dir DIR]

For each game, tg-eval-data (tools/arena/eval_data.c, built with the library) plays --games
games of --bot against itself (--games-for and --bot-for set them for one game, for the
games whose self-play is dear: At-Tab wa-d-Dukk's), game g seeded with --seed + g (so the same arguments give the
same positions and the same weights), and writes every position where a player decides with
the features the engine computes for the player to move (lib/search_features.c; docs/bots.md,
"The fitted evaluation", lists them per game) and the final result for that player.

The fit is least squares with a constant term (which absorbs having the move, and is not part
of the evaluation). The mancala games fit the final score margin in counters, so a weight is
counters of final margin per unit of the feature, written as hundredths of the search's unit
(100 of the search's units are a counter). At-Tab wa-d-Dukk fits the result (1, 0, -1: the
final margin of captured pieces does not decide it), and its weights are scaled so that a
captured piece of score lead weighs 100 units, as in the classic evaluation.

The games are split by game, not by position: games whose number is 4 modulo 5 are held out,
the fit uses the others, and the tool reports the root mean square error on both, and for
comparison that of a fit on the score lead alone. --chosen names the games whose fitted
evaluation became the default (the matches of docs/strength.md, "Fitted evaluation"); --write
writes the table of lib/search_weights.c with the command that made it. Needs numpy (Debian's
python3-numpy)."""
import argparse
import csv
import io
import os
import subprocess
import sys
import textwrap
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

GAMES = ("halusa", "walak-pussa", "hus", "hawalis", "tab")
C_NAMES = {"halusa": "tg__halusa", "walak-pussa": "tg__walak_pussa", "hus": "tg__hus",
           "hawalis": "tg__hawalis", "tab": "tg__tab"}
HELD_OUT_MODULUS = 5  # game g is held out when g % 5 == 4


class Data:
    """One game's positions: features, target and game number per row."""

    def __init__(self, names: List[str], x: Array, y: Array,
                 game: "npt.NDArray[np.int64]") -> None:
        self.names = names
        self.x = x
        self.y = y
        self.game = game


def parse(text: str, target: str) -> Data:
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    if not body:
        raise SystemExit("no positions")
    names = header[5:]
    column = header.index(target)
    x = np.array([[float(v) for v in r[5:]] for r in body])
    y = np.array([float(r[column]) for r in body])
    game = np.array([int(r[0]) for r in body])
    return Data(names, x, y, game)


def self_play(tool: str, game: str, games: int, seed: int, bot: str, noise: int) -> str:
    cmd = [tool, "--spec", game, "--games", str(games), "--seed", str(seed), "--bot", bot,
           "--noise", str(noise)]
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout


def least_squares(x: Array, y: Array) -> Array:
    a = np.hstack([np.ones((len(x), 1)), x])
    coef: Array = np.linalg.lstsq(a, y, rcond=None)[0]
    return coef


def rmse(coef: Array, x: Array, y: Array) -> float:
    pred = coef[0] + x @ coef[1:]
    return float(np.sqrt(np.mean((y - pred) ** 2)))


def fit(game: str, data: Data) -> Tuple[List[int], List[str]]:
    """The weights in hundredths of the search's unit, and the report's lines."""
    held = data.game % HELD_OUT_MODULUS == HELD_OUT_MODULUS - 1
    train, test = ~held, held
    coef = least_squares(data.x[train], data.y[train])
    score_only = least_squares(data.x[train][:, :1], data.y[train])
    target = "result" if game == "tab" else "margin"
    lines = ["%s: %d positions of %d games (%d positions held out), target %s" %
             (game, len(data.y), len(set(data.game.tolist())), int(held.sum()), target),
             "  RMSE training %.3f, held out %.3f; score lead alone: training %.3f, held out %.3f"
             % (rmse(coef, data.x[train], data.y[train]), rmse(coef, data.x[test], data.y[test]),
                rmse(score_only, data.x[train][:, :1], data.y[train]),
                rmse(score_only, data.x[test][:, :1], data.y[test]))]
    # Mancala: counters of margin -> hundredths of centi-counters. Tab: a piece of score lead
    # is 100 units, as in the classic evaluation.
    scale = 10000.0 if target == "margin" else 10000.0 / coef[1]
    weights = [int(round(float(w) * scale)) for w in coef[1:]]
    for name, w, c in zip(data.names, weights, coef[1:]):
        lines.append("  %-13s %9.4f -> %7d" % (name, float(c), w))
    return weights, lines


def write_table(path: str, fitted: Dict[str, List[int]], chosen: Sequence[str],
                command: str) -> None:
    out = ["/* Generated by tools/arena/fit_evaluation.py: do not edit. The command:"]
    lines = textwrap.wrap(command, 86, subsequent_indent="    ", break_on_hyphens=False)
    out += [" *   " + line + (" \\" if k + 1 < len(lines) else "") for k, line in enumerate(lines)]
    out += [" * Weights in hundredths of the search's unit (100 units: a counter of score lead), in",
            " * the order of tg__eval_feature_name(); `chosen`: the default evaluation of the game",
            " * (docs/strength.md, \"Fitted evaluation\"). */",
            "#include \"search_features.h\"",
            "",
            "const struct tg__fitted_eval tg__fitted_evals[] = {"]
    for game in GAMES:
        if game not in fitted:
            continue
        w = fitted[game]
        out.append("    {&%s, %s, %d, {%s}}," % (C_NAMES[game], "true" if game in chosen
                                                  else "false", len(w),
                                                  ", ".join(str(v) for v in w)))
    out += ["};", "",
            "const size_t tg__fitted_eval_count = sizeof tg__fitted_evals / "
            "sizeof tg__fitted_evals[0];", ""]
    with open(path, "w") as f:
        f.write("\n".join(out))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--data-tool", help="tg-eval-data (in the build directory's tools/)")
    ap.add_argument("--game", action="append", choices=GAMES, help="default: all five")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bot", default="search:nodes=2000")
    ap.add_argument("--noise", type=int, default=20)
    ap.add_argument("--games-for", action="append", default=[], metavar="GAME=N",
                    help="--games for one game")
    ap.add_argument("--bot-for", action="append", default=[], metavar="GAME=BOT",
                    help="--bot for one game")
    ap.add_argument("--chosen", default="", help="comma-separated games whose fit is chosen")
    ap.add_argument("--write", help="write the C table here (lib/search_weights.c)")
    ap.add_argument("--load", action="append", default=[], metavar="GAME=FILE",
                    help="fit this saved tg-eval-data output instead of playing")
    ap.add_argument("--save-dir", help="keep each game's tg-eval-data output here")
    args = ap.parse_args(argv)
    loaded = dict(item.split("=", 1) for item in args.load)
    games_for = {g: int(n) for g, n in (item.split("=", 1) for item in args.games_for)}
    bot_for = dict(item.split("=", 1) for item in args.bot_for)
    for g in list(games_for) + list(bot_for):
        if g not in GAMES:
            ap.error("--games-for/--bot-for: not a game: %s" % g)
    games = args.game or list(GAMES)
    chosen = [g for g in args.chosen.split(",") if g]
    for g in chosen:
        if g not in GAMES:
            ap.error("--chosen: not a game: %s" % g)
    fitted: Dict[str, List[int]] = {}
    for game in games:
        if game in loaded:
            with open(loaded[game]) as f:
                text = f.read()
        elif args.data_tool:
            text = self_play(args.data_tool, game, games_for.get(game, args.games), args.seed,
                             bot_for.get(game, args.bot), args.noise)
        else:
            ap.error("--data-tool or --load %s=FILE is needed" % game)
        if args.save_dir:
            with open(os.path.join(args.save_dir, game + ".csv"), "w") as f:
                f.write(text)
        weights, lines = fit(game, parse(text, "result" if game == "tab" else "margin"))
        fitted[game] = weights
        print("\n".join(lines), flush=True)
    if args.write:
        shown = ["python3 tools/arena/fit_evaluation.py --data-tool build/tools/tg-eval-data"]
        if args.game:
            shown += ["--game " + g for g in args.game]
        shown += ["--games %d --seed %d --bot %s --noise %d" %
                  (args.games, args.seed, args.bot, args.noise)]
        shown += ["--games-for " + item for item in args.games_for]
        shown += ["--bot-for " + item for item in args.bot_for]
        if chosen:
            shown.append("--chosen " + ",".join(chosen))
        write_table(args.write, fitted, chosen, " ".join(shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
