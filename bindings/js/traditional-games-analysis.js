// The engine's analysis of a position (tg_search_*): State.analyse, and the endgame databases'
// calls (tg_egtb_*) that traditional-games-egtb.js makes through _internal.egtb.

import { Status } from './traditional-games-constants.js';
import { stringArg } from './traditional-games-args.js';
import { rngArg } from './traditional-games-rng.js';
import { OUT_DOUBLES, OUT_EXACT, OUT_MOVE, OUT_PTR, OUT_SIZE } from './traditional-games-calls.js';

/** The analysis of one instance (calls: its bindCalls table). */
export function bindAnalysis(calls) {
  const { wasm, scratch, outBuffer, check, cString, inputText, readU32, reserve, heap, withRng, moveName } = calls;

  function readExactValue(ptr) {
    const v = heap();
    return {
      outcome: v.getInt32(ptr, true),
      endless: v.getInt32(ptr + 4, true) !== 0,
      marginToGo: v.getInt32(ptr + 8, true),
      finalMargin: v.getInt32(ptr + 12, true),
    };
  }

  // State.analyse, and the same with an open database attached (egtb: a tg_egtb pointer, or 0):
  // then each result also has `exact` (its exact value, or null) and the call says what the
  // database did (tg_search_egtb_status).
  function analyseState(handle, spec, rng, egtb) {
    stringArg(spec, 'a bot spec');
    rng = rngArg(rng);
    const specPtr = inputText(spec, Status.TG_ERR_BAD_OPTION, 'bot');
    check(wasm.tg_search_new(specPtr, scratch + OUT_PTR), 'bot', spec);
    const search = readU32(scratch + OUT_PTR);
    try {
      if (egtb) check(wasm.tg_search_set_egtb(search, egtb), 'database', spec);
      withRng(rng, (rngPtr) => check(wasm.tg_search_analyse(search, handle, rngPtr), 'analyse'));
      const count = wasm.tg_search_result_count(search) >>> 0;
      const results = [];
      for (let i = 0; i < count; i++) {
        check(wasm.tg_search_result(search, i, scratch + OUT_MOVE, scratch + OUT_DOUBLES,
          scratch + OUT_DOUBLES + 8), 'analyse');
        const v = heap();
        const move = v.getUint32(scratch + OUT_MOVE, true);
        const value = v.getFloat64(scratch + OUT_DOUBLES, true);
        const proven = v.getUint8(scratch + OUT_DOUBLES + 8) !== 0;
        check(wasm.tg_search_result_line(search, i, 0, 0, scratch + OUT_SIZE), 'analyse');
        const size = readU32(scratch + OUT_SIZE) + 1;
        const ptr = reserve(outBuffer, size);
        check(wasm.tg_search_result_line(search, i, ptr, size, 0), 'analyse');
        const line = cString(ptr).split(' ').filter((m) => m !== '');
        const result = { move, name: line[0] ?? moveName(handle, move), value, proven, line };
        if (egtb) {
          check(wasm.tg_search_result_exact(search, i, scratch + OUT_EXACT, scratch + OUT_EXACT + 16),
            'analyse');
          result.exact = heap().getUint8(scratch + OUT_EXACT + 16) !== 0 ? readExactValue(scratch + OUT_EXACT) : null;
        }
        results.push(result);
      }
      return { results, egtbStatus: egtb ? wasm.tg_search_egtb_status(search) : 0 };
    } finally {
      wasm.tg_search_free(search);
    }
  }

  // The endgame databases' calls, for traditional-games-egtb.js: each returns the
  // tg_egtb_status and what the call gave. host: the loader's makeEgtbHost; withRules and
  // stateHandle: the instance's (bindRules, bindState).
  function egtbCalls(host, withRules, stateHandle) {
    return Object.freeze({
      host,
      available: ['tg_egtb_open', 'tg_egtb_reader_probe', 'tg_search_set_egtb'].every((name) => name in wasm),
      statusString: (status) => cString(wasm.tg_egtb_status_string(status)),
      supported: (rules) => withRules(rules, (ptr) => wasm.tg_egtb_supported(ptr)),
      open(dir, rules) {
        return withRules(rules, (rulesPtr) => {
          // After the rules: reading a spec string uses the same input buffer.
          const dirPtr = inputText(dir, Status.TG_ERR_INVALID_ARGUMENT, 'directory');
          const status = wasm.tg_egtb_open(dirPtr, rulesPtr, scratch + OUT_PTR);
          return { status, db: status === 0 ? readU32(scratch + OUT_PTR) : 0 };
        });
      },
      close: (db) => wasm.tg_egtb_close(db),
      maxCounters: (db) => wasm.tg_egtb_max_counters(db),
      readerNew(db) {
        const status = wasm.tg_egtb_reader_new(db, scratch + OUT_PTR);
        return { status, reader: status === 0 ? readU32(scratch + OUT_PTR) : 0 };
      },
      readerFree: (reader) => wasm.tg_egtb_reader_free(reader),
      readerProbe(reader, state) {
        const status = wasm.tg_egtb_reader_probe(reader, stateHandle(state), scratch + OUT_EXACT);
        return { status, value: status === 0 ? readExactValue(scratch + OUT_EXACT) : null };
      },
      analyse: (state, spec, rng, db) => analyseState(stateHandle(state), spec, rng, db),
    });
  }

  return { analyseState, egtbCalls };
}
