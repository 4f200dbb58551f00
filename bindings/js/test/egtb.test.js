// traditional-games/egtb: databases built by the native library (test/egtb-oracle.c, built by
// scripts/test-js.sh) read through WebAssembly, from a directory and over HTTP, and compared
// value for value with the native probe and the native analysis; a damaged block, a damaged
// header, a missing file and other rules give the native statuses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../traditional-games.js';
import { Egtb, EgtbError, EgtbStatus, ExactValue } from '../traditional-games-egtb.js';
import { tg } from './helpers.js';

const U64 = (1n << 64n) - 1n;
const HALUSA = 'halusa:quiet=3';
const WALAK = 'walak-pussa:rounds=single,quiet=2';
const work = mkdtempSync(join(tmpdir(), 'tg-egtb-js-'));
const dirs = { halusa: join(work, 'halusa'), walak: join(work, 'walak') };

function oracle(args, input = '') {
  const path = process.env.TG_EGTB_ORACLE;
  assert.ok(path, 'TG_EGTB_ORACLE is not set: run the JS tests through scripts/test-js.sh');
  const result = spawnSync(path, args, { input, encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(result.status, 0, `egtb-oracle ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.split('\n').filter((line) => line !== '');
}

/** The native probe of each position: [status, outcome, endless, marginToGo, finalMargin]. */
function nativeProbes(dir, spec, positions) {
  return oracle(['probe', dir, spec], positions.map((p) => `${p}\n`).join('')).map((line) => line.split(' ').map(Number));
}

/** What Egtb.probe gave, in the oracle's shape (status, then the value or zeros). */
async function jsProbe(db, state) {
  try {
    const v = await db.probe(state);
    if (v === null) return [EgtbStatus.NOT_IN_DATABASE, 0, 0, 0, 0];
    assert.ok(v instanceof ExactValue);
    return [EgtbStatus.OK, v.outcome, v.endless ? 1 : 0, v.marginToGo, v.finalMargin];
  } catch (e) {
    if (!(e instanceof EgtbError)) throw e;
    return [e.status, 0, 0, 0, 0];
  }
}

// Random positions of up to `most` counters (some past the database, some finished) with any
// side to move, quiet count and split of the captured counters: the library decides which
// strings are positions.
function randomPositions(spec, holes, total, quiet, most, count, seed) {
  const rules = new tg.Rules(spec);
  // splitmix64, as the library's own generator, so that every bit is usable
  let state = BigInt(seed);
  const next = (n) => {
    state = (state + 0x9e3779b97f4a7c15n) & U64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & U64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & U64;
    return Number((z ^ (z >> 31n)) % BigInt(n));
  };
  const positions = [];
  try {
    while (positions.length < count) {
      const counters = 1 + next(most);
      const cells = new Array(holes).fill(0);
      for (let i = 0; i < counters; i++) cells[next(holes)]++;
      const captured = total - counters;
      const first = next(captured + 1);
      const text = `${rules.spec} ${cells.slice(0, holes / 2).join(',')}/${cells.slice(holes / 2).join(',')} ` +
        `${next(2)} ${first},${captured - first} quiet=${next(quiet)}`;
      try {
        tg.State.fromString(rules, text).free();
        positions.push(text);
      } catch {
        // not a position of this game (an odd count where the rules keep it even, ...)
      }
    }
  } finally {
    rules.free();
  }
  return positions;
}

async function compareProbes(db, dir, spec, positions) {
  const native = nativeProbes(dir, spec, positions);
  const rules = new tg.Rules(db.spec);
  const counts = {};
  try {
    for (let i = 0; i < positions.length; i++) {
      const state = tg.State.fromString(rules, positions[i]);
      try {
        assert.deepEqual(await jsProbe(db, state), native[i], positions[i]);
      } finally {
        state.free();
      }
      counts[native[i][0]] = (counts[native[i][0]] ?? 0) + 1;
    }
  } finally {
    rules.free();
  }
  return counts;
}

const halusaPositions = randomPositions(HALUSA, 12, 72, 3, 10, 1500, 7);
const walakPositions = randomPositions(WALAK, 14, 56, 2, 8, 600, 11);

before(() => {
  mkdirSync(dirs.halusa);
  mkdirSync(dirs.walak);
  oracle(['build', dirs.halusa, HALUSA, '8'].map(String), '');
  oracle(['build', dirs.walak, WALAK, '6'], '');
}, { timeout: 600000 });

after(() => rmSync(work, { recursive: true, force: true }));

test('probes from a directory equal the native probes, value for value', async () => {
  const db = await Egtb.open(tg, dirs.halusa, HALUSA);
  try {
    assert.equal(db.maxCounters(), 8);
    assert.equal(db.spec, new tg.Rules(HALUSA).spec);
    const counts = await compareProbes(db, dirs.halusa, HALUSA, halusaPositions);
    // Both answers occur: covered positions, and finished or too large ones.
    assert.ok(counts[EgtbStatus.OK] > 500, JSON.stringify(counts));
    assert.ok(counts[EgtbStatus.NOT_IN_DATABASE] > 50, JSON.stringify(counts));
  } finally {
    db.close();
  }
  const walak = await Egtb.open(tg, dirs.walak, new tg.Rules(WALAK));
  try {
    assert.equal(walak.maxCounters(), 6);
    const counts = await compareProbes(walak, dirs.walak, WALAK, walakPositions);
    assert.ok(counts[EgtbStatus.OK] > 200, JSON.stringify(counts));
  } finally {
    walak.close();
  }
});

test('the analysis with a database equals the native one, move for move', async () => {
  const db = await Egtb.open(tg, dirs.halusa, HALUSA);
  const probed = nativeProbes(dirs.halusa, HALUSA, halusaPositions);
  const covered = halusaPositions.filter((_, i) => probed[i][0] === EgtbStatus.OK).slice(0, 40);
  const bot = 'search:nodes=300';
  const native = oracle(['analyse', dirs.halusa, HALUSA, bot], covered.map((p) => `${p}\n`).join(''));
  const rules = new tg.Rules(HALUSA);
  try {
    assert.equal(covered.length, 40);
    for (let i = 0; i < covered.length; i++) {
      const state = tg.State.fromString(rules, covered[i]);
      const rng = new Rng(1n);
      const moves = await db.analyse(state, bot, rng);
      const mine = [EgtbStatus.OK, ...moves.map((m) => {
        const e = m.exact;
        return `${m.move}:${e ? 1 : 0}:${e ? e.outcome : 0}:${e && e.endless ? 1 : 0}:${e ? e.finalMargin : 0}`;
      })].join(' ');
      assert.equal(mine, native[i], covered[i]);
      assert.ok(moves.every((m) => m.exact !== null && m.proven), 'a covered root: every move exact');
      assert.match(moves[0].exact.describe(), /^(win by \d+|draw|loss by \d+|(win|loss) by an endless move), exact$/);
      state.free();
    }
  } finally {
    rules.free();
    db.close();
  }
});

test('over HTTP with Range requests, the same answers; a file the server lacks is missing', async (t) => {
  const served = join(work, 'served');
  cpSync(dirs.halusa, served, { recursive: true });
  unlinkSync(join(served, 'halusa-04.egtb'));
  let ranges = 0;
  const server = createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url, 'http://x').pathname).replace(/^\/db\//, '');
    let body;
    try {
      body = readFileSync(join(served, name));
    } catch {
      response.writeHead(404).end();
      return;
    }
    const range = /^bytes=(\d*)-(\d+)$/.exec(request.headers.range ?? '');
    if (range) {
      ranges++;
      const first = range[1] === '' ? body.length - Number(range[2]) : Number(range[1]);
      const last = range[1] === '' ? body.length - 1 : Number(range[2]);
      const part = body.subarray(first, last + 1);
      response.writeHead(206, { 'Content-Length': part.length,
        'Content-Range': `bytes ${first}-${last}/${body.length}` }).end(part);
    } else {
      response.writeHead(200, { 'Content-Length': body.length }).end(body);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${server.address().port}/db/`;
  const db = await Egtb.open(tg, new URL(url), HALUSA);
  try {
    assert.equal(db.directory, url.slice(0, -1));
    const counts = await compareProbes(db, served, HALUSA, halusaPositions.slice(0, 400));
    assert.ok(counts[EgtbStatus.MISSING_FILE] > 0 && counts[EgtbStatus.OK] > 100, JSON.stringify(counts));
    assert.ok(ranges > 0);
  } finally {
    db.close();
  }
});

test('a damaged block, a damaged header, a missing file: the native statuses, the rest still read', async () => {
  const broken = join(work, 'broken');
  cpSync(dirs.halusa, broken, { recursive: true });
  const file8 = join(broken, 'halusa-08.egtb');
  const sound = readFileSync(file8);
  const flipped = Buffer.from(sound);
  flipped[40] ^= 0x10; // inside the first block's frame
  writeFileSync(file8, flipped);
  const file6 = join(broken, 'halusa-06.egtb');
  const six = readFileSync(file6);
  six[six.length - 20] ^= 0x01; // inside the header frame, before the trailer
  writeFileSync(file6, six);
  unlinkSync(join(broken, 'halusa-04.egtb'));

  const db = await Egtb.open(tg, broken, HALUSA);
  try {
    assert.equal(db.maxCounters(), 8);
    const counts = await compareProbes(db, broken, HALUSA, halusaPositions);
    assert.ok(counts[EgtbStatus.DAMAGED] > 0, JSON.stringify(counts));
    assert.ok(counts[EgtbStatus.MISSING_FILE] > 0, JSON.stringify(counts));
    assert.ok(counts[EgtbStatus.OK] > 100, JSON.stringify(counts));
    // The block repaired: its positions answer again (a damaged block is never kept).
    writeFileSync(file8, sound);
    const eight = halusaPositions.filter((p) => p.split(' ')[1].split(/[,/]/).reduce((a, b) => a + Number(b), 0) === 8);
    const repaired = await compareProbes(db, broken, HALUSA, eight);
    assert.ok(repaired[EgtbStatus.OK] > 0 && !(EgtbStatus.DAMAGED in repaired), JSON.stringify(repaired));
  } finally {
    db.close();
  }
});

test('other rules, no database, no directory, bad arguments, a closed database', async () => {
  // Files of other rules: every probe of a covered count says so, as natively.
  const other = await Egtb.open(tg, dirs.halusa, 'halusa:quiet=4');
  try {
    const positions = randomPositions('halusa:quiet=4', 12, 72, 4, 8, 60, 5);
    const counts = await compareProbes(other, dirs.halusa, 'halusa:quiet=4', positions);
    assert.ok(counts[EgtbStatus.WRONG_RULES] > 0, JSON.stringify(counts));
    assert.equal(other.maxCounters(), 0);
  } finally {
    other.close();
  }
  const db = await Egtb.open(tg, dirs.halusa, HALUSA);
  const state = new tg.State('halusa:quiet=4');
  await assert.rejects(db.probe(state), (e) => e instanceof EgtbError && e.code === 'WRONG_RULES' &&
    e.description === 'database of other rules');
  state.free();
  await assert.rejects(Egtb.open(tg, dirs.halusa, 'hus'), (e) => e.status === EgtbStatus.UNSUPPORTED);
  await assert.rejects(Egtb.open(tg, dirs.halusa, 'halusa:quiet=0'), (e) => e.status === EgtbStatus.UNSUPPORTED);
  await assert.rejects(Egtb.open(tg, join(work, 'nowhere'), HALUSA), (e) => e.status === EgtbStatus.IO_ERROR);
  await assert.rejects(Egtb.open(tg, statSync(work).isDirectory() ? 42 : '', HALUSA), TypeError);
  await assert.rejects(Egtb.open({}, dirs.halusa, HALUSA), TypeError);
  await assert.rejects(Egtb.open(tg, 'ftp://example.invalid/db', HALUSA), TypeError);
  assert.throws(() => new Egtb(), TypeError);
  const start = new tg.State(HALUSA);
  assert.equal(await db.probe(start), null); // 72 counters: past the database
  await assert.rejects(db.probe('not a state'), TypeError);
  db.close();
  db.close();
  assert.equal(db.closed, true);
  await assert.rejects(db.probe(start), TypeError);
  assert.throws(() => db.maxCounters(), TypeError);
  start.free();
});
