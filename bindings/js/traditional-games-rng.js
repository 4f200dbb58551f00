// Random numbers of traditional-games (traditional-games.js re-exports Rng): the caller's
// 64-bit splitmix64 state, kept in JavaScript as a BigInt and lent to the library for each
// call, so one Rng serves every loaded instance.

import { describe } from './traditional-games-args.js';

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

/** An Rng as it is, or a one-off Rng for a seed; TypeError for anything else. */
export function rngArg(rng) {
  if (rng instanceof Rng) return rng;
  // A seed makes a one-off generator: the caller sees no advance, as in the Python package.
  if (typeof rng === 'bigint' || typeof rng === 'number') return new Rng(rng);
  throw new TypeError(`rng must be an Rng or a seed, not ${describe(rng)}`);
}
