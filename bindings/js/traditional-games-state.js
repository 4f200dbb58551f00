// The positions of one loaded instance of traditional-games: the State class (tg_state), and
// the lifetime of the C states behind it, shared copy-on-write between a State and its clones.

import { CHANCE, Status } from './traditional-games-constants.js';
import { ParseError } from './traditional-games-errors.js';
import { SIZE_MAX, describe, integerArg, moveNumber, stringArg } from './traditional-games-args.js';
import { rngArg } from './traditional-games-rng.js';
import { OUT_DOUBLES, OUT_MOVE, OUT_PTR, OUT_SIZE, OUT_STATS, STAT_COUNT } from './traditional-games-calls.js';

const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose');
const WRAP = Symbol('wrap an owned pointer');

/**
 * The State class of one instance and what goes with it: calls its bindCalls table, rules its
 * bindRules answer, analysis its bindAnalysis answer, records its bindRecords answer;
 * liveStatesWarning as load() takes it. liveStates() counts the C states held now.
 */
export function bindState(calls, rules, analysis, records, liveStatesWarning) {
  const {
    wasm, scratch, outBuffer, check, cString, inputText, readU32, reserve, heap, readText, withRng,
    moveName, moveList,
  } = calls;
  const { Rules, withRules } = rules;
  const { analyseState } = analysis;

  // C states not freed by their owner are freed when collected. The held value is the State's
  // small `ref` record alone, never the State, or the State could never be collected.
  //
  // C states are shared copy-on-write between a State and its clones: clone() only counts one
  // more owner of the same C state, and the first call that changes a shared one gives the
  // caller its own copy (tg_state_clone) first. So a clone that is only read and then forgotten
  // costs no wasm memory at all; one that is changed costs its C state (about 1 KiB) until it
  // is freed, by free(), `using`, or the collector. The collector cannot help within one
  // synchronous run (finalizers run between tasks), hence the warning below.
  //   node: { ptr, owners }  one C state and how many States use it
  //   ref:  { node }         one State's link to its node; node null once released
  let liveNodes = 0;
  let warned = false;

  function newNode(ptr) {
    if (++liveNodes > liveStatesWarning && !warned) {
      warned = true;
      const text = `traditional-games: more than ${liveStatesWarning} States hold wasm memory ` +
        '(1 to 11 KiB each); call free() or use `using` on States you are done with (the ' +
        'collector frees forgotten ones only between tasks, never within one synchronous loop)';
      if (typeof globalThis.process?.emitWarning === 'function') globalThis.process.emitWarning(text);
      else console.warn(text);
    }
    return { ptr, owners: 1 };
  }

  function release(ref) {
    const node = ref.node;
    if (node === null) return;
    ref.node = null;
    if (--node.owners === 0) {
      wasm.tg_state_free(node.ptr);
      liveNodes--;
    }
  }

  const stateRegistry = new FinalizationRegistry(release);

  let stateHandle; // (state) => pointer, or TypeError: set inside State

  class State {
    #ref = null; // { node } (see newNode), null once freed
    #rules = null; // the Rules it was made from, if the caller gave one
    #rows = 0;
    #cols = 0;
    #maxMoves = 0;

    static {
      stateHandle = (state) => {
        if (!(state instanceof State)) {
          throw new TypeError(`expected a State of this loaded library, not ${describe(state)}`);
        }
        return state.#handle();
      };
    }

    /** @param {Rules | string} [rules] a Rules or a spec: the initial position of that game
     * ("halusa" when omitted; an explicit undefined is a TypeError) */
    constructor(rules, node, source) {
      if (rules === WRAP) {
        if (source) {
          this.#rules = source.#rules;
          this.#rows = source.#rows;
          this.#cols = source.#cols;
          this.#maxMoves = source.#maxMoves;
          this.#register(node);
        } else {
          this.#adopt(node.ptr, node.rules);
        }
        return;
      }
      if (arguments.length === 0) rules = 'halusa';
      withRules(rules, (rulesPtr, rulesObj) => {
        check(wasm.tg_state_new(rulesPtr, scratch + OUT_PTR), 'new state');
        this.#adopt(readU32(scratch + OUT_PTR), rulesObj);
      });
    }

    #adopt(ptr, rules) {
      this.#rules = rules;
      const rulesPtr = wasm.tg_state_rules(ptr);
      this.#rows = wasm.tg_rules_rows(rulesPtr);
      this.#cols = wasm.tg_rules_cols(rulesPtr);
      this.#maxMoves = wasm.tg_rules_max_moves(rulesPtr) >>> 0;
      this.#register(newNode(ptr));
    }

    #register(node) {
      this.#ref = { node };
      // No unregister token: free() empties the ref, and the finalizer then finds nothing to do.
      stateRegistry.register(this, this.#ref);
    }

    /**
     * A state read from a position string, with ply 0 and no history. The string's own spec
     * must name the same rule set (else RulesMismatch); ParseError for anything malformed.
     */
    static fromString(rules, text) {
      stringArg(text, 'a position string');
      return withRules(rules, (rulesPtr, rulesObj) => {
        const textPtr = inputText(text, Status.TG_ERR_PARSE, 'position string');
        check(wasm.tg_state_from_string(rulesPtr, textPtr, scratch + OUT_PTR), 'position string', text);
        return new State(WRAP, { ptr: readU32(scratch + OUT_PTR), rules: rulesObj }, null);
      });
    }

    /**
     * The state at the end of a game record (docs/records.md): its rules from the Rules tag,
     * every move replayed and checked, so the history holds them all. ParseError for text that
     * is not a record (or whose Result/Termination the moves do not lead to), IllegalMove for
     * a move not legal where it stands.
     */
    static fromRecord(text) {
      stringArg(text, 'a record');
      const textPtr = inputText(text, Status.TG_ERR_PARSE, 'record');
      check(wasm.tg_state_from_record(textPtr, scratch + OUT_PTR), 'record', text);
      return new State(WRAP, { ptr: readU32(scratch + OUT_PTR), rules: null }, null);
    }

    /** The C state, to read. */
    #handle() {
      const node = this.#ref?.node;
      if (!node) throw new TypeError('this State has been freed');
      return node.ptr;
    }

    /** The C state, to change: this State's own (copied first if a clone shares it). */
    #own() {
      const ref = this.#ref;
      const node = ref?.node;
      if (!node) throw new TypeError('this State has been freed');
      if (node.owners === 1) return node.ptr;
      check(wasm.tg_state_clone(node.ptr, scratch + OUT_PTR), 'copying a shared state');
      node.owners--;
      ref.node = newNode(readU32(scratch + OUT_PTR));
      return ref.node.ptr;
    }

    // -- lifetime ------------------------------------------------------------------------------

    /** Release the C state now (once; later calls do nothing). */
    free() {
      if (this.#ref !== null) {
        release(this.#ref);
        this.#ref = null;
      }
    }

    [dispose]() {
      this.free();
    }

    get freed() {
      return this.#ref === null;
    }

    /** An independent copy: position, ply and undo history. Cheap: the C state is shared until
     * either side changes. */
    clone() {
      const node = this.#ref?.node;
      if (!node) throw new TypeError('this State has been freed');
      node.owners++;
      return new State(WRAP, node, this);
    }

    /** This state takes the position and ply of other (same rules, else RulesMismatch); its
     * history is cleared. Allocates nothing (unless this state was shared with a clone). */
    copyFrom(other) {
      const from = stateHandle(other);
      // Owning first keeps `from` valid: a shared C state stays with the other owners.
      check(wasm.tg_state_copy(this.#own(), from), 'copyFrom');
    }

    // -- rules ---------------------------------------------------------------------------------

    /** The Rules this state was made from, or (if that one was freed) an equal new one. */
    get rules() {
      const handle = this.#handle();
      if (this.#rules === null || this.#rules.freed) {
        this.#rules = new Rules(cString(wasm.tg_rules_spec(wasm.tg_state_rules(handle))));
      }
      return this.#rules;
    }

    get spec() {
      return cString(wasm.tg_rules_spec(wasm.tg_state_rules(this.#handle())));
    }

    get gameId() {
      return cString(wasm.tg_rules_game_id(wasm.tg_state_rules(this.#handle())));
    }

    get rows() {
      this.#handle();
      return this.#rows;
    }

    get cols() {
      this.#handle();
      return this.#cols;
    }

    get maxMoves() {
      this.#handle();
      return this.#maxMoves;
    }

    // -- queries -------------------------------------------------------------------------------

    /** Who decides now: 0, 1, CHANCE (-1) or TERMINAL (-2). */
    get player() {
      return wasm.tg_state_player(this.#handle());
    }

    /** Whose turn it is, also at chance states: 0, 1, or TERMINAL when the game is over. */
    get turn() {
      return wasm.tg_state_turn(this.#handle());
    }

    get isTerminal() {
      return wasm.tg_state_is_terminal(this.#handle()) !== 0;
    }

    get isChance() {
      return this.player === CHANCE;
    }

    /** 0 or 1, DRAW (-3), or NO_WINNER_YET (-4) while the game runs. */
    get winner() {
      return wasm.tg_state_winner(this.#handle());
    }

    score(player) {
      const handle = this.#handle();
      return wasm.tg_state_score(handle, integerArg(player, 'player', 0, 1));
    }

    /** [score of player 0, score of player 1] */
    get scores() {
      const handle = this.#handle();
      return [wasm.tg_state_score(handle, 0), wasm.tg_state_score(handle, 1)];
    }

    /** [return of player 0, of player 1]: +1 win, -1 loss, 0 draw or running game. */
    get returns() {
      check(wasm.tg_state_returns(this.#handle(), scratch + OUT_DOUBLES), 'returns');
      const v = heap();
      return [v.getFloat64(scratch + OUT_DOUBLES, true), v.getFloat64(scratch + OUT_DOUBLES + 8, true)];
    }

    /** Moves applied since the initial position (chance outcomes and playouts included). */
    get ply() {
      return wasm.tg_state_ply(this.#handle()) >>> 0;
    }

    /** The moves undo() can take back, oldest first. */
    get history() {
      const handle = this.#handle();
      check(wasm.tg_state_history(handle, 0, 0, scratch + OUT_SIZE), 'history');
      const count = readU32(scratch + OUT_SIZE);
      const ptr = reserve(outBuffer, 4 * Math.max(count, 1));
      check(wasm.tg_state_history(handle, ptr, count, scratch + OUT_SIZE), 'history');
      return moveList(ptr, readU32(scratch + OUT_SIZE));
    }

    /** The 64-bit Zobrist hash of the position (not the history), unsigned. */
    get hash() {
      return BigInt.asUintN(64, wasm.tg_state_hash(this.#handle()));
    }

    /** Same position of the same rule set (ply and history are not compared). */
    equals(other) {
      if (!(other instanceof State)) return false;
      return wasm.tg_state_equal(this.#handle(), stateHandle(other)) !== 0;
    }

    // -- the board -----------------------------------------------------------------------------

    #cell(row, col) {
      const handle = this.#handle();
      integerArg(row, 'row', 0, this.#rows - 1);
      integerArg(col, 'col', 0, this.#cols - 1);
      return handle;
    }

    /** Counters in a hole (mancala) or pieces on a cell (Tab). */
    count(row, col) {
      return wasm.tg_state_count(this.#cell(row, col), row, col);
    }

    /** The player whose territory a hole is in (mancala), or the owner of a Tab cell's pieces
     * (-1 if empty). */
    owner(row, col) {
      return wasm.tg_state_owner(this.#cell(row, col), row, col);
    }

    /** CELL_LOCKED / CELL_DEAD bits of a cell. */
    flags(row, col) {
      return wasm.tg_state_flags(this.#cell(row, col), row, col) >>> 0;
    }

    /** The notation name of a cell: column letters as in a spreadsheet, then the 1-based row
     * ("a1" is row 0, column 0; column 26 is "aa"), as docs/notation.md defines it. */
    cellName(row, col) {
      this.#cell(row, col);
      let letters = '';
      for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) {
        letters = String.fromCharCode(97 + ((n - 1) % 26)) + letters;
      }
      return `${letters}${row + 1}`;
    }

    /** The counts as rows of numbers, row 0 (player 0's side) first. */
    get board() {
      const handle = this.#handle();
      const rows = [];
      for (let r = 0; r < this.#rows; r++) {
        const row = [];
        for (let c = 0; c < this.#cols; c++) row.push(wasm.tg_state_count(handle, r, c));
        rows.push(row);
      }
      return rows;
    }

    // -- moves ---------------------------------------------------------------------------------

    /** The legal decisions of the player to move, ascending (none at a chance state or at the
     * end). */
    legalMoves() {
      const handle = this.#handle();
      const cap = this.#maxMoves;
      const ptr = reserve(outBuffer, 4 * Math.max(cap, 1));
      check(wasm.tg_state_moves(handle, ptr, cap, scratch + OUT_SIZE), 'legalMoves');
      return moveList(ptr, readU32(scratch + OUT_SIZE));
    }

    legalMoveNames() {
      return this.legalMoves().map((m) => this.moveToString(m));
    }

    /** At a chance state, [{move, probability}, ...] ascending; otherwise []. */
    chanceOutcomes() {
      const handle = this.#handle();
      const cap = this.#maxMoves;
      // Probabilities first, at an 8-byte aligned offset; then the outcomes.
      const base = reserve(outBuffer, 12 * Math.max(cap, 1));
      const probs = base, moves = base + 8 * cap;
      check(wasm.tg_state_chance(handle, moves, probs, cap, scratch + OUT_SIZE), 'chanceOutcomes');
      const count = readU32(scratch + OUT_SIZE);
      const v = heap();
      const result = [];
      for (let i = 0; i < count; i++) {
        result.push({ move: v.getUint32(moves + 4 * i, true), probability: v.getFloat64(probs + 8 * i, true) });
      }
      return result;
    }

    /** A move in this game's notation; InvalidArgument if it cannot be written in this game. */
    moveToString(move) {
      return moveName(this.#handle(), move);
    }

    /** A move read from notation (not checked for legality); ParseError if malformed. */
    moveFromString(text) {
      const handle = this.#handle();
      stringArg(text, 'a move');
      const ptr = inputText(text, Status.TG_ERR_PARSE, 'move');
      check(wasm.tg_move_from_string(handle, ptr, scratch + OUT_MOVE), 'move', text);
      return readU32(scratch + OUT_MOVE);
    }

    #move(move) {
      if (typeof move === 'string') return this.moveFromString(move);
      if (typeof move === 'number') return moveNumber(move);
      throw new TypeError(`a move must be a number or a notation string, not ${describe(move)}`);
    }

    /** Whether apply(move) would be accepted now (false for unreadable move text). */
    isLegal(move) {
      const handle = this.#handle();
      let m;
      try {
        m = this.#move(move);
      } catch (e) {
        if (e instanceof ParseError) return false;
        throw e;
      }
      return wasm.tg_state_is_legal(handle, m) !== 0;
    }

    /** Apply a decision, or an outcome at a chance state, as a number or in notation; returns
     * the move as a number. GameOver, IllegalMove or ParseError on failure, nothing changed. */
    apply(move) {
      this.#handle();
      const m = this.#move(move);
      check(wasm.tg_state_apply(this.#own(), m), 'apply', move);
      return m;
    }

    /** Take back the last applied move exactly; NoHistory if there is none. */
    undo() {
      check(wasm.tg_state_undo(this.#own()), 'undo');
    }

    /** Apply one random move (a uniform decision, or an outcome by its probability), recorded
     * for undo. rng: an Rng (advanced) or a seed (a one-off generator). */
    applyRandom(rng) {
      this.#handle();
      rng = rngArg(rng);
      const handle = this.#own();
      withRng(rng, (rngPtr) => check(wasm.tg_state_apply_random(handle, rngPtr), 'applyRandom'));
    }

    /** Play random moves until the game ends or maxPlies were made; returns how many were
     * made. The history is cleared (clone() first to keep it). */
    playout(rng, maxPlies = SIZE_MAX) {
      this.#handle();
      rng = rngArg(rng);
      integerArg(maxPlies, 'maxPlies', 0, SIZE_MAX);
      const handle = this.#own();
      withRng(rng, (rngPtr) =>
        check(wasm.tg_state_playout(handle, rngPtr, maxPlies, scratch + OUT_SIZE), 'playout'));
      return readU32(scratch + OUT_SIZE);
    }

    /** playout() that also counts what it did: {plies, decisions, chance, sown} as BigInts. */
    playoutStats(rng, maxPlies = SIZE_MAX) {
      this.#handle();
      rng = rngArg(rng);
      integerArg(maxPlies, 'maxPlies', 0, SIZE_MAX);
      const handle = this.#own();
      const stats = scratch + OUT_STATS;
      withRng(rng, (rngPtr) =>
        check(wasm.tg_state_playout_stats(handle, rngPtr, maxPlies, stats, STAT_COUNT), 'playoutStats'));
      const v = heap();
      const at = (i) => v.getBigUint64(stats + 8 * i, true);
      return { plies: at(0), decisions: at(1), chance: at(2), sown: at(3) };
    }

    /** Leaves of the game tree depth moves below this state, as a BigInt. */
    perft(depth) {
      const handle = this.#handle();
      integerArg(depth, 'depth', 0, 0xffffffff);
      return BigInt.asUintN(64, wasm.tg_perft(handle, depth));
    }

    /** The move a built-in bot ("random", "greedy", "mcts:iterations=N,c=X") chooses for the
     * side to move (at a chance state: an outcome by its probability). The state is not
     * changed; rng advances. BadOption for a bad spec, GameOver if the game has ended. */
    botChoose(spec, rng) {
      const handle = this.#handle();
      stringArg(spec, 'a bot spec');
      rng = rngArg(rng);
      const specPtr = inputText(spec, Status.TG_ERR_BAD_OPTION, 'bot');
      withRng(rng, (rngPtr) => check(wasm.tg_bot_choose(handle, specPtr, rngPtr, scratch + OUT_MOVE), 'bot', spec));
      return readU32(scratch + OUT_MOVE);
    }

    /** botChoose() then apply(); returns the move played. */
    playBot(spec, rng) {
      return this.apply(this.botChoose(spec, rng));
    }

    /**
     * How good each legal move is (at a chance state: each outcome), best first:
     * `[{ move, name, value, proven, line }]`, value the expected result for the player to
     * move in [-1, 1], proven whether it is exact, line the principal line in notation (an
     * array, starting with the move). spec: a bot spec, usually "search:nodes=N" (the same
     * answer on every run and platform) or "search:time=MS". The state is not changed; rng
     * advances only where the bot draws. To stop it from outside, run it in a Worker
     * (traditional-games-search.js).
     */
    analyse(spec, rng) {
      return analyseState(this.#handle(), spec, rng, 0).results;
    }

    // -- text ----------------------------------------------------------------------------------

    /** The position string: `SPEC BOARD TO_MOVE SCORE0,SCORE1[ FIELD=VALUE...]`. */
    toString() {
      return readText(wasm.tg_state_to_string, this.#handle(), 'toString');
    }

    // -- what happened -------------------------------------------------------------------------

    /**
     * What move `index` of the history did (0 = the oldest move `history` lists), as events:
     * `{ kind, cell, count, player }`, kind a name of EventKind, cell `{ row, col }`, and null
     * for a field the kind does not use. A 'game-end' event also has `reason` (an EndReason
     * name, from its count). RangeError for an index past the history.
     */
    story(index) {
      return records.story(this.#handle(), index, this.#cols);
    }

    /** Why the game ended, an EndReason name: 'none' while it runs; 'unknown' for a finished
     * position whose ending cannot be told (read from a string, or after a playout). */
    get endReason() {
      return records.endReason(this.#handle());
    }

    /**
     * The game as a record (docs/records.md): the Rules tag, Start when the game did not
     * start from the initial position, the caller's tags, Result, Termination, then every
     * move of the history. tags: an object `{ White: 'Ann' }` or an array of [name, value]
     * pairs, in the order to write them; InvalidArgument for a malformed name, a value with a
     * line break, or one of the library's own four tags.
     */
    toRecord(tags = null) {
      return records.record(this.#handle(), tags);
    }

    /** JSON.stringify(state) gives the position string (toString()). */
    toJSON() {
      return this.toString();
    }

    /** The board drawn for people (several lines; not for parsing). */
    render() {
      return readText(wasm.tg_state_render, this.#handle(), 'render');
    }
  }

  return { State, stateHandle, liveStates: () => liveNodes };
}
