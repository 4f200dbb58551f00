// The package as users get it: `npm pack`, an install of the tarball into an empty folder, and
// programs run from there (the package's example, a program of the user's own, and its types).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

test('npm pack, install the tarball into an empty folder, run programs from there', (t) => {
  const work = mkdtempSync(join(tmpdir(), 'traditional-games-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], packageDir));
  const files = packed[0].files.map((f) => f.path).sort();
  assert.deepEqual(files, ['LICENSE', 'README.md', 'example.js', 'learning.d.ts', 'learning.js',
    'package.json', 'traditional-games-analysis.js', 'traditional-games-args.js',
    'traditional-games-calls.js', 'traditional-games-constants.js',
    'traditional-games-egtb-core.js', 'traditional-games-egtb.d.ts', 'traditional-games-egtb.js',
    'traditional-games-errors.js', 'traditional-games-loader.js', 'traditional-games-records.js',
    'traditional-games-rng.js', 'traditional-games-rules.js',
    'traditional-games-search-worker.js', 'traditional-games-search.d.ts',
    'traditional-games-search.js', 'traditional-games-state.js', 'traditional-games.d.ts',
    'traditional-games.js', 'traditional-games.wasm']);

  const app = join(work, 'app');
  run('mkdir', [app], work);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // The two dependencies (the endgame databases' decompression and checksum) come from npm's
  // cache, filled by `npm ci` in the package folder: the install works offline.
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed[0].filename)], app);
  assert.deepEqual(readdirSync(join(app, 'node_modules')).filter((f) => !f.startsWith('.')).sort(),
    ['fzstd', 'traditional-games', 'xxhash-wasm']);

  const example = run(process.execPath, [join(app, 'node_modules/traditional-games/example.js'), '3'], app);
  assert.match(example, /^winner: [01], scores: \d+-\d+, after \d+ plies$/m);
  assert.match(example, /rejected: TG_ERR_PARSE/);

  writeFileSync(join(app, 'main.js'), [
    "import { load, Rng } from 'traditional-games';",
    'const tg = await load();',
    "const state = new tg.State('tab');",
    'const rng = new Rng(11n);',
    "while (!state.isTerminal) state.playBot(state.turn === 0 ? 'greedy' : 'random', rng);",
    'console.log(state.winner, state.ply, state.hash, rng.state);',
    '',
  ].join('\n'));
  const fromInstall = run(process.execPath, ['main.js'], app);
  const fromTree = run(process.execPath, ['--input-type=module', '-e',
    readFileSync(join(app, 'main.js'), 'utf8').replace("'traditional-games'", "'./traditional-games.js'")], packageDir);
  assert.equal(fromInstall, fromTree);

  // The learning subpath resolves through the package's "exports" too.
  writeFileSync(join(app, 'learn.js'), [
    "import { load } from 'traditional-games';",
    "import { learning } from 'traditional-games/learning';",
    'const { VectorEnv } = learning(await load());',
    "const env = new VectorEnv('halusa', 2, 1n);",
    'console.log(env.actionCount, env.observationShape[0]);',
    '',
  ].join('\n'));
  assert.equal(run(process.execPath, ['learn.js'], app).trim(), '6 20');

  // So does the endgame databases' one, with its dependencies installed beside it: a folder
  // with no database files opens and covers nothing.
  writeFileSync(join(app, 'egtb.js'), [
    "import { load } from 'traditional-games';",
    "import { Egtb } from 'traditional-games/egtb';",
    "const db = await Egtb.open(await load(), '.', 'halusa:quiet=3');",
    'console.log(db.maxCounters(), db.spec);',
    '',
  ].join('\n'));
  assert.equal(run(process.execPath, ['egtb.js'], app).trim(), '0 halusa:remainder=last-mover,quiet=3');

  // require() of the ES module, in a CommonJS program (Node 20.19+ and 22.12+: the versions
  // `engines` names).
  writeFileSync(join(app, 'main.cjs'), [
    "const { load, Rng } = require('traditional-games');",
    'load().then((tg) => {',
    "  const state = new tg.State('tab');",
    '  const rng = new Rng(11n);',
    "  while (!state.isTerminal) state.playBot(state.turn === 0 ? 'greedy' : 'random', rng);",
    '  console.log(state.winner, state.ply, state.hash, rng.state);',
    '});',
    '',
  ].join('\n'));
  const required = spawnSync(process.execPath, ['main.cjs'], { cwd: app, encoding: 'utf8' });
  assert.equal(required.status, 0, required.stderr);
  assert.equal(required.stdout, fromInstall);
  const engines = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).engines.node;
  assert.equal(engines, '^20.19.0 || >=22.12.0');

  // The types resolve through the package's "exports", as a TypeScript user's would, with
  // neither the DOM library nor @types/node.
  writeFileSync(join(app, 'typed.ts'), [
    "import { load, Rng, type State } from 'traditional-games';",
    'const tg = await load();',
    "const state: State = new tg.State('halusa');",
    'const hash: bigint = state.hash;',
    'const mine: number = state.score(state.turn);',
    'void mine;',
    'state.playout(new Rng(1n));',
    "const { Egtb } = await import('traditional-games/egtb');",
    "const db = await Egtb.open(tg, '.', 'halusa');",
    'const exact = await db.probe(state);',
    "const said: string | undefined = exact?.describe();",
    'void said;',
    'export { hash };',
    '',
  ].join('\n'));
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext',
      lib: ['ES2022'], types: [], strict: true, noEmit: true },
    files: ['typed.ts'],
  }));
  run(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')], app);
});
