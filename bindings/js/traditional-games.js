// traditional-games: libtraditional-games, the C library, compiled to WebAssembly, with the same
// API in Node 20 and in browsers.
//
//   import { load, Rng } from 'traditional-games';
//   const tg = await load();                     // the .wasm next to this file, or bytes, a URL
//   const state = new tg.State('halusa');
//   state.apply('c1');
//   state.playout(new Rng(7n));
//   state.free();                                // or `using`, or leave it to the collector
//
// Every rule lives in the C library; the package only moves numbers and text across the wasm
// boundary. The module (a WASI reactor) imports one function of WASI, clock_time_get, which
// timed searches read; load() provides it (a monotonic clock) and nothing else of WASI. It
// also imports the endgame databases' file reads (module "tg_egtb", lib/egtb/host.c), which
// the loader passes on to the database in use (traditional-games/egtb, traditional-games-egtb.js).
//
// This file is the package's entry: load(), which binds one instance, and what it exports.
// Each job has its own module beside it:
//   traditional-games-constants.js  the header's constants and Status
//   traditional-games-errors.js     TGError and a class per status
//   traditional-games-args.js       argument checks, before anything reaches the library
//   traditional-games-rng.js        Rng
//   traditional-games-loader.js     compiling the module; the endgame databases' imports
//   traditional-games-calls.js      the wasm boundary of an instance: memory, buffers, statuses
//   traditional-games-rules.js      the game catalogue and Rules
//   traditional-games-state.js      State and the lifetime of C states
//   traditional-games-analysis.js   State.analyse and the endgame databases' calls
//   traditional-games-records.js    stories, end reasons and game records

export {
  MOVE_PASS, PLAYER_0, PLAYER_1, CHANCE, TERMINAL, DRAW, NO_WINNER_YET, CELL_LOCKED, CELL_DEAD, Status,
} from './traditional-games-constants.js';
export { EventKind, EndReason } from './traditional-games-records.js';
export {
  TGError, InvalidArgument, NoMemory, UnknownGame, BadOption, IllegalMove, ParseError, BufferTooSmall,
  NoHistory, GameOver, RulesMismatch, Busy, errorClassOf,
} from './traditional-games-errors.js';
export { Rng } from './traditional-games-rng.js';

import { describe, integerArg } from './traditional-games-args.js';
import { Rng } from './traditional-games-rng.js';
import { compileModule, makeEgtbHost } from './traditional-games-loader.js';
import { bindCalls } from './traditional-games-calls.js';
import { bindRules } from './traditional-games-rules.js';
import { bindState } from './traditional-games-state.js';
import { bindAnalysis } from './traditional-games-analysis.js';
import { bindRecords } from './traditional-games-records.js';

/**
 * Load the library: compile and instantiate the WebAssembly module and bind the API to it.
 *
 * @param source the module: omitted for the traditional-games.wasm next to this file; bytes
 *   (ArrayBuffer or a typed array); a URL or URL string (fetched; file: URLs are read in Node);
 *   a file path (Node); a fetch Response; or a compiled WebAssembly.Module.
 * @param options liveStatesWarning: warn once (process.emitWarning, else console.warn) when
 *   more States than this hold wasm memory at the same time (default 100000; Infinity: never).
 *   shouldStop: a function the running search calls every 256 positions (when it reads the
 *   clock); once it returns true the search stops with its best so far. With an Atomics flag
 *   in a SharedArrayBuffer it lets another thread stop a search running in this one.
 */
export async function load(source, options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`load() options must be an object, not ${describe(options)}`);
  }
  const { liveStatesWarning = 100000, shouldStop = null } = options;
  if (liveStatesWarning !== Infinity) integerArg(liveStatesWarning, 'liveStatesWarning', 0, 2 ** 32);
  if (shouldStop !== null && typeof shouldStop !== 'function') {
    throw new TypeError(`shouldStop must be a function, not ${describe(shouldStop)}`);
  }
  const module = await compileModule(source);
  let memory = null;
  // The search reads the clock every 256 positions; a nonzero answer (an errno) makes it stop
  // with its best so far, which is how a stop flag set by another thread reaches a search
  // running in this one (the Worker helper, traditional-games-search.js).
  const clock_time_get = (id, precision, ptr) => {
    if (shouldStop !== null && shouldStop()) return 1;
    const ns = BigInt(Math.round(performance.now() * 1e6));
    new DataView(memory.buffer).setBigUint64(ptr >>> 0, ns, true);
    return 0;
  };
  const egtbHost = makeEgtbHost(() => memory);
  const instance = await WebAssembly.instantiate(module, {
    wasi_snapshot_preview1: { clock_time_get },
    tg_egtb: egtbHost.imports,
  });
  memory = instance.exports.memory;
  return bind(instance.exports, liveStatesWarning, egtbHost);
}

// ---------------------------------------------------------------------------------------------
// One loaded instance: its own linear memory, its own Rules and State classes. A handle of one
// instance is a pointer into that instance's memory only, so the classes are made per instance
// and `instanceof` keeps handles from crossing over.

function bind(wasm, liveStatesWarning, egtbHost) {
  const calls = bindCalls(wasm);
  const { check, cString, statusString } = calls;
  // Rules.newState needs the State class, which needs Rules: it is asked for once both exist.
  let State = null;
  const rules = bindRules(calls, () => State);
  const { Rules, rulesHandle, withRules, games, checkBot } = rules;
  const analysis = bindAnalysis(calls);
  const states = bindState(calls, rules, analysis, bindRecords(calls), liveStatesWarning);
  State = states.State;
  const { stateHandle } = states;
  const egtb = analysis.egtbCalls(egtbHost, withRules, stateHandle);

  return Object.freeze({
    Rules,
    State,
    Rng,
    games,
    checkBot,
    statusString,
    /** C states the bindings hold now (shared ones once): what free() and the collector
     * bring down. */
    get liveStates() {
      return states.liveStates();
    },
    version: cString(wasm.tg_version_string()),
    versionNumber: wasm.tg_version() >>> 0,
    memory: wasm.memory,
    // For the package's own modules (traditional-games/learning), not for applications.
    _internal: Object.freeze({
      wasm, check, rulesHandle, stateHandle, egtb,
    }),
  });
}
