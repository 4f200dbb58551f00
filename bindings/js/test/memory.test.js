// What forgetting free() costs, and what error messages cost: forgotten clones measured
// structurally (live C states, the instance's memory size) rather than by time; messages cut
// to a few hundred characters and never built for a call that succeeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, Rng, TGError, ParseError } from '../traditional-games.js';
import { tg } from './helpers.js';

function requireGc() {
  if (typeof globalThis.gc !== 'function') {
    assert.fail('run with node --expose-gc (scripts/test-js.sh does) to test the finalizers');
  }
}

// Collections, with event-loop turns between them: finalizers run only between tasks.
async function settle() {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('one million forgotten clones cost no wasm memory and no live C state', async () => {
  const instance = await load();
  // Loaded first: from the clones to the check of the live states below nothing awaits, so no
  // finalizer can run in between (they run only between tasks) and collect forgotten clones.
  const fresh = await load();
  const source = new instance.State('tab');
  const rng = new Rng(3n);
  for (let i = 0; i < 40; i++) source.applyRandom(rng);
  const text = source.toString();
  const pages = instance.memory.buffer.byteLength;
  const live = instance.liveStates;
  let last = null;
  for (let i = 0; i < 1000000; i++) last = source.clone();
  assert.equal(instance.liveStates, live, 'a clone that is only read shares its source');
  assert.equal(instance.memory.buffer.byteLength, pages, 'the instance did not grow');
  // The last clone is a full copy, history and all, and owns memory once it is changed.
  assert.deepEqual(last.history, source.history);
  last.undo();
  assert.equal(instance.liveStates, live + 1);
  assert.equal(source.toString(), text, 'changing a clone leaves its source alone');
  assert.equal(last.history.length, source.history.length - 1);
  // Calls after it are as before: a short game, move by move, gives the same answer.
  const play = (lib) => {
    const s = new lib.State('tab');
    const r = new Rng(9n);
    while (!s.isTerminal) s.applyRandom(r);
    const answer = `${s} ${r.state}`;
    s.free();
    return answer;
  };
  assert.equal(play(instance), play(fresh));
  last.free();
  source.free();
  // The forgotten clones still share the source's C state, until the collector finds them.
  assert.equal(instance.liveStates, live);
  requireGc();
  last = null;
  await settle();
  assert.equal(instance.liveStates, live - 1);
});

test('copy on write: the source and each clone change independently', () => {
  const a = new tg.State('halusa');
  a.apply('c1');
  const live = tg.liveStates;
  const b = a.clone();
  const c = b.clone();
  assert.equal(tg.liveStates, live);
  a.apply(a.legalMoves()[0]);
  assert.equal(tg.liveStates, live + 1);
  assert.ok(b.equals(c) && !a.equals(b));
  assert.deepEqual(b.history, c.history);
  b.playout(new Rng(4n));
  assert.ok(b.isTerminal && !c.isTerminal);
  c.copyFrom(a);
  assert.ok(c.equals(a) && c.history.length === 0 && a.history.length === 2);
  // A rules mismatch changes nothing, not even a shared state's owner.
  const d = a.clone();
  const other = new tg.State('hus');
  assert.throws(() => d.copyFrom(other), TGError);
  assert.ok(d.equals(a));
  for (const s of [a, b, c, d, other]) s.free();
  assert.equal(tg.liveStates, live - 1);
  // Freeing a source leaves its clones working.
  const e = new tg.State('hawalis');
  const f = e.clone();
  e.free();
  f.apply(f.legalMoves()[0]);
  assert.equal(f.ply, 1);
  f.free();
});

test('forgotten changed clones are freed by the collector and their memory reused', async (t) => {
  requireGc();
  const source = new tg.State('tab:width=29');
  const rng = new Rng(5n);
  for (let i = 0; i < 300; i++) source.applyRandom(rng);
  await settle();
  const live = tg.liveStates;
  // Each round leaves 400 changed clones (each its own C state and history, about 40 KiB) to
  // the collector; without the finalizers 40 rounds would need 600 MB more.
  let size = 0;
  for (let round = 0; round < 40; round++) {
    for (let i = 0; i < 400; i++) source.clone().undo();
    assert.ok(tg.liveStates >= live + 400 || round > 0);
    await settle();
    if (round === 10) size = tg.memory.buffer.byteLength;
  }
  t.diagnostic(`memory after 10 rounds ${size}, after 40 ${tg.memory.buffer.byteLength}`);
  assert.equal(tg.liveStates, live, 'every forgotten state was freed');
  assert.ok(tg.memory.buffer.byteLength <= size + (8 << 20), 'memory kept growing');
  source.free();
});

test('a warning, once, when more States than the threshold hold memory', async () => {
  const instance = await load(undefined, { liveStatesWarning: 50 });
  const warnings = [];
  const listener = (w) => warnings.push(w.message);
  process.on('warning', listener);
  try {
    const held = [];
    for (let i = 0; i < 120; i++) held.push(new instance.State('hus'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(warnings.filter((m) => m.includes('traditional-games')).length, 1);
    assert.match(warnings[0], /more than 50 States hold wasm memory.*free\(\)/);
    for (const s of held) s.free();
    assert.equal(instance.liveStates, 0);
  } finally {
    process.off('warning', listener);
  }
  await assert.rejects(load(undefined, { liveStatesWarning: -1 }), RangeError);
  await assert.rejects(load(undefined, 5), TypeError);
});

test('views of wasm memory survive memory growth', () => {
  const state = new tg.State('tab:width=29');
  const rng = new Rng(77n);
  for (let i = 0; i < 50; i++) state.applyRandom(rng);
  const text = state.toString();
  const moves = state.legalMoves();
  const history = state.history;
  const last = history.at(-1);
  const pages = tg.memory.buffer.byteLength;
  const hoard = [];
  while (tg.memory.buffer.byteLength < pages + (8 << 20)) {
    const copy = state.clone();
    copy.undo();
    copy.apply(last);
    hoard.push(copy);
  }
  assert.equal(state.toString(), text);
  assert.deepEqual(state.legalMoves(), moves);
  assert.deepEqual(state.history, history);
  assert.deepEqual(hoard.at(-1).history, history);
  assert.equal(hoard.at(-1).toString(), text);
  for (const s of hoard) s.free();
  state.free();
});

test('error messages quote at most a few hundred characters of the input', () => {
  const state = new tg.State('halusa');
  const huge = 'x'.repeat(10_000_000);
  const attempts = [
    () => tg.State.fromString('halusa', `halusa ${huge}`),
    () => state.apply(huge),
    () => state.moveFromString(huge),
    () => new tg.Rules(huge),
    () => tg.checkBot(huge),
    () => state.botChoose(`mcts:${huge}`, new Rng(1n)),
    () => new tg.Rules(`halusa\0${huge}`),
  ];
  for (const attempt of attempts) {
    let error = null;
    try {
      attempt();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof TGError, String(error));
    assert.ok(error.message.length < 600, `message of ${error.message.length} characters`);
    assert.match(error.message, /\(10000\d{3} characters\)/);
    assert.ok(JSON.stringify(error).length < 1000);
  }
  // Short inputs are quoted whole.
  assert.throws(() => state.apply('z9'), (e) => e instanceof ParseError && e.message.includes('"z9"'));
  state.free();
});

test('a successful apply builds no message', () => {
  const state = new tg.State('hawalis');
  const names = [];
  const probe = state.clone();
  const rng = new Rng(12n);
  while (!probe.isTerminal && names.length < 200) {
    const moves = probe.legalMoveNames();
    const name = moves[Number(rng.state % BigInt(moves.length))];
    rng.state = rng.state * 6364136223846793005n + 1442695040888963407n;
    probe.apply(name);
    names.push(name);
  }
  probe.free();
  // The messages quote their input with JSON.stringify: counting its calls shows whether one
  // was made.
  const original = JSON.stringify;
  let calls = 0;
  JSON.stringify = (...args) => {
    calls++;
    return original(...args);
  };
  try {
    for (const name of names) state.apply(name);
    for (let i = 0; i < names.length; i++) state.undo();
    for (const name of names) state.apply(state.moveFromString(name));
    assert.equal(calls, 0);
    const fresh = new tg.State('hawalis');
    assert.throws(() => fresh.apply('zz99'), TGError);
    fresh.free();
    assert.ok(calls > 0, 'the probe sees a message being made');
  } finally {
    JSON.stringify = original;
  }
  state.free();
});

test('new Rules(undefined), new State(undefined) and new Rng(undefined) are errors', () => {
  assert.throws(() => new tg.Rules(undefined), TypeError);
  assert.throws(() => new tg.State(undefined), TypeError);
  assert.throws(() => new Rng(undefined), TypeError);
  assert.throws(() => new tg.Rules(null), TypeError);
  // Omitted altogether, the documented defaults.
  const rules = new tg.Rules();
  assert.equal(rules.gameId, 'halusa');
  const state = new tg.State();
  assert.equal(state.gameId, 'halusa');
  assert.equal(new Rng().state, 0n);
  rules.free();
  state.free();
});

test('JSON.stringify gives the position string, the spec and the generator state', () => {
  const state = new tg.State('walak-pussa');
  state.apply(state.legalMoves()[1]);
  assert.equal(JSON.stringify(state), JSON.stringify(state.toString()));
  const rules = new tg.Rules('hus');
  const rng = new Rng(-1);
  const text = JSON.stringify({ state, rules, rng });
  assert.deepEqual(JSON.parse(text), {
    state: state.toString(), rules: rules.spec, rng: ((1n << 64n) - 1n).toString(),
  });
  const back = tg.State.fromString(rules.spec === state.spec ? rules : state.spec, JSON.parse(text).state);
  assert.ok(back.equals(state));
  for (const h of [state, rules, back]) h.free();
});
