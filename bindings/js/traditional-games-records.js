// What happened in a game of traditional-games: what each move did (its story, tg_state_story),
// why the game ended, and the game as a record (tg_state_record, docs/records.md). The State
// methods story(), endReason and toRecord() call these.

import { Status } from './traditional-games-constants.js';
import { describe, integerArg, quote, stringArg } from './traditional-games-args.js';
import { OUT_SIZE } from './traditional-games-calls.js';

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

// A story event's cell, count or player that its kind does not use.
const FIELD_NONE = 0xffffffff;

/** The story and record readers of one instance (calls: its bindCalls table); each takes the
 * C state's pointer. */
export function bindRecords(calls) {
  const { wasm, scratch, outBuffer, check, cString, inputText, readU32, reserve, heap } = calls;

  /** State.story: the events of history move `index` of the C state at handle, a board of
   * `cols` columns. */
  function story(handle, index, cols) {
    check(wasm.tg_state_history(handle, 0, 0, scratch + OUT_SIZE), 'story');
    integerArg(index, 'a history index', 0, readU32(scratch + OUT_SIZE) - 1);
    check(wasm.tg_state_story(handle, index, 0, 0, scratch + OUT_SIZE), 'story');
    const count = readU32(scratch + OUT_SIZE);
    const ptr = reserve(outBuffer, 16 * Math.max(count, 1));
    check(wasm.tg_state_story(handle, index, ptr, count, scratch + OUT_SIZE), 'story');
    const v = heap();
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

  /** State.endReason: the EndReason name of the C state at handle. */
  function endReason(handle) {
    return cString(wasm.tg_end_reason_name(wasm.tg_state_end_reason(handle)));
  }

  /** State.toRecord: the record of the C state at handle, with the caller's tags. */
  function record(handle, tags) {
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

  return { story, endReason, record };
}
