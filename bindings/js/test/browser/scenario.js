// One seeded game per rule set, the same in every host: the browser check compares a page's
// answers with Node's.
import { Rng } from '../../traditional-games.js';

export function playAll(tg) {
  const answers = {};
  for (const game of tg.games()) {
    const state = new tg.State(game.id);
    const rng = new Rng(2026n);
    while (!state.isTerminal) state.playBot(state.turn === 0 ? 'mcts:iterations=200' : 'greedy', rng);
    answers[game.id] = `${state} ${state.hash} ${rng.state}`;
    state.free();
  }
  return answers;
}
