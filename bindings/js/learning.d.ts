// Declarations of traditional-games/learning (learning.js): the learning interface on typed
// arrays. Importing this module's types adds the members learning(tg) attaches to Rules and
// State; call learning(tg) before using them.
import type { Move, Rules, TraditionalGames } from './traditional-games.js';

declare module './traditional-games.js' {
  interface Rules {
    /** [size]: the observation is a flat Float32Array of that many values. */
    readonly observationShape: [number];
    /** [planes, scalars]: planes of rows * cols values, then scalars (docs/learning.md). */
    readonly observationLayout: [number, number];
    /** The size of the fixed action space. */
    readonly actionCount: number;
  }
  interface State {
    /** The observation by player 0 or 1, the board turned so that player sits at the bottom. */
    observation(player: number): Float32Array;
    /** 1 for each legal action now (all 0 at a chance state or a finished game). */
    actionMask(): Uint8Array;
    /** The legal move an action stands for now. An action that is not an integer throws a
     * TypeError, one outside 0 .. actionCount - 1 an InvalidArgument naming it, an action in
     * range that is not legal now an IllegalMove. */
    actionToMove(action: number): Move;
    /** The action of a legal decision (IllegalMove if it is not one now). */
    moveToAction(move: Move): number;
    /** Apply the move an action stands for, refused as actionToMove() refuses it. */
    applyAction(action: number): void;
  }
}

/** What VectorEnv's calls report besides observations, laid out game after game. */
export interface VectorInfo {
  /** numEnvs * actionCount bytes: the legal actions of each game now. */
  readonly actionMask: Uint8Array;
  /** Whose view each observation is: the player to move (or the last mover of a finished game). */
  readonly player: Int8Array;
  /** 2 * numEnvs: the reward of player 0 and of player 1 in each game (0 after reset). */
  readonly rewards: Float32Array;
  /** 0 where the action was taken, else the tg_status that refused it (0 after reset). */
  readonly status: Int32Array;
  /** With autoreset, after a step in which games ended: numEnvs * size floats, each ended
   * game's last observation (seen by finalPlayer), zeros for the other games; else null. */
  readonly finalObs: Float32Array | null;
  /** With finalObs: whose view each ended game's last observation is (0 elsewhere); else null. */
  readonly finalPlayer: Int8Array | null;
}

export interface VectorEnvOptions {
  /** Start a finished game again within the same step (default true). */
  autoreset?: boolean;
  /** true (default): every array returned is new. false: the environment's own arrays,
   * rewritten in place by its next call. Either way they are outside wasm memory: they stay
   * valid when it grows and after free(). */
  copy?: boolean;
}

/** n games of one rule set stepped by one call, shaped as Gymnasium's vector API. No array it
 * returns is a view of wasm memory (see VectorEnvOptions.copy). */
export interface VectorEnv {
  readonly rules: Rules;
  readonly numEnvs: number;
  readonly observationShape: [number];
  readonly actionCount: number;
  /** Whether a game that ends starts again within the same step (the option given). */
  readonly autoreset: boolean;
  /** Whether each call returns new arrays (the option given; see VectorEnvOptions.copy). */
  readonly copy: boolean;
  /** Whether free() was called; every call but free() then throws a TypeError. */
  readonly freed: boolean;
  /** [obs (numEnvs * size), info]; seeds the generators first if a seed is given. */
  reset(seed?: bigint | number): [Float32Array, VectorInfo];
  /** [obs, rewards (for the player who moved), terminated, truncated (always 0), info]. Each
   * action must be an integer 0 .. actionCount - 1: otherwise TypeError (not an integer) or
   * InvalidArgument (out of range) naming the games, and nothing steps. */
  step(actions: ArrayLike<number>): [Float32Array, Float32Array, Uint8Array, Uint8Array, VectorInfo];
  state(i: number): import('./traditional-games.js').State;
  rngState(i: number): bigint;
  free(): void;
  [Symbol.dispose](): void;
}

export interface VectorEnvConstructor {
  new (spec?: Rules | string, n?: number, seed?: bigint | number, options?: VectorEnvOptions): VectorEnv;
}

/** The learning interface of one loaded instance. */
export declare function learning(tg: TraditionalGames): { readonly VectorEnv: VectorEnvConstructor };
