"""Docs tables (bots.md "Ratings per game", strength.md) from tg-arena JSON files (--json).

usage: python3 ratings_md.py FILE.json...   (one file per game, e.g. docs/ratings/*.json)

Prints, in Markdown: the ratings of every bot in every game (Elo and its 95% interval, games,
score), each game's pairings (wins, draws, losses), and for every pairing of `search:time=100`
with `mcts:time=100` the target line (score, games, draws) and how far the seat decided it."""
import json
import os
import sys

TARGET = ("search:time=100", "mcts:time=100")
ORDER = ["random", "greedy", "mcts:iterations=100", "mcts:iterations=1000",
         "mcts:iterations=10000", "search:time=1", "search:time=10", "search:time=100",
         "search:time=1000", "mcts:time=100",
         "search:nodes=300", "search:nodes=1000", "search:nodes=5000", "search:nodes=50000",
         "yardstick:nodes=5000", "yardstick:nodes=50000", "mcts:iterations=20000",
         "mcts:iterations=200000"]


def game_name(spec):
    return spec.split(":")[0]


def move_times(d, rules, bot):
    """Mean and 99th percentile (nearest rank) of `bot`'s decision times in the target games."""
    times = []
    for g in d["games"]:
        if g["rules"] == rules and set(g["bots"]) == set(TARGET):
            times += g["move_ms"][g["bots"].index(bot)]
    if not times:
        return (0.0, 0.0)
    times.sort()
    rank = max(1, -(-99 * len(times) // 100))
    return (sum(times) / len(times), times[rank - 1])


def seat_results(d, rules, seat):
    """Wins / draws / losses of search:time=100 as player `seat` in the target games."""
    wdl = [0, 0, 0]
    for g in d["games"]:
        if g["rules"] == rules and set(g["bots"]) == set(TARGET) and g["bots"][seat] == TARGET[0]:
            wdl[0 if g["winner"] == seat else 2 if g["winner"] == 1 - seat else 1] += 1
    return "%d / %d / %d" % tuple(wdl)


def seat_balance(d, rules):
    """How far the seat decided the target games: games won by player 0 and by player 1,
    draws, the openings (a seed, played with both colourings) that one seat won twice, by
    player 0 and by player 1, and search:time=100's points and games over the other openings."""
    games = [g for g in d["games"] if g["rules"] == rules and set(g["bots"]) == set(TARGET)]
    by_seed = {}
    for g in games:
        by_seed.setdefault(g["seed"], []).append(g)
    won_twice = [0, 0]
    points = played = 0.0
    for pair in by_seed.values():
        winners = {g["winner"] for g in pair}
        if len(pair) == 2 and len(winners) == 1 and winners <= {0, 1}:
            won_twice[pair[0]["winner"]] += 1
            continue
        for g in pair:
            seat = g["bots"].index(TARGET[0])
            points += 1.0 if g["winner"] == seat else 0.0 if g["winner"] == 1 - seat else 0.5
            played += 1
    wins = [sum(g["winner"] == p for g in games) for p in (0, 1)]
    return wins, len(games) - wins[0] - wins[1], len(by_seed), won_twice, points, played


def main(paths):
    runs = []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        if not isinstance(d, dict) or "rule_sets" not in d:
            # docs/ratings/levels.json, beside the lists: docs/ratings/*.json still works.
            print("ratings_md.py: %s: no tg-arena rating list, left out" % p, file=sys.stderr)
            continue
        for rs in d["rule_sets"]:
            runs.append((d, rs, os.path.basename(p)))
    bots = []
    for d, rs, _ in runs:
        for r in rs["ratings"]:
            if r["games"] > 0 and r["bot"] not in bots:
                bots.append(r["bot"])
    # The levels in order of budget, then any other bot in the order the files name them
    # (from a copy: the list being sorted cannot be searched while it is sorted).
    named = list(bots)
    bots.sort(key=lambda b: ORDER.index(b) if b in ORDER else len(ORDER) + named.index(b))

    print("| bot | " + " | ".join(game_name(rs["rules"]) for _, rs, _ in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for b in bots:
        cells = []
        for d, rs, _ in runs:
            r = next((x for x in rs["ratings"] if x["bot"] == b and x["games"] > 0), None)
            if r is None or r["elo"] is None:
                cells.append("-")
            elif r["bot"] == rs["anchor"]:
                cells.append("0 (anchor, %d games)" % r["games"])
            else:
                cells.append("%.0f ± %.0f (%d games)" % (r["elo"], r["half_width"], r["games"]))
        print("| `%s` | %s |" % (b, " | ".join(cells)))

    for d, rs, _ in runs:
        print("\n%s (`%s`): pairings (wins / draws / losses of the first bot)\n"
              % (game_name(rs["rules"]), rs["rules"]))
        print("| first bot | second bot | games | result | score of the first | "
              "fitted gap, 95% |")
        print("|---|---|---|---|---|---|")
        for pr in rs["pairings"]:
            if pr["games"] == 0:
                continue
            a, b = d["bots"][pr["a"]], d["bots"][pr["b"]]
            gap = ("%+.0f ± %.0f" % (pr["gap"], pr["gap_half_width"])
                   if pr.get("gap") is not None else "-")
            print("| `%s` | `%s` | %d | %d / %d / %d%s | %.1f%% | %s |"
                  % (a, b, pr["games"], pr["a_wins"], pr["draws"], pr["b_wins"],
                     ", %d unfinished" % pr["unfinished"] if pr["unfinished"] else "",
                     100.0 * pr["a_points"] / pr["games"], gap))

    print("\nTargets: `search:time=100` against `mcts:time=100`\n")
    print("| game | games | search wins / draws / losses | search's score | as player 0 | "
          "as player 1 | search ms/move (mean, p99) | mcts ms/move (mean, p99) |")
    print("|---|---|---|---|---|---|---|---|")
    for d, rs, _ in runs:
        bots_here = d["bots"]
        for pr in rs["pairings"]:
            pair = (bots_here[pr["a"]], bots_here[pr["b"]])
            if set(pair) != set(TARGET) or pr["games"] == 0:
                continue
            swap = pair[0] != TARGET[0]
            w, l = (pr["b_wins"], pr["a_wins"]) if swap else (pr["a_wins"], pr["b_wins"])
            pts = pr["games"] - pr["a_points"] if swap else pr["a_points"]
            s, m = (move_times(d, rs["rules"], bot) for bot in TARGET)
            seats = [seat_results(d, rs["rules"], p) for p in (0, 1)]
            print("| %s | %d | %d / %d / %d | %.1f%% | %s | %s | %.0f, %.0f | %.0f, %.0f |"
                  % (game_name(rs["rules"]), pr["games"], w, pr["draws"], l,
                     100.0 * pts / pr["games"], seats[0], seats[1], s[0], s[1], m[0], m[1]))

    print("\nSeats in the target games: an opening one seat won with both colourings scores "
          "50% whoever plays better\n")
    print("| file | rules | games won by player 0 / 1 | draws | openings | won twice by player 0 / 1 | "
          "search's score over the other openings |")
    print("|---|---|---|---|---|---|---|")
    for d, rs, name in runs:
        wins, draws, openings, twice, points, played = seat_balance(d, rs["rules"])
        if openings == 0:
            continue
        score = "%.1f%% (%g of %d)" % (100.0 * points / played, points, played) if played else "-"
        print("| `%s` | `%s` | %d / %d | %d | %d | %d / %d | %s |"
              % (name, rs["rules"], wins[0], wins[1], draws, openings, twice[0], twice[1], score))


if __name__ == "__main__":
    main(sys.argv[1:])
