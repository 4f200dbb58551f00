"""Environments for training agents (docs/learning.md): VectorEnv, many games stepped by one
call into the library, shaped as Gymnasium's vector API; and AECEnv, one game with PettingZoo's
agent-environment-cycle conventions. Neither depends on Gymnasium or PettingZoo.

    import numpy as np
    from traditional_games.learning import VectorEnv

    env = VectorEnv("halusa", n=1024, seed=1)
    obs, info = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        scores = rng.random(info["action_mask"].shape) * info["action_mask"]
        obs, rewards, terminated, truncated, info = env.step(scores.argmax(axis=1))

Rules.observation_shape, Rules.action_count, State.observation(player), State.action_mask(),
State.action_to_move(), State.move_to_action() and State.apply_action() are on the classes
themselves.
"""

from __future__ import annotations

import threading
from ctypes import POINTER, byref, c_float, c_int8, c_int32, c_uint8, c_uint32, c_uint64, c_void_p
from typing import Any, Dict, List, Optional, Tuple, Union

from ._action_checks import action_batch
from ._errors import Status, as_int, check, error
from ._handle import Closing, closed_error
from ._learning_lib import Mask, Vector, fn, np
from ._rng import Rng
from ._rules import Rules
from ._state import CHANCE, State

RulesArg = Union[Rules, str, bytes]


def _rules(spec: RulesArg) -> Rules:
    if isinstance(spec, Rules):
        return Rules(spec.spec)
    if isinstance(spec, (str, bytes)):
        return Rules(spec)
    raise TypeError("spec must be a Rules or a spec string, not %s" % type(spec).__name__)


class VectorEnv(Closing):
    """`n` games of one rule set stepped together by the library (a tg_batch).

    Shaped as Gymnasium's vector API with same-step autoreset: reset(seed=None) -> (obs,
    info) and step(actions) -> (obs, rewards, terminated, truncated, info), on numpy arrays
    (numpy is required here): obs (n, observation size) float32, each game seen by its player
    to move; rewards (n,) float32 for the player who moved (+1 win, -1 loss, at the end of a
    game, else 0); terminated (n,) bool; truncated (n,) bool, always False (every game ends).
    info, a new dict each call, each entry with its "_key" mask of the games that have it,
    as Gymnasium 1.x's vector environments give them: "action_mask" (n, action_count) int8;
    "player" (n,) int8, whose view each observation is; and after a step "rewards" (n, 2)
    float32, the reward of player 0 and player 1, and "status" (n,) int32, 0 where the
    action was taken, else the tg_status that refused it (that game unchanged).

    A game that ends is started again within the same step (autoreset=True, the default),
    as Gymnasium's same-step autoreset does it: obs and info show the new game (its info is
    a reset's: "_rewards" and "_status" are False there), rewards and terminated the game
    that ended, and info has "final_obs" (an (n,) object array: the ended games' last
    observations, by the player who moved last, None elsewhere) and "final_info" (the ended
    games' step info: "action_mask", "player", "rewards", "status"), each with its "_key"
    mask of the games that ended. With copy=True (the default) every array returned is new;
    copy=False returns the library's output buffers, rewritten in place by the next call.

    An action must be in the action space: an int 0 .. action_count - 1 for each game; a
    float, NaN, string, bool, None, a number out of range or a batch of another shape raises
    (TypeError, InvalidArgument, ValueError) naming each bad action and its game, and no game
    steps. An action in the space that is not legal now is refused by the library for that
    game alone (info["status"], the game unchanged, reward 0) while the others step.

    Game i's generator starts at the i-th output of splitmix64 seeded with `seed`. One
    VectorEnv must not be stepped by two threads at once (calls hold its lock).
    """

    # A string: without Gymnasium there is no AutoresetMode to name it by;
    # traditional_games.gymnasium_env.VectorEnv has AutoresetMode.SAME_STEP.
    metadata: Dict[str, Any] = {"autoreset_mode": "same-step"}

    def __init__(self, spec: RulesArg = "halusa", n: int = 1, seed: int = 0,
                 autoreset: bool = True, copy: bool = True) -> None:
        if np is None:
            raise ImportError("VectorEnv needs numpy, which is not installed: install it "
                              "with the package's extra, pip install 'traditional-games[numpy]'")
        n = as_int(n, "n")
        if n < 1:
            raise ValueError("n must be at least 1, not %d" % n)
        seed_bits = as_int(seed, "seed") & (2**64 - 1)
        self._lock = threading.RLock()
        self.rules = _rules(spec)
        self.num_envs = n
        self.observation_shape: Tuple[int] = self.rules.observation_shape
        self.action_count: int = self.rules.action_count
        self.autoreset = bool(autoreset)
        self.copy = bool(copy)
        size = self.observation_shape[0]
        self._obs = np.zeros((n, size), dtype=np.float32)
        self._masks = np.zeros((n, self.action_count), dtype=np.int8)
        self._players = np.zeros(n, dtype=np.int8)
        self._reward = np.zeros(n, dtype=np.float32)
        self._rewards = np.zeros((n, 2), dtype=np.float32)
        self._done = np.zeros(n, dtype=np.uint8)
        self._status = np.zeros(n, dtype=np.int32)
        self._actions = np.zeros(n, dtype=np.uint32)
        self._truncated = np.zeros(n, dtype=bool)
        # Pointers taken once: a step passes the same buffers every time. The masks are int8
        # (what Gymnasium and PettingZoo take) over the library's bytes of 0 and 1.
        self._c_obs = self._obs.ctypes.data_as(POINTER(c_float))
        self._c_masks = self._masks.ctypes.data_as(POINTER(c_uint8))
        self._c_players = self._players.ctypes.data_as(POINTER(c_int8))
        self._c_reward = self._reward.ctypes.data_as(POINTER(c_float))
        self._c_rewards = self._rewards.ctypes.data_as(POINTER(c_float))
        self._c_done = self._done.ctypes.data_as(POINTER(c_uint8))
        self._c_status = self._status.ctypes.data_as(POINTER(c_int32))
        self._c_actions = self._actions.ctypes.data_as(POINTER(c_uint32))
        self._step = fn("batch_step")
        self._restart = fn("batch_restart")
        batch = c_void_p()
        with self.rules._use as rules_h:
            check(fn("batch_new")(rules_h, n, seed_bits, byref(batch)), "new VectorEnv")
        self._batch: Optional[c_void_p] = batch
        self._free = fn("batch_free")
        self.reset()

    def _handle(self) -> c_void_p:
        batch = self._batch
        if batch is None:
            raise closed_error(self)
        return batch

    def _check_open(self) -> None:
        self._handle()

    def _out(self, array: Any) -> Any:
        return array.copy() if self.copy else array

    def _info(self, stepped: Any) -> Dict[str, Any]:
        """Each game's info, a dict of arrays with Gymnasium's "_key" masks. "rewards" and
        "status" describe a step: `stepped` says which games have them (a game started again
        by this step has its reset's info, and the step's is in final_info)."""
        info: Dict[str, Any] = {}
        for key, array in (("action_mask", self._masks), ("player", self._players)):
            info[key] = self._out(array)
            info["_" + key] = np.ones(self.num_envs, dtype=bool)
        if stepped is not None:
            ended = np.flatnonzero(~stepped)
            for key, array in (("rewards", self._rewards), ("status", self._status)):
                if ended.size:
                    info[key] = array.copy()
                    info[key][ended] = 0
                else:
                    info[key] = self._out(array)
                info["_" + key] = stepped
        return info

    def reset(self, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """Start every game again (seeding the generators first if `seed` is given, an int).
        `options` is accepted for Gymnasium's signature and not used."""
        seed_bits = None if seed is None else as_int(seed, "seed") & (2**64 - 1)
        with self._lock:
            if seed_bits is not None:
                check(fn("batch_seed")(self._handle(), seed_bits))
            check(fn("batch_reset")(self._handle(), self._c_obs, self._c_masks, self._c_players))
            self._status[:] = 0
            self._reward[:] = 0
            self._rewards[:] = 0
            self._done[:] = 0
            return self._out(self._obs), self._info(None)

    def step(self, actions: Any) -> Tuple[Any, Any, Any, Any, Dict[str, Any]]:
        """Apply one action per game (an (n,) array-like of ints), throw the chance outcomes
        that follow, start ended games again (autoreset) and report (see the class)."""
        checked = action_batch(actions, self.num_envs, self.action_count)
        with self._lock:
            batch = self._handle()
            np.copyto(self._actions, checked, casting="unsafe")  # checked: 0 .. count - 1
            self._step(batch, self._c_actions, 0, self._c_obs, self._c_masks, self._c_players,
                       self._c_reward, self._c_rewards, self._c_done, self._c_status)
            final: Dict[str, Any] = {}
            stepped = np.ones(self.num_envs, dtype=bool)
            if self.autoreset and self._done.any():
                # Stepped without the library's autoreset so that the ended games' last
                # observations are read first; tg_batch_restart() then starts exactly the
                # games that autoreset would have (same generators, same opening throws).
                ended = np.flatnonzero(self._done)
                final = self._final(ended)
                check(self._restart(batch, self._c_done, self._c_obs, self._c_masks,
                                    self._c_players), "restart of the ended games")
                stepped[ended] = False
            info = self._info(stepped)
            info.update(final)
            terminated = self._done.astype(bool) if self.copy else self._done.view(bool)
            return (self._out(self._obs), self._out(self._reward), terminated,
                    self._out(self._truncated), info)

    def _final(self, ended: Any) -> Dict[str, Any]:
        """Gymnasium's final_obs and final_info of the games that ended, read before they
        start again."""
        n = self.num_envs
        mask = np.zeros(n, dtype=bool)
        mask[ended] = True
        final_obs = np.full(n, None, dtype=object)
        for i in ended:
            final_obs[i] = self._obs[i].copy()
        final_info: Dict[str, Any] = {}
        for key, array in (("action_mask", self._masks), ("player", self._players),
                           ("rewards", self._rewards), ("status", self._status)):
            kept = np.zeros_like(array)
            kept[ended] = array[ended]
            final_info[key] = kept
            final_info["_" + key] = mask.copy()
        return {"final_obs": final_obs, "_final_obs": mask, "final_info": final_info,
                "_final_info": mask.copy()}

    def state(self, i: int) -> State:
        """A copy of game i's position (a new State, ply included, no history)."""
        self._check_open()
        i = as_int(i, "i")
        if not 0 <= i < self.num_envs:
            raise IndexError("game index %d out of range" % i)
        state = State(self.rules)
        with self._lock, state._use as state_h:
            check(fn("batch_get")(self._handle(), i, state_h), "game %d" % i)
        return state

    def set_state(self, i: int, state: State) -> None:
        """Put a copy of a position (at a decision or finished) into game i. The outputs of
        the last call are not updated; the next step uses the new position."""
        i = as_int(i, "i")
        if not 0 <= i < self.num_envs:
            raise IndexError("game index %d out of range" % i)
        with self._lock, state._use as state_h:
            check(fn("batch_set")(self._handle(), i, state_h), "game %d" % i)

    def rng_state(self, i: int) -> int:
        """Game i's generator state now."""
        out = c_uint64()
        with self._lock:
            check(fn("batch_rng")(self._handle(), as_int(i, "i"), byref(out)), "game %r" % (i,))
        return out.value

    def close(self) -> None:
        with self._lock:
            if self._batch is not None:
                self._free(self._batch)
                self._batch = None
            self.rules.close()

    def __del__(self) -> None:
        batch = getattr(self, "_batch", None)
        if batch is not None:
            self._free(batch)
            self._batch = None


class AECEnv(Closing):
    """One game with PettingZoo's agent-environment-cycle conventions (without PettingZoo).

    Agents "player_0" and "player_1". reset(seed) starts a game, agent_selection is the agent
    to act, observe(agent) gives {"observation": ..., "action_mask": ...} (the mask is all 0
    for an agent not to act), last() the (observation, cumulative reward, terminated,
    truncated, info) of agent_selection, step(action) acts for it. Once the game is over every
    agent is terminated; each then takes step(None) in turn and leaves `agents`, until it is
    empty. Chance outcomes (Tab's throws) are drawn by the environment's own generator.

    close() releases the game's State and Rules (a second close() does nothing), and so does
    the end of a `with AECEnv(...) as env:` block; reset(), observe(), last(), step() and
    render() after it raise ValueError.
    """

    metadata: Dict[str, Any] = {"name": "traditional_games_v0", "is_parallelizable": False}
    possible_agents: List[str] = ["player_0", "player_1"]

    def __init__(self, spec: RulesArg = "halusa", seed: int = 0) -> None:
        self.rules = _rules(spec)
        self.observation_shape: Tuple[int] = self.rules.observation_shape
        self.action_count: int = self.rules.action_count
        self._rng = Rng(seed)
        self.state = State(self.rules)
        self.agents: List[str] = []
        self.rewards: Dict[str, float] = {}
        self._cumulative_rewards: Dict[str, float] = {}
        self.terminations: Dict[str, bool] = {}
        self.truncations: Dict[str, bool] = {}
        self.infos: Dict[str, Dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]
        self.reset()

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self._check_open()
        if seed is not None:
            self._rng = Rng(seed)
        self.state.close()
        self.state = State(self.rules)
        self._throw()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.turn]

    def _throw(self) -> None:
        while self.state.player == CHANCE:
            self.state.apply_random(self._rng)

    def observe(self, agent: str) -> Dict[str, Any]:
        self._check_open()
        player = self.possible_agents.index(agent)
        observation: Vector = self.state.observation(player)
        mask: Mask = self.state.action_mask()
        if agent != self.agent_selection or self.terminations.get(agent, True):
            mask = mask * 0 if np is not None else [0] * len(mask)
        return {"observation": observation, "action_mask": mask}

    def last(self, observe: bool = True) -> Tuple[Optional[Dict[str, Any]], float, bool, bool,
                                                 Dict[str, Any]]:
        self._check_open()
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: Optional[int]) -> None:
        self._check_open()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError("%s is done: step(None) removes it" % agent)
            self.agents.remove(agent)
            del self.rewards[agent], self._cumulative_rewards[agent]
            del self.terminations[agent], self.truncations[agent], self.infos[agent]
            # The terminal rewards were handed out by the step that ended the game: a loop
            # that sums `rewards` after every step must not count them again.
            self.rewards = {a: 0.0 for a in self.agents}
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        if action is None:
            raise error(Status.TG_ERR_ILLEGAL_MOVE, "action None for %s, whose turn it is "
                        "(None is the step of a finished agent)" % agent)
        self.state.apply_action(action)
        self._throw()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if self.state.is_terminal:
            returns = self.state.returns
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.state.turn]
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]

    def render(self) -> str:
        self._check_open()
        return str(self.state)

    def close(self) -> None:
        self.state.close()
        self.rules.close()

    def _check_open(self) -> None:
        # The Rules are the environment's own (_rules() makes a new one), closed only by
        # close(); the State is replaced by every reset().
        if self.rules.closed:
            raise closed_error(self)
