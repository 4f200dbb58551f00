"""Status codes, the exceptions that carry them, and the text conversions that can fail."""

from __future__ import annotations

import enum
from typing import Dict, Optional, Tuple, Type, Union

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
}


def error(status: int, context: Optional[str] = None) -> TGError:
    """The exception for a status: its own subclass where there is one."""
    return _ERRORS.get(status, TGError)(status, context)


def check(status: int, context: Optional[str] = None) -> None:
    if status != 0:
        raise error(status, context)


def encode(text: Union[str, bytes], what: str, nul_status: int) -> bytes:
    """str -> bytes for a C string. A NUL inside would silently cut the text short in C, so it
    is reported with the status the library gives malformed text of that kind: callers need
    catch only TGError."""
    if isinstance(text, bytes):
        data = text
    elif isinstance(text, str):
        data = text.encode("utf-8", "surrogateescape")
    else:
        raise TypeError("%s must be str, not %s" % (what, type(text).__name__))
    if b"\0" in data:
        raise error(nul_status, "%s %r contains a NUL character" % (what, text))
    return data


def decode(data: Optional[bytes]) -> str:
    if data is None:  # a NULL const char *: never returned for arguments the package checks
        raise error(Status.TG_ERR_INVALID_ARGUMENT, "the library returned no text")
    return data.decode("utf-8", "replace")
