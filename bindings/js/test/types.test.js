// The TypeScript declarations, checked by the TypeScript compiler (npm `typescript`, from
// package-lock.json): a typed use compiles, and each wrong use marked @ts-expect-error fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function typeCheck(config) {
  const project = fileURLToPath(new URL(`./types/${config}`, import.meta.url));
  const run = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc -p ${config} failed:\n${run.stdout}${run.stderr}`);
}

test('traditional-games.d.ts type-checks a typical program (with `using`) and rejects wrong uses', () => {
  typeCheck('tsconfig.json');
});

test('traditional-games.d.ts compiles without the ESNext.Disposable library too', () => {
  typeCheck('tsconfig.es2022.json');
});
