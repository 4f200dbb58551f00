"""Argument types and error types: integer-like values (numpy's too) wherever an int is
taken, only TGError, TypeError and ValueError (and IndexError off the board) out of any
call, error messages of bounded size, and no message built by a call that succeeds."""

from __future__ import annotations

import ctypes
import importlib
import unittest
from typing import Any, Callable, List, Tuple
from unittest import mock

import traditional_games as tg
from traditional_games import _errors

numpy: Any
try:
    # By name, so that mypy needs no numpy type information where numpy is not installed.
    numpy = importlib.import_module("numpy")
except ImportError:  # the numpy tests are skipped; the package itself never needs it
    numpy = None

ALLOWED = (tg.TGError, TypeError, ValueError, IndexError)


class Index:
    """An integer-like object that is no int (as numpy's scalars are)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def int_likes(value: int) -> List[Any]:
    values: List[Any] = [value, Index(value), type("MyInt", (int,), {})(value)]
    if numpy is not None:
        values += [numpy.int64(value), numpy.int32(value), numpy.uint8(value),
                   numpy.intp(value)]
    return values


class TestIntegerLikes(unittest.TestCase):
    def test_moves_cells_and_counts(self) -> None:
        for zero, one, v in zip(int_likes(0), int_likes(1), int_likes(2)):
            with self.subTest(type=type(v).__name__), tg.State("halusa") as s:
                self.assertTrue(s.is_legal(v))
                self.assertEqual(s.move_to_string(v), "c1")
                m = s.apply(v)
                self.assertEqual(m, 2)
                self.assertIs(type(m), int)
                self.assertIs(type(s.history[0]), int)
                self.assertEqual(s.count(one, v), s.count(1, 2))
                self.assertEqual(s.owner(zero, v), 0)
                self.assertEqual(s.flags(zero, v), 0)
                self.assertEqual(s.score(one), s.scores[1])
                self.assertEqual(s.perft(v), s.perft(2))

    def test_generators_and_limits(self) -> None:
        for v in int_likes(7):
            with self.subTest(type=type(v).__name__):
                self.assertEqual(tg.Rng(v), tg.Rng(7))
                rng = tg.Rng(0)
                rng.state = v
                self.assertEqual(rng.state, 7)
                with tg.State("hus") as a, tg.State("hus") as b:
                    a.apply_random(v)
                    b.apply_random(tg.Rng(7))
                    self.assertEqual(a, b)
                    self.assertEqual(a.playout(v, v), 7)
                    self.assertEqual(b.playout(7, 7), 7)
                    self.assertEqual(a, b)
                    self.assertEqual(a.bot_choose("random", v), b.bot_choose("random", 7))

    @unittest.skipIf(numpy is None, "numpy is not installed (Debian: python3-numpy)")
    def test_numpy_arrays_of_moves(self) -> None:
        # A typical use: moves kept in a numpy array, played back element by element.
        with tg.State("hawalis") as s:
            rng = tg.Rng(3)
            while not s.is_terminal and s.ply < 30:
                s.apply_random(rng)
            line = numpy.array(s.history, dtype=numpy.uint32)
            final = s.to_string()
        with tg.State("hawalis") as replay:
            for m in line:
                self.assertTrue(replay.is_legal(m))
                replay.apply(m)
            self.assertEqual(replay.to_string(), final)
            self.assertFalse(replay.is_legal(numpy.int64(-1)))
            with self.assertRaises(TypeError):
                replay.apply(numpy.float64(2.0))
            with self.assertRaises(TypeError):  # a bool is no move, numpy's neither
                replay.apply(numpy.bool_(True))

    def test_not_ints(self) -> None:
        with tg.State("halusa") as s:
            bads: List[Any] = [2.0, True, "2", None, [2], 2 + 0j]
            for bad in bads:
                with self.subTest(bad=bad):
                    limit: Any = "1" if bad is None else bad  # None is "no limit"
                    calls: List[Callable[[], object]] = [
                        lambda: s.score(bad), lambda: s.count(bad, 0), lambda: s.perft(bad),
                        lambda: tg.Rng(bad), lambda: s.playout(1, limit)]
                    for call in calls:
                        with self.assertRaises(TypeError):
                            call()


class TestErrorTypes(unittest.TestCase):
    def test_no_ctypes_argument_error(self) -> None:
        # The report: s.score(0.0) raised ctypes.ArgumentError.
        with tg.State("halusa") as s:
            calls: List[Callable[[], object]] = [
                lambda: s.score(0.0), lambda: s.score(0.5), lambda: s.score(-1),  # type: ignore
                lambda: s.score(2 ** 70), lambda: s.count(0, 2 ** 70),
                lambda: s.count(-2 ** 70, 0), lambda: s.perft(2 ** 40),
                lambda: s.perft(-1), lambda: s.move_to_string(2 ** 64),
                lambda: s.move_to_string(1.0), lambda: s.playout(1, 2 ** 65),  # type: ignore
                lambda: s.apply(2 ** 64), lambda: s.is_legal(2 ** 64),
                lambda: tg.Rng(2 ** 200), lambda: tg.State("halusa").apply(-(2 ** 100)),
            ]
            for i, call in enumerate(calls):
                with self.subTest(call=i):
                    try:
                        call()
                    except ctypes.ArgumentError as e:
                        self.fail("ctypes.ArgumentError: %s" % e)
                    except ALLOWED:
                        pass
            self.assertEqual(s.ply, 0)

    def test_lone_surrogates(self) -> None:
        # The report: UnicodeEncodeError out of apply, is_legal and Rules.
        S = tg.Status
        with tg.State("halusa") as s:
            for text in ("\ud800", "c1\udfff", "\udbff\udc00"):
                with self.subTest(text=ascii(text)):
                    with self.assertRaises(tg.ParseError):
                        s.apply(text)
                    self.assertFalse(s.is_legal(text))
                    with self.assertRaises(tg.ParseError):
                        s.move_from_string(text)
                    with self.assertRaises(tg.ParseError):
                        tg.State.from_string("halusa", s.to_string() + text)
                    with self.assertRaises(tg.BadOption):
                        s.bot_choose("greedy" + text, 1)
                    with self.assertRaises(tg.BadOption):
                        tg.check_bot(text)
            self.assertEqual(s.ply, 0)
        for spec, status in (("\ud800", S.TG_ERR_UNKNOWN_GAME),
                             ("hal\ud800usa", S.TG_ERR_UNKNOWN_GAME),
                             ("halusa:quiet=\ud800", S.TG_ERR_BAD_OPTION)):
            with self.subTest(spec=ascii(spec)):
                with self.assertRaises(tg.TGError) as cm:
                    tg.Rules(spec)
                self.assertEqual(cm.exception.status, status)
                with self.assertRaises(tg.TGError):
                    tg.State(spec)
        # An escaped byte (surrogateescape, as os.fsdecode gives) is still the byte it was.
        with tg.State("halusa") as s, self.assertRaises(tg.ParseError):
            s.apply("c1\udcff")

    def test_messages_are_bounded(self) -> None:
        huge = "z" * 50_000_000
        with tg.State("halusa") as s:
            cases: List[Tuple[str, Callable[[], object]]] = [
                ("apply", lambda: s.apply(huge)),
                ("apply bytes", lambda: s.apply(huge.encode())),
                ("move_from_string", lambda: s.move_from_string(huge)),
                ("from_string", lambda: tg.State.from_string("halusa", huge)),
                ("Rules", lambda: tg.Rules("halusa:" + huge)),
                ("bot", lambda: s.bot_choose(huge, 1)),
                ("NUL", lambda: s.apply(huge + "\0")),
                ("surrogate", lambda: s.apply(huge + "\ud800")),
            ]
            for name, call in cases:
                with self.subTest(call=name):
                    with self.assertRaises(tg.TGError) as cm:
                        call()
                    message = str(cm.exception)
                    self.assertLess(len(message), 600, message[:100])
                    self.assertIn("zzzz", message)
                    self.assertRegex(message, r"\(5000000\d (characters|bytes)\)")
                    self.assertLess(len(cm.exception.context or ""), 600)
            self.assertFalse(s.is_legal(huge))

    def test_success_builds_no_message(self) -> None:
        # Every message is made by _errors.describe(), and check() calls it only for a
        # status other than TG_OK: replaced by a recorder, it must see nothing here.
        seen: List[Tuple[str, Tuple[object, ...]]] = []

        def recorder(fmt: str, args: Tuple[object, ...]) -> str:
            seen.append((fmt, args))
            return fmt

        with mock.patch.object(_errors, "describe", recorder):
            with tg.Rules("hus:width=16") as r, tg.State(r) as s:
                rng = tg.Rng(1)
                s.apply(s.legal_moves()[0])
                s.apply(s.move_to_string(s.legal_moves()[0]))
                s.is_legal("a1")
                s.is_legal("zz")  # False is an answer, not a failure
                s.move_from_string("b2")
                s.bot_choose("greedy", rng)
                s.play_bot("random", rng)
                s.apply_random(rng)
                s.undo()
                s.perft(2)
                with tg.State.from_string(r, s.to_string()) as t:
                    t.playout(rng)
                    t.render()
                s.legal_move_names()
                tg.check_bot("mcts:iterations=5")
                self.assertEqual(seen, [])
                with self.assertRaises(tg.IllegalMove):
                    s.apply(999)
                self.assertEqual(len(seen), 1)


if __name__ == "__main__":
    unittest.main()
