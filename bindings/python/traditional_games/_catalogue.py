"""The games the library knows and their options, and the bots' spec check."""

from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional, Tuple, Union

from ._errors import Status, check, decode, encode
from ._library import ADDED_IN, library_version, tg


class OptionInfo(NamedTuple):
    """One option of a game: its key, the accepted values as the library writes them
    ("last-mover|owner" or "0..1000") and its default ("last-mover")."""

    key: str
    values: str
    default: str

    @property
    def choices(self) -> Union[range, List[str]]:
        """The accepted values: a list of str for a choice list, a range for MIN..MAX."""
        if ".." in self.values and "|" not in self.values:
            lo, hi = self.values.split("..", 1)
            return range(int(lo), int(hi) + 1)
        return self.values.split("|")


class GameInfo(NamedTuple):
    """One game of the catalogue: id (for specs), display name, tuple of OptionInfo."""

    id: str
    name: str
    options: Tuple[OptionInfo, ...]


def games() -> List[GameInfo]:
    """The library's games, in catalogue order, as a list of GameInfo."""
    result = []
    for i in range(tg.game_count()):
        options = tuple(
            OptionInfo(decode(tg.game_option_key(i, k)), decode(tg.game_option_values(i, k)),
                       decode(tg.game_option_default(i, k)))
            for k in range(tg.game_option_count(i)))
        result.append(GameInfo(decode(tg.game_id(i)), decode(tg.game_name(i)), options))
    return result


def optional(name: str) -> Callable[..., Any]:
    """A C function newer than the oldest library the package loads; NotImplementedError if
    the loaded library lacks it."""
    fn: Optional[Callable[..., Any]] = getattr(tg, name)
    if fn is None:
        raise NotImplementedError("the loaded libtraditional-games %s has no tg_%s (added in %s)"
                                  % (library_version(), name, ADDED_IN.get(name, "0.4.0")))
    return fn


bot_function = optional


def check_bot(spec: Union[str, bytes]) -> None:
    """Validate a bot spec ("random", "greedy", "mcts:iterations=500,c=0.7"); BadOption if not."""
    data = encode(spec, "bot spec", Status.TG_ERR_BAD_OPTION)
    check(bot_function("bot_check")(data), "bot spec %s", spec)
