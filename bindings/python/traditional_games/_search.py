"""Bot searches that Ctrl-C stops (tg_search of the library's 0.4), and the analysis of every
legal move.

A KeyboardInterrupt reaches Python only between C calls, and a search is one C call of up to
ten minutes (`search:time=600000`). So in the main thread the C call runs on a helper thread
while the main thread waits in short slices; on KeyboardInterrupt (or any exception) it asks
the search to stop (tg_search_stop, which makes it return its best move so far within
milliseconds), waits for the helper thread to finish and re-raises. The State stays locked
throughout, so nothing can free or change it while the helper thread reads it.

The functions here run on a pointer whose State's lock the caller holds.
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import byref, c_bool, c_double, c_size_t, c_uint32, c_uint64, c_void_p
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

from ._catalogue import optional
from ._egtb import CValue, EgtbStatus, ExactValue
from ._errors import check, decode
from ._handle import Closing, closed_error
from ._library import tg

# How often the waiting main thread looks up (a signal also wakes it at once), and how often
# it repeats a stop until the search has returned (a stop that races with the start of the
# search may be missed: the engine's documented advice is to repeat it).
WAIT_SLICE = 0.05
STOP_EVERY = 0.02


@dataclass(frozen=True)
class MoveAnalysis:
    """One legal move (or chance outcome) as the engine sees it, for the player to move.

    value: the expected result in [-1, 1] (1 a win, 0 a draw, -1 a loss); proven: the value
    is exact (the search saw every line to the end); line: the principal variation in
    notation, starting with this move (Tab's lines include throws, "throw:2"); exact: where
    an endgame database covers the analysed position, the move's exact value (its final
    margin: exact.describe() is "win by 4, exact"), else None.
    """

    move: int
    name: str
    value: float
    proven: bool
    line: Tuple[str, ...]
    exact: Optional[ExactValue] = None


def has_engine() -> bool:
    return tg.search_new is not None


class Search(Closing):
    """One tg_search handle: made from a bot spec, freed by close() (or `with`)."""

    def __init__(self, spec: bytes) -> None:
        self.ptr = c_void_p()
        check(optional("search_new")(spec, byref(self.ptr)), "bot %s",
              spec.decode("utf-8", "surrogateescape"))

    def close(self) -> None:
        if self.ptr:
            optional("search_free")(self.ptr)
            self.ptr = c_void_p()

    def _check_open(self) -> None:
        if not self.ptr:
            raise closed_error(self)

    def run(self, call: Callable[[], int]) -> int:
        """call() (a C search on this handle) so that Ctrl-C stops it: see the module's
        docstring. Outside the main thread no signal is delivered: it runs directly."""
        if threading.current_thread() is not threading.main_thread():
            return call()
        result: List[int] = []
        # The call's end is our own event, never Thread.join() or is_alive(): a
        # KeyboardInterrupt inside join() can leave the Thread marked stopped while it still
        # runs (CPython's _wait_for_tstate_lock releases the lock it was waiting for), and
        # then the handle and the State were freed under a search still reading them.
        done = threading.Event()
        gate = threading.Lock()
        phase = ["new"]  # new -> running, or new -> abandoned (the search never begins)

        def work() -> None:
            with gate:
                if phase[0] == "abandoned":
                    return
                phase[0] = "running"
            try:
                result.append(call())
            finally:
                done.set()

        worker = threading.Thread(target=work, daemon=True, name="traditional_games search")
        try:
            worker.start()
            while not done.wait(WAIT_SLICE):
                pass
        except BaseException:
            self._stop_and_wait(gate, phase, done)
            if phase[0] != "abandoned":
                worker.join()  # the C call has returned: only the thread's last steps are left
            raise
        worker.join()
        return result[0]

    def _stop_and_wait(self, gate: threading.Lock, phase: List[str],
                       done: threading.Event) -> None:
        """After an interrupt: a search not yet begun never begins; a running one is stopped
        (repeatedly, until it has returned)."""
        stop = optional("search_stop")
        while True:
            try:
                with gate:
                    if phase[0] == "new":
                        phase[0] = "abandoned"
                        return
                break
            except BaseException:  # a second Ctrl-C: the first one is re-raised
                continue
        while not done.is_set():
            try:
                stop(self.ptr)
                done.wait(STOP_EVERY)
            except BaseException:
                continue

    def choose(self, h: c_void_p, rng: c_uint64) -> int:
        out = c_uint32()
        fn = optional("search_choose")
        check(self.run(lambda: int(fn(self.ptr, h, byref(rng), byref(out)))), "bot choice")
        return out.value

    def analyse(self, h: c_void_p, rng: c_uint64,
                name: Callable[[int], str]) -> List[MoveAnalysis]:
        fn = optional("search_analyse")
        check(self.run(lambda: int(fn(self.ptr, h, byref(rng)))), "analyse")
        results = []
        move, value, proven = c_uint32(), c_double(), c_bool()
        needed = c_size_t()
        for i in range(optional("search_result_count")(self.ptr)):
            check(optional("search_result")(self.ptr, i, byref(move), byref(value),
                                            byref(proven)), "analyse")
            results.append(MoveAnalysis(move.value, name(move.value), value.value,
                                        bool(proven.value), self._line(i, needed),
                                        self._exact(i) if self.egtb_attached else None))
        return results

    egtb_attached = False

    def attach_egtb(self, db: c_void_p) -> None:
        """Makes the search consult an open database (tg_search_set_egtb): BadOption for a
        spec other than `search`."""
        check(optional("search_set_egtb")(self.ptr, db), "endgame database")
        self.egtb_attached = True

    def egtb_status(self) -> EgtbStatus:
        """What the attached database said in the last call (OK, or the first failure)."""
        return EgtbStatus(optional("search_egtb_status")(self.ptr))

    def _exact(self, i: int) -> Optional[ExactValue]:
        out, exact = CValue(), c_bool()
        check(optional("search_result_exact")(self.ptr, i, byref(out), byref(exact)),
              "analyse")
        return ExactValue.from_c(out) if exact.value else None

    def _line(self, i: int, needed: c_size_t) -> Tuple[str, ...]:
        fn = optional("search_result_line")
        check(fn(self.ptr, i, None, 0, byref(needed)), "analyse")
        buf = ctypes.create_string_buffer(needed.value + 1)
        check(fn(self.ptr, i, buf, len(buf), None), "analyse")
        return tuple(decode(buf.value).split())

    def stats(self) -> Tuple[int, int]:
        """(nodes or iterations, deepest completed depth) of the last search."""
        nodes, depth = c_uint64(), c_uint32()
        check(optional("search_stats")(self.ptr, byref(nodes), byref(depth)), "stats")
        return nodes.value, depth.value


def searching_spec(spec: bytes) -> bool:
    """The specs whose choice can take long (and so goes through a stoppable handle): the
    others (random, greedy) are one short call."""
    return spec.startswith((b"mcts", b"search"))


def choose(h: c_void_p, spec: bytes, rng: c_uint64) -> int:
    """The bot's move: through a stoppable tg_search where the library has one and the spec
    searches, else tg_bot_choose."""
    if has_engine() and searching_spec(spec):
        with Search(spec) as search:
            return search.choose(h, rng)
    out = c_uint32()
    check(optional("bot_choose")(h, spec, byref(rng), byref(out)), "bot %s",
          spec.decode("utf-8", "surrogateescape"))
    return out.value

