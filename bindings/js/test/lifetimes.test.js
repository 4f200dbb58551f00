// What the bindings hand out outlives what they hold: VectorEnv's arrays stay right when wasm
// memory grows and after free() (they are never views of wasm memory), and every handle used
// after free() throws instead of reading freed memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../traditional-games.js';
import { learning } from '../learning.js';
import { SearchWorker } from '../traditional-games-search.js';
import { tg } from './helpers.js';

const { VectorEnv } = learning(tg);

// A legal action for each game, the first the mask allows from a varying offset.
function legalActions(info, n, count, t) {
  const actions = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < count; k++) {
      const a = (i + t + k) % count;
      if (info.actionMask[i * count + a]) {
        actions[i] = a;
        break;
      }
    }
  }
  return actions;
}

// Everything a step returned, as plain numbers.
function plain([obs, reward, done, truncated, info]) {
  return { obs: [...obs], reward: [...reward], done: [...done], truncated: [...truncated],
    actionMask: [...info.actionMask], player: [...info.player], rewards: [...info.rewards],
    status: [...info.status] };
}

// Clones of a long Tab game until the instance's memory has grown by 8 MiB.
function growMemory() {
  const state = new tg.State('tab:width=29');
  const rng = new Rng(77n);
  for (let i = 0; i < 50; i++) state.applyRandom(rng);
  const last = state.history.at(-1);
  const before = tg.memory.buffer.byteLength;
  const hoard = [state];
  while (tg.memory.buffer.byteLength < before + (8 << 20)) {
    const copy = state.clone();
    copy.undo();
    copy.apply(last); // a clone written to holds memory of its own
    hoard.push(copy);
  }
  return () => { for (const s of hoard) s.free(); };
}

for (const copy of [true, false]) {
  test(`VectorEnv (copy: ${copy}): the arrays of a step keep their values when wasm memory grows`, () => {
    const env = new VectorEnv('halusa', 64, 3n, { copy });
    const twin = new VectorEnv('halusa', 64, 3n); // steps the same games, for comparison
    let [, info] = env.reset();
    twin.reset();
    const actions = legalActions(info, 64, env.actionCount, 0);
    const result = env.step(actions);
    const expected = plain(result);
    assert.ok(expected.obs.some((x) => x !== 0));
    const release = growMemory();
    try {
      assert.deepEqual(plain(result), expected);
      // The next call after the growth reads the library's buffers again, as the twin's do.
      const next = legalActions(result[4], 64, env.actionCount, 1);
      twin.step(actions);
      assert.deepEqual(plain(env.step(next)), plain(twin.step(next)));
    } finally {
      release();
      env.free();
      twin.free();
    }
  });

  test(`VectorEnv (copy: ${copy}): free() leaves the arrays handed out as they were, and later calls throw`, () => {
    const env = new VectorEnv('halusa', 32, 5n, { copy });
    const [, info] = env.reset();
    const result = env.step(legalActions(info, 32, env.actionCount, 0));
    const expected = plain(result);
    env.free();
    assert.equal(env.freed, true);
    // The freed blocks are handed out again and written to by another environment.
    const other = new VectorEnv('halusa', 32, 99n, { copy });
    const [, otherInfo] = other.reset();
    other.step(legalActions(otherInfo, 32, other.actionCount, 3));
    assert.deepEqual(plain(result), expected);
    other.free();
    for (const use of [() => env.step(new Uint32Array(32)), () => env.reset(), () => env.reset(1n),
      () => env.state(0), () => env.rngState(0), () => env.rules.spec]) {
      assert.throws(use, (e) => e instanceof TypeError && /has been freed/.test(e.message));
    }
    env.free(); // twice is harmless
  });
}

test('State and Rules used after free() throw, whatever the call', () => {
  learning(tg);
  const rules = new tg.Rules('halusa');
  const state = new tg.State(rules);
  state.free();
  rules.free();
  for (const use of [() => state.observation(0), () => state.actionMask(), () => state.applyAction(0),
    () => state.actionToMove(0), () => state.moveToAction(0), () => state.toString(),
    () => state.legalMoves(), () => state.clone(), () => state.analyse('search:nodes=10', 1n),
    () => rules.actionCount, () => rules.observationShape, () => rules.observationLayout,
    () => rules.spec, () => new tg.State(rules)]) {
    assert.throws(use, (e) => e instanceof TypeError && /has been freed/.test(e.message));
  }
});

test('a terminated SearchWorker refuses new searches', async () => {
  const worker = new SearchWorker();
  worker.terminate();
  const state = new tg.State('halusa');
  await assert.rejects(worker.analyse(state, 'search:nodes=10', 1n), /terminated/);
  await assert.rejects(worker.choose(state, 'search:nodes=10', 1n), /terminated/);
  state.free();
});

test('a VectorEnv that does not fit keeps nothing: the next one that fits is made', async () => {
  const { readFileSync } = await import('node:fs');
  const capped = process.env.TG_WASM_CAPPED;
  assert.ok(capped, 'TG_WASM_CAPPED (a module built with --max-memory) is set by scripts/test-js.sh');
  const { load, NoMemory } = await import('../traditional-games.js');
  const small = await load(readFileSync(capped)); // 16 MiB at most
  const Small = learning(small).VectorEnv;
  // 4000 games of Tab at width 29: the output buffers (12 MB) fit, the batch's states not.
  for (let k = 0; k < 5; k++) {
    assert.throws(() => new Small('tab:width=29', 4000, 1n), NoMemory);
  }
  const env = new Small('tab:width=29', 3000, 1n);
  assert.equal(env.numEnvs, 3000);
  env.free();
});
