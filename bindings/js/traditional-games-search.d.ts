// Type declarations of traditional-games/search: searches in a Worker, abortable.
import type { MoveAnalysis, Move, RngArg, State } from './traditional-games.js';

/** Options of a SearchWorker request. */
export interface SearchOptions {
  /** Aborting it rejects the request at once with the signal's reason (an AbortError) and
   * stops the search. */
  signal?: AbortSignal;
}

/** Options of a SearchWorker. */
export interface SearchWorkerOptions {
  /** What the Worker's load() gets: default the .wasm beside the package; a URL string,
   * bytes or a WebAssembly.Module can be sent to a Worker. */
  wasm?: unknown;
}

/** Searches in a Worker (worker_threads in Node, a module Worker in browsers), one at a time,
 * in order; the state is read (its position string) when the request is made. */
export declare class SearchWorker {
  /** A SearchWorker; its Worker starts with the first request. */
  constructor(options?: SearchWorkerOptions);
  /** state.analyse(spec, rng), run in the Worker; rng (an Rng) advances when it resolves. */
  analyse(state: State, spec: string, rng: RngArg, options?: SearchOptions): Promise<MoveAnalysis[]>;
  /** state.botChoose(spec, rng), run in the Worker; rng (an Rng) advances when it resolves. */
  choose(state: State, spec: string, rng: RngArg, options?: SearchOptions): Promise<Move>;
  /** Stop the Worker; pending requests are rejected. */
  terminate(): void;
}
