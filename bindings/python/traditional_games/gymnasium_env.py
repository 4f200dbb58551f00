"""Gymnasium's API over the library (docs/learning.md, "Gymnasium and PettingZoo"):

- VectorEnv, a gymnasium.vector.VectorEnv: n games stepped by one library call, same-step
  autoreset (AutoresetMode.SAME_STEP), so Gymnasium's vector wrappers apply;
- Env, a gymnasium.Env: one game.

Both are the self-play view of a two-player game: each observation is the position seen by
the player to move, an action is that player's, and the reward goes to the player who moved.
Importing this module needs Gymnasium: pip install 'traditional-games[gymnasium]'.

    from gymnasium.wrappers.vector import RecordEpisodeStatistics
    from traditional_games.gymnasium_env import VectorEnv

    env = RecordEpisodeStatistics(VectorEnv("halusa", n=64, seed=1))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, SupportsFloat, Tuple

if TYPE_CHECKING:
    from ._framework_types import AutoresetMode, Box, Discrete, GymEnv, GymVectorEnv, batch_space
else:
    try:
        from gymnasium import Env as GymEnv
        from gymnasium.spaces import Box, Discrete
        from gymnasium.vector import AutoresetMode
        from gymnasium.vector import VectorEnv as GymVectorEnv
        from gymnasium.vector.utils import batch_space
    except ImportError as missing:  # pragma: no cover - depends on the environment
        raise ImportError("traditional_games.gymnasium_env needs gymnasium, which is not "
                          "installed: pip install 'traditional-games[gymnasium]'") from missing

from . import learning
from ._action_checks import action_value
from ._errors import as_int
from ._handle import Closing, closed_error
from ._learning_lib import np
from ._rules import Rules
from ._state import State

SEED_BITS = 2**64 - 1


def observation_space(rules: Rules) -> Box:
    """The space of State.observation(): raw counts, scores and flags, none negative
    (docs/learning.md), with no upper bound the library states."""
    return Box(low=0.0, high=np.inf, shape=rules.observation_shape, dtype=np.float32)


def action_mask_space(rules: Rules) -> Box:
    """The space of an action mask: int8, 1 where the action is legal, as Gymnasium's
    Discrete.sample(mask=...) and PettingZoo take it."""
    return Box(low=0, high=1, shape=(rules.action_count,), dtype=np.int8)


def _seed(seed: Optional[int]) -> Optional[int]:
    return None if seed is None else as_int(seed, "seed") & SEED_BITS


class VectorEnv(learning.VectorEnv, GymVectorEnv):
    """`n` games of one rule set as a gymnasium.vector.VectorEnv.

    Everything traditional_games.learning.VectorEnv does (its outputs, info keys, final_obs
    and final_info, errors, state(i), set_state(i), rng_state(i)), always with autoreset, plus
    Gymnasium's attributes: metadata["autoreset_mode"] is AutoresetMode.SAME_STEP (the
    library starts an ended game again within the step that ended it, and the ended game's
    last observation is info["final_obs"], as Gymnasium 1.x gives it for that mode);
    single_observation_space (Box, float32), single_action_space (Discrete(action_count)),
    observation_space and action_space (their batches: Box (n, size) and MultiDiscrete),
    single_action_mask_space and action_mask_space (Box of int8 0 or 1), np_random.
    """

    metadata: Dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, spec: learning.RulesArg = "halusa", n: int = 1, seed: int = 0,
                 copy: bool = True) -> None:
        learning.VectorEnv.__init__(self, spec, n=n, seed=seed, autoreset=True, copy=copy)
        self.single_observation_space = observation_space(self.rules)
        self.single_action_space = Discrete(self.action_count)
        self.single_action_mask_space = action_mask_space(self.rules)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.action_mask_space = batch_space(self.single_action_mask_space, self.num_envs)

    def reset(self, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """Start every game again; `seed` (an int) seeds the games' generators and np_random."""
        seed = _seed(seed)
        GymVectorEnv.reset(self, seed=seed)
        return learning.VectorEnv.reset(self, seed=seed, options=options)

    def close(self, **kwargs: Any) -> None:
        learning.VectorEnv.close(self)
        self.closed = True


class Env(Closing, GymEnv):
    """One game of a rule set as a gymnasium.Env.

    reset(seed=None) -> (observation, info); step(action) -> (observation, reward,
    terminated, truncated, info). observation: float32 (size,), the position seen by the
    player to move (at the end, by the player who moved last); reward: +1 or -1 for the
    player who moved when the move won or lost, else 0; terminated once the game is over;
    truncated always False. info: "action_mask" (int8, action_count), "player" (whose view
    the observation is), and after a step "rewards" (float32 (2,): player 0's and player 1's
    reward) and "status" (0, or the tg_status for which the library refused the action).
    Chance outcomes
    (Tab's throws) are drawn by the library from the environment's generator, seeded by
    reset(seed=...) (else by the constructor's seed).

    An action outside action_space (not an int, or out of range) raises, naming it, and
    changes nothing. An action in the space that is not legal now is refused by the library:
    the game is unchanged, reward 0, info["status"] says why (TG_ERR_ILLEGAL_MOVE; after
    the end, TG_ERR_GAME_OVER: call reset()).

    close() (or the end of a `with` block) releases the game; a second close() does nothing,
    and reset(), step(), state() or render() after it raise ValueError.
    """

    metadata: Dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(self, spec: learning.RulesArg = "halusa", seed: int = 0,
                 render_mode: Optional[str] = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError("render_mode must be None or 'ansi', not %r" % (render_mode,))
        self.render_mode = render_mode
        self._game = learning.VectorEnv(spec, n=1, seed=seed, autoreset=False)
        self.rules = self._game.rules
        self.observation_space = observation_space(self.rules)
        self.action_space = Discrete(self.rules.action_count)
        self.action_mask_space = action_mask_space(self.rules)

    @staticmethod
    def _one(info: Dict[str, Any]) -> Dict[str, Any]:
        one = {"action_mask": info["action_mask"][0], "player": int(info["player"][0])}
        if "rewards" in info:  # a step's info; a reset's has no rewards or status
            one.update(rewards=info["rewards"][0], status=int(info["status"][0]))
        return one

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """Start the game again; `seed` (an int) seeds its generator and np_random. `options`
        is not used."""
        self._check_open()
        seed = _seed(seed)
        super().reset(seed=seed)
        obs, info = self._game.reset(seed=seed)
        return obs[0], self._one(info)

    def step(self, action: Any) -> Tuple[Any, SupportsFloat, bool, bool, Dict[str, Any]]:
        self._check_open()
        value = action_value(action, self.rules.action_count)
        obs, reward, terminated, _, info = self._game.step(np.array([value]))
        return obs[0], float(reward[0]), bool(terminated[0]), False, self._one(info)

    def state(self) -> State:
        """A copy of the position (a new State, no history)."""
        self._check_open()
        return self._game.state(0)

    def render(self) -> Optional[str]:
        self._check_open()
        if self.render_mode != "ansi":
            return None
        with self._game.state(0) as state:
            return str(state)

    def close(self) -> None:
        self._game.close()

    def _check_open(self) -> None:
        if self._game._batch is None:
            raise closed_error(self)
