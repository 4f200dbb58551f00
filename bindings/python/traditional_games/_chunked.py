"""perft and playout in bounded pieces, so that Ctrl-C takes effect between them.

A signal handler (KeyboardInterrupt) runs only when the interpreter is back from a C call:
one tg_perft of depth 12, or a tg_state_playout of a game that never ends, would hold Ctrl-C
for minutes. These split the same work into C calls of a few milliseconds each, sized by
measuring the calls as they go, and give the same results as the single call.

Both run on a pointer whose State's lock the caller holds.
"""

from __future__ import annotations

import ctypes
import time
from ctypes import byref, c_double, c_size_t, c_uint32, c_uint64, c_void_p
from typing import List

from ._errors import check
from ._library import tg

# A C call shorter than FAST lets the next one grow; one longer than SLOW makes it shrink. A
# piece then stays below about SLOW times the game's branching factor.
FAST = 0.002
SLOW = 0.020


def options(ptr: c_void_p) -> List[int]:
    """What tg_perft expands at a node: the legal moves, or at a chance state its outcomes."""
    count = c_size_t()
    cap = tg.rules_max_moves(tg.state_rules(ptr))
    buf = (c_uint32 * max(cap, 1))()
    check(tg.state_moves(ptr, buf, cap, byref(count)), "perft")
    if count.value:
        return list(buf[:count.value])
    probs = (c_double * max(cap, 1))()
    check(tg.state_chance(ptr, buf, probs, cap, byref(count)), "perft")
    return list(buf[:count.value])


class Perft:
    """tg_perft(ptr, depth), expanded in Python at the top of the tree until the subtrees
    below are small enough for one short C call each."""

    def __init__(self, leaf_depth: int = 3) -> None:
        self.leaf_depth = leaf_depth

    def count(self, ptr: c_void_p, depth: int) -> int:
        if depth <= self.leaf_depth:
            started = time.monotonic()
            leaves = tg.perft(ptr, depth)
            took = time.monotonic() - started
            if took < FAST:
                self.leaf_depth += 1
            elif took > SLOW and self.leaf_depth > 1:
                self.leaf_depth -= 1
            return leaves
        moves = options(ptr)
        if not moves:
            return 0
        child = c_void_p()
        check(tg.state_clone(ptr, byref(child)), "perft")
        try:
            leaves = 0
            for m in moves:
                check(tg.state_copy(child, ptr), "perft")
                check(tg.state_apply(child, m), "perft")
                leaves += self.count(child, depth - 1)
            return leaves
        finally:
            tg.state_free(child)


def perft(ptr: c_void_p, depth: int) -> int:
    return Perft().count(ptr, depth)


def playout(ptr: c_void_p, rng: c_uint64, max_plies: int, chunk: int = 256) -> int:
    """tg_state_playout in pieces of `chunk` plies (grown or shrunk by their time); the
    generator and the position end as after one call, as the playout keeps no state of its
    own between plies."""
    total = 0
    plies = c_size_t()
    while True:
        n = min(chunk, max_plies - total)
        started = time.monotonic()
        check(tg.state_playout(ptr, byref(rng), n, byref(plies)), "playout")
        took = time.monotonic() - started
        total += plies.value
        if plies.value < n or total >= max_plies:
            return total
        if took < FAST:
            chunk = min(chunk * 2, 1 << 20)
        elif took > SLOW:
            chunk = max(chunk // 2, 1)


SIZE_MAX = ctypes.c_size_t(-1).value
