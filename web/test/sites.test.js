// A site of two tg-server instances on one PostgreSQL database, in real browsers (issue 42
// item 8): people on different instances meet in the lobby, play a rated game to its end, a
// guest watches it from the lobby, and both instances agree on the ratings and the history.
//
//   node --test sites.test.js      (scripts/test-web.sh --server PATH runs it)
//
// Everything is started here: a throw-away PostgreSQL cluster (server/tests/pgcluster.py,
// through pg-cluster.py), two tg-server instances on it serving the web board (--web), and
// Chromium with one browser context (its own cookie jar) per person. Environment: as
// harness.js says.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  ask, launchBrowser, layOutSite, movesOf, openSitePage, picker, positionOf,
  plyOf, signedInAs, startPostgres, startServer, stopServer, typeCredentials, waitFor, waitForTurn,
} from './harness.js';

let work;
let postgres;
let browser;
const servers = [];
const consoleProblems = [];

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tg-sites-'));
  await layOutSite(work);
  postgres = await startPostgres();
  // The second instance starts once the first has made the schema (either would wait for the
  // other's migration; in turn, each start-up says at once what went wrong).
  for (let i = 0; i < 2; i++) servers.push(await startServer(work, postgres.conninfo('tg')));
  browser = await launchBrowser(work);
});

after(async () => {
  await browser?.close();
  for (const server of servers) await stopServer(server);
  await postgres?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

// The rating in GAME/CATEGORY that `player NAME` gives on that instance, and its game count.
async function ratingOn(server, name, key) {
  const reply = await ask(server, `player ${name}`);
  const field = reply.split(' ').slice(2).find((word) => word.startsWith(`${key}=`));
  assert.ok(field, `${name} has a ${key} rating on port ${server.linePort}: ${reply}`);
  const [, rating, games] = /^[^=]+=([0-9.]+)\??,rd=[0-9.]+,games=(\d+)$/.exec(field) ?? [];
  assert.ok(rating, field);
  return { rating: Number(rating), games: Number(games) };
}

// A person's move on a seat page whose instance may not hold the match's lease: one click on
// a legal hole. When the server answers `err leased` (the other instance played the last move
// and still holds the lease) or `err stale`, the page sends the same move again by itself
// (web/online.js, RESEND_WORDS): the person clicks once and sees no refusal.
async function clickAcross(page, pick) {
  const before = await plyOf(page);
  const cells = await page.$$eval('#board .cell.legal', (nodes) => nodes.map((n) => n.dataset.cell));
  assert.ok(cells.length > 0, 'a person to move has a legal hole');
  const cell = cells[pick(cells.length)];
  await page.$eval('#move-error', (n) => { n.textContent = ''; });
  await page.click(`#board .cell.legal[data-cell="${cell}"]`);
  await waitFor(page, (ply) => Number(document.body.dataset.ply) > ply || document.body.dataset.phase === 'over'
    || document.getElementById('move-error').textContent !== '', { timeout: 30000 }, before);
  assert.equal(await page.$eval('#move-error', (n) => n.textContent), '', 'one click is enough: no refusal shown');
}

async function playerJson(server, name) {
  const response = await fetch(`http://127.0.0.1:${server.webPort}/players/${name}.json`);
  assert.equal(response.status, 200);
  return response.json();
}

// Alice on instance A and Bob on instance B register; Alice seeks a rated Hus game; Bob sees
// the seek pushed to B's lobby and takes it with one click; a guest on A watches it from A's
// lobby's live list. The moves are made by clicks on the two seats' boards, each through its
// own instance, so every move crosses from one instance to the other.
test('two instances on one PostgreSQL database: register, seek on A, take on B, a rated game to the end by clicks, a guest watching from the lobby, ratings moved once, history on both', async (t) => {
  const [serverA, serverB] = servers;
  const contexts = [];
  for (let i = 0; i < 3; i++) contexts.push(await browser.createBrowserContext());
  const alice = await openSitePage(contexts[0], serverA, '?speed=fast', consoleProblems);
  const bob = await openSitePage(contexts[1], serverB, '?speed=fast', consoleProblems);
  const watcher = await openSitePage(contexts[2], serverA, '?speed=fast', consoleProblems);
  const stamp = Date.now().toString(36).slice(-6);
  const names = [`sa${stamp}`, `sb${stamp}`];
  for (const [i, page] of [alice, bob].entries()) {
    await typeCredentials(page, names[i], 'site-password-1');
    await page.click('#account-register');
    await waitFor(page, (name) => document.body.dataset.account === name, {}, names[i]);
  }
  // An account is the site's: Bob's is known on A, Alice's on B, unrated yet.
  assert.equal(await ask(serverA, `player ${names[1]}`), `ok ${names[1]}`);
  assert.equal(await ask(serverB, `player ${names[0]}`), `ok ${names[0]}`);
  for (const page of [alice, bob, watcher]) {
    await page.click('#lobby summary');
    await waitFor(page, () => document.getElementById('lobby-who').textContent !== '');
  }
  assert.equal(await signedInAs(watcher), '');
  for (const [i, page] of [alice, bob].entries()) {
    await waitFor(page, (name) => document.getElementById('lobby-who').textContent.includes(name), {}, names[i]);
  }

  await alice.$eval('#spec-input', (n) => { n.value = 'hus'; });
  await alice.$eval('#lobby-clock', (n) => { n.value = '5+3'; });
  await alice.click('#lobby-rated');
  await alice.click('#lobby-seek');
  // Pushed to B's lobby (through the database's channel) and to the guest on A: no reload.
  for (const page of [bob, watcher]) await waitFor(page, () => document.querySelectorAll('#seek-list li').length === 1);
  const line = await bob.$eval('#seek-list li', (n) => n.textContent);
  assert.ok(line.includes(names[0]) && line.includes('1500?') && line.includes('rated'), line);
  await bob.bringToFront();
  await bob.click('#seek-list li button:not([data-player])');
  await Promise.all([alice, bob].map((page) => waitFor(page, () => /^#match=\d+&seat=[01]&token=[0-9a-f]{32}$/.test(location.hash)
    && document.body.dataset.connection === 'connected')));
  const fields = await Promise.all([alice, bob].map(async (page) => new URLSearchParams((await page.evaluate(() => location.hash)).slice(1))));
  const id = fields[0].get('match');
  assert.equal(fields[1].get('match'), id);
  const aliceSeat = Number(fields[0].get('seat'));
  assert.equal(Number(fields[1].get('seat')), 1 - aliceSeat);

  // The guest on A sees the match in A's live list, made on B, and watches it from there.
  await waitFor(watcher, (match) => document.querySelector(`#live-list li[data-match="${match}"]`) !== null
    && document.querySelectorAll('#seek-list li').length === 0, {}, id);
  const liveLine = await watcher.$eval(`#live-list li[data-match="${id}"]`, (n) => n.textContent);
  assert.ok(liveLine.includes(names[0]) && liveLine.includes(names[1]), liveLine);
  await watcher.bringToFront();
  await watcher.click(`#live-list li[data-match="${id}"] button:not([data-player])`);
  await waitFor(watcher, (match) => location.hash === `#match=${match}` && document.body.dataset.connection === 'connected', {}, id);

  const pick = picker(23);
  for (let plies = 0; plies < 2000; plies++) {
    const shown = await ask(serverA, `show ${id}`);
    if (!/ result=running /.test(shown)) break;
    const turn = Number(/ turn=([01])/.exec(shown)[1]);
    const mover = turn === aliceSeat ? alice : bob;
    await mover.bringToFront(); // a click in a background tab never lands
    if ((await waitForTurn(mover)) === 'over') break;
    await clickAcross(mover, pick);
  }
  for (const page of [alice, bob, watcher]) await waitFor(page, () => document.body.dataset.phase === 'over', { timeout: 120000 });
  // All three pages and both instances agree on the moves and the last position.
  const shownA = await ask(serverA, `show ${id}`);
  const shownB = await ask(serverB, `show ${id}`);
  assert.equal(shownA, shownB);
  // Ended by the game's rules: no resignation, flag, abort or agreement.
  assert.match(shownA, / turn=- result=(0|1|draw) clock=/);
  const result = / result=(\S+)/.exec(shownA)[1];
  const history = (await ask(serverB, `history ${id}`)).split(' ').slice(1);
  assert.equal(history.length, Number(/^ok ply=(\d+)/.exec(shownA)[1]));
  t.diagnostic(`${history.length} plies, one click each`);
  for (const page of [alice, bob, watcher]) {
    assert.deepEqual(await movesOf(page), history);
    assert.equal(await positionOf(page), shownA.slice(shownA.indexOf(' position=') + 10));
  }

  // The ratings moved, once: the same on both instances, one game counted, one point of
  // history each, one rated result in the database.
  const after = [];
  for (const name of names) {
    const onA = await ratingOn(serverA, name, 'hus/blitz');
    const onB = await ratingOn(serverB, name, 'hus/blitz');
    assert.deepEqual(onA, onB, name);
    assert.equal(onA.games, 1, `${name}'s game is counted once`);
    if (result !== 'draw') assert.notEqual(onA.rating, 1500, name);
    after.push(onA.rating);
    for (const server of [serverA, serverB]) {
      const json = await playerJson(server, name);
      assert.deepEqual(json.points.map((point) => point.match), [Number(id)], `${name}: one point, this match's`);
      assert.equal(json.games.length, 1);
      assert.equal(json.games[0].match, Number(id));
      assert.equal(json.games[0].rated, true);
    }
  }
  if (result !== 'draw') assert.equal(after[Number(result) === aliceSeat ? 0 : 1] > 1500, true, 'the winner gained');
  assert.equal(await postgres.psql(`SELECT count(*) FROM rating_history WHERE match_id = ${id}`), '2');
  assert.equal(await postgres.psql('SELECT count(*) FROM rating_history'), '2');

  // Each player's page on each instance, as the board draws it, shows the rating and the game.
  for (const server of [serverA, serverB]) {
    for (const [i, name] of names.entries()) {
      const page = await openSitePage(contexts[2], server, `?player=${name}`, consoleProblems);
      await waitFor(page, (who, match) => document.getElementById('history-view').dataset.player === who
        && document.querySelector(`#history-view li[data-match="${match}"]`) !== null, {}, name, id);
      assert.equal(await page.$eval('#history-view [data-rating="hus/blitz"]', (n) => Number(n.dataset.value)), after[i]);
      const outcome = await page.$eval(`#history-view li[data-match="${id}"]`, (n) => n.dataset.outcome);
      const seat = i === 0 ? aliceSeat : 1 - aliceSeat;
      assert.equal(outcome, result === 'draw' ? 'draw' : Number(result) === seat ? 'win' : 'loss');
      assert.equal(await page.$$eval('#history-view [data-list="games"] li', (n) => n.length), 1);
      await page.close();
    }
  }
  for (const context of contexts) await context.close();
  assert.deepEqual(consoleProblems, []);
});
