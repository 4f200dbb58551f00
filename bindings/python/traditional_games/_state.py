"""Game states (tg_state).

Every method converts and checks its arguments first, then takes the state's lock and pointer
(`with self._use as h`), and inside calls only the library and the package's own code: no
code of the caller's (an __index__, an __eq__, a __repr__) runs while the pointer is in use.
"""

from __future__ import annotations

import ctypes
import warnings
from ctypes import byref, c_double, c_size_t, c_uint32, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, SupportsIndex, Tuple, Union

from . import _chunked, _search, _story
from ._egtb import Egtb, EgtbStatus, status_text
from ._errors import ParseError, Status, as_int, check, decode, encode, fail
from ._handle import Handle, locked_pair
from ._learning_lib import StateLearning
from ._library import tg
from ._rng import Rng, RngArg, rng_arg
from ._rules import Rules

if TYPE_CHECKING:
    from ._library import TextFunction

CHANCE = -1
_MOVE_MAX = 0xFFFFFFFF
_SIZE_MAX = _chunked.SIZE_MAX

# Moves are ints or notation; an int is anything with __index__ (numpy integers too).
Move = Union[SupportsIndex, str, bytes]
RulesArg = Union[Rules, str, bytes]


def _rules_arg(rules: object) -> Tuple[Rules, bool]:
    """A Rules for a Rules or a spec, and whether it was made here (to be closed here)."""
    if isinstance(rules, (str, bytes)):
        return Rules(rules), True
    if isinstance(rules, Rules):
        return rules, False
    raise TypeError("rules must be a Rules or a spec string, not %s" % type(rules).__name__)


def _move_arg(move: object) -> Union[int, bytes]:
    """A move as an exact int, or as notation bytes to be read under the lock."""
    if isinstance(move, (str, bytes)):
        return encode(move, "move", Status.TG_ERR_PARSE)
    if isinstance(move, bool) or isinstance(move, float):
        raise TypeError("a move must be an int or a str, not %s" % type(move).__name__)
    try:
        return as_int(move, "move")
    except TypeError:
        raise TypeError("a move must be an int or a str, not %s"
                        % type(move).__name__) from None


def _parse_move(h: c_void_p, data: bytes) -> int:
    out = c_uint32()
    check(tg.move_from_string(h, data, byref(out)), "move %s", _text(data))
    return out.value


def _text(data: bytes) -> str:
    """Notation bytes back as the str the caller gave, for a message."""
    return data.decode("utf-8", "surrogateescape")


def _read_text(fn: TextFunction, h: c_void_p, context: str) -> str:
    """The buffer contract: measure with NULL/0, then write into a buffer of that size."""
    needed = c_size_t()
    check(fn(h, None, 0, byref(needed)), context)
    buf = ctypes.create_string_buffer(needed.value + 1)
    check(fn(h, buf, len(buf), None), context)
    return decode(buf.value)


def _moves(h: c_void_p) -> List[int]:
    cap = tg.rules_max_moves(tg.state_rules(h))
    count = c_size_t()
    buf = (c_uint32 * max(cap, 1))()
    st = tg.state_moves(h, buf, cap, byref(count))
    if st == Status.TG_ERR_BUFFER_TOO_SMALL:  # not expected: max_moves always suffices
        cap = count.value
        buf = (c_uint32 * max(cap, 1))()
        st = tg.state_moves(h, buf, cap, byref(count))
    check(st, "legal_moves")
    return list(buf[:count.value])


def _move_name(h: c_void_p, m: int) -> str:
    needed = c_size_t()
    check(tg.move_to_string(h, m, None, 0, byref(needed)), "move %s", m)
    buf = ctypes.create_string_buffer(needed.value + 1)
    check(tg.move_to_string(h, m, buf, len(buf), None), "move %s", m)
    return decode(buf.value)


def _apply(h: c_void_p, m: int, shown: object) -> None:
    if not 0 <= m <= _MOVE_MAX:  # not a tg_move: the status the library gives a bad move
        raise fail(Status.TG_ERR_GAME_OVER if tg.state_is_terminal(h)
                   else Status.TG_ERR_ILLEGAL_MOVE, "apply %s", shown)
    check(tg.state_apply(h, m), "apply %s", shown)


def _choose(h: c_void_p, data: bytes, gen: Rng) -> int:
    with gen._lock:
        return _search.choose(h, data, gen._c)


class State(Handle, StateLearning):
    """One position of one game plus its undo history (tg_state).

    State(rules) is the initial position (rules: a Rules or a spec string);
    State.from_string(rules, text) reads a position string. Release it with close() or a with
    block (also done when collected). Methods that fail raise TGError and leave the state as
    it was.

    A State may be used from several threads: each call holds the state's lock, so calls run
    one at a time and each sees the state another left (close() waits for a running call).
    copy.copy() and copy.deepcopy() are clone(); pickling stores the position string the undo
    history starts from and the moves of that history.
    """

    def __init__(self, rules: RulesArg = "halusa") -> None:
        super().__init__()
        self._rules: Optional[Rules] = None
        made, owned = _rules_arg(rules)
        try:
            ptr = c_void_p()
            with made._use as rp:
                check(tg.state_new(rp, byref(ptr)), "new state")
            self._own(ptr, tg.state_free)
        finally:
            if owned:
                made.close()
        if not owned:
            self._rules = made

    @classmethod
    def _wrap(cls, ptr: c_void_p, rules: Optional[Rules]) -> State:
        self = cls.__new__(cls)
        Handle.__init__(self)
        self._rules = rules
        self._own(ptr, tg.state_free)
        return self

    @classmethod
    def from_string(cls, rules: RulesArg, text: Union[str, bytes]) -> State:
        """A state from a position string (see docs/notation.md), with ply 0 and no history.
        rules is a Rules or a spec string; the string's own spec must name the same rule set
        (else RulesMismatch). Malformed or impossible positions raise ParseError."""
        if not isinstance(text, (str, bytes)):
            raise TypeError("position string must be str, not %s" % type(text).__name__)
        made, owned = _rules_arg(rules)
        try:
            data = encode(text, "position string", Status.TG_ERR_PARSE)
            ptr = c_void_p()
            with made._use as rp:
                check(tg.state_from_string(rp, data, byref(ptr)), "position string %s",
                      _text(data))
        finally:
            if owned:
                made.close()
        return cls._wrap(ptr, None if owned else made)

    # -- lifetime and copies ---------------------------------------------------------------

    def clone(self) -> State:
        """An independent copy: position, ply and undo history."""
        ptr = c_void_p()
        with self._use as h:
            check(tg.state_clone(h, byref(ptr)), "clone")
        return State._wrap(ptr, self._rules)

    def __copy__(self) -> State:
        return self.clone()

    def __deepcopy__(self, memo: Dict[int, Any]) -> State:
        return self.clone()

    def __reduce__(self) -> Tuple[Callable[[str, List[int]], State], Tuple[str, List[int]]]:
        # The C state has no byte form: the position the history starts from (a string) and
        # the history's moves rebuild the same position with the same undo history.
        with self._use:
            moves = self.history
            start = self.clone()
        with start:
            for _ in moves:
                start.undo()
            return (_unpickle_state, (start.to_string(), moves))

    def copy_from(self, other: State) -> None:
        """Overwrite this state with the position and ply of other (same rules, else
        RulesMismatch); the history of this state is cleared."""
        if not isinstance(other, State):
            raise TypeError("copy_from needs a State, not %s" % type(other).__name__)
        with locked_pair(self, other) as (h, o):
            check(tg.state_copy(h, o), "copy_from")

    # -- rules -----------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The Rules this state was made from (or an equal one, made on demand)."""
        rules = self._rules
        if rules is None or rules.closed:
            rules = self._rules = Rules(self.spec)
        return rules

    @property
    def spec(self) -> str:
        """The canonical spec of the state's own rule set."""
        with self._use as h:
            return decode(tg.rules_spec(tg.state_rules(h)))

    @property
    def game_id(self) -> str:
        with self._use as h:
            return decode(tg.rules_game_id(tg.state_rules(h)))

    @property
    def rows(self) -> int:
        with self._use as h:
            return tg.rules_rows(tg.state_rules(h))

    @property
    def cols(self) -> int:
        with self._use as h:
            return tg.rules_cols(tg.state_rules(h))

    # -- queries ---------------------------------------------------------------------------

    @property
    def player(self) -> int:
        """Who decides now: 0, 1, CHANCE (-1) or TERMINAL (-2)."""
        with self._use as h:
            return tg.state_player(h)

    @property
    def turn(self) -> int:
        """Whose turn it is, also at chance states: 0, 1, or TERMINAL when the game is over."""
        with self._use as h:
            return tg.state_turn(h)

    @property
    def is_terminal(self) -> bool:
        with self._use as h:
            return bool(tg.state_is_terminal(h))

    @property
    def is_chance(self) -> bool:
        return self.player == CHANCE

    @property
    def winner(self) -> int:
        """0 or 1, DRAW (-3), or NO_WINNER_YET (-4) while the game runs."""
        with self._use as h:
            return tg.state_winner(h)

    def score(self, player: SupportsIndex) -> int:
        """The score of player 0 or 1 (any int-like value: numpy integers too)."""
        p = as_int(player, "player")
        if p not in (0, 1):
            raise ValueError("player must be 0 or 1")
        with self._use as h:
            return tg.state_score(h, p)

    @property
    def scores(self) -> Tuple[int, int]:
        """(score of player 0, score of player 1)."""
        with self._use as h:
            return (tg.state_score(h, 0), tg.state_score(h, 1))

    @property
    def returns(self) -> Tuple[float, float]:
        """(return of player 0, of player 1): +1 win, -1 loss, 0 draw or running game."""
        out = (c_double * 2)()
        with self._use as h:
            check(tg.state_returns(h, out), "returns")
        return (out[0], out[1])

    @property
    def ply(self) -> int:
        """Moves applied since the initial position (chance outcomes and playouts included)."""
        with self._use as h:
            return tg.state_ply(h)

    @property
    def history(self) -> List[int]:
        """The moves undo() can take back, oldest first (list of int)."""
        with self._use as h:
            count = c_size_t()
            check(tg.state_history(h, None, 0, byref(count)), "history")
            n = count.value
            buf = (c_uint32 * max(n, 1))()
            check(tg.state_history(h, buf, n, byref(count)), "history")
            return list(buf[:count.value])

    @property
    def hash(self) -> int:
        """The 64-bit Zobrist hash of the position (not the history)."""
        with self._use as h:
            return tg.state_hash(h)

    def __eq__(self, other: object) -> bool:
        """Same position of the same rule set (ply and history are not compared)."""
        if not isinstance(other, State):
            return NotImplemented
        with locked_pair(self, other) as (h, o):
            return bool(tg.state_equal(h, o))

    __hash__ = None  # type: ignore[assignment]  # mutable: use .hash for the position's hash

    def _cell(self, fn: Callable[[c_void_p, int, int], int], row: SupportsIndex,
              col: SupportsIndex) -> int:
        r, c = as_int(row, "row"), as_int(col, "col")
        with self._use as h:
            rules = tg.state_rules(h)
            if not (0 <= r < tg.rules_rows(rules) and 0 <= c < tg.rules_cols(rules)):
                raise IndexError("cell (%d, %d) is off the board" % (r, c))
            return fn(h, r, c)

    def count(self, row: SupportsIndex, col: SupportsIndex) -> int:
        """Counters in a hole (mancala) or pieces on a cell (Tab)."""
        return self._cell(tg.state_count, row, col)

    def owner(self, row: SupportsIndex, col: SupportsIndex) -> int:
        """The player whose territory a hole is in (mancala), or the owner of a Tab cell's
        pieces (-1 if empty)."""
        return self._cell(tg.state_owner, row, col)

    def flags(self, row: SupportsIndex, col: SupportsIndex) -> int:
        """CELL_LOCKED / CELL_DEAD bits of a cell."""
        return self._cell(tg.state_flags, row, col)

    @property
    def board(self) -> List[List[int]]:
        """The counts as a list of rows, row 0 (player 0's side) first."""
        with self._use as h:
            rules = tg.state_rules(h)
            return [[tg.state_count(h, r, c) for c in range(tg.rules_cols(rules))]
                    for r in range(tg.rules_rows(rules))]

    # -- moves -----------------------------------------------------------------------------

    def legal_moves(self) -> List[int]:
        """The legal decisions of the player to move, ascending (empty at a chance state or
        a finished game)."""
        with self._use as h:
            return _moves(h)

    def legal_move_names(self) -> List[str]:
        """legal_moves() in notation."""
        with self._use as h:
            return [_move_name(h, m) for m in _moves(h)]

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        """At a chance state, [(outcome, probability), ...] ascending; else []."""
        with self._use as h:
            count = c_size_t()
            check(tg.state_chance(h, None, None, 0, byref(count)), "chance_outcomes")
            n = count.value
            if n == 0:
                return []
            moves = (c_uint32 * n)()
            probs = (c_double * n)()
            check(tg.state_chance(h, moves, probs, n, byref(count)), "chance_outcomes")
            return [(moves[i], probs[i]) for i in range(count.value)]

    def move_to_string(self, move: SupportsIndex) -> str:
        """A move (int) in this game's notation; InvalidArgument if it cannot be written."""
        if isinstance(move, float):
            raise TypeError("a move must be an int, not float")
        m = as_int(move, "move")
        if not 0 <= m <= _MOVE_MAX:
            raise fail(Status.TG_ERR_INVALID_ARGUMENT, "move %s is not a tg_move", m)
        with self._use as h:
            return _move_name(h, m)

    def move_from_string(self, text: Union[str, bytes]) -> int:
        """A move read from notation (not checked for legality); ParseError if malformed."""
        data = encode(text, "move", Status.TG_ERR_PARSE)
        with self._use as h:
            return _parse_move(h, data)

    def is_legal(self, move: Move) -> bool:
        """Whether apply(move) would be accepted now (False for unreadable move text)."""
        try:
            arg = _move_arg(move)
        except ParseError:  # a NUL or a lone surrogate: no move of any game
            return False
        with self._use as h:
            if isinstance(arg, bytes):
                out = c_uint32()
                if tg.move_from_string(h, arg, byref(out)) != Status.TG_OK:
                    return False
                arg = out.value
            return 0 <= arg <= _MOVE_MAX and bool(tg.state_is_legal(h, arg))

    def apply(self, move: Move) -> int:
        """Apply a decision, or an outcome at a chance state; move is an int or notation.
        Returns the move as an int. GameOver, IllegalMove or ParseError on failure."""
        arg = _move_arg(move)
        with self._use as h:
            if isinstance(arg, bytes):
                m = _parse_move(h, arg)
                _apply(h, m, _text(arg))
                return m
            _apply(h, arg, arg)
            return arg

    def undo(self) -> None:
        """Take back the last applied move exactly; NoHistory if there is none."""
        with self._use as h:
            check(tg.state_undo(h), "undo")

    def apply_random(self, rng: RngArg) -> None:
        """Apply one random move (a uniform decision, or an outcome by its probability),
        recorded for undo. rng: an Rng (advanced) or an int seed (a one-off generator)."""
        gen = rng_arg(rng)
        with self._use as h, gen._lock:
            check(tg.state_apply_random(h, byref(gen._c)), "apply_random")

    def playout(self, rng: RngArg, max_plies: Optional[SupportsIndex] = None) -> int:
        """Play random moves until the game ends or max_plies were made; returns the number
        made. The history is cleared (clone() first to keep it). Runs in pieces of a few
        milliseconds, so that Ctrl-C stops it promptly (the moves made stay made)."""
        gen = rng_arg(rng)
        if max_plies is None:
            limit = _SIZE_MAX
        else:
            if isinstance(max_plies, float):
                raise TypeError("max_plies must be an int")
            limit = as_int(max_plies, "max_plies")
            if not 0 <= limit <= _SIZE_MAX:
                raise ValueError("max_plies out of range")
        with self._use as h, gen._lock:
            return _chunked.playout(h, gen._c, limit)

    def perft(self, depth: SupportsIndex) -> int:
        """Leaves of the game tree depth moves below this state (chance nodes expand every
        outcome). Deep counts run as many short library calls, so that Ctrl-C stops them."""
        if isinstance(depth, float):
            raise TypeError("depth must be an int")
        d = as_int(depth, "depth")
        if not 0 <= d <= 0xFFFFFFFF:
            raise ValueError("depth out of range")
        with self._use as h:
            return _chunked.perft(h, d)

    def bot_choose(self, spec: Union[str, bytes], rng: RngArg) -> int:
        """The move a built-in bot ("random", "greedy", "mcts:iterations=N,c=X",
        "search:time=MS") chooses for the side to move (at a chance state: an outcome drawn by
        its probability). The state is not changed; rng advances. BadOption for a bad spec,
        GameOver if the game ended. Ctrl-C stops a search within milliseconds (raising
        KeyboardInterrupt)."""
        data = encode(spec, "bot spec", Status.TG_ERR_BAD_OPTION)
        gen = rng_arg(rng)
        with self._use as h:
            return _choose(h, data, gen)

    def analyse(self, spec: Union[str, bytes], rng: RngArg,
                egtb: Optional[Egtb] = None) -> List[_search.MoveAnalysis]:
        """Every legal move (at a chance state: every outcome) as the bot spec's engine sees
        it, best first: a list of frozen MoveAnalysis (move, name, value in [-1, 1] for the
        player to move, proven, line, exact). "search:nodes=N" or "search:depth=N" is
        deterministic; "search:time=MS" stops on time. Ctrl-C stops the search within
        milliseconds and raises KeyboardInterrupt. BadOption for a bad spec, GameOver if the
        game ended.

        egtb: an open Egtb the search consults (`search` specs only, else BadOption): covered
        positions are valued exactly, and a covered state gets every move's exact value
        (MoveAnalysis.exact). If the database fails (a missing or damaged file, another rule
        set) the search runs on without it and a RuntimeWarning says why."""
        data = encode(spec, "bot spec", Status.TG_ERR_BAD_OPTION)
        gen = rng_arg(rng)
        if egtb is not None and not isinstance(egtb, Egtb):
            raise TypeError("egtb must be an Egtb, not %s" % type(egtb).__name__)
        with self._use as h, gen._lock, _search.Search(data) as search:
            if egtb is None:
                return search.analyse(h, gen._c, lambda m: _move_name(h, m))
            with egtb._use as db:
                search.attach_egtb(db)
                results = search.analyse(h, gen._c, lambda m: _move_name(h, m))
                status = search.egtb_status()
            if status != EgtbStatus.OK:
                warnings.warn("endgame database not used: %s" % status_text(status),
                              RuntimeWarning, stacklevel=2)
            return results

    def play_bot(self, spec: Union[str, bytes], rng: RngArg) -> int:
        """bot_choose() then apply(), with no other thread's call between; returns the move
        played."""
        data = encode(spec, "bot spec", Status.TG_ERR_BAD_OPTION)
        gen = rng_arg(rng)
        with self._use as h:
            m = _choose(h, data, gen)
            _apply(h, m, m)
            return m

    # -- what happened: stories, end reasons, records -------------------------------------

    def story(self, index: SupportsIndex) -> List[_story.Event]:
        """What move `index` of the undo history did (0 is the oldest move `history` lists;
        negative counts from the newest, -1 being the last move): a list of frozen Event
        objects in the order they happened (docs/stories.md). IndexError past the history."""
        i = as_int(index, "index")
        with self._use as h:
            count = c_size_t()
            check(tg.state_history(h, None, 0, byref(count)), "story")
            n = count.value
            if not -n <= i < n:
                raise IndexError("story %d: the history has %d moves" % (i, n))
            return _story.story(h, i + n if i < 0 else i)

    @property
    def end_reason(self) -> _story.EndReason:
        """Why the game ended: an EndReason (EndReason.NONE while it runs; UNKNOWN also for a
        reason newer than this package); .token is the library's name for it ("no-move",
        "quiet", ...). Derived from the position, never stored."""
        with self._use as h:
            return _story.end_reason(h)

    def to_record(self, tags: _story.Tags = None) -> str:
        """The game as a record (docs/records.md): tag pairs, then the moves of the undo
        history in notation. tags: the caller's own tag pairs, a dict or a list of (name,
        value) pairs ({"Players": "Ann - Bo", "Date": "2026.12.01"}); values are escaped,
        names are letters, digits and '_', and the library's own Rules, Start, Result and
        Termination may not be given (ValueError)."""
        data = _story.tag_lines(tags)
        with self._use as h:
            return _story.record(h, data)

    @classmethod
    def from_record(cls, text: Union[str, bytes]) -> State:
        """A state read from a record, every move replayed and checked: the same position
        and the same undo history as the state that wrote it. ParseError if unreadable,
        IllegalMove if a move is not legal where it stands."""
        data = encode(text, "record", Status.TG_ERR_PARSE)
        return cls._wrap(_story.from_record(data), None)

    # -- text ------------------------------------------------------------------------------

    def to_string(self) -> str:
        """The position string: `SPEC BOARD TO_MOVE SCORE0,SCORE1[ FIELD=VALUE...]`."""
        with self._use as h:
            return _read_text(tg.state_to_string, h, "to_string")

    def render(self) -> str:
        """The board drawn for people (several lines; not for parsing)."""
        with self._use as h:
            return _read_text(tg.state_render, h, "render")

    def __str__(self) -> str:
        """The rendered board (render() without its final newline)."""
        return self.render().rstrip("\n")

    def __repr__(self) -> str:
        try:
            with self._use as h:
                return "<State %s ply=%d player=%d>" % (
                    _read_text(tg.state_to_string, h, "repr"), tg.state_ply(h),
                    tg.state_player(h))
        except ValueError:
            return "<State (closed)>"


def _unpickle_state(start: str, moves: List[int]) -> State:
    """The inverse of State.__reduce__: the start position's own spec names its rules."""
    state = State.from_string(start.split(" ", 1)[0], start)
    for m in moves:
        state.apply(m)
    return state

