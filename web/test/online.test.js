// Online play in real browsers: pages of the web board play through tg-server over WebSocket.
//
//   node --test online.test.js      (scripts/test-web.sh --server PATH runs it)
//
// Environment: TG_SERVER, the tg-server binary (required); TG_CHROMIUM (default
// /usr/bin/chromium); TG_PACKAGE_DIR, the package folder with the built module (default
// bindings/js). The server serves the app itself (--web), from a folder holding copies of the
// app's files and the package's run-time files, as a deployment would lay them out (the server
// refuses symbolic links out of its --web folder): harness.js lays it out, starts the server
// and the browser, and holds the steps this file shares with the site's other tests.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import enWords from '../i18n/en.js';
import {
  ask as askServer, clickOnline, launchBrowser, layOutSite, movesOf, openBoardPage, openSitePage,
  phaseOf, picker, plyOf, positionOf, sessionCookie as siteSessionCookie, signedInAs, startServer,
  stopServer, typeCredentials, waitFor, waitForTurn,
} from './harness.js';

let work;
let browser;
let server = null;
let webPort = 0;
const consoleProblems = [];

// The first start takes a free web port; a restart the same one (and the same database).
async function startTgServer() {
  server = await startServer(work, join(work, 'matches.db'), [], webPort);
  webPort = server.webPort;
}

// One command on the line protocol, from Node: the server's own view of a match.
const ask = (line) => askServer(server, line);

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tg-online-'));
  await layOutSite(work);
  await startTgServer();
  browser = await launchBrowser(work);
});

after(async () => {
  await browser?.close();
  await stopServer(server);
  if (work) await rm(work, { recursive: true, force: true });
});

// A lost connection is expected while the server is down; anything else on the console is not.
let serverDown = false;

function openPage(query, context = browser) {
  return openBoardPage(context, `http://127.0.0.1:${webPort}/${query}`, consoleProblems, () => serverDown);
}

// The creator's page: the Play online form, with the rule spec and the clock typed in.
async function createMatch(page, spec, clock = '') {
  await page.$eval('#online', (node) => { node.open = true; });
  await page.$eval('#spec-input', (node, value) => { node.value = value; }, spec);
  await page.$eval('#clock-input', (node, value) => { node.value = value; }, clock);
  await page.click('#online-create');
  await waitFor(page, () => !document.getElementById('online-links').hidden
    || document.getElementById('online-error').textContent !== '');
  assert.equal(await page.$eval('#online-error', (n) => n.textContent), '');
  await waitFor(page, () => document.body.dataset.connection === 'connected');
  const opponent = await page.$eval('#link-opponent', (n) => n.value);
  const watch = await page.$eval('#link-watch', (n) => n.value);
  // The links carry the match, the invite and the tokens in their fragment, never the query.
  for (const link of [opponent, watch]) assert.equal(new URL(link).search, '');
  assert.match(new URL(opponent).hash, /^#match=\d+&invite=[0-9a-f]{32}$/);
  assert.match(new URL(page.url()).hash, /^#match=\d+&seat=0&token=[0-9a-f]{32}$/);
  return {
    id: new URLSearchParams(new URL(watch).hash.slice(1)).get('match'),
    opponent: new URL(opponent).hash,
    watch: new URL(watch).hash,
  };
}

async function waitOver(page, timeout = 120000) {
  await waitFor(page, () => document.body.dataset.phase === 'over', { timeout });
}

async function expectSameEnd(pages, id) {
  const positions = await Promise.all(pages.map(positionOf));
  const shown = await ask(`show ${id}`);
  const serverPosition = shown.slice(shown.indexOf(' position=') + 10);
  for (const position of positions) assert.equal(position, serverPosition);
  const history = await ask(`history ${id}`);
  for (const page of pages) assert.deepEqual(await movesOf(page), history.split(' ').slice(1));
  return shown;
}

for (const spec of ['halusa', 'hus', 'hawalis', 'walak-pussa', 'tab']) {
  test(`a whole match of ${spec}: two pages play through the server, a third watches`, async () => {
    const started = performance.now();
    const south = await openPage('?speed=fast&bot=random');
    const { id, opponent, watch } = await createMatch(south, spec);
    const north = await openPage(`?speed=fast&bot=random${opponent}`);
    const watcher = await openPage(`?speed=fast${watch}`);
    await Promise.all([south, north, watcher].map((page) => waitOver(page)));
    const shown = await expectSameEnd([south, north, watcher], id);
    assert.match(shown, / turn=- result=(0|1|draw) /);
    assert.ok((await plyOf(watcher)) > 4, 'the match had moves');
    assert.equal(await watcher.$eval('#banner', (n) => n.hidden), false);
    console.log(`# ${spec}: ${await plyOf(watcher)} plies in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await Promise.all([south, north, watcher].map((page) => page.close()));
  });
}

test('a flag falls: a short clock runs out for the seat that does not move', async () => {
  const south = await openPage('?speed=fast');
  const { id, opponent, watch } = await createMatch(south, 'halusa', '0.05+0');
  const north = await openPage(`?speed=fast${opponent}`);
  const watcher = await openPage(`?speed=fast${watch}`);
  for (const page of [north, watcher]) await waitFor(page, () => document.body.dataset.connection === 'connected');
  // South's first move starts the clocks, once every page is there (a loaded machine may take
  // longer than the 3 s of the clock to open a page); North never moves.
  await south.bringToFront(); // a click in a background tab never lands
  await clickOnline(south, picker(3));
  await waitFor(north, () => document.body.dataset.phase === 'person');
  const before = await north.$eval('#clock-1', (n) => Number(n.dataset.ms));
  assert.ok(before > 0 && before <= 3000, `North's clock shows its time (${before} ms)`);
  // Big clocks, the running one marked as such.
  const clocks = await north.$$eval('.clock', (nodes) => nodes.map((n) => ({
    id: n.id, running: n.classList.contains('running'), px: parseFloat(getComputedStyle(n).fontSize),
  })));
  assert.deepEqual(clocks.map((c) => [c.id, c.running]).sort(), [['clock-0', false], ['clock-1', true]]);
  for (const clock of clocks) assert.ok(clock.px >= 20, `${clock.id} is ${clock.px} px`);
  for (const page of [south, north, watcher]) {
    await waitFor(page, () => document.getElementById('banner').dataset.by === 'time', { timeout: 10000 });
    assert.match(await page.$eval('#banner-reason', (n) => n.textContent), /North ran out of time/);
    assert.equal(await page.$eval('#clock-1', (n) => n.textContent), '0.0');
  }
  const shown = await ask(`show ${id}`);
  assert.match(shown, / turn=- result=0 by=time clock=\d+,0 /);
  await Promise.all([south, north, watcher].map((page) => page.close()));
});

test('online, Pause is not offered: the server has no pause, and its clocks run on', async () => {
  const visible = (page) => page.$eval('#pause', (n) => !n.hidden && n.getClientRects().length > 0);
  const south = await openPage('?speed=fast');
  assert.equal(await visible(south), true, 'offline, Pause is there');
  const { opponent, watch } = await createMatch(south, 'halusa', '5+0');
  const north = await openPage(`?speed=fast${opponent}`);
  const watcher = await openPage(`?speed=fast${watch}`);
  for (const page of [north, watcher]) await waitFor(page, () => document.body.dataset.connection === 'connected');
  await south.bringToFront(); // a click in a background tab never lands
  await clickOnline(south, picker(5));
  await waitFor(north, () => document.body.dataset.phase === 'person');
  assert.equal(await north.$eval('#clock-1', (n) => n.classList.contains('running')), true, 'North\'s clock runs');
  for (const page of [south, north, watcher]) assert.equal(await visible(page), false, 'no Pause in an online match');
  await north.bringToFront();
  await north.click('#resign');
  await Promise.all([south, north, watcher].map((page) => waitOver(page)));
  await Promise.all([south, north, watcher].map((page) => page.close()));
});

test('a page reloaded in the middle of a match picks it up where it was', async () => {
  const south = await openPage('?speed=fast&bot=random');
  const { id, opponent } = await createMatch(south, 'hus');
  // Until North opens its link the match waits: South's bot has nothing to play.
  assert.match(await ask(`show ${id}`), / ply=0 turn=0 result=running waiting-for=1 /);
  assert.equal(await phaseOf(south), 'remote');
  assert.match(await south.$eval('#connection', (n) => n.textContent), /Waiting for your opponent/);
  let north = await openPage(`?speed=fast${opponent}`);
  await waitFor(north, () => document.body.dataset.connection === 'connected');
  assert.doesNotMatch(await ask(`show ${id}`), /waiting-for/);
  assert.doesNotMatch(north.url(), /invite/, 'the spent invite is gone from the address');
  // The invite is spent once: a second page opening the same link only watches, and says why.
  const late = await openPage(`?speed=fast${opponent}`);
  await waitFor(late, () => document.body.dataset.connection === 'refused', { timeout: 10000 });
  assert.match(await late.$eval('#connection', (n) => n.textContent), /already used/);
  assert.equal((await late.$$('#board .cell.legal')).length, 0, 'no hole is offered');
  await late.close();
  // A seat page is in a match: New game and Load position must not swap in a local game while
  // the page still says it is connected (issue 27, item 2).
  const server = await ask(`show ${id}`);
  const before = await positionOf(north);
  assert.equal(before, server.slice(server.indexOf(' position=') + 10));
  await north.$eval('#new-game', (node) => { node.open = true; });
  await north.click('#new-game-button');
  await north.$eval('#paste-input', (node) => { node.value = 'halusa'; });
  await north.click('#paste-form button[type="submit"]');
  assert.equal(await positionOf(north), before, 'New game and Load position leave the match alone');
  assert.equal(await north.$eval('#new-game-button', (n) => n.disabled), true, 'New game is disabled in a match');
  assert.equal(await north.$eval('#paste-form button[type="submit"]', (n) => n.disabled), true, 'Load position is disabled in a match');
  assert.match(await north.$eval('#leave-note', (n) => n.textContent), /leave/i);
  // Each seat sees its own side at the bottom, and is named You there.
  const y = (page, name) => page.$eval(`#board [data-name="${name}"]`, (n) => n.getBoundingClientRect().y);
  assert.ok((await y(north, 'a4')) > (await y(north, 'a1')), 'North\'s rows are at the bottom of North\'s page');
  assert.ok((await y(south, 'a1')) > (await y(south, 'a4')), 'South\'s rows are at the bottom of South\'s page');
  assert.match(await north.$eval('#seat-south', (n) => n.textContent), /^North · You/);
  assert.equal(await north.$eval('#flip', (n) => n.hidden), true, 'no flip button online');
  const pick = picker(7);
  for (let i = 0; i < 4 && (await waitForTurn(north)) === 'person'; i++) await clickOnline(north, pick);
  const seen = await movesOf(north);
  await north.reload();
  await waitFor(north, () => document.body.dataset.connection === 'connected');
  await waitFor(north, (n) => Number(document.body.dataset.ply) >= n, {}, seen.length);
  assert.deepEqual((await movesOf(north)).slice(0, seen.length), seen, 'the reloaded page has every move');
  while ((await waitForTurn(north)) === 'person') await clickOnline(north, pick);
  await waitOver(south);
  await expectSameEnd([south, north], id);
  await Promise.all([south, north].map((page) => page.close()));
});

test('the server is killed and restarted mid-match: both pages reconnect and finish', async () => {
  const south = await openPage('?speed=fast&bot=random');
  const { id, opponent } = await createMatch(south, 'tab');
  const north = await openPage(`?speed=fast${opponent}`);
  const pick = picker(11);
  for (let i = 0; i < 3 && (await waitForTurn(north)) === 'person'; i++) await clickOnline(north, pick);
  assert.equal(await waitForTurn(north), 'person', 'North is to move when the server dies');
  const seen = await movesOf(north);
  serverDown = true;
  server.child.kill('SIGKILL');
  await server.exited;
  server = null;
  for (const page of [south, north]) {
    await waitFor(page, () => document.body.dataset.connection === 'reconnecting', { timeout: 10000 });
    assert.match(await page.$eval('#connection', (n) => n.textContent), /Connection lost; reconnecting/);
  }
  // A move clicked while the connection is down is not sent, and says so; the page stays
  // North's to play (issue 27, item 1: it used to wait for a reply that never came).
  await north.bringToFront();
  const cell = await north.$eval('#board .cell.legal', (n) => n.dataset.cell);
  await north.click(`#board .cell.legal[data-cell="${cell}"]`);
  const choice = await north.$('#choices button');
  if (choice) await choice.click();
  const clickedDown = performance.now();
  await startTgServer(); // the same web port and database
  for (const page of [south, north]) {
    await waitFor(page, () => document.body.dataset.connection === 'connected', { timeout: 20000 });
    assert.equal(await page.$eval('#connection', (n) => n.textContent), 'Reconnected.');
  }
  serverDown = false;
  await waitFor(north, () => document.body.dataset.phase === 'person', { timeout: 10000 })
    .catch(() => assert.fail(`North's page froze after a move clicked while the server was down (not playable ${Math.round(performance.now() - clickedDown)} ms later)`));
  assert.match(await north.$eval('#move-error', (n) => n.textContent), /not sent/i);
  assert.equal(await plyOf(north), seen.length, 'nothing was played while the server was down');
  const history = (await ask(`history ${id}`)).split(' ').slice(1);
  assert.deepEqual(history.slice(0, seen.length), seen, 'every move acknowledged before the kill is kept');
  // North is a person clicking; Tab is long, so North hands its seat to its bot once it has
  // shown that clicking still works after the restart.
  if ((await waitForTurn(north)) === 'person') await clickOnline(north, pick);
  // The invite was spent when North joined: North's page keeps its seat token in its fragment.
  const seatLink = new URL(north.url()).hash;
  assert.match(seatLink, /^#match=\d+&seat=1&token=[0-9a-f]{32}$/);
  await north.goto(`http://127.0.0.1:${webPort}/?speed=fast&bot=random${seatLink}`);
  await Promise.all([south, north].map((page) => waitOver(page)));
  await expectSameEnd([south, north], id);
  await Promise.all([south, north].map((page) => page.close()));
});

test('a forged seat link and an unknown match are told in words at once, with nothing to click', async () => {
  const created = (await ask('new halusa')).split(' ');
  assert.equal(created[0], 'ok');
  assert.match(created.join(' '), /^ok \d+ [0-9a-f]{32} [0-9a-f]{32}$/, 'new answers ok ID TOKEN INVITE');
  const forged = await openPage(`?speed=fast#match=${created[1]}&seat=0&token=${'0'.repeat(32)}`);
  await waitFor(forged, () => document.body.dataset.connection === 'refused', { timeout: 10000 });
  assert.match(await forged.$eval('#connection', (n) => n.textContent), /not valid/);
  // South is to move, and this page claims South's seat: still nothing may look playable.
  assert.equal((await forged.$$('#board .cell.legal')).length, 0, 'no hole is offered');
  const liveIn = (page, scope) => page.$$eval(`${scope} button`, (nodes) => nodes
    .filter((n) => !n.disabled && n.getClientRects().length > 0).map((n) => n.id || n.textContent));
  assert.deepEqual(await liveIn(forged, '#play'), [], 'no live button on the forged seat page');

  const unknown = await openPage('?speed=fast#match=987654321&seat=0&token=0123456789abcdef0123456789abcdef');
  await waitFor(unknown, () => document.body.dataset.connection === 'refused', { timeout: 10000 });
  assert.match(await unknown.$eval('#connection', (n) => n.textContent), /no match 987654321/);
  assert.doesNotMatch(await unknown.$eval('#tagline', (n) => n.textContent), /Loading/);
  assert.deepEqual(await liveIn(unknown, 'body'), [], 'no live button on the unknown match page');
  await Promise.all([forged, unknown].map((page) => page.close()));
});

test('rematch online, seats swapped: the opponent is offered it and takes it, both pages move to the new match, a watcher follows', async () => {
  const south = await openPage('?speed=fast');
  const { id, opponent, watch } = await createMatch(south, 'hus', '5+3');
  const north = await openPage(`?speed=fast${opponent}`);
  const watcher = await openPage(`?speed=fast${watch}`);
  for (const page of [north, watcher]) await waitFor(page, () => document.body.dataset.connection === 'connected');
  await south.bringToFront();
  await clickOnline(south, picker(5));
  await waitFor(north, () => document.body.dataset.phase === 'person');
  await north.bringToFront();
  await north.click('#resign');
  for (const page of [south, north, watcher]) await waitOver(page);
  const visible = (page, selector) => page.$eval(selector, (n) => !n.hidden && n.getClientRects().length > 0);
  assert.equal(await visible(south, '#rematch'), true, 'a seat may ask for a rematch');
  assert.equal(await visible(watcher, '#rematch'), false, 'a watcher has nothing to follow yet');
  await south.bringToFront();
  await south.click('#rematch');
  await waitFor(south, (old) => new URLSearchParams(location.hash.slice(1)).get('match') !== old, {}, id);
  const link = new URLSearchParams(new URL(south.url()).hash.slice(1));
  const next = link.get('match');
  assert.equal(link.get('seat'), '1', 'South\'s page takes seat 1 of the rematch');
  assert.match(link.get('token'), /^[0-9a-f]{32}$/);
  await waitFor(south, () => document.body.dataset.connection === 'connected' && document.body.dataset.phase === 'remote');
  assert.equal(await south.$eval('#connection', (n) => n.textContent), 'Connected. Waiting for your opponent to accept the rematch.');
  assert.match(await ask(`show ${next}`), / ply=0 turn=0 result=running waiting-for=0 clock=300000,300000 position=hus:/);
  // North's page is offered the rematch; the watcher may follow it.
  await waitFor(north, () => document.getElementById('rematch-note').textContent !== '');
  assert.equal(await north.$eval('#rematch-note', (n) => n.textContent), 'Your opponent asks for a rematch with the seats swapped.');
  assert.equal(await north.$eval('#rematch', (n) => n.textContent), 'Accept the rematch, seats swapped');
  await waitFor(watcher, () => !document.getElementById('rematch').hidden);
  assert.equal(await watcher.$eval('#rematch', (n) => n.textContent), 'Watch the rematch');
  await north.bringToFront();
  await north.click('#rematch');
  await waitFor(north, (n) => location.hash.startsWith(`#match=${n}&seat=0&token=`), {}, next);
  await waitFor(south, () => document.getElementById('connection').textContent === 'Your opponent accepted the rematch.');
  assert.doesNotMatch(await ask(`show ${next}`), /waiting-for/);
  await watcher.bringToFront();
  await watcher.click('#rematch');
  await waitFor(watcher, (n) => location.hash === `#match=${n}`, {}, next);
  // The swapped seats: North's page opens the rematch, each page with its own side at the bottom.
  await waitFor(north, () => document.body.dataset.phase === 'person');
  assert.match(await north.$eval('#seat-south', (n) => n.textContent), /^South · You/);
  assert.match(await south.$eval('#seat-south', (n) => n.textContent), /^North · You/);
  await north.bringToFront();
  await clickOnline(north, picker(9));
  for (const page of [south, watcher]) await waitFor(page, () => Number(document.body.dataset.ply) >= 1);
  await waitFor(south, () => document.body.dataset.phase === 'person');
  const history = await ask(`history ${next}`);
  for (const page of [south, north, watcher]) {
    assert.deepEqual(await movesOf(page), history.split(' ').slice(1));
    assert.equal(await page.$eval('#banner', (n) => n.hidden), true, 'the rematch is being played');
  }
  await Promise.all([south, north, watcher].map((page) => page.close()));
});

test('the server\'s refusals are shown in the catalogue\'s words, English and Arabic: not-your-turn, bad-token, game-over, rate-limited', async () => {
  const en = (await import('../i18n/en.js')).default;
  const ar = (await import('../i18n/ar.js')).default;
  const south = await openPage('?speed=fast');
  const { opponent } = await createMatch(south, 'hus');
  const north = await openPage(`?speed=fast${opponent}`);
  await waitFor(north, () => document.body.dataset.connection === 'connected');
  await south.bringToFront();
  await clickOnline(south, picker(2));
  // The page's own requests (its real socket, the real server's replies): the controls that
  // send them are not offered in these states, so the test calls the functions behind them.
  // The message left from before is cleared first: a language switch words it again, so only
  // a fresh one is the answer to the request.
  const call = (page, code) => page.evaluate(`document.getElementById('move-error').textContent = ''; ${code}`);
  const shown = async (page, text) => {
    await waitFor(page, (want) => document.getElementById('move-error').textContent === want, { timeout: 20000 }, text);
  };
  const language = (page, code) => page.select('#language', code);
  for (const [code, words] of [['en', en], ['ar', ar]]) {
    await language(south, code);
    await language(north, code);
    // Answering one's own undo request: not-your-turn.
    await call(south, `import('./online.js').then((m) => m.requestUndo())`);
    await shown(south, words['online.undo-asked']);
    await call(south, `import('./online.js').then((m) => m.answerUndo('accept'))`);
    await shown(south, words['server.not-your-turn']);
    await north.bringToFront();
    await waitFor(north, () => !document.getElementById('undo-offer').hidden);
    await north.click('#undo-decline');
    await waitFor(south, () => document.getElementById('move-error').textContent !== '' && document.body.dataset.phase === 'remote');
    // A token the server does not know: bad-token.
    await call(north, `import('./session.js').then(async ({ S }) => { const kept = S.online.token; S.online.token = 'f'.repeat(32);
      (await import('./online.js')).requestUndo(); S.online.token = kept; })`);
    await shown(north, words['server.bad-token']);
  }
  // North resigns; a change to the finished match: game-over.
  await north.bringToFront();
  await north.click('#resign');
  await waitOver(south);
  for (const [code, words] of [['en', en], ['ar', ar]]) {
    await language(south, code);
    // The English refusal on show is worded again in Arabic by the switch.
    if (code === 'ar') assert.equal(await south.$eval('#move-error', (n) => n.textContent), ar['server.game-over']);
    await call(south, `import('./online.js').then((m) => m.requestUndo())`);
    await shown(south, words['server.game-over']);
  }
  // More costly commands than this connection's budget: rate-limited (the budget refills in
  // seconds; the Arabic burst follows at once, so it finds the budget still spent).
  await language(south, 'en');
  await call(south, `import('./online.js').then((m) => { for (let i = 0; i < 400; i++) m.requestUndo(); })`);
  await shown(south, en['server.rate-limited']);
  await call(south, `(async () => { const select = document.getElementById('language'); select.value = 'ar';
    select.dispatchEvent(new Event('change')); const m = await import('./online.js'); for (let i = 0; i < 100; i++) m.requestUndo(); })()`);
  await shown(south, ar['server.rate-limited']);
  for (const words of [en, ar]) {
    for (const key of ['server.not-your-turn', 'server.bad-token', 'server.game-over', 'server.rate-limited']) {
      assert.doesNotMatch(words[key], /err |TG_ERR|[a-z]+-[a-z]+-/, `${key} is a sentence`);
    }
  }
  await Promise.all([south, north].map((page) => page.close()));
});

// The account panel on a page of its own browser context (its own cookies). A wrong
// password's 401 is logged by the browser as a failed resource: expected there, and only there.
async function openAccountPage(context) {
  const page = await openSitePage(context, server, '', consoleProblems, /status of 401/);
  await page.$eval('#account', (node) => { node.open = true; });
  return page;
}

// The session cookie as the browser holds it for this test's server.
const sessionCookie = (page) => siteSessionCookie(page, server);

test('accounts: register, sign out, a wrong password in words, sign in, the cookie HttpOnly and SameSite, sign out everywhere, delete', async () => {
  const context = await browser.createBrowserContext();
  const page = await openAccountPage(context);
  assert.equal(await signedInAs(page), '');
  assert.equal(await page.$eval('#account-badge', (n) => n.hidden), true);
  // The form's fields are labelled, and its errors are announced.
  for (const id of ['account-user', 'account-password']) {
    assert.ok(await page.$eval(`label[for="${id}"]`, (n) => n.textContent.trim() !== ''), id);
  }
  assert.equal(await page.$eval('#account-error', (n) => n.getAttribute('role')), 'alert');

  await typeCredentials(page, 'Browser_1', 'horse-battery-9');
  await page.click('#account-register');
  await waitFor(page, () => document.body.dataset.account === 'Browser_1');
  assert.equal(await page.$eval('#account-badge', (n) => n.hidden), false);
  assert.match(await page.$eval('#account-badge', (n) => n.textContent), /Browser_1/);
  assert.equal(await page.$eval('#account-password', (n) => n.value), '');
  const cookie = await sessionCookie(page);
  assert.ok(cookie, 'a session cookie is set');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Lax');
  assert.equal(cookie.path, '/');
  assert.equal(cookie.secure, false); // plain HTTP; tg-server --secure-cookies behind TLS
  assert.ok(cookie.expires > Date.now() / 1000 + 29 * 86400, 'it lasts as long as the session');
  assert.match(cookie.value, /^[0-9a-f]{64}$/);
  assert.equal(await page.evaluate(() => document.cookie.includes('tg_session')), false);
  assert.ok(!page.url().includes(cookie.value), 'the token is never in the address');

  // A reload is still signed in (the server tells the page who it is).
  await page.reload();
  await waitFor(page, () => document.body.dataset.account === 'Browser_1');

  await page.$eval('#account', (node) => { node.open = true; });
  await page.click('#account-logout');
  await waitFor(page, () => document.body.dataset.account === '');
  assert.equal(await sessionCookie(page), undefined, 'signing out clears the cookie');
  assert.equal(await page.$eval('#account-form', (n) => n.hidden), false);

  await typeCredentials(page, 'browser_1', 'wrong-password');
  await page.click('#account-login');
  await waitFor(page, () => document.getElementById('account-error').textContent !== '');
  assert.equal(await page.$eval('#account-error', (n) => n.textContent), enWords['account.error.bad-login']);
  assert.equal(await signedInAs(page), '');

  await typeCredentials(page, 'browser_1', 'horse-battery-9');
  await page.click('#account-login');
  await waitFor(page, () => document.body.dataset.account === 'Browser_1');

  // A second browser signed in to the same account; sign out everywhere ends both sessions.
  const other = await browser.createBrowserContext();
  const otherPage = await openAccountPage(other);
  await typeCredentials(otherPage, 'BROWSER_1', 'horse-battery-9');
  await otherPage.click('#account-login');
  await waitFor(otherPage, () => document.body.dataset.account === 'Browser_1');
  await page.click('#account-logout-all');
  await waitFor(page, () => document.body.dataset.account === '');
  await otherPage.reload();
  await waitFor(otherPage, () => document.body.dataset.account === '');

  // Delete, with the password asked again: a wrong one deletes nothing.
  await typeCredentials(page, 'Browser_1', 'horse-battery-9');
  await page.click('#account-login');
  await waitFor(page, () => document.body.dataset.account === 'Browser_1');
  await page.click('#account-delete');
  assert.equal(await page.$eval('#delete-form', (n) => n.hidden), false);
  await page.click('#delete-cancel');
  assert.equal(await page.$eval('#delete-form', (n) => n.hidden), true);
  await page.click('#account-delete');
  await page.type('#delete-password', 'horse-battery-9');
  await page.click('#delete-confirm');
  await waitFor(page, () => document.body.dataset.account === '');
  assert.equal(await page.$eval('#account-error', (n) => n.textContent), enWords['account.deleted']);
  // The name is free again (a login would be refused by the account's sign-in budget now).
  assert.match(await ask('register Browser_1 horse-battery-9'), /^ok [0-9a-f]{64}$/);
  await Promise.all([page.close(), otherPage.close()]);
  await Promise.all([context.close(), other.close()]);
});

test('fair play: no hint or analysis on a live match\'s pages, by button, key, call or a mode left on; the page\'s ?bot= is the server\'s bot; all open when the game ends', async () => {
  const ar = (await import('../i18n/ar.js')).default;
  const south = await openPage('?speed=fast');
  await south.select('#language', 'en'); // an earlier test may have left the browser in Arabic
  // The analysis mode turned on offline before the match: it must not carry into it.
  await south.click('#analysis');
  await waitFor(south, () => document.querySelectorAll('#board [data-value]').length > 0);
  const { id, opponent, watch } = await createMatch(south, 'halusa');
  const north = await openPage(`?speed=fast${opponent}`);
  const watcher = await openPage(`?speed=fast${watch}`);
  for (const page of [north, watcher]) await waitFor(page, () => document.body.dataset.connection === 'connected');
  await waitFor(south, () => document.body.dataset.phase === 'person');
  // What the engine could have said: values on the holes, or a best move in the hint line.
  const engineSaid = (page) => page.evaluate(() => document.querySelectorAll('#board [data-value]').length > 0
    || /Best|الأفضل|engine is looking/.test(document.getElementById('hint').textContent));
  const closedOn = async (page) => {
    assert.equal(await page.$eval('#hint-button', (n) => n.disabled), true, 'Hint is off');
    assert.equal(await page.$eval('#analysis', (n) => n.disabled), true, 'Analysis is off');
    assert.equal(await page.$eval('#analysis-closed', (n) => !n.hidden), true, 'the page says why');
    // Every other way in: a click on the buttons, the keyboard on them, the functions behind
    // them called directly (as an extension or a console would).
    await page.evaluate(() => { document.getElementById('hint-button').click(); document.getElementById('analysis').click(); });
    for (const control of ['#hint-button', '#analysis']) {
      assert.equal(await page.$eval(control, (n) => { n.focus(); return document.activeElement === n; }), false,
        `${control} cannot take the keyboard's focus`);
    }
    await page.evaluate(`import('./controller.js').then((m) => { m.requestAnalysis(); m.toggleAnalysis(); m.requestAnalysis(); })`);
    await new Promise((r) => setTimeout(r, 1500)); // time for an analysis to come back, were one asked
    assert.equal(await engineSaid(page), false, 'the engine said nothing');
  };
  for (const page of [south, watcher]) await closedOn(page);
  // A position pasted on the seat's page is refused in words, and the match stays.
  const before = await positionOf(south);
  await south.$eval('#paste-input', (node, text) => { node.value = text; }, before);
  await south.$eval('#paste-form', (form) => form.requestSubmit());
  assert.match(await south.$eval('#paste-error', (n) => n.textContent), /during an online match/);
  assert.equal(await positionOf(south), before);
  assert.equal(await engineSaid(south), false);
  // A seat moved: on the other seat's turn, the same.
  await south.bringToFront();
  await clickOnline(south, picker(7));
  await waitFor(north, () => document.body.dataset.phase === 'person');
  await closedOn(north);
  // In Arabic too, the words of why.
  await north.select('#language', 'ar');
  assert.equal(await north.$eval('#analysis-closed', (n) => n.textContent), ar['analysis.after-game']);
  await north.select('#language', 'en');
  // North hands its seat to a bot of the page (?bot=): the server's bot plays it (the page
  // asks `bot`, and runs no search of its own: no tg-bot-request mark), and the game ends.
  const northBot = await openPage(`?speed=fast&bot=greedy${new URL(north.url()).hash}`);
  await north.close();
  await waitFor(northBot, () => Number(document.body.dataset.ply) >= 2);
  assert.equal(await northBot.evaluate(() => performance.getEntriesByName('tg-bot-request').length), 0,
    'the page ran no search for its seat');
  await south.bringToFront();
  await south.click('#resign');
  for (const page of [south, northBot, watcher]) await waitOver(page);
  assert.match(await ask(`show ${id}`), / result=1 by=resignation/);
  // The game is over: Hint and Analysis are back, on every page, for the last position and
  // the replay's.
  for (const page of [south, watcher]) {
    await page.bringToFront();
    assert.equal(await page.$eval('#analysis-closed', (n) => n.hidden), true);
    assert.equal(await page.$eval('#hint-button', (n) => n.disabled), false, 'Hint after the game');
    await page.click('#hint-button');
    await waitFor(page, () => /Best/.test(document.getElementById('hint').textContent));
    assert.ok(await page.$$eval('#board [data-value]', (n) => n.length) > 0, 'values on the holes');
    // The replay's first position, with the analysis mode on (South's still is, from before
    // the match): analysed in turn.
    if (await page.$eval('#analysis', (n) => n.getAttribute('aria-pressed')) === 'false') await page.click('#analysis');
    assert.equal(await page.$eval('#analysis', (n) => n.getAttribute('aria-pressed')), 'true');
    await page.click('#move-list li');
    assert.equal(await page.$eval('#replay-bar', (n) => n.hidden), false, 'the replay shows the first move');
    await waitFor(page, () => /Best/.test(document.getElementById('hint').textContent)
      && document.querySelectorAll('#board [data-value]').length > 0);
  }
  await Promise.all([south, northBot, watcher].map((page) => page.close()));
});

test('the connection line is worded again on a language switch', async () => {
  const ar = (await import('../i18n/ar.js')).default;
  const south = await openPage('?speed=fast');
  await south.select('#language', 'en'); // an earlier test may have left the browser in Arabic
  const { opponent } = await createMatch(south, 'hus');
  await waitFor(south, (want) => document.getElementById('connection').textContent === want, {}, enWords['online.waiting-join']);
  await south.select('#language', 'ar');
  assert.equal(await south.$eval('#connection', (n) => n.textContent), ar['online.waiting-join']);
  await south.select('#language', 'en');
  const north = await openPage(`?speed=fast${opponent}`);
  await waitFor(south, (want) => document.getElementById('connection').textContent === want, {}, enWords['online.joined']);
  await south.select('#language', 'ar');
  assert.equal(await south.$eval('#connection', (n) => n.textContent), ar['online.joined']);
  await south.select('#language', 'en');
  // An unknown match's refusal and its way back, in the other language too.
  const unknown = await openPage('?speed=fast#match=987654321');
  await waitFor(unknown, () => document.body.dataset.connection === 'refused', { timeout: 10000 });
  await unknown.select('#language', 'ar');
  assert.equal(await unknown.$eval('#connection', (n) => n.textContent),
    `${ar['online.no-match']('987654321')} ${ar['online.play-here']}`);
  await unknown.select('#language', 'en');
  await Promise.all([south, north, unknown].map((page) => page.close()));
});

test('a draw offer online: offered, declined, not again before the opponent moves, offered again after a move, accepted; every page shows the draw', async () => {
  const south = await openPage('?speed=fast');
  const { id, opponent, watch } = await createMatch(south, 'halusa');
  const north = await openPage(`?speed=fast${opponent}`);
  const watcher = await openPage(`?speed=fast${watch}`);
  const pages = [south, north, watcher];
  for (const page of pages) await waitFor(page, () => document.body.dataset.connection === 'connected');
  const shown = (page, selector) => page.$eval(selector, (n) => !n.hidden && n.getClientRects().length > 0);
  const text = (page, selector) => page.$eval(selector, (n) => n.textContent);
  // A seat has the button, a watcher has not.
  assert.equal(await shown(south, '#draw-offer'), true);
  assert.equal(await shown(watcher, '#draw-offer'), false);
  await south.bringToFront(); // a click in a background tab never lands
  await south.click('#draw-offer');
  for (const page of pages) await waitFor(page, () => !document.getElementById('draw-offered').hidden);
  assert.equal(await text(north, '#draw-offered-text'), enWords['online.draw-offer'](enWords['side.0']));
  assert.equal(await text(watcher, '#draw-offered-text'), enWords['online.draw-offer'](enWords['side.0']));
  assert.equal(await text(south, '#draw-offered-text'), enWords['online.draw-yours']);
  assert.equal(await text(south, '#draw-offer'), enWords['move.draw-withdraw']);
  // Only the other seat answers.
  assert.equal(await shown(north, '#draw-accept'), true);
  assert.equal(await shown(south, '#draw-accept'), false);
  assert.equal(await shown(watcher, '#draw-accept'), false);
  assert.equal(await north.$eval('#draw-offer', (n) => n.disabled), true, 'an open offer is answered, not matched');
  assert.match(await ask(`show ${id}`), / draw-offered-by=0 /);
  await north.bringToFront();
  await north.click('#draw-decline');
  for (const page of pages) await waitFor(page, () => document.getElementById('draw-offered').hidden);
  await waitFor(south, (words) => document.getElementById('move-error').textContent === words, {}, enWords['online.draw-declined']);
  // Not again until North has moved, South's own move included.
  await south.bringToFront();
  await south.click('#draw-offer');
  await waitFor(south, (words) => document.getElementById('move-error').textContent === words, {}, enWords['server.draw-too-soon']);
  await clickOnline(south, picker(7));
  await waitFor(north, () => document.body.dataset.phase === 'person');
  await north.bringToFront();
  await clickOnline(north, picker(8));
  await waitFor(south, () => document.body.dataset.phase === 'person');
  await south.bringToFront();
  await south.click('#draw-offer');
  await waitFor(north, () => !document.getElementById('draw-offered').hidden);
  await north.bringToFront();
  await north.click('#draw-accept');
  for (const page of pages) {
    await waitOver(page);
    await waitFor(page, () => document.getElementById('banner').dataset.by === 'agreement', { timeout: 10000 });
    assert.equal(await text(page, '#banner-title'), enWords['banner.draw-agreed']);
    assert.equal(await shown(page, '#draw-offered'), false);
  }
  assert.match(await ask(`show ${id}`), / turn=- result=draw by=agreement /);
  assert.equal(await south.$eval('#draw-offer', (n) => n.disabled), true);
  await Promise.all(pages.map((page) => page.close()));
});

test('no console error or warning on any page', () => {
  assert.deepEqual(consoleProblems, []);
});

// The lobby (docs/web.md, "Lobby"): two people in two browsers (separate contexts: their own
// cookies) register in the Account panel, and the lobby's WebSocket plays as the account; one
// seeks, the other sees the seek appear
// without reloading, takes it with one click, and both pages land in the same match, each on
// its own seat, the match listed live in both lobbies.
test('lobby: a seek made in one browser is taken in another, both land in the same match', async () => {
  const contexts = [await browser.createBrowserContext(), await browser.createBrowserContext()];
  const pages = [];
  for (const context of contexts) pages.push(await openAccountPage(context));
  const [alice, bob] = pages;
  const stamp = Date.now().toString(36).slice(-6);
  const names = [`al${stamp}`, `bo${stamp}`];
  // Alice opens the lobby as a guest, then registers: the lobby follows the account.
  await alice.click('#lobby summary');
  await waitFor(alice, () => document.getElementById('lobby-who').textContent === 'Not signed in (the Account panel signs in): you may seek and take casual games.');
  for (const [i, page] of pages.entries()) {
    await typeCredentials(page, names[i], 'lobby-password-1');
    await page.click('#account-register');
    await waitFor(page, (name) => document.body.dataset.account === name, {}, names[i]);
    if (i === 1) await page.click('#lobby summary');
    await waitFor(page, (name) => document.getElementById('lobby-who').textContent.includes(name), {}, names[i]);
    assert.equal(await page.$$eval('#seek-list li', (items) => items.length), 0);
  }
  await alice.$eval('#spec-input', (n) => { n.value = 'hus'; });
  await alice.$eval('#lobby-clock', (n) => { n.value = '5+3'; });
  await alice.click('#lobby-rated');
  await alice.click('#lobby-seek');
  // Pushed to the other browser: no reload, no polling by the page.
  await waitFor(bob, () => document.querySelectorAll('#seek-list li').length === 1);
  const line = await bob.$eval('#seek-list li', (n) => n.textContent);
  assert.ok(line.includes(names[0]) && line.includes('1500?') && line.includes('blitz') && line.includes('rated'), line);
  // The owner's own seek offers a withdrawal, not a game against itself.
  await waitFor(alice, () => document.querySelectorAll('#seek-list li').length === 1);
  assert.equal(await alice.$eval('#seek-list li button', (n) => n.textContent), 'Withdraw');
  await bob.click('#seek-list li button');
  await Promise.all(pages.map((page) => waitFor(page, () => /^#match=\d+&seat=[01]&token=[0-9a-f]{32}$/.test(location.hash)
    && document.body.dataset.connection === 'connected')));
  const fields = await Promise.all(pages.map(async (page) => new URLSearchParams((await page.evaluate(() => location.hash)).slice(1))));
  assert.equal(fields[0].get('match'), fields[1].get('match'));
  assert.deepEqual([fields[0].get('seat'), fields[1].get('seat')].sort(), ['0', '1']);
  const id = fields[0].get('match');
  // Both lobbies: the seek gone, the match live; the server has it with both seats taken.
  for (const page of pages) {
    await waitFor(page, (match) => document.querySelectorAll('#seek-list li').length === 0
      && document.querySelector(`#live-list li[data-match="${match}"]`) !== null, {}, id);
  }
  const shown = await ask(`show ${id}`);
  assert.match(shown, /^ok ply=0 /);
  assert.doesNotMatch(shown, /waiting-for/);
  assert.equal(await ask(`player ${names[0]}`), `ok ${names[0]}`);
  // The seat to move plays on its page, and the other page sees the move.
  const turn = Number(/ turn=([01])/.exec(shown)[1]);
  const mover = pages[fields[0].get('seat') === String(turn) ? 0 : 1];
  const other = pages[mover === alice ? 1 : 0];
  assert.equal(await waitForTurn(mover), 'person');
  await clickOnline(mover, picker(7));
  await waitFor(other, () => Number(document.body.dataset.ply) >= 1);
  for (const context of contexts) await context.close();
  assert.deepEqual(consoleProblems, []);
});

// History (docs/web.md, "Player and match pages"): two accounts play a rated game from the
// lobby to its end; the player's page (from "My games" in the Account panel, and from a name
// in the lobby) shows the rating the game moved, its graph and the game; the match page names
// both players and the result, and replays the stored record on the board.
test('history: a rated game to the end, then the player page shows the rating change and the game, and the match page replays it', async () => {
  const contexts = [await browser.createBrowserContext(), await browser.createBrowserContext()];
  const pages = [];
  for (const context of contexts) pages.push(await openAccountPage(context));
  const [alice, bob] = pages;
  const stamp = Date.now().toString(36).slice(-6);
  const names = [`hi${stamp}`, `ho${stamp}`];
  for (const [i, page] of pages.entries()) {
    await typeCredentials(page, names[i], 'history-password-1');
    await page.click('#account-register');
    await waitFor(page, (name) => document.body.dataset.account === name, {}, names[i]);
    await page.click('#lobby summary');
    await waitFor(page, (name) => document.getElementById('lobby-who').textContent.includes(name), {}, names[i]);
  }
  await alice.$eval('#spec-input', (n) => { n.value = 'hus'; });
  await alice.$eval('#lobby-clock', (n) => { n.value = '5+3'; });
  await alice.click('#lobby-rated');
  await alice.click('#lobby-seek');
  await waitFor(bob, () => document.querySelectorAll('#seek-list li').length === 1);
  // A name in the lobby leads to that player's page: nothing played yet.
  await bob.click(`#seek-list li button[data-player="${names[0]}"]`);
  await waitFor(bob, (name) => document.getElementById('history-view').dataset.player === name, {}, names[0]);
  assert.equal(await bob.$$eval('#history-view [data-list="ratings"] li', (n) => n.length), 0);
  assert.equal(await bob.$eval('#history-view [data-empty="games"]', (n) => n.textContent), 'No finished game yet.');
  await bob.click('#seek-list li button:not([data-player])');
  await Promise.all(pages.map((page) => waitFor(page, () => /^#match=\d+&seat=[01]&token=[0-9a-f]{32}$/.test(location.hash)
    && document.body.dataset.connection === 'connected')));
  const id = new URLSearchParams((await alice.evaluate(() => location.hash)).slice(1)).get('match');
  const aliceSeat = Number(new URLSearchParams((await alice.evaluate(() => location.hash)).slice(1)).get('seat'));
  // Played to the end on the two pages, each person on its own turn.
  const pick = picker(11);
  for (let moves = 0; moves < 2000; moves++) {
    const shown = await ask(`show ${id}`);
    if (!/ result=running /.test(shown)) break;
    const turn = Number(/ turn=([01])/.exec(shown)[1]);
    const mover = turn === aliceSeat ? alice : bob;
    if ((await waitForTurn(mover)) === 'over') break;
    await clickOnline(mover, pick);
  }
  await Promise.all(pages.map((page) => waitOver(page)));
  const result = / result=(\S+)/.exec(await ask(`show ${id}`))[1];
  const rating = Number(/=([0-9.]+)/.exec((await ask(`player ${names[0]}`)).split(' ')[2])[1]);
  assert.notEqual(rating, 1500);
  // "My games": the player's own page, the rating moved, its graph, the game and its outcome.
  await alice.click('#account-games');
  await waitFor(alice, (name) => document.getElementById('history-view').dataset.player === name
    && document.querySelector('#history-view [data-list="games"] li') !== null, {}, names[0]);
  assert.equal(await alice.$eval('#history-view [data-rating="hus/blitz"]', (n) => Number(n.dataset.value)), rating);
  assert.equal(await alice.$$eval('#history-view [data-rating="hus/blitz"] svg.rating-graph circle', (n) => n.length), 2);
  const line = await alice.$eval(`#history-view li[data-match="${id}"]`, (n) => ({ outcome: n.dataset.outcome, text: n.textContent }));
  assert.equal(line.outcome, result === 'draw' ? 'draw' : Number(result) === aliceSeat ? 'win' : 'loss');
  assert.ok(line.text.includes(names[1]) && line.text.includes('rated blitz') && line.text.includes('Hus'), line.text);
  assert.equal(await alice.$eval(`#history-view a[data-record="${id}"]`, (n) => n.getAttribute('href')), `matches/${id}.tgr`);
  // Its match page: both players with their ratings before and after, how it ended.
  await alice.click(`#history-view button[data-match-page="${id}"]`);
  await waitFor(alice, (match) => document.getElementById('history-view').dataset.match === match, {}, id);
  assert.equal(await alice.$eval('#history-view [data-result]', (n) => n.dataset.result), result);
  assert.equal(await alice.$eval(`#history-view li[data-seat="${aliceSeat}"]`, (n) => Number(n.dataset.ratingAfter)), rating);
  assert.ok((await alice.$eval(`#history-view li[data-seat="${aliceSeat}"]`, (n) => n.textContent)).includes('1500 →'));
  // A match page opened by its link on a page of its own replays the record on the board.
  const viewer = await contexts[1].newPage();
  viewer.on('pageerror', (error) => consoleProblems.push(`page error: ${error.message}`));
  await viewer.setViewport({ width: 1000, height: 900 });
  await viewer.goto(`http://127.0.0.1:${webPort}/?match-page=${id}`);
  await waitFor(viewer, (match) => document.getElementById('history-view').dataset.match === match, {}, id);
  await viewer.click(`#history-view button[data-replay="${id}"]`);
  await waitFor(viewer, (match) => document.body.dataset.replay === match, {}, id);
  assert.equal(await viewer.$eval('#replay-bar', (n) => n.hidden), false);
  const history = (await ask(`history ${id}`)).split(' ').slice(1);
  assert.deepEqual(await movesOf(viewer), history);
  await viewer.keyboard.press('End');
  const shownEnd = await ask(`show ${id}`);
  assert.equal(await positionOf(viewer), shownEnd.slice(shownEnd.indexOf(' position=') + 10));
  await viewer.close();
  for (const context of contexts) await context.close();
  assert.deepEqual(consoleProblems, []);
});

// Correspondence (docs/web.md, "Correspondence"): a seek of 3 days per move from the lobby; the
// clock shows days and hours; the tab's title says "Your turn" on the page of the seat to move
// only, and moves to the other page with the move; the player page lists the match, marked as
// the player's turn for the one to move, and its tab's title counts it.
test('correspondence: days per move from the lobby, the tab title says whose turn it is, the player page lists it as your turn', async () => {
  const contexts = [await browser.createBrowserContext(), await browser.createBrowserContext()];
  const pages = [];
  for (const context of contexts) pages.push(await openAccountPage(context));
  const [alice, bob] = pages;
  const stamp = Date.now().toString(36).slice(-6);
  const names = [`ca${stamp}`, `cb${stamp}`];
  const plainTitle = enWords['page.title'];
  for (const [i, page] of pages.entries()) {
    await typeCredentials(page, names[i], 'corr-password-1');
    await page.click('#account-register');
    await waitFor(page, (name) => document.body.dataset.account === name, {}, names[i]);
    await page.click('#lobby summary');
    await waitFor(page, (name) => document.getElementById('lobby-who').textContent.includes(name), {}, names[i]);
    assert.equal(await page.title(), plainTitle);
  }
  await alice.$eval('#spec-input', (n) => { n.value = 'hus'; });
  await alice.select('#lobby-days', '3');
  await alice.click('#lobby-rated');
  await alice.click('#lobby-seek');
  await waitFor(bob, () => document.querySelectorAll('#seek-list li').length === 1);
  const line = await bob.$eval('#seek-list li', (n) => n.textContent);
  assert.ok(line.includes('3 days per move') && line.includes('correspondence') && line.includes('rated'), line);
  await bob.click('#seek-list li button:not([data-player])');
  await Promise.all(pages.map((page) => waitFor(page, () => /^#match=\d+&seat=[01]&token=[0-9a-f]{32}$/.test(location.hash)
    && document.body.dataset.connection === 'connected')));
  const id = new URLSearchParams((await alice.evaluate(() => location.hash)).slice(1)).get('match');
  const aliceSeat = Number(new URLSearchParams((await alice.evaluate(() => location.hash)).slice(1)).get('seat'));
  assert.match(await ask(`show ${id}`), / clock=2591\d{5},259200000 | clock=259200000,2591\d{5} /);
  const turn = Number(/ turn=([01])/.exec(await ask(`show ${id}`))[1]);
  const mover = turn === aliceSeat ? alice : bob;
  const other = mover === alice ? bob : alice;
  // The seat to move: its tab says so; the other's does not. The clocks show days and hours.
  await waitFor(mover, () => document.title === '• Your turn - Hus');
  assert.equal(await other.title(), plainTitle);
  await waitFor(mover, (seat) => /^2 d 23 h$|^3 d 0 h$/.test(document.getElementById(`clock-${seat}`)?.textContent ?? ''), {}, turn);
  assert.equal(await waitForTurn(mover), 'person');
  await clickOnline(mover, picker(5));
  await waitFor(other, () => document.title === '• Your turn - Hus');
  await waitFor(mover, (title) => document.title === title, {}, plainTitle);
  // Each player's own page: the match listed, the turn marked for the one to move now.
  for (const page of pages) {
    await page.click('#account-games');
    await waitFor(page, (match) => document.querySelector(`#history-view [data-list="correspondence"] li[data-match="${match}"]`) !== null, {}, id);
  }
  const entry = (page) => page.$eval(`#history-view li[data-match="${id}"]`, (n) => ({ yourTurn: n.dataset.yourTurn, text: n.textContent }));
  const moverEntry = await entry(mover);
  const otherEntry = await entry(other);
  assert.equal(moverEntry.yourTurn, 'false');
  assert.ok(moverEntry.text.includes('Their turn') && moverEntry.text.includes('3 days per move'), moverEntry.text);
  assert.equal(otherEntry.yourTurn, 'true');
  assert.ok(otherEntry.text.includes('Your turn') && otherEntry.text.includes('to move by'), otherEntry.text);
  // A fresh tab of the player to move on its own page (a link to it), no match open: the
  // list alone titles the tab.
  const readerName = names[other === alice ? 0 : 1];
  const reader = await contexts[other === alice ? 0 : 1].newPage();
  reader.on('pageerror', (error) => consoleProblems.push(`page error: ${error.message}`));
  await reader.goto(`http://127.0.0.1:${webPort}/?player=${readerName}`);
  await waitFor(reader, (name) => document.body.dataset.account === name, {}, readerName);
  await waitFor(reader, () => document.title === '• Your turn (1) - correspondence');
  // Another player's page counts nothing in this tab's title.
  await reader.$eval('#history-name', (n, name) => { n.value = name; }, names[other === alice ? 1 : 0]);
  await reader.click('#history-show');
  await waitFor(reader, (title) => document.title === title, {}, plainTitle);
  await reader.$eval('#history-name', (n, name) => { n.value = name; }, readerName);
  await reader.click('#history-show');
  await waitFor(reader, () => document.title === '• Your turn (1) - correspondence');
  // Resigned: gone from the list, and the title is the page's again.
  const token = new URLSearchParams((await other.evaluate(() => location.hash)).slice(1)).get('token');
  assert.match(await ask(`resign ${id} ${token}`), /^ok/);
  await reader.click('#history-show');
  await waitFor(reader, (title) => document.title === title
    && document.querySelector('#history-view [data-list="correspondence"]') === null, {}, plainTitle);
  await reader.close();
  for (const context of contexts) await context.close();
  assert.deepEqual(consoleProblems, []);
});
