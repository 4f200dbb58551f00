"""What a move did (stories), why a game ended (end reasons) and whole games as text
(records): tg_state_story, tg_state_end_reason and tg_state_record of the library's 0.4.

The functions here run on a pointer whose State's lock the caller holds.
"""

from __future__ import annotations

import ctypes
import enum
import re
from ctypes import byref, c_size_t, c_uint32, c_void_p
from dataclasses import dataclass
from typing import Iterable, List, Mapping, Optional, Tuple, Union

from ._catalogue import optional
from ._errors import Status, check, decode, fail, quote
from ._library import tg

_NONE = 0xFFFFFFFF  # UINT32_MAX: "this field does not apply"
EVENT_FIELDS = 4


class EventKind(enum.IntEnum):
    """tg_event_kind, value for value as in the header (appended only)."""

    LIFT = 1
    DROP = 2
    CAPTURE = 3
    RESOW = 4
    SCORE = 5
    PASS = 6
    THROW = 7
    MOVE_FROM = 8
    STEP = 9
    MOVE_TO = 10
    UNLOCK = 11
    KING = 12
    SPLIT = 13
    TAKE = 14
    THROWS_LOST = 15
    TURN = 16
    GATHER = 17
    ROUND_END = 18
    FILL = 19
    DEAD = 20
    ROUND_START = 21
    ENDLESS = 22
    ELISION = 23
    ELIDED_SOWN = 24
    SET = 25
    GAME_END = 26


class EndReason(enum.IntEnum):
    """tg_end_reason, value for value as in the header (appended only). .token is the
    library's lower-case name for it (tg_end_reason_name), the record's Termination."""

    NONE = 0
    UNKNOWN = 1
    NO_MOVE = 2
    EMPTY_ROW = 3
    STORE_SHORT = 4
    ALL_CAPTURED = 5
    ALL_ACROSS = 6
    BLOCKED = 7
    QUIET = 8
    ENDLESS = 9

    @property
    def token(self) -> str:
        """"no-move", "quiet", "endless", ... ("none" while the game runs)."""
        return reason_token(self.value)


def reason_token(value: int) -> str:
    return decode(optional("end_reason_name")(value))


@dataclass(frozen=True)
class Event:
    """One event of a story: what happened, where, how many, to or by whom.

    kind is an EventKind (a plain int for a kind newer than this package); cell is (row, col)
    or None; count and player are ints or None where the event has none (the C field's
    UINT32_MAX). docs/stories.md says what each kind means and does to the board.
    """

    kind: Union[EventKind, int]
    cell: Optional[Tuple[int, int]]
    count: Optional[int]
    player: Optional[int]


def _kind(value: int) -> Union[EventKind, int]:
    try:
        return EventKind(value)
    except ValueError:
        return value


def story(h: c_void_p, index: int) -> List[Event]:
    fn = optional("state_story")
    count = c_size_t()
    check(fn(h, index, None, 0, byref(count)), "story %s", index)
    n = count.value
    buf = (c_uint32 * max(n * EVENT_FIELDS, 1))()
    check(fn(h, index, buf, n, byref(count)), "story %s", index)
    cols = tg.rules_cols(tg.state_rules(h))
    raw = buf[:count.value * EVENT_FIELDS]
    events = []
    for i in range(0, len(raw), EVENT_FIELDS):
        kind, cell, num, player = raw[i:i + EVENT_FIELDS]
        events.append(Event(_kind(kind), None if cell == _NONE else divmod(cell, cols),
                            None if num == _NONE else num, None if player == _NONE else player))
    return events


def end_reason(h: c_void_p) -> EndReason:
    value: int = optional("state_end_reason")(h)
    try:
        return EndReason(value)
    except ValueError:  # a reason of a newer library than this package knows
        return EndReason.UNKNOWN


Tags = Union[Mapping[str, object], Iterable[Tuple[str, object]], None]
_TAG_NAME = re.compile(r"[A-Za-z0-9_]+\Z")
# The library writes these from the state itself.
RESERVED_TAGS = frozenset({"Rules", "Start", "Result", "Termination"})


def tag_lines(tags: Tags) -> Optional[bytes]:
    """`[Name "value"]` lines for the caller's tags, values escaped (\\ and \"). Checked here
    so that a bad tag is a ValueError naming it; the library checks them again."""
    if tags is None:
        return None
    pairs = tags.items() if isinstance(tags, Mapping) else tags
    lines = []
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or len(pair) != 2:
            raise TypeError("a tag is a (name, value) pair, not %s" % type(pair).__name__)
        name, value = pair
        if not isinstance(name, str) or not _TAG_NAME.match(name):
            raise ValueError("tag name %s is not letters, digits and '_'"
                             % quote(name))
        if name in RESERVED_TAGS:
            raise ValueError("tag %s comes from the state itself" % name)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise TypeError("tag %s: the value must be a str or an int, not %s"
                            % (name, type(value).__name__))
        text = str.__str__(value) if isinstance(value, str) else int.__repr__(value)
        if any(c in text for c in "\n\r\0"):
            raise ValueError("tag %s: a value cannot hold a line break or a NUL" % name)
        escaped = text.replace("\\", "\\\\").replace('"', '\\"')
        lines.append('[%s "%s"]' % (name, escaped))
    try:
        return "\n".join(lines).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a tag value holds a lone surrogate") from None


def record(h: c_void_p, tags: Optional[bytes]) -> str:
    fn = optional("state_record")
    needed = c_size_t()
    check(fn(h, tags, None, 0, byref(needed)), "record")
    buf = ctypes.create_string_buffer(needed.value + 1)
    check(fn(h, tags, buf, len(buf), None), "record")
    return decode(buf.value)


def from_record(data: bytes) -> c_void_p:
    ptr = c_void_p()
    st = optional("state_from_record")(data, byref(ptr))
    if st != Status.TG_OK:
        raise fail(st, "record %s", data.decode("utf-8", "surrogateescape"))
    return ptr
