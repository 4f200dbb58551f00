// The web board in a real browser: Debian's chromium, driven by puppeteer-core.
//
//   node --test web.test.js      (scripts/test-web.sh runs it)
//
// Environment: TG_CHROMIUM (default /usr/bin/chromium); TG_WEB_SCREENSHOTS, a folder for the
// screenshots of each game (scripts/test-web.sh --screenshots docs/images regenerates the
// ones in the docs); TG_PACKAGE_DIR, the package folder with the built module (default
// bindings/js). The page is checked against the same package run here in Node: every move
// the page made is replayed here and the positions must agree.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { startServer } from '../serve.js';

const packageDir = process.env.TG_PACKAGE_DIR ?? fileURLToPath(new URL('../../bindings/js/', import.meta.url));
const { load, TGError } = await import(join(packageDir, 'traditional-games.js'));
const tg = await load();

const screenshotDir = process.env.TG_WEB_SCREENSHOTS || null;
let server;
let browser;
let userDataDir;
let base;
const consoleProblems = [];

before(async () => {
  server = await startServer({ packageDir });
  base = `http://127.0.0.1:${server.address().port}/`;
  userDataDir = await mkdtemp(join(tmpdir(), 'tg-web-chromium-'));
  browser = await puppeteer.launch({
    executablePath: process.env.TG_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    userDataDir,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
});

// A small seeded generator, so that the person's clicks are the same from run to run.
function clicker(seed) {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n | 0;
  };
}

async function openPage({ seed = 1, viewport = { width: 1000, height: 900 } } = {}) {
  const page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      consoleProblems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => consoleProblems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => consoleProblems.push(`request failed: ${request.url()}`));
  await page.setViewport(viewport);
  await page.goto(`${base}?speed=fast&seed=${seed}`);
  await page.waitForFunction(() => document.body.dataset.phase !== 'loading');
  return page;
}

const phaseOf = (page) => page.$eval('body', (body) => body.dataset.phase);
const plyOf = (page) => page.$eval('body', (body) => Number(body.dataset.ply));
const positionOf = (page) => page.$eval('#position', (node) => node.textContent);
const movesOf = (page) => page.$$eval('#move-list li', (items) => items.map((li) => li.dataset.move));
const textOf = (page, selector) => page.$eval(selector, (node) => node.textContent);

async function waitForPerson(page, timeout = 60000) {
  await page.waitForFunction(() => ['person', 'over'].includes(document.body.dataset.phase), { timeout });
  return phaseOf(page);
}

// Through the controls, as a person would: game, options, seats, New game.
async function newGame(page, { game, options = {}, south = 'person', north = 'greedy' }) {
  await page.select('#game-select', game);
  for (const [key, value] of Object.entries(options)) {
    const tag = await page.$eval(`#option-${key}`, (node) => node.tagName);
    if (tag === 'SELECT') await page.select(`#option-${key}`, value);
    else {
      await page.$eval(`#option-${key}`, (node) => { node.value = ''; });
      await page.type(`#option-${key}`, value);
    }
  }
  await page.select('#seat0', south);
  await page.select('#seat1', north);
  // The click's handler replaces the game before the click returns.
  await page.click('#new-game-button');
  assert.equal(await textOf(page, '#spec-error'), '');
  return waitForPerson(page);
}

// The person's turn: click a piece or hole the page marks as legal, then, when the page asks,
// the throw to spend.
async function clickOneMove(page, pick) {
  const cells = await page.$$eval('#board .cell.legal', (nodes) => nodes.map((n) => n.dataset.cell));
  assert.ok(cells.length > 0, 'a person to move has a legal hole or piece to click');
  const before = await plyOf(page);
  await page.click(`#board .cell.legal[data-cell="${cells[pick(cells.length)]}"]`);
  if ((await plyOf(page)) === before) {
    const choices = await page.$$eval('#choices button', (nodes) => nodes.map((n) => n.dataset.move));
    assert.ok(choices.length > 1, 'a click that plays nothing offers a choice');
    await page.click(`#choices button[data-move="${choices[pick(choices.length)]}"]`);
  }
  assert.ok((await plyOf(page)) > before, 'the click played a move');
}

function replay(spec, moves) {
  const state = new tg.State(spec);
  try {
    for (const move of moves) state.apply(move);
    return { position: state.toString(), winner: state.winner, scores: state.scores };
  } finally {
    state.free();
  }
}

async function screenshot(page, name) {
  if (!screenshotDir) return;
  await mkdir(screenshotDir, { recursive: true });
  // The board, the seats and the sticks: the controls below them would only add bytes.
  const box = await page.evaluate(() => {
    const top = document.getElementById('seat-north').getBoundingClientRect();
    const panel = document.getElementById('tab-panel');
    const last = (panel.hidden ? document.getElementById('fields') : panel).getBoundingClientRect();
    return { x: top.x, y: top.y, width: top.width, height: last.bottom - top.y };
  });
  await page.screenshot({ path: join(screenshotDir, `web-${name}.png`), clip: box });
}

const wholeGames = [
  { game: 'halusa', north: 'greedy' },
  { game: 'hus', north: 'greedy' },
  { game: 'hawalis', north: 'greedy' },
  { game: 'walak-pussa', options: { rounds: 'match' }, north: 'greedy' },
  { game: 'tab', north: 'random' },
];

for (const [index, setup] of wholeGames.entries()) {
  test(`${setup.game}: a person clicks a whole game against a bot; the page's position is the engine's`, async () => {
    // 820 px: the two-column layout, and screenshots of a modest size.
    const page = await openPage({ seed: 11 + index, viewport: { width: 820, height: 900 } });
    const pick = clicker(101 + index);
    let phase = await newGame(page, setup);
    // The sticks and the throws belong to Tab alone.
    assert.equal(await page.$eval('#tab-panel', (node) => node.getClientRects().length > 0), setup.game === 'tab');
    let clicks = 0;
    while (phase !== 'over') {
      await clickOneMove(page, pick);
      clicks++;
      if (clicks === 3) await screenshot(page, setup.game);
      phase = await waitForPerson(page);
    }
    const spec = (await positionOf(page)).split(' ')[0];
    const moves = await movesOf(page);
    const engine = replay(spec, moves);
    assert.equal(await positionOf(page), engine.position);
    assert.ok(moves.length > clicks, 'both sides moved');
    assert.ok(clicks > 0);
    const title = await textOf(page, '#banner-title');
    assert.ok(title.includes(`${engine.scores[0] >= engine.scores[1] ? engine.scores[0] : engine.scores[1]}`), title);
    assert.ok(await page.$eval('#banner', (node) => !node.hidden), 'the game-over banner shows');
    assert.ok((await textOf(page, '#banner-reason')).length > 10, 'the banner says why the game ended');
    await page.close();
  });
}

test('typed moves: a legal one is played, an illegal or unreadable one shows the library\'s error and changes nothing', async () => {
  const page = await openPage();
  await newGame(page, { game: 'hawalis', south: 'person', north: 'person' });
  const start = new tg.State('hawalis');
  const legal = start.legalMoveNames();
  await page.type('#move-input', legal[1]);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  start.apply(legal[1]);
  assert.equal(await positionOf(page), start.toString());

  const illegal = 'a1'; // player 0's hole, while player 1 is to move
  const expected = (() => { try { start.apply(start.moveFromString(illegal)); } catch (e) { return e; } return null; })();
  assert.ok(expected instanceof TGError);
  await page.type('#move-input', illegal);
  await page.keyboard.press('Enter');
  assert.equal(await textOf(page, '#move-error'), expected.message);
  assert.equal(await positionOf(page), start.toString());
  assert.equal(await plyOf(page), 1);

  await page.$eval('#move-input', (node) => { node.value = ''; });
  const unreadable = (() => { try { start.moveFromString('q99'); } catch (e) { return e; } return null; })();
  assert.ok(unreadable instanceof TGError);
  await page.type('#move-input', 'q99');
  await page.click('#move-form button[type="submit"]');
  assert.equal(await textOf(page, '#move-error'), unreadable.message);
  assert.equal(await positionOf(page), start.toString());
  start.free();
  await page.close();
});

test('pasted positions: a good one is loaded (a Tab king to split), bad text shows the library\'s error and changes nothing', async () => {
  const page = await openPage();
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  // docs/tab.md, example 4: a king of 3 on d3 and a 2 to spend.
  const king = 'tab:width=13 O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,x3,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,.,.,. 0 0,0 throws=2';
  await page.type('#paste-input', king);
  await page.click('#paste-form button[type="submit"]');
  await page.waitForFunction(() => document.body.dataset.phase === 'person' && document.querySelector('#board .cell[data-name="d3"]'));
  const state = tg.State.fromString('tab', king);
  assert.equal(await positionOf(page), state.toString());
  const label = await page.$eval('#board .cell[data-name="d3"]', (node) => node.getAttribute('aria-label'));
  assert.match(label, /^d3, king of 3 pieces of North|^d3, king of 3 pieces of South/);
  await page.click('#board .cell[data-name="d3"]');
  const choices = await page.$$eval('#choices button', (nodes) => nodes.map((n) => n.dataset.move));
  assert.deepEqual(choices, state.legalMoveNames());
  await page.click('#choices button[data-move="d3+2x2"]');
  await page.waitForFunction(() => Number(document.body.dataset.ply) >= 1);
  state.apply('d3+2x2');
  const afterSplit = await movesOf(page);
  assert.equal(afterSplit[0], 'd3+2x2');
  const engine = tg.State.fromString('tab', king);
  for (const move of afterSplit) engine.apply(move);
  assert.equal(await positionOf(page), engine.toString());
  state.free();
  engine.free();

  // A Walak-pussa match in its second round: a dead hole, shown as such.
  const match = 'walak-pussa:rounds=match,laps=10000,quiet=100 0,4,4,4,4,4,4/4,4,4,4,4,4,4 1 3,1 round=2 dead=a2 reserve=3,1 starter=1 quiet=0';
  await page.$eval('#paste-input', (node) => { node.value = ''; });
  await page.type('#paste-input', match);
  await page.click('#paste-form button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#board .cell[data-name="a2"]'));
  assert.match(await page.$eval('#board .cell[data-name="a2"]', (n) => n.getAttribute('aria-label')), /dead hole/);
  assert.match(await textOf(page, '#fields'), /Round 2/);
  const loaded = await positionOf(page);
  assert.equal(loaded, tg.State.fromString('walak-pussa:rounds=match', match).toString());

  for (const bad of [
    'halusa:remainder=last-mover,quiet=100 6,6,6,6,6,6/6,6,6,6,6,7 0 0,0 quiet=0',
    'chess 1/2 0 0,0',
    'hus:width=9 1 0 0,0',
    'tab:width=13 garbage',
  ]) {
    let expected = null;
    try { tg.State.fromString(bad.split(' ')[0], bad); } catch (e) { expected = e; }
    assert.ok(expected instanceof TGError, bad);
    await page.$eval('#paste-input', (node) => { node.value = ''; });
    await page.type('#paste-input', bad);
    await page.click('#paste-form button[type="submit"]');
    assert.equal(await textOf(page, '#paste-error'), expected.message);
    assert.equal(await positionOf(page), loaded, 'a refused paste changes nothing');
  }
  await page.close();
});

test('an mcts:iterations=5000 bot thinks in a worker: the page never blocks for more than 100 ms', async () => {
  // Tab on its widest board, early on: the playouts are long, so the search takes long
  // enough (checked below) that running it on the page's thread would block it far past
  // 100 ms.
  const position = 'tab:width=29 .,.,.,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,o,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,o/.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,x,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,.,. 1 1,1 throws=1,3';
  const spec = 'tab:width=29';
  const probe = tg.State.fromString(spec, position);
  const began = performance.now();
  probe.botChoose('mcts:iterations=5000', 1);
  const searchMs = performance.now() - began;
  probe.free();
  assert.ok(searchMs > 300, `the search takes ${Math.round(searchMs)} ms in Node: too short to tell`);

  const page = await openPage();
  await newGame(page, { game: 'tab', options: { width: '29' }, south: 'person', north: 'person' });
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, position);
  await page.click('#paste-form button[type="submit"]');
  assert.equal(await positionOf(page), tg.State.fromString(spec, position).toString());
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask' });
  });
  // The probe must be able to see a blocked main thread, or its silence proves nothing.
  await page.evaluate(() => setTimeout(() => { const end = performance.now() + 250; while (performance.now() < end); }, 0));
  await page.waitForFunction(() => window.longTasks.some((t) => t.duration >= 200));
  await page.evaluate(() => { window.longTasks = []; });

  // North, to move, becomes the bot: it takes over from this position.
  const start = await page.evaluate(() => performance.now());
  await page.select('#seat1', 'mcts:iterations=5000');
  assert.equal(await phaseOf(page), 'bot');
  assert.equal(await page.$eval('#thinking', (node) => node.hidden), false, 'the thinking indicator shows');
  assert.match(await textOf(page, '#thinking-text'), /5,000/);
  await waitForPerson(page, 120000);
  const [tasks, requests, answers] = await page.evaluate(() => [window.longTasks,
    performance.getEntriesByName('tg-bot-request').map((m) => m.startTime),
    performance.getEntriesByName('tg-bot-answer').map((m) => m.startTime)]);
  // The page marks each request to the worker and each answer. A task blocks the thinking
  // for the part of it that lies between the two; the work the page does once the answer is
  // in (drawing the bot's move) is not thinking.
  const thinking = requests.filter((t) => t >= start)
    .map((t) => [t, answers.find((a) => a >= t) ?? Infinity]);
  assert.ok(thinking.length > 0 && thinking.every(([, a]) => a !== Infinity), 'every request was answered');
  const thoughtMs = thinking.reduce((sum, [r, a]) => sum + a - r, 0);
  assert.ok(thoughtMs > 100, `the bot thought for ${Math.round(thoughtMs)} ms`);
  const blocked = tasks.map((task) => ({
    ...task,
    whileThinking: Math.max(0, ...thinking.map(([r, a]) =>
      Math.min(task.start + task.duration, a) - Math.max(task.start, r))),
  })).filter((task) => task.whileThinking > 100);
  assert.deepEqual(blocked, [], `the main thread was blocked while the bot thought (${Math.round(thoughtMs)} ms in all)`);
  const engine = tg.State.fromString(spec, position);
  const moves = await movesOf(page);
  assert.ok(moves.length > 0 && !moves[0].startsWith('throw'), 'the bot moved first');
  for (const move of moves) engine.apply(move);
  assert.equal(await positionOf(page), engine.toString());
  engine.free();
  await page.close();
});

test('a 390 px phone screen: the page never overflows, cells stay big enough to tap, a tap plays', async () => {
  const page = await openPage({ viewport: { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 } });
  const setups = [
    { game: 'tab', options: { width: '29' }, smallest: 24, scrolls: true },
    { game: 'tab', options: { width: '13' }, smallest: 24, scrolls: false },
    { game: 'hus', options: { width: '16' }, smallest: 38, scrolls: true },
    { game: 'halusa', smallest: 38, scrolls: false },
  ];
  for (const setup of setups) {
    await newGame(page, { ...setup, south: 'person', north: 'person' });
    const name = `${setup.game} ${JSON.stringify(setup.options ?? {})}`;
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${name}: the page is ${width} px wide`);
    const frame = await page.$eval('#board-wrap', (node) => ({ client: node.clientWidth, scroll: node.scrollWidth }));
    assert.ok(frame.client <= 390 && frame.client > 300, `${name}: board frame ${frame.client} px`);
    assert.equal(frame.scroll > frame.client, setup.scrolls, `${name}: the board scrolls sideways: ${frame.scroll} > ${frame.client}`);
    const cell = await page.$eval('#board .cell.legal', (node) => node.getBoundingClientRect().width);
    assert.ok(cell >= setup.smallest, `${name}: a cell is ${cell} px wide`);
  }
  await page.tap('#board .cell.legal');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  assert.equal(await positionOf(page), replay('halusa', await movesOf(page)).position);
  await page.close();
});

test('keyboard: Tab reaches the legal holes, which carry their name, count and owner; Enter and Space play', async () => {
  const page = await openPage();
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  await page.focus('#move-input');
  let label = null;
  for (let i = 0; i < 10 && !label; i++) {
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    label = await page.evaluate(() => (document.activeElement.matches?.('#board .cell.legal')
      ? document.activeElement.getAttribute('aria-label') : null));
  }
  assert.match(label ?? '', /^[a-f]1, 6 counters, South \(player 0\)'s hole, legal move [a-f]1/);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  // The board keeps the focus for the next player.
  const focused = await page.evaluate(() => document.activeElement.getAttribute('aria-label') ?? '');
  assert.match(focused, /North \(player 1\)'s hole, legal move/);
  await page.keyboard.press(' ');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 2);
  assert.equal(await positionOf(page), replay('halusa', await movesOf(page)).position);
  await page.click('#undo');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  assert.equal(await positionOf(page), replay('halusa', await movesOf(page)).position);
  await page.close();
});

test('two bots play on their own; Pause stops them, Undo takes a move back, Resume goes on', async () => {
  const page = await openPage({ seed: 5 });
  await page.select('#game-select', 'tab');
  await page.select('#seat0', 'random');
  await page.select('#seat1', 'random');
  await page.click('#new-game-button');
  await page.waitForFunction(() => Number(document.body.dataset.ply) >= 20);
  await page.click('#pause');
  assert.equal(await phaseOf(page), 'paused');
  const ply = await plyOf(page);
  await new Promise((resolve) => { setTimeout(resolve, 300); });
  assert.equal(await plyOf(page), ply, 'no bot moves while paused');
  await page.click('#undo');
  const back = await plyOf(page);
  assert.ok(back < ply, 'undo took a move back');
  assert.equal(await phaseOf(page), 'paused');
  assert.equal(await positionOf(page), replay('tab', await movesOf(page)).position);
  await page.click('#pause');
  await page.waitForFunction((n) => Number(document.body.dataset.ply) > n + 5, {}, ply);
  await page.click('#pause');
  assert.equal(await positionOf(page), replay('tab', await movesOf(page)).position);
  await page.close();
});

test('no console errors or warnings, no failed requests, in any of the above', () => {
  assert.deepEqual(consoleProblems, []);
});
