// The wasm boundary of one loaded instance of traditional-games: its memory, the
// out-parameters and buffers lent to the library, text in and out, and status codes turned
// into errors. Every other module calls the library through the table bindCalls returns.

import { Status } from './traditional-games-constants.js';
import { errorClassOf } from './traditional-games-errors.js';
import { integerArg, moveNumber, quote } from './traditional-games-args.js';

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder('utf-8');

// The major version these bindings were written for: a library of another major has another ABI.
const SUPPORTED_MAJOR = 0;

// What bindCalls insists on; the endgame databases' calls are optional (egtb.available).
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

// Out-parameters: one pointer, one size_t, one tg_move, the generator, two doubles and the
// playout counters, each at its own aligned offset of one block (`scratch`) kept for the
// instance's life. OUT_EXACT: a tg_egtb_value (four ints) and the bool beside it.
export const OUT_PTR = 0, OUT_SIZE = 4, OUT_MOVE = 8, OUT_RNG = 16, OUT_DOUBLES = 24, OUT_STATS = 40;
export const STAT_COUNT = 4;
export const OUT_EXACT = OUT_STATS + 8 * STAT_COUNT;
const EXACT_BYTES = 20;

/**
 * Check the instance's exports and version, run its constructors, and make the helpers that
 * call it: a frozen table of wasm (the exports), memory, scratch, outBuffer and the functions
 * below. Throws if the module is not a libtraditional-games these bindings can drive.
 */
export function bindCalls(wasm) {
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
    const ErrorClass = errorClassOf(status);
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

  /** The notation of move in the game of the C state at handle. */
  function moveName(handle, move) {
    moveNumber(move);
    check(wasm.tg_move_to_string(handle, move, 0, 0, scratch + OUT_SIZE), 'move', move);
    const size = readU32(scratch + OUT_SIZE) + 1;
    const ptr = reserve(outBuffer, size);
    check(wasm.tg_move_to_string(handle, move, ptr, size, 0), 'move', move);
    return cString(ptr);
  }

  /** count moves (tg_move, 32 bits) at ptr, as numbers. */
  function moveList(ptr, count) {
    const v = heap();
    const moves = new Array(count);
    for (let i = 0; i < count; i++) moves[i] = v.getUint32(ptr + 4 * i, true);
    return moves;
  }

  return Object.freeze({
    wasm, memory, scratch, outBuffer, heap, reserve, cString, inputText, readU32, statusString,
    check, readText, withRng, moveName, moveList,
  });
}
