// The development server of the web board: the app's own files at /, the npm package's
// module and WebAssembly file (and its Worker helper, traditional-games/search) at
// /traditional-games/, the games' pages and the bots' measured ratings (docs/ratings/<game>.json,
// which the seat choices show) at /docs/, on 127.0.0.1 only.
//
//   node web/serve.js [--port N] [--package DIR] [--egtb DIR]
//
// --port 0 (the default) takes any free port; the address is printed once the server
// listens. --package is the package folder holding traditional-games.js and
// traditional-games.wasm (default: bindings/js of this repository). --egtb names a folder of
// endgame databases, one subfolder per rule set as tools/tg-egtb builds them: served at
// /egtb/SUB/NAME.egtb with HTTP Range requests (the page reads single blocks), and listed at
// /egtb/egtb.json ({"databases":[{"path":"SUB/","files":[...]}]}; without --egtb the empty list
// that the app's own web/egtb/egtb.json is), from which the page's analysis opens them (docs/web.md, "Endgame databases"). The browser tests
// start the same server through startServer().
import { readFile, readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const appDir = fileURLToPath(new URL('.', import.meta.url));
const defaultPackageDir = fileURLToPath(new URL('../bindings/js/', import.meta.url));
// The game pages the How to play panel links to (docs/<game>.md).
const docsDir = fileURLToPath(new URL('../docs/', import.meta.url));

// Module scripts and workers are refused by browsers under any other JavaScript type.
const contentTypes = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

// Only what a page needs: the package's module (its entry and the modules it imports), its
// WebAssembly file, and the app without its tests and its server. scripts/assemble-site.sh
// copies the same files.
export const packageFiles = ['traditional-games.js',
  'traditional-games-constants.js', 'traditional-games-errors.js', 'traditional-games-args.js', 'traditional-games-rng.js',
  'traditional-games-loader.js', 'traditional-games-calls.js', 'traditional-games-rules.js',
  'traditional-games-state.js', 'traditional-games-analysis.js', 'traditional-games-records.js',
  'traditional-games.wasm',
  'traditional-games-search.js', 'traditional-games-search-worker.js', 'traditional-games-egtb-core.js'];
// The endgame databases' reader's two dependencies, which the page imports from here (egtb.js).
export const dependencyFiles = {
  'fzstd.js': 'node_modules/fzstd/esm/index.mjs',
  'xxhash-wasm.js': 'node_modules/xxhash-wasm/esm/xxhash-wasm.js',
};
const appPrivate = ['test/', 'node_modules/', 'bench/', 'serve.js'];

function resolve(urlPath, packageDir) {
  const prefix = '/traditional-games/';
  if (urlPath.startsWith(prefix)) {
    const name = urlPath.slice(prefix.length);
    if (Object.hasOwn(dependencyFiles, name)) return join(packageDir, dependencyFiles[name]);
    return packageFiles.includes(name) ? join(packageDir, name) : null;
  }
  const docs = urlPath.match(/^\/docs\/([a-z-]+\.md|ratings\/[a-z-]+\.json)$/);
  if (docs) return join(docsDir, docs[1]);
  const relative = urlPath === '/' ? 'index.html' : urlPath.slice(1);
  if (appPrivate.some((p) => relative === p || relative.startsWith(p))) return null;
  const path = normalize(join(appDir, relative));
  return path.startsWith(appDir) && !path.slice(appDir.length).split(sep).includes('..') ? path : null;
}

// The database folders under `egtbDir` and their files, for /egtb/egtb.json.
async function egtbManifest(egtbDir) {
  const databases = [];
  if (egtbDir) {
    for (const entry of (await readdir(egtbDir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isDirectory()) continue;
      const files = (await readdir(join(egtbDir, entry.name))).filter((f) => /^[a-z-]+-\d\d\.egtb$/.test(f)).sort();
      if (files.length) databases.push({ path: `${entry.name}/`, files });
    }
  }
  return JSON.stringify({ databases });
}

// A database file (/egtb/SUB/NAME.egtb), whole or the one byte range asked for.
async function sendEgtbFile(req, res, egtbDir, urlPath) {
  const match = urlPath.match(/^\/egtb\/([A-Za-z0-9._-]+)\/([a-z-]+-\d\d\.egtb)$/);
  if (!egtbDir || !match || match[1].startsWith('.')) return false;
  let body;
  try {
    body = await readFile(join(egtbDir, match[1], match[2]));
  } catch {
    return false;
  }
  const headers = { 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' };
  // bytes=FIRST-LAST, or bytes=-N (the last N: the page reads a file's trailer so).
  const range = /^bytes=(\d*)-(\d+)$/.exec(req.headers.range ?? '');
  let first = -1, last = -1;
  if (range && range[1] === '') [first, last] = [Math.max(0, body.length - Number(range[2])), body.length - 1];
  else if (range) [first, last] = [Number(range[1]), Number(range[2])];
  if (range && first <= last && last < body.length) {
    const part = body.subarray(first, last + 1);
    res.writeHead(206, { ...headers, 'Content-Length': part.length, 'Content-Range': `bytes ${first}-${last}/${body.length}` });
    res.end(req.method === 'HEAD' ? undefined : part);
  } else if (range) {
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${body.length}` });
    res.end();
  } else {
    res.writeHead(200, { ...headers, 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
  return true;
}

export function startServer({ port = 0, packageDir = defaultPackageDir, egtbDir = null } = {}) {
  const server = createServer(async (req, res) => {
    let path = null;
    try {
      path = resolve(decodeURIComponent(new URL(req.url, 'http://localhost').pathname), packageDir);
    } catch {
      // a malformed escape: answered as not found
    }
    // The page asks tg-server who its visitor is; here there are no accounts, and it is told
    // so (answered, not refused: a refusal is an error on the page's console).
    if (req.method === 'POST' && req.url === '/account/whoami') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end('{"name":null,"accounts":false}');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') path = null;
    const urlPath = new URL(req.url, 'http://localhost').pathname;
    if (path !== null && urlPath === '/egtb/egtb.json') {
      res.writeHead(200, { 'Content-Type': contentTypes['.json'], 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : await egtbManifest(egtbDir));
      return;
    }
    if (path !== null && urlPath.startsWith('/egtb/') && await sendEgtbFile(req, res, egtbDir, urlPath)) return;
    try {
      if (path === null) throw new Error('not served');
      const body = await readFile(path);
      // Development: every reload must see the files as they are now.
      res.writeHead(200, {
        'Content-Type': contentTypes[extname(path)] ?? 'application/octet-stream',
        'Cache-Control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found\n');
    }
  });
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolveListen(server));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  const args = process.argv.slice(2);
  let port = 0;
  let packageDir = defaultPackageDir;
  let egtbDir = null;
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === '--port') port = Number(args[i + 1]);
    else if (args[i] === '--package') packageDir = args[i + 1];
    else if (args[i] === '--egtb') egtbDir = args[i + 1];
    else {
      console.error('usage: node serve.js [--port N] [--package DIR] [--egtb DIR]');
      process.exit(2);
    }
  }
  const server = await startServer({ port, packageDir, egtbDir });
  console.log(`web board: http://127.0.0.1:${server.address().port}/  (Ctrl-C stops it)`);
}
