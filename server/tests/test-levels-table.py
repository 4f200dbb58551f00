#!/usr/bin/env python3
"""server/levels-table.py, which compiles docs/ratings/levels.json into tg-server's level names:

    test-levels-table.py PATH-TO-levels-table.py PATH-TO-levels.json

- the project's file gives one C row per game and level, its spec unchanged;
- a bad file (not JSON, a key twice, a level or spec missing, a clock-bound or unknown spec,
  characters that would break the C string) is refused with the reason and exit status 1,
  and no table is written; a wrong command line gets status 2.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None
LEVELS = None


def run(script, levels_text=None, levels_path=None, args=None):
    """Runs the generator; (status, stderr, the table written or None)."""
    with tempfile.TemporaryDirectory(prefix="levels-table-") as tmp:
        if levels_path is None:
            levels_path = os.path.join(tmp, "levels.json")
            with open(levels_path, "w", encoding="utf-8") as f:
                f.write(levels_text)
        out = os.path.join(tmp, "levels-table.c")
        proc = subprocess.run([sys.executable, script] + (args if args is not None else [levels_path, out]),
                              capture_output=True, text=True, timeout=60)
        table = None
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                table = f.read()
        return proc.returncode, proc.stderr, table


GOOD = {"levels": ["beginner", "strongest"],
        "games": {"hus": ["random", "search:nodes=50000"], "tab": ["greedy", "mcts:iterations=100"]}}


class LevelsTableTest(unittest.TestCase):
    def test_the_projects_levels_become_one_row_each(self):
        with open(LEVELS, encoding="utf-8") as f:
            table = json.load(f)
        status, err, c = run(SCRIPT, levels_path=LEVELS)
        self.assertEqual((status, err), (0, ""))
        rows = re.findall(r'\{"([^"]+)", "([^"]+)", "([^"]+)"\},', c)
        want = [(game, level, spec) for game, specs in table["games"].items()
                for level, spec in zip(table["levels"], specs)]
        self.assertEqual(rows, want)
        self.assertEqual(len(rows), 5 * 5)

    def test_a_small_good_file(self):
        status, err, c = run(SCRIPT, json.dumps(GOOD))
        self.assertEqual((status, err), (0, ""))
        self.assertIn('{"tab", "strongest", "mcts:iterations=100"},', c)

    def test_bad_files_are_refused_in_words_and_write_nothing(self):
        def with_specs(**games):
            return json.dumps({"levels": ["beginner", "strongest"], "games": games})
        bad = [
            ("", "Expecting value"),
            ("[]", "not a JSON object"),
            ('{"levels": ["a"], "levels": ["b"], "games": {}}', "'levels' appears twice"),
            ('{"levels": ["beginner"], "games": {"hus": ["random"], "hus": ["greedy"]}}',
             "'hus' appears twice"),
            (json.dumps(dict(GOOD, extra=1)), "unknown key 'extra'"),
            (json.dumps({"games": GOOD["games"]}), '"levels" must be'),
            (json.dumps({"levels": [], "games": GOOD["games"]}), '"levels" must be'),
            (json.dumps({"levels": ["Hard", "x"], "games": {}}), "'Hard' is not lower-case"),
            (json.dumps({"levels": ["hard", "hard"], "games": {}}), "appears twice"),
            (json.dumps({"levels": ["hard"], "games": {}}), '"games" must map'),
            (with_specs(hus=["random"]), "hus: one spec for each of the 2 levels"),
            (with_specs(hus="random"), "hus: one spec for each"),
            (with_specs(**{"Hus!": ["random", "greedy"]}), "'Hus!' is not a game id"),
            (with_specs(hus=["random", "search:time=1000"]), "hus strongest: 'search:time=1000'"),
            (with_specs(hus=["random", "search:nodes=0"]), "'search:nodes=0' is not"),
            (with_specs(hus=["random", "search:nodes=5000,time=100"]), "a level has a fixed budget"),
            (with_specs(hus=["random", 'search:nodes=5"};']), "is not random, greedy"),
            (with_specs(hus=["random", "search:nodes=5\n"]), "is not random, greedy"),
            (with_specs(hus=["random", None]), "hus strongest: None"),
            (with_specs(hus=["expert", "greedy"]), "hus beginner: 'expert'"),
        ]
        for text, why in bad:
            with self.subTest(text=text):
                status, err, c = run(SCRIPT, text)
                self.assertEqual(status, 1, err)
                self.assertIn(why, err)
                self.assertTrue(err.startswith("levels-table.py: "), err)
                self.assertIsNone(c)

    def test_a_missing_file_and_a_wrong_command_line(self):
        status, err, c = run(SCRIPT, levels_path="/nonexistent/levels.json")
        self.assertEqual(status, 1)
        self.assertIn("No such file", err)
        self.assertIsNone(c)
        status, err, _ = run(SCRIPT, "{}", args=["only-one"])
        self.assertEqual(status, 2)
        self.assertIn("usage:", err)


if __name__ == "__main__":
    SCRIPT = os.path.abspath(sys.argv.pop(1))
    LEVELS = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
