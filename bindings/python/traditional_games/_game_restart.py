"""Starting single games of a batch again, exactly as the library's own autoreset does.

VectorEnv reports the final observation of a game that ended (Gymnasium's final_obs), so it
steps without TG_BATCH_AUTORESET and starts the ended games afterwards. The C interface has no
call that restarts one game: tg_batch_set() cannot take a position at a chance state (Tab
opens with throws), and the throws must come from that game's own generator, which only the
batch can advance. So, where the game opens with throws, each ended game is given a position one move from
the end, and a second tg_batch_step() with TG_BATCH_AUTORESET plays that move: the library ends the game and starts
it again (start_game(), its opening throws drawn from the game's generator), while every other
game gets an action out of range, which the library refuses without changing anything. The
games, generators and observations are then exactly those of a step with TG_BATCH_AUTORESET:
the tests compare them with single states played on the same seeds.
"""

from __future__ import annotations

from ctypes import POINTER, c_int32, c_uint32, c_void_p
from typing import Any, Optional, Tuple

from ._errors import check
from ._learning_lib import fn, np
from ._rng import Rng
from ._rules import Rules
from ._state import CHANCE, State

AUTORESET = 1  # TG_BATCH_AUTORESET

# Random games searched for a position whose move ends the game by itself (no throw after
# it); every rule set has one in its first game (the tests check each).
GAMES_SEARCHED = 50


def _last_move_position(rules: Rules) -> "tuple[State, int]":
    """A decision whose action ends the game at once, found by random play through the
    library, and that action."""
    rng = Rng(0x5EED)
    for _ in range(GAMES_SEARCHED):
        with State(rules) as state:
            while not state.is_terminal:
                if state.player == CHANCE:
                    state.apply_random(rng)
                    continue
                before = state.clone()
                state.apply_random(rng)
                if state.is_terminal:
                    return before, before.move_to_action(state.history[-1])
                before.close()
    raise RuntimeError("no position one move from the end of %s in %d random games"
                       % (rules.spec, GAMES_SEARCHED))


class GameRestart:
    """Restarts the ended games of one batch (see the module's description)."""

    def __init__(self, rules: Rules, n: int) -> None:
        # Where the game opens at a decision (no throws: every game but Tab), starting again
        # draws nothing, so the initial position put in with tg_batch_set() is exactly what the
        # library's autoreset makes, and its observation, mask and player to move are the same
        # every time: no second step is needed.
        self._initial: Optional[State] = State(rules)
        if self._initial.player == CHANCE:
            self._initial.close()
            self._initial = None
        else:
            mover = self._initial.turn
            self._initial_view = (self._initial.observation(mover),
                                  self._initial.action_mask(), mover)
        self._position, self._ending = _last_move_position(rules)
        self._refused = rules.action_count  # out of range: the library changes nothing
        self._actions = np.full(n, self._refused, dtype=np.uint32)
        self._status = np.zeros(n, dtype=np.int32)
        self._c_actions = self._actions.ctypes.data_as(POINTER(c_uint32))
        self._c_status = self._status.ctypes.data_as(POINTER(c_int32))

    def restart(self, batch: c_void_p, games: Any, outputs: Tuple[Any, Any, Any],
                pointers: Tuple[Any, Any, Any]) -> None:
        """Start `games` (indices) of `batch` again; the other games are untouched. `outputs`
        are the batch's obs, masks and players arrays, `pointers` the same as the library
        takes them: the restarted games' rows are rewritten (and the others' with what they
        held)."""
        if self._initial is not None:
            with self._initial._use as initial:
                for i in games:
                    check(fn("batch_set")(batch, int(i), initial), "restart of game %d" % i)
            for array, value in zip(outputs, self._initial_view):
                array[games] = value
            return
        obs, masks, players = pointers
        with self._position._use as position:
            for i in games:
                check(fn("batch_set")(batch, int(i), position), "restart of game %d" % i)
        self._actions[games] = self._ending
        try:
            fn("batch_step")(batch, self._c_actions, AUTORESET, obs, masks, players, None, None,
                             None, self._c_status)
            if (self._status[games] != 0).any():
                raise RuntimeError("the library refused to restart games %s"
                                   % list(games[self._status[games] != 0]))
        finally:
            self._actions[games] = self._refused

    def close(self) -> None:
        self._position.close()
        if self._initial is not None:
            self._initial.close()
