// The TypeScript declarations, checked by the TypeScript compiler (npm `typescript`, from
// package-lock.json): a typed use compiles, and each wrong use marked @ts-expect-error fails;
// and every public name carries the documentation an editor shows on hover.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const ts = require('typescript');

function typeCheck(config) {
  const project = fileURLToPath(new URL(`./types/${config}`, import.meta.url));
  const run = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc -p ${config} failed:\n${run.stdout}${run.stderr}`);
}

test('traditional-games.d.ts type-checks a typical program with lib ES2022 and @types/node, no DOM', () => {
  typeCheck('tsconfig.json');
});

test('traditional-games.d.ts compiles with lib ES2022 alone (no DOM, no @types/node, no Disposable)', () => {
  typeCheck('tsconfig.es2022.json');
});

test('traditional-games.d.ts type-checks the same program with the DOM library (browsers)', () => {
  typeCheck('tsconfig.dom.json');
});

test('every declaration and member of the .d.ts has a documentation comment', () => {
  const files = ['traditional-games.d.ts', 'traditional-games-search.d.ts', 'traditional-games-egtb.d.ts'];
  const undocumented = [];
  for (const file of files) {
    const path = fileURLToPath(new URL(`../${file}`, import.meta.url));
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    const documented = (node) => ts.getJSDocCommentsAndTags(node).length > 0;
    const nameOf = (node) => node.name?.getText(source) ?? ts.SyntaxKind[node.kind];
    const visit = (node, owner) => {
      const exported = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (ts.isVariableStatement(node) && exported) {
        if (!documented(node)) undocumented.push(node.declarationList.declarations[0].name.getText(source));
      } else if ((ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) || ts.isFunctionDeclaration(node)) && exported) {
        if (!documented(node)) undocumented.push(nameOf(node));
        if (!ts.isTypeAliasDeclaration(node) && !ts.isFunctionDeclaration(node)) {
          for (const member of node.members) visit(member, nameOf(node));
        }
        if (ts.isTypeAliasDeclaration(node) && ts.isTypeLiteralNode(node.type)) {
          for (const member of node.type.members) visit(member, nameOf(node));
        }
      } else if (owner && (ts.isPropertySignature(node) || ts.isMethodSignature(node) ||
        ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) || ts.isConstructorDeclaration(node) ||
        ts.isConstructSignatureDeclaration(node))) {
        // A setter shares its getter's comment.
        if (!documented(node)) undocumented.push(`${owner}.${nameOf(node)}`);
      }
    };
    ts.forEachChild(source, (node) => visit(node, null));
  }
  assert.deepEqual(undocumented, []);
});
