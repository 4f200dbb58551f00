"""Endgame databases from Python: probes agree with a minimax written here over the public
API on a sample of small Halusa positions, the analysis with a database gives the exact
values (best first, "win by 4, exact"), and missing, damaged and foreign files, closed
handles and bad arguments give their errors (the search then runs without the database)."""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
import unittest
from typing import Any, Dict, List, Optional, Tuple

import traditional_games as tg

from . import oracle
from .helpers import check_with_and_close

HAS_EGTB = oracle.has("tg_egtb_reader_new") and tg._library.tg.egtb_reader_new is not None
SPEC = "halusa:remainder=last-mover,quiet=3"
LOSS_ENDLESS, WIN_ENDLESS = -1000, 1000


def margin(s: tg.State, player: int) -> int:
    return s.score(player) - s.score(1 - player)


class Minimax:
    """What the side to move of a running state gains over its opponent to the end
    (WIN_ENDLESS / LOSS_ENDLESS where an endless move decides), memoised on the board, the
    side and the quiet count (the scores change nothing but the banked difference)."""

    def __init__(self) -> None:
        self.memo: Dict[Tuple[object, ...], int] = {}

    def value(self, s: tg.State) -> int:
        key = (tuple(tuple(row) for row in s.board), s.player, str(s).split("quiet=")[-1])
        if key in self.memo:
            return self.memo[key]
        best = LOSS_ENDLESS  # no move is worth less
        for m in s.legal_moves():
            best = max(best, self.move_value(s, m))
        self.memo[key] = best
        return best

    def move_value(self, s: tg.State, m: int) -> int:
        me, before = s.player, margin(s, s.player)
        s.apply(m)
        try:
            if s.is_terminal:
                if s.end_reason == tg.EndReason.ENDLESS:
                    return LOSS_ENDLESS
                return margin(s, me) - before
            after = self.value(s)
            same = s.player == me
            if after in (WIN_ENDLESS, LOSS_ENDLESS):
                return after if same else -after
            return margin(s, me) - before + (after if same else -after)
        finally:
            s.undo()


def random_state(rng: random.Random, counters: int) -> Optional[tg.State]:
    cells = [0] * 12
    for _ in range(counters):
        cells[rng.randrange(12)] += 1
    banked = 72 - counters
    s0 = banked // 2 + (banked // 2) % 2 + 2 * rng.randrange(-2, 3)
    text = "%s %s/%s %d %d,%d quiet=%d" % (
        SPEC, ",".join(map(str, cells[6:])), ",".join(map(str, cells[:6])), rng.randrange(2),
        s0, banked - s0, rng.randrange(3))
    try:
        return tg.State.from_string(SPEC, text)
    except tg.ParseError:
        return None  # the side to move has no move


@unittest.skipUnless(HAS_EGTB, "the loaded library has no endgame databases")
class EgtbTest(unittest.TestCase):
    directory = ""

    @classmethod
    def setUpClass(cls) -> None:
        cls.directory = tempfile.mkdtemp(prefix="tg-egtb-py-")
        tg.Egtb.build(cls.directory, SPEC, 6, threads=2)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.directory)

    def sample(self, count: int, most: int) -> List[tg.State]:
        rng = random.Random(7)
        out: List[tg.State] = []
        while len(out) < count:
            s = random_state(rng, 2 * rng.randint(1, most // 2))
            if s is not None:
                out.append(s)
        return out

    def test_probe_agrees_with_minimax(self) -> None:
        minimax = Minimax()
        with tg.Egtb(self.directory, SPEC) as db:
            self.assertEqual(db.max_counters, 6)
            for s in self.sample(40, 4):
                want = minimax.value(s)
                got = db.probe(s)
                assert got is not None
                if want in (WIN_ENDLESS, LOSS_ENDLESS):
                    self.assertTrue(got.endless)
                else:
                    self.assertEqual(got.margin_to_go, want, str(s))
                    self.assertEqual(got.final_margin, margin(s, s.player) + want)
                    final = got.final_margin
                    self.assertEqual(got.outcome, (final > 0) - (final < 0))

    def test_analysis_is_exact(self) -> None:
        minimax = Minimax()
        with tg.Egtb(self.directory, SPEC) as db:
            for s in self.sample(15, 4):
                results = s.analyse("search:depth=1", tg.Rng(1), egtb=db)
                at_root = db.probe(s)
                assert at_root is not None
                self.assertEqual(len(results), len(s.legal_moves()))
                first = results[0].exact
                assert first is not None
                self.assertEqual(first.final_margin, at_root.final_margin)
                self.assertEqual(minimax.move_value(s, results[0].move), minimax.value(s))
                for r in results:
                    assert r.exact is not None
                    self.assertTrue(r.proven)
                    self.assertEqual(r.value, r.exact.outcome)
                    self.assertLessEqual(r.exact.final_margin, first.final_margin)
            # Not covered (the start): the search's own values, none exact.
            with tg.State(SPEC) as start:
                self.assertIsNone(db.probe(start))
                for r in start.analyse("search:depth=2", tg.Rng(1), egtb=db):
                    self.assertIsNone(r.exact)

    def test_describe(self) -> None:
        self.assertEqual(tg.ExactValue(1, False, 2, 4).describe(), "win by 4, exact")
        self.assertEqual(tg.ExactValue(-1, False, -3, -1).describe(), "loss by 1, exact")
        self.assertEqual(tg.ExactValue(0, False, 2, 0).describe(), "draw, exact")
        self.assertEqual(tg.ExactValue(-1, True, 0, 0).describe(),
                         "loss by an endless move, exact")

    def test_errors(self) -> None:
        with self.assertRaises(tg.EgtbError) as e:
            tg.Egtb(self.directory, "hus")
        self.assertEqual(e.exception.status, tg.EgtbStatus.UNSUPPORTED)
        with self.assertRaises(tg.EgtbError) as e:
            tg.Egtb(os.path.join(self.directory, "absent"), SPEC)
        self.assertEqual(e.exception.status, tg.EgtbStatus.IO_ERROR)
        with self.assertRaises(ValueError):
            tg.Egtb.build(self.directory, SPEC, 0)
        db = tg.Egtb(self.directory, SPEC)
        with self.assertRaises(TypeError):
            db.probe("not a state")
        with tg.State("halusa") as other:
            with self.assertRaises(tg.EgtbError) as e:
                db.probe(other)
            self.assertEqual(e.exception.status, tg.EgtbStatus.WRONG_RULES)
            with self.assertWarnsRegex(RuntimeWarning, "database of other rules"):
                self.assertTrue(other.analyse("search:depth=1", tg.Rng(1), egtb=db))
        s = self.sample(1, 4)[0]
        with self.assertRaises(tg.BadOption):
            s.analyse("mcts:iterations=10", tg.Rng(1), egtb=db)
        with self.assertRaises(TypeError):
            s.analyse("search:depth=1", tg.Rng(1), egtb="db")  # type: ignore[arg-type]
        db.close()
        db.close()
        with self.assertRaises(ValueError):
            db.probe(s)

    def test_build_refuses_bad_arguments(self) -> None:
        # Each is refused before anything is built: the empty directory stays empty.
        empty = tempfile.mkdtemp(prefix="tg-egtb-py-")
        closed = tg.Rules(SPEC)
        closed.close()
        try:
            cases: List[Tuple[str, Dict[str, Any], type, str]] = [
                ("threads True", {"threads": True}, TypeError,
                 "threads must be an int, not bool"),
                ("counters True", {"counters": True}, TypeError,
                 "counters must be an int, not bool"),
                ("counters 2.0", {"counters": 2.0}, TypeError,
                 "counters must be an int, not float"),
                ("threads 1.5", {"threads": 1.5}, TypeError, "threads must be an int, not float"),
                ("counters '2'", {"counters": "2"}, TypeError, "counters must be an int, not str"),
                ("counters None", {"counters": None}, TypeError, "counters must be an int"),
                ("counters 0", {"counters": 0}, ValueError, "counters must be 1 to 72, not 0"),
                ("counters -2", {"counters": -2}, ValueError, "counters must be 1 to 72, not -2"),
                ("counters 73", {"counters": 73}, ValueError, "counters must be 1 to 72, not 73"),
                ("counters 2**70", {"counters": 2**70}, ValueError,
                 "counters must be 1 to 72, not a 71-bit number"),
                ("threads 0", {"threads": 0}, ValueError, "threads must be 1 to 256, not 0"),
                ("threads -1", {"threads": -1}, ValueError, "threads must be 1 to 256, not -1"),
                ("threads 257", {"threads": 257}, ValueError, "threads must be 1 to 256, not 257"),
                ("rules 5", {"rules": 5}, TypeError,
                 "rules must be a Rules or a spec string, not int"),
                ("rules bytes", {"rules": SPEC.encode()}, TypeError,
                 "rules must be a Rules or a spec string, not bytes"),
                ("rules None", {"rules": None}, TypeError,
                 "rules must be a Rules or a spec string, not NoneType"),
                ("closed rules", {"rules": closed}, ValueError, "operation on a closed Rules"),
                ("unknown game", {"rules": "no-such-game"}, tg.UnknownGame, "no-such-game"),
                ("directory 5", {"directory": 5}, TypeError, "int"),
                ("directory with NUL", {"directory": empty + "\0x"}, ValueError, "NUL"),
            ]
            for name, change, kind, message in cases:
                args: Dict[str, Any] = {"directory": empty, "rules": SPEC, "counters": 2,
                                        "threads": 1}
                args.update(change)
                for f in os.listdir(empty):  # what a case that failed wrote
                    os.remove(os.path.join(empty, f))
                with self.subTest(name):
                    with self.assertRaisesRegex(kind, re.escape(message)):
                        tg.Egtb.build(**args)
                    self.assertEqual(os.listdir(empty), [])
            # The same checks let good arguments through: a Rules, int-like counts.
            class Count(int):
                pass

            with tg.Rules(SPEC) as rules:
                tg.Egtb.build(empty, rules, Count(2), threads=Count(1))
            self.assertEqual(sorted(os.listdir(empty)), ["halusa-02.egtb"])
        finally:
            shutil.rmtree(empty)

    def test_with_block(self) -> None:
        s = self.sample(1, 4)[0]
        check_with_and_close(self, lambda: tg.Egtb(self.directory, SPEC), {
            "probe": lambda db: db.probe(s),
            "max_counters": lambda db: db.max_counters,
        }, lambda db: [db.closed])
        s.close()

    def test_damaged_and_missing_files(self) -> None:
        copy = tempfile.mkdtemp(prefix="tg-egtb-py-")
        try:
            for name in os.listdir(self.directory):
                shutil.copy(os.path.join(self.directory, name), copy)
            path = os.path.join(copy, "halusa-04.egtb")
            with open(path, "r+b") as f:  # the first block written: quiet count 2
                f.seek(20)
                byte = f.read(1)
                f.seek(20)
                f.write(bytes([byte[0] ^ 0x10]))
            s = tg.State.from_string(SPEC, SPEC + " 0,0,0,0,0,2/0,0,0,1,1,0 0 34,34 quiet=2")
            with tg.Egtb(copy, SPEC) as db:
                with self.assertRaises(tg.EgtbError) as e:
                    db.probe(s)
                self.assertEqual(e.exception.status, tg.EgtbStatus.DAMAGED)
                with self.assertWarnsRegex(RuntimeWarning, "database file damaged"):
                    results = s.analyse("search:depth=4", tg.Rng(1), egtb=db)
                self.assertEqual(results, s.analyse("search:depth=4", tg.Rng(1)))
            os.remove(path)
            with tg.Egtb(copy, SPEC) as db:
                with self.assertRaises(tg.EgtbError) as e:
                    db.probe(s)
                self.assertEqual(e.exception.status, tg.EgtbStatus.MISSING_FILE)
        finally:
            shutil.rmtree(copy)


if __name__ == "__main__":
    unittest.main()
