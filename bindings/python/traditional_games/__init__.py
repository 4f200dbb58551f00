"""Python bindings for libtraditional-games (ctypes over the C ABI, standard library only).

    import traditional_games as tg

    with tg.Rules("halusa") as rules, tg.State(rules) as state:
        rng = tg.Rng(1)
        while not state.is_terminal:
            state.play_bot("mcts:iterations=200" if state.turn == 0 else "random", rng)
        print(state)                    # the rendered board
        print(state.winner, state.scores)

The shared library is the one named by the environment variable TG_LIBRARY (a path) if it is
set; else the copy installed inside this package (a wheel or `pip install` puts it there);
else, in a source checkout, "libtraditional-games.so.0" through the loader's search path. If
none loads, importing this package raises LibraryNotFoundError (an ImportError).
library_path() says which was loaded, library_version() its version.

Every library call is checked: a status other than TG_OK raises TGError (or one of its
subclasses: IllegalMove, ParseError, ...) carrying the status in .status and its name in .name.
A call that fails changes nothing, as in the C library. Misuse on the Python side (a wrong
argument type, a handle used after close()) raises TypeError or ValueError.

Moves are ints (the library's tg_move) or strings in the game's notation ("c1", "pass",
"e2+3", "throw:4"). Random play and the bots take an Rng, a 64-bit generator state that
advances with each call: the same seed gives the same game on every platform.

Rules, State and Rng may be shared between threads, copied with the copy module and pickled;
docs/python.md says what each does.
"""

from ._catalogue import GameInfo, OptionInfo, check_bot, games
from ._egtb import Egtb, EgtbError, EgtbStatus, ExactValue
from ._errors import (BadOption, BufferTooSmall, Busy, GameOver, IllegalMove, InvalidArgument,
                      NoHistory, NoMemory, ParseError, RulesMismatch, Status, TGError,
                      UnknownGame)
from ._library import (LibraryNotFoundError, library_path, library_version,
                       library_version_number)
from ._rng import Rng
from ._rules import Rules
from ._state import State
from ._search import MoveAnalysis
from ._story import EndReason, Event, EventKind
from ._state import _unpickle_state
from ._version import __version__
from .learning import AECEnv as AECEnv, VectorEnv as VectorEnv  # docs/learning.md

# Constants of the header.
MOVE_PASS = 0xFFFFFFFE
PLAYER_0, PLAYER_1, CHANCE, TERMINAL = 0, 1, -1, -2
DRAW, NO_WINNER_YET = -3, -4
CELL_LOCKED, CELL_DEAD = 1, 2

__all__ = [
    "Status", "TGError", "InvalidArgument", "NoMemory", "UnknownGame", "BadOption",
    "IllegalMove", "ParseError", "BufferTooSmall", "NoHistory", "GameOver", "RulesMismatch",
    "Busy",
    "LibraryNotFoundError", "Rng", "Rules", "State", "GameInfo", "OptionInfo", "games",
    "library_version", "library_version_number", "library_path", "check_bot", "__version__",
    "MOVE_PASS", "PLAYER_0", "PLAYER_1", "CHANCE", "TERMINAL", "DRAW", "NO_WINNER_YET",
    "CELL_LOCKED", "CELL_DEAD", "Event", "EventKind", "EndReason", "MoveAnalysis",
    "Egtb", "EgtbError", "EgtbStatus", "ExactValue",
]

# Pickles and tracebacks name the public module, not the private one a class lives in, so
# that moving code between the private modules breaks no pickle.
for _public in (Status, TGError, InvalidArgument, NoMemory, UnknownGame, BadOption, IllegalMove,
                ParseError, BufferTooSmall, NoHistory, GameOver, RulesMismatch, Busy,
                MoveAnalysis, Egtb, EgtbError, EgtbStatus, ExactValue, LibraryNotFoundError, Rng, Rules, State, Event, EventKind, EndReason,
                GameInfo, OptionInfo, games, check_bot,
                library_path, library_version, library_version_number, _unpickle_state):
    _public.__module__ = __name__
del _public
