"""Gymnasium's and PettingZoo's own checks on the package's environments: Gymnasium's
environment checker on gymnasium_env.Env, its vector wrappers and its reference SyncVectorEnv
against gymnasium_env.VectorEnv, PettingZoo's api_test on pettingzoo_env.AECEnv, for every
rule set of the battery.

Skipped where Gymnasium or PettingZoo is not installed, except when TG_REQUIRE_ANCHORS is set
(bindings/python/test-conformance.sh sets it after putting the sources of
../shared/anchors/python on PYTHONPATH): then not finding them is a failure."""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import os
import unittest
import warnings
from typing import Any, Dict, Iterator, List, Tuple

import traditional_games as tg
from traditional_games import _learning_lib

from .helpers import (all_specs, check_aec_env_with_and_close, check_vector_env_with_and_close,
                      check_with_and_close)

np: Any = _learning_lib.np
GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment


def _optional(name: str) -> Any:
    """The module, or None where it is not installed (a failure under TG_REQUIRE_ANCHORS).
    Looked up by name: mypy checks this package without Gymnasium or PettingZoo."""
    try:
        return importlib.import_module(name)
    except ImportError as missing:
        if os.environ.get("TG_REQUIRE_ANCHORS"):
            raise ImportError(
                "%s is not importable, though TG_REQUIRE_ANCHORS is set: the unmodified "
                "Gymnasium and PettingZoo sources (../shared/anchors/python, or "
                "TG_PYTHON_ANCHORS) must be on PYTHONPATH, with Debian's python3-numpy, "
                "python3-cloudpickle and python3-typing-extensions: %s" % (name, missing)
            ) from missing
        return None


gymnasium = _optional("gymnasium")
pettingzoo = _optional("pettingzoo")
if gymnasium is not None:
    check_env = importlib.import_module("gymnasium.utils.env_checker").check_env
    AutoresetMode = gymnasium.vector.AutoresetMode
    SyncVectorEnv = gymnasium.vector.SyncVectorEnv
    vector_wrappers = importlib.import_module("gymnasium.wrappers.vector")

    from traditional_games.gymnasium_env import Env, VectorEnv
if pettingzoo is not None:
    api_test = importlib.import_module("pettingzoo.test").api_test
    aec_to_parallel = importlib.import_module("pettingzoo.utils.conversions").aec_to_parallel

    from traditional_games.pettingzoo_env import AECEnv

# What Gymnasium's checker may say of these environments: the library states no upper bound
# for its raw counts (docs/learning.md).
EXPECTED_CHECKER_WARNINGS = ["maximum value is infinity"]


@contextlib.contextmanager
def _recorded_warnings() -> Iterator[List[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages: List[str] = []
        yield messages
        messages.extend(str(w.message) for w in caught)


def _legal_choice(pick: Any, mask: Any) -> Any:
    """One uniform legal action per row of a mask."""
    return (pick.random(mask.shape) * mask).argmax(axis=-1)


@unittest.skipIf(gymnasium is None, "gymnasium is not installed")
class TestGymnasiumEnv(unittest.TestCase):
    def test_with_and_close(self) -> None:
        check_with_and_close(self, lambda: Env("halusa", seed=1, render_mode="ansi"), {
            "reset": lambda env: env.reset(seed=2),
            "step": lambda env: env.step(0),
            "state": lambda env: env.state().close(),
            "render": lambda env: env.render(),
        }, lambda env: [env._game._batch is None, env.rules.closed])

    def test_env_checker_every_game(self) -> None:
        for spec in all_specs():
            with self.subTest(spec=spec), _recorded_warnings() as said:
                env = Env(spec, seed=1)
                self.assertIsInstance(env, gymnasium.Env)
                check_env(env, skip_render_check=True)
                env.close()
            unexpected = [m for m in said
                          if not any(e in m for e in EXPECTED_CHECKER_WARNINGS)]
            self.assertEqual(unexpected, [], spec)

    def test_whole_games_and_their_returns(self) -> None:
        pick = np.random.default_rng(2)
        for spec in all_specs():
            with self.subTest(spec=spec):
                env = Env(spec, seed=4, render_mode="ansi")
                obs, info = env.reset(seed=9)
                totals = np.zeros(2)
                for _ in range(20000):
                    self.assertIn(obs, env.observation_space)
                    self.assertIn(info["action_mask"], env.action_mask_space)
                    with env.state() as state:
                        self.assertEqual(int(info["player"]), state.turn)
                        self.assertTrue(np.array_equal(obs, state.observation(state.turn)))
                    obs, reward, terminated, truncated, info = env.step(
                        int(_legal_choice(pick, info["action_mask"])))
                    self.assertEqual(info["status"], 0)
                    self.assertFalse(truncated)
                    totals += info["rewards"]
                    if terminated:
                        break
                with env.state() as state:
                    self.assertTrue(state.is_terminal)
                    self.assertEqual(list(totals), list(state.returns))
                    self.assertEqual(reward, state.returns[info["player"]])
                    self.assertEqual(env.render(), str(state))
                env.close()

    def test_bad_and_illegal_actions(self) -> None:
        env = Env("halusa", seed=1)
        obs, info = env.reset(seed=1)
        with env.state() as s:
            before = s.to_string()
        for action, kind, text in ((2.0, TypeError, "action 2.0"),
                                   (float("nan"), TypeError, "action nan"),
                                   ("a1", TypeError, "action 'a1'"),
                                   (None, TypeError, "action None"),
                                   (True, TypeError, "action True"),
                                   (6, tg.InvalidArgument, "action 6"),
                                   (-1, tg.InvalidArgument, "action -1"),
                                   (2**70, tg.InvalidArgument, "1180591620717411303424")):
            with self.subTest(action=action):
                caught: Any
                with self.assertRaises(kind) as caught:
                    env.step(action)
                self.assertIn(text, str(caught.exception))
                with env.state() as s:
                    self.assertEqual(s.to_string(), before)
        with tg.State.from_string(
                "halusa", "halusa:remainder=last-mover,quiet=100 0,0,0,0,0,0/0,0,0,1,1,2 0 "
                          "34,34 quiet=0") as feed:
            env._game.set_state(0, feed)  # only f1 (action 5) is legal: it must feed
            obs, reward, terminated, _, info = env.step(np.int64(0))
            self.assertEqual(info["status"], tg.Status.TG_ERR_ILLEGAL_MOVE)
            self.assertEqual((reward, terminated), (0.0, False))
            with env.state() as s:
                self.assertEqual(s.to_string(), feed.to_string())
        env.close()


@unittest.skipIf(gymnasium is None, "gymnasium is not installed")
class TestGymnasiumVectorEnv(unittest.TestCase):
    def test_with_and_close(self) -> None:
        check_vector_env_with_and_close(self, lambda: VectorEnv("tab", n=2, seed=1))
        env = VectorEnv("halusa", n=2)
        env.close()
        self.assertTrue(env.closed)  # Gymnasium's attribute

    def test_spaces_and_metadata(self) -> None:
        with VectorEnv("tab", n=np.int64(3), seed=2) as env:
            self.assertIsInstance(env, gymnasium.vector.VectorEnv)
            self.assertIs(env.metadata["autoreset_mode"], AutoresetMode.SAME_STEP)
            size, count = env.rules.observation_shape[0], env.rules.action_count
            self.assertEqual(env.single_observation_space.shape, (size,))
            self.assertEqual(env.single_observation_space.dtype, np.float32)
            self.assertEqual(env.observation_space.shape, (3, size))
            self.assertEqual(env.single_action_space, gymnasium.spaces.Discrete(count))
            self.assertEqual(env.action_space, gymnasium.spaces.MultiDiscrete([count] * 3))
            self.assertEqual(env.single_action_mask_space.dtype, np.int8)
            self.assertEqual(env.action_mask_space.shape, (3, count))
            obs, info = env.reset(seed=5)
            self.assertIsNotNone(env.np_random)
            for _ in range(50):
                self.assertIn(obs, env.observation_space)
                self.assertIn(info["action_mask"], env.action_mask_space)
                actions = np.array([env.single_action_space.sample(mask=m)
                                    for m in info["action_mask"]])
                self.assertIn(actions, env.action_space)
                obs, _, _, _, info = env.step(actions)
                self.assertEqual(list(info["status"]), [0, 0, 0])

    def test_same_as_gymnasiums_sync_vector_env(self) -> None:
        # Gymnasium's reference implementation of same-step autoreset over single Envs, each
        # seeded so that its generator is that of the batch's game i: every output, final_obs
        # and final_info included, must be the same.
        n, seed = 4, 77
        for spec in ["halusa", "tab", "walak-pussa:rounds=match"]:
            with self.subTest(spec=spec), VectorEnv(spec, n=n, seed=seed) as ours:
                theirs = SyncVectorEnv(
                    [functools.partial(Env, spec, seed=(seed + GOLDEN * i) % 2**64)
                     for i in range(n)], autoreset_mode=AutoresetMode.SAME_STEP)
                a: Tuple[Any, ...] = ours.reset()
                b: Tuple[Any, ...] = theirs.reset()
                self._same(a, b)
                pick = np.random.default_rng(3)
                ended = 0
                for _ in range(20000):
                    actions = _legal_choice(pick, a[-1]["action_mask"])
                    a, b = ours.step(actions), theirs.step(actions)
                    self._same(a, b)
                    ended += int(a[2].sum())
                    if ended >= 2 * n:
                        break
                self.assertGreaterEqual(ended, 2 * n)
                theirs.close()

    def _same(self, ours: Tuple[Any, ...], theirs: Tuple[Any, ...]) -> None:
        for x, y in zip(ours[:-1], theirs[:-1]):
            self.assertTrue(np.array_equal(x, y))
        self._same_info(ours[-1], theirs[-1])

    def _same_info(self, ours: Dict[str, Any], theirs: Dict[str, Any]) -> None:
        self.assertEqual(sorted(ours), sorted(theirs))
        for key, value in theirs.items():
            if isinstance(value, dict):
                self._same_info(ours[key], value)
            elif key == "final_obs":
                for x, y in zip(ours[key], value):
                    self.assertEqual(x is None, y is None)
                    if x is not None:
                        self.assertTrue(np.array_equal(x, y))
            else:
                self.assertTrue(np.array_equal(ours[key], value), key)

    def test_vector_wrappers(self) -> None:
        for spec in ["halusa", "hawalis", "tab"]:
            with self.subTest(spec=spec):
                inner = VectorEnv(spec, n=6, seed=8)
                stats = vector_wrappers.RecordEpisodeStatistics(inner)
                env = vector_wrappers.DictInfoToList(vector_wrappers.ClipReward(
                    vector_wrappers.NormalizeReward(stats), -0.5, 0.5))
                obs, infos = env.reset(seed=3)
                self.assertEqual(len(infos), 6)
                pick = np.random.default_rng(4)
                lengths = np.zeros(6, dtype=int)
                finished: List[Tuple[int, float]] = []
                for _ in range(3000):
                    mask = np.stack([info["action_mask"] for info in infos])
                    obs, rewards, terminated, _, infos = env.step(_legal_choice(pick, mask))
                    self.assertTrue(np.all(np.abs(rewards) <= 0.5))
                    lengths += 1
                    for i in np.flatnonzero(terminated):
                        # DictInfoToList read the _key masks: only ended games have these.
                        self.assertIn("final_obs", infos[i])
                        self.assertIn("episode", infos[i])
                        final = infos[i]["final_info"]
                        mover = final["player"]
                        self.assertEqual(infos[i]["episode"]["l"], lengths[i])
                        self.assertEqual(infos[i]["episode"]["r"], final["rewards"][mover])
                        finished.append((int(lengths[i]), float(final["rewards"][mover])))
                        lengths[i] = 0
                    for i in np.flatnonzero(~terminated):
                        self.assertNotIn("final_obs", infos[i])
                    if len(finished) >= 12:
                        break
                self.assertGreaterEqual(len(finished), 12)  # several episodes per game
                self.assertEqual(stats.episode_count, len(finished))
                self.assertEqual(list(stats.length_queue), [f[0] for f in finished])
                self.assertEqual(list(stats.return_queue), [f[1] for f in finished])
                env.close()
                self.assertTrue(inner.closed)


@unittest.skipIf(pettingzoo is None, "pettingzoo is not installed")
class TestPettingZoo(unittest.TestCase):
    def test_api_test_every_game(self) -> None:
        for spec in all_specs():
            with self.subTest(spec=spec):
                env = AECEnv(spec, seed=3)
                self.assertIsInstance(env, pettingzoo.AECEnv)
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed), _recorded_warnings():
                    api_test(env, num_cycles=1000)
                self.assertIn("Passed API test", printed.getvalue())
                env.close()

    def test_reward_sums_are_the_returns(self) -> None:
        for spec in all_specs():
            with self.subTest(spec=spec):
                env = AECEnv(spec, seed=5)
                env.reset(seed=6)
                totals = {agent: 0.0 for agent in env.possible_agents}
                for agent in env.agent_iter():
                    observation, _, terminated, truncated, _ = env.last()
                    assert observation is not None
                    action = None if terminated or truncated else \
                        env.action_space(agent).sample(observation["action_mask"])
                    env.step(action)
                    for who, reward in env.rewards.items():
                        totals[who] += reward
                self.assertEqual([totals[a] for a in env.possible_agents],
                                 list(env.state.returns))
                env.close()

    def test_with_and_close(self) -> None:
        # pettingzoo.AECEnv has no with block of its own: ours, from learning.AECEnv.
        check_aec_env_with_and_close(self, lambda: AECEnv("tab", seed=4))

    def test_not_parallelizable(self) -> None:
        env = AECEnv("halusa")
        with self.assertRaises(AssertionError):
            aec_to_parallel(env)
        env.close()


if __name__ == "__main__":
    unittest.main()
