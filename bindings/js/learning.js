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
const U64_MASK = (1n << 64n) - 1n;

function integer(value, what, min, max) {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`${what} must be an integer in ${min}..${max}, not ${String(value)}`);
  }
  return value;
}

const SHOWN = 5; // bad actions named in one message; the rest are counted

function shown(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value !== null && typeof value === 'object') return Array.isArray(value) ? 'an array' : `a ${value.constructor?.name ?? 'object'}`;
  return String(value);
}

function refusals(actions, games, why) {
  const named = games.slice(0, SHOWN).map((i) => `game ${i}: ${shown(actions[i])}`).join(', ');
  const more = games.length > SHOWN ? ` and ${games.length - SHOWN} more` : '';
  return `actions refused, nothing stepped (${why}): ${named}${more}`;
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

  // An action of a single state: TypeError if not an integer, InvalidArgument naming the real
  // value if outside the action space (as VectorEnv.step and Python's apply_action say it).
  function actionArg(handle, action) {
    const [, count] = sizesOf(wasm.tg_state_rules(handle));
    if (typeof action !== 'number' || !Number.isInteger(action)) {
      throw new TypeError(`action ${shown(action)} is not an action: actions are integers 0 .. ${count - 1}`);
    }
    if (action < 0 || action >= count) check(1, `action ${shown(action)} (actions are 0 .. ${count - 1})`);
    return action;
  }

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
      check(wasm.tg_state_action_to_move(handle, actionArg(handle, action), out32),
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
      const handle = stateHandle(this);
      check(wasm.tg_state_apply_action(handle, actionArg(handle, action)),
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
   * [obs, rewards, terminated, truncated, info]. Every array handed out lives outside wasm
   * memory: new arrays each call (copy: true, the default), or the environment's own arrays,
   * rewritten in place by its next call (copy: false). Neither goes stale when wasm memory
   * grows, and none reads the library's memory after free().
   */
  class VectorEnv {
    #batch = 0;
    #blocks;
    #ptr;
    #views = null;
    #buffer = null;
    #kept = null;

    constructor(spec = 'halusa', n = 1, seed = 0n, { autoreset = true, copy = true } = {}) {
      integer(n, 'n', 1, 2 ** 24);
      this.rules = spec instanceof tg.Rules ? new tg.Rules(spec.spec) : new tg.Rules(spec);
      this.numEnvs = n;
      const [size, actions] = sizesOf(rulesHandle(this.rules));
      this.observationShape = [size];
      this.actionCount = actions;
      this.autoreset = Boolean(autoreset);
      this.copy = Boolean(copy);
      const seedBits = seedArg(seed);
      const sizes = { obs: 4 * n * size, masks: n * actions, players: n, reward: 4 * n,
        rewards: 8 * n, done: n, status: 4 * n, actions: 4 * n };
      this.#ptr = {};
      this.#blocks = { batch: 0, buffers: [] };
      try {
        for (const [name, bytes] of Object.entries(sizes)) {
          this.#ptr[name] = alloc(bytes);
          this.#blocks.buffers.push(this.#ptr[name]);
        }
        check(wasm.tg_batch_new(rulesHandle(this.rules), n, seedBits, out32), 'new VectorEnv');
      } catch (e) {
        // Out of memory part way: nothing is kept.
        for (const ptr of this.#blocks.buffers) wasm.free(ptr);
        this.rules.free();
        throw e;
      }
      if (!this.copy) {
        this.#kept = {
          obs: new Float32Array(n * size), reward: new Float32Array(n), done: new Uint8Array(n),
          truncated: new Uint8Array(n), masks: new Uint8Array(n * actions),
          players: new Int8Array(n), rewards: new Float32Array(2 * n), status: new Int32Array(n),
        };
      }
      this.#batch = new Uint32Array(memory.buffer, out32, 1)[0];
      this.#blocks.batch = this.#batch;
      registry.register(this, this.#blocks, this);
      this.reset();
    }

    #handle() {
      if (!this.#batch) throw new TypeError('this VectorEnv has been freed');
      return this.#batch;
    }

    // Views of the library's output buffers, for this module only: made again when the memory
    // grew (which detaches the old ones), and never handed out (see #out).
    #wasmViews() {
      if (this.#buffer !== memory.buffer) {
        const b = memory.buffer, p = this.#ptr, n = this.numEnvs;
        this.#buffer = b;
        this.#views = {
          obs: new Float32Array(b, p.obs, n * this.observationShape[0]),
          masks: new Uint8Array(b, p.masks, n * this.actionCount),
          players: new Int8Array(b, p.players, n),
          reward: new Float32Array(b, p.reward, n),
          rewards: new Float32Array(b, p.rewards, 2 * n),
          done: new Uint8Array(b, p.done, n),
          status: new Int32Array(b, p.status, n),
          actions: new Uint32Array(b, p.actions, n),
        };
      }
      return this.#views;
    }

    // What the caller gets of a buffer: a copy, or the environment's own array rewritten.
    #out(name, view) {
      if (this.copy) return view.slice();
      const kept = this.#kept[name];
      kept.set(view);
      return kept;
    }

    #info(v) {
      return { actionMask: this.#out('masks', v.masks), player: this.#out('players', v.players),
        rewards: this.#out('rewards', v.rewards), status: this.#out('status', v.status) };
    }

    #truncated() {
      return this.copy ? new Uint8Array(this.numEnvs) : this.#kept.truncated;
    }

    /** Start every game again (seeding the generators first if `seed` is given). */
    reset(seed) {
      const handle = this.#handle();
      if (seed !== undefined) check(wasm.tg_batch_seed(handle, seedArg(seed)), 'seed');
      check(wasm.tg_batch_reset(handle, this.#ptr.obs, this.#ptr.masks, this.#ptr.players), 'reset');
      const v = this.#wasmViews();
      v.reward.fill(0);
      v.done.fill(0);
      v.rewards.fill(0);
      v.status.fill(0);
      return [this.#out('obs', v.obs), { ...this.#info(v), finalObs: null, finalPlayer: null }];
    }

    /**
     * One action per game, each an integer in 0 .. actionCount - 1; anything else (a float,
     * NaN, a string, a bigint, a number out of range) throws naming the games, and no game
     * steps. An action in that range that is not legal now is refused by the library for that
     * game alone (info.status), while the others step.
     */
    step(actions) {
      const handle = this.#handle();
      const n = this.numEnvs;
      let v = this.#wasmViews();
      checkActions(actions, n, this.actionCount);
      v.actions.set(actions);
      const p = this.#ptr;
      // Without the library's autoreset, so that the ended games' last observations are read
      // before tg_batch_restart() starts exactly the games autoreset would have.
      wasm.tg_batch_step(handle, p.actions, 0, p.obs, p.masks, p.players, p.reward, p.rewards,
        p.done, p.status);
      v = this.#wasmViews();
      let finalObs = null, finalPlayer = null;
      if (this.autoreset && v.done.includes(1)) {
        const size = this.observationShape[0];
        finalObs = new Float32Array(n * size);
        finalPlayer = new Int8Array(n);
        for (let i = 0; i < n; i++) {
          if (!v.done[i]) continue;
          finalObs.set(v.obs.subarray(i * size, (i + 1) * size), i * size);
          finalPlayer[i] = v.players[i];
        }
        check(wasm.tg_batch_restart(handle, p.done, p.obs, p.masks, p.players),
          'restart of the ended games');
      }
      return [this.#out('obs', v.obs), this.#out('reward', v.reward), this.#out('done', v.done),
        this.#truncated(), { ...this.#info(v), finalObs, finalPlayer }];
    }

    /** A copy of game i's position (a new State, ply included, no history). */
    state(i) {
      const handle = this.#handle();
      integer(i, 'i', 0, this.numEnvs - 1);
      const state = new tg.State(this.rules);
      check(wasm.tg_batch_get(handle, i, stateHandle(state)), `game ${i}`);
      return state;
    }

    /** Game i's generator state now. */
    rngState(i) {
      const handle = this.#handle();
      integer(i, 'i', 0, this.numEnvs - 1);
      check(wasm.tg_batch_rng(handle, i, out32), `game ${i}`);
      return new BigUint64Array(memory.buffer, out32, 1)[0];
    }

    /** Release the library's memory; every later call throws (the arrays handed out stay). */
    free() {
      if (!this.#batch) return;
      registry.unregister(this);
      wasm.tg_batch_free(this.#batch);
      for (const ptr of this.#blocks.buffers) wasm.free(ptr);
      this.#batch = 0;
      this.#views = null;
      this.#buffer = null;
      this.rules.free();
    }

    /** Whether free() was called. */
    get freed() {
      return this.#batch === 0;
    }

    [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
      this.free();
    }
  }

  // Actions outside the action space are the caller's mistake, refused before anything steps
  // (see step); reported by game, as Python's VectorEnv does.
  function checkActions(actions, n, count) {
    if (actions === null || typeof actions !== 'object' || typeof actions.length !== 'number') {
      throw new TypeError(`step needs ${n} actions (an array of integers 0 .. ${count - 1}), ` +
        `not ${shown(actions)}`);
    }
    if (actions.length !== n) {
      throw new TypeError(`step needs ${n} actions, not ${actions.length}`);
    }
    let notIntegers = null, outOfRange = null;
    for (let i = 0; i < n; i++) {
      const a = actions[i];
      if (typeof a !== 'number' || !Number.isInteger(a)) (notIntegers ??= []).push(i);
      else if (a < 0 || a >= count) (outOfRange ??= []).push(i);
    }
    const why = `actions are integers 0 .. ${count - 1}`;
    if (notIntegers) throw new TypeError(refusals(actions, notIntegers, why));
    if (outOfRange) check(1, refusals(actions, outOfRange, `out of range: ${why}`));
  }
  const result = Object.freeze({ VectorEnv });
  attached.set(tg, result);
  return result;
}
