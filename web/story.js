// What a move did, in words, read from the library's story of it (state.story(i): the events
// of tg_state_story, docs/stories.md). The page never works out a sowing or a capture: it
// tells the events in order. The kinds and end reasons are the header's fixed values.
import { t } from './i18n.js';

export const EVENT = Object.freeze({
  LIFT: 1, DROP: 2, CAPTURE: 3, RESOW: 4, SCORE: 5, PASS: 6, THROW: 7, MOVE_FROM: 8, STEP: 9,
  MOVE_TO: 10, UNLOCK: 11, KING: 12, SPLIT: 13, TAKE: 14, THROWS_LOST: 15, TURN: 16, GATHER: 17,
  ROUND_END: 18, FILL: 19, DEAD: 20, ROUND_START: 21, ENDLESS: 22, ELISION: 23, ELIDED_SOWN: 24,
  SET: 25, GAME_END: 26,
});
const KIND_BY_NAME = Object.fromEntries(Object.entries(EVENT).map(([name, value]) => [name.toLowerCase().replace(/_/g, '-'), value]));

export const END_REASONS = ['none', 'unknown', 'no-move', 'empty-row', 'store-short', 'all-captured',
  'all-across', 'blocked', 'quiet', 'endless'];

// A field that does not apply is UINT32_MAX in the C API; the package gives it as null.
const field = (value) => (value === null || value === undefined || value === 0xffffffff ? null : Number(value));

function kindOf(value) {
  if (typeof value === 'number') return value;
  const name = String(value).toLowerCase().replace(/^(tg_)?(event_)?/, '').replace(/_/g, '-');
  return KIND_BY_NAME[name] ?? 0;
}

// The events of move i (state.story(i): { kind: 'drop', cell: { row, col }, count, player }),
// with the kind as its number and the cell as its index (row * cols + col), as board.js
// numbers cells; null where a field does not apply.
export function storyOf(state, i) {
  return state.story(i).map((e) => ({
    kind: kindOf(e.kind),
    cell: e.cell === null || e.cell === undefined ? null : typeof e.cell === 'object' ? e.cell.row * state.cols + e.cell.col : field(e.cell),
    count: field(e.count),
    player: field(e.player),
    reason: e.reason ?? null,
  }));
}

export function endReasonName(value) {
  if (typeof value === 'number') return END_REASONS[value] ?? 'unknown';
  const name = String(value).toLowerCase().replace(/^(tg_)?(end_)?/, '').replace(/_/g, '-');
  return END_REASONS.includes(name) ? name : 'unknown';
}

// "b2: sowed 7, captured 4 from c2 and d2": the move's notation, then what its events did.
export function storyLine(state, name, events) {
  const cell = (index) => state.cellName(Math.floor(index / state.cols), index % state.cols);
  const parts = [];
  let sown = 0;
  const captured = new Map();
  let steps = 0;
  const gathered = [0, 0];
  const flush = () => {
    if (sown) parts.push(t('story.sowed', sown));
    if (captured.size) {
      const total = [...captured.values()].reduce((a, b) => a + b, 0);
      parts.push(t('story.captured', total, [...captured.keys()].map(cell)));
    }
    sown = 0;
    captured.clear();
  };
  for (const e of events) {
    switch (e.kind) {
      case EVENT.DROP: sown += e.count; break;
      case EVENT.ELIDED_SOWN: sown += e.count; break;
      case EVENT.CAPTURE: case EVENT.TAKE: case EVENT.RESOW:
        captured.set(e.cell, (captured.get(e.cell) ?? 0) + e.count); break;
      case EVENT.PASS: parts.push(t('story.pass')); break;
      case EVENT.THROW: flush(); parts.push(t('story.throw', e.count)); break;
      case EVENT.STEP: steps++; break;
      case EVENT.MOVE_TO: flush(); parts.push(t('story.moved', e.count, cell(e.cell), steps + 1)); steps = 0; break;
      case EVENT.UNLOCK: parts.push(t('story.unlocked', cell(e.cell))); break;
      case EVENT.KING: parts.push(t('story.king', e.count, cell(e.cell))); break;
      case EVENT.SPLIT: parts.push(t('story.split', e.count, cell(e.cell))); break;
      case EVENT.THROWS_LOST: parts.push(t('story.throws-lost', e.count)); break;
      case EVENT.ELISION: flush(); parts.push(t('story.elided', e.count)); break;
      case EVENT.ENDLESS: flush(); parts.push(t('story.endless')); break;
      case EVENT.GATHER: gathered[e.player] += e.count; break;
      case EVENT.ROUND_END: flush(); parts.push(e.player === null ? t('story.round-level', e.count) : t('story.round-won', e.count, t(`side.${e.player}`))); break;
      case EVENT.ROUND_START: flush(); parts.push(t('story.round-start', e.count, t(`side.${e.player}`))); break;
      default: break;
    }
  }
  flush();
  for (const player of [0, 1]) if (gathered[player]) parts.push(t('story.gather', gathered[player], t(`side.${player}`)));
  return parts.length ? `${name}: ${parts.join(t('story.separator'))}` : name;
}
