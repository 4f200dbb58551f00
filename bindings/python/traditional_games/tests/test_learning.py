"""The learning interface from Python: observations and masks against the C library's legal
moves, the action mappings, VectorEnv against single States stepped with the same seeds, and
AECEnv's cycle. Runs with numpy (arrays) and without it (lists); VectorEnv needs numpy."""

from __future__ import annotations

import subprocess
import sys
import unittest
from typing import Any, Dict, List, Tuple

import traditional_games as tg
from traditional_games import _learning_lib
from traditional_games.learning import AECEnv, VectorEnv

from .helpers import all_specs, check_aec_env_with_and_close, check_vector_env_with_and_close

np: Any = _learning_lib.np


def _splitmix(state: int) -> int:
    """The first output of splitmix64 from a state (the library's generator)."""
    z = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def _seed_of(seed: int, i: int) -> int:
    """Game i's generator in a batch seeded with `seed`: splitmix64's i-th output."""
    return _splitmix((seed + 0x9E3779B97F4A7C15 * i) & 0xFFFFFFFFFFFFFFFF)


def _throw(state: tg.State, rng: tg.Rng) -> None:
    while state.player == tg.CHANCE:
        state.apply_random(rng)


class TestState(unittest.TestCase):
    def test_halusa_example(self) -> None:
        # rules/halusa.md example 1, seen by both players (docs/learning.md, "Layout").
        with tg.Rules("halusa") as rules, tg.State(rules) as s:
            self.assertEqual(rules.observation_shape, (20,))
            self.assertEqual(rules.observation_layout, (1, 8))
            self.assertEqual(rules.action_count, 6)
            s.apply_action(1)
            self.assertEqual(list(s.observation(0)),
                             [6, 0, 7, 7, 7, 7, 6, 6, 6, 6, 7, 7, 0, 0, 0, 0, 0, 0, 0, 1])
            self.assertEqual(list(s.observation(1)),
                             [7, 7, 6, 6, 6, 6, 7, 7, 7, 7, 0, 6, 0, 0, 1, 0, 0, 0, 0, 1])
            self.assertEqual(s.action_to_move(4), 7)
            self.assertEqual(s.move_to_action(7), 4)
            with self.assertRaises(tg.IllegalMove):
                s.move_to_action(1)
            with self.assertRaises(tg.InvalidArgument):
                s.action_to_move(6)
            with self.assertRaises(tg.InvalidArgument):
                s.observation(2)
            with self.assertRaises(TypeError):
                s.apply_action("b1")  # type: ignore[arg-type]

    def test_masks_are_the_legal_moves(self) -> None:
        for spec in all_specs():
            with self.subTest(spec=spec), tg.Rules(spec) as rules, tg.State(rules) as s:
                rng = tg.Rng(11)
                seen: Dict[Tuple[float, ...], str] = {}
                for _ in range(150):
                    mask = [int(x) for x in s.action_mask()]
                    self.assertEqual(len(mask), rules.action_count)
                    legal = s.legal_moves()
                    actions = sorted(s.move_to_action(m) for m in legal)
                    self.assertEqual(actions, [a for a, x in enumerate(mask) if x])
                    for a in actions:
                        self.assertEqual(s.move_to_action(s.action_to_move(a)), a)
                    obs = tuple(float(x) for x in s.observation(0))
                    self.assertEqual(len(obs), rules.observation_shape[0])
                    text = s.to_string()
                    self.assertEqual(seen.setdefault(obs, text), text)
                    if s.is_terminal:
                        break
                    s.apply_random(rng)

    def test_bad_actions_name_the_value(self) -> None:
        with tg.State("halusa") as s:
            before = s.to_string()
            for action, kind, text in (
                    (2**70, tg.InvalidArgument, "action 1180591620717411303424"),
                    (2**32, tg.InvalidArgument, "action 4294967296"),
                    (-1, tg.InvalidArgument, "action -1"),
                    (6, tg.InvalidArgument, "action 6"),  # refused by the library itself
                    (None, TypeError, "action None"),
                    (2.0, TypeError, "action 2.0"),
                    ("b1", TypeError, "action 'b1'"),
                    (True, TypeError, "action True")):
                for call in (s.apply_action, s.action_to_move):
                    with self.subTest(action=action, call=call.__name__):
                        caught: Any
                        with self.assertRaises(kind) as caught:
                            call(action)  # type: ignore[arg-type]
                        self.assertIn(text, str(caught.exception))
                        self.assertNotIn("4294967295", str(caught.exception))
                        self.assertEqual(s.to_string(), before)
            s.apply_action(np.int64(1) if np is not None else 1)
            self.assertNotEqual(s.to_string(), before)

    @unittest.skipIf(np is None, "numpy is not installed")
    def test_masks_are_int8(self) -> None:
        with tg.State("tab") as s:
            _throw(s, tg.Rng(3))
            mask: Any = s.action_mask()
            self.assertEqual(mask.dtype, np.int8)
            self.assertEqual(sorted(set(mask.tolist())), [0, 1])

    def test_vector_env_without_numpy_names_the_extra(self) -> None:
        # A Python where numpy cannot be imported: the error says how to get it.
        code = ("import sys; sys.modules['numpy'] = None\n"
                "from traditional_games.learning import VectorEnv\n"
                "try:\n    VectorEnv('halusa', n=2)\n"
                "except ImportError as e:\n    print(e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout
        self.assertIn("numpy", out)
        self.assertIn("pip install 'traditional-games[numpy]'", out)

    def test_without_numpy(self) -> None:
        saved = _learning_lib.np
        _learning_lib.np = None
        try:
            with tg.State("tab") as s:
                _throw(s, tg.Rng(3))
                obs, mask = s.observation(1), s.action_mask()
                self.assertIsInstance(obs, list)
                self.assertIsInstance(mask, list)
                self.assertEqual(len(obs), 221)
                self.assertEqual(sum(mask), len(s.legal_moves()))
        finally:
            _learning_lib.np = saved


@unittest.skipIf(np is None, "numpy is not installed")
class TestVectorEnv(unittest.TestCase):
    def test_with_and_close(self) -> None:
        check_vector_env_with_and_close(self, lambda: VectorEnv("tab", n=3, seed=1))

    def test_same_games_as_single_states(self) -> None:
        for spec in ["halusa", "tab", "walak-pussa:rounds=match", "hus:width=10"]:
            with self.subTest(spec=spec), VectorEnv(spec, n=5, seed=42) as env:
                obs, info = env.reset(seed=9)
                self.assertEqual(obs.shape, (5,) + env.observation_shape)
                self.assertEqual(info["action_mask"].shape, (5, env.action_count))
                rngs = [tg.Rng(_seed_of(9, i)) for i in range(5)]
                singles: List[tg.State] = []
                for i in range(5):
                    singles.append(tg.State(env.rules))
                    _throw(singles[i], rngs[i])
                pick = np.random.default_rng(5)
                for _ in range(200):
                    mask = info["action_mask"]
                    actions = (pick.random(mask.shape) * mask).argmax(axis=1)
                    obs, rewards, terminated, truncated, info = env.step(actions)
                    self.assertFalse(truncated.any())
                    for i in range(5):
                        mover = singles[i].turn
                        singles[i].apply_action(int(actions[i]))
                        _throw(singles[i], rngs[i])
                        self.assertEqual(bool(terminated[i]), singles[i].is_terminal)
                        self.assertEqual(float(rewards[i]), singles[i].returns[mover])
                        self.assertEqual(bool(info.get("_final_obs", [False] * 5)[i]),
                                         bool(terminated[i]))
                        if terminated[i]:
                            # Gymnasium's final_obs: the ended game seen by who moved last.
                            self.assertTrue(np.array_equal(info["final_obs"][i],
                                                           singles[i].observation(mover)))
                            final_info = info["final_info"]
                            self.assertEqual(int(final_info["player"][i]), mover)
                            self.assertEqual(list(final_info["rewards"][i]),
                                             list(singles[i].returns))
                            self.assertFalse(final_info["action_mask"][i].any())
                            singles[i].close()
                            singles[i] = tg.State(env.rules)
                            _throw(singles[i], rngs[i])
                        with env.state(i) as copy:
                            self.assertEqual(copy.to_string(), singles[i].to_string())
                        self.assertEqual(env.rng_state(i), rngs[i].state)
                        self.assertEqual(int(info["player"][i]), singles[i].turn)
                        self.assertTrue(np.array_equal(
                            obs[i], singles[i].observation(int(info["player"][i]))))
                        self.assertTrue(np.array_equal(info["action_mask"][i],
                                                       singles[i].action_mask()))
                for s in singles:
                    s.close()

    def test_no_copy_per_step(self) -> None:
        with VectorEnv("halusa", n=3, seed=1, copy=False) as env:
            obs, info = env.reset()
            obs2, _, _, _, info2 = env.step(info["action_mask"].argmax(axis=1))
            self.assertIs(obs, obs2)
            self.assertIs(info["action_mask"], info2["action_mask"])
            self.assertIsNot(info, info2)

    def test_fresh_arrays_and_info_each_step(self) -> None:
        with VectorEnv("halusa", n=3, seed=1) as env:
            obs, info = env.reset()
            info["episode"] = "a wrapper's key"
            kept = obs.copy()
            outputs = env.step(info["action_mask"].argmax(axis=1))
            obs2, info2 = outputs[0], outputs[4]
            self.assertNotIn("episode", info2)
            self.assertTrue(np.array_equal(obs, kept))  # the first result is not rewritten
            self.assertFalse(np.array_equal(obs, obs2))
            again = env.step(info2["action_mask"].argmax(axis=1))
            for first, second in zip(outputs[:4], again[:4]):
                self.assertFalse(np.shares_memory(first, second))
            for key in ("action_mask", "player", "rewards", "status"):
                self.assertFalse(np.shares_memory(info2[key], again[4][key]))
                self.assertEqual(again[4]["_" + key].tolist(), [True] * 3)
            self.assertEqual(info2["action_mask"].dtype, np.int8)
            self.assertNotIn("final_obs", info2)  # no game ended yet

    def test_illegal_actions_are_refused_game_by_game(self) -> None:
        with VectorEnv("halusa", n=3, seed=1, autoreset=False) as env:
            env.reset()
            with tg.State.from_string(
                    "halusa", "halusa:remainder=last-mover,quiet=100 0,0,0,0,0,0/0,0,0,1,1,2 "
                              "0 34,34 quiet=0") as feed:
                env.set_state(1, feed)  # only f1 (action 5) is legal: it must feed
            before = [env.state(i).to_string() for i in range(3)]
            _, rewards, _, _, info = env.step(np.array([0, 3, 2]))
            self.assertEqual(list(info["status"]), [0, tg.Status.TG_ERR_ILLEGAL_MOVE, 0])
            self.assertNotEqual(env.state(0).to_string(), before[0])
            self.assertEqual(env.state(1).to_string(), before[1])
            self.assertEqual(list(rewards), [0, 0, 0])
            with self.assertRaises(IndexError):
                env.state(3)

    def test_actions_outside_the_space_change_nothing(self) -> None:
        with VectorEnv("halusa", n=3, seed=1) as env:
            _, info = env.reset()
            env.step(np.array([0, 1, 2]))

            def snapshot() -> List[Any]:
                return [(env.state(i).to_string(), env.rng_state(i)) for i in range(3)]

            before = snapshot()
            cases: List[Tuple[Any, type, List[str]]] = [
                (np.array([0.0, 1.5, 2.0]), TypeError, ["floats", "game 1: 1.5"]),
                (np.array([0, np.nan, 1]), TypeError, ["floats", "game 1: nan"]),
                (["a1", "b1", "c1"], TypeError, ["game 0: 'a1'", "game 2: 'c1'"]),
                (np.array(["a1", "b1", "c1"]), TypeError, ["strings", "game 0: 'a1'"]),
                ([0, None, 1], TypeError, ["game 1: None"]),
                ([0, 1.0, 1], TypeError, ["game 1: 1.0"]),
                (np.array([True, False, True]), TypeError, ["bools"]),
                ([0, True, 1], TypeError, ["game 1: True"]),
                (None, TypeError, ["actions None"]),
                (np.array([0, 6, -1]), tg.InvalidArgument, ["game 1: 6", "game 2: -1",
                                                            "0 .. 5"]),
                ([0, 1, 2**70], tg.InvalidArgument, ["game 2: 1180591620717411303424"]),
                (np.array([0, 1]), ValueError, ["shape (3,)", "(2,)"]),
                (np.zeros((3, 1), dtype=np.int64), ValueError, ["(3, 1)"]),
                (3, ValueError, ["()"]),
            ]
            for actions, kind, words in cases:
                with self.subTest(actions=actions):
                    caught: Any
                    with self.assertRaises(kind) as caught:
                        env.step(actions)
                    for word in words:
                        self.assertIn(word, str(caught.exception))
                    self.assertEqual(snapshot(), before)
            _, _, _, _, info = env.step([np.int64(0), np.uint8(1), 2])  # numpy ints are ints
            self.assertEqual(list(info["status"]), [0, 0, 0])

    def test_n_and_seed_take_numpy_integers(self) -> None:
        with VectorEnv("halusa", n=np.int64(3), seed=np.uint64(7)) as env, \
                VectorEnv("halusa", n=3, seed=7) as plain:
            self.assertEqual(env.num_envs, 3)
            self.assertIs(type(env.num_envs), int)
            self.assertEqual([env.rng_state(i) for i in range(3)],
                             [plain.rng_state(i) for i in range(3)])
            env.reset(seed=np.int32(4))
            plain.reset(seed=4)
            self.assertEqual(env.rng_state(2), plain.rng_state(2))
        for bad, kind in ((0, ValueError), (2.0, TypeError), (True, TypeError),
                          (np.float64(2), TypeError)):
            with self.subTest(n=bad), self.assertRaises(kind):
                VectorEnv("halusa", n=bad)

    def test_reward_sums_are_the_returns(self) -> None:
        # Without autoreset, info["rewards"] summed over whole games is each game's returns
        # as the library gives them (State.returns); with it, the ended games' rewards are in
        # final_info (test_same_games_as_single_states) and "_rewards" is False there.
        for spec in ["halusa", "hus", "walak-pussa:rounds=match", "tab"]:
            with self.subTest(spec=spec), VectorEnv(spec, n=6, seed=3, autoreset=False) as env:
                obs, info = env.reset()
                pick = np.random.default_rng(1)
                totals = np.zeros((6, 2))
                done = np.zeros(6, dtype=bool)
                while not done.all():
                    mask = info["action_mask"]
                    actions = (pick.random(mask.shape) * mask).argmax(axis=1)
                    obs, rewards, terminated, _, info = env.step(actions)
                    self.assertEqual(info["_rewards"].tolist(), [True] * 6)
                    self.assertNotIn("final_obs", info)
                    totals += info["rewards"]
                    self.assertEqual(list(info["status"][done]),
                                     [tg.Status.TG_ERR_GAME_OVER] * int(done.sum()))
                    done |= terminated
                for i in range(6):
                    with env.state(i) as final:
                        self.assertEqual(list(totals[i]), list(final.returns))


class TestAECEnv(unittest.TestCase):
    def test_with_and_close(self) -> None:
        check_aec_env_with_and_close(self, lambda: AECEnv("halusa", seed=2))

    def test_cycle(self) -> None:
        for spec in ["halusa", "tab"]:
            env = AECEnv(spec, seed=4)
            rng = tg.Rng(8)
            steps = 0
            while env.agents:
                obs, reward, terminated, truncated, info = env.last()
                self.assertIsNotNone(obs)
                assert obs is not None
                if terminated or truncated:
                    env.step(None)
                    continue
                mask = [int(x) for x in obs["action_mask"]]
                legal = [a for a, x in enumerate(mask) if x]
                self.assertEqual(len(legal), len(env.state.legal_moves()))
                other = [a for a in env.possible_agents if a != env.agent_selection][0]
                self.assertEqual(sum(int(x) for x in env.observe(other)["action_mask"]), 0)
                env.step(legal[int(rng.state % len(legal))])
                rng.state = rng.state * 6364136223846793005 + 1442695040888963407
                steps += 1
            self.assertTrue(env.state.is_terminal)
            self.assertGreater(steps, 10)
            env.close()

    def test_reward_sums_are_the_returns(self) -> None:
        # A loop that adds up `rewards` after every step, the finished agents' step(None)
        # included, counts each terminal reward once: the sums are the game's returns.
        for spec in all_specs():
            with self.subTest(spec=spec):
                env = AECEnv(spec, seed=21)
                rng = tg.Rng(5)
                totals = {agent: 0.0 for agent in env.possible_agents}
                while env.agents:
                    observation, _, terminated, truncated, _ = env.last()
                    assert observation is not None
                    if terminated or truncated:
                        env.step(None)
                    else:
                        legal = [a for a, x in enumerate(observation["action_mask"]) if x]
                        env.step(legal[rng.state % len(legal)])
                        rng.state = rng.state * 6364136223846793005 + 1442695040888963407
                    for agent, reward in env.rewards.items():
                        totals[agent] += reward
                self.assertTrue(env.state.is_terminal)
                returns = env.state.returns
                self.assertEqual([totals[a] for a in env.possible_agents], list(returns))
                self.assertEqual(sorted(returns), [-1.0, 1.0] if returns[0] else [0.0, 0.0])
                env.close()

    def test_none_for_an_agent_to_act(self) -> None:
        env = AECEnv("halusa", seed=1)
        before = env.state.to_string()
        with self.assertRaises(tg.IllegalMove) as caught:
            env.step(None)
        self.assertIn("action None for player_0", str(caught.exception))
        with self.assertRaises(tg.InvalidArgument) as bad:
            env.step(2**70)
        self.assertIn("action 1180591620717411303424", str(bad.exception))
        self.assertEqual(env.state.to_string(), before)
        self.assertEqual(env.agent_selection, "player_0")
        env.close()

    def test_actions_through_the_cycle(self) -> None:
        env = AECEnv("halusa", seed=1)
        env.state.close()
        env.state = tg.State.from_string(
            "halusa", "halusa:remainder=last-mover,quiet=100 0,0,0,0,0,0/0,0,0,1,1,2 0 34,34 "
                      "quiet=0")
        env.agent_selection = "player_0"
        env.step(env.state.move_to_action(5))  # f1, the only legal move (must feed)
        self.assertEqual(env.state.to_string().split()[1], "0,0,0,0,1,1/0,0,0,1,1,0")
        env.close()


if __name__ == "__main__":
    unittest.main()
