// scripts/site.sh, the one command that runs the site for a club: started on free ports with a
// temporary directory, its board fetched and a WebSocket and a line connection opened, then
// stopped as Ctrl-C stops it; and its refusals of a bad directory or port.
//
//   node --test site.test.js      (scripts/test-web.sh --server PATH runs it)
//
// Environment: TG_SERVER, a built tg-server (required: the script then builds no server);
// TG_WASM_BUILD, the WebAssembly build directory scripts/build-wasm.sh reuses (default
// build-wasm), already built by scripts/test-web.sh, so the script's own build is a no-op.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const serverBinary = process.env.TG_SERVER;
if (!serverBinary) throw new Error('TG_SERVER must name the tg-server binary');
const script = fileURLToPath(new URL('../../scripts/site.sh', import.meta.url));
const webDir = fileURLToPath(new URL('..', import.meta.url));
const builtArgs = ['--server', serverBinary, '--wasm-build', process.env.TG_WASM_BUILD ?? 'build-wasm'];

let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tg-site-'));
});

after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function run(args, cwd = undefined) {
  const child = spawn(script, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => { out.stdout += chunk; });
  child.stderr.on('data', (chunk) => { out.stderr += chunk; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, ...out })));
  return { child, out, exited };
}

// One exchange on a TCP connection: what is written, and the first line (or the head of an
// HTTP answer) that comes back.
function exchange(port, text, until) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
      if (data.includes(until)) {
        socket.destroy();
        resolve(data.slice(0, data.indexOf(until)));
      }
    });
    socket.on('error', reject);
    socket.write(text);
  });
}

test('site.sh: the board, a WebSocket and a line connection on free ports, and a clean stop on Ctrl-C', async () => {
  const dir = join(work, 'club');
  const { child, out, exited } = run([dir, '--port', '0', '--line-port', '0', ...builtArgs]);
  const started = Date.now();
  let address = null;
  while (!address) {
    address = /^site: (http:\/\/127\.0\.0\.1:(\d+)\/) \(line port (\d+), database (.*)\); Ctrl-C stops it$/m.exec(out.stdout);
    if (address) break;
    assert.equal(child.exitCode, null, `site.sh ended early: ${out.stderr}`);
    assert.ok(Date.now() - started < 300000, 'site.sh printed its address');
    await new Promise((r) => setTimeout(r, 100));
  }
  const [, url, webPort, linePort, database] = address;
  assert.equal(database, join(dir, 'matches.db'));
  // The board's page, and the package it loads, from the assembled site.
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<svg id="board"|id="board"/);
  const wasm = await fetch(`${url}traditional-games/traditional-games.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.equal((await fetch(`${url}test/online.test.js`)).status, 404, 'the tests are not served');
  // A WebSocket upgrade as the page makes it, from its own origin.
  const head = await exchange(Number(webPort), `GET / HTTP/1.1\r\nHost: 127.0.0.1:${webPort}\r\n`
    + `Origin: http://127.0.0.1:${webPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
    + 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n', '\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 101 /);
  assert.match(head, /sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/i);
  // A match made on the line port, stored in the site's database.
  assert.match(await exchange(Number(linePort), 'new halusa\n', '\n'), /^ok \d+ [0-9a-f]{32} [0-9a-f]{32}$/);
  child.kill('SIGINT');
  const { code, signal } = await exited;
  assert.equal(signal, null);
  assert.equal(code, 0, `site.sh stops cleanly: ${out.stderr}`);
  assert.match(out.stdout, /tg-server: stopped/);
  assert.ok((await stat(join(dir, 'matches.db'))).size > 0, 'the database is in the directory');
  // Started again on the same directory, named from where the command is run, the match is
  // still there.
  const again = run(['club', '--port', '0', '--line-port', '0', ...builtArgs], work);
  while (!/^site: /m.test(again.out.stdout)) {
    assert.equal(again.child.exitCode, null, `site.sh ended early: ${again.out.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(again.out.stdout, /tg-server: listening on .*; 1 matches in /);
  again.child.kill('SIGTERM');
  assert.equal((await again.exited).code, 0);
});

test('site.sh refuses a bad directory or port, in words, starting nothing', async () => {
  const file = join(work, 'a-file');
  await writeFile(file, 'not a directory\n');
  const cases = [
    [[file], /is not a directory/],
    [[join(work, 'missing', 'club')], /does not exist/],
    [[join(webDir, 'club')], /inside web\//],
    [[join(work, 'new'), '--port', '70000'], /a port is a number from 0 to 65535/],
    [[join(work, 'new'), '--line-port', 'x'], /a port is a number/],
    [[join(work, 'new'), '--db', 'other.db'], /names a PostgreSQL database/],
    [[join(work, 'new'), '--server', join(work, 'no-server')], /no tg-server at/],
    [[], /usage/],
    [[join(work, 'new'), '--bogus'], /usage/],
  ];
  for (const [args, words] of cases) {
    const { code, stdout, stderr } = await run(args).exited;
    assert.equal(code, 2, `${args.join(' ')}: exit status 2`);
    assert.match(stderr, words);
    assert.equal(stdout, '', 'no address printed');
  }
  assert.equal(existsSync(join(webDir, 'club')), false, 'nothing made inside web/');
  assert.equal(existsSync(join(work, 'missing')), false);
  assert.equal(existsSync(join(work, 'new', 'matches.db')), false, 'no database for a refused command');
});
