// The bots think here, in their own instance of the library, so that a long search never
// holds up the page. A request carries the position string (the bot needs no history), the
// bot spec and the generator state; the answer is the chosen move and the advanced state, so
// a seed still gives one game whichever thread the bot ran on.
import { load, Rng } from './traditional-games/traditional-games.js';

const ready = load();

self.addEventListener('message', async (event) => {
  const { id, spec, position, bot, rng, kind } = event.data;
  try {
    const tg = await ready;
    const state = tg.State.fromString(spec, position);
    try {
      const generator = new Rng(BigInt(rng));
      if (kind === 'analyse') {
        // The engine's value of every legal move (state.analyse), for the hint and the
        // analysis mode; the page's own generator is not advanced by it.
        const analysis = state.analyse(bot, generator).map(({ move, name, value, proven }) => ({ move, name, value, proven }));
        self.postMessage({ id, analysis });
        return;
      }
      const move = state.botChoose(bot, generator);
      self.postMessage({ id, move, rng: generator.state.toString() });
    } finally {
      state.free();
    }
  } catch (error) {
    self.postMessage({ id, error: error?.message ?? String(error) });
  }
});
