// traditional-games/learning: the learning interface on typed arrays (docs/learning.md).
//
//   import { load } from 'traditional-games';
//   import { learning } from 'traditional-games/learning';
//   const tg = await load();
//   const { VectorEnv } = learning(tg);
//   const rules = new tg.Rules('halusa');
//   rules.observationShape;                 // [20]
//   const state = new tg.State(rules);
//   state.observation(0);                   // Float32Array(20)
//   state.actionMask();                     // Uint8Array(6)
//   const env = new VectorEnv('halusa', 1024, 1n);
//   let [obs, info] = env.reset();
//   [obs, rewards, terminated, truncated, info] = env.step(actions);
//
// learning(tg) adds observationShape, observationLayout and actionCount to tg.Rules, and
// observation(), actionMask(), actionToMove(), moveToAction() and applyAction() to tg.State, and
// returns the VectorEnv class of that instance. Every rule and every number is the C library's.

const attached = new WeakMap();
const SIZE_MAX = 0xffffffff; // size_t in wasm32
const U64_MASK = (1n << 64n) - 1n;

function integer(value, what, min, max) {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`${what} must be an integer in ${min}..${max}, not ${String(value)}`);
  }
  return value;
}

function seedArg(seed) {
  if (typeof seed === 'bigint') return seed & U64_MASK;
  if (Number.isSafeInteger(seed) && seed >= 0) return BigInt(seed);
  throw new TypeError(`a seed must be a bigint or a non-negative safe integer, not ${String(seed)}`);
}

/** The learning interface of one loaded instance (the result of load()). */
export function learning(tg) {
  const done = attached.get(tg);
  if (done) return done;
  const { wasm, check, rulesHandle, stateHandle } = tg._internal;
  const memory = tg.memory;

  function alloc(size) {
    const ptr = wasm.malloc(Math.max(size, 1)) >>> 0;
    if (ptr === 0) check(2, 'allocating wasm memory');
    return ptr;
  }

  function sizesOf(rulesPtr) {
    return [wasm.tg_rules_observation_size(rulesPtr) >>> 0, wasm.tg_rules_action_count(rulesPtr) >>> 0];
  }

  // A call that writes into a temporary block of wasm memory; the result copied out.
  function withBlock(size, fn) {
    const ptr = alloc(size);
    try {
      return fn(ptr);
    } finally {
      wasm.free(ptr);
    }
  }

  const out32 = alloc(8);

  Object.defineProperties(tg.Rules.prototype, {
    observationShape: { get() { return [wasm.tg_rules_observation_size(rulesHandle(this)) >>> 0]; } },
    observationLayout: {
      get() {
        check(wasm.tg_rules_observation_layout(rulesHandle(this), out32, out32 + 4), 'observationLayout');
        const v = new Uint32Array(memory.buffer, out32, 2);
        return [v[0], v[1]];
      },
    },
    actionCount: { get() { return wasm.tg_rules_action_count(rulesHandle(this)) >>> 0; } },
  });

  Object.assign(tg.State.prototype, {
    /** The observation by `player` (0 or 1): a Float32Array (docs/learning.md, "Layout"). */
    observation(player) {
      const handle = stateHandle(this);
      integer(player, 'player', -(2 ** 31), 2 ** 31 - 1);
      const [size] = sizesOf(wasm.tg_state_rules(handle));
      return withBlock(4 * size, (ptr) => {
        check(wasm.tg_state_observation(handle, player, ptr, size), `observation by player ${player}`);
        return new Float32Array(memory.buffer, ptr, size).slice();
      });
    },
    /** The legal actions now: a Uint8Array of actionCount entries, 1 where legal. */
    actionMask() {
      const handle = stateHandle(this);
      const [, count] = sizesOf(wasm.tg_state_rules(handle));
      return withBlock(count, (ptr) => {
        check(wasm.tg_state_action_mask(handle, ptr, count), 'actionMask');
        return new Uint8Array(memory.buffer, ptr, count).slice();
      });
    },
    /** The legal move an action stands for now (IllegalMove if none). */
    actionToMove(action) {
      const handle = stateHandle(this);
      check(wasm.tg_state_action_to_move(handle, integer(action, 'action', 0, SIZE_MAX), out32),
        `action ${action}`);
      return new Uint32Array(memory.buffer, out32, 1)[0];
    },
    /** The action of a legal decision (IllegalMove if it is not one now). */
    moveToAction(move) {
      const handle = stateHandle(this);
      check(wasm.tg_state_move_to_action(handle, integer(move, 'move', 0, 0xffffffff), out32),
        `move ${move}`);
      return new Uint32Array(memory.buffer, out32, 1)[0];
    },
    /** Apply the move an action stands for (recorded in the undo history). */
    applyAction(action) {
      check(wasm.tg_state_apply_action(stateHandle(this), integer(action, 'action', 0, SIZE_MAX)),
        `action ${action}`);
    },
  });

  const registry = new FinalizationRegistry((blocks) => {
    wasm.tg_batch_free(blocks.batch);
    for (const ptr of blocks.buffers) wasm.free(ptr);
  });

  /**
   * n games of one rule set stepped by one call (a tg_batch), shaped as Gymnasium's vector API
   * on typed arrays, laid out game after game: reset(seed) -> [obs, info] and step(actions) ->
   * [obs, rewards, terminated, truncated, info]. The arrays are views of the library's output
   * buffers, rewritten in place by each call (copy to keep).
   */
  class VectorEnv {
    #batch = 0;
    #blocks;
    #ptr;
    #views = null;
    #buffer = null;

    constructor(spec = 'halusa', n = 1, seed = 0n, { autoreset = true } = {}) {
      integer(n, 'n', 1, 2 ** 24);
      this.rules = spec instanceof tg.Rules ? new tg.Rules(spec.spec) : new tg.Rules(spec);
      this.numEnvs = n;
      const [size, actions] = sizesOf(rulesHandle(this.rules));
      this.observationShape = [size];
      this.actionCount = actions;
      this.flags = autoreset ? 1 : 0;
      const sizes = { obs: 4 * n * size, masks: n * actions, players: n, reward: 4 * n,
        rewards: 8 * n, done: n, truncated: n, status: 4 * n, actions: 4 * n };
      this.#ptr = {};
      this.#blocks = { batch: 0, buffers: [] };
      for (const [name, bytes] of Object.entries(sizes)) {
        this.#ptr[name] = alloc(bytes);
        this.#blocks.buffers.push(this.#ptr[name]);
      }
      new Uint8Array(memory.buffer, this.#ptr.truncated, n).fill(0);
      check(wasm.tg_batch_new(rulesHandle(this.rules), n, seedArg(seed), out32), 'new VectorEnv');
      this.#batch = new Uint32Array(memory.buffer, out32, 1)[0];
      this.#blocks.batch = this.#batch;
      registry.register(this, this.#blocks, this);
      this.reset();
    }

    #handle() {
      if (!this.#batch) throw new TypeError('operation on a freed VectorEnv');
      return this.#batch;
    }

    // Views are re-made when the memory grew (which detaches the old ones).
    #out() {
      if (this.#buffer !== memory.buffer) {
        const b = memory.buffer, p = this.#ptr, n = this.numEnvs;
        this.#buffer = b;
        const masks = new Uint8Array(b, p.masks, n * this.actionCount);
        const players = new Int8Array(b, p.players, n);
        const rewards = new Float32Array(b, p.rewards, 2 * n);
        const status = new Int32Array(b, p.status, n);
        this.#views = {
          obs: new Float32Array(b, p.obs, n * this.observationShape[0]),
          reward: new Float32Array(b, p.reward, n),
          done: new Uint8Array(b, p.done, n),
          truncated: new Uint8Array(b, p.truncated, n),
          actions: new Uint32Array(b, p.actions, n),
          info: { actionMask: masks, player: players, rewards, status },
        };
      }
      return this.#views;
    }

    /** Start every game again (seeding the generators first if `seed` is given). */
    reset(seed) {
      const handle = this.#handle();
      if (seed !== undefined) check(wasm.tg_batch_seed(handle, seedArg(seed)), 'seed');
      check(wasm.tg_batch_reset(handle, this.#ptr.obs, this.#ptr.masks, this.#ptr.players), 'reset');
      const v = this.#out();
      v.reward.fill(0);
      v.done.fill(0);
      v.info.rewards.fill(0);
      v.info.status.fill(0);
      return [v.obs, v.info];
    }

    /** One action per game; bad ones are refused game by game (info.status), never thrown. */
    step(actions) {
      const handle = this.#handle();
      if (actions.length !== this.numEnvs) {
        throw new TypeError(`step needs ${this.numEnvs} actions, not ${actions.length}`);
      }
      const v = this.#out();
      v.actions.set(actions);
      const p = this.#ptr;
      wasm.tg_batch_step(handle, p.actions, this.flags, p.obs, p.masks, p.players, p.reward,
        p.rewards, p.done, p.status);
      return [v.obs, v.reward, v.done, v.truncated, v.info];
    }

    /** A copy of game i's position (a new State, ply included, no history). */
    state(i) {
      integer(i, 'i', 0, this.numEnvs - 1);
      const state = new tg.State(this.rules);
      check(wasm.tg_batch_get(this.#handle(), i, stateHandle(state)), `game ${i}`);
      return state;
    }

    /** Game i's generator state now. */
    rngState(i) {
      integer(i, 'i', 0, this.numEnvs - 1);
      check(wasm.tg_batch_rng(this.#handle(), i, out32), `game ${i}`);
      return new BigUint64Array(memory.buffer, out32, 1)[0];
    }

    free() {
      if (!this.#batch) return;
      registry.unregister(this);
      wasm.tg_batch_free(this.#batch);
      for (const ptr of this.#blocks.buffers) wasm.free(ptr);
      this.#batch = 0;
      this.rules.free();
    }

    [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
      this.free();
    }
  }

  const result = Object.freeze({ VectorEnv });
  attached.set(tg, result);
  return result;
}
