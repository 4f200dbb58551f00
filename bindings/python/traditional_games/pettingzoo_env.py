"""PettingZoo's API over the library (docs/learning.md, "Gymnasium and PettingZoo"): AECEnv,
one game as a pettingzoo.AECEnv, the players taking turns.

There is no ParallelEnv: in every game here one player decides at a time (with Tab's throws
between), so a parallel step, in which every live agent acts at once, would have to invent a
move for the player who is waiting. metadata["is_parallelizable"] is False, which PettingZoo's
aec_to_parallel conversion checks.

Importing this module needs PettingZoo and Gymnasium:
pip install 'traditional-games[pettingzoo]'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

if TYPE_CHECKING:
    from ._framework_types import DictSpace, Discrete, PettingZooAECEnv, Space
else:
    try:
        from gymnasium.spaces import Dict as DictSpace
        from gymnasium.spaces import Discrete, Space
        from pettingzoo import AECEnv as PettingZooAECEnv
    except ImportError as missing:  # pragma: no cover - depends on the environment
        raise ImportError("traditional_games.pettingzoo_env needs pettingzoo and gymnasium, "
                          "which are not installed: pip install 'traditional-games[pettingzoo]'"
                          ) from missing

from . import learning
from .gymnasium_env import action_mask_space, observation_space


class AECEnv(learning.AECEnv, PettingZooAECEnv):
    """One game as a pettingzoo.AECEnv: everything traditional_games.learning.AECEnv does
    (agents "player_0" and "player_1", observe(agent) -> {"observation", "action_mask"},
    last(), step(), rewards, terminations, truncations, infos; `state`, the game's State),
    plus observation_space(agent) (a Dict of the observation's Box and the int8 mask's Box,
    the same object on every call), action_space(agent) (Discrete(action_count)),
    agent_iter() and render() (the board as text, render_mode "ansi").

    The rewards are the game's returns, given when it ends: +1 to the winner and -1 to the
    loser (0 and 0 for a draw); summed over the game they are State.returns.
    """

    metadata: Dict[str, Any] = {"name": "traditional_games_v0", "is_parallelizable": False,
                                "render_modes": ["ansi"]}
    possible_agents: List[str] = list(learning.AECEnv.possible_agents)

    def __init__(self, spec: learning.RulesArg = "halusa", seed: int = 0,
                 render_mode: Optional[str] = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError("render_mode must be None or 'ansi', not %r" % (render_mode,))
        self.render_mode = render_mode
        learning.AECEnv.__init__(self, spec, seed=seed)
        observation = DictSpace({"observation": observation_space(self.rules),
                                   "action_mask": action_mask_space(self.rules)})
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        action = Discrete(self.rules.action_count)
        self.action_spaces = {agent: action for agent in self.possible_agents}

    def observation_space(self, agent: str) -> Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Space:
        return self.action_spaces[agent]
