// Type declarations of traditional-games (libtraditional-games compiled to WebAssembly).
// The reference for every behaviour is the C header, include/traditional-games.h, and
// docs/javascript.md; these declarations say what crosses the boundary and as which type.

declare global {
  // Older TypeScript libraries lack the disposal symbol; declaring it here lets `using` and
  // [Symbol.dispose] type-check with them as well (the declaration merges with newer ones).
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** A move: a decision or a chance outcome, an unsigned 32-bit number (tg_move). */
export type Move = number;

export declare const MOVE_PASS: 0xfffffffe;
export declare const PLAYER_0: 0;
export declare const PLAYER_1: 1;
export declare const CHANCE: -1;
export declare const TERMINAL: -2;
export declare const DRAW: -3;
export declare const NO_WINNER_YET: -4;
export declare const CELL_LOCKED: 1;
export declare const CELL_DEAD: 2;

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
}>;
export type StatusCode = (typeof Status)[keyof typeof Status];

/** A library call returned a status other than TG_OK; nothing was changed. */
export declare class TGError extends Error {
  constructor(status: number, description?: string, context?: string);
  /** The tg_status. */
  readonly status: number;
  /** Its name in the header, e.g. "TG_ERR_ILLEGAL_MOVE". */
  readonly code: string;
  /** The library's text for it (tg_status_string). */
  readonly description: string;
  /** What was being done. */
  readonly context: string;
}
export declare class InvalidArgument extends TGError {}
export declare class NoMemory extends TGError {}
export declare class UnknownGame extends TGError {}
export declare class BadOption extends TGError {}
export declare class IllegalMove extends TGError {}
export declare class ParseError extends TGError {}
export declare class BufferTooSmall extends TGError {}
export declare class NoHistory extends TGError {}
export declare class GameOver extends TGError {}
export declare class RulesMismatch extends TGError {}

/** The caller's splitmix64 generator state, advanced by each call that draws from it. */
export declare class Rng {
  /** Any integer seed, taken modulo 2**64 (a number must be a safe integer). */
  constructor(seed?: bigint | number);
  /** The state, 0 .. 2**64-1. */
  get state(): bigint;
  set state(value: bigint | number);
  copy(): Rng;
  equals(other: unknown): boolean;
  toString(): string;
}

/** An Rng (advanced by the call) or a seed (a one-off generator). */
export type RngArg = Rng | bigint | number;

export interface GameOption {
  readonly key: string;
  /** As the library writes them: "last-mover|owner" or "0..1000". */
  readonly values: string;
  readonly default: string;
  /** The choices of a list option; null for a range. */
  readonly choices: readonly string[] | null;
  /** The bounds of a range option; null for a list. */
  readonly range: { readonly min: number; readonly max: number } | null;
}

export interface GameInfo {
  readonly id: string;
  readonly name: string;
  readonly options: readonly GameOption[];
}

export interface ChanceOutcome {
  readonly move: Move;
  readonly probability: number;
}

export interface PlayoutStats {
  readonly plies: bigint;
  readonly decisions: bigint;
  readonly chance: bigint;
  readonly sown: bigint;
}

/** An immutable rule set (tg_rules). Free it with free() or `using`; else it is freed when
 * collected. */
export interface Rules {
  free(): void;
  [Symbol.dispose](): void;
  readonly freed: boolean;
  /** The canonical spec: every option spelled out. */
  readonly spec: string;
  readonly gameId: string;
  readonly rows: number;
  readonly cols: number;
  readonly maxMoves: number;
  newState(): State;
  stateFromString(text: string): State;
  equals(other: unknown): boolean;
  toString(): string;
}

export interface RulesConstructor {
  /** A rule set from a spec: "halusa", "halusa:remainder=owner,quiet=50". */
  new (spec?: string): Rules;
  games(): GameInfo[];
  readonly prototype: Rules;
}

/** One position plus its undo history (tg_state). Free it with free() or `using`; else it is
 * freed when collected. */
export interface State {
  free(): void;
  [Symbol.dispose](): void;
  readonly freed: boolean;
  clone(): State;
  copyFrom(other: State): void;

  readonly rules: Rules;
  readonly spec: string;
  readonly gameId: string;
  readonly rows: number;
  readonly cols: number;
  readonly maxMoves: number;

  /** 0, 1, CHANCE or TERMINAL. */
  readonly player: number;
  /** 0 or 1, also at chance states; TERMINAL when the game is over. */
  readonly turn: number;
  readonly isTerminal: boolean;
  readonly isChance: boolean;
  /** 0, 1, DRAW or NO_WINNER_YET. */
  readonly winner: number;
  score(player: 0 | 1): number;
  readonly scores: [number, number];
  readonly returns: [number, number];
  readonly ply: number;
  readonly history: Move[];
  /** The unsigned 64-bit Zobrist hash of the position. */
  readonly hash: bigint;
  equals(other: unknown): boolean;

  count(row: number, col: number): number;
  owner(row: number, col: number): number;
  flags(row: number, col: number): number;
  cellName(row: number, col: number): string;
  /** Counts, row 0 first. */
  readonly board: number[][];

  legalMoves(): Move[];
  legalMoveNames(): string[];
  chanceOutcomes(): ChanceOutcome[];
  moveToString(move: Move): string;
  moveFromString(text: string): Move;
  isLegal(move: Move | string): boolean;
  apply(move: Move | string): Move;
  undo(): void;
  applyRandom(rng: RngArg): void;
  playout(rng: RngArg, maxPlies?: number): number;
  playoutStats(rng: RngArg, maxPlies?: number): PlayoutStats;
  perft(depth: number): bigint;
  botChoose(spec: string, rng: RngArg): Move;
  playBot(spec: string, rng: RngArg): Move;

  /** The position string. */
  toString(): string;
  /** The board drawn for people. */
  render(): string;
}

export interface StateConstructor {
  /** The initial position of a rule set (a Rules or a spec; "halusa" if omitted). */
  new (rules?: Rules | string): State;
  fromString(rules: Rules | string, text: string): State;
  readonly prototype: State;
}

/** One loaded instance of the library: its own memory, its own Rules and State. */
export interface TraditionalGames {
  readonly Rules: RulesConstructor;
  readonly State: StateConstructor;
  readonly Rng: typeof Rng;
  games(): GameInfo[];
  checkBot(spec: string): void;
  statusString(status: number): string;
  /** The library's version, e.g. "0.4.0". */
  readonly version: string;
  readonly versionNumber: number;
  /** The instance's linear memory (to watch its size; the bindings own its contents). */
  readonly memory: WebAssembly.Memory;
}

export type WasmSource =
  | ArrayBuffer
  | ArrayBufferView
  | URL
  | string
  | Response
  | WebAssembly.Module;

/** Compile and instantiate the module (the .wasm beside this file when source is omitted). */
export declare function load(source?: WasmSource): Promise<TraditionalGames>;
