// What the browser tests of the site (online.test.js, sites.test.js, security.test.js) share:
// the web board laid out as a deployment serves it, tg-server instances started on it (SQLite
// or a throw-away PostgreSQL cluster), a headless Chromium, and the steps a person takes in the
// Account panel and the lobby.
//
// Environment: TG_SERVER, the tg-server binary (required); TG_CHROMIUM (default
// /usr/bin/chromium); TG_PACKAGE_DIR, the package folder with the built module (default
// bindings/js); TG_PYTHON (default python3), for the PostgreSQL cluster's helper.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { packageFiles } from '../serve.js';

export const serverBinary = process.env.TG_SERVER;
if (!serverBinary) throw new Error('TG_SERVER must name the tg-server binary');
const packageDir = process.env.TG_PACKAGE_DIR ?? fileURLToPath(new URL('../../bindings/js/', import.meta.url));
const appDir = fileURLToPath(new URL('..', import.meta.url));

// The app's files but its tests, benchmarks and development server, with the package's
// run-time files (web/serve.js's packageFiles) and the bots' measured ratings, copied into DIR/site (the server refuses
// symbolic links out of its --web folder). Returns that folder.
export async function layOutSite(work) {
  const site = join(work, 'site');
  await mkdir(join(site, 'traditional-games'), { recursive: true });
  for (const name of await readdir(appDir)) {
    if (['test', 'bench', 'serve.js', '.gitignore'].includes(name)) continue;
    await cp(join(appDir, name), join(site, name), { recursive: true });
  }
  for (const name of packageFiles) await cp(join(packageDir, name), join(site, 'traditional-games', name));
  await cp(join(appDir, '..', 'docs', 'ratings'), join(site, 'docs', 'ratings'), { recursive: true });
  return site;
}

let started = 0;

// A tg-server serving the site on a free line port and on webPort (0, the default: a free one;
// a restarted server takes its predecessor's, so that the pages loaded from it reconnect): db
// is a SQLite file or a PostgreSQL conninfo. Resolves to { linePort, webPort, child, exited,
// stderr }, the server's standard error kept so that a failure can say what the server said.
export async function startServer(work, db, extra = [], webPort = 0) {
  const name = `server-${++started}`;
  const portFile = join(work, `${name}.line-port`);
  const webPortFile = join(work, `${name}.web-port`);
  const child = spawn(serverBinary, ['--port', '0', '--db', db, '--port-file', portFile,
    '--web-port', String(webPort), '--web-port-file', webPortFile, '--web', join(work, 'site'), ...extra],
  { stdio: ['ignore', 'ignore', 'pipe'] });
  const server = { child, stderr: '', linePort: 0, webPort: 0 };
  child.stderr.on('data', (chunk) => { server.stderr = (server.stderr + chunk).slice(-8000); });
  server.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) break;
    try {
      const line = Number(await readFile(portFile, 'utf8'));
      const web = Number(await readFile(webPortFile, 'utf8'));
      // A file the server has created but not yet written reads as empty: not a port yet.
      if (line > 0 && web > 0) {
        Object.assign(server, { linePort: line, webPort: web });
        return server;
      }
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`tg-server did not start: ${server.stderr}`);
}

// SIGTERM, and the server must stop cleanly.
export async function stopServer(server) {
  if (!server || server.child.exitCode !== null) return;
  server.child.kill('SIGTERM');
  const { code } = await server.exited;
  assert.equal(code, 0, `tg-server stops cleanly: ${server.stderr}`);
}

// A throw-away PostgreSQL cluster, started and removed by server/tests/pgcluster.py (through
// web/test/pg-cluster.py, which holds it until its standard input closes). Resolves to
// { conninfo(dbname), createDatabase(name), psql(sql), stop() }.
export async function startPostgres() {
  const helper = fileURLToPath(new URL('pg-cluster.py', import.meta.url));
  const child = spawn(process.env.TG_PYTHON ?? 'python3', [helper], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const ask = (line) => new Promise((resolve, reject) => {
    lines.once('line', (answer) => (answer.startsWith('ok ') ? resolve(answer.slice(3)) : reject(new Error(answer))));
    child.stdin.write(`${line}\n`);
  });
  const ready = await new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the PostgreSQL helper exited with ${code}`)));
  });
  if (!ready.startsWith('ok ')) throw new Error(ready);
  return {
    conninfo: (dbname) => `host=${ready.slice(3)} port=5432 dbname=${dbname} user=tg`,
    createDatabase: (name) => ask(`create ${name}`),
    psql: (sql) => ask(`psql ${sql}`),
    async stop() {
      child.stdin.end();
      assert.equal(await exited, 0, 'the PostgreSQL cluster is removed');
    },
  };
}

// One command on the line protocol, from Node: the server's own view.
export function ask(server, line) {
  return new Promise((resolve, reject) => {
    const socket = connect(server.linePort, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk;
      if (data.includes('\n')) {
        socket.end();
        resolve(data.split('\n')[0]);
      }
    });
    socket.on('error', reject);
    socket.write(`${line}\n`);
  });
}

export function launchBrowser(work, extraArgs = []) {
  return puppeteer.launch({
    executablePath: process.env.TG_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    userDataDir: join(work, 'chromium'),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

// Interval polling: requestAnimationFrame, puppeteer's default, never fires in a background tab.
export function waitFor(page, predicate, options = {}, ...args) {
  return page.waitForFunction(predicate, { polling: 50, timeout: 60000, ...options }, ...args);
}

// The board at url on a new page of that browser context (its own cookies), once it has loaded.
// Console errors and warnings are collected in problems, but those the test expects
// (isExpected: a function of the message's text, asked when the message comes).
export async function openBoardPage(context, url, problems, isExpected = () => false) {
  const page = await context.newPage();
  page.on('console', (message) => {
    if ((message.type() === 'error' || message.type() === 'warning') && !isExpected(message.text())) {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.setViewport({ width: 1000, height: 900 });
  await page.goto(url);
  await waitFor(page, () => document.body.dataset.phase !== 'loading');
  return page;
}

// A page of the site on that server, once it knows who its visitor is (openBoardPage; expected:
// a regular expression on the messages the test expects).
export async function openSitePage(context, server, query, problems, expected = null) {
  const page = await openBoardPage(context, `http://127.0.0.1:${server.webPort}/${query}`, problems,
    (text) => expected !== null && expected.test(text));
  await waitFor(page, () => document.body.dataset.account !== undefined);
  return page;
}

export async function typeCredentials(page, name, password) {
  await page.$eval('#account', (node) => { node.open = true; });
  await page.$eval('#account-user', (node) => { node.value = ''; });
  await page.$eval('#account-password', (node) => { node.value = ''; });
  await page.type('#account-user', name);
  await page.type('#account-password', password);
}

export const signedInAs = (page) => page.$eval('body', (body) => body.dataset.account);
export const plyOf = (page) => page.$eval('body', (body) => Number(body.dataset.ply));
export const phaseOf = (page) => page.$eval('body', (body) => body.dataset.phase);
export const positionOf = (page) => page.$eval('#position', (node) => node.textContent);
export const movesOf = (page) => page.$$eval('#move-list li', (items) => items.map((li) => li.dataset.move));

// The session cookie as the browser holds it for that server, read through DevTools.
export async function sessionCookie(page, server) {
  const client = await page.createCDPSession();
  const { cookies } = await client.send('Network.getCookies', { urls: [`http://127.0.0.1:${server.webPort}/`] });
  await client.detach();
  return cookies.find((cookie) => cookie.name === 'tg_session');
}

// A seeded choice among n (the same game each run).
export function picker(seed) {
  let a = seed >>> 0;
  return (n) => {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    return (a >>> 8) % n;
  };
}

// A person's move on an online page: a click on a legal hole or piece (and a throw to spend
// when asked); the move comes back from the server as an event.
export async function clickOnline(page, pick) {
  const before = await plyOf(page);
  const cells = await page.$$eval('#board .cell.legal', (nodes) => nodes.map((n) => n.dataset.cell));
  assert.ok(cells.length > 0, 'a person to move has a legal hole or piece');
  await page.click(`#board .cell.legal[data-cell="${cells[pick(cells.length)]}"]`);
  const choices = await page.$$eval('#choices button', (nodes) => nodes.map((n) => n.dataset.move));
  if (choices.length > 0 && (await phaseOf(page)) === 'person') {
    await page.click(`#choices button[data-move="${choices[pick(choices.length)]}"]`);
  }
  await waitFor(page, (ply) => Number(document.body.dataset.ply) > ply
    || document.body.dataset.phase === 'over', {}, before);
}

export async function waitForTurn(page) {
  await waitFor(page, () => ['person', 'over'].includes(document.body.dataset.phase), {});
  return phaseOf(page);
}
