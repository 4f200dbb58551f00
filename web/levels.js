// The bots a seat can be: the five named levels of docs/bots.md ("Levels"), each a bot spec
// with a fixed budget, chosen per game, with the rating tg-arena measured for it in that game.
// Both are read, not held here: the levels from docs/ratings/levels.json, the file tg-server
// compiles its level names from too (so a level is the same bot on the page and on the
// server), once when the page starts; the ratings, when a game is chosen, from tg-arena's own
// output, docs/ratings/<game>.json. Both are served beside the app at docs/ratings/, so a new
// measurement or a new choice of levels shows as soon as those files change.

// { names: [level names], byGame: Map(gameId -> [{ name, spec }]) }, or null before (or
// without) the file.
let table = null;

// A level's spec as levels.json allows it (server/levels-table.py refuses any other at build
// time): a fixed budget, so that its rating holds on any machine.
const LEVEL_SPEC = /^(random|greedy|mcts:iterations=[1-9][0-9]*|search:nodes=[1-9][0-9]*)$/;

function parseLevels(json) {
  const names = json?.levels;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string' && /^[a-z]+$/.test(n))) return null;
  const byGame = new Map();
  for (const [gameId, specs] of Object.entries(json?.games ?? {})) {
    if (Array.isArray(specs) && specs.length === names.length && specs.every((s) => typeof s === 'string' && LEVEL_SPEC.test(s))) {
      byGame.set(gameId, names.map((name, i) => ({ name, spec: specs[i] })));
    }
  }
  return { names, byGame };
}

// Reads the levels once; resolves to whether they were read. Never rejects: without the file
// the seats offer a person only, and the note says why.
let levelsReading = null;
export function loadLevels() {
  levelsReading ??= (async () => {
    try {
      const response = await fetch(new URL('docs/ratings/levels.json', document.baseURI));
      table = response.ok ? parseLevels(await response.json()) : null;
    } catch {
      table = null;
    }
    return table !== null;
  })();
  return levelsReading;
}

export const levelsRead = () => table !== null;

// The levels of a game, weakest first ([] for a game the file does not list).
export const levelsOf = (gameId) => table?.byGame.get(gameId) ?? [];

export const levelOf = (spec, gameId) => levelsOf(gameId).find((level) => level.spec === spec) ?? null;

// What a spec does, as [catalogue key, budget] for the page's words (display only: the spec
// goes to the engine as it is); null for a spec of another form.
export function specHow(spec) {
  if (spec === 'random' || spec === 'greedy') return [`bot-how.${spec}`];
  const budget = spec.match(/^(mcts):iterations=(\d+)$/) ?? spec.match(/^(search):nodes=(\d+)$/);
  return budget ? [`bot-how.${budget[1]}`, Number(budget[2])] : null;
}

// gameId -> { rules, anchor, bySpec: Map(spec -> { elo, halfWidth, games }) }, or null when
// the file could not be read (the levels are then offered without a rating).
const ratings = new Map();
const reading = new Map();

export const ratingsOf = (gameId) => ratings.get(gameId) ?? null;
export const ratingsRead = (gameId) => ratings.has(gameId);

// tg-arena's JSON: one rule set per game file, each bot's Elo above the anchor (random) and
// the half width of its 95% interval.
function parse(json) {
  const set = json?.rule_sets?.find((s) => s.fit === 'ok') ?? json?.rule_sets?.[0];
  if (!set || !Array.isArray(set.ratings)) return null;
  const bySpec = new Map();
  for (const r of set.ratings) {
    if (typeof r.bot === 'string' && Number.isFinite(r.elo)) {
      bySpec.set(r.bot, { elo: r.elo, halfWidth: Number.isFinite(r.half_width) ? r.half_width : 0, games: r.games });
    }
  }
  return { rules: set.rules, anchor: set.anchor ?? json.anchor, bySpec };
}

async function read(gameId) {
  try {
    const response = await fetch(new URL(`docs/ratings/${gameId}.json`, document.baseURI));
    return response.ok ? parse(await response.json()) : null;
  } catch {
    return null;
  }
}

// Reads the game's ratings once; resolves to them (or null). Never rejects: a missing file
// costs the ratings, not the game.
export function loadRatings(gameId) {
  if (!reading.has(gameId)) {
    reading.set(gameId, read(gameId).then((parsed) => {
      ratings.set(gameId, parsed);
      return parsed;
    }));
  }
  return reading.get(gameId);
}
