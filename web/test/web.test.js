// The web board in a real browser: Debian's chromium, driven by puppeteer-core.
//
//   node --test web.test.js      (scripts/test-web.sh runs it)
//
// Environment: TG_CHROMIUM (default /usr/bin/chromium); TG_WEB_SCREENSHOTS, a folder for the
// screenshots of each game (scripts/test-web.sh --screenshots docs/images regenerates the
// ones in the docs); TG_PACKAGE_DIR, the package folder with the built module (default
// bindings/js); TG_EGTB_ORACLE, bindings/js/test/egtb-oracle built against the native library,
// which builds the endgame database the server serves to the page's analysis. The page is checked against the same package run here in Node: every move
// the page made is replayed here and the positions must agree.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import puppeteer from 'puppeteer-core';
import { startServer } from '../serve.js';
import en from '../i18n/en.js';
import ar from '../i18n/ar.js';
import { LONG_SEARCH } from '../bench/long-search.js';
import { EVENT, storyLine, storyOf } from '../story.js';

const packageDir = process.env.TG_PACKAGE_DIR ?? fileURLToPath(new URL('../../bindings/js/', import.meta.url));
const { load, TGError } = await import(join(packageDir, 'traditional-games.js'));
const tg = await load();
const { Egtb } = await import(join(packageDir, 'traditional-games-egtb.js'));

// The endgame database the server serves (serve.js --egtb): Halusa with quiet=3, up to 6
// counters, built by the native library.
const EGTB_SPEC = 'halusa:quiet=3';
let egtbDir;

const screenshotDir = process.env.TG_WEB_SCREENSHOTS || null;
let server;
let browser;
let userDataDir;
let base;
const consoleProblems = [];

before(async () => {
  egtbDir = await mkdtemp(join(tmpdir(), 'tg-web-egtb-'));
  await mkdir(join(egtbDir, 'halusa-q3'));
  const oracle = process.env.TG_EGTB_ORACLE;
  assert.ok(oracle, 'TG_EGTB_ORACLE is not set: run the web tests through scripts/test-web.sh');
  const built = spawnSync(oracle, ['build', join(egtbDir, 'halusa-q3'), EGTB_SPEC, '6'], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  server = await startServer({ packageDir, egtbDir });
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
  if (egtbDir) await rm(egtbDir, { recursive: true, force: true });
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

async function openPage({ seed = 1, viewport = { width: 1000, height: 900 }, languages = ['en-GB'], dark = false, levelsBody } = {}) {
  const page = await browser.newPage();
  if (levelsBody !== undefined) {
    // docs/ratings/levels.json as the test gives it.
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/docs/ratings/levels.json')) {
        request.respond({ status: 200, contentType: 'application/json', body: levelsBody });
      } else request.continue();
    });
  }
  await page.evaluateOnNewDocument((list) => {
    Object.defineProperty(navigator, 'languages', { get: () => list });
    Object.defineProperty(navigator, 'language', { get: () => list[0] });
  }, languages);
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }]);
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

// A person's throw of the sticks is theirs to make: the test presses the throw button.
async function waitForPerson(page, timeout = 60000) {
  for (;;) {
    await page.waitForFunction(() => ['person', 'over', 'your-throw'].includes(document.body.dataset.phase), { timeout });
    const phase = await phaseOf(page);
    if (phase !== 'your-throw') return phase;
    await page.click('#throw');
  }
}

// Through the controls, as a person would: game, options, seats, New game.
// The chosen game's ratings are read (docs/ratings) and the seat choices carry them: the form
// is still while the test goes on (the seats' words change when the file comes in).
async function ratingsShown(page) {
  await page.waitForSelector('#levels-note code');
}

// A seat played by a spec that is no level (a player's own, such as a time= search): the
// form offers levels only, so the test adds it to the seat's choices first.
async function seatSpec(page, select, spec) {
  await page.$eval(select, (node, value) => {
    if (![...node.options].some((option) => option.value === value)) node.add(new Option(value, value));
  }, spec);
  await page.select(select, spec);
}

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
  await ratingsShown(page);
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

// A library error is shown in the catalogue's words for its status, never as TG_ERR_...; the
// status the library gave is kept in a data attribute, so the test knows it was that error.
async function expectError(page, selector, error, action) {
  const shown = await page.$eval(selector, (node) => ({ text: node.textContent, status: node.dataset.status }));
  assert.equal(shown.status, error.code);
  const entry = en[`error.${action}.${error.code}`] ?? en[`error.${error.code}`];
  assert.equal(shown.text, typeof entry === 'function' ? entry(tg.games().map((g) => g.id)) : entry);
  assert.doesNotMatch(shown.text, /TG_ERR|player [01]/);
}

function replay(spec, moves) {
  const state = new tg.State(spec);
  try {
    for (const move of moves) state.apply(move);
    return { position: state.toString(), winner: state.winner, scores: state.scores, endReason: state.endReason };
  } finally {
    state.free();
  }
}

async function screenshot(page, name, { full = false } = {}) {
  if (!screenshotDir) return;
  await mkdir(screenshotDir, { recursive: true });
  if (full) {
    await page.screenshot({ path: join(screenshotDir, `web-${name}.png`) });
    return;
  }
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
    // ... and why is the library's end reason, not the page's guess.
    assert.notEqual(engine.endReason, 'unknown');
    assert.equal(await page.$eval('#banner', (node) => node.dataset.reason), engine.endReason);
    await page.close();
  });
}

test('served without tg-server, the page offers neither the Account nor the Lobby nor the Players and games panel', async () => {
  const page = await openPage();
  await page.waitForFunction(() => document.getElementById('account').hidden);
  assert.equal(await page.$eval('#lobby', (node) => node.hidden), true);
  assert.equal(await page.$eval('#history', (node) => node.hidden), true);
  await page.close();
});

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
  // A line of words from the move's story, as the library tells it.
  const line = storyLine(start, legal[1], storyOf(start, 0));
  assert.equal(await textOf(page, '#move-story'), `South: ${line}`);
  assert.match(line, /^[a-h][1-4]: sowed \d+/);

  const illegal = 'a1'; // player 0's hole, while player 1 is to move
  const expected = (() => { try { start.apply(start.moveFromString(illegal)); } catch (e) { return e; } return null; })();
  assert.ok(expected instanceof TGError);
  await page.type('#move-input', illegal);
  await page.keyboard.press('Enter');
  await expectError(page, '#move-error', expected, 'move');
  assert.equal(await positionOf(page), start.toString());
  assert.equal(await plyOf(page), 1);

  await page.$eval('#move-input', (node) => { node.value = ''; });
  const unreadable = (() => { try { start.moveFromString('q99'); } catch (e) { return e; } return null; })();
  assert.ok(unreadable instanceof TGError);
  await page.type('#move-input', 'q99');
  await page.click('#move-form button[type="submit"]');
  await expectError(page, '#move-error', unreadable, 'move');
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
  // The split spends the last throw, so North (a person) throws the sticks next (ply 2); the
  // moves and the position are read once the person is to move again, not while the throw is
  // under way.
  await waitForPerson(page);
  assert.ok((await plyOf(page)) >= 2);
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
    await expectError(page, '#paste-error', expected, 'position');
    assert.equal(await positionOf(page), loaded, 'a refused paste changes nothing');
  }
  await page.close();
});

test('a long search (search:time=1000) thinks in the worker: the main thread\'s longest task stays far below the search', async () => {
  const { spec, bot, position } = LONG_SEARCH;
  const probe = tg.State.fromString(spec, position);
  const began = performance.now();
  probe.botChoose(bot, 1);
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
  await seatSpec(page, '#seat1', bot);
  assert.equal(await phaseOf(page), 'bot');
  assert.equal(await page.$eval('#thinking', (node) => node.hidden), false, 'the thinking indicator shows');
  assert.ok((await textOf(page, '#thinking-text')).includes(bot), 'a spec that is no level is named as written');
  await waitForPerson(page, 120000);
  const [tasks, requests, answers] = await page.evaluate(() => [window.longTasks,
    performance.getEntriesByName('tg-bot-request').map((m) => m.startTime),
    performance.getEntriesByName('tg-bot-answer').map((m) => m.startTime)]);
  // The page marks each request to the worker and each answer: the search ran between them,
  // in the worker. A task blocks the thinking for the part of it that lies in between; the
  // work the page does once the answer is in (drawing the bot's move) is not thinking.
  const thinking = requests.filter((t) => t >= start)
    .map((t) => [t, answers.find((a) => a >= t) ?? Infinity]);
  assert.ok(thinking.length > 0 && thinking.every(([, a]) => a !== Infinity), 'every request was answered');
  const thoughtMs = thinking.reduce((sum, [r, a]) => sum + a - r, 0);
  assert.ok(thoughtMs > 100, `the bot thought for ${Math.round(thoughtMs)} ms`);
  // What the design guarantees, on any machine: the search does not run on the page's thread.
  // Had it done so, one task would cover nearly all of the thinking; the page's own tasks
  // (drawing, input) are a small part of it. The tight figure (how long that longest task is
  // on an idle machine) is a measurement: scripts/bench-web.sh.
  const longest = Math.max(0, ...tasks.map((task) => Math.max(0, ...thinking.map(([r, a]) =>
    Math.min(task.start + task.duration, a) - Math.max(task.start, r)))));
  assert.ok(longest < thoughtMs / 2,
    `the main thread was blocked for ${Math.round(longest)} ms of the ${Math.round(thoughtMs)} ms the bot thought`);
  const engine = tg.State.fromString(spec, position);
  const moves = await movesOf(page);
  assert.ok(moves.length > 0 && !moves[0].startsWith('throw'), 'the bot moved first');
  for (const move of moves) engine.apply(move);
  assert.equal(await positionOf(page), engine.toString());
  engine.free();
  await page.close();
});

// The rendered height of a board's count, in CSS pixels: its font size times the SVG's scale.
const countSizes = (page) => page.$$eval('#board text.count, #board text.count-badge-text, #board text[class^="piece-text"]',
  (nodes) => nodes.map((n) => parseFloat(getComputedStyle(n).fontSize) * n.getScreenCTM().a));

test('a 390 px phone screen: no game scrolls the page sideways, counts are 12 px or more, cells big enough to tap, a tap plays', async () => {
  const page = await openPage({ viewport: { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 } });
  const setups = [
    { game: 'tab', options: { width: '29' }, smallest: 24, scrolls: true },
    { game: 'tab', options: { width: '13' }, smallest: 24, scrolls: false },
    { game: 'hus', options: { width: '16' }, smallest: 38, scrolls: true },
    { game: 'hus', options: { width: '8' }, smallest: 38, scrolls: false },
    { game: 'hawalis', options: { variant: 'zanzibar' }, smallest: 38, scrolls: false },
    { game: 'hawalis', options: { variant: 'oman' }, smallest: 38, scrolls: false },
    { game: 'walak-pussa', options: { rounds: 'match' }, smallest: 38, scrolls: false },
    { game: 'halusa', smallest: 38, scrolls: false },
  ];
  for (const setup of setups) {
    await newGame(page, { ...setup, south: 'person', north: 'person' });
    const name = `${setup.game} ${JSON.stringify(setup.options ?? {})}`;
    const page0 = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: innerWidth }));
    assert.ok(page0.scroll <= page0.inner, `${name}: the page is ${page0.scroll} px wide in ${page0.inner}`);
    const frame = await page.$eval('#board-wrap', (node) => ({ client: node.clientWidth, scroll: node.scrollWidth }));
    assert.ok(frame.client <= 390 && frame.client > 300, `${name}: board frame ${frame.client} px`);
    assert.equal(frame.scroll > frame.client, setup.scrolls, `${name}: the board scrolls sideways: ${frame.scroll} > ${frame.client}`);
    const cell = await page.$eval('#board .cell.legal', (node) => node.getBoundingClientRect().width);
    assert.ok(cell >= setup.smallest, `${name}: a cell is ${cell} px wide`);
    const sizes = await countSizes(page);
    if (setup.game !== 'tab') assert.ok(sizes.length > 0, `${name}: counts are drawn`);
    for (const size of sizes) assert.ok(size >= 12, `${name}: a count is ${size.toFixed(1)} px high`);
  }
  // A Tab king carries its size as a number.
  const king = 'tab:width=29 O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,x3,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,.,.,. 0 0,0 throws=2';
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, king);
  await page.click('#paste-form button[type="submit"]');
  const kingSizes = await countSizes(page);
  assert.equal(kingSizes.length, 1);
  assert.ok(kingSizes[0] >= 12, `a king's count is ${kingSizes[0].toFixed(1)} px high`);
  // The paste button scrolled the page down to it: the picture shows the board.
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'phone', { full: true });
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  await page.tap('#board .cell.legal');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  assert.equal(await positionOf(page), replay('halusa', await movesOf(page)).position);
  await page.close();
});

const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

// Where an element is on the screen, and the screen.
const placeOf = (page, selector) => page.$eval(selector, (node) => {
  const r = node.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: innerHeight };
});

test('a phone: New game, pressed in the form below the board, brings the board into view', async () => {
  const page = await openPage({ viewport: PHONE });
  for (const game of ['halusa', 'tab', 'hus']) {
    await newGame(page, { game, south: 'person', north: 'person' });
    const button = await placeOf(page, '#new-game-button');
    const board = await placeOf(page, '#board-wrap');
    const bar = await placeOf(page, '#seat-north');
    assert.ok(button.top > board.bottom, `${game}: the form is below the board on a phone`);
    assert.ok(bar.top >= 0 && board.bottom <= board.height,
      `${game}: the board is on screen after New game (North's bar at ${bar.top.toFixed(0)} px, the board's bottom at ${board.bottom.toFixed(0)} px of ${board.height})`);
  }
  // A pasted position: the same, from the form further down.
  const halusa = new tg.State('halusa');
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, halusa.toString());
  halusa.free();
  await page.click('#paste-form button[type="submit"]');
  const bar = await placeOf(page, '#seat-north');
  const board = await placeOf(page, '#board-wrap');
  assert.ok(bar.top >= 0 && board.bottom <= board.height, `the board is on screen after Load position (${bar.top.toFixed(0)} px)`);
  await page.close();
});

test('a phone: a wide At-Tab wa-d-Dukk board scrolls its frame to the last move, played or replayed', async () => {
  // North (a bot) to move with a throw of 3, its only movable pieces on ab3 and ac3: its move
  // ends in the last columns, far right of a frame that shows the first ones.
  const position = 'tab:width=29 .,.,.,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,o,o/.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,x,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,.,. 1 1,1 throws=3';
  const page = await openPage({ viewport: PHONE });
  await newGame(page, { game: 'tab', options: { width: '29' }, south: 'person', north: 'greedy' });
  assert.equal(await page.$eval('#board-wrap', (n) => n.scrollLeft), 0, 'the frame starts at column a');
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, position);
  await page.click('#paste-form button[type="submit"]');
  // After North's move South throws its own sticks (the throw button): the move is on the board.
  await page.waitForFunction(() => ['person', 'your-throw'].includes(document.body.dataset.phase) && Number(document.body.dataset.ply) > 0, { timeout: 60000 });
  // Every cell the last move marks (where it started, what it changed) is inside the frame.
  const marksInView = () => page.evaluate(() => {
    const frame = document.getElementById('board-wrap').getBoundingClientRect();
    const marked = [...document.querySelectorAll('#board .cell.last, #board .cell.changed')];
    return { count: marked.length, outside: marked.filter((n) => {
      const r = n.getBoundingClientRect();
      return r.left < frame.left - 1 || r.right > frame.right + 1;
    }).map((n) => n.dataset.name) };
  });
  const moves = await movesOf(page);
  assert.match(moves[0], /^a[bc]3\+3$/, 'North played from the last columns');
  const live = await marksInView();
  assert.ok(live.count >= 2, 'the last move is marked');
  assert.deepEqual(live.outside, [], `the last move ${moves[0]} is in view`);
  // South throws its sticks, so that North's move is a past one; then the replay of that move,
  // with the frame scrolled back to column a: in view again.
  await page.click('#throw');
  await page.waitForFunction(() => Number(document.body.dataset.ply) > 1, { timeout: 60000 });
  await page.$eval('#board-wrap', (n) => { n.scrollLeft = 0; });
  await page.click('#move-list li:nth-child(1)');
  const replayed = await marksInView();
  assert.ok(replayed.count >= 2, 'the replayed move is marked');
  assert.deepEqual(replayed.outside, [], 'the replayed move is in view');
  await page.close();
});

test('a phone: the board\'s coordinates are at least 11 px high and stay in the board\'s margin', async () => {
  const page = await openPage({ viewport: PHONE });
  const setups = [
    { game: 'tab', options: { width: '29' } },
    { game: 'tab', options: { width: '13' } },
    { game: 'hus', options: { width: '16' } },
    { game: 'hus', options: { width: '8' } },
    { game: 'hawalis', options: { variant: 'zanzibar' } },
    { game: 'walak-pussa' },
    { game: 'halusa' },
  ];
  for (const setup of setups) {
    await newGame(page, { ...setup, south: 'person', north: 'person' });
    const name = `${setup.game} ${JSON.stringify(setup.options ?? {})}`;
    const labels = await page.$$eval('#board .edge-label', (nodes) => {
      // The squares and holes' territories, which a label must not cover.
      const cells = [...document.querySelectorAll('#board .tab-square, #board [class^="territory-"]')]
        .map((n) => n.getBoundingClientRect());
      const board = document.querySelector('#board svg').getBoundingClientRect();
      return nodes.map((n) => {
        const r = n.getBoundingClientRect();
        return {
          text: n.textContent,
          px: parseFloat(getComputedStyle(n).fontSize) * n.getScreenCTM().a,
          inside: r.left >= board.left && r.right <= board.right && r.top >= board.top && r.bottom <= board.bottom,
          covers: cells.some((c) => r.left < c.right - 0.5 && r.right > c.left + 0.5 && r.top < c.bottom - 0.5 && r.bottom > c.top + 0.5),
        };
      });
    });
    assert.ok(labels.length > 0, `${name}: coordinates are drawn`);
    for (const label of labels) {
      assert.ok(label.px >= 11, `${name}: coordinate ${label.text} is ${label.px.toFixed(1)} px high`);
      assert.ok(label.inside && !label.covers, `${name}: coordinate ${label.text} stays in the margin`);
    }
    const page0 = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: innerWidth }));
    assert.ok(page0.scroll <= page0.inner, `${name}: the page is ${page0.scroll} px wide in ${page0.inner}`);
  }
  await page.close();
});

// WCAG's contrast ratio of two computed CSS colours (rgb(...) strings).
function contrast(a, b) {
  const luminance = (text) => {
    const [r, g, bl] = text.match(/[\d.]+/g).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// The marks on the board and the colours under them, as the browser computed them.
const markColours = (page) => page.evaluate(() => {
  const colour = (node, property) => getComputedStyle(node)[property];
  const opaque = (node) => Number(getComputedStyle(node).opacity) === 1;
  const marks = [...document.querySelectorAll('#board .cell.legal .ring, #board .cell.last .last-mark, #board .cell.changed .change-mark')];
  const boards = [...document.querySelectorAll('#board [class^="territory-"], #board .tab-square')];
  return {
    marks: marks.map((n) => ({ kind: n.getAttribute('class'), stroke: colour(n, 'stroke'), opaque: opaque(n) })),
    boards: [...new Set(boards.map((n) => colour(n, 'fill')))],
    ink: colour(document.body, 'color'),
    paper: colour(document.documentElement, 'backgroundColor'),
  };
});

for (const dark of [false, true]) {
  test(`${dark ? 'dark' : 'light'} theme: legal-move and last-move marks stand out 3:1 from every board colour`, async () => {
    const page = await openPage({ dark, viewport: { width: 820, height: 900 } });
    for (const game of ['hus', 'tab']) {
      await newGame(page, { game, south: 'person', north: 'person' });
      if (game === 'tab') await page.waitForFunction(() => document.body.dataset.phase === 'person');
      // One move, so that a last move and the cells it changed are marked too.
      await clickOneMove(page, clicker(3));
      await waitForPerson(page);
      if (game === 'tab' && (await page.$$('#board .cell.legal')).length === 0) continue;
      const seen = await markColours(page);
      const kinds = new Set(seen.marks.map((m) => m.kind));
      assert.ok(kinds.has('ring') && kinds.has('last-mark'), `${game}: marks drawn: ${[...kinds]}`);
      for (const mark of seen.marks) {
        assert.ok(mark.opaque, `${game}: the ${mark.kind} is not faded`);
        for (const board of seen.boards) {
          const ratio = contrast(mark.stroke, board);
          assert.ok(ratio >= 3, `${game}: ${mark.kind} ${mark.stroke} on ${board}: ${ratio.toFixed(2)}:1`);
        }
      }
      assert.ok(contrast(seen.ink, seen.paper) >= 7, `text ${seen.ink} on ${seen.paper}`);
      if (dark) assert.ok(contrast(seen.paper, 'rgb(0,0,0)') < 1.5, `a dark page: ${seen.paper}`);
      if (game === 'hus') await screenshot(page, dark ? 'dark' : 'hus-marks');
    }
    await page.close();
  });
}

test('the flip button turns the board (and the seat bars) round; How to play shows the rules, diagrams and the docs link', async () => {
  const page = await openPage();
  await newGame(page, { game: 'walak-pussa', south: 'person', north: 'person' });
  const y = (name) => page.$eval(`#board [data-name="${name}"]`, (n) => n.getBoundingClientRect().y);
  assert.ok((await y('a1')) > (await y('a2')), 'South\'s row is at the bottom');
  assert.match(await textOf(page, '#seat-south'), /^South/);
  await page.click('#flip');
  assert.ok((await y('a1')) < (await y('a2')), 'turned: South\'s row is at the top');
  assert.match(await textOf(page, '#seat-south'), /^North/);
  assert.equal(await page.$eval('#flip', (n) => n.getAttribute('aria-pressed')), 'true');
  const x = (name) => page.$eval(`#board [data-name="${name}"]`, (n) => n.getBoundingClientRect().x);
  assert.ok((await x('a1')) > (await x('g1')), 'turned: column a is on the right');
  await page.click('#flip');
  assert.ok((await y('a1')) > (await y('a2')));

  for (const game of tg.games()) {
    await page.select('#game-select', game.id);
    await ratingsShown(page);
    await page.click('#new-game-button');
    await page.$eval('#learn', (n) => { n.open = true; });
    const learn = await page.$eval('#learn-body', (n) => ({
      paragraphs: [...n.querySelectorAll('p')].map((p) => p.textContent),
      diagrams: [...n.querySelectorAll('.diagram svg')].length,
      captions: [...n.querySelectorAll('figcaption')].map((c) => c.textContent),
      link: n.querySelector('#learn-more').getAttribute('href'),
    }));
    assert.deepEqual(learn.paragraphs.slice(0, -1), en[`learn.${game.id}`], game.id);
    assert.equal(learn.diagrams, 2, `${game.id}: the start and a first move`);
    assert.match(learn.captions[1], /^After South plays \S+$/);
    assert.equal(learn.link, `docs/${game.id}.md`);
    // The options are named in words, never by their keys.
    const labels = await page.$$eval('#options label', (nodes) => nodes.map((n) => n.firstChild.textContent.trim()));
    assert.equal(labels.length, game.options.length);
    for (const [i, option] of game.options.entries()) {
      assert.notEqual(labels[i], option.key, `${game.id}: option ${option.key} in words`);
      assert.ok(labels[i].split(' ').length >= 2, `${game.id}: "${labels[i]}"`);
      for (const choice of option.choices ?? []) {
        const shown = await page.$eval(`#option-${option.key} option[value="${choice}"]`, (n) => n.textContent);
        if (!/^\d+$/.test(choice)) assert.notEqual(shown, choice, `${game.id}: ${option.key}=${choice} in words`);
      }
    }
  }
  const doc = await page.evaluate(async () => (await fetch('docs/hus.md')).text());
  assert.match(doc, /^# Hus/);
  await page.close();
});

test('the move list is a replay: a click shows the position after that move, keys step, Esc returns; a rematch swaps the seats', async () => {
  const page = await openPage();
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  const pick = clicker(21);
  for (let i = 0; i < 4; i++) await clickOneMove(page, pick);
  const moves = await movesOf(page);
  const live = await positionOf(page);
  const boardCounts = () => page.$$eval('#board .cell', (nodes) => nodes.map((n) => Number(n.dataset.count)));
  const engineAt = (k) => {
    const state = new tg.State('halusa');
    for (const move of moves.slice(0, k)) state.apply(move);
    const out = { position: state.toString(), counts: state.board.flat() };
    state.free();
    return out;
  };
  await page.click('#move-list li:nth-child(2)');
  assert.equal(await positionOf(page), engineAt(2).position);
  assert.deepEqual(await boardCounts(), engineAt(2).counts);
  assert.equal(await page.$eval('#replay-bar', (n) => n.hidden), false);
  assert.equal((await page.$$('#board .cell.legal')).length, 0, 'a past position cannot be played');
  await page.focus('#move-list li:nth-child(2)');
  await page.keyboard.press('ArrowRight');
  assert.equal(await positionOf(page), engineAt(3).position);
  await page.keyboard.press('Home');
  assert.equal(await positionOf(page), engineAt(0).position);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await positionOf(page), engineAt(0).position, 'no step before the start');
  await page.keyboard.press('Escape');
  assert.equal(await positionOf(page), live);
  assert.equal(await page.$eval('#replay-bar', (n) => n.hidden), true);
  assert.ok((await page.$$('#board .cell.legal')).length > 0, 'back in the game');

  // A finished game (pasted), then the rematch: the same rules, the seats swapped.
  await page.select('#seat1', 'greedy');
  // A finished position, as the library leaves one: a random Hus game played to its end.
  const game = new tg.State('hus');
  game.playout(7);
  const finished = game.toString();
  assert.ok(game.isTerminal, 'the pasted position is over');
  game.free();
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, finished);
  await page.click('#paste-form button[type="submit"]');
  await page.waitForFunction(() => document.body.dataset.phase === 'over');
  await page.click('#rematch');
  assert.deepEqual([await page.$eval('#seat0', (n) => n.value), await page.$eval('#seat1', (n) => n.value)], ['greedy', 'person']);
  // The bot, now South, opens the new game; the person answers as North.
  await waitForPerson(page);
  assert.equal(await plyOf(page), 1);
  assert.equal(await positionOf(page), replay('hus:width=8,laps=10000,quiet=100', await movesOf(page)).position);
  await page.close();
});

test('a move plays out from its story: the hand goes hole by hole along the real path, and the bot replies after it', async () => {
  const page = await openPage();
  // Not ?speed=fast, which turns the animation off: the same page at the fast setting.
  await page.goto(`${base}?seed=3`);
  await page.waitForFunction(() => document.body.dataset.phase !== 'loading');
  await page.select('#animation', 'fast');
  await newGame(page, { game: 'halusa', south: 'person', north: 'greedy' });
  await page.evaluate(() => {
    window.path = [];
    window.phases = [];
    new MutationObserver(() => {
      const cell = document.getElementById('board').getAttribute('data-anim-cell');
      if (cell && window.path.at(-1) !== cell) window.path.push(cell);
      if (cell) window.lastStep = performance.now();
    }).observe(document.getElementById('board'), { attributes: true, attributeFilter: ['data-anim-cell'] });
    new MutationObserver(() => window.phases.push([document.body.dataset.phase, performance.now()]))
      .observe(document.body, { attributes: true, attributeFilter: ['data-phase'] });
    // The last step of the person's move: the hand's last hole before the board moves on.
    new MutationObserver(() => {
      if (window.firstMoveDone === undefined && Number(document.body.dataset.ply) === 1 && window.path.length > 0) window.firstMoveDone = window.lastStep;
    }).observe(document.body, { attributes: true, attributeFilter: ['data-phase'] });
  });
  await page.click('#board .cell.legal[data-name="c1"]');
  await page.waitForFunction(() => document.body.dataset.phase === 'person' && Number(document.body.dataset.ply) === 2, { timeout: 30000 });
  const [path, phases, requests, firstMoveDone] = await page.evaluate(() => [window.path, window.phases,
    performance.getEntriesByName('tg-bot-request').map((m) => m.startTime), window.firstMoveDone]);
  // The story, from the library in Node: the cells lifted from and dropped into, in order.
  const state = new tg.State('halusa');
  state.apply('c1');
  const real = [];
  for (const e of storyOf(state, 0)) {
    if (e.kind !== EVENT.LIFT && e.kind !== EVENT.DROP) continue;
    const name = state.cellName(Math.floor(e.cell / state.cols), e.cell % state.cols);
    if (real.at(-1) !== name) real.push(name);
  }
  state.free();
  assert.deepEqual(path.slice(0, real.length), real, 'the hand follows the story, hole by hole');
  const animating = phases.filter(([p]) => p === 'animating');
  assert.ok(animating.length >= 1, 'the page was animating');
  assert.equal(requests.length, 1, 'one search, for the bot\'s reply');
  assert.ok(requests[0] >= firstMoveDone, `the search began at ${requests[0].toFixed(0)} ms, after the person's move had played out (${firstMoveDone.toFixed(0)} ms)`);
  await page.close();
});

test('while a person\'s own move plays out, the status says it is being played and no hole is offered', async () => {
  const page = await openPage();
  // The slow setting, so that the move takes seconds even on a busy machine.
  await page.goto(`${base}?seed=3`);
  await page.waitForFunction(() => document.body.dataset.phase !== 'loading');
  await page.select('#animation', 'slow');
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  assert.ok((await page.$$('#board .cell.legal')).length > 0, 'South is offered holes before the move');
  // At every step of the hand: what the status says and what the board offers.
  await page.evaluate(() => {
    window.steps = [];
    new MutationObserver(() => {
      if (!document.getElementById('board').getAttribute('data-anim-cell')) return;
      window.steps.push({
        status: document.getElementById('status-text').textContent,
        offered: document.querySelectorAll('#board .cell.legal, #board .ring, #board [role="button"]').length,
        hint: document.getElementById('hint-button').disabled,
        suggestions: document.querySelectorAll('#legal-moves option').length,
      });
    }).observe(document.getElementById('board'), { attributes: true, attributeFilter: ['data-anim-cell'] });
  });
  await page.click('#board .cell.legal[data-name="c1"]');
  await page.waitForFunction(() => document.body.dataset.phase === 'person' && Number(document.body.dataset.ply) === 1, { timeout: 30000 });
  const steps = await page.evaluate(() => window.steps);
  assert.ok(steps.length >= 3, `the move played out (${steps.length} steps)`);
  for (const step of steps) {
    assert.equal(step.status, en['status.playing']('South', 'c1'));
    assert.deepEqual([step.offered, step.hint, step.suggestions], [0, true, 0], 'nothing is offered while the move plays out');
  }
  // Then North is to move, and is offered its holes.
  assert.equal(await textOf(page, '#status-text'), `${en['status.played']('South', 'c1')}${en['status.to-move']('North')}`);
  assert.ok((await page.$$('#board .cell.legal')).length > 0);
  await page.close();
});

test('an At-Tab wa-d-Dukk move plays out from its story: the piece walks square by square, the capture flies off, the sticks fall', async () => {
  // South to move with a stored throw of 3: h4+3 walks two squares and takes North's piece on
  // the third; then North's throws are due.
  const position = 'tab:width=13 .,O,O,O,O,O,O,x,O,.,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,./o,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,.,. 0 2,1 throws=3';
  const move = 'h4+3';
  const start = tg.State.fromString('tab', position);
  const after = start.clone();
  after.apply(move);
  const events = storyOf(after, after.history.length - 1);
  const name = (cell) => after.cellName(Math.floor(cell / after.cols), cell % after.cols);
  const walk = events.filter((e) => [EVENT.MOVE_FROM, EVENT.STEP, EVENT.MOVE_TO].includes(e.kind)).map((e) => name(e.cell));
  const taken = events.filter((e) => e.kind === EVENT.TAKE).map((e) => name(e.cell));
  assert.ok(walk.length >= 4 && taken.length === 1, 'the story has steps and a capture');

  const page = await openPage();
  // Not ?speed=fast, which turns the animation off: the same page at the fast setting.
  await page.goto(`${base}?seed=4`);
  await page.waitForFunction(() => document.body.dataset.phase !== 'loading');
  await page.select('#animation', 'fast');
  await newGame(page, { game: 'tab', south: 'person', north: 'person' });
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, position);
  await page.click('#paste-form button[type="submit"]');
  assert.equal(await positionOf(page), start.toString());
  await page.evaluate(() => {
    window.path = [];
    window.taken = [];
    window.flying = 0;
    window.rolling = 0;
    const board = document.getElementById('board');
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes' && r.attributeName === 'data-anim-cell') {
          const cell = board.getAttribute('data-anim-cell');
          if (cell && window.path.at(-1) !== cell) window.path.push(cell);
        } else if (r.type === 'attributes' && r.target.classList?.contains('story-taken')) {
          const cell = r.target.getAttribute('data-name');
          if (!window.taken.includes(cell)) window.taken.push(cell);
        } else if (r.type === 'childList') {
          for (const node of r.addedNodes) if (node.classList?.contains('flying')) window.flying++;
        }
      }
    }).observe(board, { attributes: true, attributeFilter: ['data-anim-cell', 'class'], subtree: true, childList: true });
    new MutationObserver(() => {
      if (document.getElementById('sticks').classList.contains('sticks-rolling')) window.rolling++;
    }).observe(document.getElementById('sticks'), { attributes: true, attributeFilter: ['class'] });
  });
  const from = walk[0];
  await page.click(`#board .cell.legal[data-name="${from}"]`);
  const choice = await page.$(`#choices button[data-move="${move}"]`);
  if (choice) await choice.click();
  // The move plays out, then North throws (each throw its own animation) until North decides.
  await waitForPerson(page);
  assert.ok((await plyOf(page)) > 1);
  const [path, takenOnPage, flying, rolling] = await page.evaluate(() => [window.path, window.taken, window.flying, window.rolling]);
  assert.deepEqual(path.slice(0, walk.length), walk, 'the piece walks the story\'s squares in order');
  assert.deepEqual(takenOnPage, taken, 'the taken piece is marked on its square');
  assert.ok(flying >= 1, 'the captured piece flies off the board');
  const moves = await movesOf(page);
  assert.equal(moves[0], move);
  const throws = moves.slice(1).filter((m) => m.startsWith('throw:'));
  assert.ok(throws.length >= 1 && rolling >= throws.length, `the sticks rolled for each of North's ${throws.length} throws (${rolling})`);
  // The sticks show the last throw: as many white sides up as its value, none for a 6.
  const last = Number(throws.at(-1).split(':')[1]);
  assert.equal(await page.$$eval('#sticks .stick.white', (nodes) => nodes.length), last === 6 ? 0 : last);
  assert.equal(await textOf(page, '#move-story'), `South: ${storyLine(after, move, events)}`);
  for (const m of moves.slice(1)) after.apply(m);
  assert.equal(await positionOf(page), after.toString());
  start.free();
  after.free();
  await page.close();
});

test('a game record: downloaded as the library writes it, opened again with every move', async () => {
  const page = await openPage();
  await newGame(page, { game: 'walak-pussa', south: 'person', north: 'person' });
  const pick = clicker(31);
  for (let i = 0; i < 3; i++) await clickOneMove(page, pick);
  const moves = await movesOf(page);
  await page.click('#download-record');
  const [text, name] = await page.evaluate(async () => {
    const link = document.getElementById('download-record');
    return [await (await fetch(link.href)).text(), link.download];
  });
  assert.match(name, /^walak-pussa-\d{4}-\d{2}-\d{2}\.tgr$/);
  const engine = tg.State.fromRecord(text);
  assert.equal(engine.history.length, moves.length);
  assert.equal(engine.toString(), await positionOf(page));
  const file = join(userDataDir, name);
  await writeFile(file, text);
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  const input = await page.$('#record-file');
  await input.uploadFile(file);
  await page.waitForFunction((n) => Number(document.body.dataset.ply) === n, {}, moves.length);
  assert.deepEqual(await movesOf(page), moves);
  assert.equal(await positionOf(page), engine.toString());
  engine.free();
  // Text that is no record: the library's refusal in words, the game as it was.
  await writeFile(file, 'not a record');
  await input.uploadFile(file);
  await page.waitForFunction(() => document.getElementById('record-error').textContent !== '');
  assert.equal(await page.$eval('#record-error', (n) => n.dataset.status), 'TG_ERR_PARSE');
  assert.equal(await positionOf(page), replay('walak-pussa', moves).position);
  await page.close();
});

test('hint and analysis: the engine\'s value of every legal move, on the board, from the worker', async () => {
  const page = await openPage();
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  const state = new tg.State('halusa');
  const expected = state.analyse('search:depth=4', 0);
  state.free();
  await page.click('#hint-button');
  await page.waitForFunction(() => document.querySelectorAll('#board .cell[data-value]').length > 0, { timeout: 60000 });
  const shown = await page.$$eval('#board .cell[data-value]', (nodes) => nodes.map((n) => [n.dataset.name, Number(n.dataset.value)]));
  // One value per legal hole (a Halusa move is its hole), the engine's.
  assert.deepEqual(shown.map(([name]) => name).sort(), expected.map((m) => m.name).sort());
  for (const [name, value] of shown) assert.ok(Math.abs(value - expected.find((m) => m.name === name).value) < 1e-3, name);
  assert.equal(await page.$eval('#board .cell.best', (n) => n.dataset.name), expected[0].name);
  assert.match(await textOf(page, '#hint'), new RegExp(`^Best: ${expected[0].name},`));
  // The analysis mode analyses every position where a person is to move.
  await page.click('#analysis');
  await clickOneMove(page, clicker(4));
  await page.waitForFunction(() => document.querySelectorAll('#board .cell[data-value]').length > 0, { timeout: 60000 });
  const next = new tg.State('halusa');
  for (const move of await movesOf(page)) next.apply(move);
  const values = next.analyse('search:depth=4', 0);
  next.free();
  assert.equal(await page.$eval('#board .cell.best', (n) => n.dataset.name), values[0].name);
  await page.close();
});

test('the analysis of a position the served endgame database covers: every move\'s exact value ("win by 4, exact"), in each language', async () => {
  // Six counters left, South to move: the database answers it and every move.
  const position = 'halusa:remainder=last-mover,quiet=3 0,0,0,0,2,2/0,0,1,1,0,0 0 38,28 quiet=1';
  const db = await Egtb.open(tg, join(egtbDir, 'halusa-q3'), EGTB_SPEC);
  const state = tg.State.fromString(new tg.Rules(EGTB_SPEC), position);
  const expected = await db.analyse(state, 'search:depth=4', 0);
  state.free();
  db.close();
  assert.ok(expected.length > 1 && expected.every((m) => m.exact !== null));
  for (const languages of [['en-GB'], ['ar']]) {
    const catalogue = languages[0] === 'ar' ? ar : en;
    const said = (m) => catalogue['analysis.exact'](m.exact.outcome, m.exact.endless, Math.abs(m.exact.finalMargin));
    const page = await openPage({ languages });
    await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
    await page.type('#paste-input', position);
    await page.click('#paste-form button[type="submit"]');
    await page.waitForFunction(() => document.body.dataset.phase === 'person');
    await page.click('#hint-button');
    await page.waitForFunction(() => !document.querySelector('#exact-moves').hidden, { timeout: 60000 });
    assert.deepEqual(await page.$$eval('#exact-moves li', (items) => items.map((li) => li.textContent)),
      expected.map((m) => catalogue['analysis.exact-move'](m.name, said(m))));
    assert.equal(await textOf(page, '#hint'), catalogue['analysis.exact-best'](expected[0].name, said(expected[0])));
    if (languages[0] === 'en-GB') {
      // The English line is the package's own wording (ExactValue.describe()).
      assert.equal(said(expected[0]), expected[0].exact.describe());
      assert.match(await textOf(page, '#hint'), /^Best: [a-f][12], (win|loss) by \d+, exact \(endgame database\)\.$|^Best: [a-f][12], draw, exact/);
    }
    assert.equal(await page.$eval('#board .cell.best', (n) => n.dataset.name), expected[0].name);
    // A move played: the position is no longer the one analysed, and the list goes.
    await clickOneMove(page, clicker(4));
    await page.waitForFunction(() => document.querySelector('#exact-moves').hidden);
    await page.close();
  }
});

test('animation speed: a setting, off when the system asks for reduced motion', async () => {
  const seen = [];
  for (const reduce of [false, true]) {
    const page = await browser.newPage();
    // Nothing remembered from an earlier page: the system's preference decides.
    await page.evaluateOnNewDocument(() => localStorage.removeItem('tg-animation'));
    await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: reduce ? 'reduce' : 'no-preference' }]);
    await page.goto(`${base}?seed=1`);
    await page.waitForFunction(() => document.body.dataset.phase !== 'loading');
    seen.push(await page.$eval('#animation', (n) => [n.value, [...n.options].map((o) => o.value)]));
    await page.close();
  }
  assert.deepEqual(seen, [['normal', ['off', 'slow', 'normal', 'fast']], ['off', ['off', 'slow', 'normal', 'fast']]]);
});

test('Arabic: chosen by the browser\'s language, complete, right to left around a board that stays as the game has it; the switch goes back', async () => {
  // Both catalogues have the same keys, and every entry gives text.
  assert.deepEqual(Object.keys(ar).sort(), Object.keys(en).sort());
  const page = await openPage({ languages: ['ar-EG', 'en'], viewport: { width: 390, height: 844, isMobile: true, hasTouch: true } });
  assert.equal(await page.$eval('html', (n) => n.getAttribute('dir')), 'rtl');
  assert.equal(await page.$eval('html', (n) => n.lang), 'ar');
  assert.equal(await page.$eval('#board-wrap', (n) => getComputedStyle(n).direction), 'ltr');
  await newGame(page, { game: 'hawalis', options: { variant: 'zanzibar' }, south: 'person', north: 'greedy' });
  await clickOneMove(page, clicker(9));
  await waitForPerson(page);
  const x = (name) => page.$eval(`#board [data-name="${name}"]`, (n) => n.getBoundingClientRect().x);
  assert.ok((await x('a1')) < (await x('b1')), 'the board runs a, b, ... left to right');
  await page.$eval('#learn', (n) => { n.open = true; });
  // No English sentence of the catalogue is left on the page.
  const text = await page.evaluate(() => document.body.innerText);
  for (const [key, value] of Object.entries(en)) {
    if (typeof value === 'string' && value.split(' ').length >= 3) assert.ok(!text.includes(value), `English left: ${key}`);
  }
  assert.ok(text.includes(ar['new.summary']) && text.includes(ar['learn.summary']));
  assert.match(await textOf(page, '#status-text'), /الجنوب|الشمال/);
  const page0 = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: innerWidth }));
  assert.ok(page0.scroll <= page0.inner, `the Arabic page is ${page0.scroll} px wide`);
  await screenshot(page, 'arabic', { full: true });
  await page.select('#language', 'en');
  assert.equal(await page.$eval('html', (n) => n.getAttribute('dir')), 'ltr');
  assert.match(await textOf(page, '#status-text'), /South|North/);
  assert.equal(await page.$eval('#seat1', (n) => n.value), 'greedy', 'the form is as it was');
  await page.close();
});

test('a language switch words again the errors already shown', async () => {
  const page = await openPage();
  await newGame(page, { game: 'hus', options: { width: '16' }, south: 'person', north: 'person' });
  // Three refusals, each in English.
  await page.type('#move-input', 'zz9');
  await page.click('#move-form button[type="submit"]');
  await page.$eval('#spec-input', (node) => { node.value = 'chess'; });
  await page.click('#new-game-button');
  await page.$eval('#paste-input', (node) => { node.value = 'hus:width=16 nonsense'; });
  await page.click('#paste-form button[type="submit"]');
  const errors = () => page.$$eval('#move-error, #spec-error, #paste-error', (nodes) => nodes.map((n) => [n.textContent, n.dataset.status]));
  const games = tg.games().map((g) => g.id);
  const expected = (words) => [
    [words['error.move.TG_ERR_PARSE'], 'TG_ERR_PARSE'],
    [words['error.TG_ERR_UNKNOWN_GAME'](games), 'TG_ERR_UNKNOWN_GAME'],
    [words['error.position.TG_ERR_PARSE'], 'TG_ERR_PARSE'],
  ];
  assert.deepEqual(await errors(), expected(en));
  await page.select('#language', 'ar');
  assert.deepEqual(await errors(), expected(ar), 'the errors in Arabic');
  await page.select('#language', 'en');
  assert.deepEqual(await errors(), expected(en), 'back in English');
  // A message the page no longer shows is not brought back by a switch.
  await page.$eval('#move-input', (node) => { node.value = ''; });
  await page.type('#move-input', 'a1');
  await page.click('#move-form button[type="submit"]');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  assert.equal(await textOf(page, '#move-error'), '');
  await page.select('#language', 'ar');
  assert.equal(await textOf(page, '#move-error'), '');
  await page.select('#language', 'en');
  await page.close();
});

test('the header names the game, with its rules in a line of words, in each language; no rule spec', async () => {
  const page = await openPage();
  await newGame(page, { game: 'hus', options: { width: '16' }, south: 'person', north: 'person' });
  const rulesIn = (words) => words['page.rules']([`${words['option.width']}: 16`, `${words['option.laps']}: 10000`, `${words['option.quiet']}: 100`]);
  assert.equal(await textOf(page, '#tagline'), en['game.hus']);
  assert.equal(await textOf(page, '#rules-line'), rulesIn(en));
  assert.doesNotMatch(await textOf(page, 'header'), /hus:|width=|laps=/);
  await page.select('#language', 'ar');
  assert.equal(await textOf(page, '#tagline'), ar['game.hus']);
  assert.equal(await textOf(page, '#rules-line'), rulesIn(ar));
  await page.select('#language', 'en');
  // Words for the choices too: a Walak-pussa match.
  await newGame(page, { game: 'walak-pussa', options: { rounds: 'match' }, south: 'person', north: 'person' });
  assert.equal(await textOf(page, '#rules-line'), en['page.rules']([`${en['option.rounds']}: ${en['option.rounds.match']}`,
    `${en['option.laps']}: 10000`, `${en['option.quiet']}: 100`]));
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
  assert.match(label ?? '', /^[a-f]1, 6 counters, South's hole, legal move [a-f]1/);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  // The board keeps the focus for the next player.
  const focused = await page.evaluate(() => document.activeElement.getAttribute('aria-label') ?? '');
  assert.match(focused, /North's hole, legal move/);
  await page.keyboard.press(' ');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 2);
  assert.equal(await positionOf(page), replay('halusa', await movesOf(page)).position);
  await page.click('#undo');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  assert.equal(await positionOf(page), replay('halusa', await movesOf(page)).position);
  await page.close();
});

test('keyboard: the arrow keys move between the holes on the board, both rows, stopping at its edges, either way round', async () => {
  const page = await openPage();
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  const focused = () => page.evaluate(() => {
    const node = document.activeElement;
    const r = node.getBoundingClientRect();
    return { name: node.dataset?.name ?? node.id ?? node.tagName, x: r.x, y: r.y, outline: getComputedStyle(node).outlineStyle };
  });
  const press = async (key) => {
    await page.keyboard.press(key);
    return (await focused()).name;
  };
  await page.$eval('#board .cell.legal[data-name="c1"]', (node) => node.focus());
  assert.equal(await press('ArrowRight'), 'd1');
  assert.equal(await press('ArrowLeft'), 'c1');
  assert.equal(await press('ArrowLeft'), 'b1');
  assert.equal(await press('ArrowLeft'), 'a1');
  assert.equal(await press('ArrowLeft'), 'a1', 'the left edge stops the focus');
  assert.equal(await press('ArrowUp'), 'a2', 'up to North\'s row');
  assert.equal(await press('ArrowUp'), 'a2', 'the top edge stops the focus');
  assert.equal(await press('ArrowRight'), 'b2');
  // A hole that cannot be played is read (its name, count and owner) and shows the focus.
  const north = await focused();
  assert.match(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), /^b2, 6 counters, North's hole$/);
  assert.notEqual(north.outline, 'none', 'the focus is drawn on a hole that cannot be played');
  await page.keyboard.press('Enter');
  assert.equal(await plyOf(page), 0, 'Enter on a hole that cannot be played plays nothing');
  assert.equal(await press('ArrowDown'), 'b1');
  // None of it left the game for the replay.
  assert.equal(await page.$eval('#replay-bar', (n) => n.hidden), true);
  assert.equal(await plyOf(page), 0);
  // Turned round, the arrows still go the way they point on the screen.
  await page.click('#flip');
  await page.$eval('#board .cell.legal[data-name="c1"]', (node) => node.focus());
  const before = await focused();
  await page.keyboard.press('ArrowRight');
  const right = await focused();
  assert.ok(right.x > before.x && Math.abs(right.y - before.y) < 1, `ArrowRight went right on the turned board (${before.name} to ${right.name})`);
  // South's row is at the top now: down goes to North's.
  await page.keyboard.press('ArrowDown');
  const down = await focused();
  assert.ok(down.y > right.y && Math.abs(down.x - right.x) < 1, `ArrowDown went down on the turned board (${right.name} to ${down.name})`);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1);
  assert.deepEqual(await movesOf(page), [right.name]);
  await page.close();
});

test('two bots play on their own; Pause stops them, Undo takes a move back, Resume goes on', async () => {
  const page = await openPage({ seed: 5 });
  await page.select('#game-select', 'tab');
  await page.select('#seat0', 'random');
  await page.select('#seat1', 'random');
  await ratingsShown(page);
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

test('a levels file that cannot be read, or with a level of the clock or a game left out: the seats offer what is valid, the note says why, people still play', async () => {
  const { readFile } = await import('node:fs/promises');
  const table = JSON.parse(await readFile(fileURLToPath(new URL('../../docs/ratings/levels.json', import.meta.url)), 'utf8'));
  const seats = (page) => Promise.all(['#seat0', '#seat1'].map((select) => page.$$eval(`${select} option`, (nodes) => nodes.map((n) => n.value))));
  let page = await openPage({ levelsBody: '{"levels": ["beginner", ' });
  for (const game of ['halusa', 'tab']) {
    await page.select('#game-select', game);
    assert.deepEqual(await seats(page), [['person'], ['person']], `${game}: no level without the file`);
    assert.equal(await textOf(page, '#levels-note'), en['new.levels-unread']);
  }
  await page.click('#new-game-button');
  assert.equal(await phaseOf(page), 'your-throw', 'a game between people starts');
  await page.close();

  const bad = structuredClone(table);
  bad.games.halusa[4] = 'search:time=1000';
  delete bad.games.hus;
  page = await openPage({ levelsBody: JSON.stringify(bad) });
  for (const game of ['halusa', 'hus']) {
    await page.select('#game-select', game);
    assert.deepEqual(await seats(page), [['person'], ['person']], `${game}: its levels refused whole`);
    assert.equal(await textOf(page, '#levels-note'), en['new.levels-none']);
  }
  await page.select('#game-select', 'hawalis');
  assert.deepEqual((await seats(page))[1], ['person', ...table.games.hawalis], 'the other games keep their levels');
  await page.close();
});

test('levels by name, per game from docs/ratings/levels.json, with the rating measured for the game on the board (docs/ratings), and a search stopped when the seat changes', async () => {
  const { readFile } = await import('node:fs/promises');
  const ratingsFile = async (name) => JSON.parse(await readFile(fileURLToPath(new URL(`../../docs/ratings/${name}`, import.meta.url)), 'utf8'));
  const table = await ratingsFile('levels.json');
  assert.deepEqual(Object.keys(table.games).sort(), tg.games().map((game) => game.id).sort(), 'every game has its levels');
  // What a level does, in words from its spec: the same budget the spec gives the engine.
  const how = (catalogue, spec) => {
    const [kind, budget] = spec.split(/:(?:iterations|nodes)=/);
    return budget === undefined ? catalogue[`bot-how.${kind}`] : catalogue[`bot-how.${kind}`](Number(budget));
  };
  const page = await openPage();
  for (const game of Object.keys(table.games)) {
    const levels = table.games[game].map((spec, i) => [spec, table.levels[i]]);
    const set = (await ratingsFile(`${game}.json`)).rule_sets[0];
    await page.select('#game-select', game);
    // Read when the game is chosen: the words come once the file is in.
    await page.waitForFunction((rules) => document.querySelector('#levels-note code')?.textContent === rules, {}, set.rules);
    let below = -Infinity;
    for (const [spec, name] of levels) {
      assert.match(spec, /^(random|greedy|mcts:iterations=\d+|search:nodes=\d+)$/, `${game} ${name}: a fixed budget, no clock`);
      const rating = set.ratings.find((r) => r.bot === spec);
      assert.ok(rating, `${game}: ${spec} is rated in docs/ratings/${game}.json`);
      assert.ok(rating.elo > below, `${game}: ${name} is rated above the level below it`);
      below = rating.elo;
    }
    for (const select of ['#seat0', '#seat1']) {
      const options = await page.$$eval(`${select} option`, (nodes) => nodes.map((n) => [n.value, n.textContent]));
      assert.deepEqual(options.map(([value]) => value), ['person', ...levels.map(([spec]) => spec)]);
      for (const [spec, name] of levels) {
        const text = options.find(([value]) => value === spec)[1];
        const rating = set.ratings.find((r) => r.bot === spec);
        const want = spec === 'random' ? en['seat.level-anchor'](en[`level.${name}`])
          : en['seat.level-rated'](en[`level.${name}`], Math.round(rating.elo));
        assert.equal(text, want, `${game}: ${spec}`);
        assert.doesNotMatch(text, /iterations=|search:|mcts:/, 'a level is named in words, not by its spec');
        // A rating in words; its interval when the pointer is on the level.
        assert.doesNotMatch(text, /Elo|±/);
        const title = spec === 'random' ? en['seat.level-anchor-title'](how(en, spec))
          : en['seat.level-interval'](how(en, spec), Math.round(rating.elo), Math.round(rating.half_width));
        assert.equal(await page.$eval(`${select} option[value="${spec}"]`, (n) => n.title), title);
      }
    }
    const note = await textOf(page, '#levels-note');
    for (const [spec, name] of levels) assert.ok(note.includes(`${en[`level.${name}`]}: ${how(en, spec)}`), `${game}: ${name} in the note`);
    assert.doesNotMatch(note, /Elo|time=|1 s a move/);
  }
  // A seat that is a level stays that level in another game: the same name, that game's spec.
  const specOf = (game, name) => table.games[game][table.levels.indexOf(name)];
  await page.select('#game-select', 'halusa');
  await page.select('#seat0', specOf('halusa', 'hard'));
  await page.select('#seat1', specOf('halusa', 'strongest'));
  await page.select('#game-select', 'hus');
  assert.deepEqual([await page.$eval('#seat0', (n) => n.value), await page.$eval('#seat1', (n) => n.value)],
    [specOf('hus', 'hard'), specOf('hus', 'strongest')]);
  await page.select('#game-select', 'tab');
  // Arabic names the levels, their ratings and intervals from its own catalogue.
  await page.select('#language', 'ar');
  const hard = specOf('tab', 'hard');
  const arabic = await page.$eval(`#seat1 option[value="${hard}"]`, (n) => [n.textContent, n.title]);
  const tab = (await ratingsFile('tab.json')).rule_sets[0].ratings.find((r) => r.bot === hard);
  assert.deepEqual(arabic, [ar['seat.level-rated'](ar['level.hard'], Math.round(tab.elo)),
    ar['seat.level-interval'](how(ar, hard), Math.round(tab.elo), Math.round(tab.half_width))]);
  assert.doesNotMatch(await textOf(page, '#levels-note'), /إيلو/);
  await page.select('#language', 'en');

  // A player's own spec, a minute of search a move (no level: the levels have fixed budgets,
  // too short to stop midway; a minute, so that however loaded the machine the seat changes
  // long before the search could end), thinks in the package's SearchWorker; North turned
  // back into a person while it thinks: the search is aborted and its move never played. The
  // long search's position, where no search ends early with a proven result.
  const { spec, position } = LONG_SEARCH;
  const bot = 'search:time=60000';
  await newGame(page, { game: 'tab', options: { width: '29' }, south: 'person', north: 'person' });
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, position);
  await page.click('#paste-form button[type="submit"]');
  const start = tg.State.fromString(spec, position);
  assert.equal(await positionOf(page), start.toString());
  assert.equal(start.player, 1, 'North is to move');
  await seatSpec(page, '#seat1', bot);
  assert.equal(await phaseOf(page), 'bot');
  assert.ok((await textOf(page, '#thinking-text')).includes(bot));
  // The search's thread: the page is not cross-origin isolated, so the helper stops a search
  // by ending its Worker (and starts another for the next request).
  const workers = async (n) => {
    for (let i = 0; i < 400 && page.workers().length !== n; i++) await new Promise((resolve) => { setTimeout(resolve, 25); });
    return page.workers().length;
  };
  assert.equal(await workers(1), 1, 'the search runs in a Worker');
  await page.select('#seat1', 'person');
  assert.equal(await phaseOf(page), 'person');
  assert.equal(await workers(0), 0, 'the search was stopped: its Worker is gone');
  await new Promise((resolve) => { setTimeout(resolve, 2500); });
  assert.equal(await plyOf(page), 0, `the stopped search played nothing: ${await movesOf(page)}`);
  assert.equal(await phaseOf(page), 'person');
  assert.equal(await positionOf(page), start.toString());
  // The next request is answered (the worker was started again after the abort).
  await page.select('#seat1', 'greedy');
  await page.waitForFunction(() => Number(document.body.dataset.ply) > 0 && ['person', 'over', 'your-throw'].includes(document.body.dataset.phase), { timeout: 60000 });
  const moves = await movesOf(page);
  for (const move of moves) start.apply(move);
  assert.equal(await positionOf(page), start.toString());
  start.free();
  await page.close();
});

const visible = (page, selector) => page.$eval(selector, (node) => !node.hidden && node.getClientRects().length > 0);
const disabled = (page, selector) => page.$eval(selector, (node) => node.disabled);

test('the replay shows the words of the position it shows, and nothing acts on the live game until it is back', async () => {
  const page = await openPage();
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  const pick = clicker(21);
  for (let i = 0; i < 4; i++) await clickOneMove(page, pick);
  const moves = await movesOf(page);
  const live = { status: await textOf(page, '#status-text'), story: await textOf(page, '#move-story') };
  const controls = ['#move-form button[type="submit"]', '#move-input', '#undo', '#hint-button'];
  for (const control of controls) assert.equal(await disabled(page, control), false, `${control} is live in the game`);
  // The engine's words for the position after move 2: who played it, its story, who is to move.
  const state = new tg.State('halusa');
  state.apply(moves[0]);
  const mover = state.turn;
  state.apply(moves[1]);
  const status = `${en['status.played'](en[`side.${mover}`], moves[1])}${en['status.to-move'](en[`side.${state.turn}`])}`;
  const story = `${en[`side.${mover}`]}: ${storyLine(state, moves[1], storyOf(state, 1))}`;
  state.free();
  await page.click('#move-list li:nth-child(2)');
  assert.equal(await textOf(page, '#status-text'), status);
  assert.equal(await textOf(page, '#move-story'), story);
  assert.notEqual(story, live.story, 'the past move\'s words differ from the live one\'s');
  for (const control of [...controls, '#resign', '#draw-offer']) {
    assert.equal(await disabled(page, control), true, `${control} is off in the replay`);
  }
  // A click on the past board plays nothing.
  await page.click('#board .cell[data-name="a1"]');
  assert.equal(await plyOf(page), 4);
  await page.keyboard.press('Escape');
  assert.equal(await textOf(page, '#status-text'), live.status);
  assert.equal(await textOf(page, '#move-story'), live.story);
  for (const control of [...controls, '#resign', '#draw-offer']) {
    assert.equal(await disabled(page, control), false, `${control} is live again`);
  }
  await page.close();
});

test('an offline rematch turns the board so that the person\'s side is at the bottom, as at the start', async () => {
  const page = await openPage();
  await newGame(page, { game: 'hus', south: 'person', north: 'greedy' });
  const bottomRow = () => page.evaluate(() => {
    const ys = [...document.querySelectorAll('#board .cell')].map((n) => [n.dataset.name, n.getBoundingClientRect().y]);
    return ys.sort((a, b) => b[1] - a[1])[0][0].replace(/[a-z]+/, '');
  });
  assert.equal(await bottomRow(), '1', 'South\'s outer row at the bottom');
  assert.match(await textOf(page, '#seat-south'), /^South/);
  const game = new tg.State('hus');
  game.playout(7);
  const finished = game.toString();
  game.free();
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, finished);
  await page.click('#paste-form button[type="submit"]');
  await page.waitForFunction(() => document.body.dataset.phase === 'over');
  await page.click('#rematch');
  await waitForPerson(page);
  assert.deepEqual([await page.$eval('#seat0', (n) => n.value), await page.$eval('#seat1', (n) => n.value)], ['greedy', 'person']);
  // The person now plays North: North's outer row (4) and seat bar at the bottom.
  assert.equal(await bottomRow(), '4');
  assert.match(await textOf(page, '#seat-south'), /^North/);
  assert.equal(await page.$eval('#flip', (n) => n.getAttribute('aria-pressed')), 'true');
  await page.close();
});

test('At-Tab wa-d-Dukk: the person throws their own sticks with a button (keyboard too), animated; the throw is the library\'s', async () => {
  const page = await openPage();
  // Not ?speed=fast, which turns the animation off: the same page at the fast setting.
  await page.goto(`${base}?seed=8`);
  await page.waitForFunction(() => document.body.dataset.phase !== 'loading');
  await page.select('#animation', 'fast');
  await page.select('#game-select', 'tab');
  await page.select('#seat0', 'person');
  await page.select('#seat1', 'random');
  await ratingsShown(page);
  await page.click('#new-game-button');
  // South's opening throw waits for South.
  await page.waitForFunction(() => document.body.dataset.phase === 'your-throw', { timeout: 10000 });
  await new Promise((resolve) => { setTimeout(resolve, 300); });
  assert.equal(await plyOf(page), 0, 'nothing is thrown for the person');
  assert.equal(await visible(page, '#throw'), true);
  assert.equal(await textOf(page, '#throw'), en['sticks.throw']);
  assert.equal(await textOf(page, '#status-text'), en['status.your-throw'](en['side.0']));
  // Nothing thrown yet: the sticks lie unthrown, not all dark as a throw of 6 would show them.
  assert.deepEqual(await page.$$eval('#sticks .stick', (nodes) => nodes.map((n) => n.classList.contains('unthrown'))), [true, true, true, true]);
  await page.evaluate(() => {
    window.rolling = 0;
    new MutationObserver(() => {
      if (document.getElementById('sticks').classList.contains('sticks-rolling')) window.rolling++;
    }).observe(document.getElementById('sticks'), { attributes: true, attributeFilter: ['class'] });
  });
  // The keyboard: Shift+Tab from the move field reaches the button; Enter throws.
  await page.focus('#move-input');
  let reached = false;
  for (let i = 0; i < 12 && !reached; i++) {
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    reached = await page.evaluate(() => document.activeElement?.id === 'throw');
  }
  assert.ok(reached, 'the throw button is reached with the keyboard');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.body.dataset.ply) === 1, { timeout: 10000 });
  assert.ok(await page.evaluate(() => window.rolling) >= 1, 'the sticks rolled');
  const [first] = await movesOf(page);
  assert.match(first, /^throw:[1-6]$/);
  const value = Number(first.split(':')[1]);
  await page.waitForFunction(() => !document.getElementById('sticks').classList.contains('sticks-rolling'));
  assert.equal(await page.$$eval('#sticks .stick.white', (nodes) => nodes.length), value === 6 ? 0 : value);
  // On to the end of South's turn and North's reply: every South throw was a press.
  await waitForPerson(page);
  const moves = await movesOf(page);
  const entries = await page.$$eval('#move-list li', (items) => items.map((li) => li.textContent));
  assert.ok(entries.filter((e) => e.startsWith('S throw')).length >= 1);
  assert.equal(await positionOf(page), replay('tab', moves).position);
  await page.close();
});

test('a pasted At-Tab wa-d-Dukk position: the sticks show its throws', async () => {
  const page = await openPage();
  await newGame(page, { game: 'halusa', south: 'person', north: 'person' });
  const position = 'tab:width=13 O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,x3,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,.,.,. 0 0,0 throws=1,2';
  const state = tg.State.fromString('tab', position);
  assert.equal(state.toString(), position);
  state.free();
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, position);
  await page.click('#paste-form button[type="submit"]');
  await page.waitForFunction(() => document.body.dataset.phase === 'person');
  assert.equal(await positionOf(page), position);
  // The last throw it stores is a 2: two white sides up (a 6 would show none).
  assert.equal(await page.$$eval('#sticks .stick.white', (nodes) => nodes.length), 2);
  assert.equal(await page.$eval('#sticks', (n) => n.getAttribute('aria-label')), en['sticks.last'](2));
  assert.equal(await textOf(page, '#throws-text'), en['sticks.to-spend'](en['side.0'], ['1', '2']));
  await page.close();
});

test('offline, a game can be resigned and a draw offered (the bot answers from the engine\'s analysis); a match shows the holes each side holds', async () => {
  const page = await openPage();
  const match = 'walak-pussa:rounds=match,laps=10000,quiet=100';
  await newGame(page, { game: 'walak-pussa', options: { rounds: 'match' }, south: 'person', north: 'greedy' });
  // The start: even, so the bot (North) is not ahead by the engine's analysis and accepts.
  const start = new tg.State(match);
  const evenValue = -start.analyse('search:depth=4', 0)[0].value;
  start.free();
  assert.ok(evenValue <= 0, `the bot's value at the start is ${evenValue}`);
  assert.equal(await visible(page, '#draw-offer'), true);
  assert.equal(await textOf(page, '#draw-offer'), en['move.draw-offer']);
  await page.click('#draw-offer');
  await page.waitForFunction(() => document.body.dataset.phase === 'over', { timeout: 20000 });
  assert.equal(await textOf(page, '#banner-title'), en['banner.draw-agreed']);
  assert.equal(await page.$eval('#banner', (n) => n.dataset.by), 'agreement');
  assert.equal(await textOf(page, '#draw-answer'), en['draw.accepted'](en['side.1']));
  assert.equal(await disabled(page, '#undo'), true, 'no undo after the draw');
  assert.equal(await plyOf(page), 0);

  // South far behind: the engine sees North ahead, and the bot declines; the game goes on.
  const behind = `${match} 1,1,0,0,0,0,0/4,4,4,4,4,4,4 0 0,26 round=1 dead=- reserve=0,0 starter=0 quiet=0`;
  const probe = tg.State.fromString(match, behind);
  const aheadValue = -probe.analyse('search:depth=4', 0)[0].value;
  probe.free();
  assert.ok(aheadValue > 0, `the bot's value is ${aheadValue}`);
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, behind);
  await page.click('#paste-form button[type="submit"]');
  await page.waitForFunction(() => document.body.dataset.phase === 'person');
  await page.click('#draw-offer');
  await page.waitForFunction(() => document.getElementById('draw-answer').textContent.includes('declines'), { timeout: 20000 });
  assert.equal(await textOf(page, '#draw-answer'), en['draw.declined'](en['side.1'], aheadValue));
  assert.equal(await phaseOf(page), 'person', 'the game goes on');
  assert.equal(await page.$eval('#banner', (n) => n.hidden), true);

  // Resigning: North wins, nothing more is played.
  await clickOneMove(page, clicker(5));
  await waitForPerson(page);
  const ply = await plyOf(page);
  await page.click('#resign');
  assert.equal(await phaseOf(page), 'over');
  assert.equal(await textOf(page, '#banner-title'), en['banner.wins'](en['side.1']));
  assert.equal(await textOf(page, '#banner-reason'), en['banner.resigned'](en['side.0']));
  assert.equal(await disabled(page, '#resign'), true);
  await new Promise((resolve) => { setTimeout(resolve, 500); });
  assert.equal(await plyOf(page), ply, 'the bot plays no more');
  // A rematch starts again (the seats swapped).
  assert.equal(await visible(page, '#rematch'), true);

  // Two people at one screen agree a draw by the button.
  await page.select('#seat0', 'person');
  await page.select('#seat1', 'person');
  await page.click('#new-game-button');
  await waitForPerson(page);
  assert.equal(await textOf(page, '#draw-offer'), en['move.draw-agree']);
  await page.click('#draw-offer');
  assert.equal(await phaseOf(page), 'over');
  assert.equal(await textOf(page, '#banner-title'), en['banner.draw-agreed']);

  // A match in its second round: the round, and the holes each side holds (North lost a2).
  const second = `${match} 0,4,4,4,4,4,4/4,4,4,4,4,4,4 1 3,1 round=2 dead=a2 reserve=3,1 starter=1 quiet=0`;
  await page.$eval('#paste-input', (node, text) => { node.value = text; }, second);
  await page.click('#paste-form button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#seat-north .holes'));
  assert.match(await textOf(page, '#fields'), /^Round 2/);
  assert.equal(await textOf(page, '#seat-south .holes'), en['bar.holes'](7));
  assert.equal(await textOf(page, '#seat-north .holes'), en['bar.holes'](6));
  await page.close();
});

test('no console errors or warnings, no failed requests, in any of the above', () => {
  assert.deepEqual(consoleProblems, []);
});
