"""Status codes, the exceptions that carry them, and the text conversions that can fail."""

from __future__ import annotations

import enum
import operator
from typing import Callable, Dict, Optional, Tuple, Type, Union

from ._library import tg


class Status(enum.IntEnum):
    """tg_status, value for value as in the header."""

    TG_OK = 0
    TG_ERR_INVALID_ARGUMENT = 1
    TG_ERR_NO_MEMORY = 2
    TG_ERR_UNKNOWN_GAME = 3
    TG_ERR_BAD_OPTION = 4
    TG_ERR_ILLEGAL_MOVE = 5
    TG_ERR_PARSE = 6
    TG_ERR_BUFFER_TOO_SMALL = 7
    TG_ERR_NO_HISTORY = 8
    TG_ERR_GAME_OVER = 9
    TG_ERR_RULES_MISMATCH = 10
    TG_ERR_BUSY = 11


class TGError(Exception):
    """A library call returned a status other than TG_OK.

    .status is the Status (an int), .name its header name ("TG_ERR_ILLEGAL_MOVE"),
    .description the library's text for it (tg_status_string) and .context what was being done.
    """

    status: Union[Status, int]
    name: str
    description: str
    context: Optional[str]

    def __init__(self, status: int, context: Optional[str] = None) -> None:
        code: Union[Status, int]
        try:
            code = Status(status)
            name = code.name
        except ValueError:
            code = int(status)
            name = "TG_STATUS_%d" % code
        self.status = code
        self.name = name
        self.description = tg.status_string(int(code)).decode("utf-8", "replace")
        self.context = context
        msg = "%s: %s" % (name, self.description)
        if context:
            msg += " (%s)" % context
        super().__init__(msg)

    def __reduce__(self) -> Tuple[Type[TGError], Tuple[int, Optional[str]]]:
        # Every subclass takes (status, context), as TGError does.
        return (type(self), (int(self.status), self.context))


class InvalidArgument(TGError):
    """TG_ERR_INVALID_ARGUMENT."""


class NoMemory(TGError, MemoryError):
    """TG_ERR_NO_MEMORY."""


class UnknownGame(TGError):
    """TG_ERR_UNKNOWN_GAME."""


class BadOption(TGError):
    """TG_ERR_BAD_OPTION (a rule spec or a bot spec)."""


class IllegalMove(TGError):
    """TG_ERR_ILLEGAL_MOVE."""


class ParseError(TGError):
    """TG_ERR_PARSE."""


class BufferTooSmall(TGError):
    """TG_ERR_BUFFER_TOO_SMALL (never expected: the package sizes its buffers)."""


class NoHistory(TGError):
    """TG_ERR_NO_HISTORY."""


class GameOver(TGError):
    """TG_ERR_GAME_OVER."""


class RulesMismatch(TGError):
    """TG_ERR_RULES_MISMATCH."""


class Busy(TGError):
    """TG_ERR_BUSY (a search handle already running a search: never expected, as the package
    makes one handle per call)."""


_ERRORS: Dict[int, Type[TGError]] = {
    Status.TG_ERR_INVALID_ARGUMENT: InvalidArgument,
    Status.TG_ERR_NO_MEMORY: NoMemory,
    Status.TG_ERR_UNKNOWN_GAME: UnknownGame,
    Status.TG_ERR_BAD_OPTION: BadOption,
    Status.TG_ERR_ILLEGAL_MOVE: IllegalMove,
    Status.TG_ERR_PARSE: ParseError,
    Status.TG_ERR_BUFFER_TOO_SMALL: BufferTooSmall,
    Status.TG_ERR_NO_HISTORY: NoHistory,
    Status.TG_ERR_GAME_OVER: GameOver,
    Status.TG_ERR_RULES_MISMATCH: RulesMismatch,
    Status.TG_ERR_BUSY: Busy,
}


def error(status: int, context: Optional[str] = None) -> TGError:
    """The exception for a status: its own subclass where there is one."""
    return _ERRORS.get(status, TGError)(status, context)


# How much of a caller's text an error message quotes: a 50 MB move string must not become a
# 50 MB message.
QUOTE_LIMIT = 200


def exact(text: Union[str, bytes]) -> Union[str, bytes]:
    """A plain str or bytes with the same contents: no method of a subclass runs later."""
    if isinstance(text, str):
        return text if type(text) is str else str.__str__(text)
    return text if type(text) is bytes else bytes.__getitem__(text, slice(None))


def quote(value: object) -> str:
    """repr() of a value for an error message, cut to QUOTE_LIMIT characters of its text.
    Subclasses are shown by their base type's repr: their own methods are the caller's code."""
    if isinstance(value, (str, bytes)):
        text = exact(value)
        if len(text) > QUOTE_LIMIT:
            return "%r... (%d %s)" % (text[:QUOTE_LIMIT], len(text),
                                      "characters" if isinstance(text, str) else "bytes")
        return repr(text)
    if isinstance(value, int):
        return int.__repr__(value)
    return "<%s>" % type(value).__name__


def describe(fmt: str, args: Tuple[object, ...]) -> str:
    """The context of an error: fmt with each argument quoted. Only a failure calls it."""
    return fmt % tuple(quote(a) for a in args)


def check(status: int, fmt: Optional[str] = None, *args: object) -> None:
    """Raise the exception for a status other than TG_OK; the message is built only then."""
    if status != 0:
        raise error(status, None if fmt is None else describe(fmt, args))


def fail(status: int, fmt: str, *args: object) -> TGError:
    """The exception for a status the package decides itself, with a quoted context."""
    return error(status, describe(fmt, args))


def encode(text: object, what: str, bad_status: Union[int, Callable[[], int]]) -> bytes:
    """str -> bytes for a C string. A NUL inside would silently cut the text short in C, so it
    is reported with the status the library gives malformed text of that kind, as is a lone
    surrogate (text no C string can hold): callers need catch only TGError."""
    if isinstance(text, bytes):
        data = exact(text)
        assert isinstance(data, bytes)
    elif isinstance(text, str):
        try:
            # surrogateescape: a str that came from bytes (os.fsdecode) goes back unchanged.
            data = str.encode(text, "utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise fail(_status_of(bad_status), what + " %s is not encodable text (a lone "
                       "surrogate)", text) from None
    else:
        raise TypeError("%s must be str, not %s" % (what, type(text).__name__))
    if b"\0" in data:
        raise fail(_status_of(bad_status), what + " %s contains a NUL character", text)
    return data


def _status_of(status: Union[int, Callable[[], int]]) -> int:
    return status if isinstance(status, int) else status()


def as_int(value: object, what: str) -> int:
    """An exact int from any integer-like value (int, numpy.int64, anything with __index__),
    but not a bool or a float. Called before a lock is taken: __index__ is the caller's code."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or (type(value).__module__ == "numpy"
                                   and type(value).__name__ in ("bool_", "bool")):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    try:
        index = operator.index(value)  # type: ignore[arg-type]  # checked by the call itself
    except TypeError:
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__)) from None
    # An int subclass (or an __index__ that returns one) becomes a plain int: no code of the
    # caller's runs later, inside a call.
    return int.__index__(index)


def decode(data: Optional[bytes]) -> str:
    if data is None:  # a NULL const char *: never returned for arguments the package checks
        raise error(Status.TG_ERR_INVALID_ARGUMENT, "the library returned no text")
    return data.decode("utf-8", "replace")
