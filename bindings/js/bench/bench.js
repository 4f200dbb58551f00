// WebAssembly playouts per second as a ratio of native, in one run (scripts/bench-wasm.sh).
//
//   node bench/bench.js NATIVE_BENCH [--runs N] [--seconds S] [SPEC...]
//
// For each rule set (default: the five games' defaults), each run plays the same G random playouts
// natively (NATIVE_BENCH, bench/native-bench.c, in its own process) and then here through the
// package's API (State.copyFrom() of the start, then State.playout(), as tg-bench's playout
// loop), with the same seed: the same games, so the plies must agree and only the time
// differs. G is chosen so that a native run lasts about S seconds (default 0.5). Runs
// alternate between the two so that a change in the machine's load hits both; the ratio is the
// median over the runs of wasm rate / native rate.
import { spawnSync } from 'node:child_process';
import { load, Rng } from '../traditional-games.js';

const args = process.argv.slice(2);
const nativeBench = args.shift();
let runs = 7;
let seconds = 0.5;
const specs = [];
while (args.length) {
  const arg = args.shift();
  if (arg === '--runs') runs = Number(args.shift());
  else if (arg === '--seconds') seconds = Number(args.shift());
  else specs.push(arg);
}
if (!nativeBench || !(runs > 0) || !(seconds > 0)) {
  console.error('usage: node bench/bench.js NATIVE_BENCH [--runs N] [--seconds S] [SPEC...]');
  process.exit(2);
}
if (specs.length === 0) specs.push('halusa', 'hus', 'hawalis', 'walak-pussa', 'tab');

const tg = await load();

function native(spec, seed, games) {
  const run = spawnSync(nativeBench, [spec, String(seed), String(games)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${nativeBench} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function wasm(spec, seed, games) {
  const start = new tg.State(spec);
  const scratch = new tg.State(spec);
  const rng = new Rng(BigInt(seed));
  let plies = 0;
  const t0 = performance.now();
  for (let g = 0; g < games; g++) {
    scratch.copyFrom(start);
    plies += scratch.playout(rng, 10000);
  }
  const elapsed = (performance.now() - t0) / 1000;
  start.free();
  scratch.free();
  return { seconds: elapsed, plies };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const format = (n) => Math.round(n).toLocaleString('en-US');

console.log(`libtraditional-games ${tg.version}, Node ${process.versions.node}, ${runs} runs of about ${seconds} s`);
console.log('| rule set | games/run | native playouts/s | wasm playouts/s | wasm / native |');
console.log('|---|---|---|---|---|');
for (const spec of specs) {
  const canonical = new tg.Rules(spec).spec;
  // Warm both up (the JIT, the page cache), and size a run from the native rate.
  wasm(spec, 1, 200);
  const probe = native(spec, 1, 2000);
  const games = Math.max(100, Math.round((2000 * seconds) / Math.max(probe.seconds, 1e-6)));
  const nativeRates = [];
  const wasmRates = [];
  const ratios = [];
  for (let r = 0; r < runs; r++) {
    const seed = 1000 + r;
    const n = native(spec, seed, games);
    const w = wasm(spec, seed, games);
    if (n.plies !== w.plies) {
      throw new Error(`${spec} seed ${seed}: native played ${n.plies} plies, wasm ${w.plies}`);
    }
    nativeRates.push(games / n.seconds);
    wasmRates.push(games / w.seconds);
    ratios.push(n.seconds / w.seconds);
  }
  console.log(`| \`${canonical}\` | ${format(games)} | ${format(median(nativeRates))} | ` +
    `${format(median(wasmRates))} | ${median(ratios).toFixed(2)} |`);
}
