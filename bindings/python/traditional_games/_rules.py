"""Rule sets (tg_rules)."""

from __future__ import annotations

from ctypes import byref, c_void_p
from typing import TYPE_CHECKING, Any, Dict, Tuple, Type, Union

from ._catalogue import games
from ._errors import Status, check, decode, encode
from ._handle import Handle
from ._learning_lib import RulesLearning
from ._library import tg

if TYPE_CHECKING:
    from ._state import State


def _spec_bad_status(spec: object) -> int:
    """The status the library would give a spec spoilt by a NUL or a lone surrogate: a bad
    option if the game id before it is whole (a ':' came first), else an unknown game. Used
    only when encode() fails."""
    if isinstance(spec, str):
        cut = next((i for i, ch in enumerate(spec) if ch == "\0" or "\ud800" <= ch <= "\udfff"),
                   len(spec))
        if ":" in spec[:cut]:
            return Status.TG_ERR_BAD_OPTION
    elif isinstance(spec, bytes) and b":" in spec.split(b"\0", 1)[0]:
        return Status.TG_ERR_BAD_OPTION
    return Status.TG_ERR_UNKNOWN_GAME


class Rules(Handle, RulesLearning):
    """An immutable rule set: one game with all its options (tg_rules).

    Rules("halusa"), Rules("hus:width=16"). Release it with close() or a with block (it is
    also released when collected). States made from it keep their own copy of the rules, so
    closing a Rules never invalidates a State.

    copy.copy() and copy.deepcopy() give an independent Rules of the same spec (closing one
    leaves the other usable); pickling stores the canonical spec.
    """

    def __init__(self, spec: Union[str, bytes] = "halusa") -> None:
        super().__init__()
        data = encode(spec, "rule spec", lambda: _spec_bad_status(spec))
        ptr = c_void_p()
        check(tg.rules_new(data, byref(ptr)), "rule spec %s", spec)
        self._own(ptr, tg.rules_free)

    games = staticmethod(games)

    @property
    def spec(self) -> str:
        """The canonical spec: the game id and every option, in the game's order."""
        with self._use as h:
            return decode(tg.rules_spec(h))

    @property
    def game_id(self) -> str:
        with self._use as h:
            return decode(tg.rules_game_id(h))

    @property
    def rows(self) -> int:
        with self._use as h:
            return tg.rules_rows(h)

    @property
    def cols(self) -> int:
        with self._use as h:
            return tg.rules_cols(h)

    @property
    def max_moves(self) -> int:
        """An upper bound on the legal moves or chance outcomes of any state."""
        with self._use as h:
            return tg.rules_max_moves(h)

    def new_state(self) -> State:
        """The initial position of this rule set."""
        from ._state import State
        return State(self)

    def state_from_string(self, text: Union[str, bytes]) -> State:
        """A State read from a position string of this rule set."""
        from ._state import State
        return State.from_string(self, text)

    def __copy__(self) -> Rules:
        return Rules(self.spec)

    def __deepcopy__(self, memo: Dict[int, Any]) -> Rules:
        return Rules(self.spec)

    def __reduce__(self) -> Tuple[Type[Rules], Tuple[str]]:
        return (Rules, (self.spec,))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rules):
            return NotImplemented
        return self.spec == other.spec

    def __hash__(self) -> int:
        return hash(self.spec)

    def __repr__(self) -> str:
        if self._ptr is None:
            return "<Rules (closed)>"
        try:
            return "Rules(%r)" % self.spec
        except ValueError:  # closed meanwhile
            return "<Rules (closed)>"
