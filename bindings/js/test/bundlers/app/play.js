// The small app every bundle carries: one seeded bot game per game of the catalogue, played
// as native-oracle.c's `game SPEC SEED BOT0 BOT1` scenario plays it, so that the page's
// answers can be compared with the native library's.
import { Rng } from 'traditional-games';

export const SEED = 2026n;
export const BOTS = ['greedy', 'random'];

export function playAll(tg) {
  const answers = {};
  for (const game of tg.games()) {
    const state = new tg.State(game.id);
    const rng = new Rng(SEED);
    const moves = [];
    while (!state.isTerminal) moves.push(state.apply(state.botChoose(BOTS[state.turn], rng)));
    answers[state.spec] = { text: state.toString(), hash: String(state.hash), rng: String(rng.state), ply: state.ply, moves };
    state.free();
  }
  return answers;
}

/** Posts what the page computed (or the error it met) to the test's server. */
export async function report(run) {
  let body;
  try {
    body = JSON.stringify(await run());
  } catch (e) {
    body = JSON.stringify({ error: String(e?.stack ?? e) });
  }
  await fetch(new URL('result', location.href), { method: 'POST', body });
}
