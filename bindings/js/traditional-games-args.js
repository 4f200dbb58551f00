// Argument checks of traditional-games. Wrong types are TypeError and values that cannot be
// passed to C RangeError, before anything reaches the library: nothing JavaScript can pass
// corrupts wasm memory.

import { Status } from './traditional-games-constants.js';

export const MOVE_MAX = 0xffffffff;
export const SIZE_MAX = 0xffffffff; // size_t is 32 bits in wasm32

/** What a value is, for an error message: its class name, 'null', or its typeof. */
export function describe(value) {
  if (value === null) return 'null';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}

// How much of a caller's text an error message quotes: enough to recognise it, never the whole
// of a 100 MB string (the message would be as large, and JSON.stringify of it can fail).
const QUOTE_MAX = 200;

/** text for an error message: JSON-quoted, cut to QUOTE_MAX characters with its length noted. */
export function quote(text) {
  if (typeof text !== 'string') return String(text);
  if (text.length <= QUOTE_MAX) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, QUOTE_MAX))}... (${text.length} characters)`;
}

/** value, if it is an integer from min to max; else TypeError or RangeError naming it `what`. */
export function integerArg(value, what, min, max) {
  if (typeof value !== 'number') {
    throw new TypeError(`${what} must be a number, not ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be an integer from ${min} to ${max}, not ${value}`);
  }
  return value;
}

/** move, if it is a tg_move (32 bits, unsigned). */
export function moveNumber(move) {
  return integerArg(move, 'a move', 0, MOVE_MAX);
}

/** value, if it is a string; else TypeError naming it `what`. */
export function stringArg(value, what) {
  if (typeof value !== 'string') {
    throw new TypeError(`${what} must be a string, not ${describe(value)}`);
  }
  return value;
}

// A spec with a NUL cannot reach C intact; it gets the status the library gives a malformed spec
// of that shape, so callers need catch only TGError for bad text.
export function specNulStatus(spec) {
  return spec.split('\0', 1)[0].includes(':') ? Status.TG_ERR_BAD_OPTION : Status.TG_ERR_UNKNOWN_GAME;
}
