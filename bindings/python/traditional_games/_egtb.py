"""Endgame databases (tg-egtb.h, docs/egtb.md): the exact value of small Halusa and Walak-pussa
positions, read from the files `tools/tg-egtb build` writes.

    with tg.Rules("halusa") as rules, tg.Egtb("/var/lib/egtb/halusa", rules) as db:
        value = db.probe(state)         # None where the database does not cover the state
        if value is not None:
            print(value.describe())     # "win by 4, exact"

The library does every lookup; this module only carries its answers. An Egtb holds one C
reader (its own decompression context and block cache) used under the object's lock, so one
Egtb may be shared by threads (their probes take turns) and close() waits for a running probe.
"""

from __future__ import annotations

import contextlib
import enum
import os
from ctypes import Structure, byref, c_int, c_void_p
from dataclasses import dataclass
from typing import Iterator, Optional, Union

from ._catalogue import optional
from ._errors import as_int
from ._handle import Handle, locked_pair
from ._rules import Rules


class EgtbStatus(enum.IntEnum):
    """tg_egtb_status, value for value as in the header."""

    OK = 0
    BAD_ARGUMENT = 1
    UNSUPPORTED = 2
    NOT_IN_DATABASE = 3
    MISSING_FILE = 4
    DAMAGED = 5
    WRONG_RULES = 6
    IO_ERROR = 7
    NO_MEMORY = 8


class EgtbError(Exception):
    """A database call failed: .status is the EgtbStatus, .description the library's text for
    it ("database file damaged")."""

    status: EgtbStatus
    description: str

    def __init__(self, status: int, context: str) -> None:
        self.status = EgtbStatus(status)
        self.description = status_text(status)
        super().__init__("%s: %s (%s)" % (self.status.name, self.description, context))


def status_text(status: int) -> str:
    """The library's short English text for a database status (tg_egtb_status_string)."""
    text: bytes = optional("egtb_status_string")(status)
    return text.decode("utf-8", "replace")


class CValue(Structure):
    """tg_egtb_value."""

    _fields_ = [("outcome", c_int), ("endless", c_int), ("margin_to_go", c_int),
                ("final_margin", c_int)]


@dataclass(frozen=True)
class ExactValue:
    """The exact value of a position (or of a move) for the player to move.

    outcome: 1 a win, 0 a draw, -1 a loss; endless: an endless move one side is forced into
    decides the game (the margins are then 0); margin_to_go: counters the player gains over
    the opponent from here to the end; final_margin: the player's final score minus the
    opponent's (the banked difference plus margin_to_go).
    """

    outcome: int
    endless: bool
    margin_to_go: int
    final_margin: int

    @staticmethod
    def from_c(v: CValue) -> ExactValue:
        return ExactValue(int(v.outcome), bool(v.endless), int(v.margin_to_go),
                          int(v.final_margin))

    def describe(self) -> str:
        """In English, as the web board says it: "win by 4, exact", "draw, exact", "loss by an
        endless move, exact"."""
        word = {1: "win", 0: "draw", -1: "loss"}[self.outcome]
        if self.endless:
            return "%s by an endless move, exact" % word
        if self.outcome == 0:
            return "draw, exact"
        return "%s by %d, exact" % (word, abs(self.final_margin))


def _directory(directory: object) -> bytes:
    """A directory argument as the bytes C takes: TypeError for what is no path (os.fsencode
    takes str, bytes and os.PathLike), ValueError for a NUL, which would cut it short in C."""
    path = os.fsencode(directory)  # type: ignore[arg-type]  # checked by the call itself
    if b"\0" in path:
        raise ValueError("directory contains a NUL character")
    return path


@contextlib.contextmanager
def _rules_for(rules: object) -> Iterator[Rules]:
    """A rules argument as a Rules: itself, or one read from a spec string for the call and
    closed after it. TypeError for anything else; a bad spec is the library's error."""
    if isinstance(rules, Rules):
        yield rules
    elif isinstance(rules, str):
        with Rules(rules) as made:
            yield made
    else:
        raise TypeError("rules must be a Rules or a spec string, not %s" % type(rules).__name__)


def _count(value: object, what: str, most: int) -> int:
    """An int from 1 to `most`: TypeError for a bool, a float or a string, ValueError out of
    range."""
    number = as_int(value, what)
    if not 1 <= number <= most:
        shown = str(number) if number.bit_length() <= 64 else "a %d-bit number" % (
            number.bit_length())
        raise ValueError("%s must be 1 to %d, not %s" % (what, most, shown))
    return number


class Egtb(Handle):
    """An open directory of database files for one rule set (tg_egtb_open), with a reader.

    Egtb(directory, rules): rules a Rules or a spec ("halusa:quiet=100"). EgtbError if the
    rule set has no databases (UNSUPPORTED) or the directory cannot be read (IO_ERROR); a
    directory without files opens, and then covers nothing. Release it with close() or a
    with block (it is also released when collected).
    """

    def __init__(self, directory: Union[str, "os.PathLike[str]"],
                 rules: Union[Rules, str] = "halusa") -> None:
        super().__init__()
        path = _directory(directory)
        db, reader = c_void_p(), c_void_p()
        with _rules_for(rules) as owned:
            with owned._use as r:
                st = optional("egtb_open")(path, r, byref(db))
            if st != EgtbStatus.OK:
                raise EgtbError(st, os.fsdecode(path))
            st = optional("egtb_reader_new")(db, byref(reader))
            if st != EgtbStatus.OK:
                optional("egtb_close")(db)
                raise EgtbError(st, "reader")
        reader_free, close = optional("egtb_reader_free"), optional("egtb_close")
        self._reader = reader

        def release(ptr: c_void_p) -> None:
            reader_free(reader)
            close(ptr)

        self._own(db, release)

    @staticmethod
    def build(directory: Union[str, "os.PathLike[str]"], rules: Union[Rules, str],
              counters: int, threads: int = 1) -> None:
        """Writes the files for 1 to `counters` counters on the board into the existing
        `directory` (tg_egtb_build; files already there for the same rules are reused).
        EgtbError if the rules have no databases, a file cannot be written, or a file to
        reuse is damaged or of other rules. Before anything is built: TypeError for a count
        that is no int (a bool, a float, a string), rules that are neither a Rules nor a spec
        string, a directory that is no path; ValueError for a count out of range, a NUL in
        the directory, a closed Rules; the library's error for a bad spec."""
        counters = _count(counters, "counters", 72)
        threads = _count(threads, "threads", 256)
        path = _directory(directory)
        with _rules_for(rules) as owned, owned._use as r:
            st = optional("egtb_build")(r, path, counters, threads, None, None)
        if st != EgtbStatus.OK:
            raise EgtbError(st, "build %s" % os.fsdecode(path))

    @property
    def max_counters(self) -> int:
        """The largest number of counters on the board with a sound file (0 if none)."""
        with self._use as db:
            count: int = optional("egtb_max_counters")(db)
            return count

    def probe(self, state: object) -> Optional[ExactValue]:
        """The exact value of `state` for its player to move, or None if the database does
        not cover it (a finished game, more counters than the largest file). EgtbError for
        a state of another rule set (WRONG_RULES), a missing or damaged file."""
        from ._state import State  # _state imports this module for State.analyse

        if not isinstance(state, State):
            raise TypeError("probe() takes a State, not %s" % type(state).__name__)
        out = CValue()
        with locked_pair(self, state) as (_, s):
            st = optional("egtb_reader_probe")(self._reader, s, byref(out))
        if st == EgtbStatus.NOT_IN_DATABASE:
            return None
        if st != EgtbStatus.OK:
            raise EgtbError(st, "probe")
        return ExactValue.from_c(out)
