// traditional-games/learning: the same batches in WebAssembly as in the native library for the
// same seeds (test/learning-oracle.c, built by scripts/test-js.sh), masks equal to the legal
// moves at every ply, the action mappings, and bad actions refused game by game.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Rng, IllegalMove, InvalidArgument } from '../traditional-games.js';
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
  assert.throws(() => state.applyAction(-1), TypeError);
  state.free();
});

test('bad actions are refused game by game and change nothing', () => {
  const env = new VectorEnv('halusa', 3, 1n, { autoreset: false });
  const before = [0, 1, 2].map((i) => env.state(i).toString());
  const [, reward, , , info] = env.step([0, 6, 0xffffffff]);
  assert.deepEqual([...info.status], [0, 1, 1]);
  assert.deepEqual([...reward], [0, 0, 0]);
  assert.notEqual(env.state(0).toString(), before[0]);
  assert.deepEqual([1, 2].map((i) => env.state(i).toString()), before.slice(1));
  assert.throws(() => env.step([0, 0]), TypeError);
  env.free();
  assert.throws(() => env.step([0, 0, 0]), TypeError);
});

test('learning.d.ts type-checks a typical program and rejects wrong uses', async () => {
  const { createRequire } = await import('node:module');
  const { fileURLToPath } = await import('node:url');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = fileURLToPath(new URL('./types/tsconfig.learning.json', import.meta.url));
  const run = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
