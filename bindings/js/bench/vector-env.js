// VectorEnv.step's steps per second with copies (copy: true, the default) against the
// environment's own arrays rewritten in place (copy: false), in one run (docs/javascript.md,
// "Speed"): what handing out arrays that outlive wasm memory growth and free() costs.
//
//   node bench/vector-env.js [--rounds N] [--seconds S] [--n N] [SPEC...]   (default: halusa tab)
//
// Each round times both, one after the other, on the same seed and the same actions (the
// first legal action from an offset that changes every step, chosen in JavaScript: that
// time is included, as a training loop pays it); the figures are medians over the rounds.
import { load } from '../traditional-games.js';
import { learning } from '../learning.js';

const args = process.argv.slice(2);
let rounds = 5;
let seconds = 1;
let n = 1024;
const specs = [];
while (args.length) {
  const arg = args.shift();
  if (arg === '--rounds') rounds = Number(args.shift());
  else if (arg === '--seconds') seconds = Number(args.shift());
  else if (arg === '--n') n = Number(args.shift());
  else specs.push(arg);
}
if (!(rounds > 0) || !(seconds > 0) || !Number.isInteger(n) || n < 1) {
  console.error('usage: node bench/vector-env.js [--rounds N] [--seconds S] [--n N] [SPEC...]');
  process.exit(2);
}
if (specs.length === 0) specs.push('halusa', 'tab');

const tg = await load();
const { VectorEnv } = learning(tg);

function stepsPerSecond(spec, copy) {
  const env = new VectorEnv(spec, n, 1n, { copy });
  try {
    const count = env.actionCount;
    const actions = new Uint32Array(n);
    let [, info] = env.reset();
    let steps = 0;
    const t0 = performance.now();
    let t = t0;
    for (let k = 0; t - t0 < seconds * 1000; k++) {
      const mask = info.actionMask;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < count; j++) {
          const a = (k + j) % count;
          if (mask[i * count + a]) {
            actions[i] = a;
            break;
          }
        }
      }
      [, , , , info] = env.step(actions);
      steps += n;
      t = performance.now();
    }
    return steps / ((t - t0) / 1000);
  } finally {
    env.free();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const millions = (x) => `${(x / 1e6).toFixed(3)} M`;

console.log(`libtraditional-games ${tg.version}, Node ${process.versions.node}, n=${n}, ` +
  `${rounds} rounds of ${seconds} s`);
console.log('| rule set | copy: true steps/s | copy: false steps/s | copy: true / copy: false |');
console.log('|---|---|---|---|');
for (const spec of specs) {
  stepsPerSecond(spec, true); // warm the JIT up
  const copies = [], own = [], ratios = [];
  for (let r = 0; r < rounds; r++) {
    const a = stepsPerSecond(spec, true);
    const b = stepsPerSecond(spec, false);
    copies.push(a);
    own.push(b);
    ratios.push(a / b);
  }
  console.log(`| \`${new tg.Rules(spec).spec}\` | ${millions(median(copies))} | ` +
    `${millions(median(own))} | ${median(ratios).toFixed(2)} |`);
}
