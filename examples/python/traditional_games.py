"""Pure-Python ctypes bindings for libtraditional-games (standard library only, Python 3.9+).

    import traditional_games as tg

    with tg.Rules("halusa") as rules, tg.State(rules) as state:
        rng = tg.Rng(1)
        while not state.is_terminal:
            state.play_bot("mcts:iterations=200" if state.turn == 0 else "random", rng)
        print(state)                    # the rendered board
        print(state.winner, state.scores)

The shared library is found through the environment variable TG_LIBRARY (a path to the .so)
if it is set, else ctypes.util.find_library("traditional-games"), else
"libtraditional-games.so.0" through the standard loader path. If none loads, importing this
module raises LibraryNotFoundError (an ImportError).

Every library call is checked: a status other than TG_OK raises TGError (or one of its
subclasses: IllegalMove, ParseError, ...) carrying the status in .status and its name in .name.
A call that fails changes nothing, as in the C library. Misuse on the Python side (a wrong
argument type, a handle used after close()) raises TypeError or ValueError.

Moves are ints (the library's tg_move) or strings in the game's notation ("c1", "pass",
"e2+3", "throw:4"). Random play and the bots take an Rng, a 64-bit generator state that
advances with each call: the same seed gives the same game on every platform.
"""

import ctypes
import ctypes.util
import enum
import os
from collections import namedtuple
from ctypes import (POINTER, byref, c_bool, c_char_p, c_double, c_int, c_size_t, c_uint,
                    c_uint32, c_uint64, c_void_p)

__all__ = [
    "Status", "TGError", "InvalidArgument", "NoMemory", "UnknownGame", "BadOption",
    "IllegalMove", "ParseError", "BufferTooSmall", "NoHistory", "GameOver", "RulesMismatch",
    "LibraryNotFoundError", "Rng", "Rules", "State", "GameInfo", "OptionInfo", "games",
    "library_version", "library_path", "check_bot",
    "MOVE_PASS", "PLAYER_0", "PLAYER_1", "CHANCE", "TERMINAL", "DRAW", "NO_WINNER_YET",
    "CELL_LOCKED", "CELL_DEAD",
]

# ----------------------------------------------------------------------------------------------
# Constants of the header.

MOVE_PASS = 0xFFFFFFFE
PLAYER_0, PLAYER_1, CHANCE, TERMINAL = 0, 1, -1, -2
DRAW, NO_WINNER_YET = -3, -4
CELL_LOCKED, CELL_DEAD = 1, 2

_MOVE_MAX = 0xFFFFFFFF
_U64_MASK = 0xFFFFFFFFFFFFFFFF
_SIZE_MAX = ctypes.c_size_t(-1).value
_SUPPORTED_MAJOR = 0


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


# ----------------------------------------------------------------------------------------------
# Loading the library.


class LibraryNotFoundError(ImportError):
    """The shared library could not be loaded, or is not a compatible version."""


def _load():
    tried = []
    env = os.environ.get("TG_LIBRARY")
    if env:
        # An explicit choice is honoured or reported, never silently replaced by another copy.
        try:
            return ctypes.CDLL(env), env
        except OSError as e:
            raise LibraryNotFoundError(
                "libtraditional-games: cannot load TG_LIBRARY=%r: %s" % (env, e)) from None
    candidates = []
    found = ctypes.util.find_library("traditional-games")
    if found:
        candidates.append(found)
    candidates.append("libtraditional-games.so.0")
    for name in candidates:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            tried.append("%s (%s)" % (name, e))
    raise LibraryNotFoundError(
        "libtraditional-games: shared library not found; set TG_LIBRARY to the path of "
        "libtraditional-games.so (tried: %s)" % "; ".join(tried))


_lib, _lib_path = _load()

_p = c_void_p
_pp = POINTER(c_void_p)
_u64p = POINTER(c_uint64)
_sizep = POINTER(c_size_t)
_movep = POINTER(c_uint32)

# name: (restype, argtypes). Every function this module calls is declared here.
_SIGNATURES = {
    "tg_status_string": (c_char_p, [c_int]),
    "tg_version": (c_uint, []),
    "tg_version_string": (c_char_p, []),
    "tg_game_count": (c_size_t, []),
    "tg_game_id": (c_char_p, [c_size_t]),
    "tg_game_name": (c_char_p, [c_size_t]),
    "tg_game_option_count": (c_size_t, [c_size_t]),
    "tg_game_option_key": (c_char_p, [c_size_t, c_size_t]),
    "tg_game_option_values": (c_char_p, [c_size_t, c_size_t]),
    "tg_game_option_default": (c_char_p, [c_size_t, c_size_t]),
    "tg_rules_new": (c_int, [c_char_p, _pp]),
    "tg_rules_free": (None, [_p]),
    "tg_rules_spec": (c_char_p, [_p]),
    "tg_rules_game_id": (c_char_p, [_p]),
    "tg_rules_rows": (c_int, [_p]),
    "tg_rules_cols": (c_int, [_p]),
    "tg_rules_max_moves": (c_size_t, [_p]),
    "tg_state_new": (c_int, [_p, _pp]),
    "tg_state_clone": (c_int, [_p, _pp]),
    "tg_state_copy": (c_int, [_p, _p]),
    "tg_state_free": (None, [_p]),
    "tg_state_rules": (_p, [_p]),
    "tg_state_player": (c_int, [_p]),
    "tg_state_turn": (c_int, [_p]),
    "tg_state_is_terminal": (c_bool, [_p]),
    "tg_state_winner": (c_int, [_p]),
    "tg_state_score": (c_int, [_p, c_int]),
    "tg_state_returns": (c_int, [_p, POINTER(c_double)]),
    "tg_state_ply": (c_size_t, [_p]),
    "tg_state_history": (c_int, [_p, _movep, c_size_t, _sizep]),
    "tg_state_moves": (c_int, [_p, _movep, c_size_t, _sizep]),
    "tg_state_chance": (c_int, [_p, _movep, POINTER(c_double), c_size_t, _sizep]),
    "tg_state_is_legal": (c_bool, [_p, c_uint32]),
    "tg_state_apply": (c_int, [_p, c_uint32]),
    "tg_state_undo": (c_int, [_p]),
    "tg_state_apply_random": (c_int, [_p, _u64p]),
    "tg_state_count": (c_int, [_p, c_int, c_int]),
    "tg_state_owner": (c_int, [_p, c_int, c_int]),
    "tg_state_flags": (c_uint, [_p, c_int, c_int]),
    "tg_move_to_string": (c_int, [_p, c_uint32, c_char_p, c_size_t, _sizep]),
    "tg_move_from_string": (c_int, [_p, c_char_p, _movep]),
    "tg_state_to_string": (c_int, [_p, c_char_p, c_size_t, _sizep]),
    "tg_state_from_string": (c_int, [_p, c_char_p, _pp]),
    "tg_state_render": (c_int, [_p, c_char_p, c_size_t, _sizep]),
    "tg_state_hash": (c_uint64, [_p]),
    "tg_state_equal": (c_bool, [_p, _p]),
    "tg_state_playout": (c_int, [_p, _u64p, c_size_t, _sizep]),
    "tg_perft": (c_uint64, [_p, c_uint]),
    # Added in 0.2.0 (symbol version TG_0.2): optional, so a 0.1 library still loads.
    "tg_bot_choose": (c_int, [_p, c_char_p, _u64p, _movep]),
    "tg_bot_check": (c_int, [c_char_p]),
}
_OPTIONAL = {"tg_bot_choose", "tg_bot_check"}


class _Api:
    pass


def _bind():
    api = _Api()
    missing = []
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            fn = getattr(_lib, name)
        except AttributeError:
            if name not in _OPTIONAL:
                missing.append(name)
            setattr(api, name[3:], None)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
        setattr(api, name[3:], fn)
    if missing:
        raise LibraryNotFoundError("libtraditional-games at %r lacks %s"
                                   % (_lib_path, ", ".join(missing)))
    major = api.version() // 10000
    if major != _SUPPORTED_MAJOR:
        raise LibraryNotFoundError(
            "libtraditional-games at %r is version %s; these bindings need major version %d"
            % (_lib_path, api.version_string().decode(), _SUPPORTED_MAJOR))
    return api


_tg = _bind()


def library_version():
    """The loaded library's version as text, e.g. "0.2.0"."""
    return _tg.version_string().decode("ascii")


def library_path():
    """The name or path the library was loaded from."""
    return _lib_path


# ----------------------------------------------------------------------------------------------
# Errors.


class TGError(Exception):
    """A library call returned a status other than TG_OK.

    .status is the Status (an int), .name its header name ("TG_ERR_ILLEGAL_MOVE"),
    .description the library's text for it (tg_status_string) and .context what was being done.
    """

    def __init__(self, status, context=None):
        try:
            status = Status(status)
            name = status.name
        except ValueError:
            name = "TG_STATUS_%d" % status
        self.status = status
        self.name = name
        self.description = _tg.status_string(int(status)).decode("utf-8", "replace")
        self.context = context
        msg = "%s: %s" % (name, self.description)
        if context:
            msg += " (%s)" % context
        super().__init__(msg)

    def __reduce__(self):
        return (_error, (int(self.status), self.context))


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
    """TG_ERR_BUFFER_TOO_SMALL (never expected: the bindings size their buffers)."""


class NoHistory(TGError):
    """TG_ERR_NO_HISTORY."""


class GameOver(TGError):
    """TG_ERR_GAME_OVER."""


class RulesMismatch(TGError):
    """TG_ERR_RULES_MISMATCH."""


_ERRORS = {
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


def _error(status, context=None):
    return _ERRORS.get(status, TGError)(status, context)


def _check(status, context=None):
    if status != 0:
        raise _error(status, context)


def _encode(text, what, nul_status):
    """str -> NUL-terminated bytes. A NUL inside cannot reach C: it is reported with the status
    the library gives malformed text of that kind, so callers need catch only TGError."""
    if isinstance(text, bytes):
        data = text
    elif isinstance(text, str):
        data = text.encode("utf-8", "surrogateescape")
    else:
        raise TypeError("%s must be str, not %s" % (what, type(text).__name__))
    if b"\0" in data:
        raise _error(nul_status, "%s %r contains a NUL character" % (what, text))
    return data


def _decode(data):
    return data.decode("utf-8", "replace")


def _read_text(fn, handle, context):
    """The buffer contract: measure with NULL/0, then write into a buffer of that size."""
    needed = c_size_t()
    _check(fn(handle, None, 0, byref(needed)), context)
    buf = ctypes.create_string_buffer(needed.value + 1)
    _check(fn(handle, buf, len(buf), None), context)
    return _decode(buf.value)


# ----------------------------------------------------------------------------------------------
# Random numbers.


class Rng:
    """A splitmix64 generator state (a C uint64_t), advanced by every call that draws from it.

    Rng(seed) with any int seed (taken modulo 2**64). Pass the same object to successive calls
    (apply_random, playout, bot_choose, play_bot) to continue one stream; the same seed gives
    the same sequence of draws, hence the same game, on every platform.
    """

    __slots__ = ("_c",)

    def __init__(self, seed=0):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError("seed must be an int, not %s" % type(seed).__name__)
        self._c = c_uint64(seed & _U64_MASK)

    @property
    def state(self):
        """The current generator state, an int in 0 .. 2**64-1."""
        return self._c.value

    @state.setter
    def state(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("state must be an int")
        self._c.value = value & _U64_MASK

    def copy(self):
        """An independent generator at the same state."""
        return Rng(self._c.value)

    def __repr__(self):
        return "Rng(0x%016x)" % self._c.value

    def __eq__(self, other):
        return isinstance(other, Rng) and other._c.value == self._c.value

    __hash__ = None


def _rng_arg(rng):
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return Rng(rng)  # a one-off generator: the caller sees no advance
    raise TypeError("rng must be an Rng or an int seed, not %s" % type(rng).__name__)


def _bot_fn(name):
    fn = getattr(_tg, name)
    if fn is None:
        raise NotImplementedError("the loaded libtraditional-games %s has no tg_%s (added in 0.2.0)"
                                  % (library_version(), name))
    return fn


def check_bot(spec):
    """Validate a bot spec ("random", "greedy", "mcts:iterations=500,c=0.7"); BadOption if not."""
    data = _encode(spec, "bot spec", Status.TG_ERR_BAD_OPTION)
    _check(_bot_fn("bot_check")(data), "bot spec %r" % (spec,))


# ----------------------------------------------------------------------------------------------
# Catalogue.


class OptionInfo(namedtuple("OptionInfo", "key values default")):
    """One option of a game: its key, the accepted values as the library writes them
    ("last-mover|owner" or "0..1000") and its default ("last-mover")."""

    __slots__ = ()

    @property
    def choices(self):
        """The accepted values: a list of str for a choice list, a range for MIN..MAX."""
        if ".." in self.values and "|" not in self.values:
            lo, hi = self.values.split("..", 1)
            return range(int(lo), int(hi) + 1)
        return self.values.split("|")


GameInfo = namedtuple("GameInfo", "id name options")
GameInfo.__doc__ = "One game of the catalogue: id (for specs), display name, tuple of OptionInfo."


def games():
    """The library's games, in catalogue order, as a list of GameInfo."""
    result = []
    for i in range(_tg.game_count()):
        options = tuple(
            OptionInfo(_decode(_tg.game_option_key(i, k)), _decode(_tg.game_option_values(i, k)),
                       _decode(_tg.game_option_default(i, k)))
            for k in range(_tg.game_option_count(i)))
        result.append(GameInfo(_decode(_tg.game_id(i)), _decode(_tg.game_name(i)), options))
    return result


# ----------------------------------------------------------------------------------------------
# Rule sets.


def _spec_nul_status(spec):
    data = spec.encode("utf-8", "surrogateescape") if isinstance(spec, str) else spec
    if isinstance(data, bytes) and b":" in data.split(b"\0", 1)[0]:
        return Status.TG_ERR_BAD_OPTION
    return Status.TG_ERR_UNKNOWN_GAME


class Rules:
    """An immutable rule set: one game with all its options (tg_rules).

    Rules("halusa"), Rules("hus:width=16"). Release it with close() or a with block (it is
    also released when collected). States made from it keep their own copy of the rules, so
    closing a Rules never invalidates a State.
    """

    def __init__(self, spec="halusa"):
        self._ptr = None
        data = _encode(spec, "rule spec", _spec_nul_status(spec))
        ptr = c_void_p()
        _check(_tg.rules_new(data, byref(ptr)), "rule spec %r" % (spec,))
        self._ptr = ptr

    games = staticmethod(games)

    def close(self, _free=_tg.rules_free):
        """Release the C rule set (once; later calls do nothing)."""
        ptr, self._ptr = self._ptr, None
        if ptr is not None:
            _free(ptr)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self):
        return self._ptr is None

    def _handle(self):
        if self._ptr is None:
            raise ValueError("operation on a closed Rules")
        return self._ptr

    @property
    def spec(self):
        """The canonical spec: the game id and every option, in the game's order."""
        return _decode(_tg.rules_spec(self._handle()))

    @property
    def game_id(self):
        return _decode(_tg.rules_game_id(self._handle()))

    @property
    def rows(self):
        return _tg.rules_rows(self._handle())

    @property
    def cols(self):
        return _tg.rules_cols(self._handle())

    @property
    def max_moves(self):
        """An upper bound on the legal moves or chance outcomes of any state."""
        return _tg.rules_max_moves(self._handle())

    def new_state(self):
        """The initial position of this rule set."""
        return State(self)

    def state_from_string(self, text):
        """A State read from a position string of this rule set."""
        return State.from_string(self, text)

    def __eq__(self, other):
        if not isinstance(other, Rules):
            return NotImplemented
        return self.spec == other.spec

    def __hash__(self):
        return hash(self.spec)

    def __repr__(self):
        if self._ptr is None:
            return "<Rules (closed)>"
        return "Rules(%r)" % self.spec


# ----------------------------------------------------------------------------------------------
# States.


def _move_arg_int(move):
    if isinstance(move, bool) or not isinstance(move, int):
        raise TypeError("a move must be an int or a str, not %s" % type(move).__name__)
    return move


class State:
    """One position of one game plus its undo history (tg_state).

    State(rules) is the initial position (rules: a Rules or a spec string);
    State.from_string(rules, text) reads a position string. Release it with close() or a with
    block (also done when collected). Methods that fail raise TGError and leave the state as
    it was.
    """

    def __init__(self, rules="halusa"):
        self._ptr = None
        self._rules = None
        owned = False
        if isinstance(rules, (str, bytes)):
            rules, owned = Rules(rules), True
        elif not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules or a spec string, not %s"
                            % type(rules).__name__)
        try:
            ptr = c_void_p()
            _check(_tg.state_new(rules._handle(), byref(ptr)), "new state")
            self._ptr = ptr
        finally:
            if owned:
                rules.close()
        if not owned:
            self._rules = rules

    @classmethod
    def _wrap(cls, ptr, rules):
        self = cls.__new__(cls)
        self._ptr = ptr
        self._rules = rules
        return self

    @classmethod
    def from_string(cls, rules, text):
        """A state from a position string (see docs/notation.md), with ply 0 and no history.
        rules is a Rules or a spec string; the string's own spec must name the same rule set
        (else RulesMismatch). Malformed or impossible positions raise ParseError."""
        owned = False
        if isinstance(rules, (str, bytes)):
            rules, owned = Rules(rules), True
        elif not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules or a spec string, not %s"
                            % type(rules).__name__)
        try:
            data = _encode(text, "position string", Status.TG_ERR_PARSE)
            ptr = c_void_p()
            _check(_tg.state_from_string(rules._handle(), data, byref(ptr)),
                   "position string %r" % (text,))
        finally:
            if owned:
                rules.close()
        return cls._wrap(ptr, None if owned else rules)

    # -- lifetime --------------------------------------------------------------------------

    def close(self, _free=_tg.state_free):
        """Release the C state (once; later calls do nothing)."""
        ptr, self._ptr = self._ptr, None
        if ptr is not None:
            _free(ptr)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self):
        return self._ptr is None

    def _handle(self):
        if self._ptr is None:
            raise ValueError("operation on a closed State")
        return self._ptr

    def clone(self):
        """An independent copy: position, ply and undo history."""
        ptr = c_void_p()
        _check(_tg.state_clone(self._handle(), byref(ptr)), "clone")
        return State._wrap(ptr, self._rules)

    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    def copy_from(self, other):
        """Overwrite this state with the position and ply of other (same rules, else
        RulesMismatch); the history of this state is cleared."""
        if not isinstance(other, State):
            raise TypeError("copy_from needs a State, not %s" % type(other).__name__)
        _check(_tg.state_copy(self._handle(), other._handle()), "copy_from")

    # -- rules -----------------------------------------------------------------------------

    @property
    def rules(self):
        """The Rules this state was made from (or an equal one, made on demand)."""
        if self._rules is None or self._rules.closed:
            self._rules = Rules(self.spec)
        return self._rules

    @property
    def spec(self):
        """The canonical spec of the state's own rule set."""
        return _decode(_tg.rules_spec(_tg.state_rules(self._handle())))

    @property
    def game_id(self):
        return _decode(_tg.rules_game_id(_tg.state_rules(self._handle())))

    @property
    def rows(self):
        return _tg.rules_rows(_tg.state_rules(self._handle()))

    @property
    def cols(self):
        return _tg.rules_cols(_tg.state_rules(self._handle()))

    # -- queries ---------------------------------------------------------------------------

    @property
    def player(self):
        """Who decides now: 0, 1, CHANCE (-1) or TERMINAL (-2)."""
        return _tg.state_player(self._handle())

    @property
    def turn(self):
        """Whose turn it is, also at chance states: 0, 1, or TERMINAL when the game is over."""
        return _tg.state_turn(self._handle())

    @property
    def is_terminal(self):
        return bool(_tg.state_is_terminal(self._handle()))

    @property
    def is_chance(self):
        return self.player == CHANCE

    @property
    def winner(self):
        """0 or 1, DRAW (-3), or NO_WINNER_YET (-4) while the game runs."""
        return _tg.state_winner(self._handle())

    def score(self, player):
        if player not in (0, 1) or isinstance(player, bool):
            raise ValueError("player must be 0 or 1")
        return _tg.state_score(self._handle(), player)

    @property
    def scores(self):
        """(score of player 0, score of player 1)."""
        h = self._handle()
        return (_tg.state_score(h, 0), _tg.state_score(h, 1))

    @property
    def returns(self):
        """(return of player 0, of player 1): +1 win, -1 loss, 0 draw or running game."""
        out = (c_double * 2)()
        _check(_tg.state_returns(self._handle(), out), "returns")
        return (out[0], out[1])

    @property
    def ply(self):
        """Moves applied since the initial position (chance outcomes and playouts included)."""
        return _tg.state_ply(self._handle())

    @property
    def history(self):
        """The moves undo() can take back, oldest first (list of int)."""
        h = self._handle()
        count = c_size_t()
        _check(_tg.state_history(h, None, 0, byref(count)), "history")
        n = count.value
        buf = (c_uint32 * max(n, 1))()
        _check(_tg.state_history(h, buf, n, byref(count)), "history")
        return list(buf[:count.value])

    @property
    def hash(self):
        """The 64-bit Zobrist hash of the position (not the history)."""
        return _tg.state_hash(self._handle())

    def __eq__(self, other):
        """Same position of the same rule set (ply and history are not compared)."""
        if not isinstance(other, State):
            return NotImplemented
        return bool(_tg.state_equal(self._handle(), other._handle()))

    __hash__ = None  # mutable: use .hash for the position's hash

    def _cell(self, row, col):
        for v in (row, col):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError("row and col must be ints")
        h = self._handle()
        rules = _tg.state_rules(h)
        if not (0 <= row < _tg.rules_rows(rules) and 0 <= col < _tg.rules_cols(rules)):
            raise IndexError("cell (%d, %d) is off the board" % (row, col))
        return h

    def count(self, row, col):
        """Counters in a hole (mancala) or pieces on a cell (Tab)."""
        return _tg.state_count(self._cell(row, col), row, col)

    def owner(self, row, col):
        """The player whose territory a hole is in (mancala), or the owner of a Tab cell's
        pieces (-1 if empty)."""
        return _tg.state_owner(self._cell(row, col), row, col)

    def flags(self, row, col):
        """CELL_LOCKED / CELL_DEAD bits of a cell."""
        return _tg.state_flags(self._cell(row, col), row, col)

    @property
    def board(self):
        """The counts as a list of rows, row 0 (player 0's side) first."""
        h = self._handle()
        rules = _tg.state_rules(h)
        return [[_tg.state_count(h, r, c) for c in range(_tg.rules_cols(rules))]
                for r in range(_tg.rules_rows(rules))]

    # -- moves -----------------------------------------------------------------------------

    def _max_moves(self, h):
        return _tg.rules_max_moves(_tg.state_rules(h))

    def legal_moves(self):
        """The legal decisions of the player to move, ascending (empty at a chance state or
        a finished game)."""
        h = self._handle()
        cap = self._max_moves(h)
        count = c_size_t()
        buf = (c_uint32 * max(cap, 1))()
        st = _tg.state_moves(h, buf, cap, byref(count))
        if st == Status.TG_ERR_BUFFER_TOO_SMALL:  # not expected: max_moves always suffices
            cap = count.value
            buf = (c_uint32 * max(cap, 1))()
            st = _tg.state_moves(h, buf, cap, byref(count))
        _check(st, "legal_moves")
        return list(buf[:count.value])

    def legal_move_names(self):
        """legal_moves() in notation."""
        return [self.move_to_string(m) for m in self.legal_moves()]

    def chance_outcomes(self):
        """At a chance state, [(outcome, probability), ...] ascending; else []."""
        h = self._handle()
        count = c_size_t()
        _check(_tg.state_chance(h, None, None, 0, byref(count)), "chance_outcomes")
        n = count.value
        if n == 0:
            return []
        moves = (c_uint32 * n)()
        probs = (c_double * n)()
        _check(_tg.state_chance(h, moves, probs, n, byref(count)), "chance_outcomes")
        return [(moves[i], probs[i]) for i in range(count.value)]

    def move_to_string(self, move):
        """A move (int) in this game's notation; InvalidArgument if it cannot be written."""
        move = _move_arg_int(move)
        h = self._handle()
        if not 0 <= move <= _MOVE_MAX:
            raise _error(Status.TG_ERR_INVALID_ARGUMENT, "move %d is not a tg_move" % move)
        needed = c_size_t()
        _check(_tg.move_to_string(h, move, None, 0, byref(needed)), "move %d" % move)
        buf = ctypes.create_string_buffer(needed.value + 1)
        _check(_tg.move_to_string(h, move, buf, len(buf), None), "move %d" % move)
        return _decode(buf.value)

    def move_from_string(self, text):
        """A move read from notation (not checked for legality); ParseError if malformed."""
        h = self._handle()
        data = _encode(text, "move", Status.TG_ERR_PARSE)
        out = c_uint32()
        _check(_tg.move_from_string(h, data, byref(out)), "move %r" % (text,))
        return out.value

    def _move(self, move):
        if isinstance(move, (str, bytes)):
            return self.move_from_string(move)
        return _move_arg_int(move)

    def is_legal(self, move):
        """Whether apply(move) would be accepted now (False for unreadable move text)."""
        h = self._handle()
        try:
            m = self._move(move)
        except ParseError:
            return False
        return 0 <= m <= _MOVE_MAX and bool(_tg.state_is_legal(h, m))

    def apply(self, move):
        """Apply a decision, or an outcome at a chance state; move is an int or notation.
        Returns the move as an int. GameOver, IllegalMove or ParseError on failure."""
        h = self._handle()
        m = self._move(move)
        if not 0 <= m <= _MOVE_MAX:  # not a tg_move: the status the library gives a bad move
            raise _error(Status.TG_ERR_GAME_OVER if _tg.state_is_terminal(h)
                         else Status.TG_ERR_ILLEGAL_MOVE, "apply %r" % (move,))
        _check(_tg.state_apply(h, m), "apply %r" % (move,))
        return m

    def undo(self):
        """Take back the last applied move exactly; NoHistory if there is none."""
        _check(_tg.state_undo(self._handle()), "undo")

    def apply_random(self, rng):
        """Apply one random move (a uniform decision, or an outcome by its probability),
        recorded for undo. rng: an Rng (advanced) or an int seed (a one-off generator)."""
        rng = _rng_arg(rng)
        _check(_tg.state_apply_random(self._handle(), byref(rng._c)), "apply_random")

    def playout(self, rng, max_plies=None):
        """Play random moves until the game ends or max_plies were made; returns the number
        made. The history is cleared (clone() first to keep it)."""
        rng = _rng_arg(rng)
        if max_plies is None:
            max_plies = _SIZE_MAX
        elif isinstance(max_plies, bool) or not isinstance(max_plies, int):
            raise TypeError("max_plies must be an int")
        elif not 0 <= max_plies <= _SIZE_MAX:
            raise ValueError("max_plies out of range")
        plies = c_size_t()
        _check(_tg.state_playout(self._handle(), byref(rng._c), max_plies, byref(plies)),
               "playout")
        return plies.value

    def perft(self, depth):
        """Leaves of the game tree depth moves below this state."""
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise TypeError("depth must be an int")
        if not 0 <= depth <= 0xFFFFFFFF:
            raise ValueError("depth out of range")
        return _tg.perft(self._handle(), depth)

    def bot_choose(self, spec, rng):
        """The move a built-in bot ("random", "greedy", "mcts:iterations=N,c=X") chooses for
        the side to move (at a chance state: an outcome drawn by its probability). The state
        is not changed; rng advances. BadOption for a bad spec, GameOver if the game ended."""
        fn = _bot_fn("bot_choose")
        h = self._handle()
        data = _encode(spec, "bot spec", Status.TG_ERR_BAD_OPTION)
        rng = _rng_arg(rng)
        out = c_uint32()
        _check(fn(h, data, byref(rng._c), byref(out)), "bot %r" % (spec,))
        return out.value

    def play_bot(self, spec, rng):
        """bot_choose() then apply(); returns the move played."""
        return self.apply(self.bot_choose(spec, rng))

    # -- text ------------------------------------------------------------------------------

    def to_string(self):
        """The position string: `SPEC BOARD TO_MOVE SCORE0,SCORE1[ FIELD=VALUE...]`."""
        return _read_text(_tg.state_to_string, self._handle(), "to_string")

    def render(self):
        """The board drawn for people (several lines; not for parsing)."""
        return _read_text(_tg.state_render, self._handle(), "render")

    def __str__(self):
        """The rendered board (render() without its final newline)."""
        return self.render().rstrip("\n")

    def __repr__(self):
        if self._ptr is None:
            return "<State (closed)>"
        return "<State %s ply=%d player=%d>" % (self.to_string(), self.ply, self.player)
