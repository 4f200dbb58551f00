// Type declarations of traditional-games (libtraditional-games compiled to WebAssembly).
// The reference for every behaviour is the C header, include/traditional-games.h (with the
// topic headers it includes, include/traditional-games/*.h), and docs/javascript.md; these
// declarations say what crosses the boundary and as which type.
// They need no DOM library: `lib: ["ES2022"]` with @types/node (or with "DOM") compiles them.

declare global {
  // Older TypeScript libraries lack the disposal symbol; declaring it here lets `using` and
  // [Symbol.dispose] type-check with them as well (the declaration merges with newer ones).
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** A move: a decision or a chance outcome, an unsigned 32-bit number (tg_move). */
export type Move = number;

/** The pass move (TG_MOVE_PASS), where a game allows passing. */
export declare const MOVE_PASS: 0xfffffffe;
/** Player 0, seated south, moves first. */
export declare const PLAYER_0: 0;
/** Player 1, seated north. */
export declare const PLAYER_1: 1;
/** `state.player` at a chance state: an outcome (a throw) is to be resolved. */
export declare const CHANCE: -1;
/** `state.player` and `state.turn` once the game is over. */
export declare const TERMINAL: -2;
/** `state.winner` of a drawn game. */
export declare const DRAW: -3;
/** `state.winner` while the game runs. */
export declare const NO_WINNER_YET: -4;
/** Flag bit of `state.flags()`: a Tab piece that has not moved yet. */
export declare const CELL_LOCKED: 1;
/** Flag bit of `state.flags()`: a Walak-pussa hole that is out of play this round. */
export declare const CELL_DEAD: 2;

/** A player: 0 (south, moves first) or 1 (north). */
export type Player = typeof PLAYER_0 | typeof PLAYER_1;
/** Whose turn it is: a player, or TERMINAL once the game is over. */
export type Turn = Player | typeof TERMINAL;
/** Who decides now: a player, CHANCE at a chance state, or TERMINAL. */
export type Decider = Player | typeof CHANCE | typeof TERMINAL;
/** The result: the winning player, DRAW, or NO_WINNER_YET while the game runs. */
export type Winner = Player | typeof DRAW | typeof NO_WINNER_YET;

/** The library's statuses (tg_status), value for value. */
export declare const Status: Readonly<{
  TG_OK: 0;
  TG_ERR_INVALID_ARGUMENT: 1;
  TG_ERR_NO_MEMORY: 2;
  TG_ERR_UNKNOWN_GAME: 3;
  TG_ERR_BAD_OPTION: 4;
  TG_ERR_ILLEGAL_MOVE: 5;
  TG_ERR_PARSE: 6;
  TG_ERR_BUFFER_TOO_SMALL: 7;
  TG_ERR_NO_HISTORY: 8;
  TG_ERR_GAME_OVER: 9;
  TG_ERR_RULES_MISMATCH: 10;
  TG_ERR_BUSY: 11;
}>;
/** The kinds of story event (tg_event_kind), by name: `EventKind['lift'] === 1`. */
export declare const EventKind: Readonly<{
  'lift': 1; 'drop': 2; 'capture': 3; 'resow': 4; 'score': 5; 'pass': 6; 'throw': 7;
  'move-from': 8; 'step': 9; 'move-to': 10; 'unlock': 11; 'king': 12; 'split': 13; 'take': 14;
  'throws-lost': 15; 'turn': 16; 'gather': 17; 'round-end': 18; 'fill': 19; 'dead': 20;
  'round-start': 21; 'endless': 22; 'elision': 23; 'elided-sown': 24; 'set': 25; 'game-end': 26;
}>;
/** A story event's kind, as docs/stories.md and the header (TG_EVENT_*) describe it. */
export type EventKindName = keyof typeof EventKind;

/** Why a game ended (tg_end_reason), by token: `EndReason['quiet'] === 8`. */
export declare const EndReason: Readonly<{
  'none': 0; 'unknown': 1; 'no-move': 2; 'empty-row': 3; 'store-short': 4; 'all-captured': 5;
  'all-across': 6; 'blocked': 7; 'quiet': 8; 'endless': 9;
}>;
/** An end reason's token (tg_end_reason_name): 'none' while the game runs. */
export type EndReasonName = keyof typeof EndReason;

/** A cell of the board. */
export interface Cell {
  /** The row, 0 (player 0's side) first. */
  readonly row: number;
  /** The column, 0 first. */
  readonly col: number;
}

/** One event of a move's story (state.story()); null in a field the kind does not use. */
export interface StoryEvent {
  /** What happened. */
  readonly kind: EventKindName;
  /** Where, or null. */
  readonly cell: Cell | null;
  /** How many counters or pieces (a throw's value, laps, a round's number, a reason's value),
   * or null. */
  readonly count: number | null;
  /** Who (the mover, the capturer, the winner), or null (also a drawn game's or round's end). */
  readonly player: Player | null;
  /** For 'game-end' only: the end reason, as state.endReason gives it. */
  readonly reason?: EndReasonName;
}

/** Caller's tags of a record: `{ White: 'Ann' }` or `[['White', 'Ann'], ...]`, written in order. */
export type RecordTags = Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>;

/** One of the values of Status. */
export type StatusCode = (typeof Status)[keyof typeof Status];

/** A library call returned a status other than TG_OK; nothing was changed. */
export declare class TGError extends Error {
  /** An error of a status, with the library's text for it and what was being done. */
  constructor(status: number, description?: string, context?: string);
  /** The tg_status. */
  readonly status: number;
  /** Its name in the header, e.g. "TG_ERR_ILLEGAL_MOVE". */
  readonly code: string;
  /** The library's text for it (tg_status_string). */
  readonly description: string;
  /** What was being done, quoting at most 200 characters of the input. */
  readonly context: string;
}
/** TG_ERR_INVALID_ARGUMENT, e.g. moveToString of a number that is no move of this game. */
export declare class InvalidArgument extends TGError {}
/** TG_ERR_NO_MEMORY: the module's memory is exhausted (nothing was changed). */
export declare class NoMemory extends TGError {}
/** TG_ERR_UNKNOWN_GAME: a spec names no game of the library. */
export declare class UnknownGame extends TGError {}
/** TG_ERR_BAD_OPTION: a bad rule option or bot spec. */
export declare class BadOption extends TGError {}
/** TG_ERR_ILLEGAL_MOVE: the move is not legal now. */
export declare class IllegalMove extends TGError {}
/** TG_ERR_PARSE: malformed notation, position string or record. */
export declare class ParseError extends TGError {}
/** TG_ERR_BUFFER_TOO_SMALL: never expected (the bindings size every buffer). */
export declare class BufferTooSmall extends TGError {}
/** TG_ERR_NO_HISTORY: undo() with nothing to undo. */
export declare class NoHistory extends TGError {}
/** TG_ERR_GAME_OVER: a move was asked of a finished game. */
export declare class GameOver extends TGError {}
/** TG_ERR_RULES_MISMATCH: two states, or a state and a position string, of different rules. */
export declare class RulesMismatch extends TGError {}
/** TG_ERR_BUSY: a search is already running on the same engine (not through these bindings). */
export declare class Busy extends TGError {}
/** The error class of a status (TGError for one these bindings do not know). */
export declare function errorClassOf(status: number): typeof TGError;

/** One move of an analysis (state.analyse()), best first. */
export interface MoveAnalysis {
  /** The move (or, at a chance state, the outcome). */
  readonly move: Move;
  /** The move in notation. */
  readonly name: string;
  /** The expected result for the player to move, in [-1, 1] (1 win, 0 draw, -1 loss). */
  readonly value: number;
  /** Whether the value is exact (every line was seen to the end of the game). */
  readonly proven: boolean;
  /** The principal line in notation, starting with the move (at most 32 moves). */
  readonly line: string[];
}

/** The caller's splitmix64 generator state, advanced by each call that draws from it. */
export declare class Rng {
  /** Any integer seed, taken modulo 2**64 (a number must be a safe integer); 0 when omitted.
   * An explicit undefined is a TypeError. */
  constructor(seed?: bigint | number);
  /** The state, 0 .. 2**64-1; set it to any integer (taken modulo 2**64). */
  get state(): bigint;
  set state(value: bigint | number);
  /** An independent generator at the same state. */
  copy(): Rng;
  /** Whether other is an Rng at the same state. */
  equals(other: unknown): boolean;
  /** "Rng(0x...)", the state in hexadecimal. */
  toString(): string;
  /** The state as a decimal string (JSON has no 64-bit integers). */
  toJSON(): string;
}

/** An Rng (advanced by the call) or a seed (a one-off generator). */
export type RngArg = Rng | bigint | number;

/** One option of a game, as tg.games() lists it. */
export interface GameOption {
  /** The option's key in a spec, e.g. "quiet". */
  readonly key: string;
  /** As the library writes them: "last-mover|owner" or "0..1000". */
  readonly values: string;
  /** The value a spec without this option gets. */
  readonly default: string;
  /** The choices of a list option; null for a range. */
  readonly choices: readonly string[] | null;
  /** The bounds of a range option; null for a list. */
  readonly range: { readonly min: number; readonly max: number } | null;
}

/** One game of the catalogue. */
export interface GameInfo {
  /** The game's id, the first word of a spec: "halusa", "tab", ... */
  readonly id: string;
  /** Its full name, e.g. "At-Tab wa-d-Dukk". */
  readonly name: string;
  /** Its options, in the order the canonical spec writes them. */
  readonly options: readonly GameOption[];
}

/** One outcome of a chance state. */
export interface ChanceOutcome {
  /** The outcome, to pass to apply(). */
  readonly move: Move;
  /** Its probability, in (0, 1]; the outcomes' sum to 1. */
  readonly probability: number;
}

/** What playoutStats() counted. */
export interface PlayoutStats {
  /** Moves made (decisions and chance outcomes). */
  readonly plies: bigint;
  /** Decisions among them. */
  readonly decisions: bigint;
  /** Chance outcomes among them. */
  readonly chance: bigint;
  /** Counters sown (mancala games; 0 for Tab). */
  readonly sown: bigint;
}

/** An immutable rule set (tg_rules). Free it with free() or `using`; else it is freed when
 * collected. */
export interface Rules {
  /** Release the C rule set now (once; later calls do nothing). States made from it live on. */
  free(): void;
  /** free(), for `using`. */
  [Symbol.dispose](): void;
  /** Whether free() was called. */
  readonly freed: boolean;
  /** The canonical spec: every option spelled out. */
  readonly spec: string;
  /** The game's id, e.g. "halusa". */
  readonly gameId: string;
  /** Rows of the board (2 for Halusa, 4 for Tab, ...). */
  readonly rows: number;
  /** Columns of the board. */
  readonly cols: number;
  /** An upper bound on the legal moves or chance outcomes of any state. */
  readonly maxMoves: number;
  /** The initial position of this rule set. */
  newState(): State;
  /** A state read from a position string of this rule set (State.fromString). */
  stateFromString(text: string): State;
  /** Whether other is a Rules of the same canonical spec. */
  equals(other: unknown): boolean;
  /** The canonical spec. */
  toString(): string;
  /** The canonical spec (JSON.stringify(rules)). */
  toJSON(): string;
}

/** The class tg.Rules of one loaded instance. */
export interface RulesConstructor {
  /** A rule set from a spec: "halusa", "halusa:remainder=owner,quiet=50" ("halusa" when
   * omitted; an explicit undefined is a TypeError). UnknownGame or BadOption if bad. */
  new (spec?: string): Rules;
  /** The catalogue: every game and its options. */
  games(): GameInfo[];
  /** The prototype of every Rules of this instance. */
  readonly prototype: Rules;
}

/** One position plus its undo history (tg_state). Free it with free() or `using`; else it is
 * freed when collected. A clone shares its source's memory until either changes. */
export interface State {
  /** Release the C state now (once; later calls do nothing). */
  free(): void;
  /** free(), for `using`. */
  [Symbol.dispose](): void;
  /** Whether free() was called. */
  readonly freed: boolean;
  /** An independent copy: position, ply and undo history (cheap: copy on write). */
  clone(): State;
  /** Take the position and ply of other (same rules, else RulesMismatch); the history is
   * cleared. */
  copyFrom(other: State): void;

  /** The Rules this state was made from (or an equal new one if that was freed). */
  readonly rules: Rules;
  /** The canonical spec of the state's rules. */
  readonly spec: string;
  /** The game's id, e.g. "tab". */
  readonly gameId: string;
  /** Rows of the board. */
  readonly rows: number;
  /** Columns of the board. */
  readonly cols: number;
  /** An upper bound on the legal moves or chance outcomes of any state of these rules. */
  readonly maxMoves: number;

  /** Who decides now: 0, 1, CHANCE or TERMINAL. */
  readonly player: Decider;
  /** Whose turn it is, also at chance states: 0 or 1; TERMINAL when the game is over. */
  readonly turn: Turn;
  /** Whether the game is over. */
  readonly isTerminal: boolean;
  /** Whether an outcome (a throw) is to be resolved now (player === CHANCE). */
  readonly isChance: boolean;
  /** The winner (0 or 1), DRAW, or NO_WINNER_YET while the game runs. */
  readonly winner: Winner;
  /** A player's score as the game's rules define it. Typed to take `state.turn` as it is;
   * TERMINAL (a finished game's turn) is a RangeError, as is anything but 0 or 1. */
  score(player: Turn): number;
  /** [score of player 0, score of player 1]. */
  readonly scores: [number, number];
  /** [return of player 0, of player 1]: +1 win, -1 loss, 0 draw or running game. */
  readonly returns: [number, number];
  /** Moves applied since the initial position (chance outcomes and playouts included). */
  readonly ply: number;
  /** The moves undo() can take back, oldest first. */
  readonly history: Move[];
  /** The unsigned 64-bit Zobrist hash of the position (not of the history). */
  readonly hash: bigint;
  /** Same position of the same rule set (ply and history are not compared). */
  equals(other: unknown): boolean;

  /** Counters in a hole (mancala) or pieces on a cell (Tab). RangeError off the board. */
  count(row: number, col: number): number;
  /** The player whose territory a hole is in (mancala), or the owner of a Tab cell's pieces
   * (-1 if empty). */
  owner(row: number, col: number): number;
  /** The CELL_LOCKED / CELL_DEAD bits of a cell. */
  flags(row: number, col: number): number;
  /** The notation name of a cell: "a1" is row 0, column 0. */
  cellName(row: number, col: number): string;
  /** Counts, row 0 (player 0's side) first. */
  readonly board: number[][];

  /** The legal decisions of the player to move, ascending (none at a chance state or the end). */
  legalMoves(): Move[];
  /** legalMoves() in notation. */
  legalMoveNames(): string[];
  /** At a chance state, the outcomes and their probabilities, ascending; otherwise []. */
  chanceOutcomes(): ChanceOutcome[];
  /** A move in this game's notation; InvalidArgument if it is no move of this game. */
  moveToString(move: Move): string;
  /** A move read from notation (not checked for legality); ParseError if malformed. */
  moveFromString(text: string): Move;
  /** Whether apply(move) would be accepted now (false for unreadable text). */
  isLegal(move: Move | string): boolean;
  /** Apply a decision or a chance outcome, as a number or in notation; returns the move.
   * GameOver, IllegalMove or ParseError on failure, with nothing changed. */
  apply(move: Move | string): Move;
  /** Take back the last applied move exactly; NoHistory if there is none. */
  undo(): void;
  /** Apply one random move (a uniform decision, or an outcome by its probability). */
  applyRandom(rng: RngArg): void;
  /** Random moves until the game ends or maxPlies were made; returns how many. Clears the
   * history (clone() first to keep it). */
  playout(rng: RngArg, maxPlies?: number): number;
  /** playout() that also counts what it did. */
  playoutStats(rng: RngArg, maxPlies?: number): PlayoutStats;
  /** Leaves of the game tree depth moves below this state (chance nodes expand every outcome). */
  perft(depth: number): bigint;
  /** The move a built-in bot ("random", "greedy", "mcts:iterations=N,c=X") chooses for the
   * side to move; the state is not changed, rng advances. BadOption, GameOver. */
  botChoose(spec: string, rng: RngArg): Move;
  /** botChoose() then apply(); returns the move played. */
  playBot(spec: string, rng: RngArg): Move;
  /** How good each legal move is, best first, by a bot spec ("search:nodes=N" gives the same
   * answer on every platform; "search:time=MS"). The state is not changed; rng advances only
   * where the bot draws. BadOption, GameOver. To abort one, use SearchWorker
   * ('traditional-games/search'). */
  analyse(spec: string, rng: RngArg): MoveAnalysis[];

  /** The position string: `SPEC BOARD TO_MOVE SCORE0,SCORE1[ FIELD=VALUE...]`. */
  toString(): string;
  /** What move `index` of the history did (0 = the oldest move `history` lists), as events
   * whose effects on the counts and scores lead from the position before to the one after.
   * RangeError for an index past the history. */
  story(index: number): StoryEvent[];
  /** Why the game ended: 'none' while it runs; 'unknown' for a finished position whose
   * ending cannot be told (read from a string, or after a playout). */
  readonly endReason: EndReasonName;
  /** The game as a record (docs/records.md): Rules, Start when needed, the caller's tags,
   * Result, Termination, then every move of the history. InvalidArgument for a malformed tag
   * name, a value with a line break, or one of the library's own four tags. */
  toRecord(tags?: RecordTags | null): string;
  /** The position string (JSON.stringify(state)). */
  toJSON(): string;
  /** The board drawn for people (several lines; not for parsing). */
  render(): string;
}

/** The class tg.State of one loaded instance. */
export interface StateConstructor {
  /** The initial position of a rule set (a Rules or a spec; "halusa" when omitted, an
   * explicit undefined is a TypeError). */
  new (rules?: Rules | string): State;
  /** A state read from a position string, with ply 0 and no history; RulesMismatch if the
   * string names other rules, ParseError if it is malformed. */
  fromString(rules: Rules | string, text: string): State;
  /** The state at the end of a game record, every move replayed and checked (its history
   * holds them all). ParseError for text that is not a record, IllegalMove for a move not
   * legal where it stands. */
  fromRecord(text: string): State;
  /** The prototype of every State of this instance. */
  readonly prototype: State;
}

/** The module's linear memory, as tg.memory gives it (a WebAssembly.Memory). */
export interface WasmMemory {
  /** The memory's bytes now (a new ArrayBuffer after each growth). */
  readonly buffer: ArrayBuffer;
  /** Grow by delta pages of 64 KiB; returns the previous size in pages. */
  grow(delta: number): number;
}

/** One loaded instance of the library: its own memory, its own Rules and State. */
export interface TraditionalGames {
  /** The rule set class of this instance. */
  readonly Rules: RulesConstructor;
  /** The state class of this instance. */
  readonly State: StateConstructor;
  /** The generator class (the module's Rng: one serves every instance). */
  readonly Rng: typeof Rng;
  /** The catalogue: every game and its options. */
  games(): GameInfo[];
  /** Validate a bot spec: BadOption if it is not one. */
  checkBot(spec: string): void;
  /** The library's text for a status. */
  statusString(status: number): string;
  /** The library's version, e.g. "0.4.0". */
  readonly version: string;
  /** The version as a number, major * 10000 + minor * 100 + patch (400 for 0.4.0). */
  readonly versionNumber: number;
  /** The C states this instance holds now (shared ones once): free() and the collector bring
   * it down. */
  readonly liveStates: number;
  /** The instance's linear memory (to watch its size; the bindings own its contents). */
  readonly memory: WasmMemory;
}

// The host's own types where its libraries declare them (DOM, @types/node), else nothing: the
// declarations compile with `lib: ["ES2022"]` alone.
type HostWasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer M } } } ? M : never;
type HostResponse = typeof globalThis extends { Response: { prototype: infer R } } ? R : never;
type HostURL = typeof globalThis extends { URL: { prototype: infer U } } ? U : never;

/** What load() takes: bytes, a URL or URL string, a file path (Node), a fetch Response or a
 * compiled WebAssembly.Module. */
export type WasmSource = ArrayBuffer | ArrayBufferView | HostURL | string | HostResponse | HostWasmModule;

/** Options of load(). */
export interface LoadOptions {
  /** Warn once when more States than this hold wasm memory at the same time (default 100000;
   * Infinity: never). */
  liveStatesWarning?: number;
  /** Called by a running search every 256 positions; once it returns true the search stops
   * with its best so far (e.g. an Atomics flag set by another thread). */
  shouldStop?: (() => boolean) | null;
}

/** Compile and instantiate the module (the .wasm beside this file when source is omitted). */
export declare function load(source?: WasmSource, options?: LoadOptions): Promise<TraditionalGames>;
