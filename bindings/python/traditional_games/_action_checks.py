"""What an action must be before it reaches the library: an integer in the action space.

An action outside the space (a float, NaN, a string, None, a bool, a negative or too large
number, a batch of the wrong shape) is the caller's mistake, refused here with an error that
names the value and, in a batch, the game, before anything changes. An action inside the
space that is not legal now is the game's to refuse: the library does that, game by game
(docs/learning.md)."""

from __future__ import annotations

from typing import Any, List

from ._errors import Status, TGError, as_int, error
from ._learning_lib import np, shown

SHOWN = 5  # bad actions named in one message; the rest are counted


def action_value(action: object, count: int) -> int:
    """`action` as an int in 0 .. count - 1, or TypeError / InvalidArgument naming it."""
    try:
        value = as_int(action, "an action")
    except TypeError:
        raise TypeError("action %s (%s) is not an action: actions are ints 0 .. %d"
                        % (shown(action), type(action).__name__, count - 1)) from None
    if not 0 <= value < count:
        raise error(Status.TG_ERR_INVALID_ARGUMENT,
                    "action %s (actions are 0 .. %d)" % (shown(value), count - 1))
    return value


def action_batch(actions: Any, n: int, count: int) -> Any:
    """`actions` as an (n,) numpy array of ints 0 .. count - 1. Otherwise TypeError (not
    ints), ValueError (not n of them) or InvalidArgument (out of range), naming each bad entry
    by its game."""
    if actions is None:
        raise TypeError("actions None: step() takes one action per game, %d ints 0 .. %d"
                        % (n, count - 1))
    # A list is read entry by entry (numpy would turn True into 1 and [0, 1.0] into floats
    # without a word); an array of ints is checked at once.
    batch = actions if isinstance(actions, np.ndarray) else np.asarray(actions, dtype=object)
    if batch.shape != (n,):
        raise ValueError("actions must have shape (%d,), one per game, not %s (%s)"
                         % (n, batch.shape, shown(actions)))
    kind = batch.dtype.kind
    if kind in "iu":
        bad = np.flatnonzero((batch < 0) | (batch >= count))
        if bad.size:
            raise error(Status.TG_ERR_INVALID_ARGUMENT,
                        _refusals(batch, bad, "out of range 0 .. %d" % (count - 1)))
        return batch
    if kind == "O":
        out = np.zeros(n, dtype=np.int64)
        not_ints: List[int] = []
        out_of_range: List[int] = []
        for i, value in enumerate(batch):
            try:
                out[i] = action_value(value, count)
            except TypeError:
                not_ints.append(i)
            except TGError:
                out_of_range.append(i)
        if not_ints:
            raise TypeError(_refusals(batch, not_ints, "actions are ints 0 .. %d" % (count - 1)))
        if out_of_range:
            raise error(Status.TG_ERR_INVALID_ARGUMENT,
                        _refusals(batch, out_of_range, "out of range 0 .. %d" % (count - 1)))
        return out
    what = {"b": "bools", "f": "floats", "c": "complex numbers", "U": "strings",
            "S": "bytes"}.get(kind, "of dtype %s" % batch.dtype)
    raise TypeError(_refusals(batch, range(n),
                              "actions are ints 0 .. %d, these are %s" % (count - 1, what)))


def _refusals(batch: Any, games: Any, why: str) -> str:
    games = [int(i) for i in games]
    named = ", ".join("game %d: %s" % (i, shown(batch[i].item() if batch.dtype.kind != "O"
                                                     else batch[i]))
                      for i in games[:SHOWN])
    more = " and %d more" % (len(games) - SHOWN) if len(games) > SHOWN else ""
    return "actions refused, nothing stepped (%s): %s%s" % (why, named, more)
