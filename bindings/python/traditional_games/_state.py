"""Game states (tg_state)."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_double, c_size_t, c_uint32, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Union

from ._catalogue import bot_function
from ._errors import ParseError, Status, check, decode, encode, error
from ._handle import Handle, locked_pair
from ._learning_lib import StateLearning
from ._library import tg
from ._rng import Rng, rng_arg
from ._rules import Rules

if TYPE_CHECKING:
    from ._library import TextFunction

CHANCE = -1
_MOVE_MAX = 0xFFFFFFFF
_SIZE_MAX = ctypes.c_size_t(-1).value

Move = Union[int, str, bytes]
RulesArg = Union[Rules, str, bytes]


def _move_int(move: object) -> int:
    if isinstance(move, bool) or not isinstance(move, int):
        raise TypeError("a move must be an int or a str, not %s" % type(move).__name__)
    return move


def _rules_arg(rules: object) -> Tuple[Rules, bool]:
    """A Rules for a Rules or a spec, and whether it was made here (to be closed here)."""
    if isinstance(rules, (str, bytes)):
        return Rules(rules), True
    if isinstance(rules, Rules):
        return rules, False
    raise TypeError("rules must be a Rules or a spec string, not %s" % type(rules).__name__)


def _read_text(fn: TextFunction, handle: c_void_p, context: str) -> str:
    """The buffer contract: measure with NULL/0, then write into a buffer of that size."""
    needed = c_size_t()
    check(fn(handle, None, 0, byref(needed)), context)
    buf = ctypes.create_string_buffer(needed.value + 1)
    check(fn(handle, buf, len(buf), None), context)
    return decode(buf.value)


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
            with made._lock:
                check(tg.state_new(made._handle(), byref(ptr)), "new state")
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
        made, owned = _rules_arg(rules)
        try:
            data = encode(text, "position string", Status.TG_ERR_PARSE)
            ptr = c_void_p()
            with made._lock:
                check(tg.state_from_string(made._handle(), data, byref(ptr)),
                      "position string %r" % (text,))
        finally:
            if owned:
                made.close()
        return cls._wrap(ptr, None if owned else made)

    # -- lifetime and copies ---------------------------------------------------------------

    def __enter__(self) -> State:
        with self._lock:
            self._handle()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def clone(self) -> State:
        """An independent copy: position, ply and undo history."""
        with self._lock:
            ptr = c_void_p()
            check(tg.state_clone(self._handle(), byref(ptr)), "clone")
            return State._wrap(ptr, self._rules)

    def __copy__(self) -> State:
        return self.clone()

    def __deepcopy__(self, memo: Dict[int, Any]) -> State:
        return self.clone()

    def __reduce__(self) -> Tuple[Callable[[str, List[int]], State], Tuple[str, List[int]]]:
        # The C state has no byte form: the position the history starts from (a string) and
        # the history's moves rebuild the same position with the same undo history.
        with self._lock:
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
        with locked_pair(self, other):
            check(tg.state_copy(self._handle(), other._handle()), "copy_from")

    # -- rules -----------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The Rules this state was made from (or an equal one, made on demand)."""
        rules = self._rules
        if rules is None or rules.closed:
            rules = self._rules = Rules(self.spec)
        return rules

    def _rules_ptr(self) -> Optional[int]:
        return tg.state_rules(self._handle())

    @property
    def spec(self) -> str:
        """The canonical spec of the state's own rule set."""
        with self._lock:
            return decode(tg.rules_spec(self._rules_ptr()))

    @property
    def game_id(self) -> str:
        with self._lock:
            return decode(tg.rules_game_id(self._rules_ptr()))

    @property
    def rows(self) -> int:
        with self._lock:
            return tg.rules_rows(self._rules_ptr())

    @property
    def cols(self) -> int:
        with self._lock:
            return tg.rules_cols(self._rules_ptr())

    # -- queries ---------------------------------------------------------------------------

    @property
    def player(self) -> int:
        """Who decides now: 0, 1, CHANCE (-1) or TERMINAL (-2)."""
        with self._lock:
            return tg.state_player(self._handle())

    @property
    def turn(self) -> int:
        """Whose turn it is, also at chance states: 0, 1, or TERMINAL when the game is over."""
        with self._lock:
            return tg.state_turn(self._handle())

    @property
    def is_terminal(self) -> bool:
        with self._lock:
            return bool(tg.state_is_terminal(self._handle()))

    @property
    def is_chance(self) -> bool:
        return self.player == CHANCE

    @property
    def winner(self) -> int:
        """0 or 1, DRAW (-3), or NO_WINNER_YET (-4) while the game runs."""
        with self._lock:
            return tg.state_winner(self._handle())

    def score(self, player: int) -> int:
        if isinstance(player, bool) or player not in (0, 1):
            raise ValueError("player must be 0 or 1")
        with self._lock:
            return tg.state_score(self._handle(), player)

    @property
    def scores(self) -> Tuple[int, int]:
        """(score of player 0, score of player 1)."""
        with self._lock:
            h = self._handle()
            return (tg.state_score(h, 0), tg.state_score(h, 1))

    @property
    def returns(self) -> Tuple[float, float]:
        """(return of player 0, of player 1): +1 win, -1 loss, 0 draw or running game."""
        out = (c_double * 2)()
        with self._lock:
            check(tg.state_returns(self._handle(), out), "returns")
        return (out[0], out[1])

    @property
    def ply(self) -> int:
        """Moves applied since the initial position (chance outcomes and playouts included)."""
        with self._lock:
            return tg.state_ply(self._handle())

    @property
    def history(self) -> List[int]:
        """The moves undo() can take back, oldest first (list of int)."""
        with self._lock:
            h = self._handle()
            count = c_size_t()
            check(tg.state_history(h, None, 0, byref(count)), "history")
            n = count.value
            buf = (c_uint32 * max(n, 1))()
            check(tg.state_history(h, buf, n, byref(count)), "history")
            return list(buf[:count.value])

    @property
    def hash(self) -> int:
        """The 64-bit Zobrist hash of the position (not the history)."""
        with self._lock:
            return tg.state_hash(self._handle())

    def __eq__(self, other: object) -> bool:
        """Same position of the same rule set (ply and history are not compared)."""
        if not isinstance(other, State):
            return NotImplemented
        with locked_pair(self, other):
            return bool(tg.state_equal(self._handle(), other._handle()))

    __hash__ = None  # type: ignore[assignment]  # mutable: use .hash for the position's hash

    def _cell(self, row: int, col: int) -> c_void_p:
        """The handle, for a caller that holds the lock, once (row, col) is on the board."""
        for v in (row, col):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError("row and col must be ints")
        h = self._handle()
        rules = tg.state_rules(h)
        if not (0 <= row < tg.rules_rows(rules) and 0 <= col < tg.rules_cols(rules)):
            raise IndexError("cell (%d, %d) is off the board" % (row, col))
        return h

    def count(self, row: int, col: int) -> int:
        """Counters in a hole (mancala) or pieces on a cell (Tab)."""
        with self._lock:
            return tg.state_count(self._cell(row, col), row, col)

    def owner(self, row: int, col: int) -> int:
        """The player whose territory a hole is in (mancala), or the owner of a Tab cell's
        pieces (-1 if empty)."""
        with self._lock:
            return tg.state_owner(self._cell(row, col), row, col)

    def flags(self, row: int, col: int) -> int:
        """CELL_LOCKED / CELL_DEAD bits of a cell."""
        with self._lock:
            return tg.state_flags(self._cell(row, col), row, col)

    @property
    def board(self) -> List[List[int]]:
        """The counts as a list of rows, row 0 (player 0's side) first."""
        with self._lock:
            h = self._handle()
            rules = tg.state_rules(h)
            return [[tg.state_count(h, r, c) for c in range(tg.rules_cols(rules))]
                    for r in range(tg.rules_rows(rules))]

    # -- moves -----------------------------------------------------------------------------

    def legal_moves(self) -> List[int]:
        """The legal decisions of the player to move, ascending (empty at a chance state or
        a finished game)."""
        with self._lock:
            h = self._handle()
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

    def legal_move_names(self) -> List[str]:
        """legal_moves() in notation."""
        with self._lock:
            return [self.move_to_string(m) for m in self.legal_moves()]

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        """At a chance state, [(outcome, probability), ...] ascending; else []."""
        with self._lock:
            h = self._handle()
            count = c_size_t()
            check(tg.state_chance(h, None, None, 0, byref(count)), "chance_outcomes")
            n = count.value
            if n == 0:
                return []
            moves = (c_uint32 * n)()
            probs = (c_double * n)()
            check(tg.state_chance(h, moves, probs, n, byref(count)), "chance_outcomes")
            return [(moves[i], probs[i]) for i in range(count.value)]

    def move_to_string(self, move: int) -> str:
        """A move (int) in this game's notation; InvalidArgument if it cannot be written."""
        m = _move_int(move)
        if not 0 <= m <= _MOVE_MAX:
            raise error(Status.TG_ERR_INVALID_ARGUMENT, "move %d is not a tg_move" % m)
        with self._lock:
            h = self._handle()
            needed = c_size_t()
            check(tg.move_to_string(h, m, None, 0, byref(needed)), "move %d" % m)
            buf = ctypes.create_string_buffer(needed.value + 1)
            check(tg.move_to_string(h, m, buf, len(buf), None), "move %d" % m)
            return decode(buf.value)

    def move_from_string(self, text: Union[str, bytes]) -> int:
        """A move read from notation (not checked for legality); ParseError if malformed."""
        data = encode(text, "move", Status.TG_ERR_PARSE)
        out = c_uint32()
        with self._lock:
            check(tg.move_from_string(self._handle(), data, byref(out)), "move %r" % (text,))
        return out.value

    def _move(self, move: Move) -> int:
        if isinstance(move, (str, bytes)):
            return self.move_from_string(move)
        return _move_int(move)

    def is_legal(self, move: Move) -> bool:
        """Whether apply(move) would be accepted now (False for unreadable move text)."""
        with self._lock:
            h = self._handle()
            try:
                m = self._move(move)
            except ParseError:
                return False
            return 0 <= m <= _MOVE_MAX and bool(tg.state_is_legal(h, m))

    def apply(self, move: Move) -> int:
        """Apply a decision, or an outcome at a chance state; move is an int or notation.
        Returns the move as an int. GameOver, IllegalMove or ParseError on failure."""
        with self._lock:
            h = self._handle()
            m = self._move(move)
            if not 0 <= m <= _MOVE_MAX:  # not a tg_move: the status the library gives a bad move
                raise error(Status.TG_ERR_GAME_OVER if tg.state_is_terminal(h)
                            else Status.TG_ERR_ILLEGAL_MOVE, "apply %r" % (move,))
            check(tg.state_apply(h, m), "apply %r" % (move,))
            return m

    def undo(self) -> None:
        """Take back the last applied move exactly; NoHistory if there is none."""
        with self._lock:
            check(tg.state_undo(self._handle()), "undo")

    def apply_random(self, rng: Union[Rng, int]) -> None:
        """Apply one random move (a uniform decision, or an outcome by its probability),
        recorded for undo. rng: an Rng (advanced) or an int seed (a one-off generator)."""
        gen = rng_arg(rng)
        with self._lock, gen._lock:
            check(tg.state_apply_random(self._handle(), byref(gen._c)), "apply_random")

    def playout(self, rng: Union[Rng, int], max_plies: Optional[int] = None) -> int:
        """Play random moves until the game ends or max_plies were made; returns the number
        made. The history is cleared (clone() first to keep it)."""
        gen = rng_arg(rng)
        if max_plies is None:
            max_plies = _SIZE_MAX
        elif isinstance(max_plies, bool) or not isinstance(max_plies, int):
            raise TypeError("max_plies must be an int")
        elif not 0 <= max_plies <= _SIZE_MAX:
            raise ValueError("max_plies out of range")
        plies = c_size_t()
        with self._lock, gen._lock:
            check(tg.state_playout(self._handle(), byref(gen._c), max_plies, byref(plies)),
                  "playout")
        return plies.value

    def perft(self, depth: int) -> int:
        """Leaves of the game tree depth moves below this state."""
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise TypeError("depth must be an int")
        if not 0 <= depth <= 0xFFFFFFFF:
            raise ValueError("depth out of range")
        with self._lock:
            return tg.perft(self._handle(), depth)

    def bot_choose(self, spec: Union[str, bytes], rng: Union[Rng, int]) -> int:
        """The move a built-in bot ("random", "greedy", "mcts:iterations=N,c=X") chooses for
        the side to move (at a chance state: an outcome drawn by its probability). The state
        is not changed; rng advances. BadOption for a bad spec, GameOver if the game ended."""
        fn = bot_function("bot_choose")
        data = encode(spec, "bot spec", Status.TG_ERR_BAD_OPTION)
        gen = rng_arg(rng)
        out = c_uint32()
        with self._lock, gen._lock:
            check(fn(self._handle(), data, byref(gen._c), byref(out)), "bot %r" % (spec,))
        return out.value

    def play_bot(self, spec: Union[str, bytes], rng: Union[Rng, int]) -> int:
        """bot_choose() then apply(), with no other thread's call between; returns the move
        played."""
        with self._lock:
            return self.apply(self.bot_choose(spec, rng))

    # -- text ------------------------------------------------------------------------------

    def to_string(self) -> str:
        """The position string: `SPEC BOARD TO_MOVE SCORE0,SCORE1[ FIELD=VALUE...]`."""
        with self._lock:
            return _read_text(tg.state_to_string, self._handle(), "to_string")

    def render(self) -> str:
        """The board drawn for people (several lines; not for parsing)."""
        with self._lock:
            return _read_text(tg.state_render, self._handle(), "render")

    def __str__(self) -> str:
        """The rendered board (render() without its final newline)."""
        return self.render().rstrip("\n")

    def __repr__(self) -> str:
        with self._lock:
            if self._ptr is None:
                return "<State (closed)>"
            return "<State %s ply=%d player=%d>" % (self.to_string(), self.ply, self.player)


def _unpickle_state(start: str, moves: List[int]) -> State:
    """The inverse of State.__reduce__: the start position's own spec names its rules."""
    state = State.from_string(start.split(" ", 1)[0], start)
    for m in moves:
        state.apply(m)
    return state
