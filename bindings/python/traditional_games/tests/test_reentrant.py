"""close() from inside a running call of the same thread: from a signal handler, from an
argument's own methods, from a __del__ the garbage collector runs. None may free the C state
under the call; the close must still really free it once the call is over."""

from __future__ import annotations

import gc
import signal
import time
import unittest
from typing import Any, Callable, List, Tuple

import traditional_games as tg


def assert_freed(test: unittest.TestCase, state: tg.State) -> None:
    test.assertTrue(state.closed)
    test.assertEqual(state._calls, 0)
    # The finalizer is what frees the C object: dead means it ran.
    assert state._finalizer is not None
    test.assertFalse(state._finalizer.alive)
    with test.assertRaisesRegex(ValueError, "closed"):
        state.legal_moves()


@unittest.skipUnless(hasattr(signal, "setitimer"), "needs signal.setitimer")
class TestSignalHandler(unittest.TestCase):
    def test_close_from_a_signal_handler(self) -> None:
        # The report of issue 26: a SIGALRM handler closing the state during legal_moves
        # crashed 5 times of 5. Each round makes a state and calls into it until the timer's
        # handler has closed it; the handler notes whether a call was running then.
        inside = [0]
        rounds = [0]
        current: List[tg.State] = []

        def handler(signum: int, frame: Any) -> None:
            if current:
                s = current[0]
                if s._calls:
                    inside[0] += 1
                s.close()

        old = signal.signal(signal.SIGALRM, handler)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and (inside[0] < 5 or rounds[0] < 30):
                s = tg.State("tab:width=29")
                current[:] = [s]
                expected = None
                try:
                    while True:
                        moves = s.legal_moves()
                        names = s.legal_move_names()
                        if expected is None:
                            expected = (moves, names)
                        self.assertEqual((moves, names), expected)
                except ValueError as e:
                    self.assertIn("closed", str(e))
                current.clear()
                assert_freed(self, s)
                rounds[0] += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            signal.signal(signal.SIGALRM, old)
        # The handler did land inside calls (else the test proved nothing).
        self.assertGreater(inside[0], 0, "no signal arrived during a call in %d rounds"
                           % rounds[0])


class TestArgumentCode(unittest.TestCase):
    """Arguments whose own methods close the state: they run before the state is used."""

    def make_closer(self, base: type, state: tg.State, value: Any) -> Any:
        def close_then(name: str) -> Any:
            def method(self_: Any, *args: Any) -> Any:
                state.close()
                return getattr(base, name)(self_, *args)
            return method
        names = ["__index__", "__int__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
                 "__ge__", "__hash__", "__repr__", "__str__", "__format__", "__and__",
                 "__bool__", "__len__", "encode", "__getitem__", "__contains__"]
        methods = {n: close_then(n) for n in names if hasattr(base, n)}
        return type("Closing" + base.__name__.capitalize(), (base,), methods)(value)

    def test_int_subclass_passed_to_apply(self) -> None:
        # The report: an int subclass whose __index__ closes the state, given to apply,
        # crashed 3 times of 3.
        for spec in ("halusa", "hus", "tab"):
            with self.subTest(spec=spec):
                s = tg.State(spec)
                move = (s.chance_outcomes()[0][0] if s.is_chance else s.legal_moves()[-1])
                arg = self.make_closer(int, s, move)
                try:
                    self.assertEqual(s.apply(arg), move)
                    self.assertIs(type(s.history[-1]), int)
                    s.close()
                except ValueError as e:  # the argument's code ran first and closed it
                    self.assertIn("closed", str(e))
                assert_freed(self, s)

    def test_every_method_with_closing_arguments(self) -> None:
        calls: List[Tuple[str, Callable[[tg.State, Any], object], type, object]] = [
            ("apply", lambda s, a: s.apply(a), int, 2),
            ("apply str", lambda s, a: s.apply(a), str, "c1"),
            ("apply bytes", lambda s, a: s.apply(a), bytes, b"c1"),
            ("is_legal", lambda s, a: s.is_legal(a), int, 2),
            ("is_legal str", lambda s, a: s.is_legal(a), str, "c1"),
            ("move_to_string", lambda s, a: s.move_to_string(a), int, 2),
            ("move_from_string", lambda s, a: s.move_from_string(a), str, "c1"),
            ("count", lambda s, a: s.count(a, a), int, 1),
            ("owner", lambda s, a: s.owner(0, a), int, 1),
            ("flags", lambda s, a: s.flags(a, 0), int, 1),
            ("score", lambda s, a: s.score(a), int, 1),
            ("perft", lambda s, a: s.perft(a), int, 3),
            ("playout", lambda s, a: s.playout(tg.Rng(1), a), int, 50),
            ("apply_random", lambda s, a: s.apply_random(a), int, 7),
            ("playout seed", lambda s, a: s.playout(a), int, 7),
            ("bot_choose", lambda s, a: s.bot_choose(a, 3), str, "greedy"),
            ("play_bot", lambda s, a: s.play_bot("greedy", a), int, 3),
        ]
        for name, call, base, value in calls:
            with self.subTest(call=name):
                s = tg.State("halusa")
                arg = self.make_closer(base, s, value)
                try:
                    call(s, arg)
                except ValueError as e:
                    self.assertIn("closed", str(e))
                s.close()
                assert_freed(self, s)

    def test_closing_index_in_a_non_int(self) -> None:
        # A numpy-like object, not an int: its __index__ must run, and before the call.
        s = tg.State("halusa")

        class Index:
            def __index__(self) -> int:
                s.close()
                return 2

        with self.assertRaisesRegex(ValueError, "closed"):
            s.apply(Index())
        assert_freed(self, s)

    def test_rules_closed_by_an_argument_of_state(self) -> None:
        rules = tg.Rules("hus")

        class Spec(str):
            def encode(self, *args: Any) -> bytes:
                rules.close()
                return str.encode(self, *args)

        with tg.State(rules) as s:
            s.apply(Spec("a1"))
            self.assertFalse(rules.closed)  # str.encode of the package, not the subclass's
        rules.close()


class TestGarbageCollector(unittest.TestCase):
    def test_close_from_a_del_during_a_call(self) -> None:
        # An unreachable cycle whose __del__ closes the state; the collector's threshold is
        # set k allocations ahead, for k = 0, 1, 2, ..., so that the collection (and the
        # __del__) lands at every point of the call in turn, inside the library calls too.
        inside = [0]
        current: List[tg.State] = []

        class Closer:
            def __init__(self) -> None:
                self.cycle = self

            def __del__(self) -> None:
                if current:
                    if current[0]._calls:
                        inside[0] += 1
                    current[0].close()

        old = gc.get_threshold()
        enabled = gc.isenabled()
        gc.enable()
        try:
            for k in range(60):
                for spec, call in (("hawalis", tg.State.legal_move_names),
                                   ("tab", tg.State.chance_outcomes),
                                   ("hus", lambda s: s.perft(3))):
                    s = tg.State(spec)
                    current[:] = [s]
                    gc.collect()
                    Closer()
                    gc.set_threshold(gc.get_count()[0] + k, 1, 1)
                    try:
                        call(s)
                    except ValueError as e:
                        self.assertIn("closed", str(e))
                    gc.set_threshold(*old)
                    gc.collect()  # the __del__ has run by now, whenever k put it
                    current.clear()
                    assert_freed(self, s)
        finally:
            gc.set_threshold(*old)
            if not enabled:
                gc.disable()
            current.clear()
        self.assertGreater(inside[0], 10, "the collector ran a __del__ inside a call only "
                           "%d times" % inside[0])


class TestDeferredClose(unittest.TestCase):
    def test_the_running_call_finishes_and_then_frees(self) -> None:
        # Directly: close() while this thread is inside a call is deferred to the call's end.
        s = tg.State("halusa")
        with s._use as ptr:
            s.close()
            self.assertTrue(s.closed)
            assert s._finalizer is not None
            self.assertTrue(s._finalizer.alive)   # not freed: the call still uses ptr
            self.assertEqual(tg._state._moves(ptr), list(range(6)))
        assert_freed(self, s)

    def test_nested_calls_free_at_the_outermost(self) -> None:
        s = tg.State("halusa")
        with s._use:
            with s._use as ptr:
                s.close()
            assert s._finalizer is not None
            self.assertTrue(s._finalizer.alive)
            self.assertEqual(len(tg._state._moves(ptr)), 6)
        assert_freed(self, s)


if __name__ == "__main__":
    unittest.main()
