# What gymnasium_env.py and pettingzoo_env.py use of Gymnasium and PettingZoo, declared for
# mypy only (they import it under TYPE_CHECKING; at run time they import the real libraries).
# mypy --strict checks the package where neither library is installed: Debian has no package
# of them, and their sources in ../shared/anchors/python are not typed to --strict nor written
# for Python 3.9 (docs/python.md, "Type hints"). The conformance tests check the real classes.

import enum
from typing import Any, Dict, Iterator, List, Optional, SupportsFloat, Tuple

class Space:
    shape: Tuple[int, ...]
    dtype: Any
    def contains(self, x: Any) -> bool: ...
    def __contains__(self, x: Any) -> bool: ...
    def sample(self, mask: Any = ...) -> Any: ...

class Box(Space):
    def __init__(self, low: Any, high: Any, shape: Optional[Tuple[int, ...]] = ...,
                 dtype: Any = ...) -> None: ...

class Discrete(Space):
    n: Any
    def __init__(self, n: int) -> None: ...

class DictSpace(Space):
    def __init__(self, spaces: Dict[str, Space]) -> None: ...

def batch_space(space: Space, n: int = ...) -> Space: ...

class AutoresetMode(enum.Enum):
    NEXT_STEP: str
    SAME_STEP: str
    DISABLED: str

class GymEnv:
    metadata: Dict[str, Any]
    render_mode: Optional[str]
    observation_space: Space
    action_space: Space
    np_random: Any
    def reset(self, *, seed: Optional[int] = ...,
              options: Optional[Dict[str, Any]] = ...) -> Tuple[Any, Dict[str, Any]]: ...
    def step(self, action: Any) -> Tuple[Any, SupportsFloat, bool, bool, Dict[str, Any]]: ...
    def render(self) -> Any: ...
    def close(self) -> None: ...

class GymVectorEnv:
    metadata: Dict[str, Any]
    closed: bool
    num_envs: int
    observation_space: Space
    action_space: Space
    single_observation_space: Space
    single_action_space: Space
    np_random: Any
    def reset(self, *, seed: Optional[int] = ...,
              options: Optional[Dict[str, Any]] = ...) -> Tuple[Any, Dict[str, Any]]: ...
    def step(self, actions: Any) -> Tuple[Any, Any, Any, Any, Dict[str, Any]]: ...
    def close(self, **kwargs: Any) -> None: ...

class PettingZooAECEnv:
    metadata: Dict[str, Any]
    possible_agents: List[str]
    agents: List[str]
    @property
    def num_agents(self) -> int: ...
    def agent_iter(self, max_iter: int = ...) -> Iterator[str]: ...
    def observation_space(self, agent: str) -> Space: ...
    def action_space(self, agent: str) -> Space: ...
    def close(self) -> None: ...
