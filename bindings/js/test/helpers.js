// What the test files share: one loaded instance, the rule sets from the library's own
// catalogue (never written here, so new options and games are covered as they land), and the
// native library's answers.
import { spawnSync } from 'node:child_process';
import { load } from '../traditional-games.js';

export const tg = await load();

// Every choice of a list option, the default of a range option, as the C conformance battery
// does; plus the defaults with a short quiet limit, so that quiet endings happen too. Specs are
// the library's canonical spelling (tg_rules_spec).
function ruleSets() {
  const specs = new Set();
  for (const game of tg.games()) {
    let combos = [[]];
    for (const option of game.options) {
      const values = option.choices ?? [option.default];
      combos = combos.flatMap((combo) => values.map((v) => [...combo, `${option.key}=${v}`]));
    }
    const quiet = game.options.map((o) => `${o.key}=${o.key === 'quiet' ? 10 : o.default}`);
    if (game.options.some((o) => o.key === 'quiet')) combos.push(quiet);
    for (const combo of combos) {
      const rules = new tg.Rules(combo.length ? `${game.id}:${combo.join(',')}` : game.id);
      specs.add(rules.spec);
      rules.free();
    }
  }
  return [...specs];
}

export const RULE_SETS = ruleSets();

/** The default rule set of each game, in canonical spelling. */
export const DEFAULT_SPECS = tg.games().map((game) => {
  const rules = new tg.Rules(game.id);
  try {
    return rules.spec;
  } finally {
    rules.free();
  }
});

/**
 * Scenarios for bindings/js/test/native-oracle.c, one per line; returns its answers, parsed.
 * TG_NATIVE_ORACLE names the oracle built against the native library (scripts/test-js.sh does
 * that): without it the comparison cannot be made, and the test fails rather than pass idle.
 */
export function native(scenarios) {
  const oracle = process.env.TG_NATIVE_ORACLE;
  if (!oracle) {
    throw new Error('TG_NATIVE_ORACLE is not set: run the JS tests through scripts/test-js.sh, ' +
      'which builds the native oracle');
  }
  const run = spawnSync(oracle, [], {
    input: scenarios.join('\n') + '\n',
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`native oracle failed (${run.status}): ${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  if (lines.length !== scenarios.length) {
    throw new Error(`native oracle answered ${lines.length} of ${scenarios.length} scenarios`);
  }
  return lines.map((line) => JSON.parse(line));
}
