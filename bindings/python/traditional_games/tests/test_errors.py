"""Errors: every status raised as its exception, and a failed call changing nothing."""

from __future__ import annotations

import os
import re
import unittest
from typing import Any, Callable, List, Optional, Set, Type

import traditional_games as tg


def read_header(path: str, seen: Optional[Set[str]] = None) -> str:
    """The header's text with each `#include "..."` (its topic headers) replaced by that file's
    text, resolved next to the including file, once per file as the include guards do: what a
    program including it gets."""
    seen = set() if seen is None else seen
    path = os.path.realpath(path)
    if path in seen:
        return ""
    seen.add(path)
    out: List[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
            if m:
                out.append(read_header(os.path.join(os.path.dirname(path), m.group(1)), seen))
            else:
                out.append(line)
    return "".join(out)


class TestErrors(unittest.TestCase):
    def assertStatus(self, status: int, fn: Callable[..., Any], *args: Any) -> tg.TGError:
        with self.assertRaises(tg.TGError) as cm:
            fn(*args)
        e = cm.exception
        self.assertEqual(e.status, status)
        self.assertEqual(e.name, tg.Status(status).name)
        self.assertTrue(e.description)
        self.assertIn(e.name, str(e))
        return e

    def assertUnchanged(self, state: tg.State, fn: Callable[..., Any], *args: Any,
                        status: Optional[int] = None,
                        exc: Type[BaseException] = tg.TGError) -> BaseException:
        before, h, ply, hist = state.to_string(), state.hash, state.ply, state.history
        with self.assertRaises(exc) as cm:
            fn(*args)
        if status is not None:
            e = cm.exception
            assert isinstance(e, tg.TGError)
            self.assertEqual(e.status, status)
            self.assertEqual(e.name, tg.Status(status).name)
        self.assertEqual((state.to_string(), state.hash, state.ply, state.history),
                         (before, h, ply, hist))
        return cm.exception

    def test_status_table_matches_library(self) -> None:
        unknown = tg.TGError(99)
        self.assertEqual(unknown.name, "TG_STATUS_99")
        for st in tg.Status:
            e = tg.TGError(st)
            self.assertEqual(e.name, st.name)
            if st != tg.Status.TG_OK:
                self.assertNotEqual(e.description, unknown.description)
        # The table is the header's enum, name for name and value for value.
        # Only in a source checkout: tests/ -> traditional_games/ -> python/ -> bindings/ -> top.
        top = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4)
        header = os.path.join(top, "include", "traditional-games.h")
        if not os.path.exists(header):
            self.skipTest("not in a source checkout: no header to compare with")
        text = read_header(header)
        body = text[text.index("typedef enum tg_status"):]
        body = body[:body.index("} tg_status;")]
        enum = {m.group(1): int(m.group(2))
                for m in re.finditer(r"(TG_[A-Z_]+)\s*=\s*(\d+)", body)}
        self.assertEqual(enum, {st.name: st.value for st in tg.Status})

    def test_rules_errors(self) -> None:
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
            tg.Rules(7)  # type: ignore[arg-type]  # the misuse tested
        with self.assertRaises(TypeError):
            tg.State(None)  # type: ignore[arg-type]  # the misuse tested

    def test_move_errors(self) -> None:
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
            wrong_types: List[object] = [None, 1.0, True, [1], object()]
            for wrong in wrong_types:
                with self.subTest(wrong=wrong):
                    self.assertUnchanged(s, s.apply, wrong, exc=TypeError)
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

    def test_game_over(self) -> None:
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

    def test_bad_position_strings(self) -> None:
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
                tg.State.from_string(r, None)  # type: ignore[arg-type]  # the misuse tested
            with self.assertRaises(TypeError):
                tg.State.from_string(None, good)  # type: ignore[arg-type]  # the misuse tested

    def test_rules_mismatch_in_copy_from(self) -> None:
        with tg.State("hus") as a, tg.State("hus:width=16") as b:
            e = self.assertUnchanged(a, a.copy_from, b, status=tg.Status.TG_ERR_RULES_MISMATCH)
            self.assertIsInstance(e, tg.RulesMismatch)

    def test_bad_bot_spec(self) -> None:
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
                tg.Rng("1")  # type: ignore[arg-type]  # the misuse tested
