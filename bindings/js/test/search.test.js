// The engine from JavaScript: state.analyse() and `search:nodes=N` give the native library's
// answers for the same positions in the same run, and SearchWorker runs searches in a
// worker_threads Worker whose AbortSignal rejects promptly and leaves the Worker usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng, BadOption, GameOver } from '../traditional-games.js';
import { SearchWorker } from '../traditional-games-search.js';
import { tg, DEFAULT_SPECS, native } from './helpers.js';

// PLIES random moves from the start, as native-oracle.c's `analyse` scenario plays them.
function position(spec, seed, plies) {
  const state = new tg.State(spec);
  const rng = new Rng(BigInt(seed));
  for (let i = 0; i < plies && !state.isTerminal; i++) state.applyRandom(rng);
  return { state, rng };
}

const cases = [];
for (const spec of DEFAULT_SPECS) {
  cases.push({ spec, seed: 1, plies: 0, bot: 'search:nodes=20000' });
  cases.push({ spec, seed: 5, plies: 9, bot: 'search:nodes=5000' });
  cases.push({ spec, seed: 3, plies: 12, bot: 'search:depth=3' });
}

test('analyse(): every move\'s value, proof and line are the native library\'s', () => {
  const answers = native(cases.map(({ spec, seed, plies, bot }) => `analyse ${spec} ${seed} ${plies} ${bot}`));
  cases.forEach(({ spec, seed, plies, bot }, n) => {
    const { state, rng } = position(spec, seed, plies);
    try {
      const results = state.analyse(bot, rng);
      const want = answers[n];
      assert.equal(state.toString(), want.text);
      assert.equal(String(rng.state), want.rng);
      assert.deepEqual(results.map(({ move, value, proven, line }) => ({ move, value, proven, line: line.join(' ') })),
        want.results, `${spec} after ${plies}`);
      for (const r of results) {
        assert.ok(r.value >= -1 && r.value <= 1);
        assert.equal(r.name, state.moveToString(r.move));
        assert.equal(r.line[0], r.name);
      }
      for (let i = 1; i < results.length; i++) assert.ok(results[i - 1].value >= results[i].value, 'best first');
    } finally {
      state.free();
    }
  });
});

test('search:nodes=N chooses the native library\'s moves, game after game', () => {
  const scenarios = DEFAULT_SPECS.map((spec) => `game ${spec} 8 search:nodes=3000 greedy`);
  const answers = native(scenarios);
  DEFAULT_SPECS.forEach((spec, i) => {
    const state = new tg.State(spec);
    const rng = new Rng(8n);
    const moves = [];
    while (!state.isTerminal) moves.push(state.apply(state.botChoose(['search:nodes=3000', 'greedy'][state.turn], rng)));
    assert.deepEqual(moves, answers[i].moves, spec);
    assert.equal(state.toString(), answers[i].text);
    state.free();
  });
});

test('analyse(): bad specs and finished games are refused, nothing changed', () => {
  const state = new tg.State('hus');
  const rng = new Rng(5n);
  assert.throws(() => state.analyse('search:nodes=0', rng), BadOption);
  assert.throws(() => state.analyse('search:depth=65', rng), BadOption);
  assert.throws(() => state.analyse(5, rng), TypeError);
  assert.equal(rng.state, 5n);
  state.playout(rng);
  assert.throws(() => state.analyse('search:nodes=100', rng), GameOver);
  state.free();
});

test('SearchWorker: the same analysis and choice as here; errors arrive as the library\'s classes', async (t) => {
  const worker = new SearchWorker();
  t.after(() => worker.terminate());
  const { state, rng } = position('hawalis', 2, 9);
  const here = state.analyse('search:nodes=5000', rng.copy());
  assert.deepEqual(await worker.analyse(state, 'search:nodes=5000', rng), here);
  const move = state.botChoose('search:nodes=5000', rng.copy());
  assert.equal(await worker.choose(state, 'search:nodes=5000', rng), move);
  await assert.rejects(worker.choose(state, 'search:nodes=0', rng), BadOption);
  state.free();
});

test('SearchWorker: an AbortSignal rejects at once, the search stops and the Worker goes on', async (t) => {
  const worker = new SearchWorker();
  t.after(() => worker.terminate());
  const state = new tg.State('halusa:quiet=0');
  // Warm up: the Worker has started and loaded the library.
  await worker.analyse(state, 'search:nodes=100', 1n);
  const controller = new AbortController();
  const started = performance.now();
  const long = worker.analyse(state, 'search:nodes=1000000000', 1n, { signal: controller.signal });
  setTimeout(() => controller.abort(), 200);
  await assert.rejects(long, (e) => e.name === 'AbortError');
  const rejectedAfter = performance.now() - started;
  // A billion positions take minutes; stopped, the Worker answers the next request at once.
  const next = await worker.analyse(state, 'search:nodes=2000', 1n);
  const freeAfter = performance.now() - started;
  t.diagnostic(`rejected after ${rejectedAfter.toFixed(0)} ms, next answer after ${freeAfter.toFixed(0)} ms`);
  assert.ok(rejectedAfter < 5000, `rejected after ${rejectedAfter} ms`);
  assert.ok(freeAfter < 20000, `the Worker was busy for ${freeAfter} ms`);
  assert.deepEqual(next, state.analyse('search:nodes=2000', 1n));
  // Aborted before it starts, and aborted while queued behind another.
  await assert.rejects(worker.analyse(state, 'search:nodes=100', 1n, { signal: AbortSignal.abort() }),
    (e) => e.name === 'AbortError');
  const second = new AbortController();
  const first = worker.analyse(state, 'search:nodes=3000', 1n);
  const queued = worker.analyse(state, 'search:nodes=3000', 1n, { signal: second.signal });
  second.abort();
  await assert.rejects(queued, (e) => e.name === 'AbortError');
  assert.equal((await first).length, state.legalMoves().length);
  state.free();
});
