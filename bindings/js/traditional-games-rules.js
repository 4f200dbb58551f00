// The rule sets of one loaded instance of traditional-games: the catalogue of games, bot
// specs, and the Rules class (tg_rules).

import { Status } from './traditional-games-constants.js';
import { describe, specNulStatus, stringArg } from './traditional-games-args.js';
import { OUT_PTR } from './traditional-games-calls.js';

const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/**
 * The Rules class of one instance (calls: its bindCalls table) and the functions around it.
 * stateClass() gives the instance's State class, made after this one (Rules.newState needs it).
 */
export function bindRules(calls, stateClass) {
  const { wasm, scratch, check, cString, inputText, readU32 } = calls;

  // Rules not freed by their owner are freed when collected. The held value is the pointer
  // alone, never the object, or the object could never be collected.
  const rulesRegistry = new FinalizationRegistry((ptr) => wasm.tg_rules_free(ptr));

  let rulesHandle; // (rules) => pointer, or TypeError: set inside Rules

  function games() {
    const result = [];
    const count = wasm.tg_game_count() >>> 0;
    for (let i = 0; i < count; i++) {
      const options = [];
      const optionCount = wasm.tg_game_option_count(i) >>> 0;
      for (let k = 0; k < optionCount; k++) {
        const values = cString(wasm.tg_game_option_values(i, k));
        const range = /^(\d+)\.\.(\d+)$/.exec(values);
        options.push(Object.freeze({
          key: cString(wasm.tg_game_option_key(i, k)),
          values,
          default: cString(wasm.tg_game_option_default(i, k)),
          choices: range ? null : Object.freeze(values.split('|')),
          range: range ? Object.freeze({ min: Number(range[1]), max: Number(range[2]) }) : null,
        }));
      }
      result.push(Object.freeze({
        id: cString(wasm.tg_game_id(i)),
        name: cString(wasm.tg_game_name(i)),
        options: Object.freeze(options),
      }));
    }
    return result;
  }

  function checkBot(spec) {
    stringArg(spec, 'a bot spec');
    check(wasm.tg_bot_check(inputText(spec, Status.TG_ERR_BAD_OPTION, 'bot spec')), 'bot spec', spec);
  }

  class Rules {
    #ptr = 0;

    static {
      rulesHandle = (rules) => {
        if (!(rules instanceof Rules)) {
          throw new TypeError(`expected a Rules of this loaded library, not ${describe(rules)}`);
        }
        return rules.#handle();
      };
    }

    /** @param {string} [spec] e.g. "halusa" or "halusa:remainder=owner,quiet=50"; "halusa" when
     * omitted (an explicit undefined is a TypeError, as any other non-string) */
    constructor(spec) {
      if (arguments.length === 0) spec = 'halusa';
      stringArg(spec, 'a rule spec');
      const text = inputText(spec, specNulStatus(spec), 'rule spec');
      check(wasm.tg_rules_new(text, scratch + OUT_PTR), 'rule spec', spec);
      this.#ptr = readU32(scratch + OUT_PTR);
      rulesRegistry.register(this, this.#ptr, this);
    }

    static games() {
      return games();
    }

    #handle() {
      if (this.#ptr === 0) throw new TypeError('this Rules has been freed');
      return this.#ptr;
    }

    /** Release the C rule set now (once; later calls do nothing). States made from it live on. */
    free() {
      if (this.#ptr !== 0) {
        rulesRegistry.unregister(this);
        wasm.tg_rules_free(this.#ptr);
        this.#ptr = 0;
      }
    }

    [dispose]() {
      this.free();
    }

    get freed() {
      return this.#ptr === 0;
    }

    /** The canonical spec: the game id and every option, in the game's order. */
    get spec() {
      return cString(wasm.tg_rules_spec(this.#handle()));
    }

    get gameId() {
      return cString(wasm.tg_rules_game_id(this.#handle()));
    }

    get rows() {
      return wasm.tg_rules_rows(this.#handle());
    }

    get cols() {
      return wasm.tg_rules_cols(this.#handle());
    }

    /** An upper bound on the legal moves or chance outcomes of any state. */
    get maxMoves() {
      return wasm.tg_rules_max_moves(this.#handle()) >>> 0;
    }

    newState() {
      return new (stateClass())(this);
    }

    stateFromString(text) {
      return stateClass().fromString(this, text);
    }

    equals(other) {
      return other instanceof Rules && other.spec === this.spec;
    }

    toString() {
      return this.spec;
    }

    /** JSON.stringify(rules) gives the canonical spec. */
    toJSON() {
      return this.spec;
    }
  }

  // Runs fn(rulesPointer) for a Rules or a spec string (a temporary Rules, freed after).
  function withRules(rules, fn) {
    if (typeof rules === 'string') {
      const owned = new Rules(rules);
      try {
        return fn(rulesHandle(owned), null);
      } finally {
        owned.free();
      }
    }
    if (!(rules instanceof Rules)) {
      throw new TypeError(`rules must be a Rules of this loaded library or a spec string, not ${describe(rules)}`);
    }
    return fn(rulesHandle(rules), rules);
  }

  return { Rules, rulesHandle, withRules, games, checkBot };
}
