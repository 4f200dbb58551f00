"""Misuse from Python must never crash the interpreter or corrupt memory: copies, pickles,
re-initialisation, and threads sharing states, rule sets and generators (with close() in the
middle)."""

from __future__ import annotations

import copy
import pickle
import threading
import time
import unittest
from typing import Callable, List, Set

import traditional_games as tg

from .helpers import all_specs, play_random

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


def run_threads(test: unittest.TestCase, targets: List[Callable[[], None]],
                timeout: float = 60.0) -> None:
    """Run each target in its own thread; fail on any exception in one, or on a hang."""
    errors: List[BaseException] = []

    def guard(target: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                target()
            except BaseException as e:  # reported to the test below
                errors.append(e)
        return run

    threads = [threading.Thread(target=guard(t), daemon=True) for t in targets]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    test.assertFalse(any(t.is_alive() for t in threads), "threads still running: a deadlock?")
    if errors:
        raise errors[0]


class TestCopies(unittest.TestCase):
    def test_copied_rules_are_independent(self) -> None:
        # The report of issue 19: closing a copy freed the original's C object.
        copiers: List[Callable[[tg.Rules], tg.Rules]] = [copy.copy, copy.deepcopy]
        for make_copy in copiers:
            with self.subTest(make_copy=make_copy.__name__):
                rules = tg.Rules("hus:width=16")
                twin = make_copy(rules)
                self.assertIsNot(twin, rules)
                self.assertEqual(twin, rules)
                twin.close()
                self.assertTrue(twin.closed)
                self.assertFalse(rules.closed)
                self.assertEqual(rules.cols, 16)
                with tg.State(rules) as s, tg.State("hus:width=16") as same:
                    self.assertEqual(s.spec, rules.spec)
                    self.assertEqual(s, same)
                rules.close()

    def test_copied_states_are_independent(self) -> None:
        copiers: List[Callable[[tg.State], tg.State]] = [copy.copy, copy.deepcopy, tg.State.clone]
        for make_copy in copiers:
            with self.subTest(make_copy=make_copy.__name__), tg.State("hawalis") as s:
                s.apply_random(tg.Rng(1))
                s.apply_random(tg.Rng(2))
                twin = make_copy(s)
                self.assertEqual((twin.to_string(), twin.ply, twin.history),
                                 (s.to_string(), s.ply, s.history))
                twin.apply_random(tg.Rng(3))
                self.assertNotEqual(twin, s)
                self.assertEqual(s.ply, 2)
                twin.close()
                self.assertEqual(s.ply, 2)
                s.undo()
                s.undo()

    def test_deepcopy_of_a_structure(self) -> None:
        rules = tg.Rules("tab")
        state = tg.State(rules)
        rng = tg.Rng(9)
        game = (rules, [state, state], rng)
        twin_rules, twin_states, twin_rng = copy.deepcopy(game)
        self.assertIs(twin_states[0], twin_states[1])  # memo: one copy of one object
        self.assertIsNot(twin_states[0], state)
        self.assertIsNot(twin_rng, rng)
        twin_states[0].playout(twin_rng)
        self.assertEqual(state.ply, 0)
        self.assertEqual(rng.state, 9)
        for obj in (rules, state, twin_rules, twin_states[0]):
            obj.close()

    def test_copied_rng_is_independent(self) -> None:
        copiers: List[Callable[[tg.Rng], tg.Rng]] = [copy.copy, copy.deepcopy, tg.Rng.copy]
        for make_copy in copiers:
            with self.subTest(make_copy=make_copy.__name__):
                rng = tg.Rng(77)
                twin = make_copy(rng)
                self.assertEqual(twin, rng)
                with tg.State("halusa") as a, tg.State("halusa") as b:
                    a.playout(rng)
                    self.assertEqual(twin.state, 77)  # the copy did not advance
                    b.playout(twin)
                    self.assertEqual(a, b)  # and replays the same stream
                    self.assertEqual(twin, rng)

    def test_closed_objects_refuse_copies(self) -> None:
        rules = tg.Rules("halusa")
        state = tg.State(rules)
        rules.close()
        state.close()
        copiers: List[Callable[[object], object]] = [copy.copy, copy.deepcopy, pickle.dumps]
        closed: List[object] = [rules, state]
        for obj in closed:
            for make_copy in copiers:
                with self.subTest(obj=type(obj).__name__, make_copy=make_copy.__name__):
                    with self.assertRaisesRegex(ValueError, "closed"):
                        make_copy(obj)

    def test_init_twice_is_refused(self) -> None:
        rules = tg.Rules("halusa")
        with self.assertRaises(TypeError):
            rules.__init__("hus")  # type: ignore[misc]
        self.assertEqual(rules.game_id, "halusa")
        state = tg.State(rules)
        with self.assertRaises(TypeError):
            state.__init__("hus")  # type: ignore[misc]
        self.assertEqual(state.game_id, "halusa")
        state.close()
        rules.close()

    def test_uninitialised_objects_fail_cleanly(self) -> None:
        state = tg.State.__new__(tg.State)
        with self.assertRaises(AttributeError):
            state.legal_moves()
        rules = tg.Rules.__new__(tg.Rules)
        with self.assertRaises(AttributeError):
            rules.spec


class TestPickle(unittest.TestCase):
    def test_rules(self) -> None:
        for spec in all_specs():
            with self.subTest(spec=spec), tg.Rules(spec) as rules:
                for protocol in PROTOCOLS:
                    data = pickle.dumps(rules, protocol)
                    self.assertIn(b"traditional_games", data)
                    self.assertNotIn(b"_rules", data)  # the public name, not the module's
                    with pickle.loads(data) as back:
                        self.assertEqual(back, rules)
                        self.assertEqual(back.spec, rules.spec)

    def test_states_in_every_game(self) -> None:
        for spec in all_specs():
            with self.subTest(spec=spec), tg.State(spec) as s:
                play_random(s, tg.Rng(5), 12)
                for protocol in PROTOCOLS:
                    with pickle.loads(pickle.dumps(s, protocol)) as back:
                        self.assertEqual(back.to_string(), s.to_string())
                        self.assertEqual(back.history, s.history)
                        self.assertEqual(back.ply, s.ply)
                        # The undo history came along: back to the initial position.
                        while back.history:
                            back.undo()
                        with tg.State(spec) as initial:
                            self.assertEqual(back, initial)

    def test_states_without_full_history(self) -> None:
        with tg.State("walak-pussa:rounds=match") as s:
            s.playout(tg.Rng(3), 15)           # no history, ply 15
            s.apply_random(tg.Rng(4))          # one move of history
            back = pickle.loads(pickle.dumps(s))
            self.assertEqual(back, s)
            self.assertEqual(back.to_string(), s.to_string())
            self.assertEqual(back.history, s.history)
            # The ply counts from the position the history starts at.
            self.assertEqual(back.ply, len(s.history))
            back.undo()
            with self.assertRaises(tg.NoHistory):
                back.undo()
            s.playout(tg.Rng(3))               # to the end
            with pickle.loads(pickle.dumps(s)) as end:
                self.assertTrue(end.is_terminal)
                self.assertEqual(end.winner, s.winner)
                self.assertEqual(end.to_string(), s.to_string())
            back.close()

    def test_rng_and_errors(self) -> None:
        rng = tg.Rng(2 ** 64 - 3)
        back = pickle.loads(pickle.dumps(rng))
        self.assertEqual(back, rng)
        self.assertIsNot(back._c, rng._c)
        with tg.State("halusa") as s:
            try:
                s.apply("a2")
            except tg.IllegalMove as e:
                err = pickle.loads(pickle.dumps(e))
                self.assertIsInstance(err, tg.IllegalMove)
                self.assertEqual((err.status, err.name, err.context, str(err)),
                                 (e.status, e.name, e.context, str(e)))
            else:
                self.fail("a2 is not player 0's move")


class TestThreads(unittest.TestCase):
    def test_readers_see_whole_positions(self) -> None:
        # One thread walks a fixed line of moves forwards and back with apply and undo while
        # others clone, read and pickle the same state: every view must be a position of the
        # line, the one its history length says. Before the lock, a clone taken during an
        # apply could mix two positions.
        with tg.State("hus") as walker:
            rng = tg.Rng(11)
            while walker.ply < 40 and not walker.is_terminal:
                walker.apply_random(rng)
            line = walker.history
            for _ in line:
                walker.undo()
            positions: List[str] = []
            with tg.State("hus") as replay:
                positions.append(replay.to_string())
                for m in line:
                    replay.apply(m)
                    positions.append(replay.to_string())
            known: Set[str] = set(positions)
            deadline = time.monotonic() + 1.5
            checked = [0]

            def walk() -> None:
                while time.monotonic() < deadline:
                    for m in line:
                        walker.apply(m)
                    for _ in line:
                        walker.undo()

            def read() -> None:
                while time.monotonic() < deadline:
                    twin = walker.clone()
                    self.assertEqual(twin.to_string(), positions[len(twin.history)])
                    twin.close()
                    self.assertIn(walker.to_string(), known)
                    walker.legal_moves()
                    back = pickle.loads(pickle.dumps(walker))
                    self.assertEqual(back.to_string(), positions[len(back.history)])
                    checked[0] += 1

            run_threads(self, [walk, read, read, read])
            self.assertGreater(checked[0], 20)  # the readers did run alongside
            self.assertEqual(walker.to_string(), positions[0])

    def test_many_writers(self) -> None:
        # Writers race to play and take back moves on one state; whatever order they ran in,
        # the state must stay a consistent game: its history replays to its position.
        for spec in ("tab", "hawalis", "walak-pussa"):
            with self.subTest(spec=spec), tg.State(spec) as s:
                shared = tg.Rng(1)

                def write(seed: int) -> Callable[[], None]:
                    def run() -> None:
                        own = tg.Rng(seed)
                        for i in range(400):
                            try:
                                if i % 3 == 2:
                                    s.undo()
                                elif i % 5 == 0:
                                    s.play_bot("greedy", shared)
                                else:
                                    s.apply_random(own if i % 2 else shared)
                            except (tg.NoHistory, tg.GameOver):
                                pass
                            s.to_string()
                    return run

                run_threads(self, [write(seed) for seed in range(4)])
                with tg.State(spec) as replay:
                    for m in s.history:
                        replay.apply(m)
                    self.assertEqual(replay, s)
                    self.assertEqual(replay.to_string(), s.to_string())
                with tg.State.from_string(spec, s.to_string()) as back:
                    self.assertEqual(back, s)

    def test_close_waits_for_a_running_call(self) -> None:
        # Before the lock, close() during perft freed the state under it (SIGFPE).
        with tg.State("halusa") as probe:
            depth = 3  # the first depth whose perft takes a while, so that close() meets it
            while True:
                started = time.monotonic()
                expected = probe.perft(depth)
                if depth == 9 or time.monotonic() - started > 0.05:
                    break
                depth += 1
        for _ in range(3):
            s = tg.State("halusa")
            result: List[int] = []
            running = threading.Event()

            def count() -> None:
                running.set()
                result.append(s.perft(depth))

            worker = threading.Thread(target=count)
            worker.start()
            running.wait()
            time.sleep(0.01)
            s.close()  # waits for perft if it is running, else closes first
            worker.join(60)
            self.assertFalse(worker.is_alive())
            self.assertTrue(s.closed)
            if result:
                self.assertEqual(result, [expected])
            with self.assertRaisesRegex(ValueError, "closed"):
                s.perft(1)

    def test_close_while_others_call(self) -> None:
        s = tg.State("tab")
        rules = tg.Rules("hawalis")
        outcomes: List[str] = []

        def use_state() -> None:
            rng = tg.Rng(3)
            fresh = tg.State("tab")
            try:
                while True:
                    try:
                        s.apply_random(rng)
                    except tg.GameOver:
                        s.copy_from(fresh)
                    s.clone().close()
                    s.to_string()
            except ValueError:
                outcomes.append("state closed")
            finally:
                fresh.close()

        def use_rules() -> None:
            try:
                while True:
                    tg.State(rules).close()
                    rules.spec
            except ValueError:
                outcomes.append("rules closed")

        def close_both() -> None:
            time.sleep(0.3)
            s.close()
            rules.close()

        run_threads(self, [use_state, use_state, use_rules, use_rules, close_both])
        self.assertEqual(sorted(outcomes), ["rules closed"] * 2 + ["state closed"] * 2)

    def test_cross_calls_do_not_deadlock(self) -> None:
        # a.copy_from(b) and b.copy_from(a) at once take the two locks in one order.
        with tg.State("hus") as a, tg.State("hus") as b:
            b.apply_random(tg.Rng(1))

            def one_way() -> None:
                for _ in range(2000):
                    a.copy_from(b)
                    a == b

            def other_way() -> None:
                for _ in range(2000):
                    b.copy_from(a)
                    b == a

            run_threads(self, [one_way, other_way])
            self.assertEqual(a, b)

    def test_shared_rng(self) -> None:
        # Threads drawing from one generator: no draw is torn, and each thread's game is legal.
        rng = tg.Rng(123)
        finals: List[str] = []

        def play() -> None:
            with tg.State("halusa") as s:
                while not s.is_terminal:
                    s.apply_random(rng)
                finals.append(s.to_string())

        run_threads(self, [play] * 4)
        self.assertEqual(len(finals), 4)
        self.assertNotEqual(rng.state, 123)


if __name__ == "__main__":
    unittest.main()
