#!/usr/bin/env python3
"""Tests of the ctypes bindings (plain unittest): every game played to the end with invariants
checked at each ply, bots, and error handling. Run with TG_LIBRARY set to the built library,
or with the library on the loader path: python3 -m unittest test_traditional_games"""

import copy
import os
import re
import subprocess
import sys
import unittest

import traditional_games as tg

# Every game at its defaults, plus option sets that change the board or the rules.
EXTRA_SPECS = ["halusa:remainder=owner,quiet=20", "hus:width=16", "hus:width=10,quiet=0",
               "hawalis:variant=zanzibar", "walak-pussa:rounds=match", "tab:width=29",
               "tab:width=19"]
MAX_PLIES = 20000  # far beyond any game's length with random play


def all_specs():
    return [g.id for g in tg.games()] + EXTRA_SPECS


def play_checked(test, spec, seed):
    """Play a random game from seed to the end, checking invariants at each ply.
    Returns (history, final position string, final generator state)."""
    rng = tg.Rng(seed)
    with tg.Rules(spec) as rules, tg.State(rules) as state:
        test.assertEqual(state.spec, rules.spec)
        cap = rules.max_moves
        while not state.is_terminal:
            test.assertLess(state.ply, MAX_PLIES, "%s seed %d does not end" % (spec, seed))
            before, h, ply = state.to_string(), state.hash, state.ply
            player = state.player
            if player == tg.CHANCE:
                outcomes = state.chance_outcomes()
                test.assertTrue(outcomes)
                test.assertAlmostEqual(sum(p for _, p in outcomes), 1.0, places=9)
                test.assertEqual(state.legal_moves(), [])
                legal = [m for m, _ in outcomes]
            else:
                test.assertIn(player, (0, 1))
                test.assertEqual(state.turn, player)
                legal = state.legal_moves()
                test.assertTrue(legal)
                test.assertEqual(legal, sorted(set(legal)))
                test.assertEqual(state.chance_outcomes(), [])
                test.assertEqual(state.legal_move_names(), [state.move_to_string(m)
                                                            for m in legal])
            test.assertLessEqual(len(legal), cap)
            # A move's notation reads back to the move.
            for m in legal[:3]:
                test.assertEqual(state.move_from_string(state.move_to_string(m)), m)
                test.assertTrue(state.is_legal(m))
            # Clone and string round trip.
            twin = state.clone()
            test.assertEqual(twin, state)
            test.assertEqual(twin.hash, h)
            again = tg.State.from_string(rules, before)
            test.assertEqual(again, state)
            test.assertEqual(again.hash, h)
            test.assertEqual(again.to_string(), before)
            again.close()
            # The random move, checked legal; undo restores the position; redo it.
            state.apply_random(rng)
            move = state.history[-1]
            test.assertIn(move, legal)
            test.assertEqual(state.ply, ply + 1)
            after = state.to_string()
            state.undo()
            test.assertEqual(state.to_string(), before)
            test.assertEqual(state.hash, h)
            test.assertEqual(state.ply, ply)
            test.assertEqual(state, twin)
            twin.close()
            test.assertEqual(state.apply(state.move_to_string(move)), move)
            test.assertEqual(state.to_string(), after)
        # The end.
        test.assertEqual(state.player, tg.TERMINAL)
        test.assertEqual(state.turn, tg.TERMINAL)
        test.assertEqual(state.legal_moves(), [])
        test.assertEqual(state.chance_outcomes(), [])
        winner = state.winner
        test.assertIn(winner, (0, 1, tg.DRAW))
        r0, r1 = state.returns
        test.assertEqual((r0, r1), (0.0, 0.0) if winner == tg.DRAW
                         else ((1.0, -1.0) if winner == 0 else (-1.0, 1.0)))
        test.assertEqual(len(state.history), state.ply)
        final = state.to_string()
        test.assertTrue(final.startswith(rules.spec + " "))
        test.assertEqual(str(state), state.render().rstrip("\n"))
        test.assertGreater(len(str(state).splitlines()), rules.rows)
        # The history replays on a fresh state to the same end.
        with tg.State(rules) as replay:
            for m in state.history:
                replay.apply(m)
            test.assertEqual(replay, state)
            test.assertEqual(replay.to_string(), final)
        # The end reads back from its string too.
        with tg.State.from_string(rules, final) as back:
            test.assertTrue(back.is_terminal)
            test.assertEqual(back.winner, winner)
        return state.history, final, rng.state


class TestCatalogue(unittest.TestCase):
    def test_games(self):
        games = tg.games()
        ids = [g.id for g in games]
        self.assertEqual(ids, ["halusa", "hus", "hawalis", "walak-pussa", "tab"])
        for g in games:
            self.assertTrue(g.name)
            with tg.Rules(g.id) as r:
                self.assertEqual(r.game_id, g.id)
                self.assertGreater(r.rows, 0)
                self.assertGreater(r.cols, 0)
                self.assertGreater(r.max_moves, 0)
                # Every option's default is one of its values; defaults give the same rules.
                for o in g.options:
                    self.assertIn(o.default if "|" in o.values else int(o.default), o.choices)
                    with tg.Rules("%s:%s=%s" % (g.id, o.key, o.default)) as same:
                        self.assertEqual(same, r)
                self.assertEqual(r.spec, g.id + (":" if g.options else "") +
                                 ",".join("%s=%s" % (o.key, o.default) for o in g.options))
        self.assertEqual(tg.Rules.games(), games)

    def test_version(self):
        self.assertTrue(tg.library_version().startswith("0."))

    def test_rules_basics(self):
        r = tg.Rules("halusa:quiet=100")
        self.assertEqual(r.spec, "halusa:remainder=last-mover,quiet=100")
        self.assertEqual((r.rows, r.cols), (2, 6))
        self.assertIn("halusa", repr(r))
        s = r.new_state()
        r.close()
        r.close()  # twice is harmless
        self.assertTrue(r.closed)
        with self.assertRaises(ValueError):
            r.spec
        # The state keeps its own copy of the rules.
        self.assertEqual(s.legal_move_names(), ["a1", "b1", "c1", "d1", "e1", "f1"])
        self.assertEqual(s.rules.spec, "halusa:remainder=last-mover,quiet=100")
        self.assertEqual(s.to_string(),
                         "halusa:remainder=last-mover,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 "
                         "quiet=0")
        self.assertEqual(s.board, [[6] * 6, [6] * 6])
        self.assertEqual((s.count(0, 0), s.owner(0, 0), s.owner(1, 5), s.flags(1, 1)),
                         (6, 0, 1, 0))
        s.close()
        s.close()
        with self.assertRaises(ValueError):
            s.legal_moves()
        self.assertIn("closed", repr(s))


class TestPlay(unittest.TestCase):
    def test_every_game_to_the_end(self):
        for spec in all_specs():
            for seed in (1, 2):
                with self.subTest(spec=spec, seed=seed):
                    play_checked(self, spec, seed)

    def test_same_seed_same_game(self):
        for spec in ("halusa", "tab", "hawalis:variant=zanzibar"):
            with self.subTest(spec=spec):
                a = play_checked(self, spec, 99)
                b = play_checked(self, spec, 99)
                self.assertEqual(a, b)
                self.assertNotEqual(a[2], 99)  # the generator advanced
                c = play_checked(self, spec, 100)
                self.assertNotEqual(a[:2], c[:2])

    def test_rng_advances_across_calls(self):
        with tg.State("hus") as s1, tg.State("hus") as s2:
            rng = tg.Rng(5)
            s1.apply_random(rng)
            first = rng.state
            self.assertNotEqual(first, 5)
            s1.apply_random(rng)
            self.assertNotEqual(rng.state, first)
            # An int seed is a one-off generator: the same move every time.
            s2.apply_random(5)
            self.assertEqual(s2.history, s1.history[:1])
            # A copied generator replays the same stream.
            r1, r2 = tg.Rng(42), tg.Rng(42).copy()
            self.assertEqual(r1, r2)
            a, b = s1.clone(), s1.clone()
            a.playout(r1)
            b.playout(r2)
            self.assertEqual(a, b)
            self.assertEqual(r1, r2)

    def test_playout_and_perft(self):
        for spec in all_specs():
            with self.subTest(spec=spec), tg.State(spec) as s:
                self.assertEqual(s.playout(tg.Rng(3), 0), 0)
                first = s.playout(tg.Rng(3), 5)
                self.assertEqual(first, 5)
                self.assertEqual(s.ply, 5)
                self.assertEqual(s.history, [])
                with self.assertRaises(tg.NoHistory):
                    s.undo()
                rest = s.playout(tg.Rng(3))
                self.assertTrue(s.is_terminal)
                self.assertEqual(s.ply, 5 + rest)
                self.assertEqual(s.playout(tg.Rng(3)), 0)
        with tg.State("halusa") as s:
            self.assertEqual(s.perft(0), 1)
            self.assertEqual(s.perft(1), 6)

    def test_copy_from_and_copy_module(self):
        with tg.State("hus") as a, tg.State("hus") as b:
            a.playout(tg.Rng(1), 10)
            b.apply_random(tg.Rng(2))
            b.copy_from(a)
            self.assertEqual(b, a)
            self.assertEqual(b.ply, 10)
            self.assertEqual(b.history, [])
            c = copy.copy(a)
            d = copy.deepcopy(a)
            self.assertEqual(c, a)
            self.assertEqual(d, a)
            c.apply_random(tg.Rng(0))
            self.assertNotEqual(c, a)
            c.close()
            d.close()
            self.assertIsNone(tg.State.__hash__)  # mutable: unhashable, .hash instead
            self.assertNotEqual(a, "not a state")

    def test_tab_notation(self):
        with tg.State("tab") as s:
            self.assertEqual(s.player, tg.CHANCE)
            self.assertIn(s.turn, (0, 1))
            outcomes = s.chance_outcomes()
            names = [s.move_to_string(m) for m, _ in outcomes]
            self.assertTrue(all(n.startswith("throw:") for n in names))
            m = s.apply(names[0])
            self.assertEqual(m, outcomes[0][0])
            self.assertTrue(s.history == [m])


class TestBots(unittest.TestCase):
    def play_bots(self, spec, bot0, bot1, seed):
        rng = tg.Rng(seed)
        with tg.State(spec) as s:
            while not s.is_terminal:
                self.assertLess(s.ply, MAX_PLIES)
                before = s.to_string()
                bot = bot0 if s.turn == 0 else bot1
                twin = rng.copy()
                m = s.bot_choose(bot, rng)
                self.assertEqual(s.to_string(), before)  # choosing changes nothing
                self.assertTrue(s.is_legal(m))
                self.assertEqual(s.play_bot(bot, twin), m)  # same rng, same move
                self.assertEqual(twin, rng)
            return s.winner, s.history

    def test_greedy_against_random(self):
        for spec in ("halusa", "hus", "hawalis", "walak-pussa", "tab"):
            with self.subTest(spec=spec):
                w, h = self.play_bots(spec, "greedy", "random", 4)
                self.assertIn(w, (0, 1, tg.DRAW))
                self.assertEqual((w, h), self.play_bots(spec, "greedy", "random", 4))

    def test_small_mcts(self):
        w, _ = self.play_bots("halusa", "mcts:iterations=30,c=0.7", "random", 1)
        self.assertIn(w, (0, 1, tg.DRAW))
        w, _ = self.play_bots("tab", "mcts:iterations=10", "greedy", 2)
        self.assertIn(w, (0, 1, tg.DRAW))

    def test_random_bot_matches_apply_random(self):
        with tg.State("hawalis") as a, tg.State("hawalis") as b:
            r1, r2 = tg.Rng(8), tg.Rng(8)
            for _ in range(30):
                m = a.play_bot("random", r1)
                b.apply_random(r2)
                self.assertEqual(b.history[-1], m)
                self.assertEqual(r1, r2)

    def test_check_bot(self):
        tg.check_bot("mcts:iterations=5,c=1.5")
        for bad in ("nosuchbot", "mcts:iterations=0", "greedy:depth=2", "", "mcts:"):
            with self.subTest(bad=bad), self.assertRaises(tg.BadOption) as cm:
                tg.check_bot(bad)
            self.assertEqual(cm.exception.status, tg.Status.TG_ERR_BAD_OPTION)


class TestErrors(unittest.TestCase):
    def assertStatus(self, status, fn, *args):
        with self.assertRaises(tg.TGError) as cm:
            fn(*args)
        e = cm.exception
        self.assertEqual(e.status, status)
        self.assertEqual(e.name, tg.Status(status).name)
        self.assertTrue(e.description)
        self.assertIn(e.name, str(e))
        return e

    def assertUnchanged(self, state, fn, *args, status=None, exc=tg.TGError):
        before, h, ply, hist = state.to_string(), state.hash, state.ply, state.history
        with self.assertRaises(exc) as cm:
            fn(*args)
        if status is not None:
            self.assertEqual(cm.exception.status, status)
            self.assertEqual(cm.exception.name, tg.Status(status).name)
        self.assertEqual((state.to_string(), state.hash, state.ply, state.history),
                         (before, h, ply, hist))
        return cm.exception

    def test_status_table_matches_library(self):
        unknown = tg.TGError(99)
        self.assertEqual(unknown.name, "TG_STATUS_99")
        for st in tg.Status:
            e = tg.TGError(st)
            self.assertEqual(e.name, st.name)
            if st != tg.Status.TG_OK:
                self.assertNotEqual(e.description, unknown.description)
        # The table is the header's enum, name for name and value for value.
        header = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                              "include", "traditional-games.h")
        if not os.path.exists(header):
            self.skipTest("header not found")
        with open(header, encoding="utf-8") as f:
            text = f.read()
        body = text[text.index("typedef enum tg_status"):]
        body = body[:body.index("} tg_status;")]
        enum = {m.group(1): int(m.group(2))
                for m in re.finditer(r"(TG_[A-Z_]+)\s*=\s*(\d+)", body)}
        self.assertEqual(enum, {st.name: st.value for st in tg.Status})

    def test_rules_errors(self):
        S = tg.Status
        e = self.assertStatus(S.TG_ERR_UNKNOWN_GAME, tg.Rules, "chess")
        self.assertIsInstance(e, tg.UnknownGame)
        self.assertStatus(S.TG_ERR_UNKNOWN_GAME, tg.Rules, "")
        self.assertStatus(S.TG_ERR_UNKNOWN_GAME, tg.Rules, "Halusa")
        self.assertStatus(S.TG_ERR_UNKNOWN_GAME, tg.State, "no-such-game")
        for bad in ("halusa:quiet=5000", "halusa:color=red", "hus:width=9",
                    "halusa:quiet=1,quiet=2", "halusa:Quiet=1", "halusa:quiet"):
            e = self.assertStatus(S.TG_ERR_BAD_OPTION, tg.Rules, bad)
            self.assertIsInstance(e, tg.BadOption)
        self.assertStatus(S.TG_ERR_BAD_OPTION, tg.Rules, "halusa:quiet=1\0")
        self.assertStatus(S.TG_ERR_UNKNOWN_GAME, tg.Rules, "hal\0usa")
        with self.assertRaises(TypeError):
            tg.Rules(7)
        with self.assertRaises(TypeError):
            tg.State(None)

    def test_move_errors(self):
        S = tg.Status
        with tg.State("halusa") as s:
            self.assertUnchanged(s, s.undo, status=S.TG_ERR_NO_HISTORY, exc=tg.NoHistory)
            s.apply("c1")
            # Illegal as int and as str (a cell of the opponent, off the board, too big).
            self.assertUnchanged(s, s.apply, 0, status=S.TG_ERR_ILLEGAL_MOVE, exc=tg.IllegalMove)
            self.assertUnchanged(s, s.apply, "a1", status=S.TG_ERR_ILLEGAL_MOVE)
            self.assertUnchanged(s, s.apply, 12, status=S.TG_ERR_ILLEGAL_MOVE)
            self.assertUnchanged(s, s.apply, tg.MOVE_PASS, status=S.TG_ERR_ILLEGAL_MOVE)
            self.assertUnchanged(s, s.apply, -1, status=S.TG_ERR_ILLEGAL_MOVE)
            self.assertUnchanged(s, s.apply, 2 ** 40 + 7, status=S.TG_ERR_ILLEGAL_MOVE)
            # Malformed text.
            for bad in ("zz9", "", "A1", "c 2", "c2\0", "g2", "throw:3", "pass2"):
                with self.subTest(bad=bad):
                    e = self.assertUnchanged(s, s.apply, bad, status=S.TG_ERR_PARSE)
                    self.assertIsInstance(e, tg.ParseError)
                    self.assertFalse(s.is_legal(bad))
            self.assertUnchanged(s, s.move_from_string, "zz9", status=S.TG_ERR_PARSE)
            self.assertUnchanged(s, s.move_to_string, 12, status=S.TG_ERR_INVALID_ARGUMENT)
            # Wrong Python types.
            for bad in (None, 1.0, True, [1], object()):
                with self.subTest(bad=bad):
                    self.assertUnchanged(s, s.apply, bad, exc=TypeError)
            self.assertUnchanged(s, s.count, "a", 0, exc=TypeError)
            self.assertUnchanged(s, s.count, 2, 0, exc=IndexError)
            self.assertUnchanged(s, s.owner, 0, -1, exc=IndexError)
            self.assertUnchanged(s, s.apply_random, "seed", exc=TypeError)
            self.assertUnchanged(s, s.playout, tg.Rng(1), -1, exc=ValueError)
            self.assertUnchanged(s, s.copy_from, "state", exc=TypeError)
            self.assertUnchanged(s, s.score, 2, exc=ValueError)
            # Undo still works after all that.
            s.undo()
            self.assertEqual(s.ply, 0)

    def test_game_over(self):
        S = tg.Status
        with tg.State("hus") as s:
            rng = tg.Rng(11)
            s.playout(rng)
            self.assertTrue(s.is_terminal)
            e = self.assertUnchanged(s, s.apply, 0, status=S.TG_ERR_GAME_OVER)
            self.assertIsInstance(e, tg.GameOver)
            self.assertUnchanged(s, s.apply, "a1", status=S.TG_ERR_GAME_OVER)
            self.assertUnchanged(s, s.apply, 2 ** 33, status=S.TG_ERR_GAME_OVER)
            before = rng.state
            self.assertUnchanged(s, s.apply_random, rng, status=S.TG_ERR_GAME_OVER)
            self.assertUnchanged(s, s.bot_choose, "greedy", rng, status=S.TG_ERR_GAME_OVER)
            self.assertEqual(rng.state, before)  # not advanced on error

    def test_bad_position_strings(self):
        S = tg.Status
        with tg.Rules("halusa") as r:
            good = "halusa:remainder=last-mover,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0"
            with tg.State.from_string(r, good) as s:
                self.assertEqual(s.ply, 0)
            with tg.State.from_string("halusa", "halusa " + good.split(" ", 1)[1]) as s:
                self.assertEqual(s.to_string(), good)
            for bad in ("", "halusa", good.replace("6,6,6,6,6,6/", "6,6,6,6,6,7/"),
                        good.replace(" 0 0,0", " 2 0,0"), good + " extra=1", good + "\0",
                        "halusa:quiet=5000 " + good.split(" ", 1)[1]):
                with self.subTest(bad=bad):
                    e = self.assertStatus(S.TG_ERR_PARSE, tg.State.from_string, r, bad)
                    self.assertIsInstance(e, tg.ParseError)
            mismatch = "halusa:remainder=owner,quiet=100 " + good.split(" ", 1)[1]
            e = self.assertStatus(S.TG_ERR_RULES_MISMATCH, tg.State.from_string, r, mismatch)
            self.assertIsInstance(e, tg.RulesMismatch)
            with self.assertRaises(TypeError):
                tg.State.from_string(r, None)
            with self.assertRaises(TypeError):
                tg.State.from_string(None, good)

    def test_rules_mismatch_in_copy_from(self):
        with tg.State("hus") as a, tg.State("hus:width=16") as b:
            e = self.assertUnchanged(a, a.copy_from, b, status=tg.Status.TG_ERR_RULES_MISMATCH)
            self.assertIsInstance(e, tg.RulesMismatch)

    def test_bad_bot_spec(self):
        with tg.State("halusa") as s:
            rng = tg.Rng(3)
            for bad in ("nosuchbot", "mcts:iterations=0", "random:x=1", "mcts:c=-1",
                        "greedy\0"):
                with self.subTest(bad=bad):
                    self.assertUnchanged(s, s.bot_choose, bad, rng,
                                         status=tg.Status.TG_ERR_BAD_OPTION, exc=tg.BadOption)
                    self.assertUnchanged(s, s.play_bot, bad, rng,
                                         status=tg.Status.TG_ERR_BAD_OPTION)
                    self.assertEqual(rng.state, 3)
            self.assertUnchanged(s, s.bot_choose, 5, rng, exc=TypeError)
            self.assertUnchanged(s, s.bot_choose, "random", 2.5, exc=TypeError)
            with self.assertRaises(TypeError):
                tg.Rng("1")

    def test_missing_library(self):
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ, TG_LIBRARY=os.path.join(here, "no-such-dir", "libnope.so"),
                   PYTHONPATH=here)
        proc = subprocess.run(
            [sys.executable, "-c",
             "import traditional_games as tg\n"],
            env=env, capture_output=True, text=True, timeout=60)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("LibraryNotFoundError", proc.stderr)
        self.assertIn("TG_LIBRARY", proc.stderr)
        self.assertIn("libnope.so", proc.stderr)
        # The error is an ImportError that a program can catch.
        proc = subprocess.run(
            [sys.executable, "-c",
             "try:\n    import traditional_games\nexcept ImportError as e:\n"
             "    print('caught', type(e).__name__)\n"],
            env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("caught LibraryNotFoundError", proc.stdout)


if __name__ == "__main__":
    unittest.main()
