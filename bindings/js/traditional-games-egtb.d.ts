// Declarations of traditional-games/egtb (traditional-games-egtb.js): endgame databases, read in
// Node from a directory and in browsers (or Node) from a URL by HTTP Range requests.
import type { MoveAnalysis, Rules, RngArg, State, TraditionalGames } from './traditional-games.js';

/** tg_egtb_status, value for value as in tg-egtb.h. */
export declare const EgtbStatus: Readonly<{
  OK: 0;
  BAD_ARGUMENT: 1;
  UNSUPPORTED: 2;
  NOT_IN_DATABASE: 3;
  MISSING_FILE: 4;
  DAMAGED: 5;
  WRONG_RULES: 6;
  IO_ERROR: 7;
  NO_MEMORY: 8;
}>;

/** A database call failed. */
export declare class EgtbError extends Error {
  /** The EgtbStatus value. */
  readonly status: number;
  /** Its name: "DAMAGED", "MISSING_FILE", ... */
  readonly code: string;
  /** The library's text for it ("database file damaged"). */
  readonly description: string;
}

/** The exact value of a position (or of a move) for the player to move (tg_egtb_value). */
export declare class ExactValue {
  /** 1 a win, 0 a draw, -1 a loss. */
  readonly outcome: 1 | 0 | -1;
  /** An endless move one side is forced into decides the game (the margins are then 0). */
  readonly endless: boolean;
  /** Counters the player gains over the opponent from here to the end. */
  readonly marginToGo: number;
  /** The player's final score minus the opponent's: banked difference plus marginToGo. */
  readonly finalMargin: number;
  /** "win by 4, exact", "draw, exact", "loss by an endless move, exact" (English). */
  describe(): string;
}

/** One move of an analysis with a database: `exact` where the database gave the move's value. */
export interface ExactMoveAnalysis extends MoveAnalysis {
  /** The move's exact value for the player to move, or null where the database did not give it. */
  readonly exact: ExactValue | null;
}

/** Where the files are: a directory path (Node) or the URL of a directory (http:, https:). */
export type EgtbDirectory = string | { readonly href: string };

/** Options of Egtb.open(). */
export interface EgtbOpenOptions {
  /** The names of the files the directory holds ("halusa-08.egtb"): a directory cannot be
   * listed over HTTP, and any other file is then missing without a request for it. */
  files?: readonly string[] | null;
}

/** An open directory of database files for one rule set, with one reader. */
export declare class Egtb {
  /** Not for callers: Egtb.open() makes them (a TypeError otherwise). */
  private constructor();
  /** Opens a directory made by tg-egtb for a rule set. EgtbError UNSUPPORTED for rules that
   * have no database, IO_ERROR for a directory Node cannot read; missing and damaged files
   * are reported by the probes that need them. */
  static open(tg: TraditionalGames, directory: EgtbDirectory, rules: Rules | string,
    options?: EgtbOpenOptions): Promise<Egtb>;
  /** The directory as the library reads it (no trailing slash). */
  readonly directory: string;
  /** The canonical spec of the rule set. */
  readonly spec: string;
  /** Whether close() has been called. */
  readonly closed: boolean;
  /** The largest number of counters on the board with a sound file (0 if none). */
  maxCounters(): number;
  /** The exact value of a state for its player to move, or null where the database does not
   * cover it; EgtbError WRONG_RULES, MISSING_FILE, DAMAGED, IO_ERROR. */
  probe(state: State): Promise<ExactValue | null>;
  /** state.analyse(spec, rng) with this database attached: each move's exact value where the
   * database gives it. A failing database leaves the search's analysis, with a warning. */
  analyse(state: State, spec: string, rng: RngArg): Promise<ExactMoveAnalysis[]>;
  /** Frees the database; later calls throw. */
  close(): void;
}
