"""The engine from Python: bot choices and analyses the same as the C library's in the same
run (tests/oracle.py), the analysis's own shape, and Ctrl-C stopping any search."""

from __future__ import annotations

import dataclasses
import os
import re
import threading
import time
import unittest
from typing import List, Tuple

import traditional_games as tg

from . import oracle, search_tuples
from .helpers import all_specs, play_random
from .test_interrupts import MARGIN, ReportsLatency, SigintAfter

HAS_ENGINE = oracle.has("tg_search_new") and tg._search.has_engine()
SPECS = ["search:nodes=2000", "search:depth=2", "mcts:iterations=200", "greedy", "random"]


def positions(spec: str, count: int = 3) -> List[List[int]]:
    """Move lists of a few positions of a seeded random game (the start included)."""
    out: List[List[int]] = [[]]
    with tg.State(spec) as s:
        rng = tg.Rng(len(spec))
        while len(out) < count and not s.is_terminal:
            play_random(s, rng, 7)
            if not s.is_terminal:
                out.append(s.history)
    return out


def state_at(spec: str, moves: List[int]) -> tg.State:
    s = tg.State(spec)
    for m in moves:
        s.apply(m)
    return s


@unittest.skipUnless(HAS_ENGINE, "the loaded library has no tg_search (before 0.4)")
class TestSameAsTheLibrary(unittest.TestCase):
    def test_bot_choices(self) -> None:
        for spec in all_specs():
            for moves in positions(spec):
                for bot in SPECS:
                    with self.subTest(spec=spec, ply=len(moves), bot=bot), \
                            state_at(spec, moves) as s, oracle.CGame(spec, moves) as c:
                        rng = tg.Rng(99)
                        self.assertEqual((s.bot_choose(bot, rng), rng.state),
                                         c.bot_with_rng(bot, 99))

    def test_analyses(self) -> None:
        for spec in all_specs():
            for moves in positions(spec, 2):
                with self.subTest(spec=spec, ply=len(moves)), state_at(spec, moves) as s, \
                        oracle.CGame(spec, moves) as c:
                    got = s.analyse("search:nodes=3000", tg.Rng(5))
                    self.assertEqual([(a.move, a.value, a.proven, " ".join(a.line))
                                      for a in got], c.analyse("search:nodes=3000", 5))
                    self.assertEqual(s.analyse("search:nodes=3000", 5), got)  # deterministic


@unittest.skipUnless(HAS_ENGINE, "the loaded library has no tg_search (before 0.4)")
class TestAnalysis(unittest.TestCase):
    def test_shape(self) -> None:
        for spec in ("halusa", "hus", "tab", "walak-pussa:rounds=match"):
            with self.subTest(spec=spec), tg.State(spec) as s:
                rng = tg.Rng(3)
                for _ in range(5):
                    s.apply_random(rng)
                result = s.analyse("search:depth=3", rng)
                options = (s.legal_moves() if not s.is_chance
                           else [m for m, _ in s.chance_outcomes()])
                self.assertEqual(sorted(a.move for a in result), options)
                values = [a.value for a in result]
                self.assertEqual(values, sorted(values, reverse=True))  # best first
                for a in result:
                    self.assertIsInstance(a, tg.MoveAnalysis)
                    self.assertEqual(a.name, s.move_to_string(a.move))
                    self.assertEqual(a.line[0], a.name)
                    self.assertLessEqual(len(a.line), 32)
                    self.assertTrue(-1.0 <= a.value <= 1.0)
                    if a.proven and not spec.startswith("tab"):
                        self.assertIn(a.value, (-1.0, 0.0, 1.0))
                with self.assertRaises(dataclasses.FrozenInstanceError):
                    result[0].value = 2.0  # type: ignore[misc]  # the misuse tested
                self.assertEqual(s.ply, 5)  # the state is only read

    def test_a_proven_win_is_played(self) -> None:
        # A small endgame the search solves: the best move's value is exact and it wins.
        with tg.State("halusa") as s:
            rng = tg.Rng(8)
            s.playout(rng, 0)
            while not s.is_terminal:
                result = s.analyse("search:nodes=20000", rng)
                if result[0].proven and result[0].value == 1.0:
                    mover = s.turn
                    for name in result[0].line:
                        s.apply(name)
                    while not s.is_terminal:
                        s.play_bot("search:nodes=20000", rng)
                    self.assertEqual(s.winner, mover)
                    return
                s.apply_random(rng)
            self.skipTest("no proven win came up in this game")

    def test_errors(self) -> None:
        with tg.State("hus") as s:
            for bad in ("search:nodes=0", "search:", "nosuch", "search:time=600001", "search\0"):
                with self.subTest(bad=bad), self.assertRaises(tg.BadOption):
                    s.analyse(bad, 1)
            with self.assertRaises(TypeError):
                s.analyse(5, 1)  # type: ignore[arg-type]  # the misuse tested
            with self.assertRaises(TypeError):
                s.analyse("search", 1.5)  # type: ignore[arg-type]  # the misuse tested
            s.playout(1)
            with self.assertRaises(tg.GameOver):
                s.analyse("search:depth=2", 1)
            with self.assertRaises(tg.GameOver):
                s.bot_choose("search:depth=2", 1)


def has_prover() -> bool:
    try:
        tg.check_bot("prove")
    except tg.BadOption:
        return False
    return True


@unittest.skipUnless(HAS_ENGINE and has_prover(), "the loaded library has no prover")
class TestProver(unittest.TestCase):
    # A Walak-pussa endgame: player 1 to move wins with a2 and e2 (tg-prove's proof of it is
    # checked by the C tests); the same values as the C library's, through the same spec.
    ENDGAME = ("walak-pussa:rounds=single,laps=10000,quiet=100 "
               "1,0,0,0,1,0,0/0,0,0,1,0,0,0 1 24,29 quiet=1")

    def test_proven_values(self) -> None:
        spec = "prove:nodes=20000,tt=2"
        with tg.State.from_string(self.ENDGAME.split(" ")[0], self.ENDGAME) as s:
            got = s.analyse(spec, tg.Rng(1))
            self.assertEqual({(a.name, a.value, a.proven, a.line) for a in got},
                             {("a2", 1.0, True, ("a2",)), ("e2", 1.0, True, ("e2",))})
            self.assertEqual(s.analyse(spec, 1), got)  # deterministic
            self.assertIn(s.bot_choose(spec, 1), [a.move for a in got])

    def test_unknown_and_errors(self) -> None:
        with tg.State("hus") as s:
            got = s.analyse("prove:nodes=100", 1)
            self.assertEqual(len(got), 12)
            self.assertTrue(all(not a.proven and a.value == 0.0 for a in got))
            for bad in ("prove:nodes=0", "prove:depth=1001", "prove:iterations=5"):
                with self.subTest(bad=bad), self.assertRaises(tg.BadOption):
                    s.analyse(bad, 1)
        with tg.State("tab") as s, self.assertRaises(tg.BadOption):
            s.analyse("prove:nodes=100", 1)


@unittest.skipUnless(HAS_ENGINE, "the loaded library has no tg_search (before 0.4)")
class TestCtrlC(ReportsLatency):
    def test_every_search_stops(self) -> None:
        cases: List[Tuple[str, str]] = [
            ("search:time=600000", "bot_choose"), ("mcts:time=600000", "bot_choose"),
            ("search:time=600000", "analyse"), ("mcts:time=600000", "analyse"),
            ("search:time=600000", "play_bot")]
        for spec, method in cases:
            with self.subTest(spec=spec, method=method), tg.State("halusa") as s:
                s.apply("c1")
                before = s.to_string()
                rng = tg.Rng(1)
                with SigintAfter(0.3) as timer:
                    with self.assertRaises(KeyboardInterrupt):
                        getattr(s, method)(spec, rng)
                        time.sleep(10)  # not reached if the search was interrupted
                    latency = time.monotonic() - timer.sent
                self.assertGreater(timer.sent, 0.0, "the search ended before the signal")
                self.assertLess(latency, MARGIN)
                self.latencies.append("%s %s %.0f ms" % (method, spec.split(":")[0],
                                                         latency * 1000))
                # The helper thread is gone, and the state is as it was and usable.
                self.assertEqual([t for t in threading.enumerate()
                                  if t.name == "traditional_games search" and t.is_alive()], [])
                self.assertEqual(s.to_string(), before)
                self.assertIn(s.bot_choose("search:depth=2", rng), s.legal_moves())

    def test_from_another_thread_runs_directly(self) -> None:
        # No signal reaches another thread: there the search is one plain call.
        with tg.State("hawalis") as s:
            out: List[int] = []
            t = threading.Thread(target=lambda: out.append(s.bot_choose("search:depth=2", 4)))
            t.start()
            t.join(60)
            self.assertEqual(out, [s.bot_choose("search:depth=2", 4)])

    def test_close_during_a_search_waits(self) -> None:
        s = tg.State("halusa")
        with SigintAfter(0.2):
            with self.assertRaises(KeyboardInterrupt):
                # The handler closes the state while the search reads it; the close is
                # deferred to the end of the call, which the interrupt brings.
                import signal
                old = signal.getsignal(signal.SIGINT)

                def close_then_interrupt(signum: int, frame: object) -> None:
                    s.close()
                    signal.default_int_handler(signum, frame)  # type: ignore[arg-type]

                signal.signal(signal.SIGINT, close_then_interrupt)
                try:
                    s.bot_choose("search:time=600000", 1)
                finally:
                    signal.signal(signal.SIGINT, old)
        self.assertTrue(s.closed)
        self.assertFalse(s._finalizer.alive if s._finalizer else True)


@unittest.skipUnless(HAS_ENGINE, "the loaded library has no tg_search (before 0.4)")
class TestReferenceMoves(unittest.TestCase):
    """search:nodes=N and search:depth=N give the moves of the engine's C test, on every run
    and platform, as the native library does."""

    def test_the_c_tests_table(self) -> None:
        for rules, text, spec, move in search_tuples.TUPLES:
            with self.subTest(text=text, spec=spec), tg.State.from_string(rules, text) as s:
                rng = tg.Rng(5)
                m = s.bot_choose(spec, rng)
                self.assertEqual(s.move_to_string(m), move)
                self.assertEqual(rng.state, 5)  # a search draws nothing at a decision
                # And the native library's answer, in this run, for the same position.
                with oracle.CGame.from_string(rules, text) as c:
                    self.assertEqual(c.bot_with_rng(spec, 5), (m, 5))

    def test_the_copy_is_the_c_tests_table(self) -> None:
        top = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4)
        inc = os.path.join(top, "tests", "search_tuples.inc")
        if not os.path.exists(inc):
            self.skipTest("not in a source checkout: no C test table to compare with")
        with open(inc, encoding="utf-8") as f:
            table = re.findall(r'\{"([^"]*)",\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)"\}', f.read())
        self.assertEqual(table, search_tuples.TUPLES)


if __name__ == "__main__":
    unittest.main()
