// The errors of traditional-games (traditional-games.js re-exports them): one class per
// tg_status, so that callers can catch exactly what they expect.

import { Status } from './traditional-games-constants.js';

const statusNames = Object.fromEntries(Object.entries(Status).map(([k, v]) => [v, k]));

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

// The class of each status other than TG_OK.
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
