"""What several test modules share: the rule sets to cover, a fully checked random game, and
the checks of an object's `with` block and close()."""

from __future__ import annotations

import unittest
from typing import Any, Callable, Dict, List, Tuple

import traditional_games as tg
from traditional_games import _learning_lib

# Every game at its defaults, plus option sets that change the board or the rules.
EXTRA_SPECS = ["halusa:remainder=owner,quiet=20", "hus:width=16", "hus:width=10,quiet=0",
               "hawalis:variant=zanzibar", "walak-pussa:rounds=match", "tab:width=29",
               "tab:width=19"]
MAX_PLIES = 20000  # far beyond any game's length with random play


def all_specs() -> List[str]:
    return [g.id for g in tg.games()] + EXTRA_SPECS


def play_random(state: tg.State, rng: tg.Rng, plies: int) -> None:
    """Up to `plies` random moves and throws, fewer if the game ends first."""
    for _ in range(plies):
        if state.is_terminal:
            break
        state.apply_random(rng)


def play_checked(test: unittest.TestCase, spec: str, seed: int) -> Tuple[List[int], str, int]:
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


class _Raised(Exception):
    pass


def check_with_and_close(test: unittest.TestCase, make: Callable[[], Any],
                         uses: Dict[str, Callable[[Any], object]],
                         released: Callable[[Any], List[bool]]) -> None:
    """What every class with a close() promises (_handle.Closing): `with make() as x` gives the
    object itself, usable in the block; its end closes it, so that released(x) (whether each
    native object it held is freed) is all True, also when the block ends by an exception,
    which goes on; close() again does nothing; each of `uses` (name: call on the object) and
    entering a `with` block again then raise ValueError naming the object's class, and leave
    it closed."""
    with make() as obj:
        test.assertFalse(any(released(obj)))
        for use in uses.values():
            use(obj)  # each use works while it is open
    test.assertEqual(released(obj), [True] * len(released(obj)))
    message = "operation on a closed %s" % type(obj).__name__
    obj.close()
    for name, use in uses.items():
        with test.subTest(use=name), test.assertRaisesRegex(ValueError, message):
            use(obj)
    with test.assertRaisesRegex(ValueError, message):
        with obj:
            test.fail("a closed %s entered a with block" % type(obj).__name__)
    test.assertTrue(all(released(obj)))
    with test.assertRaises(_Raised):
        with make() as other:
            raise _Raised()
    test.assertTrue(all(released(other)))


def check_aec_env_with_and_close(test: unittest.TestCase, make: Any) -> None:
    """AECEnv (learning's or pettingzoo_env's): a with block, close() releasing the game's
    State and Rules, and each method refusing use after close()."""
    with make() as probe:
        probe.reset(seed=3)  # as the use "reset" below, throws included
        first = [int(x) for x in probe.observe(probe.agent_selection)["action_mask"]].index(1)
    check_with_and_close(test, make, {
        "reset": lambda env: env.reset(seed=3),
        "observe": lambda env: env.observe(env.agent_selection),
        "last": lambda env: env.last(),
        "step": lambda env: env.step(first),
        "render": lambda env: env.render(),
    }, lambda env: [env.state.closed, env.rules.closed])


def check_vector_env_with_and_close(test: unittest.TestCase, make: Any) -> None:
    """VectorEnv (learning's or gymnasium_env's; numpy needed): a with block, close()
    releasing the batch and the Rules, and each method refusing use after close()."""
    np = _learning_lib.np
    with make() as probe:
        state = probe.state(0)
    check_with_and_close(test, make, {
        "reset": lambda env: env.reset(seed=3),
        "step": lambda env: env.step(np.zeros(env.num_envs, dtype=np.int64)),
        "state": lambda env: env.state(0).close(),
        "set_state": lambda env: env.set_state(0, state),
        "rng_state": lambda env: env.rng_state(0),
    }, lambda env: [env._batch is None, env.rules.closed])
    state.close()
