// What a move did, why a game ended and the game as a record: state.story(), state.endReason,
// state.toRecord() and State.fromRecord(), compared with the native library in the same run
// (native-oracle.c's `told` scenario) over seeded games of every rule set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng, EventKind, EndReason, InvalidArgument, ParseError, IllegalMove } from '../traditional-games.js';
import { tg, RULE_SETS, native } from './helpers.js';

const NONE = 0xffffffff;
const BOT_PAIRS = [['greedy', 'random'], ['random', 'random']];

function playGame(spec, seed, bots) {
  const state = new tg.State(spec);
  const rng = new Rng(BigInt(seed));
  while (!state.isTerminal) state.apply(state.botChoose(bots[state.turn], rng));
  return state;
}

// An event back as the library's four numbers.
function flat(events, cols) {
  return events.flatMap((e) => [
    EventKind[e.kind],
    e.cell === null ? NONE : e.cell.row * cols + e.cell.col,
    e.count ?? NONE,
    e.player ?? NONE,
  ]);
}

// The defining property, on the JavaScript side: each event's effect on the counts and scores
// of the position before the move gives those after it.
function replay(events, board, scores) {
  const counts = board.map((row) => [...row]);
  const score = [...scores];
  for (const { kind, cell, count, player } of events) {
    const at = cell && [cell.row, cell.col];
    const add = (n) => { counts[at[0]][at[1]] += n; };
    switch (kind) {
      case 'lift': case 'resow': case 'move-from': add(-count); break;
      case 'drop': case 'move-to': add(count); break;
      case 'capture': case 'take': case 'gather': add(-count); score[player] += count; break;
      case 'fill': add(count); score[player] -= count; break;
      case 'score': score[player] = count; break;
      case 'set': counts[at[0]][at[1]] = count; break;
      default: break;
    }
  }
  return { counts, score };
}

const scenarios = [];
for (const spec of RULE_SETS) {
  for (const [i, bots] of BOT_PAIRS.entries()) scenarios.push({ spec, seed: 40 + i, bots });
}

test('stories, end reasons and records are the native library\'s, for every rule set', () => {
  const answers = native(scenarios.map(({ spec, seed, bots }) => `told ${spec} ${seed} ${bots.join(' ')}`));
  const reasons = new Set();
  scenarios.forEach(({ spec, seed, bots }, n) => {
    const want = answers[n];
    const state = playGame(spec, seed, bots);
    try {
      const history = state.history;
      assert.equal(history.length, want.stories.length, spec);
      for (let i = 0; i < history.length; i++) {
        assert.deepEqual(flat(state.story(i), state.cols), want.stories[i], `${spec} seed ${seed} move ${i}`);
      }
      assert.equal(state.endReason, want.reason, spec);
      assert.ok(want.reason in EndReason);
      reasons.add(want.reason);
      const record = state.toRecord({ White: bots[0], Black: bots[1] });
      assert.equal(record, want.record, spec);
      assert.equal(state.toRecord([['White', bots[0]], ['Black', bots[1]]]), record);
      // The native record, read here, is this game: same position, same history.
      const back = tg.State.fromRecord(want.record);
      try {
        assert.ok(back.equals(state), spec);
        assert.deepEqual(back.history, history);
        assert.equal(back.endReason, state.endReason);
      } finally {
        back.free();
      }
    } finally {
      state.free();
    }
  });
  assert.ok(reasons.size >= 4, `several endings among the games: ${[...reasons]}`);
});

test('applying a story to the position before a move gives the position after it', () => {
  for (const spec of RULE_SETS) {
    const game = playGame(spec, 77, ['random', 'greedy']);
    const history = game.history;
    const replayer = new tg.State(spec);
    try {
      for (let i = 0; i < history.length; i++) {
        const events = game.story(i);
        const predicted = replay(events, replayer.board, replayer.scores);
        replayer.apply(history[i]);
        assert.deepEqual(predicted.counts, replayer.board, `${spec} move ${i}`);
        assert.deepEqual(predicted.score, replayer.scores, `${spec} move ${i}`);
        for (const e of events) {
          assert.ok(e.kind in EventKind, e.kind);
          if (e.cell) assert.ok(e.cell.row < game.rows && e.cell.col < game.cols);
          if (e.player !== null) assert.ok(e.player === 0 || e.player === 1);
          if (e.kind === 'game-end') assert.equal(e.reason, game.endReason);
        }
      }
      assert.equal(game.story(history.length - 1).at(-1).kind, 'game-end');
    } finally {
      game.free();
      replayer.free();
    }
  }
});

test('story, endReason and records: bad input is refused, nothing changed', () => {
  const state = new tg.State('hus');
  assert.equal(state.endReason, 'none');
  state.apply(state.legalMoves()[0]);
  const before = `${state} ${state.history}`;
  assert.throws(() => state.story(1), RangeError);
  assert.throws(() => state.story(-1), RangeError);
  assert.throws(() => state.story(0.5), RangeError);
  assert.throws(() => state.story('0'), TypeError);
  assert.throws(() => state.toRecord({ Rules: 'x' }), InvalidArgument);
  assert.throws(() => state.toRecord({ 'two words': 'x' }), InvalidArgument);
  assert.throws(() => state.toRecord({ Event: 'line\nbreak' }), InvalidArgument);
  assert.throws(() => state.toRecord({ Event: 'nul\0' }), InvalidArgument);
  assert.throws(() => state.toRecord(5), TypeError);
  assert.throws(() => state.toRecord([['Event']]), TypeError);
  assert.throws(() => state.toRecord({ Event: 3 }), TypeError);
  assert.equal(`${state} ${state.history}`, before);
  // Quotes and backslashes in a value are escaped, and read back.
  const record = state.toRecord({ Event: 'a "quoted" \\ value', Site: '' });
  assert.ok(record.includes('[Event "a \\"quoted\\" \\\\ value"]\n[Site ""]\n'), record);
  const back = tg.State.fromRecord(record);
  assert.ok(back.equals(state));
  assert.deepEqual(back.history, state.history);
  assert.equal(back.toRecord(), state.toRecord());
  back.free();
  // Records that are not, or that play an illegal move.
  assert.throws(() => tg.State.fromRecord('not a record'), ParseError);
  assert.throws(() => tg.State.fromRecord(`${'x'.repeat(100000)}`), (e) => e instanceof ParseError && e.message.length < 600);
  const illegal = record.replace(/\n1\. (\S+)/, (m, move) => `\n1. ${move} ${move}`);
  assert.throws(() => tg.State.fromRecord(illegal), IllegalMove);
  assert.throws(() => tg.State.fromRecord(7), TypeError);
  state.free();
});
