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


def _spec_nul_status(spec: Union[str, bytes]) -> int:
    """The status the library would give a spec cut short at a NUL: an unknown game if the
    game id is cut, a bad option if an option is."""
    data = spec.encode("utf-8", "surrogateescape") if isinstance(spec, str) else spec
    if isinstance(data, bytes) and b":" in data.split(b"\0", 1)[0]:
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
        data = encode(spec, "rule spec", _spec_nul_status(spec))
        ptr = c_void_p()
        check(tg.rules_new(data, byref(ptr)), "rule spec %r" % (spec,))
        self._own(ptr, tg.rules_free)

    games = staticmethod(games)

    def __enter__(self) -> Rules:
        with self._lock:
            self._handle()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def spec(self) -> str:
        """The canonical spec: the game id and every option, in the game's order."""
        with self._lock:
            return decode(tg.rules_spec(self._handle()))

    @property
    def game_id(self) -> str:
        with self._lock:
            return decode(tg.rules_game_id(self._handle()))

    @property
    def rows(self) -> int:
        with self._lock:
            return tg.rules_rows(self._handle())

    @property
    def cols(self) -> int:
        with self._lock:
            return tg.rules_cols(self._handle())

    @property
    def max_moves(self) -> int:
        """An upper bound on the legal moves or chance outcomes of any state."""
        with self._lock:
            return tg.rules_max_moves(self._handle())

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
        with self._lock:
            if self._ptr is None:
                return "<Rules (closed)>"
            return "Rules(%r)" % self.spec
