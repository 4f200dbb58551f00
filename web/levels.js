// The bots a seat can be: the five named levels of docs/bots.md ("Levels"), each a bot spec,
// with the rating tg-arena measured for it in each game. The ratings are read, when a game is
// chosen, from tg-arena's own output, docs/ratings/<game>.json (served beside the app at
// docs/ratings/): the page holds no number of its own, so a new measurement shows as soon as
// that file is regenerated.
export const LEVELS = [
  { name: 'beginner', spec: 'random' },
  { name: 'easy', spec: 'greedy' },
  { name: 'medium', spec: 'mcts:iterations=1000' },
  { name: 'hard', spec: 'search:time=100' },
  { name: 'strongest', spec: 'search:time=1000' },
];

export const levelOf = (spec) => LEVELS.find((level) => level.spec === spec) ?? null;

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
