"""ratings_md.py's seat balance: on hand-made games, and on the file of record that
docs/strength.md quotes ("The seats of the balanced openings").

usage: python3 test_ratings_md.py DOCS_RATINGS_DIR"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratings_md  # noqa: E402

RULES = "walak-pussa:rounds=single,laps=10000,quiet=100"
S, M = ratings_md.TARGET


def game(seed, seats, winner, rules=RULES):
    return {"rules": rules, "seed": seed, "bots": list(seats), "winner": winner}


def made_up():
    games = [
        game(1, (S, M), 1), game(1, (M, S), 1),      # player 1 won twice: the seat decided
        game(2, (S, M), 0), game(2, (M, S), 1),      # search won twice
        game(3, (S, M), -1), game(3, (M, S), 0),     # a draw, and mcts won as player 0
        game(4, (S, M), -1), game(4, (M, S), -1),    # drawn twice: not decided by a seat
        game(5, (S, M), 0, rules="halusa"),          # other rules: not counted
        game(6, ("random", M), 0),                   # other bots: not counted
    ]
    wins, draws, openings, twice, points, played = ratings_md.seat_balance({"games": games}, RULES)
    assert wins == [2, 3] and draws == 3 and openings == 4, (wins, draws, openings)
    assert twice == [0, 1], twice
    # Seeds 2 to 4: 2 + 0.5 + 0 + 0.5 + 0.5 points over 6 games.
    assert (points, played) == (3.5, 6), (points, played)


def of_record(ratings_dir):
    with open(os.path.join(ratings_dir, "walak-pussa-target-balanced-500.json")) as f:
        d = json.load(f)
    wins, draws, openings, twice, points, played = ratings_md.seat_balance(d, RULES)
    assert (wins, draws, openings, twice) == ([128, 199], 173, 250, [11, 41]), (wins, twice)
    assert (points, played) == (284.5, 396), (points, played)


def unknown_bots():
    """Bots outside ratings_md.ORDER follow the known ones, in the order the file names them."""
    import contextlib
    import io
    import tempfile
    rs = {"rules": RULES, "anchor": "random", "pairings": [], "ratings": [
        {"bot": b, "games": 2, "elo": e, "half_width": 9.0}
        for b, e in (("yardstick:nodes=7", 5.0), ("random", 0.0), ("search:nodes=3", 7.0))]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"bots": [], "rule_sets": [rs], "games": []}, f)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ratings_md.main([f.name])
    os.unlink(f.name)
    rows = [line.split("`")[1] for line in out.getvalue().splitlines()[2:5]]
    assert rows == ["random", "yardstick:nodes=7", "search:nodes=3"], rows


def levels_left_out(ratings_dir):
    """docs/ratings/levels.json (the levels, no list) is left out of docs/ratings/*.json."""
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        ratings_md.main([os.path.join(ratings_dir, "levels.json")])
    assert "no tg-arena rating list, left out" in err.getvalue(), err.getvalue()


if __name__ == "__main__":
    made_up()
    unknown_bots()
    levels_left_out(sys.argv[1])
    of_record(sys.argv[1])
    print("ok")
