// The session every part of the page shares: the library, the one tg.State, the seats, the
// move list, and the questions the page asks the engine about the current position. Nothing
// here decides a rule; it reads the library's answers.
import { MOVE_PASS, CELL_LOCKED, CELL_DEAD } from './traditional-games/traditional-games.js';

export const params = new URLSearchParams(location.search);
// ?speed=fast: no pauses or animations, for automated runs. ?seed=N: a reproducible session.
export const fast = params.get('speed') === 'fast';

export const $ = (id) => document.getElementById(id);

// How long the page's animations take, as a factor of their normal length: a setting, off
// for people who ask their system for reduced motion, and off in automated runs.
export const ANIMATION_SPEEDS = { off: 0, slow: 2, normal: 1, fast: 0.4 };
const ANIMATION_KEY = 'tg-animation';

export function initialAnimation() {
  if (fast) return 'off';
  try {
    const stored = localStorage.getItem(ANIMATION_KEY);
    if (stored in ANIMATION_SPEEDS) return stored;
  } catch {
    // no storage: the system's preference decides
  }
  return matchMedia('(prefers-reduced-motion: reduce)').matches ? 'off' : 'normal';
}

export function rememberAnimation(value) {
  try {
    localStorage.setItem(ANIMATION_KEY, value);
  } catch {
    // kept for this visit only
  }
}

export const S = {
  tg: null,
  state: null,
  rng: null,
  seats: ['person', 'mcts:iterations=1000'],
  // One entry per move in state.history: who made it, its notation, and whether it was a throw.
  log: [],
  // Bumped whenever the game changes under a pending bot answer or throw animation (new game,
  // undo, paste, a seat changed), so that the late answer is dropped.
  generation: 0,
  phase: 'loading',
  // A paused page lets no bot move and throws no sticks: to follow two bots, or to undo.
  paused: false,
  selectedCell: null,
  lastThrow: null,
  // An offline game ended by its players, not by the rules: { winner, by: 'resignation' }
  // or { winner: DRAW, by: 'agreement' }, or null. The library's state knows nothing of it.
  ended: null,
  pendingBot: null,
  nextEntryKey: 1,
  // The match on tg-server this page plays or watches (online.js), or null offline.
  online: null,
  // The board drawn turned round (North at the bottom): the flip button offline, North's
  // own seat online.
  flipped: false,
  animation: 'normal',
  // The ply whose position the board shows while the person replays the game (the move
  // list), or null for the game as it stands.
  viewPly: null,
  // The engine's values of the legal moves of the position shown, from the worker: { ply,
  // moves: [{ move, name, value, proven }] } best first, or null. analysing: the analysis
  // mode is on (every position of a person's turn is analysed).
  analysis: null,
  analysing: false,
};

// The search the hint and the analysis mode ask for: fixed depth, so the same position gets
// the same values on every machine.
export const ANALYSIS_SPEC = 'search:depth=4';

export const animationMs = (ms) => ms * ANIMATION_SPEEDS[S.animation];

// The cell a decision starts from. Mancala moves are the index of the hole emptied; a Tab
// decision keeps its cell in the low byte (docs/tab.md, "Moves and position strings").
export function originCell(move) {
  return S.state.gameId === 'tab' ? move & 0xff : move;
}

export function positionFields(text = S.state.toString()) {
  // SPEC BOARD TO_MOVE SCORES FIELD=VALUE...
  return Object.fromEntries(text.split(' ').slice(4).map((field) => field.split('=')));
}

export function specOption(key, spec = S.state.spec) {
  const options = spec.split(':')[1] ?? '';
  const pair = options.split(',').find((p) => p.startsWith(`${key}=`));
  return pair ? pair.slice(key.length + 1) : null;
}

export function boardSignature(s) {
  const cells = [];
  for (let row = 0; row < s.rows; row++) {
    for (let col = 0; col < s.cols; col++) cells.push(`${s.count(row, col)}/${s.owner(row, col)}`);
  }
  return { cells, scores: s.scores.join(',') };
}

// The last decision (throws skipped): where it started and which cells it changed.
export function lastDecision(state = S.state, log = S.log) {
  let i = log.length - 1;
  while (i >= 0 && log[i].chance) i--;
  if (i < 0) return null;
  const history = state.history;
  const scratch = state.clone();
  try {
    for (let k = history.length - 1; k > i; k--) scratch.undo();
    const after = boardSignature(scratch);
    scratch.undo();
    const before = boardSignature(scratch);
    const changed = new Set();
    after.cells.forEach((cell, index) => { if (cell !== before.cells[index]) changed.add(index); });
    return { ...log[i], origin: originCell(history[i]), changed };
  } finally {
    scratch.free();
  }
}

// A person decides only at the game as it stands, not under a past position of the replay.
export function personToDecide() {
  return S.phase === 'person' && S.viewPly === null;
}

// Fair play (docs/web.md, "Fair play"): while an online match is being played the engine says
// nothing on its page, to a seat or to a watcher, since a seat can open its own match's watch
// link in another tab. It opens once the server has given the result.
export function engineClosed() {
  return S.online !== null && !S.online.result;
}

// The ply of the position the board shows: the replay's, or the game as it stands.
export const shownPly = () => S.viewPly ?? S.log.length;

// Whether the engine may be asked about the position shown: a person's turn in the game as it
// stands, or any position of a game that is over (the replay's included). The position itself
// must still have a decision to value (not a terminal one, not a throw).
export function analysisOpen() {
  return !engineClosed() && (personToDecide() || S.phase === 'over');
}

// The legal decisions of the player to move, grouped by the cell each starts from.
export function legalByCell() {
  const byCell = new Map();
  if (!personToDecide()) return byCell;
  for (const move of S.state.legalMoves()) {
    if (move === MOVE_PASS) continue;
    const cell = originCell(move);
    if (!byCell.has(cell)) byCell.set(cell, []);
    byCell.get(cell).push({ move, name: S.state.moveToString(move) });
  }
  return byCell;
}

// The cells of a state, as board.js draws them.
export function cellsOf(state) {
  const cells = [];
  for (let row = 0; row < state.rows; row++) {
    for (let col = 0; col < state.cols; col++) {
      cells.push({
        index: row * state.cols + col, row, col,
        name: state.cellName(row, col),
        count: state.count(row, col),
        owner: state.owner(row, col),
        flags: state.flags(row, col),
      });
    }
  }
  return cells;
}

// The position after ply k of the game, and the marks of the decision that led to it (none
// after a throw), on a copy taken back with the library's undo. The caller frees the state.
export function replayAt(k) {
  const { state, log } = S;
  const shown = state.clone();
  for (let n = log.length; n > k; n--) shown.undo();
  const marks = { last: new Set(), changed: new Set(), ply: k };
  if (k > 0 && !log[k - 1].chance) {
    const before = shown.clone();
    try {
      before.undo();
      const a = boardSignature(shown).cells;
      boardSignature(before).cells.forEach((cell, index) => { if (cell !== a[index]) marks.changed.add(index); });
      marks.last.add(originCell(state.history[k - 1]));
    } finally {
      before.free();
    }
  }
  return { shown, marks };
}

function valuesByCell(moves) {
  const byCell = new Map();
  for (const { move, value } of moves) {
    const cell = originCell(move);
    if (!byCell.has(cell) || byCell.get(cell) < value) byCell.set(cell, value);
  }
  return byCell;
}

// Everything board.js draws, read from the engine in one go: the session's position, or
// (for the How to play diagrams) any state, with its marks given.
export function snapshot(seatNames, state = S.state, marks = null) {
  const cells = cellsOf(state);
  const decision = marks ? null : lastDecision();
  // The analysis drawn is the one of the position shown: the game as it stands or the replay's.
  const ply = marks ? marks.ply ?? null : S.log.length;
  const analysed = !engineClosed() && S.analysis && S.analysis.ply === ply ? S.analysis.moves : null;
  return {
    gameId: state.gameId, rows: state.rows, cols: state.cols,
    cell: (row, col) => cells[row * state.cols + col],
    legalByCell: marks ? new Map() : legalByCell(),
    lastCells: marks ? marks.last : new Set(decision ? [decision.origin] : []),
    changedCells: marks ? marks.changed : decision ? decision.changed : new Set(),
    selectedCell: marks ? null : S.selectedCell,
    previewCells: new Set(),
    // The best value of a move from each cell, and the cell of the best move of all.
    values: analysed ? valuesByCell(analysed) : null,
    bestCell: analysed && analysed.length ? originCell(analysed[0].move) : null,
    flipped: marks && !marks.flipped ? false : S.flipped,
    seatNames,
    CELL_LOCKED, CELL_DEAD,
  };
}
