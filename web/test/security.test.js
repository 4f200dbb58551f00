// The site's security cases in a real browser (issue 42 item 8), those the server's own tests
// (server/tests/test-tg-server-web-accounts.py, -accounts.py) check on the wire and
// online.test.js does not: what a person sees when the sign-in budgets are spent, when the
// session cookie is forged or has expired, when a page of another origin posts a form or
// opens a WebSocket with the person's cookies, and when a rated match's seat page asks for
// the engine's help.
//
//   node --test security.test.js      (scripts/test-web.sh --server PATH runs it)
//
// Each case starts a tg-server of its own on SQLite with the options it needs. Environment:
// as harness.js says.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import enWords from '../i18n/en.js';
import {
  ask, launchBrowser, layOutSite, openSitePage, sessionCookie, signedInAs, startServer,
  stopServer, typeCredentials, waitFor,
} from './harness.js';

let work;
let browser;
const servers = [];
const consoleProblems = [];
// The browser logs each refused request as a failed resource: expected in these tests, and
// only those statuses.
const refusals = /status of (401|403|429)/;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tg-security-'));
  await layOutSite(work);
  browser = await launchBrowser(work);
});

after(async () => {
  await browser?.close();
  for (const server of servers) await stopServer(server);
  if (work) await rm(work, { recursive: true, force: true });
});

async function server(...extra) {
  const started = await startServer(work, join(work, `matches-${servers.length}.db`), extra);
  servers.push(started);
  return started;
}

async function register(page, name, password) {
  await typeCredentials(page, name, password);
  await page.click('#account-register');
  await waitFor(page, (who) => document.body.dataset.account === who, {}, name);
}

// Signs in (or tries to) and waits for either outcome; returns the error's word, or '' when
// signed in.
async function trySignIn(page, name, password) {
  await page.$eval('#account-error', (n) => { n.textContent = ''; delete n.dataset.error; });
  await typeCredentials(page, name, password);
  await page.click('#account-login');
  await waitFor(page, () => document.body.dataset.account !== '' || document.getElementById('account-error').dataset.error !== undefined);
  return page.$eval('#account-error', (n) => n.dataset.error ?? '');
}

const accountError = (page) => page.$eval('#account-error', (n) => n.textContent);

test('sign-in budgets: after the account\'s wrong passwords even the right one is refused, in words; then the address\'s; nothing signs in and no cookie is set', async () => {
  const site = await server('--sign-in-rate', '3', '--address-sign-in-rate', '8');
  const context = await browser.createBrowserContext();
  const page = await openSitePage(context, site, '', consoleProblems, refusals);
  await register(page, 'Budget_1', 'budget-password-1'); // the address's attempt 1
  await page.click('#account-logout');
  await waitFor(page, () => document.body.dataset.account === '');
  for (let i = 0; i < 3; i++) { // 2, 3, 4: the account's whole budget
    assert.equal(await trySignIn(page, 'Budget_1', 'wrong-password'), 'bad-login');
    assert.equal(await accountError(page), enWords['account.error.bad-login']);
  }
  assert.equal(await trySignIn(page, 'budget_1', 'budget-password-1'), 'rate-limited');
  assert.equal(await accountError(page), enWords['account.error.rate-limited']);
  assert.equal(await signedInAs(page), '');
  assert.equal(await sessionCookie(page, site), undefined);
  // The address: names nobody has spend it too (5 to 8), then any name is refused, a
  // registration as well; the line protocol says which budget.
  for (let i = 5; i <= 8; i++) assert.equal(await trySignIn(page, `nobody_${i}`, 'wrong-password'), 'bad-login');
  await typeCredentials(page, 'Budget_2', 'budget-password-2');
  await page.click('#account-register');
  await waitFor(page, () => document.getElementById('account-error').dataset.error !== undefined);
  assert.equal(await page.$eval('#account-error', (n) => n.dataset.error), 'rate-limited');
  assert.equal(await accountError(page), enWords['account.error.rate-limited']);
  assert.match(await ask(site, 'login Budget_1 budget-password-1'), /^err rate-limited /);
  assert.match(await ask(site, 'player Budget_2'), /^err no-such-player/);
  assert.equal(await signedInAs(page), '');
  assert.equal(await sessionCookie(page, site), undefined);
  await context.close();
});

// Whom the server takes a WebSocket opened by that page for (the lobby's and a match's own).
function socketWho(page, site) {
  return page.evaluate((url) => new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.onopen = () => ws.send('whoami');
    ws.onmessage = (event) => { resolve(String(event.data)); ws.close(); };
    ws.onerror = () => resolve('error');
  }), `ws://127.0.0.1:${site.webPort}/`);
}

// The tg_session cookie put into the browser as an attacker would, through DevTools.
function plantCookie(client, site, value) {
  return client.send('Network.setCookie', {
    name: 'tg_session', value, url: `http://127.0.0.1:${site.webPort}/`, httpOnly: true, sameSite: 'Lax',
  });
}

// A session cookie guessed, and one copied with a character changed: the page shows the
// person signed out, its WebSocket is a guest's; the real cookie put back signs in again (so
// that the refusals are the forgeries', not a session gone meanwhile).
test('a forged session cookie: the page is signed out, its WebSocket a guest\'s; the real one put back still works', async () => {
  const site = await server();
  const context = await browser.createBrowserContext();
  const page = await openSitePage(context, site, '', consoleProblems, refusals);
  await register(page, 'Victim_1', 'victim-password-1');
  const real = await sessionCookie(page, site);
  assert.match(real.value, /^[0-9a-f]{64}$/);
  const client = await page.createCDPSession();
  const last = real.value.at(-1) === '0' ? '1' : '0';
  for (const forged of [`${real.value.slice(0, -1)}${last}`, '0'.repeat(64)]) {
    await plantCookie(client, site, forged);
    const fresh = await openSitePage(context, site, '', consoleProblems, refusals);
    assert.equal(await signedInAs(fresh), '', forged);
    assert.equal(await fresh.$eval('#account-badge', (n) => n.hidden), true);
    assert.equal(await fresh.$eval('#account-form', (n) => n.hidden), false);
    assert.equal(await socketWho(fresh, site), 'ok -');
    // Signing out with it is refused too, and the page stays signed out.
    assert.equal(await fresh.evaluate(async () => (await fetch('account/logout-all', { method: 'POST' })).status), 401);
    await fresh.close();
  }
  await plantCookie(client, site, real.value);
  const again = await openSitePage(context, site, '', consoleProblems, refusals);
  assert.equal(await signedInAs(again), 'Victim_1');
  assert.equal(await socketWho(again, site), 'ok Victim_1');
  await client.detach();
  await context.close();
});

// A session past its lifetime (--session-lifetime 5): the browser drops the cookie by itself
// (its Max-Age), and the token planted again, as someone who copied it would, is refused.
test('an expired session: the page reloaded is signed out; the old token planted again is refused, page and WebSocket', async () => {
  const site = await server('--session-lifetime', '5');
  const context = await browser.createBrowserContext();
  const page = await openSitePage(context, site, '', consoleProblems, refusals);
  await register(page, 'Victim_3', 'victim-password-3');
  const real = await sessionCookie(page, site);
  assert.equal(await socketWho(page, site), 'ok Victim_3');
  await new Promise((r) => setTimeout(r, 5500));
  await page.reload();
  await waitFor(page, () => document.body.dataset.account !== undefined);
  assert.equal(await signedInAs(page), '');
  assert.equal(await sessionCookie(page, site), undefined, 'the browser dropped it');
  const client = await page.createCDPSession();
  await plantCookie(client, site, real.value);
  const late = await openSitePage(context, site, '', consoleProblems, refusals);
  assert.equal(await signedInAs(late), '');
  assert.equal(await late.$eval('#account-form', (n) => n.hidden), false);
  assert.equal(await socketWho(late, site), 'ok -');
  assert.equal(await late.evaluate(async () => (await fetch('account/logout', { method: 'POST' })).status), 401);
  await client.detach();
  await context.close();
});

// A page of another origin (here 127.0.0.1 on another port: the same site for the cookie's
// SameSite, so the browser sends the person's cookie along, and only the server's Origin
// check stands between). It posts forms that would sign the person out everywhere or into the
// attacker's account, and opens a WebSocket that would play as the person.
test('CSRF: a foreign page\'s form posts are refused 403 and change nothing; its WebSocket never opens', async () => {
  const site = await server();
  const evil = createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>elsewhere</title>
<form id="logout-all" method="post" action="http://127.0.0.1:${site.webPort}/account/logout-all"></form>
<form id="login" method="post" action="http://127.0.0.1:${site.webPort}/account/login">
<input name="name" value="Mallory_1"><input name="password" value="mallory-password-1"></form>`);
  });
  await new Promise((resolve) => evil.listen(0, '127.0.0.1', resolve));
  const evilOrigin = `http://127.0.0.1:${evil.address().port}`;
  try {
    assert.match(await ask(site, 'register Mallory_1 mallory-password-1'), /^ok /);
    const context = await browser.createBrowserContext();
    const page = await openSitePage(context, site, '', consoleProblems, refusals);
    await register(page, 'Victim_2', 'victim-password-2');
    const cookie = await sessionCookie(page, site);
    for (const form of ['logout-all', 'login']) {
      const foreign = await context.newPage(); // the attacker's: its console is not the site's
      await foreign.goto(`${evilOrigin}/`);
      const [response] = await Promise.all([foreign.waitForNavigation(), foreign.$eval(`#${form}`, (n) => n.submit())]);
      assert.equal(response.status(), 403, form);
      assert.equal((await response.json()).error, 'bad-origin', form);
      assert.equal(response.headers()['set-cookie'], undefined, `${form}: no cookie set`);
      await foreign.close();
    }
    // Still the same person, on the same session.
    await page.reload();
    await waitFor(page, () => document.body.dataset.account !== undefined);
    assert.equal(await signedInAs(page), 'Victim_2');
    assert.equal((await sessionCookie(page, site)).value, cookie.value);
    // The WebSocket: the site's own page opens one as the person; the foreign page's never opens.
    assert.equal(await socketWho(page, site), 'ok Victim_2');
    const foreign = await context.newPage();
    await foreign.goto(`${evilOrigin}/`);
    const opened = await foreign.evaluate((url) => new Promise((resolve) => {
      const ws = new WebSocket(url);
      ws.onopen = () => { ws.send('whoami'); };
      ws.onmessage = (event) => resolve(`message: ${event.data}`);
      ws.onclose = () => resolve('closed');
    }), `ws://127.0.0.1:${site.webPort}/`);
    assert.equal(opened, 'closed');
    await foreign.close();
    await context.close();
  } finally {
    await new Promise((resolve) => evil.close(resolve));
  }
});

// A rated match made in the lobby: its seat pages offer no hint and no analysis, and a seat
// page that asks the server's bot to move for it (?bot=) is refused and moves nothing.
test('fair play in a rated match: the seat page asks for a bot move and is refused in words; Hint and Analysis are off', async () => {
  const site = await server();
  const contexts = [await browser.createBrowserContext(), await browser.createBrowserContext()];
  const pages = [];
  for (const [i, context] of contexts.entries()) {
    const page = await openSitePage(context, site, '?speed=fast', consoleProblems, refusals);
    await register(page, `Fair_${i}`, 'fair-password-1');
    await page.click('#lobby summary');
    await waitFor(page, (who) => document.getElementById('lobby-who').textContent.includes(who), {}, `Fair_${i}`);
    pages.push(page);
  }
  await pages[0].$eval('#spec-input', (n) => { n.value = 'halusa'; });
  await pages[0].$eval('#lobby-clock', (n) => { n.value = '5+3'; });
  await pages[0].click('#lobby-rated');
  await pages[0].click('#lobby-seek');
  await waitFor(pages[1], () => document.querySelectorAll('#seek-list li').length === 1);
  await pages[1].bringToFront();
  await pages[1].click('#seek-list li button:not([data-player])');
  await Promise.all(pages.map((page) => waitFor(page, () => /^#match=\d+&seat=[01]&token=[0-9a-f]{32}$/.test(location.hash)
    && document.body.dataset.connection === 'connected')));
  const hashes = await Promise.all(pages.map((page) => page.evaluate(() => location.hash)));
  const id = new URLSearchParams(hashes[0].slice(1)).get('match');
  const shown = await ask(site, `show ${id}`);
  const turn = / turn=([01])/.exec(shown)[1];
  const moverIndex = new URLSearchParams(hashes[0].slice(1)).get('seat') === turn ? 0 : 1;
  for (const page of pages) {
    assert.equal(await page.$eval('#hint-button', (n) => n.disabled), true);
    assert.equal(await page.$eval('#analysis', (n) => n.disabled), true);
  }
  // The seat to move, opened again with ?bot=: the page asks the server, which refuses.
  const botPage = await openSitePage(contexts[moverIndex], site, `?speed=fast&bot=greedy${hashes[moverIndex]}`, consoleProblems, refusals);
  await waitFor(botPage, () => document.body.dataset.phase === 'error');
  const status = await botPage.$eval('#status-text', (n) => n.textContent);
  assert.ok(status.startsWith(enWords['status.bot-failed']('').trim()), status);
  // In words that name the rated match's rule (the server's word, bots-forbidden, is shared
  // with --no-bots-on-clock's refusal).
  assert.ok(status.includes(enWords['server.bots-forbidden']), status);
  assert.match(enWords['server.bots-forbidden'], /rated/);
  assert.match(await ask(site, `show ${id}`), /^ok ply=0 /);
  assert.equal(await botPage.$eval('#hint-button', (n) => n.disabled), true);
  await botPage.close();
  for (const context of contexts) await context.close();
  assert.deepEqual(consoleProblems, []);
});
