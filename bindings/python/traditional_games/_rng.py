"""The caller's random generator state, shared safely with the library."""

from __future__ import annotations

import threading
from ctypes import c_uint64
from typing import Any, Dict, SupportsIndex, Tuple, Type, Union

from ._errors import as_int

_U64_MASK = 0xFFFFFFFFFFFFFFFF


class Rng:
    """A 64-bit generator state (a C uint64_t), advanced by every call that draws from it.

    Rng(seed) with any int seed (taken modulo 2**64). Pass the same object to successive calls
    (apply_random, playout, bot_choose, play_bot) to continue one stream; the same seed gives
    the same sequence of draws, hence the same game, on every platform.

    An Rng may be shared between threads: each call that draws from it holds it for the whole
    call, so draws are never lost or repeated (their order between threads is whatever the
    threads' order is). copy.copy(), copy.deepcopy() and copy() give an independent generator
    at the same state; pickling keeps the state.
    """

    __slots__ = ("_c", "_lock")

    def __init__(self, seed: SupportsIndex = 0) -> None:
        self._c = c_uint64(as_int(seed, "seed") & _U64_MASK)
        # The library writes the state through a pointer without the GIL: two threads drawing
        # at once would race on it in C.
        self._lock = threading.Lock()

    @property
    def state(self) -> int:
        """The current generator state, an int in 0 .. 2**64-1."""
        with self._lock:
            return self._c.value

    @state.setter
    def state(self, value: SupportsIndex) -> None:
        v = as_int(value, "state") & _U64_MASK
        with self._lock:
            self._c.value = v

    def copy(self) -> Rng:
        """An independent generator at the same state."""
        return Rng(self.state)

    def __copy__(self) -> Rng:
        return self.copy()

    def __deepcopy__(self, memo: Dict[int, Any]) -> Rng:
        return self.copy()

    def __reduce__(self) -> Tuple[Type[Rng], Tuple[int]]:
        return (Rng, (self.state,))

    def __repr__(self) -> str:
        return "Rng(0x%016x)" % self.state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.state == self.state

    __hash__ = None  # type: ignore[assignment]  # mutable


# An Rng, or an int-like seed for a one-off generator.
RngArg = Union["Rng", SupportsIndex]


def rng_arg(rng: RngArg) -> Rng:
    if isinstance(rng, Rng):
        return rng
    try:
        seed = as_int(rng, "rng")
    except TypeError:
        raise TypeError("rng must be an Rng or an int seed, not %s"
                        % type(rng).__name__) from None
    return Rng(seed)  # a one-off generator: the caller sees no advance
