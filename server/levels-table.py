#!/usr/bin/env python3
"""Writes tg-server's table of bot levels (server/bots.c) from docs/ratings/levels.json.

    levels-table.py LEVELS.json OUT.c

The web board reads the same file (web/levels.js), so a level name means the same bot spec
on the page and on the server. The file is checked before anything is written, and a bad
file stops the build with what is wrong: every game lists a spec for every level, and a
spec is `random`, `greedy`, `mcts:iterations=N` or `search:nodes=N`, a fixed budget, so that
the level's measured rating (docs/ratings/GAME.json) holds on any machine and the page can
say in words what the level does.
"""
import json
import re
import sys
from typing import Any, List, Tuple

Row = Tuple[str, str, str]

NAME = re.compile(r"[a-z]+\Z")
GAME = re.compile(r"[a-z][a-z0-9-]*\Z")
SPEC = re.compile(r"(random|greedy|mcts:iterations=[1-9][0-9]{0,6}|search:nodes=[1-9][0-9]{0,8})\Z")


class BadLevels(Exception):
    pass


def unique_keys(pairs: List[Tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (json.load would keep the last one)."""
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise BadLevels("key %r appears twice" % key)
    return dict(pairs)


def check(table: Any) -> List[Row]:
    """The (game, level, spec) rows of a parsed levels file; BadLevels says what is wrong."""
    if not isinstance(table, dict):
        raise BadLevels("not a JSON object")
    unknown = sorted(set(table) - {"about", "levels", "games"})
    if unknown:
        raise BadLevels("unknown key %r" % unknown[0])
    levels = table.get("levels")
    if not isinstance(levels, list) or not levels:
        raise BadLevels('"levels" must be a list of level names')
    for name in levels:
        if not isinstance(name, str) or not NAME.match(name):
            raise BadLevels("level name %r is not lower-case letters" % (name,))
    if len(set(levels)) != len(levels):
        raise BadLevels("a level name appears twice")
    games = table.get("games")
    if not isinstance(games, dict) or not games:
        raise BadLevels('"games" must map game ids to their specs')
    rows: List[Row] = []
    for game, specs in games.items():
        if not GAME.match(game):
            raise BadLevels("game id %r is not a game id" % game)
        if not isinstance(specs, list) or len(specs) != len(levels):
            raise BadLevels("%s: one spec for each of the %d levels" % (game, len(levels)))
        for name, spec in zip(levels, specs):
            if not isinstance(spec, str) or not SPEC.match(spec):
                raise BadLevels("%s %s: %r is not random, greedy, mcts:iterations=N or "
                                "search:nodes=N (a level has a fixed budget)" % (game, name, spec))
            rows.append((game, name, spec))
    return rows


def c_table(rows: List[Row], source: str) -> str:
    lines = ["/* Written by server/levels-table.py from %s when tg-server is built: change" % source,
             " * that file, not this one (docs/bots.md, \"Levels\"). */",
             '#include "server.h"',
             "",
             "const struct bot_level bot_levels[] = {"]
    lines += ['    {"%s", "%s", "%s"},' % row for row in rows]
    lines += ["};", "const size_t bot_level_count = sizeof bot_levels / sizeof bot_levels[0];", ""]
    return "\n".join(lines)


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print("usage: levels-table.py LEVELS.json OUT.c", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            rows = check(json.load(f, object_pairs_hook=unique_keys))
    except (OSError, ValueError, BadLevels) as e:
        print("levels-table.py: %s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    text = c_table(rows, "docs/ratings/levels.json")
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
