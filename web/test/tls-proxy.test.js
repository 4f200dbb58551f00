// The site behind a TLS proxy, as docs/server.md ("Behind a TLS proxy", "Running the site for a
// club") deploys it: Debian's nginx terminating TLS with the documentation's own configuration,
// tg-server started with --origin https://..., --secure-cookies and --trusted-proxy, and
// Chromium on the https:// address. What it proves: the session cookie is marked Secure and
// still HttpOnly and SameSite; a signed-in page's WebSocket goes over wss:// through the proxy
// and carries the session; two people meet in the lobby and play by clicks; a form posted from
// a foreign origin through the proxy is refused while the site's own origin is accepted.
//
//   node --test tls-proxy.test.js      (scripts/test-web.sh --server PATH runs it)
//
// Environment: as harness.js says, and TG_NGINX (default /usr/sbin/nginx), TG_OPENSSL (default
// openssl) for the throw-away certificate.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import {
  ask, clickOnline, launchBrowser, layOutSite, picker, signedInAs, startServer,
  stopServer, typeCredentials, waitFor,
} from './harness.js';

const run = promisify(execFile);
const nginxBinary = process.env.TG_NGINX ?? '/usr/sbin/nginx';

let work;
let site;
let nginx;
let browser;
let httpsPort;
const consoleProblems = [];

// A port nothing listens on now (nginx must be told its port; it cannot report one it chose).
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// The nginx block of docs/server.md, "Behind a TLS proxy", with this test's port, certificate
// and upstream: the configuration a club copies is the one tested.
async function documentedServerBlock(port, cert, key, upstream) {
  const docs = await readFile(new URL('../../docs/server.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('### Behind a TLS proxy'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'docs/server.md has the nginx configuration under "Behind a TLS proxy"');
  const replaced = [
    [/listen 443 ssl;/, `listen 127.0.0.1:${port} ssl;`],
    [/server_name [^;]+;/, 'server_name localhost;'],
    [/ssl_certificate [^;]+;/, `ssl_certificate ${cert};`],
    [/ssl_certificate_key [^;]+;/, `ssl_certificate_key ${key};`],
    [/proxy_pass http:\/\/127\.0\.0\.1:8080;/, `proxy_pass http://127.0.0.1:${upstream};`],
  ];
  let text = block;
  for (const [pattern, value] of replaced) {
    assert.match(text, pattern, `the documented block has ${pattern}`);
    text = text.replace(pattern, value);
  }
  return text;
}

async function startNginx(dir, serverBlock) {
  const temp = (name) => join(dir, name);
  // Only the master reads the configuration and the key; workers run as nobody when started
  // by root, and write nothing but the temporary files below.
  const conf = [
    'worker_processes 1;',
    `pid ${temp('nginx.pid')};`,
    `error_log ${temp('error.log')} info;`,
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${temp('access.log')};`,
    `  client_body_temp_path ${temp('body')};`,
    `  proxy_temp_path ${temp('proxy')};`,
    `  fastcgi_temp_path ${temp('fastcgi')};`,
    `  uwsgi_temp_path ${temp('uwsgi')};`,
    `  scgi_temp_path ${temp('scgi')};`,
    serverBlock,
    '}',
  ].join('\n');
  await writeFile(temp('nginx.conf'), conf);
  await chmod(dir, 0o755); // the workers (nobody) create their temporary folders in it
  const child = spawn(nginxBinary, ['-p', dir, '-c', temp('nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, stderr: () => stderr, errorLog: () => readFile(temp('error.log'), 'utf8').catch(() => '') };
}

// Ready once a TLS handshake with the proxy completes.
function handshake(port) {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false },
      () => { socket.end(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

async function waitForHttps(port, proxy) {
  for (let i = 0; i < 300; i++) {
    if (proxy.child.exitCode !== null) break;
    if (await handshake(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nginx did not listen: ${proxy.stderr()} ${await proxy.errorLog()}`);
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tg-tls-'));
  await layOutSite(work);
  const cert = join(work, 'cert.pem');
  const key = join(work, 'key.pem');
  await run(process.env.TG_OPENSSL ?? 'openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost']);
  httpsPort = await freePort();
  site = await startServer(work, join(work, 'matches.db'), [
    '--origin', `https://localhost:${httpsPort}`, '--secure-cookies', '--trusted-proxy', '127.0.0.1']);
  nginx = await startNginx(work, await documentedServerBlock(httpsPort, cert, key, site.webPort));
  await waitForHttps(httpsPort, nginx);
  browser = await launchBrowser(work, ['--ignore-certificate-errors']);
});

after(async () => {
  await browser?.close();
  if (nginx && nginx.child.exitCode === null) {
    nginx.child.kill('SIGQUIT'); // nginx's graceful stop
    await nginx.exited;
  }
  await stopServer(site);
  if (work) await rm(work, { recursive: true, force: true });
});

async function openPage(context, query = '') {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') consoleProblems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleProblems.push(`page error: ${error.message}`));
  await page.setViewport({ width: 1000, height: 900 });
  await page.goto(`https://localhost:${httpsPort}/${query}`);
  await waitFor(page, () => document.body.dataset.phase !== 'loading');
  await waitFor(page, () => document.body.dataset.account !== undefined);
  return page;
}

async function cookieOf(page) {
  const client = await page.createCDPSession();
  const { cookies } = await client.send('Network.getCookies', { urls: [`https://localhost:${httpsPort}/`] });
  await client.detach();
  return cookies.find((cookie) => cookie.name === 'tg_session');
}

async function register(page, name, password) {
  await typeCredentials(page, name, password);
  await page.click('#account-register');
  await waitFor(page, (who) => document.body.dataset.account === who, {}, name);
}

// Whom the server takes a WebSocket that this page opens to the proxy for.
function socketWho(page) {
  return page.evaluate((url) => new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.onopen = () => ws.send('whoami');
    ws.onmessage = (event) => { resolve(String(event.data)); ws.close(); };
    ws.onerror = () => resolve('error');
  }), `wss://localhost:${httpsPort}/`);
}

test('behind nginx with TLS: the cookie Secure, the WebSocket over wss:// signed in, a lobby game played by clicks', async () => {
  const aliceContext = await browser.createBrowserContext();
  const bobContext = await browser.createBrowserContext();
  const alice = await openPage(aliceContext);
  const bob = await openPage(bobContext);
  assert.equal(await alice.evaluate(() => window.isSecureContext && location.protocol), 'https:');

  await register(alice, 'Tls_Alice', 'alice-password-1');
  await register(bob, 'Tls_Bob', 'bob-password-22');
  const cookie = await cookieOf(alice);
  assert.ok(cookie, 'a session cookie is set over TLS');
  assert.equal(cookie.secure, true, '--secure-cookies marks it Secure');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Lax');
  assert.equal(await alice.evaluate(() => document.cookie.includes('tg_session')), false);
  assert.match(await socketWho(alice), /^ok Tls_Alice( |$)/);

  // A reload sends the Secure cookie back over TLS: still signed in.
  await alice.reload();
  await waitFor(alice, () => document.body.dataset.account === 'Tls_Alice');

  for (const page of [alice, bob]) {
    await page.click('#lobby summary');
    await waitFor(page, () => document.getElementById('lobby-who').textContent !== '');
  }
  await alice.$eval('#spec-input', (n) => { n.value = 'halusa'; });
  await alice.$eval('#lobby-clock', (n) => { n.value = '5+3'; });
  await alice.click('#lobby-seek');
  await waitFor(bob, () => document.querySelectorAll('#seek-list li').length === 1);
  assert.ok((await bob.$eval('#seek-list li', (n) => n.textContent)).includes('Tls_Alice'));
  await bob.bringToFront();
  await bob.click('#seek-list li button:not([data-player])');
  await Promise.all([alice, bob].map((page) => waitFor(page, () => /^#match=\d+&seat=[01]&token=[0-9a-f]{32}$/.test(location.hash)
    && document.body.dataset.connection === 'connected')));
  const fields = new URLSearchParams((await alice.evaluate(() => location.hash)).slice(1));
  const id = fields.get('match');
  const aliceSeat = Number(fields.get('seat'));

  // Four plies by clicks, each through the proxy, seen by both pages.
  const pick = picker(7);
  for (let i = 0; i < 4; i++) {
    const shown = await ask(site, `show ${id}`);
    if (!/ result=running /.test(shown)) break;
    const turn = Number(/ turn=([01])/.exec(shown)[1]);
    const mover = turn === aliceSeat ? alice : bob;
    await mover.bringToFront();
    await waitFor(mover, () => document.body.dataset.phase === 'person' || document.body.dataset.phase === 'over');
    await clickOnline(mover, pick);
  }
  const plies = Number(/ ply=(\d+)/.exec(await ask(site, `show ${id}`))?.[1] ?? -1);
  assert.ok(plies >= 4, `four plies made through the proxy: ${plies}`);
  for (const page of [alice, bob]) await waitFor(page, (n) => Number(document.body.dataset.ply) === n, {}, plies);

  await aliceContext.close();
  await bobContext.close();
  assert.deepEqual(consoleProblems, []);
});

// A form posted with the person's cookie from another origin (what a hostile page's form
// does; a browser's SameSite=Lax would keep the cookie off a cross-site POST anyway, so the
// request is made by hand to test the server's own check through the proxy).
function postThroughProxy(path, headers) {
  return new Promise((resolve, reject) => {
    const request = httpsRequest({
      host: '127.0.0.1', port: httpsPort, path, method: 'POST', servername: 'localhost',
      rejectUnauthorized: false, headers: { Host: `localhost:${httpsPort}`, 'Content-Length': 0, ...headers },
    }, (response) => { response.resume(); response.on('end', () => resolve(response.statusCode)); });
    request.on('error', reject);
    request.end();
  });
}

test('behind nginx with TLS: a post from a foreign origin or from plain http is refused, the session kept; the same post from the site\'s origin ends it', async () => {
  const context = await browser.createBrowserContext();
  const page = await openPage(context);
  await register(page, 'Tls_Carol', 'carol-password-3');
  const cookie = `tg_session=${(await cookieOf(page)).value}`;
  for (const origin of ['https://evil.example', `http://localhost:${httpsPort}`, 'null']) {
    assert.equal(await postThroughProxy('/account/logout-all', { Cookie: cookie, Origin: origin }), 403, origin);
  }
  await page.reload();
  await waitFor(page, () => document.body.dataset.account === 'Tls_Carol');
  assert.equal(await postThroughProxy('/account/logout-all', { Cookie: cookie, Origin: `https://localhost:${httpsPort}` }), 200);
  await page.reload();
  await waitFor(page, () => document.body.dataset.account === '');
  assert.equal(await signedInAs(page), '');
  await context.close();
});
