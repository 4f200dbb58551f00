// With an older library setting (no ESNext.Disposable) the declarations still compile, and
// [Symbol.dispose] is still callable.
import { load, type State } from '../../traditional-games.js';

export async function freeTwice(): Promise<void> {
  const tg = await load();
  const state: State = new tg.State('tab');
  state[Symbol.dispose]();
  state.free();
}
