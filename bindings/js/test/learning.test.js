// traditional-games/learning: the same batches in WebAssembly as in the native library for the
// same seeds (test/learning-oracle.c, built by scripts/test-js.sh), masks equal to the legal
// moves at every ply, the action mappings, and bad actions refused game by game.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Rng, IllegalMove, InvalidArgument, Status } from '../traditional-games.js';
import { learning } from '../learning.js';
import { tg, RULE_SETS } from './helpers.js';

const { VectorEnv } = learning(tg);
const U64 = (1n << 64n) - 1n;

function next(box) {
  box.s = (box.s + 0x9e3779b97f4a7c15n) & U64;
  let z = box.s;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & U64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & U64;
  return z ^ (z >> 31n);
}

// What learning-oracle.c does for one scenario line, through VectorEnv.
function play(line) {
  const [spec, seed, n, steps, pickSeed] = line.split(' ');
  const env = new VectorEnv(spec, Number(n), BigInt(seed));
  try {
    const N = env.numEnvs, A = env.actionCount, F = env.observationShape[0];
    let [obs, info] = env.reset(BigInt(seed));
    const pick = { s: BigInt(pickSeed) };
    const actions = new Uint32Array(N);
    let obsSum = 0, maskSum = 0, rewardSum = 0, playersSum = 0, finished = 0;
    for (let t = 0; t < Number(steps); t++) {
      for (let i = 0; i < N; i++) {
        let legal = 0;
        for (let a = 0; a < A; a++) legal += info.actionMask[i * A + a];
        let k = Number(next(pick) % BigInt(legal));
        for (let a = 0; a < A; a++) {
          if (info.actionMask[i * A + a] && k-- === 0) {
            actions[i] = a;
            break;
          }
        }
      }
      let reward, done;
      [obs, reward, done, , info] = env.step(actions);
      assert.ok(info.status.every((s) => s === 0));
      for (let j = 0; j < N * F; j++) obsSum += obs[j] * ((j % 7) + 1);
      for (let j = 0; j < N * A; j++) maskSum += info.actionMask[j] * ((j % 5) + 1);
      for (let i = 0; i < N; i++) {
        rewardSum += reward[i] * (i + 1);
        playersSum += info.player[i] * (i + 1);
        finished += done[i];
      }
    }
    const texts = [];
    for (let i = 0; i < N; i++) {
      const s = env.state(i);
      texts.push(`${s.toString()} ${env.rngState(i)}`);
      s.free();
    }
    return { texts, obs: String(obsSum), masks: String(maskSum), reward: String(rewardSum),
      players: String(playersSum), done: finished };
  } finally {
    env.free();
  }
}

test('VectorEnv plays the native library\'s batches for the same seeds', () => {
  const oracle = process.env.TG_LEARNING_ORACLE;
  assert.ok(oracle, 'TG_LEARNING_ORACLE is not set: run the JS tests through scripts/test-js.sh');
  const scenarios = RULE_SETS.map((spec, k) => `${spec} ${k + 1} 4 120 ${k + 77}`);
  const run = spawnSync(oracle, [], { input: scenarios.join('\n') + '\n', encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, run.stderr);
  const expected = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(expected.length, scenarios.length);
  for (let i = 0; i < scenarios.length; i++) assert.deepEqual(play(scenarios[i]), expected[i], scenarios[i]);
});

test('masks are the legal moves at every ply, and actions map to moves and back', () => {
  for (const spec of RULE_SETS) {
    const state = new tg.State(spec);
    const rng = new Rng(5n);
    const rules = state.rules;
    for (let ply = 0; ply < 200 && !state.isTerminal; ply++) {
      const mask = state.actionMask();
      assert.equal(mask.length, rules.actionCount);
      const fromMoves = state.legalMoves().map((m) => state.moveToAction(m)).sort((a, b) => a - b);
      const fromMask = [...mask.keys()].filter((a) => mask[a]);
      assert.deepEqual(fromMoves, fromMask, `${spec} ply ${ply}`);
      for (const a of fromMask) assert.equal(state.moveToAction(state.actionToMove(a)), a);
      assert.equal(state.observation(ply % 2).length, rules.observationShape[0]);
      state.applyRandom(rng);
    }
    state.free();
  }
});

test('Halusa\'s worked example seen by both players; errors', () => {
  const state = new tg.State('halusa');
  state.applyAction(1);
  assert.deepEqual([...state.observation(0)], [6, 0, 7, 7, 7, 7, 6, 6, 6, 6, 7, 7, 0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual([...state.observation(1)], [7, 7, 6, 6, 6, 6, 7, 7, 7, 7, 0, 6, 0, 0, 1, 0, 0, 0, 0, 1]);
  assert.equal(state.actionToMove(4), 7);
  assert.throws(() => state.actionToMove(6), InvalidArgument);
  assert.throws(() => state.moveToAction(1), IllegalMove);
  assert.throws(() => state.observation(2), InvalidArgument);
  assert.throws(() => state.applyAction(-1), InvalidArgument);
  state.free();
});

// Each game's position and generator, to check that nothing changed.
function snapshot(env) {
  return Array.from({ length: env.numEnvs }, (_, i) => {
    const state = env.state(i);
    const text = `${state.toString()} ${env.rngState(i)}`;
    state.free();
    return text;
  });
}

test('actions outside the action space throw, naming the games, and nothing steps', () => {
  const env = new VectorEnv('halusa', 3, 1n);
  const before = snapshot(env);
  const notIntegers = [[1.5, '1.5'], [NaN, 'NaN'], ['1', '"1"'], [1n, '1n'], [null, 'null'],
    [undefined, 'undefined'], [true, 'true'], [Infinity, 'Infinity'], [[1], 'an array']];
  for (const [bad, named] of notIntegers) {
    assert.throws(() => env.step([0, bad, 0]), (e) => e instanceof TypeError &&
      e.message.includes(`game 1: ${named}`) && e.message.includes('integers 0 .. 5'), String(bad));
  }
  for (const [bad, named] of [[-1, '-1'], [6, '6'], [2 ** 32, '4294967296'],
    [2 ** 70, '1.1805916207174113e+21']]) {
    assert.throws(() => env.step([0, 0, bad]), (e) => e instanceof InvalidArgument &&
      e.message.includes(`game 2: ${named}`) && e.message.includes('out of range'), String(bad));
  }
  assert.throws(() => env.step(new Float32Array([0, 0.5, 0])), /game 1: 0\.5/);
  assert.throws(() => env.step(new Int32Array([-3, 0, 0])), InvalidArgument);
  assert.throws(() => env.step(new Float64Array([7, 8, 9])),
    (e) => e instanceof InvalidArgument && /game 0: 7, game 1: 8, game 2: 9/.test(e.message));
  assert.throws(() => env.step(null), /step needs 3 actions/);
  assert.throws(() => env.step(2), /step needs 3 actions/);
  assert.throws(() => env.step([0, 0]), /step needs 3 actions, not 2/);
  const many = new VectorEnv('halusa', 8, 1n);
  assert.throws(() => many.step(new Array(8).fill(-1)), /game 4: -1 and 3 more/);
  many.free();
  assert.deepEqual(snapshot(env), before);
  env.free();
});

test('an action in the space but not legal now is refused for that game alone', () => {
  const env = new VectorEnv('halusa', 3, 1n, { autoreset: false });
  let [, info] = env.reset();
  const A = env.actionCount;
  // Step until game 1 has an illegal action (an empty hole).
  let illegal = -1;
  for (let t = 0; illegal < 0; t++) {
    assert.ok(t < 100, 'no empty hole in 100 steps');
    for (let a = 0; a < A && illegal < 0; a++) if (!info.actionMask[A + a]) illegal = a;
    if (illegal < 0) {
      const actions = [0, 1, 2].map((i) => [...Array(A).keys()].find((a) => info.actionMask[i * A + a]));
      [, , , , info] = env.step(actions);
    }
  }
  const before = snapshot(env);
  const legal = [0, 2].map((i) => [...Array(A).keys()].find((a) => info.actionMask[i * A + a]));
  const [, reward, , , after] = env.step([legal[0], illegal, legal[1]]);
  assert.deepEqual([...after.status], [0, Status.TG_ERR_ILLEGAL_MOVE, 0]);
  assert.equal(reward[1], 0);
  const now = snapshot(env);
  assert.equal(now[1], before[1]);
  assert.notEqual(now[0], before[0]);
  assert.notEqual(now[2], before[2]);
  env.free();
});

test('single states refuse bad actions by value', () => {
  const state = new tg.State('halusa');
  const before = state.toString();
  for (const [bad, named] of [[1.5, '1.5'], [NaN, 'NaN'], ['1', '"1"'], [null, 'null'], [1n, '1n']]) {
    for (const call of [() => state.applyAction(bad), () => state.actionToMove(bad)]) {
      assert.throws(call, (e) => e instanceof TypeError && e.message.includes(`action ${named} `) &&
        e.message.includes('integers 0 .. 5'), named);
    }
  }
  for (const [bad, named] of [[-1, '-1'], [6, '6'], [2 ** 32, '4294967296'], [2 ** 70, '1.1805916207174113e+21']]) {
    for (const call of [() => state.applyAction(bad), () => state.actionToMove(bad)]) {
      assert.throws(call, (e) => e instanceof InvalidArgument &&
        e.message.includes(`action ${named} (actions are 0 .. 5)`), named);
    }
  }
  assert.equal(state.toString(), before);
  state.free();
});

test('with autoreset, a step reports the final observation of each game that ended', () => {
  const spec = 'halusa:quiet=10';
  const n = 6;
  const env = new VectorEnv(spec, n, 11n);
  let [, info] = env.reset();
  const initial = new tg.State(spec);
  let ended = 0;
  for (let t = 0; t < 400; t++) {
    const A = env.actionCount;
    const actions = [...Array(n).keys()].map((i) => {
      const legal = [...Array(A).keys()].filter((a) => info.actionMask[i * A + a]);
      return legal[(i * 7 + t * 3) % legal.length];
    });
    // The same moves on copies of the games (Halusa throws nothing: no generator needed).
    const copies = actions.map((a, i) => {
      const state = env.state(i);
      state.applyAction(a);
      return state;
    });
    let obs, done;
    [obs, , done, , info] = env.step(actions);
    const F = env.observationShape[0];
    if (!done.includes(1)) assert.equal(info.finalObs, null);
    for (let i = 0; i < n; i++) {
      assert.equal(done[i], copies[i].isTerminal ? 1 : 0);
      if (done[i]) {
        ended++;
        const viewer = info.finalPlayer[i];
        assert.deepEqual([...info.finalObs.subarray(i * F, (i + 1) * F)], [...copies[i].observation(viewer)]);
        assert.deepEqual([...obs.subarray(i * F, (i + 1) * F)], [...initial.observation(initial.turn)]);
        const restarted = env.state(i);
        assert.equal(restarted.toString(), initial.toString());
        restarted.free();
      } else if (info.finalObs) {
        assert.ok(info.finalObs.subarray(i * F, (i + 1) * F).every((x) => x === 0));
      }
      copies[i].free();
    }
  }
  assert.ok(ended >= 3, `only ${ended} games ended`);
  initial.free();
  env.free();
});

test('learning.d.ts type-checks a typical program and rejects wrong uses', async () => {
  const { createRequire } = await import('node:module');
  const { fileURLToPath } = await import('node:url');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = fileURLToPath(new URL('./types/tsconfig.learning.json', import.meta.url));
  const run = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
