// Endgame databases in the analysis (docs/web.md, "Endgame databases"): the server lists its
// databases at egtb/egtb.json; for a position one of them covers, the analysis is the
// database's, every move with its exact value ("win by 4, exact"), read through the package's
// traditional-games/egtb. The reader and its two dependencies are loaded only when the server
// lists a database, so a site without any fetches nothing more than the list.
import { S } from './session.js';

let listed = null; // Promise of [{ path, files }]
const opened = new Map(); // canonical spec -> Promise of the Egtb databases open for it

function databases() {
  listed ??= fetch(new URL('egtb/egtb.json', document.baseURI))
    .then((response) => (response.ok ? response.json() : { databases: [] }))
    .then((manifest) => (Array.isArray(manifest?.databases) ? manifest.databases : []))
    .catch(() => []);
  return listed;
}

// Every listed database for the rule set that has a sound file (the library compares the
// rules stored in each file with the position's: those of other rules open with none).
function openFor(spec) {
  if (!opened.has(spec)) {
    opened.set(spec, (async () => {
      const list = await databases();
      if (!list.length) return [];
      let Egtb;
      try {
        // The reader without bare imports, and its two dependencies beside it: the page is
        // served under a Content-Security-Policy that refuses an inline import map.
        const [core, { decompress }, { default: xxhash }] = await Promise.all([
          import('./traditional-games/traditional-games-egtb-core.js'),
          import('./traditional-games/fzstd.js'),
          import('./traditional-games/xxhash-wasm.js'),
        ]);
        core.useDependencies({ decompress, xxhash });
        ({ Egtb } = core);
      } catch {
        return []; // the reader could not be loaded (the browser said why): the engine's analysis
      }
      const open = [];
      for (const { path, files } of list) {
        const url = new URL(`egtb/${path}`, document.baseURI);
        try {
          const db = await Egtb.open(S.tg, url, spec, { files });
          if (db.maxCounters() > 0) open.push(db);
          else db.close();
        } catch {
          // rules with no database (another game): nothing to consult
        }
      }
      return open;
    })());
  }
  return opened.get(spec);
}

/**
 * The database's analysis of `state` ([{ move, name, value, proven, exact }], best first),
 * or null where no listed database covers it (or its file is missing or damaged: the
 * engine's analysis then stands).
 */
export async function exactAnalysis(state, spec) {
  for (const db of await openFor(state.spec)) {
    try {
      if ((await db.probe(state)) === null) continue;
      const moves = await db.analyse(state, spec, 0);
      if (moves.length && moves.every((m) => m.exact)) return moves;
    } catch {
      // a missing or damaged file: not this database
    }
  }
  return null;
}
