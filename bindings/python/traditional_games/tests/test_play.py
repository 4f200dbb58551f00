"""Every game played to the end with invariants checked at each ply, the catalogue, copies of
states and generators, and the bots."""

from __future__ import annotations

import copy
import unittest
from typing import List, Tuple

import traditional_games as tg

from .helpers import MAX_PLIES, all_specs, check_with_and_close, play_checked


class TestCatalogue(unittest.TestCase):
    def test_games(self) -> None:
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

    def test_version(self) -> None:
        self.assertTrue(tg.library_version().startswith("0."))

    def test_rules_basics(self) -> None:
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


    def test_rules_and_state_with_blocks(self) -> None:
        check_with_and_close(self, lambda: tg.Rules("hus"), {
            "spec": lambda r: r.spec,
            "new_state": lambda r: r.new_state().close(),
            "copy": lambda r: copy.copy(r).close(),
        }, lambda r: [r.closed])
        check_with_and_close(self, lambda: tg.State("tab"), {
            "to_string": lambda s: s.to_string(),
            "apply_random": lambda s: s.apply_random(tg.Rng(1)),
            "clone": lambda s: s.clone().close(),
        }, lambda s: [s.closed])


class TestPlay(unittest.TestCase):
    def test_every_game_to_the_end(self) -> None:
        for spec in all_specs():
            for seed in (1, 2):
                with self.subTest(spec=spec, seed=seed):
                    play_checked(self, spec, seed)

    def test_same_seed_same_game(self) -> None:
        for spec in ("halusa", "tab", "hawalis:variant=zanzibar"):
            with self.subTest(spec=spec):
                a = play_checked(self, spec, 99)
                b = play_checked(self, spec, 99)
                self.assertEqual(a, b)
                self.assertNotEqual(a[2], 99)  # the generator advanced
                c = play_checked(self, spec, 100)
                self.assertNotEqual(a[:2], c[:2])

    def test_rng_advances_across_calls(self) -> None:
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

    def test_playout_and_perft(self) -> None:
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

    def test_copy_from_and_copy_module(self) -> None:
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
            self.assertIsNone(getattr(tg.State, "__hash__"))  # mutable: .hash instead
            self.assertNotEqual(a, "not a state")

    def test_tab_notation(self) -> None:
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
    def play_bots(self, spec: str, bot0: str, bot1: str,
                  seed: int) -> Tuple[int, List[int]]:
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

    def test_greedy_against_random(self) -> None:
        for spec in ("halusa", "hus", "hawalis", "walak-pussa", "tab"):
            with self.subTest(spec=spec):
                w, h = self.play_bots(spec, "greedy", "random", 4)
                self.assertIn(w, (0, 1, tg.DRAW))
                self.assertEqual((w, h), self.play_bots(spec, "greedy", "random", 4))

    def test_small_mcts(self) -> None:
        w, _ = self.play_bots("halusa", "mcts:iterations=30,c=0.7", "random", 1)
        self.assertIn(w, (0, 1, tg.DRAW))
        w, _ = self.play_bots("tab", "mcts:iterations=10", "greedy", 2)
        self.assertIn(w, (0, 1, tg.DRAW))

    def test_random_bot_matches_apply_random(self) -> None:
        with tg.State("hawalis") as a, tg.State("hawalis") as b:
            r1, r2 = tg.Rng(8), tg.Rng(8)
            for _ in range(30):
                m = a.play_bot("random", r1)
                b.apply_random(r2)
                self.assertEqual(b.history[-1], m)
                self.assertEqual(r1, r2)

    def test_check_bot(self) -> None:
        tg.check_bot("mcts:iterations=5,c=1.5")
        for bad in ("nosuchbot", "mcts:iterations=0", "greedy:depth=2", "", "mcts:"):
            with self.subTest(bad=bad), self.assertRaises(tg.BadOption) as cm:
                tg.check_bot(bad)
            self.assertEqual(cm.exception.status, tg.Status.TG_ERR_BAD_OPTION)
