// By hand, where a Chromium is installed (the CI machine has none):
//
//   node bindings/js/test/browser/check.js [CHROMIUM]      (default /usr/bin/chromium)
//
// Serves the package folder over http on 127.0.0.1, opens index.html in headless Chromium,
// waits for the page to post what it computed, and compares that with the same games played
// here in Node.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../../traditional-games.js';
import { playAll } from './scenario.js';

const TIMEOUT_MS = 180000;
const root = fileURLToPath(new URL('../..', import.meta.url));
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

let report;
const reported = new Promise((resolve) => { report = resolve; });
const server = createServer(async (req, res) => {
  if (req.method === 'POST' && req.url === '/result') {
    let body = '';
    for await (const chunk of req) body += chunk;
    res.end();
    report(body);
    return;
  }
  const path = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
  try {
    if (!path.startsWith(root)) throw new Error('outside the package');
    const body = await readFile(path);
    res.writeHead(200, { 'Content-Type': types[extname(path)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/test/browser/index.html`;

const chromium = process.argv[2] ?? '/usr/bin/chromium';
// Its own process group: /usr/bin/chromium is a wrapper script whose browser processes must
// go when the check ends.
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', url],
  { stdio: 'ignore', detached: true });
const exited = new Promise((resolve) => browser.on('exit', (code) => resolve(`${chromium} exited (${code})`)));
const timer = new Promise((resolve) => setTimeout(() => resolve('timed out'), TIMEOUT_MS).unref());
const inBrowser = await Promise.race([reported, exited, timer]);
try {
  process.kill(-browser.pid);
} catch {
  // already gone
}
server.close();

const inNode = JSON.stringify(playAll(await load()));
if (inBrowser !== inNode) {
  console.error(`browser: ${inBrowser}\nnode:    ${inNode}`);
  process.exit(1);
}
console.log(`browser check: ${Object.keys(JSON.parse(inNode)).length} games identical in Chromium and Node`);
