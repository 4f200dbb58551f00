// The package as a browser app's dependency: a small app (app/) bundled by esbuild
// (--platform=browser, the .wasm imported as a URL and as inlined bytes) and by webpack (no
// configuration for the .wasm: the package's own `new URL(..., import.meta.url)`), each
// bundle served on 127.0.0.1 and run in headless Chromium, where it plays one seeded game of
// every game; the answers must be the native library's for the same seeds.
//
// Run by scripts/test-js.sh after `npm ci` here (esbuild, webpack and puppeteer-core, pinned
// by package-lock.json). TG_CHROMIUM names the browser (default /usr/bin/chromium);
// TG_NATIVE_ORACLE the native oracle (test/native-oracle.c, built by scripts/test-js.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import webpack from 'webpack';
import puppeteer from 'puppeteer-core';
import { native } from '../helpers.js';
import { SEED, BOTS } from './app/play.js';
import { load, Rng } from 'traditional-games';

const here = fileURLToPath(new URL('.', import.meta.url));
const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'tg-bundles-'));
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const PAGE_TIMEOUT_MS = 120000;

let server;
let base;
let browser;
const results = new Map();
const waiting = new Map();

function page(name, script, module) {
  writeFileSync(join(out, name, 'index.html'),
    `<!doctype html><meta charset="utf-8"><title>${name}</title>` +
    `<script${module ? ' type="module"' : ''} src="${script}"></script>\n`);
}

before(async () => {
  server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (req.method === 'POST' && path.endsWith('/result')) {
      let body = '';
      for await (const chunk of req) body += chunk;
      res.end();
      const name = path.split('/')[1];
      results.set(name, JSON.parse(body));
      waiting.get(name)?.();
      return;
    }
    // The package's own files, unbundled, at /pkg/ (the SearchWorker page).
    const file = path.startsWith('/pkg/') ? normalize(join(packageDir, path.slice(5))) : normalize(join(out, path));
    try {
      if (!file.startsWith(out) && !(file.startsWith(packageDir) && !file.slice(packageDir.length).includes('/'))) {
        throw new Error('outside');
      }
      const body = readFileSync(file);
      res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await puppeteer.launch({
    executablePath: process.env.TG_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    userDataDir: join(out, 'profile'),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
  rmSync(out, { recursive: true, force: true });
});

// The games as the native library plays them, and as this package plays them in Node.
const specs = [];
const expected = {};
{
  const tg = await load();
  for (const game of tg.games()) {
    const rules = new tg.Rules(game.id);
    specs.push(rules.spec);
    rules.free();
  }
  const answers = native(specs.map((spec) => `game ${spec} ${SEED} ${BOTS[0]} ${BOTS[1]}`));
  specs.forEach((spec, i) => { expected[spec] = answers[i]; });
}

// The SearchWorker page's position: Hawalis after a few random moves.
const SEARCH_SPEC = 'hawalis';
const SEARCH_BOT = 'search:nodes=5000';
let searchPosition;
{
  const tg = await load();
  const state = new tg.State(SEARCH_SPEC);
  const rng = new Rng(5n);
  for (let i = 0; i < 6; i++) state.applyRandom(rng);
  searchPosition = state.toString();
  state.free();
}

async function runInChromium(name) {
  const done = new Promise((resolve) => waiting.set(name, resolve));
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  try {
    await tab.goto(`${base}/${name}/index.html`);
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name}: no result in ${PAGE_TIMEOUT_MS} ms`)), PAGE_TIMEOUT_MS);
    });
    await Promise.race([done, timeout]).finally(() => clearTimeout(timer));
  } finally {
    await tab.close();
  }
  const result = results.get(name);
  assert.deepEqual(errors, []);
  assert.equal(result.error, undefined, result.error);
  return result;
}

function checkGames(result) {
  assert.deepEqual(Object.keys(result).sort(), [...specs].sort());
  for (const spec of specs) assert.deepEqual(result[spec], expected[spec], spec);
}

function files(dir) {
  return readdirSync(join(out, dir)).sort();
}

test('esbuild --platform=browser, the .wasm imported as a URL (file loader): plays as native', async () => {
  const built = await esbuild.build({
    entryPoints: [join(here, 'app/wasm-url.js')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    outdir: join(out, 'esbuild-url'),
    loader: { '.wasm': 'file' },
    logLevel: 'silent',
    metafile: true,
  });
  assert.deepEqual(built.errors, []);
  assert.deepEqual(built.warnings, []);
  // No Node module reached the bundle.
  const inputs = Object.keys(built.metafile.inputs);
  assert.ok(inputs.every((p) => !p.startsWith('node:')), inputs.join(' '));
  assert.ok(files('esbuild-url').some((f) => f.endsWith('.wasm')), 'the .wasm was emitted');
  page('esbuild-url', 'wasm-url.js', true);
  checkGames(await runInChromium('esbuild-url'));
});

test('esbuild --platform=browser, the .wasm inlined as bytes (binary loader): plays as native', async () => {
  const built = await esbuild.build({
    entryPoints: [join(here, 'app/wasm-bytes.js')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    outdir: join(out, 'esbuild-bytes'),
    loader: { '.wasm': 'binary' },
    logLevel: 'silent',
  });
  assert.deepEqual(built.errors, []);
  assert.deepEqual(files('esbuild-bytes'), ['wasm-bytes.js'], 'one file: the bytes are inside');
  page('esbuild-bytes', 'wasm-bytes.js', true);
  checkGames(await runInChromium('esbuild-bytes'));
});

test('webpack (target web, no rule for .wasm): load() finds the emitted asset, plays as native', async () => {
  const stats = await new Promise((resolve, reject) => {
    webpack({
      mode: 'production',
      target: 'web',
      context: here,
      entry: './app/default.js',
      output: { path: join(out, 'webpack'), filename: 'bundle.js' },
      performance: { hints: false },
    }, (error, result) => (error ? reject(error) : resolve(result)));
  });
  const info = stats.toJson({ all: false, errors: true, warnings: true });
  assert.deepEqual(info.errors, []);
  assert.deepEqual(info.warnings, []);
  assert.ok(files('webpack').some((f) => f.endsWith('.wasm')), 'the .wasm was emitted');
  page('webpack', 'bundle.js', false);
  checkGames(await runInChromium('webpack'));
});

test('SearchWorker in Chromium (a module Worker): the analysis is Node\'s, an abort rejects at once', async () => {
  mkdirSync(join(out, 'search'), { recursive: true });
  writeFileSync(join(out, 'search', 'index.html'), `<!doctype html><meta charset="utf-8">
<script type="module">
  import { Rng } from '/pkg/traditional-games.js';
  import { SearchWorker } from '/pkg/traditional-games-search.js';
  import { load } from '/pkg/traditional-games.js';
  import { report } from '/search/play.js';
  report(async () => {
    const tg = await load();
    const state = tg.State.fromString('${SEARCH_SPEC}', '${searchPosition}');
    const worker = new SearchWorker();
    const analysis = await worker.analyse(state, '${SEARCH_BOT}', new Rng(1n));
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 300);
    let aborted = null;
    try {
      await worker.analyse(state, 'search:nodes=1000000000', new Rng(1n), { signal: controller.signal });
    } catch (e) {
      aborted = e.name;
    }
    const abortedAfter = performance.now() - started;
    const again = await worker.analyse(state, '${SEARCH_BOT}', new Rng(1n));
    worker.terminate();
    return { analysis, aborted, abortedAfter, again, shared: typeof SharedArrayBuffer === 'function' };
  });
</script>
`);
  writeFileSync(join(out, 'search', 'play.js'), readFileSync(join(here, 'app/play.js'), 'utf8')
    .replace("import { Rng } from 'traditional-games';", ''));
  const result = await runInChromium('search');
  const tg = await load();
  const state = tg.State.fromString(SEARCH_SPEC, searchPosition);
  const expectedAnalysis = state.analyse(SEARCH_BOT, new Rng(1n));
  state.free();
  assert.deepEqual(result.analysis, expectedAnalysis);
  assert.deepEqual(result.again, expectedAnalysis);
  assert.equal(result.aborted, 'AbortError');
  assert.ok(result.abortedAfter < 5000, `rejected after ${result.abortedAfter} ms`);
});
