// The examples of docs/javascript.md and docs/learning.md, run as written so that they cannot
// rot: each ```js block right after a line `<!-- doc-examples.test.js: run -->`, written into
// a scratch folder inside the package (so that `import ... from 'traditional-games'` resolves
// to this package by its own name) and run by this Node. Reads the source tree's docs/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const MARK = '<!-- doc-examples.test.js: run -->';
const docs = fileURLToPath(new URL('../../../docs/', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));

/** The ```js blocks that follow the mark, in order. */
export function markedBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  lines.forEach((line, i) => {
    if (line.trim() !== MARK) return;
    if (lines[i + 1]?.trim() !== '```js') {
      throw new Error(`line ${i + 1}: the mark must be followed by a \`\`\`js line`);
    }
    const end = lines.indexOf('```', i + 2);
    if (end < 0) throw new Error(`line ${i + 1}: the block does not end`);
    blocks.push(lines.slice(i + 2, end).join('\n') + '\n');
  });
  return blocks;
}

test('the marked examples of the docs run and print', () => {
  const scratch = mkdtempSync(path.join(here, '.doc-examples-'));
  const counts = {};
  try {
    for (const doc of ['javascript.md', 'learning.md']) {
      const blocks = markedBlocks(readFileSync(path.join(docs, doc), 'utf8'));
      counts[doc] = blocks.length;
      blocks.forEach((code, k) => {
        const file = path.join(scratch, `${path.basename(doc, '.md')}-${k + 1}.mjs`);
        writeFileSync(file, code);
        const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 300_000 });
        assert.equal(run.status, 0, `${doc} example ${k + 1}:\n${run.stderr}`);
        assert.ok(run.stdout.trim(), `${doc} example ${k + 1} printed nothing`);
      });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  // The rollout and the turn-by-turn game of javascript.md, and learning.md's JavaScript one.
  assert.deepEqual(counts, { 'javascript.md': 2, 'learning.md': 1 });
});

test('a mark without a js block is an error', () => {
  assert.throws(() => markedBlocks(`${MARK}\n\`\`\`python\nprint(1)\n\`\`\`\n`), /must be followed/);
  assert.deepEqual(markedBlocks(`${MARK}\n\`\`\`js\nconsole.log(1);\n\`\`\`\n`), ['console.log(1);\n']);
});
