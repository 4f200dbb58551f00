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
// Every rule lives in the C library; this file only moves numbers and text across the wasm
// boundary. The module (a WASI reactor) imports one function of WASI, clock_time_get, which
// timed searches read; this file provides it (a monotonic clock) and nothing else of WASI. It
// also imports the endgame databases' file reads (module "tg_egtb", lib/egtb/host.c), which
// this file passes on to the database in use (traditional-games/egtb, traditional-games-egtb.js).

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder('utf-8');

// ---------------------------------------------------------------------------------------------
// Constants of the header, value for value.

export const MOVE_PASS = 0xfffffffe;
export const PLAYER_0 = 0;
export const PLAYER_1 = 1;
export const CHANCE = -1;
export const TERMINAL = -2;
export const DRAW = -3;
export const NO_WINNER_YET = -4;
export const CELL_LOCKED = 1;
export const CELL_DEAD = 2;

export const Status = Object.freeze({
  TG_OK: 0,
  TG_ERR_INVALID_ARGUMENT: 1,
  TG_ERR_NO_MEMORY: 2,
  TG_ERR_UNKNOWN_GAME: 3,
  TG_ERR_BAD_OPTION: 4,
  TG_ERR_ILLEGAL_MOVE: 5,
  TG_ERR_PARSE: 6,
  TG_ERR_BUFFER_TOO_SMALL: 7,
  TG_ERR_NO_HISTORY: 8,
  TG_ERR_GAME_OVER: 9,
  TG_ERR_RULES_MISMATCH: 10,
  TG_ERR_BUSY: 11,
});

const statusNames = Object.fromEntries(Object.entries(Status).map(([k, v]) => [v, k]));

// tg_event_kind (story-api.h), value for value: the name of kind k is EVENT_NAMES[k - 1].
const EVENT_NAMES = [
  'lift', 'drop', 'capture', 'resow', 'score', 'pass', 'throw', 'move-from', 'step', 'move-to',
  'unlock', 'king', 'split', 'take', 'throws-lost', 'turn', 'gather', 'round-end', 'fill', 'dead',
  'round-start', 'endless', 'elision', 'elided-sown', 'set', 'game-end',
];

/** The story events' kinds, as `{ 'lift': 1, ... }` (TG_EVENT_LIFT = 1, ...). */
export const EventKind = Object.freeze(Object.fromEntries(EVENT_NAMES.map((name, i) => [name, i + 1])));

// tg_end_reason, value for value: the token of reason r is END_REASONS[r] (tg_end_reason_name).
const END_REASONS = [
  'none', 'unknown', 'no-move', 'empty-row', 'store-short', 'all-captured', 'all-across',
  'blocked', 'quiet', 'endless',
];

/** The end reasons, as `{ 'none': 0, 'unknown': 1, ... }` (TG_END_NONE = 0, ...). */
export const EndReason = Object.freeze(Object.fromEntries(END_REASONS.map((name, i) => [name, i])));

const FIELD_NONE = 0xffffffff;

// The major version these bindings were written for: a library of another major has another ABI.
const SUPPORTED_MAJOR = 0;

const MOVE_MAX = 0xffffffff;
const SIZE_MAX = 0xffffffff; // size_t is 32 bits in wasm32

// ---------------------------------------------------------------------------------------------
// Errors: one class per status, so that callers can catch exactly what they expect.

export class TGError extends Error {
  /**
   * @param {number} status a tg_status
   * @param {string} [description] the library's text for it (tg_status_string)
   * @param {string} [context] what was being done
   */
  constructor(status, description = '', context = '') {
    const code = statusNames[status] ?? `TG_STATUS_${status}`;
    let message = description ? `${code}: ${description}` : code;
    if (context) message += ` (${context})`;
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.description = description;
    this.context = context;
  }
}
export class InvalidArgument extends TGError {}
export class NoMemory extends TGError {}
export class UnknownGame extends TGError {}
export class BadOption extends TGError {}
export class IllegalMove extends TGError {}
export class ParseError extends TGError {}
/** Never expected: the bindings size every buffer from the library's own answer. */
export class BufferTooSmall extends TGError {}
export class NoHistory extends TGError {}
export class GameOver extends TGError {}
export class RulesMismatch extends TGError {}
/** A search is already running on the same engine (cannot happen through these bindings). */
export class Busy extends TGError {}

const errorClasses = {
  1: InvalidArgument,
  2: NoMemory,
  3: UnknownGame,
  4: BadOption,
  5: IllegalMove,
  6: ParseError,
  7: BufferTooSmall,
  8: NoHistory,
  9: GameOver,
  10: RulesMismatch,
  11: Busy,
};

/** The error class of a status (TGError for one these bindings do not know). */
export function errorClassOf(status) {
  return errorClasses[status] ?? TGError;
}

// ---------------------------------------------------------------------------------------------
// Random numbers: the caller's 64-bit splitmix64 state, kept in JavaScript as a BigInt and lent
// to the library for each call, so one Rng serves every loaded instance.

const U64_MASK = (1n << 64n) - 1n;

function toU64(value, what) {
  if (typeof value === 'bigint') return value & U64_MASK;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(`${what} must be a safe integer or a BigInt, not ${value}`);
    }
    return BigInt(value) & U64_MASK;
  }
  throw new TypeError(`${what} must be a BigInt or an integer, not ${describe(value)}`);
}

export class Rng {
  #state;

  /** @param {bigint | number} [seed] any integer, taken modulo 2**64; 0 when omitted (an
   * explicit undefined is a TypeError: it is far more often a mistake than a wish for 0) */
  constructor(seed) {
    this.#state = arguments.length === 0 ? 0n : toU64(seed, 'seed');
  }

  /** The generator state, a BigInt in 0 .. 2**64-1. */
  get state() {
    return this.#state;
  }

  set state(value) {
    this.#state = toU64(value, 'state');
  }

  /** An independent generator at the same state. */
  copy() {
    return new Rng(this.#state);
  }

  equals(other) {
    return other instanceof Rng && other.#state === this.#state;
  }

  toString() {
    return `Rng(0x${this.#state.toString(16).padStart(16, '0')})`;
  }

  /** JSON has no 64-bit integers: the state as a decimal string (`new Rng(BigInt(text))`). */
  toJSON() {
    return this.#state.toString();
  }
}

function rngArg(rng) {
  if (rng instanceof Rng) return rng;
  // A seed makes a one-off generator: the caller sees no advance, as in the Python package.
  if (typeof rng === 'bigint' || typeof rng === 'number') return new Rng(rng);
  throw new TypeError(`rng must be an Rng or a seed, not ${describe(rng)}`);
}

// ---------------------------------------------------------------------------------------------
// Argument checks. Wrong types are TypeError and values that cannot be passed to C RangeError,
// before anything reaches the library: nothing JavaScript can pass corrupts wasm memory.

function describe(value) {
  if (value === null) return 'null';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}

// How much of a caller's text an error message quotes: enough to recognise it, never the whole
// of a 100 MB string (the message would be as large, and JSON.stringify of it can fail).
const QUOTE_MAX = 200;

/** text for an error message: JSON-quoted, cut to QUOTE_MAX characters with its length noted. */
function quote(text) {
  if (typeof text !== 'string') return String(text);
  if (text.length <= QUOTE_MAX) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, QUOTE_MAX))}... (${text.length} characters)`;
}

function integerArg(value, what, min, max) {
  if (typeof value !== 'number') {
    throw new TypeError(`${what} must be a number, not ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be an integer from ${min} to ${max}, not ${value}`);
  }
  return value;
}

function moveNumber(move) {
  return integerArg(move, 'a move', 0, MOVE_MAX);
}

function stringArg(value, what) {
  if (typeof value !== 'string') {
    throw new TypeError(`${what} must be a string, not ${describe(value)}`);
  }
  return value;
}

// A spec with a NUL cannot reach C intact; it gets the status the library gives a malformed spec
// of that shape, so callers need catch only TGError for bad text.
function specNulStatus(spec) {
  return spec.split('\0', 1)[0].includes(':') ? Status.TG_ERR_BAD_OPTION : Status.TG_ERR_UNKNOWN_GAME;
}

// ---------------------------------------------------------------------------------------------
// Loading.

// The file's only contact with Node: its built-in modules fetched at run time through
// process.getBuiltinModule (Node 20.16 and later), never imported, so that bundlers for the
// browser find nothing to resolve. Elsewhere it is null and files are fetched.
function nodeBuiltin(name) {
  const getBuiltin = globalThis.process?.getBuiltinModule;
  return typeof getBuiltin === 'function' ? getBuiltin(name) : null;
}

async function compileModule(source) {
  // Written out in full so that bundlers (webpack, Vite, Parcel; esbuild with a .wasm loader
  // when imported instead) see the asset and emit it beside the bundle.
  if (source === undefined) source = new URL('./traditional-games.wasm', import.meta.url);
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(source);
  }
  if (typeof Response === 'function' && source instanceof Response) {
    return compileResponse(source, source.url);
  }
  let url;
  if (source instanceof URL) {
    url = source;
  } else if (typeof source === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(source) && !/^[a-z]:[\\/]/i.test(source)) {
      url = new URL(source);
    } else if (nodeBuiltin('node:url')) {
      url = nodeBuiltin('node:url').pathToFileURL(source);
    } else {
      url = new URL(source, globalThis.location?.href);
    }
  } else {
    throw new TypeError(
      `load() takes bytes, a URL, a path, a Response or a WebAssembly.Module, not ${describe(source)}`);
  }
  const fs = url.protocol === 'file:' ? nodeBuiltin('node:fs') : null;
  if (fs) {
    // Node's fetch() does not read files.
    return WebAssembly.compile(await fs.promises.readFile(url));
  }
  return compileResponse(await fetch(url), url.href);
}

async function compileResponse(response, where) {
  if (!response.ok) {
    throw new Error(`traditional-games: cannot fetch ${where}: HTTP ${response.status}`);
  }
  // Not compileStreaming: that insists on the Content-Type application/wasm, which many
  // servers do not send, and the module is small.
  return WebAssembly.compile(await response.arrayBuffer());
}

const REQUIRED_EXPORTS = [
  'memory', '_initialize', 'malloc', 'free',
  'tg_status_string', 'tg_version', 'tg_version_string',
  'tg_game_count', 'tg_game_id', 'tg_game_name', 'tg_game_option_count', 'tg_game_option_key',
  'tg_game_option_values', 'tg_game_option_default',
  'tg_rules_new', 'tg_rules_free', 'tg_rules_spec', 'tg_rules_game_id', 'tg_rules_rows',
  'tg_rules_cols', 'tg_rules_max_moves',
  'tg_state_new', 'tg_state_clone', 'tg_state_copy', 'tg_state_free', 'tg_state_rules',
  'tg_state_player', 'tg_state_turn', 'tg_state_is_terminal', 'tg_state_winner',
  'tg_state_score', 'tg_state_returns', 'tg_state_ply', 'tg_state_history', 'tg_state_moves',
  'tg_state_chance', 'tg_state_is_legal', 'tg_state_apply', 'tg_state_undo',
  'tg_state_apply_random', 'tg_state_count', 'tg_state_owner', 'tg_state_flags',
  'tg_move_to_string', 'tg_move_from_string', 'tg_state_to_string', 'tg_state_from_string',
  'tg_state_render', 'tg_state_hash', 'tg_state_equal', 'tg_state_playout',
  'tg_state_playout_stats', 'tg_perft', 'tg_bot_choose', 'tg_bot_check',
  'tg_state_story', 'tg_state_end_reason', 'tg_end_reason_name', 'tg_state_record',
  'tg_state_from_record',
  'tg_search_new', 'tg_search_free', 'tg_search_analyse', 'tg_search_result_count',
  'tg_search_result', 'tg_search_result_line', 'tg_search_stats', 'tg_search_stop',
];

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

// The endgame databases' reads (lib/egtb/host.c). A WebAssembly import cannot wait for a file
// or a fetch, so each answers from what the database in use (host.session, set by
// traditional-games-egtb.js around each call into the library) has read already; what it has
// not, the session notes as needed and answers TG_EGTB_IO_ERROR, and its asynchronous caller
// reads what was noted and calls again. This file only moves the bytes.
const EGTB_IO_ERROR = 7;

function makeEgtbHost(getMemory) {
  const host = { session: null, imports: null };
  const text = (ptr, length) => textDecoder.decode(new Uint8Array(getMemory().buffer, ptr >>> 0, length >>> 0));
  host.imports = {
    dir: (ptr, length) => host.session?.dirStatus(text(ptr, length)) ?? EGTB_IO_ERROR,
    open: (ptr, length) => host.session?.openFile(text(ptr, length)) ?? -EGTB_IO_ERROR,
    close: (file) => {
      host.session?.closeFile(file);
    },
    header_size: (file, offsetPtr) => {
      const answer = host.session?.headerSize(file) ?? EGTB_IO_ERROR;
      if (typeof answer === 'number') return -answer;
      new DataView(getMemory().buffer).setBigUint64(offsetPtr >>> 0, BigInt(answer.frameOffset), true);
      return answer.size;
    },
    header: (file, outPtr, size) => {
      const raw = host.session?.header(file);
      if (!raw || raw.length !== size >>> 0) return EGTB_IO_ERROR;
      new Uint8Array(getMemory().buffer, outPtr >>> 0, raw.length).set(raw);
      return 0;
    },
    block: (file, offset, size, outPtr, want) => {
      const answer = host.session?.block(file, Number(offset), size >>> 0, want >>> 0) ?? EGTB_IO_ERROR;
      if (typeof answer === 'number') return answer;
      new Uint8Array(getMemory().buffer, outPtr >>> 0, answer.length).set(answer);
      return 0;
    },
  };
  return host;
}

// ---------------------------------------------------------------------------------------------
// One loaded instance: its own linear memory, its own Rules and State classes. A handle of one
// instance is a pointer into that instance's memory only, so the classes are made per instance
// and `instanceof` keeps handles from crossing over.

function bind(wasm, liveStatesWarning, egtbHost) {
  const missing = REQUIRED_EXPORTS.filter((name) => !(name in wasm));
  if (missing.length) {
    throw new Error(`traditional-games: the WebAssembly module lacks ${missing.join(', ')}`);
  }
  // A reactor's constructors (libc's initialisation) run once, before any other call.
  wasm._initialize();
  const major = Math.floor((wasm.tg_version() >>> 0) / 10000);
  if (major !== SUPPORTED_MAJOR) {
    throw new Error(`traditional-games: the module is libtraditional-games major version ${major}; ` +
      `these bindings need ${SUPPORTED_MAJOR}`);
  }

  // Any call that allocates may grow the memory, which detaches every view of the old buffer:
  // views are re-made whenever the buffer changed, before each use.
  const memory = wasm.memory;
  let bytes = new Uint8Array(memory.buffer);
  let view = new DataView(memory.buffer);
  function heap() {
    if (bytes.buffer !== memory.buffer) {
      bytes = new Uint8Array(memory.buffer);
      view = new DataView(memory.buffer);
    }
    return view;
  }

  function allocate(size) {
    const ptr = wasm.malloc(size) >>> 0;
    if (ptr === 0) throw makeError(Status.TG_ERR_NO_MEMORY, 'allocating wasm memory');
    return ptr;
  }

  // Out-parameters: one pointer, one size_t, one tg_move, the generator, two doubles and the
  // playout counters, each at its own aligned offset of one block kept for the instance's life.
  // OUT_EXACT: a tg_egtb_value (four ints) and the bool beside it.
  const OUT_PTR = 0, OUT_SIZE = 4, OUT_MOVE = 8, OUT_RNG = 16, OUT_DOUBLES = 24, OUT_STATS = 40;
  const STAT_COUNT = 4;
  const OUT_EXACT = OUT_STATS + 8 * STAT_COUNT, EXACT_BYTES = 20;
  const scratch = allocate(OUT_EXACT + EXACT_BYTES);

  // Two growable buffers: text going in, lists and text coming out (one call never needs two
  // of the same kind).
  const inBuffer = { ptr: 0, size: 0 };
  const outBuffer = { ptr: 0, size: 0 };
  function reserve(buffer, size) {
    if (size > buffer.size) {
      const grown = Math.max(size, 2 * buffer.size, 256);
      const ptr = allocate(grown);
      if (buffer.ptr) wasm.free(buffer.ptr);
      buffer.ptr = ptr;
      buffer.size = grown;
    }
    return buffer.ptr;
  }

  function cString(ptr) {
    ptr >>>= 0;
    if (ptr === 0) return null;
    heap();
    const end = bytes.indexOf(0, ptr);
    return textDecoder.decode(bytes.subarray(ptr, end));
  }

  /** A JavaScript string as NUL-terminated UTF-8 in the input buffer; the error names it as
   * `label` (quoted) if it holds a NUL. */
  function inputText(text, nulStatus, label) {
    const encoded = textEncoder.encode(text);
    if (encoded.includes(0)) throw makeError(nulStatus, `${label} ${quote(text)} contains a NUL character`);
    const ptr = reserve(inBuffer, encoded.length + 1);
    heap();
    bytes.set(encoded, ptr);
    bytes[ptr + encoded.length] = 0;
    return ptr;
  }

  function readU32(ptr) {
    return heap().getUint32(ptr, true);
  }

  function statusString(status) {
    return cString(wasm.tg_status_string(integerArg(status, 'status', -(2 ** 31), 2 ** 31 - 1)));
  }

  function makeError(status, context) {
    const ErrorClass = errorClasses[status] ?? TGError;
    return new ErrorClass(status, statusString(status), context);
  }

  // The message is made only on failure: a successful call builds no string. `input`, when
  // given, is the caller's text or value, quoted (and cut short) after the label.
  function check(status, label, input) {
    if (status !== 0) throw makeError(status, input === undefined ? label : `${label} ${quote(input)}`);
  }

  /** The buffer contract: measure with NULL and 0, then write into a buffer of that size. */
  function readText(fn, handle, context) {
    check(fn(handle, 0, 0, scratch + OUT_SIZE), context);
    const size = readU32(scratch + OUT_SIZE) + 1;
    const ptr = reserve(outBuffer, size);
    check(fn(handle, ptr, size, 0), context);
    return cString(ptr);
  }

  /** Calls fn(rngPtr) with the generator lent to wasm memory, and takes its new state back. */
  function withRng(rng, fn) {
    const ptr = scratch + OUT_RNG;
    heap().setBigUint64(ptr, rng.state, true);
    try {
      return fn(ptr);
    } finally {
      rng.state = heap().getBigUint64(ptr, true);
    }
  }

  // Handles not freed by their owner are freed when collected. The held value is the pointer
  // (or, for a State, its small `ref` record) alone, never the object, or the object could
  // never be collected.
  const rulesRegistry = new FinalizationRegistry((ptr) => wasm.tg_rules_free(ptr));

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

  const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose');
  const WRAP = Symbol('wrap an owned pointer');

  let rulesHandle; // (rules) => pointer, or TypeError: set inside Rules
  let stateHandle; // (state) => pointer, or TypeError: set inside State

  function games() {
    const result = [];
    const count = wasm.tg_game_count() >>> 0;
    for (let i = 0; i < count; i++) {
      const options = [];
      const optionCount = wasm.tg_game_option_count(i) >>> 0;
      for (let k = 0; k < optionCount; k++) {
        const values = cString(wasm.tg_game_option_values(i, k));
        const range = /^(\d+)\.\.(\d+)$/.exec(values);
        options.push(Object.freeze({
          key: cString(wasm.tg_game_option_key(i, k)),
          values,
          default: cString(wasm.tg_game_option_default(i, k)),
          choices: range ? null : Object.freeze(values.split('|')),
          range: range ? Object.freeze({ min: Number(range[1]), max: Number(range[2]) }) : null,
        }));
      }
      result.push(Object.freeze({
        id: cString(wasm.tg_game_id(i)),
        name: cString(wasm.tg_game_name(i)),
        options: Object.freeze(options),
      }));
    }
    return result;
  }

  function checkBot(spec) {
    stringArg(spec, 'a bot spec');
    check(wasm.tg_bot_check(inputText(spec, Status.TG_ERR_BAD_OPTION, 'bot spec')), 'bot spec', spec);
  }

  // -------------------------------------------------------------------------------------------

  class Rules {
    #ptr = 0;

    static {
      rulesHandle = (rules) => {
        if (!(rules instanceof Rules)) {
          throw new TypeError(`expected a Rules of this loaded library, not ${describe(rules)}`);
        }
        return rules.#handle();
      };
    }

    /** @param {string} [spec] e.g. "halusa" or "halusa:remainder=owner,quiet=50"; "halusa" when
     * omitted (an explicit undefined is a TypeError, as any other non-string) */
    constructor(spec) {
      if (arguments.length === 0) spec = 'halusa';
      stringArg(spec, 'a rule spec');
      const text = inputText(spec, specNulStatus(spec), 'rule spec');
      check(wasm.tg_rules_new(text, scratch + OUT_PTR), 'rule spec', spec);
      this.#ptr = readU32(scratch + OUT_PTR);
      rulesRegistry.register(this, this.#ptr, this);
    }

    static games() {
      return games();
    }

    #handle() {
      if (this.#ptr === 0) throw new TypeError('this Rules has been freed');
      return this.#ptr;
    }

    /** Release the C rule set now (once; later calls do nothing). States made from it live on. */
    free() {
      if (this.#ptr !== 0) {
        rulesRegistry.unregister(this);
        wasm.tg_rules_free(this.#ptr);
        this.#ptr = 0;
      }
    }

    [dispose]() {
      this.free();
    }

    get freed() {
      return this.#ptr === 0;
    }

    /** The canonical spec: the game id and every option, in the game's order. */
    get spec() {
      return cString(wasm.tg_rules_spec(this.#handle()));
    }

    get gameId() {
      return cString(wasm.tg_rules_game_id(this.#handle()));
    }

    get rows() {
      return wasm.tg_rules_rows(this.#handle());
    }

    get cols() {
      return wasm.tg_rules_cols(this.#handle());
    }

    /** An upper bound on the legal moves or chance outcomes of any state. */
    get maxMoves() {
      return wasm.tg_rules_max_moves(this.#handle()) >>> 0;
    }

    newState() {
      return new State(this);
    }

    stateFromString(text) {
      return State.fromString(this, text);
    }

    equals(other) {
      return other instanceof Rules && other.spec === this.spec;
    }

    toString() {
      return this.spec;
    }

    /** JSON.stringify(rules) gives the canonical spec. */
    toJSON() {
      return this.spec;
    }
  }

  // Runs fn(rulesPointer) for a Rules or a spec string (a temporary Rules, freed after).
  function withRules(rules, fn) {
    if (typeof rules === 'string') {
      const owned = new Rules(rules);
      try {
        return fn(rulesHandle(owned), null);
      } finally {
        owned.free();
      }
    }
    if (!(rules instanceof Rules)) {
      throw new TypeError(`rules must be a Rules of this loaded library or a spec string, not ${describe(rules)}`);
    }
    return fn(rulesHandle(rules), rules);
  }

  // -------------------------------------------------------------------------------------------

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
      const handle = this.#handle();
      check(wasm.tg_state_history(handle, 0, 0, scratch + OUT_SIZE), 'story');
      integerArg(index, 'a history index', 0, readU32(scratch + OUT_SIZE) - 1);
      check(wasm.tg_state_story(handle, index, 0, 0, scratch + OUT_SIZE), 'story');
      const count = readU32(scratch + OUT_SIZE);
      const ptr = reserve(outBuffer, 16 * Math.max(count, 1));
      check(wasm.tg_state_story(handle, index, ptr, count, scratch + OUT_SIZE), 'story');
      const v = heap();
      const cols = this.#cols;
      const events = new Array(count);
      for (let i = 0; i < count; i++) {
        const at = ptr + 16 * i;
        const kind = v.getUint32(at, true);
        const cell = v.getUint32(at + 4, true);
        const n = v.getUint32(at + 8, true);
        const player = v.getUint32(at + 12, true);
        const event = {
          kind: EVENT_NAMES[kind - 1] ?? `kind-${kind}`,
          cell: cell === FIELD_NONE ? null : { row: Math.floor(cell / cols), col: cell % cols },
          count: n === FIELD_NONE ? null : n,
          player: player === FIELD_NONE ? null : player,
        };
        if (kind === EventKind['game-end']) event.reason = END_REASONS[n] ?? 'invalid';
        events[i] = event;
      }
      return events;
    }

    /** Why the game ended, an EndReason name: 'none' while it runs; 'unknown' for a finished
     * position whose ending cannot be told (read from a string, or after a playout). */
    get endReason() {
      return cString(wasm.tg_end_reason_name(wasm.tg_state_end_reason(this.#handle())));
    }

    /**
     * The game as a record (docs/records.md): the Rules tag, Start when the game did not
     * start from the initial position, the caller's tags, Result, Termination, then every
     * move of the history. tags: an object `{ White: 'Ann' }` or an array of [name, value]
     * pairs, in the order to write them; InvalidArgument for a malformed name, a value with a
     * line break, or one of the library's own four tags.
     */
    toRecord(tags = null) {
      const handle = this.#handle();
      let tagText = 0;
      if (tags !== null && tags !== undefined) {
        const pairs = Array.isArray(tags) ? tags : (typeof tags === 'object' ? Object.entries(tags) : null);
        if (pairs === null) throw new TypeError(`tags must be an object or an array of [name, value] pairs, not ${describe(tags)}`);
        let text = '';
        for (const pair of pairs) {
          if (!Array.isArray(pair) || pair.length !== 2) {
            throw new TypeError(`each tag must be a [name, value] pair, not ${describe(pair)}`);
          }
          const name = stringArg(pair[0], 'a tag name');
          const value = stringArg(pair[1], `the value of tag ${quote(name)}`);
          text += `[${name} "${value.replace(/[\\"]/g, '\\$&')}"]\n`;
        }
        tagText = inputText(text, Status.TG_ERR_INVALID_ARGUMENT, 'tags');
      }
      // The tags stay in the input buffer while the record is measured and written.
      check(wasm.tg_state_record(handle, tagText, 0, 0, scratch + OUT_SIZE), 'toRecord');
      const size = readU32(scratch + OUT_SIZE) + 1;
      const ptr = reserve(outBuffer, size);
      check(wasm.tg_state_record(handle, tagText, ptr, size, 0), 'toRecord');
      return cString(ptr);
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

  function moveName(handle, move) {
    moveNumber(move);
    check(wasm.tg_move_to_string(handle, move, 0, 0, scratch + OUT_SIZE), 'move', move);
    const size = readU32(scratch + OUT_SIZE) + 1;
    const ptr = reserve(outBuffer, size);
    check(wasm.tg_move_to_string(handle, move, ptr, size, 0), 'move', move);
    return cString(ptr);
  }

  /** tg_egtb_value at ptr, as { outcome, endless, marginToGo, finalMargin }. */
  function readExactValue(ptr) {
    const v = heap();
    return {
      outcome: v.getInt32(ptr, true),
      endless: v.getInt32(ptr + 4, true) !== 0,
      marginToGo: v.getInt32(ptr + 8, true),
      finalMargin: v.getInt32(ptr + 12, true),
    };
  }

  // State.analyse, and the same with an open database attached (egtb: a tg_egtb pointer, or 0):
  // then each result also has `exact` (its exact value, or null) and the call says what the
  // database did (tg_search_egtb_status).
  function analyseState(handle, spec, rng, egtb) {
    stringArg(spec, 'a bot spec');
    rng = rngArg(rng);
    const specPtr = inputText(spec, Status.TG_ERR_BAD_OPTION, 'bot');
    check(wasm.tg_search_new(specPtr, scratch + OUT_PTR), 'bot', spec);
    const search = readU32(scratch + OUT_PTR);
    try {
      if (egtb) check(wasm.tg_search_set_egtb(search, egtb), 'database', spec);
      withRng(rng, (rngPtr) => check(wasm.tg_search_analyse(search, handle, rngPtr), 'analyse'));
      const count = wasm.tg_search_result_count(search) >>> 0;
      const results = [];
      for (let i = 0; i < count; i++) {
        check(wasm.tg_search_result(search, i, scratch + OUT_MOVE, scratch + OUT_DOUBLES,
          scratch + OUT_DOUBLES + 8), 'analyse');
        const v = heap();
        const move = v.getUint32(scratch + OUT_MOVE, true);
        const value = v.getFloat64(scratch + OUT_DOUBLES, true);
        const proven = v.getUint8(scratch + OUT_DOUBLES + 8) !== 0;
        check(wasm.tg_search_result_line(search, i, 0, 0, scratch + OUT_SIZE), 'analyse');
        const size = readU32(scratch + OUT_SIZE) + 1;
        const ptr = reserve(outBuffer, size);
        check(wasm.tg_search_result_line(search, i, ptr, size, 0), 'analyse');
        const line = cString(ptr).split(' ').filter((m) => m !== '');
        const result = { move, name: line[0] ?? moveName(handle, move), value, proven, line };
        if (egtb) {
          check(wasm.tg_search_result_exact(search, i, scratch + OUT_EXACT, scratch + OUT_EXACT + 16),
            'analyse');
          result.exact = heap().getUint8(scratch + OUT_EXACT + 16) !== 0 ? readExactValue(scratch + OUT_EXACT) : null;
        }
        results.push(result);
      }
      return { results, egtbStatus: egtb ? wasm.tg_search_egtb_status(search) : 0 };
    } finally {
      wasm.tg_search_free(search);
    }
  }

  // The endgame databases' calls, for traditional-games-egtb.js: each returns the
  // tg_egtb_status and what the call gave.
  const egtb = Object.freeze({
    host: egtbHost,
    available: ['tg_egtb_open', 'tg_egtb_reader_probe', 'tg_search_set_egtb'].every((name) => name in wasm),
    statusString: (status) => cString(wasm.tg_egtb_status_string(status)),
    supported: (rules) => withRules(rules, (ptr) => wasm.tg_egtb_supported(ptr)),
    open(dir, rules) {
      return withRules(rules, (rulesPtr) => {
        // After the rules: reading a spec string uses the same input buffer.
        const dirPtr = inputText(dir, Status.TG_ERR_INVALID_ARGUMENT, 'directory');
        const status = wasm.tg_egtb_open(dirPtr, rulesPtr, scratch + OUT_PTR);
        return { status, db: status === 0 ? readU32(scratch + OUT_PTR) : 0 };
      });
    },
    close: (db) => wasm.tg_egtb_close(db),
    maxCounters: (db) => wasm.tg_egtb_max_counters(db),
    readerNew(db) {
      const status = wasm.tg_egtb_reader_new(db, scratch + OUT_PTR);
      return { status, reader: status === 0 ? readU32(scratch + OUT_PTR) : 0 };
    },
    readerFree: (reader) => wasm.tg_egtb_reader_free(reader),
    readerProbe(reader, state) {
      const status = wasm.tg_egtb_reader_probe(reader, stateHandle(state), scratch + OUT_EXACT);
      return { status, value: status === 0 ? readExactValue(scratch + OUT_EXACT) : null };
    },
    analyse: (state, spec, rng, db) => analyseState(stateHandle(state), spec, rng, db),
  });

  function moveList(ptr, count) {
    const v = heap();
    const moves = new Array(count);
    for (let i = 0; i < count; i++) moves[i] = v.getUint32(ptr + 4 * i, true);
    return moves;
  }

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
      return liveNodes;
    },
    version: cString(wasm.tg_version_string()),
    versionNumber: wasm.tg_version() >>> 0,
    memory,
    // For the package's own modules (traditional-games/learning), not for applications.
    _internal: Object.freeze({
      wasm, check, rulesHandle: (r) => rulesHandle(r), stateHandle: (s) => stateHandle(s), egtb,
    }),
  });
}
