// The bindings themselves: loading from every kind of source, the module's exports against the
// header, the catalogue, every status as its error class, misuse from JavaScript, handle
// lifetimes, memory growth and the garbage collector's safety net.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import * as pkg from '../traditional-games.js';
import { tg } from './helpers.js';

const { load, Rng, Status, TGError } = pkg;
const wasmUrl = new URL('../traditional-games.wasm', import.meta.url);
const wasmBytes = readFileSync(wasmUrl);
// The header as a program gets it: each `#include "..."` (its topic headers) replaced by that
// file's text, resolved next to the including file, once per file as the include guards do.
function readHeader(url, seen = new Set()) {
  if (seen.has(url.href)) return '';
  seen.add(url.href);
  return readFileSync(url, 'utf8').replace(/^[ \t]*#[ \t]*include[ \t]*"([^"]+)".*$/gm,
    (_, name) => readHeader(new URL(name, url), seen));
}
const header = readHeader(new URL('../../../include/traditional-games.h', import.meta.url));
// Building endgame databases (threads, files written, libzstd) is native only: the module
// probes them, its file reads imported from the loader (docs/egtb.md, "JavaScript").
const NATIVE_ONLY = new Set(['tg_egtb_build']);
const EGTB_IMPORTS = ['dir', 'open', 'close', 'header_size', 'header', 'block'];

// A reference game, replayed after the misuse tests: the same answer means nothing was corrupted.
function referenceGame(instance) {
  const state = new instance.State('tab');
  const rng = new Rng(2024n);
  while (!state.isTerminal) state.playBot(state.turn === 0 ? 'greedy' : 'random', rng);
  const answer = `${state} ${state.hash} ${rng.state} ${state.history.join(',')}`;
  state.free();
  return answer;
}
const reference = referenceGame(tg);

test('load() takes bytes, a file URL, a path, a Module, a Response and an http URL', async () => {
  const server = createServer((req, res) => {
    if (req.url === '/tg.wasm') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(wasmBytes);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const sources = [
      wasmBytes,
      new Uint8Array(wasmBytes).buffer,
      wasmUrl,
      wasmUrl.href,
      fileURLToPath(wasmUrl),
      new WebAssembly.Module(wasmBytes),
      new Response(wasmBytes),
      `${base}/tg.wasm`,
      new URL(`${base}/tg.wasm`),
    ];
    for (const source of sources) {
      const instance = await load(source);
      assert.equal(instance.version, tg.version);
      assert.equal(referenceGame(instance), reference);
    }
    await assert.rejects(load(`${base}/missing.wasm`), /HTTP 404/);
  } finally {
    server.close();
  }
  await assert.rejects(load(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])), WebAssembly.CompileError);
  await assert.rejects(load(42), TypeError);
});

test('the module exports exactly the TG_API functions, memory, malloc and free; it imports WASI clock_time_get and the databases\' reads', () => {
  const module = new WebAssembly.Module(wasmBytes);
  const key = (i) => `${i.module}.${i.name}`;
  assert.deepEqual(WebAssembly.Module.imports(module).map(key).sort(),
    ['wasi_snapshot_preview1.clock_time_get', ...EGTB_IMPORTS.map((name) => `tg_egtb.${name}`)].sort());
  assert.ok(WebAssembly.Module.imports(module).every((i) => i.kind === 'function'));
  const declared = [...header.matchAll(/^TG_API\b[^(]*?\b(tg_\w+)\s*\(/gm)].map((m) => m[1])
    .filter((name) => !NATIVE_ONLY.has(name));
  assert.ok(declared.length > 40, 'header parsed');
  const exported = WebAssembly.Module.exports(module).map((e) => e.name);
  assert.deepEqual(exported.sort(), [...declared, 'memory', '_initialize', 'malloc', 'free'].sort());
});

test('constants and statuses are the header\'s', () => {
  const define = (name) => Number(new RegExp(`#define ${name} (0x[0-9A-Fa-f]+|\\d+)u?`).exec(header)[1]);
  const enumValue = (name) => Number(new RegExp(`\\b${name}\\s*=\\s*(-?\\d+)`).exec(header)[1]);
  assert.equal(pkg.MOVE_PASS, define('TG_MOVE_PASS'));
  assert.equal(pkg.CELL_LOCKED, define('TG_CELL_LOCKED'));
  assert.equal(pkg.CELL_DEAD, define('TG_CELL_DEAD'));
  for (const name of ['PLAYER_0', 'PLAYER_1', 'CHANCE', 'TERMINAL', 'DRAW', 'NO_WINNER_YET']) {
    assert.equal(pkg[name], enumValue(`TG_${name}`), name);
  }
  const headerStatuses = [...header.matchAll(/\b(TG_(?:OK|ERR_\w+))\s*=\s*(?:\n\s*)?(\d+)/g)];
  assert.deepEqual(Object.fromEntries(headerStatuses.map((m) => [m[1], Number(m[2])])), { ...Status });
  for (const [name, value] of Object.entries(Status)) {
    assert.notEqual(tg.statusString(value), 'unknown status', name);
  }
});

test('version: the package is the library it carries', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(tg.version, manifest.version);
  const [major, minor, patch] = tg.version.split('.').map(Number);
  assert.equal(tg.versionNumber, major * 10000 + minor * 100 + patch);
});

test('catalogue: games and options as the library lists them', () => {
  const games = tg.games();
  assert.deepEqual(games.map((g) => g.id), ['halusa', 'hus', 'hawalis', 'walak-pussa', 'tab']);
  assert.equal(games[4].name, 'At-Tab wa-d-Dukk');
  for (const game of games) {
    for (const option of game.options) {
      if (option.range) {
        assert.equal(option.choices, null);
        assert.equal(option.values, `${option.range.min}..${option.range.max}`);
      } else {
        assert.ok(option.choices.includes(option.default), `${game.id} ${option.key}`);
      }
    }
    const rules = new tg.Rules(game.id);
    assert.equal(rules.gameId, game.id);
    assert.ok(rules.rows > 0 && rules.cols > 0 && rules.maxMoves > 0);
    assert.ok(rules.equals(new tg.Rules(rules.spec)));
    rules.free();
  }
  assert.deepEqual(tg.Rules.games(), games);
});

function assertStatus(fn, ErrorClass, status) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof ErrorClass && e instanceof TGError && e instanceof Error, String(e));
    assert.equal(e.status, status);
    assert.equal(e.code, Object.keys(Status).find((k) => Status[k] === status));
    assert.equal(e.description, tg.statusString(status));
    assert.equal(e.name, ErrorClass.name);
    return true;
  });
}

test('every status the API can return arrives as its own error class, and changes nothing', () => {
  const state = new tg.State('halusa');
  const before = state.toString();
  const rng = new Rng(5n);

  assertStatus(() => state.moveToString(0xfffffff0), pkg.InvalidArgument, 1);
  assertStatus(() => new tg.Rules('chess'), pkg.UnknownGame, 3);
  assertStatus(() => new tg.Rules(''), pkg.UnknownGame, 3);
  assertStatus(() => new tg.Rules('halusa:colour=red'), pkg.BadOption, 4);
  const quiet = tg.games().find((g) => g.id === 'halusa').options.find((o) => o.key === 'quiet');
  assertStatus(() => new tg.Rules(`halusa:quiet=${quiet.range.max + 1}`), pkg.BadOption, 4);
  assertStatus(() => tg.checkBot('mcts:iterations=0'), pkg.BadOption, 4);
  assertStatus(() => state.botChoose('grandmaster', rng), pkg.BadOption, 4);
  assert.equal(rng.state, 5n, 'a failed bot call leaves the generator alone');
  assertStatus(() => state.apply(pkg.MOVE_PASS), pkg.IllegalMove, 5);
  assertStatus(() => state.apply('a2'), pkg.IllegalMove, 5);
  assertStatus(() => state.apply('z9'), pkg.ParseError, 6);
  assertStatus(() => state.moveFromString('a1 '), pkg.ParseError, 6);
  assertStatus(() => tg.State.fromString('halusa', 'halusa 1,2,3'), pkg.ParseError, 6);
  assertStatus(() => state.undo(), pkg.NoHistory, 8);
  assertStatus(() => tg.State.fromString('hus', before), pkg.RulesMismatch, 10);
  const tab = new tg.State('tab');
  assertStatus(() => state.copyFrom(tab), pkg.RulesMismatch, 10);
  tab.free();
  assert.equal(state.toString(), before);

  // Text with a NUL cannot reach C whole: it is refused with the status of malformed text.
  assertStatus(() => new tg.Rules('halusa\0'), pkg.UnknownGame, 3);
  assertStatus(() => new tg.Rules('halusa:quiet=5\0'), pkg.BadOption, 4);
  assertStatus(() => state.apply('a1\0'), pkg.ParseError, 6);
  assertStatus(() => tg.checkBot('random\0'), pkg.BadOption, 4);
  assert.equal(state.toString(), before);

  state.playout(rng);
  const end = state.toString();
  const endRng = rng.state;
  assertStatus(() => state.apply(0), pkg.GameOver, 9);
  assertStatus(() => state.applyRandom(rng), pkg.GameOver, 9);
  assertStatus(() => state.botChoose('random', rng), pkg.GameOver, 9);
  assert.equal(state.toString(), end);
  assert.equal(rng.state, endRng);
  state.free();

  // TG_ERR_BUFFER_TOO_SMALL (7) cannot arise: the bindings size every buffer from the
  // library's own count. Its class exists for completeness.
  assert.ok(new pkg.BufferTooSmall(7, tg.statusString(7)) instanceof TGError);
});

test('TG_ERR_NO_MEMORY: a module with little memory runs out, reports it, and recovers', async () => {
  const capped = process.env.TG_WASM_CAPPED;
  assert.ok(capped, 'TG_WASM_CAPPED (a module built with --max-memory) is set by scripts/test-js.sh');
  const small = await load(readFileSync(capped));
  const state = new small.State('halusa');
  const rng = new Rng(1n);
  // The search tree of ten million iterations needs 320 MB: more than the module may have.
  assertStatus(() => state.botChoose('mcts:iterations=10000000', rng), pkg.NoMemory, 2);
  assert.equal(rng.state, 1n);
  const states = [];
  assert.throws(() => {
    for (;;) states.push(new small.State('tab:width=29'));
  }, (e) => e instanceof pkg.NoMemory && e.status === 2);
  assert.ok(states.length > 1000);
  for (const s of states) s.free();
  // Everything works again once memory was given back.
  assert.equal(referenceGame(small), reference);
  state.free();
});

test('misuse from JavaScript throws TypeError or RangeError before reaching the library', () => {
  const state = new tg.State('halusa');
  const before = state.toString();
  const rng = new Rng(1n);
  const typeErrors = [
    () => new tg.Rules(5), () => new tg.State(5), () => new tg.State({}), () => new tg.State(null),
    () => tg.State.fromString('halusa', 5), () => tg.State.fromString(5, before),
    () => state.apply({}), () => state.apply(1n), () => state.apply(null), () => state.apply(undefined),
    () => state.isLegal([]), () => state.moveToString('a1'), () => state.moveFromString(3),
    () => state.count('0', 0), () => state.owner(0, null), () => state.score('0'),
    () => state.perft('3'), () => state.playout('seed'), () => state.playout(rng, '10'),
    () => state.applyRandom(undefined), () => state.botChoose(5, rng), () => state.botChoose('random', {}),
    () => state.copyFrom('halusa'), () => tg.checkBot(undefined), () => new Rng('1'), () => new Rng(null),
  ];
  for (const fn of typeErrors) assert.throws(fn, TypeError, String(fn));
  const rangeErrors = [
    () => state.apply(-1), () => state.apply(1.5), () => state.apply(2 ** 32), () => state.apply(NaN),
    () => state.apply(Infinity), () => state.count(2, 0), () => state.count(0, 6), () => state.count(-1, 0),
    () => state.flags(0.5, 0), () => state.cellName(0, 99), () => state.score(2), () => state.score(-1),
    () => state.perft(-1), () => state.perft(2 ** 32), () => state.playout(rng, -1),
    () => state.playout(rng, 1.5), () => new Rng(2 ** 60), () => new Rng(0.5), () => state.moveToString(-3),
  ];
  for (const fn of rangeErrors) assert.throws(fn, RangeError, String(fn));
  assert.equal(state.toString(), before);
  assert.equal(rng.state, 1n);
  state.free();
  assert.equal(referenceGame(tg), reference);
});

test('freed handles throw TypeError; states outlive their Rules; free is idempotent', () => {
  const rules = new tg.Rules('walak-pussa');
  const state = new tg.State(rules);
  const other = rules.newState();
  rules.free();
  rules.free();
  assert.ok(rules.freed);
  assert.throws(() => rules.spec, TypeError);
  assert.throws(() => new tg.State(rules), TypeError);
  assert.throws(() => tg.State.fromString(rules, state.toString()), TypeError);
  // The state keeps its own copy of the rules, and can give an equal Rules back.
  state.apply(state.legalMoves()[0]);
  assert.equal(state.rules.spec, state.spec);
  assert.ok(!state.rules.freed);

  state.free();
  state.free();
  assert.ok(state.freed);
  for (const fn of [() => state.apply(0), () => state.toString(), () => state.legalMoves(), () => state.hash,
    () => state.clone(), () => state.undo(), () => state.player, () => state.count(0, 0), () => state.rows,
    () => state.playout(1n), () => state.render(), () => other.copyFrom(state), () => state.copyFrom(other),
    () => other.equals(state), () => state.botChoose('random', 1n), () => `${state}`]) {
    assert.throws(fn, TypeError, String(fn));
  }
  assert.ok(!other.freed);
  assert.equal(other.ply, 0);
  other.free();
});

test('handles of one loaded instance are refused by another', async () => {
  const second = await load(wasmBytes);
  const rules = new tg.Rules('halusa');
  const state = new tg.State('halusa');
  const foreign = new second.State('halusa');
  assert.throws(() => new second.State(rules), TypeError);
  assert.throws(() => tg.State.fromString(new second.Rules('halusa'), state.toString()), TypeError);
  assert.throws(() => state.copyFrom(foreign), TypeError);
  assert.throws(() => foreign.copyFrom(state), TypeError);
  assert.equal(state.equals(foreign), false);
  assert.equal(referenceGame(second), reference);
  for (const h of [rules, state, foreign]) h.free();
});

test('Symbol.dispose frees, as `using` does', () => {
  const state = new tg.State('hus');
  const rules = new tg.Rules('hus');
  assert.equal(typeof Symbol.dispose, 'symbol');
  state[Symbol.dispose]();
  rules[Symbol.dispose]();
  assert.ok(state.freed && rules.freed);
});

test('Rng: BigInt state, modulo 2**64, copied and compared by value', () => {
  assert.equal(new Rng().state, 0n);
  assert.equal(new Rng(-1).state, (1n << 64n) - 1n);
  assert.equal(new Rng(1n << 64n).state, 0n);
  const a = new Rng(42);
  const b = a.copy();
  assert.ok(a.equals(b) && a !== b);
  const state = new tg.State('halusa');
  state.applyRandom(a);
  assert.ok(!a.equals(b));
  // A seed given instead of an Rng is a one-off generator: the same seed, the same move.
  const s1 = new tg.State('halusa');
  const s2 = new tg.State('halusa');
  s1.applyRandom(42n);
  s2.applyRandom(42);
  assert.ok(s1.equals(s2) && s1.equals(state));
  a.state = 7;
  assert.equal(a.state, 7n);
  assert.equal(String(a), 'Rng(0x0000000000000007)');
  for (const s of [state, s1, s2]) s.free();
});

test('64-bit values are unsigned BigInts; moves unsigned numbers', () => {
  // Search a few positions for a hash with the top bit set: it must still read as positive.
  const state = new tg.State('tab');
  const rng = new Rng(3n);
  let highBit = false;
  for (let i = 0; i < 200 && !state.isTerminal; i++) {
    assert.equal(typeof state.hash, 'bigint');
    assert.ok(state.hash >= 0n && state.hash < 1n << 64n);
    highBit ||= state.hash >= 1n << 63n;
    state.applyRandom(rng);
  }
  assert.ok(highBit, 'no hash with the top bit set in 200 plies');
  assert.equal(typeof state.perft(2), 'bigint');
  const outcomes = new tg.State('tab').chanceOutcomes();
  assert.ok(outcomes.every((o) => o.move > 0x01000000), 'outcome moves read unsigned');
  const stats = new tg.State('halusa').playoutStats(new Rng(9n));
  assert.equal(typeof stats.plies, 'bigint');
  assert.equal(stats.plies, stats.decisions + stats.chance);
  state.free();
});
