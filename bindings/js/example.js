// A whole game between two built-in bots, then a rejected move: `node example.js [SEED]`.
import { load, Rng, TGError } from 'traditional-games';

const tg = await load();
const rng = new Rng(BigInt(process.argv[2] ?? 7)); // one seed, one game, on every platform

for (const game of tg.games()) console.log(`${game.id}: ${game.name}`);

const state = new tg.State('hawalis');
try {
  console.log('first moves:', state.legalMoveNames().join(' '));
  state.apply('c2'); // a move in notation (or as a number)
  while (!state.isTerminal) {
    state.playBot(state.turn === 0 ? 'mcts:iterations=200' : 'greedy', rng);
  }
  console.log(state.render());
  console.log(`winner: ${state.winner}, scores: ${state.scores.join('-')}, after ${state.ply} plies`);
  console.log(`position: ${state.toString()}`);
  console.log(`hash: ${state.hash}, generator: ${rng.state}`);
} finally {
  state.free();
}

try {
  new tg.State('halusa').apply('z9');
} catch (e) {
  if (!(e instanceof TGError)) throw e;
  console.log(`rejected: ${e.code}`); // TG_ERR_PARSE
}
