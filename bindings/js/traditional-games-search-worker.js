// The Worker that traditional-games-search.js starts: its own instance of the library, running
// one search at a time for the thread that sent it. A search stops early when the sender sets
// the shared stop flag to that request's id (the library reads it through its clock), so an
// aborted request comes back within milliseconds and the Worker is free again.
import { load, Rng } from './traditional-games.js';

const threads = globalThis.process?.getBuiltinModule?.('node:worker_threads') ?? null;
const port = threads?.parentPort ?? null;
const send = port ? (message) => port.postMessage(message) : (message) => self.postMessage(message);

let current = 0;
let ready = null;

function start({ wasm, flag }) {
  const stop = flag ? new Int32Array(flag) : null;
  const shouldStop = stop ? () => Atomics.load(stop, 0) === current : null;
  ready = load(wasm, { shouldStop, liveStatesWarning: Infinity });
}

async function run({ id, op, spec, position, bot, rng }) {
  current = id;
  try {
    const tg = await ready;
    const state = tg.State.fromString(spec, position);
    try {
      const generator = new Rng(BigInt(rng));
      const result = op === 'analyse' ? state.analyse(bot, generator) : state.botChoose(bot, generator);
      send({ id, result, rng: generator.state.toString() });
    } finally {
      state.free();
    }
  } catch (error) {
    send({ id, error: { name: error?.name ?? 'Error', message: error?.message ?? String(error), status: error?.status } });
  }
}

function receive(message) {
  if (message.op === 'start') start(message);
  else run(message);
}

if (port) port.on('message', receive);
else self.addEventListener('message', (event) => receive(event.data));
