"""The learning interface's C functions (tg_rules_observation_size ... tg_batch_*) and the
methods they give Rules and State (docs/learning.md). Kept apart from _library.py so that the
package still loads a library without them: the methods then raise LibraryNotFoundError."""

from __future__ import annotations

import ctypes
import importlib
from ctypes import (POINTER, byref, c_float, c_int, c_int8, c_int32, c_size_t, c_uint8,
                    c_uint32, c_uint64, c_void_p)
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Tuple, Union

from ._errors import Status, as_int, check, error
from ._handle import _Use
from ._library import LibraryNotFoundError, _lib, tg

# numpy when it is importable (arrays), else plain lists. Looked up by name so that the
# package type-checks and runs without it.
try:
    np: Any = importlib.import_module("numpy")
except ImportError:  # pragma: no cover - depends on the environment
    np = None

_p = c_void_p
_fp = POINTER(c_float)
_u8p = POINTER(c_uint8)

# name without "tg_": (restype, argtypes).
SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "rules_observation_size": (c_size_t, [_p]),
    "rules_observation_layout": (c_int, [_p, POINTER(c_size_t), POINTER(c_size_t)]),
    "rules_action_count": (c_size_t, [_p]),
    "state_observation": (c_int, [_p, c_int, _fp, c_size_t]),
    "state_action_mask": (c_int, [_p, _u8p, c_size_t]),
    "state_action_to_move": (c_int, [_p, c_uint32, POINTER(c_uint32)]),
    "state_move_to_action": (c_int, [_p, c_uint32, POINTER(c_uint32)]),
    "state_apply_action": (c_int, [_p, c_uint32]),
    "batch_new": (c_int, [_p, c_size_t, c_uint64, POINTER(c_void_p)]),
    "batch_free": (None, [_p]),
    "batch_seed": (c_int, [_p, c_uint64]),
    "batch_reset": (c_int, [_p, _fp, _u8p, POINTER(c_int8)]),
    "batch_step": (c_int, [_p, POINTER(c_uint32), c_uint32, _fp, _u8p, POINTER(c_int8), _fp,
                           _fp, _u8p, POINTER(c_int32)]),
    "batch_restart": (c_int, [_p, _u8p, _fp, _u8p, POINTER(c_int8)]),
    "batch_get": (c_int, [_p, c_size_t, _p]),
    "batch_set": (c_int, [_p, c_size_t, _p]),
    "batch_rng": (c_int, [_p, c_size_t, POINTER(c_uint64)]),
}

_functions: Dict[str, Callable[..., Any]] = {}
for _name, (_restype, _argtypes) in SIGNATURES.items():
    _fn = getattr(_lib, "tg_" + _name, None)
    if _fn is not None:
        _fn.restype = _restype
        _fn.argtypes = _argtypes
        _functions[_name] = _fn


def fn(name: str) -> Callable[..., Any]:
    """The C function tg_<name>, or LibraryNotFoundError if the loaded library predates it."""
    found = _functions.get(name)
    if found is None:
        raise LibraryNotFoundError(
            "the loaded libtraditional-games has no tg_%s (the learning interface needs "
            "version 0.4 or later)" % name)
    return found


def to_array(buf: "ctypes.Array[Any]", dtype: str) -> Any:
    """A numpy array over a ctypes buffer (no copy), or a list without numpy."""
    if np is None:
        return list(buf)
    return np.frombuffer(buf, dtype=dtype)


Vector = Union[List[float], Any]
Mask = Union[List[int], Any]


class RulesLearning:
    """The learning interface of a rule set: Rules.observation_shape, Rules.action_count."""

    if TYPE_CHECKING:
        _use: _Use

    @property
    def observation_shape(self) -> Tuple[int]:
        """The shape of State.observation(): (size,), a flat vector of float32; the layout is
        observation_layout's planes of rows * cols values, then its scalars."""
        with self._use as h:
            return (int(fn("rules_observation_size")(h)),)

    @property
    def observation_layout(self) -> Tuple[int, int]:
        """(planes, scalars): the observation is `planes` board planes of rows * cols values
        (each seen from the observer's side), then `scalars` values (docs/learning.md)."""
        planes, scalars = c_size_t(), c_size_t()
        with self._use as h:
            check(fn("rules_observation_layout")(h, byref(planes), byref(scalars)))
        return planes.value, scalars.value

    @property
    def action_count(self) -> int:
        """The size of the fixed action space: actions are 0 .. action_count - 1."""
        with self._use as h:
            return int(fn("rules_action_count")(h))


def _sizes(h: c_void_p) -> Tuple[int, int]:
    rules = tg.state_rules(h)
    return (int(fn("rules_observation_size")(rules)), int(fn("rules_action_count")(rules)))


class StateLearning:
    """The learning interface of a state: observation(), action_mask() and the mapping between
    actions and moves. Every argument is converted before the state is entered (the package's
    rule: no caller code runs while a call holds the pointer)."""

    if TYPE_CHECKING:
        _use: _Use

    def observation(self, player: int) -> Vector:
        """The observation of this position by `player` (0 or 1): a float32 numpy array of
        Rules.observation_shape, or a list of floats without numpy. The board is turned so
        that `player` sits at the bottom (docs/learning.md has the layout)."""
        who = as_int(player, "player")
        if not -(2**31) <= who < 2**31:
            raise ValueError("player must be 0 or 1")
        with self._use as h:
            size, _ = _sizes(h)
            buf = (c_float * size)()
            check(fn("state_observation")(h, who, buf, size), "observation by player %d" % who)
        return to_array(buf, "float32")

    def action_mask(self) -> Mask:
        """The legal actions now: an int8 numpy array of Rules.action_count entries (1 =
        legal; int8 as Gymnasium's and PettingZoo's masks are), or a list without numpy; all
        0 at a chance state or a finished game."""
        with self._use as h:
            _, count = _sizes(h)
            buf = (c_uint8 * count)()
            check(fn("state_action_mask")(h, buf, count), "action mask")
        return to_array(buf, "int8")

    def action_to_move(self, action: int) -> int:
        """The legal move (a tg_move) that `action` stands for now; IllegalMove if none."""
        a = _action(action)
        out = c_uint32()
        with self._use as h:
            check(fn("state_action_to_move")(h, a, byref(out)), "action %d" % a)
        return out.value

    def move_to_action(self, move: int) -> int:
        """The action of a legal decision (a tg_move int); IllegalMove if it is not one now."""
        m = as_int(move, "move")
        if not 0 <= m <= 0xFFFFFFFF:
            raise ValueError("move must be a tg_move (0 .. 2**32 - 1)")
        out = c_uint32()
        with self._use as h:
            check(fn("state_move_to_action")(h, m, byref(out)), "move %d" % m)
        return out.value

    def apply_action(self, action: int) -> None:
        """Apply the move that `action` stands for (recorded in the undo history)."""
        a = _action(action)
        with self._use as h:
            check(fn("state_apply_action")(h, a), "action %d" % a)


def shown(value: object) -> str:
    """A value as an error message quotes it: repr, cut short (a huge int is not printed)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return "an int of %d bits" % value.bit_length()
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _action(action: object) -> int:
    """An action as the library takes it (a uint32). Beyond 32 bits it cannot be passed, so it
    is refused here with the library's status for an action out of range, naming the value as
    given; below that the library checks the range and names the value itself."""
    try:
        value = as_int(action, "an action")
    except TypeError:
        raise TypeError("action %s is not an int (%s)"
                        % (shown(action), type(action).__name__)) from None
    if not 0 <= value <= 0xFFFFFFFF:
        raise error(Status.TG_ERR_INVALID_ARGUMENT, "action %s" % shown(value))
    return value
