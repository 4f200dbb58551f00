// The same seeds give the same games in WebAssembly as in the native library: final positions,
// hashes, generator states and every move, compared with the native build in the same run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../traditional-games.js';
import { tg, RULE_SETS, DEFAULT_SPECS, native } from './helpers.js';

const U64_MAX = (1n << 64n) - 1n;

function result(state, rng, moves) {
  const out = { text: state.toString(), hash: String(state.hash), rng: String(rng.state), ply: state.ply };
  if (moves) out.moves = moves;
  return out;
}

// Each scenario is played here exactly as native-oracle.c plays it.
function play(line) {
  const [kind, spec, ...rest] = line.split(' ');
  const state = new tg.State(spec);
  try {
    if (kind === 'perft') return { leaves: String(state.perft(Number(rest[0]))) };
    const rng = new Rng(BigInt(rest[0]));
    if (kind === 'playout') {
      state.playout(rng);
      return result(state, rng);
    }
    if (kind === 'random') {
      while (!state.isTerminal) state.applyRandom(rng);
      return result(state, rng, state.history);
    }
    if (kind === 'game') {
      const bots = rest.slice(1);
      const moves = [];
      while (!state.isTerminal) moves.push(state.apply(state.botChoose(bots[state.turn], rng)));
      return result(state, rng, moves);
    }
    throw new Error(`unknown scenario ${kind}`);
  } finally {
    state.free();
  }
}

const scenarios = [];
for (const spec of RULE_SETS) {
  // The largest seed too: the generator's state must cross the boundary as all 64 bits.
  for (const seed of [1n, 2n, U64_MAX]) scenarios.push(`playout ${spec} ${seed}`);
  scenarios.push(`random ${spec} 3`);
  scenarios.push(`game ${spec} 4 random greedy`);
  scenarios.push(`game ${spec} 5 greedy random`);
  scenarios.push(`perft ${spec} 3`);
}
for (const spec of DEFAULT_SPECS) {
  scenarios.push(`game ${spec} 6 mcts:iterations=200 greedy`);
  scenarios.push(`game ${spec} 7 random mcts:iterations=200`);
}

test('the native oracle and WebAssembly agree on every scenario', () => {
  const expected = native(scenarios);
  let compared = 0;
  for (let i = 0; i < scenarios.length; i++) {
    assert.deepEqual(play(scenarios[i]), expected[i], scenarios[i]);
    compared++;
  }
  assert.equal(compared, scenarios.length);
  // Every rule set has finished games in the comparison, not only cut or trivial ones.
  for (let i = 0; i < scenarios.length; i++) {
    if (!scenarios[i].startsWith('perft')) assert.match(expected[i].text, / winner=/, scenarios[i]);
  }
});

test('the rule sets under test come from the catalogue and include every game', () => {
  const ids = new Set(RULE_SETS.map((spec) => spec.split(':')[0]));
  assert.deepEqual([...ids].sort(), tg.games().map((g) => g.id).sort());
  assert.ok(RULE_SETS.length >= tg.games().length * 2);
});
