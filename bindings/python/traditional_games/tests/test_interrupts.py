"""Ctrl-C during long calls: perft and playout run as many short library calls, so that
KeyboardInterrupt comes promptly, and give exactly what the single library call gives."""

from __future__ import annotations

import os
import signal
import threading
import time
import unittest
from ctypes import byref, c_size_t, c_uint64
from typing import Callable, Iterator, List
from unittest import mock

import traditional_games as tg
from traditional_games import _chunked
from traditional_games._library import tg as lib

from .helpers import all_specs, play_random

# The position of docs/halusa.md, example 6, without the quiet limit: every move is forced,
# none captures, and the twelve moves repeat for ever.
ENDLESS = "halusa:remainder=last-mover,quiet=0 1,0,0,0,0,0/0,0,0,0,0,1 0 32,38 quiet=0"

# Reported, not asserted tightly: the bound holds on a loaded 2-core machine.
MARGIN = 2.0


class SigintAfter:
    """Send SIGINT to this process after `delay` seconds, from a timer thread, with Python's
    own handler installed (a test runner may have started us with SIGINT ignored)."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.sent = 0.0

    def __enter__(self) -> SigintAfter:
        self.old = signal.signal(signal.SIGINT, signal.default_int_handler)

        def send() -> None:
            self.sent = time.monotonic()
            os.kill(os.getpid(), signal.SIGINT)

        self.timer = threading.Timer(self.delay, send)
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        self.timer.join()
        signal.signal(signal.SIGINT, self.old)


def interrupted_after(test: unittest.TestCase, call: Callable[[], object]) -> float:
    """Run call, interrupt it after 0.3 s, and return the latency of the KeyboardInterrupt."""
    with SigintAfter(0.3) as timer:
        with test.assertRaises(KeyboardInterrupt):
            call()
            time.sleep(10)  # not reached if the call was interrupted
        latency = time.monotonic() - timer.sent
    test.assertGreater(timer.sent, 0.0, "the call ended before the signal")
    test.assertLess(latency, MARGIN)
    return latency


def each_spec() -> Iterator[str]:
    yield from all_specs()


class TestChunksGiveTheSameResults(unittest.TestCase):
    def test_perft_expanded_in_python(self) -> None:
        # FAST = 0: no C call is ever short enough to grow the leaves, so every node above
        # depth 1 is expanded by the package, chance nodes included.
        for spec in each_spec():
            with self.subTest(spec=spec), tg.State(spec) as s:
                play_random(s, tg.Rng(4), 6)
                depth = 3 if spec.startswith("tab") else 4
                with s._use as h:
                    expected = [lib.perft(h, d) for d in range(depth + 1)]
                with mock.patch.object(_chunked, "FAST", 0.0):
                    got = [s.perft(d) for d in range(depth + 1)]
                self.assertEqual(got, expected)
                self.assertEqual(s.perft(depth), expected[-1])  # adaptive, as a user gets it

    def test_perft_of_a_finished_game(self) -> None:
        with tg.State("hus") as s:
            s.playout(tg.Rng(2))
            with mock.patch.object(_chunked, "FAST", 0.0):
                self.assertEqual([s.perft(d) for d in range(4)], [1, 0, 0, 0])

    def test_playout_in_pieces(self) -> None:
        for spec in each_spec():
            for seed in (1, 2):
                with self.subTest(spec=spec, seed=seed), tg.State(spec) as a, \
                        tg.State(spec) as b:
                    one = c_uint64(seed)
                    plies = c_size_t()
                    with a._use as h:
                        tg._errors.check(lib.state_playout(h, byref(one), 100000, byref(plies)))
                    rng = c_uint64(seed)
                    with mock.patch.object(_chunked, "FAST", 0.0), b._use as h:
                        n = _chunked.playout(h, rng, 100000, chunk=1)
                    self.assertEqual(n, plies.value)
                    self.assertEqual(rng.value, one.value)
                    self.assertEqual(b.to_string(), a.to_string())
                    self.assertEqual(b.ply, a.ply)
                    self.assertEqual(b.history, [])

    def test_playout_limits(self) -> None:
        with tg.State.from_string("halusa:quiet=0", ENDLESS) as s:
            rng = tg.Rng(1)
            self.assertEqual(s.playout(rng, 0), 0)
            self.assertEqual(s.playout(rng, 12), 12)
            with tg.State.from_string("halusa:quiet=0", ENDLESS) as start:
                self.assertEqual(s.board, start.board)  # the twelve moves came round
                self.assertEqual(s.scores, start.scores)
            self.assertEqual(s.playout(rng, 100000), 100000)
            self.assertFalse(s.is_terminal)


class ReportsLatency(unittest.TestCase):
    """Prints the latencies its tests measured (reported, not asserted beyond MARGIN)."""

    latencies: List[str]

    @classmethod
    def setUpClass(cls) -> None:
        cls.latencies = []

    @classmethod
    def tearDownClass(cls) -> None:
        if cls.latencies:
            print("\n  Ctrl-C latency: " + ", ".join(cls.latencies), end=" ")


class TestCtrlC(ReportsLatency):
    def test_perft(self) -> None:
        with tg.State("hus:width=16") as s:
            latency = interrupted_after(self, lambda: s.perft(14))
            self.latencies.append("perft %.0f ms" % (latency * 1000))
            self.assertEqual(s.ply, 0)  # perft changes nothing
            with s._use as h:
                self.assertEqual(s.perft(3), lib.perft(h, 3))

    def test_playout_of_a_game_that_never_ends(self) -> None:
        with tg.State.from_string("halusa:quiet=0", ENDLESS) as s:
            rng = tg.Rng(1)
            latency = interrupted_after(self, lambda: s.playout(rng))
            self.latencies.append("playout %.0f ms" % (latency * 1000))
            # The moves made stay made, and the state is whole.
            self.assertGreater(s.ply, 1000)
            self.assertFalse(s.is_terminal)
            with tg.State.from_string("halusa:quiet=0", s.to_string()) as back:
                self.assertEqual(back, s)


if __name__ == "__main__":
    unittest.main()
