"""Runs a small tg-arena tournament and checks its JSON: the schedule (every pairing plays
each seed twice, colours swapped), tallies that agree with the games, random anchored at 0,
and the ratings at the likelihood's maximum (the gradient of the fit's log-likelihood, with
the prior's virtual draws, is 0 for every bot but the anchor). Then a second run reads the
first one's games back (--from) and adds a pairing: the games add up, the first run's
games are unchanged, and playing the first run's games again is refused (status 2). Last,
a random opening (--opening), balanced or not (--balanced), is the same for both colourings
of a seed.

usage: python3 check_json.py TG_ARENA ARGS...   (ARGS without --json)"""
import json
import math
import os
import subprocess
import sys
import tempfile


def main():
    exe, args = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "arena.json")
        out = subprocess.run([exe, "--json", path] + args, check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        with open(path) as f:
            d = json.load(f)
        check(d, out)
        # The new bot is bot 1 (the files' bots follow the command line's), paired with bot 0.
        path2 = os.path.join(tmp, "more.json")
        subprocess.run([exe, "--json", path2, "--from", path, "--seed", "77", "--pair", "0-1:2",
                        d["bots"][0], "mcts:iterations=5"], check=True,
                       stdout=subprocess.PIPE)
        with open(path2) as f:
            d2 = json.load(f)
        assert d2["bots"] == [d["bots"][0], "mcts:iterations=5"] + d["bots"][1:], d2["bots"]
        assert len(d2["games"]) == len(d["games"]) + 2, len(d2["games"])
        strip = lambda g: {k: v for k, v in g.items() if k not in ("bot_index", "pairing")}
        assert [strip(g) for g in d2["games"][2:]] == [strip(g) for g in d["games"]]
        check(d2, None)
        again = subprocess.run([exe, "--from", path] + args, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        assert again.returncode == 2 and "already" in again.stderr, again
        # A random opening is the same for both colourings of a seed: stopped right after
        # it, both games of a seed are at one position, and the seeds differ.
        path3 = os.path.join(tmp, "opening.json")
        subprocess.run([exe, "--json", path3, "--spec", "hawalis", "--opening", "6",
                        "--max-plies", "6", "--games", "8", "greedy", "mcts:iterations=5"],
                       check=True, stdout=subprocess.PIPE)
        with open(path3) as f:
            d3 = json.load(f)
        finals = {}
        for g in d3["games"]:
            assert g["opening"] == 6 and g["plies"] == 6 and g["moves"] == [0, 0], g
            finals.setdefault(g["seed"], set()).add(g["final"])
        assert all(len(v) == 1 for v in finals.values()), finals
        assert len(set.union(*finals.values())) > 1, finals
        # A balanced opening (--balanced: drawn again until a node-bounded analysis values
        # it within the bound) is the same for both colourings too, and recorded.
        path4 = os.path.join(tmp, "balanced.json")
        subprocess.run([exe, "--json", path4, "--spec", "walak-pussa", "--opening", "2",
                        "--balanced", "500", "--max-plies", "2", "--games", "4", "greedy",
                        "random"], check=True, stdout=subprocess.PIPE)
        with open(path4) as f:
            d4 = json.load(f)
        assert d4["balanced"] == 500 and d4["balance_judge"].startswith("search:nodes="), d4
        finals = {}
        for g in d4["games"]:
            assert g["balanced"] == 500 and g["plies"] == 2, g
            finals.setdefault(g["seed"], set()).add(g["final"])
        assert all(len(v) == 1 for v in finals.values()), finals
        bad = subprocess.run([exe, "--balanced", "100", "greedy", "random"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert bad.returncode == 2 and "--opening" in bad.stderr, bad


def check(d, out):
    if out is not None:
        assert "anchor" in out and "95% interval" in out, out
    bots = d["bots"]
    games = d["games"]
    (rs,) = d["rule_sets"]
    pairings = rs["pairings"]
    assert d["anchor"] == "random" and rs["fit"] == "ok", (d["anchor"], rs["fit"])

    # Schedule: each pairing's games come in seed pairs with the seats swapped.
    by_pairing = {}
    for g in games:
        by_pairing.setdefault(g["pairing"], []).append(g)
        assert g["bots"] == [bots[i] for i in g["bot_index"]], g
        assert g["result"] == {0: "1-0", 1: "0-1", None: g["result"]}[g["winner"]], g
        assert g["plies"] > 0 and g["final"], g
    for p, gs in by_pairing.items():
        pr = pairings[p]
        assert len(gs) == pr["games"], (p, len(gs))
        seeds = {}
        for g in gs:
            seeds.setdefault(g["seed"], []).append(tuple(g["bot_index"]))
        for seed, seats in seeds.items():
            assert sorted(seats) == sorted([(pr["a"], pr["b"]), (pr["b"], pr["a"])]), seeds

    # Tallies.
    points = {}
    for g in games:
        p0 = {"1-0": 1.0, "0-1": 0.0}.get(g["result"], 0.5)
        for seat, bot in enumerate(g["bot_index"]):
            points[bot] = points.get(bot, 0.0) + (p0 if seat == 0 else 1.0 - p0)
    for i, r in enumerate(rs["ratings"]):
        assert r["bot"] == bots[i]
        assert r["wins"] + r["draws"] + r["losses"] + r["unfinished"] == r["games"], r
        assert abs(r["points"] - points[i]) < 1e-9, (r, points[i])
    for pr in pairings:
        assert pr["a_wins"] + pr["draws"] + pr["b_wins"] + pr["unfinished"] == pr["games"], pr

    # The fit: the anchor at 0, every other gradient 0 (natural units, prior included).
    anchor = bots.index("random")
    elo = [r["elo"] for r in rs["ratings"]]
    assert elo[anchor] == 0 and rs["ratings"][anchor]["half_width"] == 0, elo
    prior = d["prior_draws_per_pairing"]
    grad = [0.0] * len(bots)
    for pr in pairings:
        a, b, n = pr["a"], pr["b"], pr["games"] + prior
        e = 1.0 / (1.0 + 10.0 ** ((elo[b] - elo[a]) / 400.0))
        grad[a] += pr["a_points"] + prior / 2 - n * e
        grad[b] -= pr["a_points"] + prior / 2 - n * e
    for pr in pairings:
        if pr["games"] > 0:
            assert abs(pr["gap"] - (elo[pr["a"]] - elo[pr["b"]])) < 0.01, pr
            assert pr["gap_half_width"] > 0, pr
    for i, gr in enumerate(grad):
        # Ratings are written with 6 significant digits: allow for that rounding.
        assert i == anchor or abs(gr) < 0.01, (bots[i], gr, elo)
        assert i == anchor or rs["ratings"][i]["half_width"] > 0, rs["ratings"][i]
    print("ok:", len(games), "games;", ", ".join("%s %.0f" % (b, e) for b, e in zip(bots, elo)))


if __name__ == "__main__":
    main()
