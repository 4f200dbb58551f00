// Compiled (never run) by learning.test.js: a typical use of traditional-games/learning
// type-checks, and each @ts-expect-error line must be an error.
import { load } from 'traditional-games';
import { learning } from 'traditional-games/learning';
const tg = await load();
const { VectorEnv } = learning(tg);
const rules = new tg.Rules('halusa');
const n: number = rules.actionCount;
const env = new VectorEnv(rules, 8, 1n);
const [obs, info] = env.reset();
const [o2, r, te, tr, i2] = env.step(new Uint32Array(8));
const f: Float32Array = obs; const m: Uint8Array = info.actionMask;
void n; void f; void m; void o2; void r; void te; void tr; void i2;
const s = new tg.State(rules);
const x: Float32Array = s.observation(0);
void x;
// @ts-expect-error an action is a number, not a move string
s.applyAction('b1');
// @ts-expect-error step takes the actions
env.step();
// Copies or the environment's own arrays; a final observation only where games ended.
const own = new VectorEnv('tab', 4, 2n, { copy: false, autoreset: true });
const [, , , , stepInfo] = own.step([0, 0, 0, 0]);
const finalObs: Float32Array | null = stepInfo.finalObs;
const finalPlayer: Int8Array | null = stepInfo.finalPlayer;
const freed: boolean = own.freed;
void finalObs; void finalPlayer; void freed;
// @ts-expect-error finalObs may be null: it is there only after games ended
stepInfo.finalObs.length;
// @ts-expect-error copy is a boolean
new VectorEnv('tab', 4, 2n, { copy: 'yes' });
