"""Stories, end reasons and records, compared in the same run with the C library called
directly (tests/oracle.py) for the same seeded games, and checked by the property that
defines a story: its events turn the counts and scores before a move into those after it."""

from __future__ import annotations

import dataclasses
import unittest
from typing import Dict, List, Set, Tuple

import traditional_games as tg

from . import oracle
from .helpers import all_specs

NONE = 0xFFFFFFFF
HAS_STORY = oracle.has("tg_state_story") and tg._library.tg.state_story is not None
HAS_RECORD = oracle.has("tg_state_record") and tg._library.tg.state_record is not None

# docs/halusa.md, example 6: twelve forced moves that capture nothing, round and round; the
# 100th move since the last capture reaches the quiet limit.
QUIET = "halusa:remainder=last-mover,quiet=100 1,0,0,0,0,0/0,0,0,0,0,1 0 32,38 quiet=0"


def random_game(spec: str, seed: int, max_plies: int = 400) -> tg.State:
    s = tg.State(spec)
    rng = tg.Rng(seed)
    while not s.is_terminal and s.ply < max_plies:
        s.apply_random(rng)
    return s


def raw(event: tg.Event, cols: int) -> Tuple[int, int, int, int]:
    """An Event back as the four C fields."""
    cell = NONE if event.cell is None else event.cell[0] * cols + event.cell[1]
    return (int(event.kind), cell, NONE if event.count is None else event.count,
            NONE if event.player is None else event.player)


def replay(events: List[tg.Event], board: List[List[int]],
           scores: List[int]) -> Tuple[List[List[int]], List[int]]:
    """The effect of each event kind (the header's tg_event_kind) on counts and scores."""
    K = tg.EventKind
    board = [row[:] for row in board]
    scores = scores[:]
    for e in events:
        if e.cell is not None:
            r, c = e.cell
        if e.kind in (K.LIFT, K.RESOW, K.MOVE_FROM):
            board[r][c] -= e.count or 0
        elif e.kind in (K.DROP, K.MOVE_TO):
            board[r][c] += e.count or 0
        elif e.kind in (K.CAPTURE, K.TAKE, K.GATHER):
            assert e.player is not None and e.count is not None
            board[r][c] -= e.count
            scores[e.player] += e.count
        elif e.kind == K.SCORE:
            assert e.player is not None and e.count is not None
            scores[e.player] = e.count
        elif e.kind == K.FILL:
            assert e.player is not None and e.count is not None
            board[r][c] += e.count
            scores[e.player] -= e.count
        elif e.kind == K.SET:
            assert e.count is not None
            board[r][c] = e.count
    return board, scores


@unittest.skipUnless(HAS_STORY, "the loaded library has no tg_state_story (before 0.4)")
class TestStories(unittest.TestCase):
    def test_same_as_the_library_and_replayable(self) -> None:
        kinds_seen: Dict[str, Set[int]] = {}
        for spec in all_specs():
            for seed in (1, 2, 3):
                with self.subTest(spec=spec, seed=seed), random_game(spec, seed) as s:
                    moves = s.history
                    cols = s.cols
                    seen = kinds_seen.setdefault(spec.split(":")[0], set())
                    with oracle.CGame(spec, moves) as c, tg.State(spec) as before:
                        for i, m in enumerate(moves):
                            story = s.story(i)
                            self.assertEqual([raw(e, cols) for e in story], c.story(i))
                            board, scores = before.board, list(before.scores)
                            before.apply(m)
                            self.assertEqual(replay(story, board, scores),
                                             (before.board, list(before.scores)),
                                             "story %d (%s)" % (i, before.move_to_string(m)
                                                                if not s.is_chance else m))
                            seen.update(e.kind for e in story)
                        self.assertEqual(int(s.end_reason), c.end_reason()[0])
                        self.assertEqual(s.end_reason.token, c.end_reason()[1])
        K = tg.EventKind
        self.assertTrue({K.LIFT, K.DROP, K.TURN} <= kinds_seen["halusa"])
        self.assertTrue({K.THROW, K.MOVE_FROM, K.MOVE_TO} <= kinds_seen["tab"])
        self.assertIn(K.GAME_END, set().union(*kinds_seen.values()))

    def test_events_are_typed_and_frozen(self) -> None:
        with tg.State("halusa") as s:
            s.apply("c1")
            story = s.story(0)
            first = story[0]
            self.assertEqual(first, tg.Event(tg.EventKind.LIFT, (0, 2), 6, 0))
            self.assertIs(type(first.kind), tg.EventKind)
            drops = [e for e in story if e.kind == tg.EventKind.DROP]
            self.assertEqual(len(drops), 6)
            self.assertTrue(all(e.count == 1 for e in drops))
            self.assertEqual(story[-1], tg.Event(tg.EventKind.TURN, None, None, 1))
            with self.assertRaises(dataclasses.FrozenInstanceError):
                first.count = 5  # type: ignore[misc]  # the misuse tested
            self.assertEqual(s.story(-1), story)
            self.assertEqual(hash(first), hash(tg.Event(tg.EventKind.LIFT, (0, 2), 6, 0)))

    def test_bad_indices(self) -> None:
        with tg.State("hus") as s:
            with self.assertRaises(IndexError):
                s.story(0)
            s.apply_random(1)
            s.apply_random(2)
            self.assertEqual(s.story(-2), s.story(0))
            for bad in (2, -3, 2 ** 70):
                with self.subTest(bad=bad), self.assertRaises(IndexError):
                    s.story(bad)
            with self.assertRaises(TypeError):
                s.story("0")  # type: ignore[arg-type]  # the misuse tested
            with self.assertRaises(TypeError):
                s.story(1.0)  # type: ignore[arg-type]  # the misuse tested
            s.playout(3)  # clears the history
            with self.assertRaises(IndexError):
                s.story(0)

    def test_end_reasons(self) -> None:
        with tg.State("hawalis") as s:
            self.assertEqual(s.end_reason, tg.EndReason.NONE)
            self.assertEqual(s.end_reason.token, "none")
        with tg.State.from_string("halusa", QUIET) as s:
            for _ in range(100):
                s.apply(s.legal_moves()[0])
            self.assertTrue(s.is_terminal)
            self.assertEqual(s.end_reason, tg.EndReason.QUIET)
            self.assertEqual(s.end_reason.token, "quiet")
            self.assertEqual(s.story(-1)[-1].kind, tg.EventKind.GAME_END)
            self.assertEqual(s.story(-1)[-1].count, tg.EndReason.QUIET)
        for r in tg.EndReason:
            self.assertRegex(r.token, r"^[a-z-]+$")
        self.assertEqual(len({r.token for r in tg.EndReason}), len(tg.EndReason))


@unittest.skipUnless(HAS_RECORD, "the loaded library has no tg_state_record (before 0.4)")
class TestRecords(unittest.TestCase):
    def test_same_as_the_library_and_round_trip(self) -> None:
        tags = [("White", 'Ann "the bold"'), ("Black", "Bo\\Ek"), ("Round", 3)]
        c_tags = '[White "Ann \\"the bold\\""]\n[Black "Bo\\\\Ek"]\n[Round "3"]'
        for spec in all_specs():
            for seed in (1, 2):
                with self.subTest(spec=spec, seed=seed), random_game(spec, seed, 150) as s:
                    text = s.to_record(tags)
                    with oracle.CGame(spec, s.history) as c:
                        self.assertEqual(text, c.record(c_tags))
                        self.assertEqual(s.to_record(), c.record(None))
                    self.assertIn('[Rules "%s"]' % s.spec, text)
                    self.assertIn('[White "Ann \\"the bold\\""]', text)
                    with tg.State.from_record(text) as back:
                        self.assertEqual(back, s)
                        self.assertEqual(back.history, s.history)
                        self.assertEqual(back.to_record(tags), text)
                    self.assertEqual(dict(tags), {"White": 'Ann "the bold"', "Black": "Bo\\Ek",
                                                  "Round": 3})
                    self.assertEqual(s.to_record(dict(tags)), text)

    def test_bad_tags(self) -> None:
        with tg.State("halusa") as s:
            s.apply("c1")
            for bad in ([("Rules", "x")], [("Result", "1-0")], [("bad name", "x")],
                        [("", "x")], [("Event", "two\nlines")], [("Event", "nul\0")],
                        [("Ev\u00e9nt", "x")], [("Event", "\ud800")]):
                with self.subTest(bad=bad), self.assertRaises(ValueError):
                    s.to_record(bad)
            for wrong in ([("Event",)], ["Event"], [("Event", None)], [("Event", 1.5)], 5):
                with self.subTest(wrong=wrong), self.assertRaises(TypeError):
                    s.to_record(wrong)  # type: ignore[arg-type]
            self.assertEqual(s.to_record([]), s.to_record())
            self.assertEqual(s.to_record({}), s.to_record(None))

    def test_bad_records(self) -> None:
        with random_game("hus", 4, 30) as s:
            good = s.to_record()
        for bad in ("", "nonsense", good.replace('[Rules "', '[Rules "x')):
            with self.subTest(bad=bad[:40]), self.assertRaises(tg.ParseError):
                tg.State.from_record(bad)
        with self.assertRaises(tg.ParseError):
            tg.State.from_record(good + "\0")
        with self.assertRaises(tg.ParseError):
            tg.State.from_record(good + "\ud800")
        with self.assertRaises(TypeError):
            tg.State.from_record(None)  # type: ignore[arg-type]  # the misuse tested
        huge = good + " {" + "x" * 10_000_000
        with self.assertRaises(tg.TGError) as cm:
            tg.State.from_record(huge)
        self.assertLess(len(str(cm.exception)), 600)


if __name__ == "__main__":
    unittest.main()
